// A strict RFC 4180 CSV reader for kernel tables and shape lists (tables/' import-bench,
// microbench's suites): quoted fields may hold commas, quotes and newlines; every record
// remembers the line it started on, so an error can name it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fomcast {

struct CsvRecord {
  int64_t line = 0;  // 1-based line where the record starts
  std::vector<std::string> fields;
};

// Whole text -> records (the header included). Throws InputError naming the file and
// line for an unterminated quote, a stray quote inside an unquoted field or a NUL byte.
// Blank lines are skipped; a UTF-8 byte-order mark is ignored.
std::vector<CsvRecord> parse_csv(std::string_view text, std::string_view file);

// Column access by header name, with typed, checked conversions. Every failure is an
// InputError naming the file, the record's line and the column.
class CsvTable {
 public:
  CsvTable(std::string_view text, std::string_view file);

  std::size_t rows() const { return records_.size() - 1; }
  int64_t line(std::size_t row) const { return records_[row + 1].line; }
  bool has(std::string_view column) const { return columns_.count(std::string(column)) != 0; }
  // The header's named columns, in file order.
  std::vector<std::string> column_names() const;
  // Throws naming the first missing column.
  void require(const std::vector<std::string>& columns) const;

  // "" when the column is absent. Fields are trimmed of spaces and tabs.
  const std::string& text(std::size_t row, std::string_view column) const;
  bool empty(std::size_t row, std::string_view column) const { return text(row, column).empty(); }
  // Whole number in [minimum, 2^31 - 1] (dimensions are >= 1, paddings >= 0; BLAS takes
  // int dimensions).
  int64_t integer(std::size_t row, std::string_view column, int64_t minimum) const;
  std::optional<int64_t> optional_integer(std::size_t row, std::string_view column, int64_t minimum) const;
  // Finite and > 0 (times) or >= 0 when allow_zero.
  double positive(std::size_t row, std::string_view column, bool allow_zero = false) const;
  std::optional<double> optional_positive(std::size_t row, std::string_view column, bool allow_zero = false) const;

  [[noreturn]] void fail(std::size_t row, std::string_view column, const std::string& message) const;
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<CsvRecord> records_;
  std::unordered_map<std::string, std::size_t> columns_;
};

}  // namespace fomcast
