// The Nsight Systems SQLite reader on both shared exports (schema 3.13.2 and 2.9.1), and
// on a small export made here with PyTorch emit_nvtx ranges and step ranges, a kind the
// shared traces lack. Expected numbers come from SQL over the files (queries quoted).
#include <doctest/doctest.h>

#include <sqlite3.h>
#include <filesystem>

#include "fomcast/error.hpp"
#include "ingest_text_support.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ingest_one;
using fomcast::test::op_named;
using fomcast::test::shared_path;
using fomcast::test::total_count;

TEST_CASE("nsys export of CloverLeaf (nsys 2024.5, schema 3.13.2)") {
  const std::string p = shared_path("traces/nsys_sqlite/pipit_perlmutter-cloverleaf-cuda.sqlite");
  const std::string before = test::file_fingerprint(p);
  const auto w = ingest_one(p);
  CHECK(test::file_fingerprint(p) == before);  // read-only, immutable
  CHECK(w.origin == "nsys-sqlite");
  // SELECT count(*), count(DISTINCT demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL -> 1312, 102
  // SELECT copyKind, count(*), sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY 1
  //   -> (1 HtoD, 254, 225065752), (2 DtoH, 25, 51200)
  double kernels = 0;
  for (const auto& op : w.ops)
    if (op.kind != OpKind::memcpy) kernels += op.count;
  CHECK(kernels == 1312);
  CHECK(total_count(w, OpKind::memcpy) == 279);
  CHECK(w.ops.size() == 102 + 2);
  CHECK(w.passes == 1);
  const Op& htod = op_named(w, "Memcpy HtoD");
  CHECK(htod.count == 254);
  CHECK(htod.bytes == doctest::Approx(225065752.0 / 254));
  // Kernel time in all: SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL -> 294404540 ns;
  // copies 9346285 + 44638 ns.
  CHECK(w.measured_op_time_s() == doctest::Approx((294404540.0 + 9346285 + 44638) * 1e-9));
  // GPU span: min(start) 533338240 to max(end) 875746050 over kernels and copies.
  REQUIRE(w.pass_s);
  CHECK(*w.pass_s == doctest::Approx((875746050.0 - 533338240) * 1e-9));
  // Top op: the PdV_kernel lambda instance 2, 10 launches, 19404589 ns.
  const auto top = rank_ops(w).front();
  CHECK(w.ops[top.index].name.find("PdV_kernel") != std::string::npos);
  CHECK(w.ops[top.index].count == 10);
  CHECK(top.time_s == doctest::Approx(19404589e-9));
  // 1312 kernels + 279 copies + 3048 runtime calls.
  CHECK(w.events == 1312 + 279 + 3048);
}

TEST_CASE("nsys export of MPI saxpy (nsys 2022.2, schema 2.9.1, an extra all-NULL name column)") {
  const auto w = ingest_one(shared_path("traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"));
  // 5 saxpy kernels (88573480 ns), 10 HtoD of 2621440000 bytes, 5 DtoH; NVTX (MPI domain):
  // MPI_Send x10 (136342959 ns), MPI_Recv x5; MPI_Init/MPI_Finalize are not communication.
  CHECK(w.ops.size() == 5);
  const Op& k = op_named(w, "saxpy(double *, double *, double *, double, int)");
  CHECK(k.count == 5);
  CHECK(*k.self_time_s * 5 == doctest::Approx(88573480e-9));
  CHECK(op_named(w, "Memcpy HtoD").bytes == doctest::Approx(262144000));
  CHECK(op_named(w, "Memcpy DtoH").count == 5);
  const Op& send = op_named(w, "MPI_Send");
  CHECK(send.kind == OpKind::collective);
  CHECK(send.count == 10);
  CHECK(*send.self_time_s * 10 == doctest::Approx(136342959e-9));
  CHECK(op_named(w, "MPI_Recv").count == 5);
  // 5 + 15 + 95 runtime + 24 NVTX rows.
  CHECK(w.events == 5 + 15 + 95 + 24);
}

namespace {

void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  INFO(sql << ": " << (err ? err : ""));
  sqlite3_free(err);
  REQUIRE(rc == SQLITE_OK);
}

// A minimal export in the 3.x schema: two ProfilerStep ranges; in each, aten::addmm
// (forward) and, on the autograd thread, MmBackward0 around aten::mm, each launching a kernel.
std::string make_emit_nvtx_export(const test::ScratchDir& dir) {
  std::string path = dir.file("emit_nvtx.sqlite");
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  exec(db,
       "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
       "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, correlationId INTEGER, "
       "  demangledName INTEGER, shortName INTEGER);"
       "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, correlationId INTEGER, "
       "  nameId INTEGER, globalTid INTEGER);"
       "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, "
       "  globalTid INTEGER, textId INTEGER, domainId INTEGER);"
       "INSERT INTO StringIds VALUES (1, 'ampere_sgemm_64x64_nn'), (2, 'cudaLaunchKernel'), "
       "  (3, 'ampere_sgemm_128x64_tn');");
  for (int step = 0; step < 2; ++step) {
    const int64_t t0 = 1000000 + step * 100000;
    auto n = [&](int64_t off) { return std::to_string(t0 + off); };
    const std::string c1 = std::to_string(10 + step * 2), c2 = std::to_string(11 + step * 2);
    exec(db, "INSERT INTO NVTX_EVENTS VALUES (" + n(0) + "," + n(90000) + ",59,'ProfilerStep#" + std::to_string(step) +
                 "',7,NULL,0);"
                 "INSERT INTO NVTX_EVENTS VALUES (" +
                 n(100) + "," + n(500) +
                 ",59,'aten::addmm, seq = 3, op_id = 5, sizes = [[128], [64, 256], [256, 128]], "
                 "input_op_ids = [(1, 0)]',7,NULL,0);"
                 "INSERT INTO NVTX_EVENTS VALUES (" +
                 n(1000) + "," + n(2000) +
                 ",59,'MmBackward0, seq = 3',8,NULL,0);"
                 "INSERT INTO NVTX_EVENTS VALUES (" +
                 n(1100) + "," + n(1900) +
                 ",59,'aten::mm, seq = -1, sizes = [[256, 64], [64, 128]]',8,NULL,0);"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" +
                 n(200) + "," + n(250) + "," + c1 +
                 ",2,7);"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" +
                 n(1200) + "," + n(1250) + "," + c2 +
                 ",2,8);"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" +
                 n(300) + "," + n(3300) + "," + c1 +
                 ",1,1);"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" +
                 n(2300) + "," + n(7300) + "," + c2 + ",3,3);");
  }
  // A warm-up kernel before the first step: not part of any pass.
  exec(db,
       "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 20, 99, 2, 7);"
       "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (30, 40030, 99, 1, 1);");
  sqlite3_close(db);
  return path;
}

}  // namespace

TEST_CASE("nsys export with emit_nvtx op ranges and ProfilerStep ranges (made here)") {
  test::ScratchDir dir;
  const auto w = ingest_one(make_emit_nvtx_export(dir), "nsys-sqlite");
  CHECK(w.passes == 2);
  REQUIRE(w.pass_s);
  CHECK(*w.pass_s == doctest::Approx(90000e-9));  // each ProfilerStep range is 90 us
  REQUIRE(w.ops.size() == 2);                     // the warm-up kernel is outside every step
  // aten::addmm [[128], [64, 256], [256, 128]]: M=64 N=128 K=256, its kernel 3 us per call.
  const Op& addmm = op_named(w, "aten::addmm");
  CHECK(addmm.kind == OpKind::gemm);
  CHECK(std::get<GemmShape>(addmm.shape) == GemmShape{64, 128, 256});
  CHECK(addmm.phase == Phase::forward);
  CHECK(addmm.count == 1);
  CHECK(*addmm.self_time_s == doctest::Approx(3000e-9));
  // aten::mm inside MmBackward0 on the autograd thread: a backward GEMM M=256 N=128 K=64.
  const Op& mm = op_named(w, "aten::mm");
  CHECK(mm.phase == Phase::backward);
  CHECK(std::get<GemmShape>(mm.shape) == GemmShape{256, 128, 64});
  CHECK(*mm.self_time_s == doctest::Approx(5000e-9));
}

namespace {

// The made export with `sql` applied: reading it is an InputError naming `field`, saying `says`.
// `sql` run on a copy of `base` (else on the made emit_nvtx export): an InputError naming
// `field` and saying `says`.
void expect_broken_export(const std::string& sql, const std::string& field, const std::string& says,
                          const std::string& base = "") {
  test::ScratchDir dir;
  std::string path = dir.file("broken.sqlite");
  if (base.empty()) {
    path = make_emit_nvtx_export(dir);
  } else {
    std::filesystem::copy_file(base, path);
    std::filesystem::permissions(path, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  }
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  exec(db, sql);
  sqlite3_close(db);
  try {
    (void)ingest_one(path, "nsys-sqlite");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.field == field);
    CHECK(std::string(e.what()).find(says) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("nsys export: a kernel row without a start is an error naming the column, not a dropped kernel") {
  // One of the export's kernels with start NULL: it was left out, and its time with it.
  // The made export's kernels are correlations 10, 11 (step 0), 12, 13 (step 1), 99: the
  // error names the third row.
  expect_broken_export("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL WHERE correlationId = 12",
                       "CUPTI_ACTIVITY_KIND_KERNEL.start, row 3", "without a start");
}

TEST_CASE("nsys export without its StringIds table: an error, not a workload of <unnamed> kernels") {
  expect_broken_export("DROP TABLE StringIds", "StringIds", "no StringIds table");
}

TEST_CASE("nsys export: a copy of no CUPTI kind is an error naming the column, not a merged Memcpy op") {
  // The MPI saxpy export's 15 copies (10 HtoD, 5 DtoH): one set to kind 99 (or -1) merged
  // the directions into one "Memcpy" op.
  const std::string saxpy = test::shared_path("traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite");
  for (const std::string value : {"99", "-1"}) {
    CAPTURE(value);
    expect_broken_export("UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = " + value +
                             " WHERE rowid = (SELECT MIN(rowid) FROM CUPTI_ACTIVITY_KIND_MEMCPY)",
                         "CUPTI_ACTIVITY_KIND_MEMCPY.copyKind, row 1", "copy kind " + value + " is none of CUPTI's",
                         saxpy);
  }
}

TEST_CASE("nsys export: a bad value in a row names the row, counted in the table's order") {
  // The MPI saxpy export's 15 copies: the seventh given -5 bytes. The error had named the
  // table and column only.
  expect_broken_export(
      "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -5 WHERE rowid = "
      "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY rowid LIMIT 1 OFFSET 6)",
      "CUPTI_ACTIVITY_KIND_MEMCPY.bytes, row 7", "CUPTI_ACTIVITY_KIND_MEMCPY.bytes, row 7: negative byte count -5",
      test::shared_path("traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"));
}

TEST_CASE("nsys export: device times the export itself disproves are errors, not a pass of 192 h or of zeros") {
  // The MPI saxpy export (a 2.27 s capture, ANALYSIS_DETAILS.duration): one kernel made to
  // end 8 days in had become a 192 h pass; every device activity at zero duration was stored
  // as ops of 0 us (the MPI ranges kept the total above 0), exit 0 both.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start + 8 * 86400 * 1000000000 WHERE rowid = 1",
       "a device activity ends 192 h into a capture the export says lasted 2.27 s"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start; UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = start;"
       "UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET end = start",
       "every kernel, copy and set has zero duration (5 kernels, 15 copies and sets)"},
  };
  const std::string original = test::shared_path("traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite");
  CHECK_NOTHROW((void)ingest_one(original, "nsys-sqlite"));
  for (const auto& c : cases) {
    CAPTURE(c.first);
    expect_broken_export(c.first, "CUPTI_ACTIVITY_KIND_KERNEL.end", c.second, original);
  }
}
