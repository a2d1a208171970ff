// CSV for kernel tables: RFC 4180 records, then typed access by column name. Strict on
// purpose: a kernel time read wrongly becomes a wrong FOM, so anything odd is an error
// that names the file, line and column.
#include "fomcast/csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "fomcast/error.hpp"
#include "fomcast/text.hpp"

namespace fomcast {

std::vector<CsvRecord> parse_csv(std::string_view text, std::string_view file) {
  text.remove_prefix(utf8_bom_length(text));
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  int64_t line = 1;
  record.line = 1;
  bool in_quotes = false, field_was_quoted = false, record_has_content = false;
  auto end_field = [&] {
    record.fields.push_back(std::move(field));
    field.clear();
    field_was_quoted = false;
  };
  auto end_record = [&] {
    end_field();
    // A line holding nothing at all is skipped; a line of commas is a record of empties.
    if (record_has_content) records.push_back(std::move(record));
    record = CsvRecord{};
    record_has_content = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0') throw InputError(std::string(file), "NUL byte: not a text CSV file", line, static_cast<int64_t>(i));
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    switch (c) {
      case '"':
        if (!field.empty() || field_was_quoted)
          throw InputError(std::string(file), "quote inside an unquoted field", line, static_cast<int64_t>(i));
        in_quotes = field_was_quoted = record_has_content = true;
        break;
      case ',':
        record_has_content = true;
        end_field();
        break;
      case '\r':
        if (i + 1 < text.size() && text[i + 1] == '\n') break;  // CRLF: the \n ends the record
        [[fallthrough]];
      case '\n':
        end_record();
        ++line;
        record.line = line;
        break;
      default:
        if (field_was_quoted)
          throw InputError(std::string(file), "text after a closing quote", line, static_cast<int64_t>(i));
        field += c;
        record_has_content = true;
    }
  }
  if (in_quotes) throw InputError(std::string(file), "unterminated quoted field", record.line);
  end_record();
  return records;
}

namespace {

void trim(std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return s.clear();
  s.erase(s.find_last_not_of(" \t") + 1);
  s.erase(0, a);
}

}  // namespace

std::vector<std::string> CsvTable::column_names() const {
  std::vector<std::pair<std::size_t, std::string>> by_index;
  for (const auto& [name, index] : columns_) by_index.emplace_back(index, name);
  std::sort(by_index.begin(), by_index.end());
  std::vector<std::string> out;
  for (auto& [index, name] : by_index) out.push_back(std::move(name));
  return out;
}

CsvTable::CsvTable(std::string_view text, std::string_view file) : file_(file) {
  records_ = parse_csv(text, file);
  if (records_.empty()) throw InputError(file_, "empty: expected a header line", 1);
  const CsvRecord& header = records_.front();
  for (std::size_t i = 0; i < header.fields.size(); ++i) {
    std::string name = header.fields[i];
    trim(name);
    if (name.empty()) continue;
    if (!columns_.emplace(name, i).second)
      throw InputError(file_, "column '" + name + "' appears twice in the header", header.line, -1, name);
  }
  for (std::size_t r = 1; r < records_.size(); ++r) {
    for (auto& f : records_[r].fields) trim(f);
    if (records_[r].fields.size() != header.fields.size())
      throw InputError(file_,
                       "has " + std::to_string(records_[r].fields.size()) + " fields, the header has " +
                           std::to_string(header.fields.size()),
                       records_[r].line);
  }
  if (records_.size() < 2) throw InputError(file_, "no data rows after the header", header.line);
}

void CsvTable::require(const std::vector<std::string>& columns) const {
  for (const auto& c : columns)
    if (!has(c)) throw InputError(file_, "missing column '" + c + "'", records_.front().line, -1, c);
}

const std::string& CsvTable::text(std::size_t row, std::string_view column) const {
  static const std::string kEmpty;
  auto it = columns_.find(std::string(column));
  if (it == columns_.end()) return kEmpty;
  return records_[row + 1].fields[it->second];
}

void CsvTable::fail(std::size_t row, std::string_view column, const std::string& message) const {
  // The position names the column (file:line: column: message).
  throw InputError(file_, message, line(row), -1, std::string(column));
}

int64_t CsvTable::integer(std::size_t row, std::string_view column, int64_t minimum) const {
  auto v = optional_integer(row, column, minimum);
  if (!v) fail(row, column, "missing value");
  return *v;
}

std::optional<int64_t> CsvTable::optional_integer(std::size_t row, std::string_view column, int64_t minimum) const {
  const std::string& s = text(row, column);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  // Shapes multiply together (beyond 2^31 per dimension a product overflows int64), and
  // BLAS and cuDNN take int dimensions.
  const bool whole = ec == std::errc() && end == s.data() + s.size();
  if (ec == std::errc::result_out_of_range || (whole && v > INT32_MAX))
    fail(row, column, "'" + s + "' is too large (at most " + std::to_string(INT32_MAX) + ")");
  if (!whole) fail(row, column, "expected a whole number, got '" + s + "'");
  if (v < minimum) fail(row, column, "must be at least " + std::to_string(minimum) + ", got " + s);
  return v;
}

double CsvTable::positive(std::size_t row, std::string_view column, bool allow_zero) const {
  auto v = optional_positive(row, column, allow_zero);
  if (!v) fail(row, column, "missing value");
  return *v;
}

std::optional<double> CsvTable::optional_positive(std::size_t row, std::string_view column, bool allow_zero) const {
  const std::string& s = text(row, column);
  if (s.empty()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) fail(row, column, "expected a number, got '" + s + "'");
  if (!std::isfinite(v)) fail(row, column, "must be finite, got '" + s + "'");
  if (v < 0 || (v == 0 && !allow_zero))
    fail(row, column, std::string("must be ") + (allow_zero ? "zero or positive" : "positive") + ", got " + s);
  return v;
}

}  // namespace fomcast
