// A small RFC 4180 reader for the shape lists (DeepBench's problem CSVs, a user's shapes):
// quoted fields may hold commas, quotes and newlines; every record keeps the line it
// started on, and every typed read names the file, line and column when it fails.
// Private to microbench/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fomcast::bench::detail {

class CsvTable {
 public:
  // Throws InputError for an unterminated quote, a stray quote, a NUL byte, an empty
  // file, a duplicate column or a record with more fields than the header.
  CsvTable(std::string_view text, std::string_view file);

  std::size_t rows() const { return rows_.size(); }
  int64_t line(std::size_t row) const { return rows_[row].line; }
  bool has(std::string_view column) const;
  void require(const std::vector<std::string>& columns) const;
  // "" when the column is absent or the field empty.
  std::string text(std::size_t row, std::string_view column) const;
  // A whole number in [minimum, 2^31 - 1]; nullopt when empty or absent.
  std::optional<int64_t> integer(std::size_t row, std::string_view column, int64_t minimum) const;
  int64_t required_integer(std::size_t row, std::string_view column, int64_t minimum) const;
  [[noreturn]] void fail(std::size_t row, std::string_view column, const std::string& message) const;
  const std::string& file() const { return file_; }

 private:
  struct Row {
    int64_t line = 0;
    std::vector<std::string> fields;
  };
  std::string file_;
  std::vector<std::string> header_;
  std::vector<Row> rows_;
  int column(std::string_view name) const;
};

}  // namespace fomcast::bench::detail
