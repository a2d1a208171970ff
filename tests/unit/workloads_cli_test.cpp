// Workloads are not overwritten or lost by accident: `ingest` over an existing name (a
// shipped model or an earlier ingest) needs --replace; `workloads rm` deletes a user's
// workload with its calibrations and gives a shipped model's name back to the model;
// shipped models cannot be removed; `calibrate --clear` removes one calibration.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::file_fingerprint;
using fomcast::test::run_fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;

namespace {}  // namespace

TEST_CASE("ingest over a shipped model refuses without --replace; workloads rm gives the name back") {
  ScratchDir dir;
  const std::string db = dir.file("w.db");
  const std::string sizes = "ingest '" + shared_path("fixtures/seed-formats/tfprof_matrix_sizes_p1b3.txt") + "'";
  const json shipped = run_json("show P1B3", db);
  REQUIRE(shipped["origin"] == "model");

  // 1. Without --replace: exit 2, names the flag, the shipped model is untouched.
  const std::string before = file_fingerprint(db);
  const auto refused = run_fomcast(sizes + " --workload P1B3", db);
  CHECK(refused.status == 2);
  CHECK_MESSAGE(
      refused.err.find("--workload: 'P1B3' already exists (a model shipped with fomcast") != std::string::npos,
      refused.err);
  CHECK(refused.err.find("--replace") != std::string::npos);
  CHECK(refused.out.empty());
  CHECK(file_fingerprint(db) == before);
  CHECK(run_json("show P1B3", db)["origin"] == "model");

  // 2. With --replace: the name is the user's.
  REQUIRE(run_fomcast(sizes + " --workload P1B3 --replace", db).status == 0);
  CHECK(run_json("show P1B3", db)["origin"] == "tfprof-shapes");
  bool listed_as_users = false;
  for (const auto& w : run_json("workloads", db))
    if (w["name"] == "P1B3") listed_as_users = w["shipped"] == false;
  CHECK(listed_as_users);

  // 3. Removing the user's workload brings the shipped model back under its name.
  const json removed = run_json("workloads rm P1B3", db);
  CHECK(removed["removed"] == true);
  CHECK(removed["shipped_restored"] == true);
  const json back = run_json("show P1B3", db);
  CHECK(back["origin"] == "model");
  CHECK(back["ops"].size() == shipped["ops"].size());

  // 4. A shipped model itself cannot be removed.
  const std::string kept = file_fingerprint(db);
  const auto rm_shipped = run_fomcast("workloads rm P1B3", db);
  CHECK(rm_shipped.status == 2);
  CHECK(rm_shipped.err.find("shipped with fomcast") != std::string::npos);
  CHECK(file_fingerprint(db) == kept);
  const auto rm_none = run_fomcast("workloads rm no-such", db);
  CHECK(rm_none.status == 2);
  CHECK(rm_none.err.find("no workload named 'no-such'") != std::string::npos);
}

TEST_CASE("ingest over an earlier ingest replaces it, saying so; rm takes its calibrations along") {
  ScratchDir dir;
  const std::string db = dir.file("u.db");
  const std::string ops = "ingest '" + shared_path("fixtures/seed-formats/tfprof_op_view_p1b3.txt") + "'";
  REQUIRE(run_fomcast(ops + " --workload mine", db).status == 0);
  // The contract's `ingest FILE --workload NAME` over one's own earlier ingest replaces it.
  const auto again = run_fomcast(ops + " --workload mine", db);
  CHECK(again.status == 0);
  CHECK(again.err.find("note: replaced the workload 'mine' (a tfprof-op workload") != std::string::npos);
  REQUIRE(run_fomcast(ops + " --workload mine --replace", db).status == 0);

  // A calibration of the workload goes with it: a new workload of the same name starts clean.
  run_json("calibrate --workload mine --platform NV_K20X --pass-s 0.5", db);
  CHECK(run_json("estimate --workload mine --platform NV_K20X", db)["calibration"]["calibrated"] == true);
  const json removed = run_json("workloads rm mine", db);
  CHECK(removed["calibrations_removed"] == 1);
  CHECK(removed["shipped_restored"] == false);
  CHECK(run_fomcast("show mine", db).status == 2);
  REQUIRE(run_fomcast(ops + " --workload mine", db).status == 0);
  CHECK(run_json("estimate --workload mine --platform NV_K20X", db)["calibration"]["calibrated"] == false);
  const auto text = run_fomcast("workloads rm mine", db);
  CHECK(text.status == 0);
  CHECK(text.out == "Removed workload 'mine'\n");
}

TEST_CASE("calibrate --clear removes one workload's calibration on one platform") {
  ScratchDir dir;
  const std::string db = dir.file("c.db");
  run_json("calibrate --workload P1B2 --platform NV_K20X --pass-s 0.1", db);
  run_json("calibrate --workload P1B2 --platform MI250X --pass-s 0.05", db);
  CHECK(run_json("estimate --workload P1B2 --platform NV_K20X", db)["pass_s"].get<double>() == doctest::Approx(0.1));

  const json cleared = run_json("calibrate --workload P1B2 --platform NV_K20X --clear", db);
  CHECK(cleared["cleared"] == true);
  // The MI250X calibration is left, and now calibrates the NV_K20X estimate.
  const json k = run_json("estimate --workload P1B2 --platform NV_K20X", db);
  CHECK(k["calibration"]["platform"] == "MI250X");
  run_json("calibrate --workload P1B2 --platform MI250X --clear", db);
  CHECK(run_json("estimate --workload P1B2 --platform NV_K20X", db)["calibration"]["calibrated"] == false);

  // Nothing left to clear: said, exit 0, nothing written.
  const std::string before = file_fingerprint(db);
  const auto none = run_fomcast("calibrate --workload P1B2 --platform NV_K20X --clear", db);
  CHECK(none.status == 0);
  CHECK(none.out.find("nothing to clear") != std::string::npos);
  CHECK(file_fingerprint(db) == before);
  // Exactly one of the measurements or --clear.
  for (const char* args : {"", " --clear --pass-s 1", " --epoch-s 2 --run-hours 1"}) {
    const auto r = run_fomcast("calibrate --workload P1B2 --platform NV_K20X" + std::string(args), db);
    CHECK(r.status == 2);
    CHECK(r.err.find("--pass-s, --epoch-s, --run-hours") != std::string::npos);
    CHECK(r.err.find("--clear") != std::string::npos);
  }
}
