// A prepared statement that finalizes itself and turns SQLite failures into InputError or
// StoreError naming the database file. Private to the store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <sqlite3.h>

namespace fomcast::detail {

// Whether an SQLite result code puts the fault in the file (not a database, corrupt,
// unreadable or read-only, a row the schema refuses) rather than in fomcast or the system.
bool is_bad_input(int rc);
// Throws what an SQLite result code calls for, naming the file: InputError for bad input,
// StoreError for everything else. The message is `what: <SQLite's own message>`.
[[noreturn]] void throw_sqlite(int rc, const std::string& path, const std::string& message);
[[noreturn]] void throw_sqlite(sqlite3* db, int rc, const std::string& path, std::string_view what);

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql, const std::string& path);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, std::optional<double> value);
  Statement& bind_null(int index);

  bool step();  // true while a row is available
  void run();   // for statements that return no rows
  void reset();

  int64_t int_at(int column) const;
  double double_at(int column) const;
  std::string text_at(int column) const;
  std::optional<double> optional_double_at(int column) const;
  bool null_at(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  const std::string& path_;
};

}  // namespace fomcast::detail
