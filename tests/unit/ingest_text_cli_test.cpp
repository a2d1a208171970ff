// The text and SQLite formats through the real binary: auto-detection, --json output as
// the contract gives it, and `show` of what was stored.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;

namespace {

nlohmann::json ingest_json(const std::string& file, const std::string& db, const std::string& extra = "") {
  // One name for every file: each ingest replaces the one before.
  const auto r = run_fomcast("ingest '" + file + "' --workload w --replace --json " + extra, db);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("fomcast ingest --json detects each text format by content") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const std::vector<std::pair<std::string, std::string>> files = {
      {"fixtures/seed-formats/tfprof_op_view_p1b3.txt", "tfprof-op"},
      {"fixtures/seed-formats/tfprof_op_view_example.txt", "tfprof-op"},
      {"fixtures/seed-formats/tfprof_matrix_sizes_p1b3.txt", "tfprof-shapes"},
      {"fixtures/seed-formats/cprofile_chainer_tuned.txt", "cprofile"},
      {"fixtures/seed-formats/tau_pprof_neon_alexnet.txt", "pprof"},
      {"traces/tau/tau2_taudb_test_profile.0.0.1", "tau"},
      {"traces/cprofile/hatchet_cprofile-cycle.pstats.callers.txt", "cprofile"},
      {"traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite", "nsys-sqlite"},
  };
  for (const auto& entry : files) {
    const auto& file = entry.first;
    const auto& format = entry.second;
    CAPTURE(file);
    const auto j = ingest_json(shared_path(file), db);
    CHECK(j["format"] == format);
    CHECK(j["workload"] == "w");
    for (const char* key : {"ops", "passes", "pass_s", "events"}) CHECK(j.contains(key));
    CHECK(j["ops"].get<int>() > 0);
  }
}

TEST_CASE("ingest then show: the P1B3 op view and the matrix sizes as stored") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  // The op view: 13 op types, one pass, no measured pass time (tfprof does not give one).
  const auto op = ingest_json(shared_path("fixtures/seed-formats/tfprof_op_view_p1b3.txt"), db);
  CHECK(op["ops"] == 13);
  CHECK(op["passes"] == 1);
  CHECK(op["pass_s"].is_null());
  const auto show = run_fomcast("show w --json", db);
  REQUIRE(show.status == 0);
  const auto j = nlohmann::json::parse(show.out);
  CHECK(j["name"] == "w");
  CHECK(j["params"].is_null());  // a trace, not a model
  REQUIRE(j["ops"].size() == 13);
  bool matmul = false;
  for (const auto& o : j["ops"])
    if (o["name"] == "MatMul") {
      matmul = true;
      CHECK(o["kind"] == "gemm");
    }
  CHECK(matmul);
  // The shapes listing with an explicit batch; 13 GEMMs (14 rows, one run*0).
  const auto sh = ingest_json(shared_path("fixtures/seed-formats/tfprof_matrix_sizes_p1b3.txt"), db, "--batch 100");
  CHECK(sh["format"] == "tfprof-shapes");
  CHECK(sh["ops"] == 13);
  const auto text = run_fomcast("show w", db);
  CHECK(text.out.find("M=100 N=1000 K=29532") != std::string::npos);
}

TEST_CASE("nsys CloverLeaf through the binary: kernel count and GPU span") {
  ScratchDir dir;
  const auto j =
      ingest_json(shared_path("traces/nsys_sqlite/pipit_perlmutter-cloverleaf-cuda.sqlite"), dir.file("f.db"));
  CHECK(j["format"] == "nsys-sqlite");
  CHECK(j["ops"] == 104);      // 102 distinct kernels + Memcpy HtoD + Memcpy DtoH
  CHECK(j["events"] == 4639);  // 1312 kernels + 279 copies + 3048 runtime calls
  CHECK(j["pass_s"].get<double>() == doctest::Approx((875746050.0 - 533338240) * 1e-9));
}

TEST_CASE("a name that is not UTF-8 (a Latin-1 profile) is shown as U+FFFD in JSON, never an internal error") {
  // A cProfile listing written in Latin-1: "adam_kr\xf6" was stored as it is, and every
  // --json output that read it failed (exit 3) after the work was done.
  ScratchDir dir;
  const std::string db = dir.file("l.db");
  const std::string file =
      dir.write("latin1.txt",
                "         168000 function calls in 9846.500 seconds\n\n"
                "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
                "    72000 8657.400    0.120 8657.400    0.120 optimizers/adam.py:53(adam_kr\xf6)\n"
                "    96000 1189.100    0.012 1189.100    0.012 {method 'dot' of 'numpy.ndarray' "
                "objects}\n");
  ingest_json(file, db);
  const auto show = run_fomcast("show w --json", db);
  REQUIRE_MESSAGE(show.status == 0, show.err);
  CHECK(show.out.find("adam_kr\xef\xbf\xbd") != std::string::npos);
  const auto est = run_fomcast("estimate --workload w --platform H100 --json", db);
  CHECK_MESSAGE(est.status == 0, est.err);
  CHECK(nlohmann::json::parse(est.out)["ops"].size() == 2);
}
