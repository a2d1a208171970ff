// Band coverage: a band means something only if about two thirds of held-out truths fall
// within +-1 band of the prediction. The counting is checked by hand on small pairs, and
// `fomcast validate` is checked to print and emit what its own checks' pairs give.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fomcast/validate.hpp"
#include "shipped_catalog.hpp"
#include "test_support.hpp"

using namespace fomcast;
using nlohmann::json;

TEST_CASE("within +-1 band: |predicted - measured| <= band x predicted") {
  CHECK(within_band(100, 80, 0.2));  // 20 <= 20
  CHECK_FALSE(within_band(100, 79, 0.2));
  CHECK(within_band(100, 120, 0.2));  // 20 <= 20
  CHECK_FALSE(within_band(100, 121, 0.2));
  CHECK(within_band(1, 1, 0));
  // Pairs without a band (-1) count in the error, not in the coverage.
  const ErrorStats s = error_stats({100, 100, 100, 100}, {90, 70, 100, 50}, {0.2, 0.2, -1, 0.6});
  CHECK(s.n == 4);
  CHECK(s.banded == 3);
  CHECK(s.within_band == 2);  // 90 in 80..120, 70 not, 50 in 40..160
}

TEST_CASE("validate's band coverage adds up its checks' pairs, and is printed and in the JSON") {
  const LooReport loo = validate_leave_one_out(test::catalog(), {"NV_V100", "NV_P100"});
  const auto transfers = validate_platform_transfer(test::catalog(), {"NV_V100", "NV_P100"});
  const auto coverage = band_coverage(loo, transfers, {});
  REQUIRE(coverage.size() == 4);
  int64_t n = 0, within = 0;
  for (const auto& g : loo.groups) n += g.stats.banded, within += g.stats.within_band;
  CHECK(coverage[0].check == "leave_one_out");
  CHECK(coverage[0].n == n);
  CHECK(coverage[0].within == within);
  CHECK(n > 100);
  CHECK(coverage[3].check == "all");
  CHECK(coverage[3].n == coverage[0].n + coverage[1].n + coverage[2].n);
  CHECK(coverage[3].share == doctest::Approx(static_cast<double>(coverage[3].within) / coverage[3].n));

  test::ScratchDir dir;
  const std::string db = dir.file("v.db");
  const auto r = test::run_fomcast("validate --platform NV_V100 --platform NV_P100 --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const json j = json::parse(r.out);
  REQUIRE(j["band_coverage"].size() == 4);
  CHECK(j["band_coverage"][0]["check"] == "leave_one_out");
  CHECK(j["band_coverage"][0]["n"] == coverage[0].n);
  CHECK(j["band_coverage"][0]["within"] == coverage[0].within);
  // The refit and the shared op-model error are printed and in the JSON, from the same rows.
  REQUIRE(j["band_refit"].size() >= 3);
  CHECK(j["band_refit"][0]["check"] == "leave_one_out");
  CHECK(j["band_refit"][0]["n"] == coverage[0].n);
  CHECK(j["band_refit"][0]["coverage"].get<double>() == doctest::Approx(coverage[0].share));
  REQUIRE(j["shared_op_error"].size() == 3);
  CHECK(j["shared_op_error"][2]["check"] == "all");
  CHECK(j["shared_op_error"][2]["rows"].get<int64_t>() > 0);
  const auto text = test::run_fomcast("validate --platform NV_V100 --platform NV_P100", db);
  CHECK(text.out.find("Band coverage: the share of held-out truths within +-1 band") != std::string::npos);
  CHECK(text.out.find("Band refit (measured, not applied)") != std::string::npos);
  CHECK(text.out.find("Shared op-model error") != std::string::npos);
}

TEST_CASE("band_refit: the band scale for two thirds, by hand, and it agrees with band_coverage") {
  // Three scaled-table rows at a 20% band, predicted 100: errors 4, 10, 30 -> ratios 0.2,
  // 0.5, 1.5; one at 50%, error 25 -> 0.5; one leave-one-out row at 10%, error 5 -> 0.5.
  PlatformTransfer t;
  t.chosen_band_ratios = {{0.2, 0.2}, {0.2, 0.5}, {0.2, 1.5}, {0.5, 0.5}};
  LooReport loo;
  LooGroup g;
  g.band_ratios = {{0.1, 0.5}};
  loo.groups.push_back(g);
  const auto r = band_refit(loo, {t});
  REQUIRE(r.size() == 5);  // leave-one-out, scaled-table all, at 20%, at 50%, all
  CHECK(r[0].check == "leave_one_out");
  CHECK(r[0].n == 1);
  CHECK(r[0].coverage == 1);
  CHECK(r[0].scale_for_68 == doctest::Approx(0.5));
  CHECK(r[2].band == 0.2);
  CHECK(r[2].n == 3);
  CHECK(r[2].coverage == doctest::Approx(2.0 / 3));
  // floor(0.6827 x 3) = 2: the third smallest ratio, 1.5, is the scale that covers 68.3%.
  CHECK(r[2].scale_for_68 == doctest::Approx(1.5));
  CHECK(r[3].band == 0.5);
  CHECK(r[4].check == "all");
  CHECK(r[4].n == 5);
  CHECK(r[4].coverage == doctest::Approx(4.0 / 5));
  // floor(0.6827 x 5) = 3: sorted 0.2 0.5 0.5 0.5 1.5 -> 0.5.
  CHECK(r[4].scale_for_68 == doctest::Approx(0.5));

  // On real checks the refit's coverage is band_coverage's.
  const LooReport real = validate_leave_one_out(test::catalog(), {"NV_V100", "NV_P100"});
  const auto transfers = validate_platform_transfer(test::catalog(), {"NV_V100", "NV_P100"});
  const auto coverage = band_coverage(real, transfers, {});
  const auto refits = band_refit(real, transfers);
  CHECK(refits.front().n == coverage[0].n);
  CHECK(refits.front().coverage == doctest::Approx(coverage[0].share));
  CHECK(refits[1].n == coverage[1].n);
  CHECK(refits[1].coverage == doctest::Approx(coverage[1].share));
}

TEST_CASE("validate's cross-hardware pairs give the calibrated pass's bounds and count in the coverage") {
  test::ScratchDir dir;
  const std::string db = dir.file("x.db");
  for (const char* side : {"h100", "mi300x"}) {
    const std::string file =
        test::shared_path(std::string("traces/pytorch_kineto/tracelens_") + side + "_bert-small-uncased.json.gz");
    const auto r = test::run_fomcast("ingest '" + file + "' --workload bert-" + side + " --platform " +
                                         (std::string(side) == "h100" ? "H100" : "MI300X"),
                                     db);
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  const auto r =
      test::run_fomcast("validate --no-tables --pair bert-h100,bert-mi300x --pair bert-mi300x,bert-h100 --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const json j = json::parse(r.out);
  int64_t within = 0;
  for (const auto& c : j["cross_hardware"]) {
    const double p = c["predicted_pass_s"].get<double>(), u = c["uncertainty"].get<double>();
    CHECK(c["pass_bounds"]["low_s"].get<double>() <= p);
    CHECK(c["pass_bounds"]["high_s"].get<double>() >= p);
    // The band includes the bounds.
    CHECK(p * (1 - u) <= c["pass_bounds"]["low_s"].get<double>() * (1 + 1e-12));
    CHECK(p * (1 + u) >= c["pass_bounds"]["high_s"].get<double>() * (1 - 1e-12));
    within += within_band(p, c["measured_pass_s"].get<double>(), u) ? 1 : 0;
  }
  const auto& cov = j["band_coverage"];
  REQUIRE(cov.size() == 4);
  CHECK(cov[2]["check"] == "cross_hardware");
  CHECK(cov[2]["n"] == 2);
  CHECK(cov[2]["within"] == within);
}

TEST_CASE("band_refit out of sample: each check's rows under the other's factor, each band's by other pairs") {
  // Scaled-table rows at a 20% band: the pair A & B (both directions) 0.5, 0.5, 0.5 and 2.0;
  // the pair C & D 0.4, 0.6, 0.8. One pair at 50%: E <- F, 0.3. Leave-one-out rows 0.5, 1.5.
  PlatformTransfer ab, ba, cd, ef;
  ab.target = "A", ab.chosen = "B", ab.chosen_band_ratios = {{0.2, 0.5}, {0.2, 0.5}, {0.2, 0.5}};
  ba.target = "B", ba.chosen = "A", ba.chosen_band_ratios = {{0.2, 2.0}};
  cd.target = "C", cd.chosen = "D", cd.chosen_band_ratios = {{0.2, 0.4}, {0.2, 0.6}, {0.2, 0.8}};
  ef.target = "E", ef.chosen = "F", ef.chosen_band_ratios = {{0.5, 0.3}};
  LooReport loo;
  LooGroup g;
  g.band_ratios = {{0.1, 0.5}, {0.1, 1.5}};
  loo.groups.push_back(g);
  const auto r = band_refit(loo, {ab, ba, cd, ef});
  REQUIRE(r.size() == 5);
  // Leave-one-out: its own factor is floor(0.6827 x 2) = 1 -> 1.5; the scaled-table rows'
  // is floor(0.6827 x 8) = 5 of 0.3 0.4 0.5 0.5 0.5 0.6 0.8 2.0 -> 0.6. Each takes the other's:
  // 0.5 of 0.5, 1.5 is within x 0.6 (1 of 2), and 7 of the 8 within x 1.5.
  CHECK(r[0].scale_for_68 == doctest::Approx(1.5));
  CHECK(r[1].scale_for_68 == doctest::Approx(0.6));
  CHECK(r[0].held_out_scale == doctest::Approx(0.6));
  CHECK(r[0].held_out_coverage == doctest::Approx(0.5));
  CHECK(r[1].held_out_scale == doctest::Approx(1.5));
  CHECK(r[1].held_out_coverage == doctest::Approx(7.0 / 8));
  // At 20%, by pair: A & B held out, C & D's factor is 0.8 (floor(0.6827 x 3) = 2), three of
  // A & B's four within; C & D held out, A & B's is 0.5 (floor(0.6827 x 4) = 2 of 0.5 0.5 0.5
  // 2.0), one of three within: 4 of 7.
  CHECK(r[2].band == 0.2);
  CHECK(r[2].held_out_coverage == doctest::Approx(4.0 / 7));
  // At 50% only one pair: nothing to fit on.
  CHECK(r[3].band == 0.5);
  CHECK(r[3].held_out_coverage == -1);
  // All: both checks' out-of-sample rows together, (1 + 7) of 10.
  CHECK(r[4].held_out_coverage == doctest::Approx(0.8));
}
