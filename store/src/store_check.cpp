// `fomcast doctor`'s look at a database file: opened read-only, so that looking never
// changes what is looked at (no WAL switch, no migration, no seeding): whether it is a
// fomcast database, whether it can be written, SQLite's quick_check and what it holds.
#include <sys/stat.h>

#include "busy_wait.hpp"
#include "database_file.hpp"
#include "fomcast/error.hpp"
#include "fomcast/store.hpp"
#include "schema.hpp"
#include "sqlite_statement.hpp"

namespace fomcast {
namespace {

using detail::Statement;

int64_t count(sqlite3* db, const std::string& path, const char* table) {
  Statement s(db, std::string("SELECT count(*) FROM ") + table, path);
  return s.step() ? s.int_at(0) : 0;
}

struct Connection {
  sqlite3* db = nullptr;
  ~Connection() { sqlite3_close_v2(db); }
};

}  // namespace

Store::Health Store::check(const std::string& path) {
  Health h;
  struct stat st {};
  h.exists = stat(path.c_str(), &st) == 0;
  h.write_problem = detail::write_problem(path, h.exists);
  if (!h.exists) {
    h.problem = "does not exist (the first command that needs it creates it)";
    return h;
  }
  if (!S_ISREG(st.st_mode)) {
    h.problem = "not a regular file, so not a fomcast database";
    return h;
  }
  Connection c;
  // Where nothing can be written, SQLite cannot make the shared-memory file a WAL database
  // is read through: read it as immutable instead (nobody can be writing it there).
  const std::string target = h.write_problem.empty() ? path : detail::immutable_uri(path);
  if (const int rc = sqlite3_open_v2(target.c_str(), &c.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
      rc != SQLITE_OK) {
    h.problem = std::string("cannot open: ") + (c.db ? sqlite3_errmsg(c.db) : "out of memory");
    return h;
  }
  detail::install_busy_wait(c.db);
  try {
    Statement look(c.db,
                   "SELECT (SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_master), "
                   "(SELECT user_version FROM pragma_user_version)",
                   path);
    int64_t app_id = 0, tables = 0;
    if (look.step()) {
      app_id = look.int_at(0);
      tables = look.int_at(1);
      h.schema_version = static_cast<int>(look.int_at(2));
    }
    if (app_id == 0 && tables == 0) return h;  // empty: the first command that needs it fills it
    if (app_id != detail::kApplicationId) {
      h.problem = "not a fomcast database (application id " + std::to_string(app_id) + ")";
      return h;
    }
  } catch (const InputError& e) {
    h.problem = "not a fomcast database (" + e.message + ")";
    return h;
  }
  h.quick_check = detail::quick_check(c.db, path);
  if (h.quick_check.size() != 1 || h.quick_check[0] != "ok") {
    h.problem = "corrupt: SQLite's quick_check found damage";
    return h;
  }
  if (h.schema_version > schema_version()) {
    h.problem = "written by a newer fomcast (schema " + std::to_string(h.schema_version) + ", this one knows " +
                std::to_string(schema_version()) + ")";
    return h;
  }
  if (h.schema_version < schema_version()) return h;  // the next command migrates it; its tables may not all exist
  if (std::string p = detail::missing_tables_problem(detail::missing_tables(c.db, path)); !p.empty()) {
    h.problem = std::move(p);
    return h;
  }
  h.platforms = count(c.db, path, "platforms");
  h.kernel_entries = count(c.db, path, "kernel_entries");
  h.workloads = count(c.db, path, "workloads");
  h.calibrations = count(c.db, path, "calibrations");
  h.fom_records = count(c.db, path, "fom_records");
  Statement meta(c.db, "SELECT value FROM meta WHERE key = 'shipped_data_hash'", path);
  if (meta.step()) h.shipped_data_hash = meta.text_at(0);
  return h;
}

}  // namespace fomcast
