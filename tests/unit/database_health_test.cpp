// The database file itself: a corrupt one is reported (SQLite's quick_check) and never
// written into, `fomcast doctor` says what a file is without writing to it, and a
// read-only directory is called that rather than "not a fomcast database".
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::file_fingerprint;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
using fomcast::test::source_path;

namespace {

// Overwrites the first bytes of the root page of `table`'s b-tree with garbage: the file
// stays a readable fomcast database (its header and sqlite_master are intact), and writes
// that never touch that table still go through, but quick_check finds the damage.
void damage_table(const std::string& db, const char* table) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(h,
                             "SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_master "
                             "WHERE name = ?1",
                             -1, &s, nullptr) == SQLITE_OK);
  sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  const int64_t page = sqlite3_column_int64(s, 0), size = sqlite3_column_int64(s, 1);
  sqlite3_finalize(s);
  sqlite3_close(h);
  REQUIRE(page > 1);
  std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp((page - 1) * size);
  const std::string garbage(64, '\xA5');
  f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
}

}  // namespace

TEST_CASE("a corrupt database is reported by name and never written into") {
  ScratchDir dir;
  const std::string db = dir.file("c.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const auto healthy = run_fomcast("doctor --json", db);
  REQUIRE_MESSAGE(healthy.status == 0, healthy.err);
  const json h = json::parse(healthy.out);
  CHECK(h["ok"] == true);
  CHECK(h["quick_check"] == json::array({"ok"}));
  CHECK(h["workloads"].get<int>() >= 19);
  CHECK(h["shipped_data_current"] == true);

  damage_table(db, "kernel_entries");
  const std::string before = file_fingerprint(db);
  // An ingest writes workloads and ops only, never the kernel tables: without the check it
  // would write into the damaged file.
  const auto r = run_fomcast("ingest '" + source_path("tests/data/models/tiny.json") + "' --workload tiny", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find(db + ": the database is corrupt (SQLite quick_check: ") != std::string::npos, r.err);
  CHECK(r.err.find("nothing was written to it") != std::string::npos);
  CHECK(r.out.empty());
  CHECK(file_fingerprint(db) == before);

  // doctor says the same, lists what SQLite found, and writes nothing either.
  const auto text = run_fomcast("doctor", db);
  CHECK(text.status == 2);
  CHECK(text.out.find("integrity  DAMAGED (SQLite quick_check)") != std::string::npos);
  CHECK(text.err.find(db + ": corrupt") != std::string::npos);
  const auto j = run_fomcast("doctor --json", db);
  CHECK(j.status == 2);
  CHECK(json::parse(j.out)["ok"] == false);
  CHECK(file_fingerprint(db) == before);
}

TEST_CASE("doctor on a database that does not exist yet, and on another program's SQLite file") {
  ScratchDir dir;
  const auto none = run_fomcast("doctor", dir.file("new.db"));
  CHECK(none.status == 0);
  CHECK(none.out.find("does not exist") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("new.db")));
  const std::string other = dir.file("other.sqlite");
  std::filesystem::copy_file(
      fomcast::test::shared_path("traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"), other);
  const std::string before = file_fingerprint(other);
  const auto r = run_fomcast("doctor", other);
  CHECK(r.status == 2);
  CHECK(r.err.find("not a fomcast database") != std::string::npos);
  CHECK(file_fingerprint(other) == before);
}

TEST_CASE("a database in a read-only directory: reading commands work, writing ones say cannot write DIR") {
  ScratchDir dir;
  const std::string ro = dir.file("ro");
  std::filesystem::create_directories(ro);
  const std::string db = ro + "/f.db";
  REQUIRE(run_fomcast("platforms", db).status == 0);
  // root writes through permission bits: run the command as nobody where the tests run as root.
  std::string as;
  if (geteuid() == 0) {
    if (std::system("command -v setpriv >/dev/null 2>&1") != 0) {
      MESSAGE("running as root without setpriv: the read-only case cannot be made here");
      return;
    }
    as = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    std::filesystem::permissions(dir.path, std::filesystem::perms::others_exec, std::filesystem::perm_options::add);
    std::filesystem::permissions(db, std::filesystem::perms::others_read, std::filesystem::perm_options::add);
  }
  namespace fs = std::filesystem;
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                          fs::perms::others_read | fs::perms::others_exec);
  const std::string before = file_fingerprint(db);
  const std::string err = dir.file("err");
  const std::string bin = as + "'" + FOMCAST_BIN + "' ";
  const std::string redirect = " --db '" + db + "' >/dev/null 2>'" + err + "' </dev/null";
  // A shared, read-only database answers what only reads it (it refused every command).
  const std::string out = dir.file("out");
  const std::string listed = bin + "platforms --db '" + db + "' >'" + out + "' 2>'" + err + "' </dev/null";
  CHECK(WEXITSTATUS(std::system(listed.c_str())) == 0);
  CHECK(fomcast::test::slurp(out).find("NV_K20X") != std::string::npos);
  const std::vector<std::string> commands = {
      bin + "doctor" + redirect,
      bin + "ingest '" + source_path("tests/data/models/tiny.json") + "' --workload t" + redirect};
  for (const std::string& line : commands) {
    CAPTURE(line);
    const int raw = std::system(line.c_str());
    CHECK(WEXITSTATUS(raw) == 2);
    const std::string says = fomcast::test::slurp(err);
    CHECK_MESSAGE(says.find("cannot write " + ro + " (read-only)") != std::string::npos, says);
    CHECK(says.find("not a fomcast database") == std::string::npos);
  }
  CHECK(file_fingerprint(db) == before);
  std::filesystem::permissions(ro, std::filesystem::perms::owner_all);
}

TEST_CASE("a fomcast database with a table dropped: every command and doctor say which, nothing is written") {
  // Every query on such a file failed as "internal error: no such table" (exit 3), and
  // doctor called it sound.
  for (const char* table : {"platforms", "ops", "meta", "fom_records"}) {
    CAPTURE(table);
    ScratchDir dir;
    const std::string db = dir.file("d.db");
    REQUIRE(run_fomcast("platforms", db).status == 0);
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
    REQUIRE(sqlite3_exec(h, ("PRAGMA foreign_keys=OFF; DROP TABLE " + std::string(table)).c_str(), nullptr, nullptr,
                         nullptr) == SQLITE_OK);
    sqlite3_close(h);
    const std::string before = file_fingerprint(db);
    for (const char* cmd : {"workloads", "platforms", "estimate --workload P1B2 --platform NV_P100", "history"}) {
      const auto r = run_fomcast(cmd, db);
      CHECK(r.status == 2);
      CHECK_MESSAGE(r.err.find("table '" + std::string(table) + "' is missing") != std::string::npos, r.err);
    }
    const auto d = run_fomcast("doctor", db);
    CHECK(d.status == 2);
    CHECK(d.out.find("damaged fomcast database") != std::string::npos);
    CHECK(file_fingerprint(db) == before);
  }
}

TEST_CASE("a writer that waits for another's lock says so on stderr, then goes through") {
  // Another process (here this test) holds the write lock for 2.6 s: ingest waits for it,
  // says after two seconds what it waits for rather than sitting silent, and then writes.
  ScratchDir dir;
  const std::string db = dir.file("locked.db");
  REQUIRE(run_fomcast("workloads", db).status == 0);
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
  REQUIRE(sqlite3_exec(h, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  std::thread release([h] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2600));
    sqlite3_exec(h, "COMMIT", nullptr, nullptr, nullptr);
  });
  const auto r = run_fomcast(
      "ingest '" + shared_path("fixtures/seed-formats/cprofile_chainer_tuned.txt") + "' --workload waited", db);
  release.join();
  sqlite3_close(h);
  CHECK(r.status == 0);
  CHECK(r.err.find(db + " is locked by another writer; waiting (up to 60 s)") != std::string::npos);
  CHECK(run_fomcast("show waited", db).status == 0);
}
