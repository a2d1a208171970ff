// RFC 4180 records with line numbers, and checked typed reads of their fields.
#include "csv_lite.hpp"

#include <charconv>
#include <climits>

#include "fomcast/error.hpp"

namespace fomcast::bench::detail {
namespace {

struct Record {
  int64_t line;
  std::vector<std::string> fields;
};

std::vector<Record> parse(std::string_view text, const std::string& file) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<Record> out;
  std::size_t i = 0;
  int64_t line = 1;
  while (i < text.size()) {
    Record r{line, {}};
    std::string field;
    bool quoted_field = false;
    for (;;) {
      if (i >= text.size() || text[i] == '\n' || text[i] == '\r') {
        r.fields.push_back(std::move(field));
        if (i < text.size() && text[i] == '\r') ++i;
        if (i < text.size() && text[i] == '\n') ++i;
        ++line;
        break;
      }
      const char c = text[i];
      if (c == '\0') throw InputError(file, "NUL byte in a CSV file", line, static_cast<int64_t>(i));
      if (c == ',') {
        r.fields.push_back(std::move(field));
        field.clear();
        quoted_field = false;
        ++i;
        continue;
      }
      if (c == '"') {
        if (!field.empty() || quoted_field) throw InputError(file, "stray quote inside a field", line, static_cast<int64_t>(i));
        quoted_field = true;
        const int64_t start_line = line;
        ++i;
        for (;;) {
          if (i >= text.size()) throw InputError(file, "unterminated quoted field", start_line);
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (text[i] == '\n') ++line;
          if (text[i] == '\0') throw InputError(file, "NUL byte in a CSV file", line, static_cast<int64_t>(i));
          field += text[i++];
        }
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
          throw InputError(file, "text after a closing quote", line, static_cast<int64_t>(i));
        continue;
      }
      if (quoted_field) throw InputError(file, "text after a closing quote", line, static_cast<int64_t>(i));
      field += c;
      ++i;
    }
    const bool blank = r.fields.size() == 1 && r.fields[0].empty();
    if (!blank) out.push_back(std::move(r));
  }
  return out;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  const auto b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

CsvTable::CsvTable(std::string_view text, std::string_view file) : file_(file) {
  auto records = parse(text, file_);
  if (records.empty()) throw InputError(file_, "empty CSV file: expected a header line", 1);
  for (auto& h : records[0].fields) {
    std::string name = trim(h);
    for (const auto& seen : header_)
      if (seen == name) throw InputError(file_, "duplicate column '" + name + "'", records[0].line, -1, name);
    header_.push_back(std::move(name));
  }
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].fields.size() > header_.size())
      throw InputError(file_,
                       "record has " + std::to_string(records[r].fields.size()) + " fields, the header " +
                           std::to_string(header_.size()),
                       records[r].line);
    for (auto& f : records[r].fields) f = trim(f);
    rows_.push_back({records[r].line, std::move(records[r].fields)});
  }
}

int CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name) return static_cast<int>(i);
  return -1;
}

bool CsvTable::has(std::string_view name) const { return column(name) >= 0; }

void CsvTable::require(const std::vector<std::string>& columns) const {
  for (const auto& c : columns)
    if (!has(c)) throw InputError(file_, "missing column '" + c + "'", 1, -1, c);
}

std::string CsvTable::text(std::size_t row, std::string_view name) const {
  const int c = column(name);
  if (c < 0 || static_cast<std::size_t>(c) >= rows_[row].fields.size()) return "";
  return rows_[row].fields[static_cast<std::size_t>(c)];
}

std::optional<int64_t> CsvTable::integer(std::size_t row, std::string_view name, int64_t minimum) const {
  const std::string s = text(row, name);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && end == s.data() + s.size() && v > INT_MAX))
    fail(row, name, "'" + s + "' is too large (at most " + std::to_string(INT_MAX) + ")");
  if (ec != std::errc() || end != s.data() + s.size()) fail(row, name, "expected a whole number, got '" + s + "'");
  if (v < minimum) fail(row, name, "expected at least " + std::to_string(minimum) + ", got " + s);
  return v;
}

int64_t CsvTable::required_integer(std::size_t row, std::string_view name, int64_t minimum) const {
  auto v = integer(row, name, minimum);
  if (!v) fail(row, name, "missing value");
  return *v;
}

void CsvTable::fail(std::size_t row, std::string_view name, const std::string& message) const {
  throw InputError(file_, message, rows_[row].line, -1, std::string(name));
}

}  // namespace fomcast::bench::detail
