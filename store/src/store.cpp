// Opening the database: connection settings, schema migrations, transactions and the meta
// table. Filling a new database from the shipped data is not done here but one layer up
// (seed/), so the store depends on the vocabulary alone.
#include <sys/stat.h>

#include <chrono>
#include <ctime>
#include <thread>

#include "busy_wait.hpp"
#include "database_file.hpp"
#include "fomcast/error.hpp"
#include "fomcast/store.hpp"
#include "schema.hpp"
#include "sqlite_statement.hpp"

namespace fomcast {
namespace {

using detail::kApplicationId;
using detail::Statement;

void exec(sqlite3* db, const std::string& path, const char* sql, std::string_view what) {
  char* err = nullptr;
  if (const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err); rc != SQLITE_OK) {
    std::string msg = std::string(what) + ": " + (err ? err : "unknown error");
    sqlite3_free(err);
    detail::throw_sqlite(rc, path, msg);
  }
}

// Switching to WAL needs the file to itself for a moment, and SQLite answers "busy" there
// without always going through the busy handler: wait and retry, as the timeout would.
void switch_to_wal(sqlite3* db, const std::string& path) {
  for (int waited_ms = 0;; waited_ms += 5) {
    const int rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || waited_ms >= detail::kBusyWaitMs)
      detail::throw_sqlite(db, rc, path, "switching to WAL");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int pragma_int(sqlite3* db, const std::string& path, const char* sql) {
  Statement s(db, sql, path);
  return s.step() ? static_cast<int>(s.int_at(0)) : 0;
}

}  // namespace

int Store::schema_version() { return static_cast<int>(detail::migrations().size()); }

Store::Store(std::string path) : path_(std::move(path)) {}

Store::Store(Store&& other) noexcept
    : path_(std::move(other.path_)),
      db_(other.db_),
      transaction_depth_(other.transaction_depth_),
      checked_sound_(other.checked_sound_),
      read_only_problem_(std::move(other.read_only_problem_)) {
  other.db_ = nullptr;
}

Store& Store::operator=(Store&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    path_ = std::move(other.path_);
    db_ = other.db_;
    transaction_depth_ = other.transaction_depth_;
    checked_sound_ = other.checked_sound_;
    read_only_problem_ = std::move(other.read_only_problem_);
    other.db_ = nullptr;
  }
  return *this;
}

Store::~Store() { sqlite3_close_v2(db_); }

Store Store::open(const std::string& path) {
  struct stat st {};
  const bool exists = stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) throw InputError(path, "not a regular file, so not a fomcast database");
  if (std::string problem = detail::write_problem(path, exists); !problem.empty()) {
    if (!exists) throw InputError(path, problem);
    return open_read_only(path, std::move(problem));
  }

  Store store(path);
  if (const int rc = sqlite3_open_v2(path.c_str(), &store.db_,
                                     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
      rc != SQLITE_OK)
    detail::throw_sqlite(store.db_, rc, path, "cannot open database");

  // The busy timeout first: every later statement, the WAL switch included, may meet a
  // writer in another process and must wait for it rather than fail.
  detail::install_busy_wait(store.db_);
  // Look before writing anything: switching another program's SQLite file (an nsys
  // export given by mistake) to WAL would already change it. SQLite refusing the file
  // (bad input: garbage, a read-only file) says it is not a database we can use.
  const auto not_ours = [&](const InputError& e) {
    return InputError(path, "not a fomcast database (" + e.message + ")");
  };
  // One statement, one snapshot: another fomcast may be creating this database right now,
  // and its id and its tables must be seen at the same moment.
  int app_id = 0;
  int64_t tables = 0;
  try {
    Statement look(store.db_,
                   "SELECT (SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_master)",
                   path);
    if (look.step()) {
      app_id = static_cast<int>(look.int_at(0));
      tables = look.int_at(1);
    }
  } catch (const InputError& e) {
    throw not_ours(e);
  }
  if (app_id != 0 && app_id != kApplicationId)
    throw InputError(path, "not a fomcast database (application id " + std::to_string(app_id) + ")");
  if (app_id == 0 && tables != 0) throw InputError(path, "not a fomcast database: an SQLite file with other tables");
  try {
    switch_to_wal(store.db_, path);
  } catch (const InputError& e) {
    throw not_ours(e);
  }
  exec(store.db_, path, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL", "configuring database");
  store.migrate();
  if (const std::string p = detail::missing_tables_problem(detail::missing_tables(store.db_, path)); !p.empty())
    throw InputError(path, p);
  return store;
}

// A database that cannot be written (a read-only file or directory, a shared copy) still
// answers every command that only reads: estimate, fom, show, platforms. It is opened
// immutable, so reading writes nothing; it must be this build's schema and data already,
// since neither a migration nor a seeding could be written.
Store Store::open_read_only(const std::string& path, std::string problem) {
  Store store(path);
  store.read_only_problem_ = std::move(problem);
  if (const int rc = sqlite3_open_v2(detail::immutable_uri(path).c_str(), &store.db_,
                                     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX, nullptr);
      rc != SQLITE_OK)
    detail::throw_sqlite(store.db_, rc, path, "cannot open database");
  int app_id = 0, version = 0;
  try {
    Statement look(store.db_,
                   "SELECT (SELECT application_id FROM pragma_application_id), "
                   "(SELECT user_version FROM pragma_user_version)",
                   path);
    if (look.step()) {
      app_id = static_cast<int>(look.int_at(0));
      version = static_cast<int>(look.int_at(1));
    }
  } catch (const InputError& e) {
    throw InputError(path, "not a fomcast database (" + e.message + ")");
  }
  if (app_id != kApplicationId)
    throw InputError(path, app_id == 0 ? store.read_only_problem_ + ", and it is not yet a fomcast database"
                                       : "not a fomcast database (application id " + std::to_string(app_id) + ")");
  if (version != schema_version())
    throw InputError(path, store.read_only_problem_ + ", and its schema (version " + std::to_string(version) +
                               ") is not this fomcast's (" + std::to_string(schema_version()) +
                               "): it cannot be migrated");
  if (const std::string p = detail::missing_tables_problem(detail::missing_tables(store.db_, path)); !p.empty())
    throw InputError(path, p);
  return store;
}

void Store::migrate() {
  // Nothing to migrate: no write, so a session that only reads writes nothing at all.
  if (pragma_int(db_, path_, "PRAGMA application_id") == kApplicationId &&
      pragma_int(db_, path_, "PRAGMA user_version") == schema_version())
    return;
  transaction([&] {
    const int app_id = pragma_int(db_, path_, "PRAGMA application_id");
    const int version = pragma_int(db_, path_, "PRAGMA user_version");
    if (app_id == 0 && version == 0) {
      if (pragma_int(db_, path_, "SELECT count(*) FROM sqlite_master") != 0)
        throw InputError(path_, "not a fomcast database: an SQLite file with other tables");
      exec(db_, path_, ("PRAGMA application_id=" + std::to_string(kApplicationId)).c_str(), "initialising");
    } else if (app_id != kApplicationId) {
      throw InputError(path_, "not a fomcast database (application id " + std::to_string(app_id) + ")");
    }
    const int latest = schema_version();
    if (version > latest)
      throw InputError(path_, "written by a newer fomcast (schema " + std::to_string(version) + ", this one knows " +
                                  std::to_string(latest) + ")");
    for (int v = version; v < latest; ++v) {
      exec(db_, path_, detail::migrations()[static_cast<std::size_t>(v)],
           "migrating schema to version " + std::to_string(v + 1));
      exec(db_, path_, ("PRAGMA user_version=" + std::to_string(v + 1)).c_str(), "recording schema version");
    }
    if (version == 0) set_meta("created_at", utc_now());
  });
}

void Store::check_sound() {
  if (checked_sound_) return;
  const std::vector<std::string> found = detail::quick_check(db_, path_);
  if (found.size() != 1 || found[0] != "ok")
    throw InputError(path_, "the database is corrupt (SQLite quick_check: " + (found.empty() ? "no answer" : found[0]) +
                                "); nothing was written to it. Restore a copy, or move it aside and fomcast creates a "
                                "new one (`fomcast doctor` reports on it)");
  checked_sound_ = true;
}

void Store::transaction(const std::function<void()>& body) {
  if (!read_only_problem_.empty())
    throw InputError(path_, read_only_problem_ + ": this command writes to the database (reading commands work)");
  if (transaction_depth_ > 0) {
    body();
    return;
  }
  check_sound();
  exec(db_, path_, "BEGIN IMMEDIATE", "starting a write");
  ++transaction_depth_;
  try {
    body();
    --transaction_depth_;
    exec(db_, path_, "COMMIT", "committing");
  } catch (...) {
    if (transaction_depth_ > 0) --transaction_depth_;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<std::string> Store::meta(std::string_view key) const {
  Statement s(db_, "SELECT value FROM meta WHERE key = ?1", path_);
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  return s.text_at(0);
}

void Store::set_meta(std::string_view key, std::string_view value) {
  Statement s(db_, "INSERT INTO meta(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
              path_);
  s.bind(1, key).bind(2, value).run();
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace fomcast
