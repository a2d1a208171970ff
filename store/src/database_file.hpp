// The database file itself, apart from what it holds: whether it can be written, and
// whether SQLite finds it sound. Private to the store.
#pragma once

#include <string>
#include <vector>

#include <sqlite3.h>

namespace fomcast::detail {

// "" when SQLite can write the database at `path` (the file, and the directory where it
// creates the database and its WAL and shared-memory files), else "cannot write DIR
// (read-only)" naming what cannot be written.
std::string write_problem(const std::string& path, bool exists);

// file:PATH?immutable=1 (URI characters escaped): a database opened so that reading it
// writes nothing, not even a shared-memory file, where nothing can be written.
std::string immutable_uri(const std::string& path);

// SQLite's quick_check: {"ok"} for a sound file, else its findings (at most ten), or the
// error that kept the check itself from running.
std::vector<std::string> quick_check(sqlite3* db, const std::string& path);

// The tables of the current schema that a database of the current version lacks (one
// dropped by hand): every query on it failed as an internal error, and doctor said "ok".
std::vector<std::string> missing_tables(sqlite3* db, const std::string& path);
// "damaged fomcast database: table 'ops' is missing; ..." for those, "" for none.
std::string missing_tables_problem(const std::vector<std::string>& missing);

}  // namespace fomcast::detail
