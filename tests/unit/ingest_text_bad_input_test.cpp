// Bad input for the text and SQLite readers: every case is an InputError naming the file
// and a line, byte offset or field; through the CLI, exit status 2 and a database left
// byte-identical.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fomcast/error.hpp"
#include "ingest_text_support.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ingest_one;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
using fomcast::test::slurp;

namespace {

// Ingesting `path` as `format` fails with a positioned InputError about `path`.
void expect_positioned_error(const std::string& path, const std::string& format, const std::string& what = "") {
  CAPTURE(path);
  CAPTURE(format);
  try {
    (void)ingest_one(path, format);
    FAIL("no error for " << path << " as " << format);
  } catch (const InputError& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(e.file == path);
    CHECK((e.line > 0 || e.byte_offset >= 0 || !e.field.empty()));
    if (!what.empty()) CHECK(std::string(e.what()).find(what) != std::string::npos);
  }
}

const std::vector<std::string> kTextFormats = {"tfprof-op", "tfprof-shapes", "tau", "pprof", "cprofile"};

}  // namespace

TEST_CASE("empty, blank, binary and plain-garbage files are errors in every text format") {
  ScratchDir dir;
  const std::string empty = dir.write("empty.txt", "");
  const std::string blank = dir.write("blank.txt", "\n\n   \n");
  const std::string binary = dir.write("binary.bin", std::string("\x01\x02\x00\xff garbage\n\0", 14));
  const std::string words = dir.write("words.txt", "hello world\nthis is not a profile\n");
  for (const auto& f : kTextFormats) {
    expect_positioned_error(empty, f);
    expect_positioned_error(blank, f);
    expect_positioned_error(binary, f);
    expect_positioned_error(words, f);
  }
  // Auto-detection refuses them too.
  expect_positioned_error(empty, "auto", "empty");
  expect_positioned_error(words, "auto", "not a format");
}

TEST_CASE("a header line followed by junk names the junk's line") {
  ScratchDir dir;
  struct Case {
    std::string format, text, expect;
    int64_t line;
  };
  const std::vector<Case> cases = {
      {"tfprof-op", "node name | requested bytes | total execution time\nMatMul 12MB (1%, 1%), junk\n", "bad time", 2},
      {"tfprof-op", "node name | requested bytes | total execution time\n!!! 1 2 3\n", "expected an op row", 2},
      {"tfprof-op", "node name | requested bytes | total execution time\nMatMul 12MB (1%, 1%)\n", "columns", 2},
      {"tfprof-shapes", "0:100x100, 1:100x50 (run*2 defined*2) exec_time: 549us\nrandom words here\n", "shape row", 2},
      {"tfprof-shapes", "0:100xabc, 1:100x50 (run*1 defined*1) exec_time: 549us\n", "dimension", 1},
      {"tau", "2 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\njunk\n", "quoted name",
       3},
      {"tau", "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n\"f\" 1 0 x 2 0\n",
       "bad number", 3},
      {"pprof", "%Time    Exclusive    Inclusive       #Call      #Subrs  Inclusive Name\nthis is junk\n", "pprof row",
       2},
      {"cprofile", "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\nnot a row\n", "ncalls", 2},
      {"cprofile",
       "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n 1/2/3 0.1 0.1 0.1 0.1 f\n", "ncalls",
       2},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    const std::string p = dir.write("junk.txt", c.text);
    try {
      (void)ingest_one(p, c.format);
      FAIL("no error");
    } catch (const InputError& e) {
      const std::string message = e.what();
      CAPTURE(message);
      CHECK(e.line == c.line);
      CHECK(std::string(e.what()).find(c.expect) != std::string::npos);
    }
  }
}

TEST_CASE("a cProfile or pprof listing cut inside its last row is refused at that row") {
  ScratchDir dir;
  // head -c of real listings: the cut name had been stored as an op ("adam_kro", classed an
  // optimizer by its word; "update_image_3"). The whole files read.
  struct Case {
    std::string format, rel;
    std::size_t cut;  // bytes kept
    std::string name;
  };
  const std::vector<Case> cases = {
      {"cprofile", "fixtures/seed-formats/cprofile_chainer_tuned.txt", 236, "'optimizers/adam.py:53(adam_kro'"},
      {"cprofile", "traces/cprofile/hatchet_cprofile-cycle.pstats.cumulative.txt", 539, "'pstats_reader_test.py'"},
      {"pprof", "fixtures/seed-formats/tau_pprof_neon_alexnet.txt", 2777, "'update_image_3'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.rel);
    const std::string whole = test::slurp(test::shared_path(c.rel));
    REQUIRE(whole.size() > c.cut);
    CHECK_NOTHROW((void)ingest_one(test::shared_path(c.rel), c.format));
    const std::string p = dir.write("cut.txt", whole.substr(0, c.cut));
    try {
      (void)ingest_one(p, c.format);
      FAIL("no error");
    } catch (const InputError& e) {
      const std::string message = e.what();
      CAPTURE(message);
      CHECK(e.line == 1 + std::count(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(c.cut), '\n'));
      CHECK(message.find("the file ends inside a row") != std::string::npos);
      CHECK(message.find(c.name) != std::string::npos);
    }
  }
}

TEST_CASE("negative, NaN, infinite and absurd numbers are refused") {
  ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"tfprof-op", "node name | requested bytes | total execution time\nMatMul 12MB (1%, 1%), -3ms (1%, 1%),\n"},
      {"tfprof-op", "node name | requested bytes | total execution time\nMatMul 12MB (1%, 1%), nanms (1%, 1%),\n"},
      {"tfprof-op", "node name | requested bytes | total execution time\nMatMul 9e30GB (1%, 1%), 3ms (1%, 1%),\n"},
      {"tfprof-op", "node name | requested bytes | total execution time\nMatMul 1MB (1%, 1%), 3ms (-1%, 1%),\n"},
      {"tfprof-shapes", "0:100x100, 1:100x50 (run*2 defined*2) exec_time: -549us\n"},
      {"tfprof-shapes", "0:100x100, 1:100x50 (run*2 defined*2) exec_time: infus\n"},
      {"tfprof-shapes", "0:100x100, 1:100x99999999999999999999 (run*2 defined*2) exec_time: 549us\n"},
      {"tfprof-shapes", "0:100x100, 1:100x50 (run*1e30 defined*2) exec_time: 549us\n"},
      // Each size within range, their product 1.6e19 elements: M = N = K = 4e9 had been stored.
      {"tfprof-shapes", "0:4000000000x4000000000, 1:4000000000x4000000000 (run*1 defined*1) exec_time: 1.21ms\n"},
      // A timer's own time is part of its inclusive time, as the TAU reader already says.
      {"pprof", "%Time Exclusive Inclusive #Call #Subrs Inclusive Name\n 50.0 9.725E+05 1.725E+05 10 0 1.7E+04 f\n"},
      {"tau", "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n\"f\" 1 0 -5 10 0\n"},
      {"tau", "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n\"f\" nan 0 5 10 0\n"},
      {"tau", "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n\"f\" 1e30 0 5 10 0\n"},
      {"tau", "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n\"f\" 1 0 50 10 0\n"},
      {"pprof", "%Time Exclusive Inclusive #Call #Subrs Inclusive Name\n 10.0 -1.5 3 1 0 3 f\n"},
      {"pprof", "%Time Exclusive Inclusive #Call #Subrs Inclusive Name\n 10.0 nan 3 1 0 3 f\n"},
      {"pprof", "%Time Exclusive Inclusive #Call #Subrs Inclusive Name\n 10.0 1 3 1e30 0 3 f\n"},
      {"pprof", "%Time Exclusive Inclusive #Call #Subrs Inclusive Name\n 10.0 1:99x:00 3 1 0 3 f\n"},
      {"cprofile", "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n 5 -1.0 0.1 0.1 0.1 f\n"},
      {"cprofile", "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n 5 nan 0.1 0.1 0.1 f\n"},
      {"cprofile",
       "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n 1e30 1.0 0.1 0.1 0.1 f\n"},
      // Counts are whole, and a function or timer never entered has no time: a 0-call row
      // holding 84% of a profile's time was left out without a word.
      {"cprofile",
       "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n 72000.5 1.0 0.1 0.1 0.1 f\n"},
      {"cprofile", "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n 0 8657.4 0 8657.4 0 f\n"},
      {"pprof", "%Time Exclusive Inclusive #Call #Subrs Inclusive Name\n 10.0 1 3 5.5 0 3 f\n"},
      {"pprof", "%Time Exclusive Inclusive #Call #Subrs Inclusive Name\n 10.0 345 345 0 0 0 f\n"},
      {"tau", "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n\"f\" 4.5 0 5 10 0\n"},
      {"tau", "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n\"f\" 0 0 5 10 0\n"},
      {"tau",
       "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n\"f\" 1 0 5 10 0\n"
       "5 aggregates\n"},
      // A timer given twice: the root's second line had set the run's length (max of the two).
      {"tau",
       "2 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"
       "\".TAU application\" 1 1 5 10 0\n\".TAU application\" 1 1 5 9999999 0\n"},
  };
  for (const auto& entry : cases) {
    const auto& format = entry.first;
    const auto& text = entry.second;
    CAPTURE(text);
    const std::string p = dir.write("bad.txt", text);
    try {
      (void)ingest_one(p, format);
      FAIL("no error");
    } catch (const InputError& e) {
      const std::string message = e.what();
      CAPTURE(message);
      CHECK(e.file == p);
      CHECK(e.line == std::count(text.begin(), text.end(), '\n'));  // the last line holds the bad number
    }
  }
}

TEST_CASE("truncated real files: an error, not a silently shorter workload") {
  ScratchDir dir;
  // A TAU profile cut in its timer list (it declares 23 timers).
  const std::string tau = slurp(shared_path("traces/tau/hatchet_tau-cpi-mpi_profile.0.0.0"));
  const std::string cut_tau = dir.write("profile.0.0.0", tau.substr(0, tau.find("\"MPI_Bcast()")));
  expect_positioned_error(cut_tau, "tau", "truncated");
  // Cut inside a row: tfprof op view, pprof, cProfile, tfprof shapes.
  const std::string op = slurp(shared_path("fixtures/seed-formats/tfprof_op_view_example.txt"));
  expect_positioned_error(dir.write("op.txt", op.substr(0, op.find("708.14ms") + 3)), "tfprof-op");
  const std::string pp = slurp(shared_path("fixtures/seed-formats/tau_pprof_neon_alexnet.txt"));
  expect_positioned_error(dir.write("pp.txt", pp.substr(0, pp.find("     201280 prepare"))), "pprof");
  const std::string cp = slurp(shared_path("fixtures/seed-formats/cprofile_chainer_tuned.txt"));
  expect_positioned_error(dir.write("cp.txt", cp.substr(0, cp.find("60.730") + 3)), "cprofile");
  const std::string sh = slurp(shared_path("fixtures/seed-formats/tfprof_matrix_sizes_p1b3.txt"));
  expect_positioned_error(dir.write("sh.txt", sh.substr(0, sh.find("(run*1 defined*1) exec_time: 42.27ms") + 10)),
                          "tfprof-shapes");
  // A pstats listing whose header says 23.045 s: cut anywhere after its first row and before
  // the last of its time is read, it lost rows (read as 1 to 3 of its 9 functions); a row's
  // tottime raised past the total, or a row given twice, is not the run's. (Its last five
  // rows have a tottime of 0.000: a cut among them loses no time a sum can miss. A cut
  // inside a name reads as a shorter name: the listing's last line may lack a line end.)
  const std::string cum = slurp(shared_path("traces/cprofile/hatchet_cprofile-cycle.pstats.cumulative.txt"));
  const std::size_t first_row = cum.find('\n', cum.find("ncalls")) + 1;
  const std::size_t last_time = cum.find("22.739") + 4;
  for (std::size_t cut = cum.find('\n', first_row) + 1; cut < last_time; cut += 37)
    expect_positioned_error(dir.write("cum.txt", cum.substr(0, cut)), "cprofile");
  // The whole listing without its final line ends reads.
  const std::size_t end = cum.find_last_not_of('\n') + 1;
  CHECK_NOTHROW((void)ingest_one(dir.write("no-eol.txt", cum.substr(0, end)), "cprofile"));
  const std::size_t row_end = cum.find('\n', first_row) + 1;
  const std::string row = cum.substr(first_row, row_end - first_row);
  expect_positioned_error(dir.write("twice.txt", cum.substr(0, row_end) + row + cum.substr(row_end)), "cprofile",
                          "function listed twice");
  CHECK_NOTHROW((void)ingest_one(dir.write("whole.txt", cum), "cprofile"));
}

TEST_CASE("a gzip that ends early is an error with a byte offset") {
  ScratchDir dir;
  const std::string src =
      dir.write("profile.0.0.0", slurp(shared_path("traces/tau/hatchet_tau-cpi-mpi_profile.0.0.0")));
  REQUIRE(std::system(("gzip -c '" + src + "' > '" + src + ".gz'").c_str()) == 0);
  const std::string gz = slurp(src + ".gz");
  // The whole .gz reads like the plain file...
  CHECK(ingest_one(src + ".gz").ops.size() == ingest_one(src).ops.size());
  // ...and a cut one is refused, auto-detected or forced.
  const std::string cut = dir.write("cut.0.0.0.gz", gz.substr(0, gz.size() / 2));
  for (const char* f : {"auto", "tau"}) {
    try {
      (void)ingest_one(cut, f);
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.file == cut);
      CHECK(std::string(e.what()).find("ends early, after all") != std::string::npos);
    }
  }
}

TEST_CASE("SQLite files that are not nsys exports, and broken ones") {
  ScratchDir dir;
  // A fomcast database (made by the real binary) is recognised for what it is.
  const std::string fomcast_db = dir.file("fomcast.db");
  REQUIRE(test::run_fomcast("platforms --json", fomcast_db).status == 0);
  expect_positioned_error(fomcast_db, "auto", "fomcast database");
  expect_positioned_error(fomcast_db, "nsys-sqlite", "fomcast database");
  // A SQLite file with no tables, and one with unrelated tables.
  const std::string empty_db = dir.file("empty.sqlite"), other_db = dir.file("other.sqlite");
  for (const auto& [p, sql] :
       {std::pair{empty_db, std::string("PRAGMA user_version = 7")},
        std::pair{other_db, std::string("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")}}) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(p.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  expect_positioned_error(empty_db, "nsys-sqlite", "no tables");
  expect_positioned_error(other_db, "auto", "not an Nsight Systems export");
  // A real export cut in half: SQLite reports it corrupt.
  const std::string whole = slurp(shared_path("traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"));
  expect_positioned_error(dir.write("half.sqlite", whole.substr(0, whole.size() / 2)), "nsys-sqlite");
  // A damaged page, whole length kept: the leaf of RUNTIME (page 29) overwritten from its
  // middle read as 139 events without a word; SQLite's own check finds it, at that page.
  std::string damaged = whole;
  std::fill(damaged.begin() + 28 * 4096 + 2048, damaged.begin() + 29 * 4096, '\xee');
  const std::string damaged_path = dir.write("damaged.sqlite", damaged);
  expect_positioned_error(damaged_path, "nsys-sqlite", "damaged");
  try {
    (void)ingest_one(damaged_path, "auto");
  } catch (const InputError& e) {
    CHECK(e.field == "page 29");
    CHECK(e.byte_offset == 28 * 4096);
  }
  // A text file forced as nsys-sqlite.
  expect_positioned_error(dir.write("t.txt", "not sqlite"), "nsys-sqlite", "not a SQLite file");
  // Wrong types: text where nanoseconds belong.
  const std::string typed = dir.file("typed.sqlite");
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(typed.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db,
                       "CREATE TABLE StringIds (id INTEGER, value TEXT); INSERT INTO StringIds VALUES (1, 'k');"
                       "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, demangledName);"
                       "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ('soon', 'later', 1)",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  expect_positioned_error(typed, "auto", "integer nanoseconds");
}

TEST_CASE("through the CLI: exit status 2, the file named, the database byte-identical") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const auto good = test::run_fomcast(
      "ingest '" + shared_path("fixtures/seed-formats/tfprof_op_view_p1b3.txt") + "' --workload p1b3", db);
  REQUIRE(good.status == 0);
  const std::string before = test::file_fingerprint(db);
  const std::string junk =
      dir.write("junk.txt", "node name | requested bytes | total execution time\nMatMul 1MB (1%, 1%), -5ms\n");
  const std::string fomcast_db = dir.file("other.db");
  REQUIRE(test::run_fomcast("platforms", fomcast_db).status == 0);
  for (const auto& [file, format] :
       {std::pair{junk, std::string("auto")}, std::pair{junk, std::string("tau")},
        std::pair{fomcast_db, std::string("auto")}, std::pair{dir.write("e.txt", ""), std::string("cprofile")}}) {
    const auto r = test::run_fomcast("ingest '" + file + "' --workload p1b3 --format " + format, db);
    CAPTURE(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(file) != std::string::npos);
    CHECK(test::file_fingerprint(db) == before);
  }
}

TEST_CASE("a file too large for any format read whole, and study or spec files past 64 MiB, are errors") {
  // 20 GB files ended in std::bad_alloc (exit 3); /dev/zero grew the process to 16 GB.
  ScratchDir dir;
  const std::string huge = dir.file("huge.txt");
  { std::ofstream(huge) << "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"; }
  std::filesystem::resize_file(huge, std::uintmax_t{3} << 30);  // sparse: no disk used
  for (const std::string& format : {std::string("cprofile"), std::string("tau"), std::string("model")})
    expect_positioned_error(huge, format, "larger than 1024 MiB");
  const std::string db = dir.file("h.db");
  REQUIRE(fomcast::test::run_fomcast("platforms", db).status == 0);
  const std::string before = fomcast::test::file_fingerprint(db);
  for (const std::string& cmd :
       {std::string("fom /dev/zero"), std::string("platforms add /dev/zero"), "fom '" + huge + "'"}) {
    const auto r = fomcast::test::run_fomcast(cmd, db);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find("larger than 64 MiB") != std::string::npos, r.err);
  }
  const auto r = fomcast::test::run_fomcast("import-bench '" + huge + "' --format csv --platform NV_V100", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("larger than 1024 MiB") != std::string::npos, r.err);
  // A device or pipe is read into memory (it cannot be read twice): capped too. Every
  // format's ingest of /dev/zero grew to 16 GB and ended out of memory (exit 3).
  const auto zero = fomcast::test::run_fomcast("ingest /dev/zero --workload z --format kineto", db);
  CHECK(zero.status == 2);
  CHECK_MESSAGE(
      zero.err.find("/dev/zero: byte 1073741824: more than 1024 MiB from a pipe or device") != std::string::npos,
      zero.err);
  CHECK(fomcast::test::file_fingerprint(db) == before);
}
