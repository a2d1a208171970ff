// Prepared-statement wrapper for the store.
#include "sqlite_statement.hpp"

#include "fomcast/error.hpp"
#include "fomcast/store.hpp"

namespace fomcast {

StoreError::StoreError(std::string path_, std::string message_)
    : std::runtime_error((path_.empty() ? "<database>" : path_) + ": " + message_),
      path(std::move(path_)),
      message(std::move(message_)) {}

}  // namespace fomcast

namespace fomcast::detail {

bool is_bad_input(int rc) {
  switch (rc & 0xff) {  // the primary code of an extended one
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
    case SQLITE_CONSTRAINT:
    case SQLITE_TOOBIG: return true;
    default: return false;
  }
}

void throw_sqlite(int rc, const std::string& path, const std::string& message) {
  if (is_bad_input(rc)) throw InputError(path, message);
  // The machine's trouble, not fomcast's: said as what to do ("internal error: ... database
  // or disk is full" read as a defect). Every write is one transaction, so nothing was kept.
  switch (rc & 0xff) {
    case SQLITE_FULL:
      throw InputError(path, message +
                                 " (the disk that holds the database is full: free space and run the command "
                                 "again; the database is as it was)");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw InputError(path, message +
                                 " (another process held the database for 60 s, a second fomcast writing it or "
                                 "an open sqlite3 transaction: run the command again when it is done; the "
                                 "database is as it was)");
    default: throw StoreError(path, message);
  }
}

void throw_sqlite(sqlite3* db, int rc, const std::string& path, std::string_view what) {
  throw_sqlite(rc, path, std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

Statement::Statement(sqlite3* db, std::string_view sql, const std::string& path) : db_(db), path_(path) {
  if (const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr); rc != SQLITE_OK)
    throw_sqlite(db, rc, path, "preparing a query");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, int64_t value) {
  if (const int rc = sqlite3_bind_int64(stmt_, index, value); rc != SQLITE_OK) throw_sqlite(db_, rc, path_, "binding");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (const int rc = sqlite3_bind_double(stmt_, index, value); rc != SQLITE_OK) throw_sqlite(db_, rc, path_, "binding");
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  if (const int rc = sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      rc != SQLITE_OK)
    throw_sqlite(db_, rc, path_, "binding");
  return *this;
}

Statement& Statement::bind(int index, std::optional<double> value) {
  return value ? bind(index, *value) : bind_null(index);
}

Statement& Statement::bind_null(int index) {
  if (const int rc = sqlite3_bind_null(stmt_, index); rc != SQLITE_OK) throw_sqlite(db_, rc, path_, "binding");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite(db_, rc, path_, "running a query");
}

void Statement::run() {
  while (step()) {}
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::int_at(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::double_at(int column) const { return sqlite3_column_double(stmt_, column); }
bool Statement::null_at(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

std::string Statement::text_at(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string();
}

std::optional<double> Statement::optional_double_at(int column) const {
  if (null_at(column)) return std::nullopt;
  return double_at(column);
}

}  // namespace fomcast::detail
