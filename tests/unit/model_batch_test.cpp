// `estimate --batch` and a study problem's batch_size on a model workload: its operations
// are the batch (GEMM rows, conv N, activation bytes), so another batch expands the layer
// list again, or is refused when the layer list cannot be read; never the stored batch's
// operations under the new batch's passes per epoch.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::run_fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;

namespace {

// The batch dimension of every forward convolution and dense layer the estimate lists.
std::set<int64_t> batch_dims(const json& est) {
  std::set<int64_t> out;
  for (const auto& op : est["ops"]) {
    const auto& s = op["shape"];
    if (!s.is_object() || op["phase"] != "forward") continue;
    if (s["type"] == "conv") out.insert(s["n"].get<int64_t>());
    if (s["type"] == "gemm" && op["name"] == "dense") out.insert(s["m"].get<int64_t>());
  }
  return out;
}

// A two-layer model in the layer-list format (docs/model-format.md).
std::string small_model(int units) {
  return json{{"name", "tiny"},
              {"batch_size", 32},
              {"samples_per_epoch", 3200},
              {"epochs", 2},
              {"input_shape", {64}},
              {"layers", json::array({json{{"type", "dense"}, {"units", units}, {"activation", "relu"}},
                                      json{{"type", "dense"}, {"units", 10}}})}}
      .dump();
}

}  // namespace

TEST_CASE("estimate --batch on a shipped model expands its layer list at that batch") {
  ScratchDir dir;
  const std::string db = dir.file("b.db");
  const json at128 = run_json("estimate --workload alexnet --platform NV_V100", db);
  const json at64 = run_json("estimate --workload alexnet --platform NV_V100 --batch 64", db);
  CHECK(batch_dims(at128) == std::set<int64_t>{128});
  CHECK(batch_dims(at64) == std::set<int64_t>{64});
  // 1,281,167 images: 10,010 passes of 128, 20,019 of 64; each pass about half the work.
  CHECK(at128["passes_per_epoch"] == 10010);
  CHECK(at64["passes_per_epoch"] == 20019);
  const double ratio = at64["pass_s"].get<double>() / at128["pass_s"].get<double>();
  CHECK(ratio > 0.4);
  CHECK(ratio < 0.6);
  // Its own batch given again: the same pass.
  const json again = run_json("estimate --workload alexnet --platform NV_V100 --batch 128", db);
  CHECK(again["pass_s"].get<double>() == doctest::Approx(at128["pass_s"].get<double>()));

  // A study problem's batch_size does the same.
  const std::string study = dir.write(
      "s.json", json{{"name", "batch"},
                     {"baseline", {{"platform", "NV_V100"}, {"nodes", 1}}},
                     {"target", {{"platform", "H100"}, {"nodes", 1}}},
                     {"problems", json::array({json{{"name", "a"}, {"workload", "alexnet"}, {"batch_size", 64}}})}}
                    .dump());
  const json fom = run_json("fom '" + study + "'", db);
  const double per_unit = fom["problems"][0]["baseline"]["seconds_per_unit"].get<double>();
  CHECK(per_unit == doctest::Approx(at64["run_s"].get<double>()));
}

TEST_CASE("estimate --batch on a user's model: its file again, refused when gone or changed") {
  ScratchDir dir;
  const std::string db = dir.file("b.db");
  const std::string file = dir.write("tiny.json", small_model(256));
  REQUIRE(run_fomcast("ingest '" + file + "' --workload tiny", db).status == 0);
  const json at8 = run_json("estimate --workload tiny --platform NV_V100 --batch 8", db);
  CHECK(batch_dims(at8) == std::set<int64_t>{8});
  CHECK(at8["passes_per_epoch"] == 400);

  // Changed since it was ingested: another model, refused.
  dir.write("tiny.json", small_model(512));
  auto r = run_fomcast("estimate --workload tiny --platform NV_V100 --batch 16", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("no longer expands to the stored operations") != std::string::npos, r.err);
  // Gone: refused, saying why and what to do.
  std::filesystem::remove(file);
  r = run_fomcast("estimate --workload tiny --platform NV_V100 --batch 16", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("cannot be read now") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("batch 32") != std::string::npos, r.err);
  // Its own batch needs no file.
  CHECK(run_fomcast("estimate --workload tiny --platform NV_V100 --batch 32", db).status == 0);
}
