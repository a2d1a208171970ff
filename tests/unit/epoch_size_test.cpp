// The size of an epoch where the workload does not know it: a trace records no batch size
// or samples per epoch, so `estimate --batch --samples-per-epoch` and the study fields
// batch_size / samples_per_epoch give them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::run_fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;

namespace {

std::string study(const json& problem) {
  return json{{"name", "epochs"},
              {"baseline", {{"platform", "H100"}, {"nodes", 1}}},
              {"target", {{"platform", "MI300X"}, {"nodes", 1}}},
              {"problems", json::array({problem})}}
      .dump();
}

}  // namespace

TEST_CASE("epoch size: estimate --batch --samples-per-epoch and the study fields size a trace's epoch") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  REQUIRE(run_fomcast("ingest '" + shared_path("traces/pytorch_kineto/tracelens_h100_bert-small-uncased.json.gz") +
                          "' --workload bert --platform H100",
                      db)
              .status == 0);
  const json plain = run_json("estimate --workload bert --platform MI300X", db);
  CHECK(plain.at("epoch_s").get<double>() ==
        doctest::Approx(plain.at("pass_s").get<double>()));  // the trace's one step
  // 1,601 samples in batches of 16: 101 passes, the last one short but a pass all the same.
  const json sized = run_json("estimate --workload bert --platform MI300X --batch 16 --samples-per-epoch 1601", db);
  CHECK(sized.at("pass_s").get<double>() == doctest::Approx(plain.at("pass_s").get<double>()));
  CHECK(sized.at("epoch_s").get<double>() == doctest::Approx(101 * sized.at("pass_s").get<double>()));
  // The text says on the epoch's line when its size is unknown (the run and rate rest on it).
  const std::string unknown = "epoch size unknown: the passes the workload holds";
  CHECK(run_fomcast("estimate --workload bert --platform MI300X", db).out.find(unknown) != std::string::npos);
  CHECK(run_fomcast("estimate --workload bert --platform MI300X --batch 16 --samples-per-epoch 1601", db)
            .out.find(unknown) == std::string::npos);
  const auto bad = run_fomcast("estimate --workload bert --platform MI300X --samples-per-epoch 1600", db);
  CHECK(bad.status == 2);
  CHECK_MESSAGE(bad.err.find("no batch size to divide 1600 samples per epoch by") != std::string::npos, bad.err);

  // In a study: units/day follow the epoch size on both sides, the ratio does not.
  const std::string small = dir.write(
      "small.json", study({{"name", "bert"}, {"workload", "bert"}, {"batch_size", 16}, {"samples_per_epoch", 1600}}));
  const std::string large = dir.write(
      "large.json", study({{"name", "bert"}, {"workload", "bert"}, {"batch_size", 16}, {"samples_per_epoch", 3200}}));
  const json a = run_json("fom '" + small + "'", db).at("problems").at(0);
  const json b = run_json("fom '" + large + "'", db).at("problems").at(0);
  CHECK(a.at("baseline_units_per_day").get<double>() ==
        doctest::Approx(2 * b.at("baseline_units_per_day").get<double>()));
  CHECK(a.at("target_units_per_day").get<double>() == doctest::Approx(2 * b.at("target_units_per_day").get<double>()));
  CHECK(a.at("ratio").get<double>() == doctest::Approx(b.at("ratio").get<double>()));
  const std::string lone =
      dir.write("lone.json", study({{"name", "bert"}, {"workload", "bert"}, {"samples_per_epoch", 1600}}));
  const auto r = run_fomcast("fom '" + lone + "'", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("problems[0].batch_size") != std::string::npos, r.err);
  const std::string neg = dir.write("neg.json", study({{"name", "bert"}, {"workload", "bert"}, {"batch_size", -4}}));
  const auto n = run_fomcast("fom '" + neg + "'", db);
  CHECK(n.status == 2);
  CHECK_MESSAGE(n.err.find("problems[0].batch_size: must be > 0 (got -4)") != std::string::npos, n.err);
}
