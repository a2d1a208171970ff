// Calibration against a second measured machine: the CANDLE repository records NT3 and TC1
// in their perf-bench configurations on Titan (99 and 395 s per epoch) and on a V100
// machine (11 and 74 s per epoch; data/candle/README.md, "Titan per-epoch times"). A
// projection calibrated by one machine's time must land within 50% of the other's, both
// ways. Under the old rule (the whole gap carried unscaled) Titan -> V100 gave 75.7 and
// 305 s, 6.9x and 4.1x too slow; carrying ops_scale^0.36 alone gave NT3 V100 -> Titan 48.3 s
// (-51%). Nothing here is tuned to these numbers: the rule is the general one of
// docs/calibration.md (the op-model error beyond what the kernel tables' own band explains
// is the workload's and carried whole; the kernel part by the share measured on the kernel
// tables, validate's shared_op_error), and neither the band nor the share is measured on
// these two machines.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "fomcast/calibrate.hpp"
#include "fomcast/estimate.hpp"
#include "fomcast/validate.hpp"
#include "shipped_catalog.hpp"
#include "test_support.hpp"

using namespace fomcast;

namespace {

struct Recorded {
  const char* workload;
  double titan_epoch_s;
  double v100_epoch_s;
};
// data/candle/README.md: NT3 Titan 99 s, Nucleus (V100) 11 s; TC1 Titan 395 s, Nucleus 74 s.
constexpr Recorded kRecorded[] = {{"NT3-perf", 99, 11}, {"TC1-perf", 395, 74}};

Workload shipped(const std::string& name) {
  static test::ScratchDir dir;
  static Store store = test::open_seeded(dir.file("w.db"));
  auto w = store.workload(name);
  REQUIRE_MESSAGE(w, name);
  return *w;
}

double projected_epoch_s(const Workload& w, const std::string& from, double from_epoch_s, const std::string& to) {
  RunOptions o;
  o.measured = measured_passes(w, {make_calibration(w, from, std::nullopt, from_epoch_s, std::nullopt)});
  return estimate_run(w, to, test::catalog(), o).epoch_s;
}

}  // namespace

TEST_CASE("NT3-perf and TC1-perf calibrated on one machine predict the other within 50%") {
  for (const auto& r : kRecorded) {
    CAPTURE(r.workload);
    const Workload w = shipped(r.workload);
    const double v100 = projected_epoch_s(w, "NV_K20X", r.titan_epoch_s, "NV_V100");
    const double titan = projected_epoch_s(w, "NV_V100", r.v100_epoch_s, "NV_K20X");
    CAPTURE(v100);
    CAPTURE(titan);
    // The bar, both ways.
    CHECK(std::abs(v100 / r.v100_epoch_s - 1) < 0.5);
    CHECK(std::abs(titan / r.titan_epoch_s - 1) < 0.5);
    // The measured side gives back its measurement.
    CHECK(projected_epoch_s(w, "NV_K20X", r.titan_epoch_s, "NV_K20X") == doctest::Approx(r.titan_epoch_s));
    CHECK(projected_epoch_s(w, "NV_V100", r.v100_epoch_s, "NV_V100") == doctest::Approx(r.v100_epoch_s));
  }
}

// A regression bound tighter than the issue's: the four projections as the rule gives them
// now (docs/calibration.md; NT3 13.2 s, TC1 52.8 s on the V100, NT3 55.0 s, TC1 371 s on
// Titan), each held within 10% of itself, so a change of the op model or of the rule that
// moves them is seen here and the documented numbers are re-measured.
TEST_CASE("the four CANDLE projections stay where docs/calibration.md records them") {
  struct Now {
    const char* workload;
    const char* from;
    double from_epoch_s;
    const char* to;
    double documented_s;
  };
  const Now now[] = {{"NT3-perf", "NV_K20X", 99, "NV_V100", 13.2},
                     {"TC1-perf", "NV_K20X", 395, "NV_V100", 52.8},
                     {"NT3-perf", "NV_V100", 11, "NV_K20X", 55.0},
                     {"TC1-perf", "NV_V100", 74, "NV_K20X", 371}};
  for (const auto& n : now) {
    CAPTURE(n.workload);
    CAPTURE(n.from);
    const double got = projected_epoch_s(shipped(n.workload), n.from, n.from_epoch_s, n.to);
    CAPTURE(got);
    CHECK(std::abs(got / n.documented_s - 1) < 0.1);
  }
}

// Both machines run both problems 1.5-2.6x slower than modelled; the kernel tables' band
// on each explains only part of it (about 55% on the K20X, whose NT3 and TC1 ops are
// borrowed from other platforms' tables, 21% on the V100, which has its own): the rest is
// the workload's error and is carried whole.
TEST_CASE("the CANDLE gaps exceed the kernels' band on both machines and split there") {
  for (const auto& r : kRecorded) {
    CAPTURE(r.workload);
    const Workload w = shipped(r.workload);
    for (const auto& leg :
         {std::tuple{"NV_K20X", r.titan_epoch_s, "NV_V100"}, std::tuple{"NV_V100", r.v100_epoch_s, "NV_K20X"}}) {
      // Named copies, not a structured binding: clang 14 cannot capture a binding in CAPTURE's lambda.
      const std::string from = std::get<0>(leg);
      const double epoch_s = std::get<1>(leg);
      const std::string to = std::get<2>(leg);
      CAPTURE(from);
      RunOptions o;
      o.measured = measured_passes(w, {make_calibration(w, from, std::nullopt, epoch_s, std::nullopt)});
      const CalibrationLine c = estimate_run(w, to, test::catalog(), o).pass.calibration;
      const PassEstimate model = estimate_pass(w, from, test::catalog());
      CHECK(c.ops_band_there == doctest::Approx(model.ops_sigma_s / model.ops_s));
      CHECK(c.ops_scale > 1.4);
      CHECK(c.kernel_log_error == doctest::Approx(std::log1p(c.ops_band_there)));
      CHECK(c.workload_log_error == doctest::Approx(std::log(c.ops_scale) - c.kernel_log_error));
      CHECK(c.workload_log_error > 0);
      CHECK(c.ops_carry == doctest::Approx(std::exp(c.workload_log_error + kSharedOpErrorShare * c.kernel_log_error)));
    }
  }
}

// The share of a baseline's op-model error that calibration carries is the measurement
// `validate` prints, not a choice: held to it within 0.05 (re-measure and update
// kSharedOpErrorShare and docs/calibration.md when the op model moves it further).
TEST_CASE("the carried share of the op-model error is validate's shared_op_error measurement") {
  const Catalog& cat = test::catalog();
  const auto shared = shared_op_error(cat, validate_leave_one_out(cat));
  REQUIRE(shared.size() == 3);
  CHECK(shared[0].check == "leave_one_out");
  CHECK(shared[1].check == "leave_pair_out");
  CHECK(shared[2].check == "all");
  for (const auto& s : shared) {
    CAPTURE(s.check);
    CHECK(s.rows > 1000);
    CHECK(s.rho > -1);
    CHECK(s.rho < 1);
  }
  CAPTURE(shared[2].rho);
  CHECK(std::abs(kSharedOpErrorShare - shared[2].rho) < 0.05);
}

TEST_CASE("the bounds of the residual rule bracket the projection and the band covers them") {
  const Workload w = shipped("NT3-perf");
  const auto m = measured_passes(w, {make_calibration(w, "NV_K20X", std::nullopt, 99.0, std::nullopt)});
  const PassEstimate p = estimate_pass(w, "NV_V100", test::catalog(), m);
  const PassEstimate k20x_model = estimate_pass(w, "NV_K20X", test::catalog());
  const PassEstimate v100_model = estimate_pass(w, "NV_V100", test::catalog());
  const double measured = m.front().pass_s;
  // Scaled with the ops: the whole measurement x the modelled ops' ratio of the two platforms.
  CHECK(p.pass_scaled_s == doctest::Approx(measured * v100_model.ops_s / k20x_model.ops_s));
  // Carried like host time: V100's ops plus the whole gap on Titan x host speed 0.395
  // (Opteron 6274) / 1 (Xeon E5-2698 v4), the two hosts' PassMark single-thread ratings.
  CHECK(p.calibration.host_scaled);
  CHECK(p.calibration.carry == doctest::Approx(0.395));
  CHECK(p.pass_unscaled_s == doctest::Approx(v100_model.ops_s + (measured - k20x_model.ops_s) * 0.395));
  CHECK(p.pass_low_s <= p.pass_s);
  CHECK(p.pass_high_s >= p.pass_s);
  CHECK(p.pass_s * (1 - p.uncertainty) <= p.pass_low_s * (1 + 1e-12));
  CHECK(p.pass_s * (1 + p.uncertainty) >= p.pass_high_s * (1 - 1e-12));
}
