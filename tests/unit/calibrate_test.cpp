// Calibration's arithmetic on hand-made platforms and workloads, where every expected
// number is written out from the definitions in docs/calibration.md: a measured pass is
// modelled + residual on its platform; the residual is carried x host_speed(there) /
// host_speed(target) x overhead_factor(target) / overhead_factor(there).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "fomcast/calibrate.hpp"
#include "fomcast/error.hpp"
#include "fomcast/estimate.hpp"

using namespace fomcast;

namespace {

Platform platform(const std::string& name, double tflops, double gbs, std::optional<double> host,
                  std::optional<double> overhead = std::nullopt) {
  Platform p;
  p.name = name;
  p.device_kind = "gpu";
  p.vendor = "Test";
  p.architecture = "T1";
  p.peak_flop_per_s[DType::fp32] = Sourced{tflops * 1e12, "test"};
  p.mem_bw_bytes_per_s = Sourced{gbs * 1e9, "test"};
  if (host) p.host_speed = Sourced{*host, "test"};
  if (overhead) p.overhead_factor = Sourced{*overhead, "test"};
  return p;
}

// A: the recording platform. B: twice A's peak and bandwidth and twice its host speed.
// C: like B but with no host figure. D: like B, with overhead factors on A's scale.
Catalog catalog() {
  return make_catalog({platform("A", 10, 1000, 1.0, 1.0), platform("B", 20, 2000, 2.0),
                       platform("C", 20, 2000, std::nullopt), platform("D", 20, 2000, 2.0, 1.5)},
                      {});
}

// One GEMM and one elementwise op measured on A (1 ms and 0.5 ms per call, twice each per
// pass: 3 ms of ops) in a measured 10 ms pass: 7 ms of residual.
Workload workload() {
  Workload w;
  w.name = "toy";
  w.recorded_on = "A";
  w.passes = 1;
  w.pass_s = 10e-3;
  w.batch_size = 10;
  w.samples_per_epoch = 100;  // 10 passes per epoch
  w.epochs = 3;
  Op g;
  g.name = "mm";
  g.kind = OpKind::gemm;
  g.shape = GemmShape{1024, 1024, 1024};
  g.count = 2;
  g.self_time_s = 1e-3;
  Op e;
  e.name = "add";
  e.kind = OpKind::elementwise;
  e.shape = TensorShape{{{1 << 20}, {1 << 20}}};
  e.count = 2;
  e.self_time_s = 0.5e-3;
  w.ops = {g, e};
  fill_costs(w.ops[0]);
  fill_costs(w.ops[1]);
  return w;
}

}  // namespace

TEST_CASE("the residual is carried by the ratio of host speeds, and by overhead factors where both give one") {
  const Catalog cat = catalog();
  const Workload w = workload();

  // On A itself the pass is the measurement: 3 ms modelled (its own op times) + 7 ms.
  const PassEstimate a = estimate_pass(w, "A", cat);
  CHECK(a.calibration.calibrated);
  CHECK(a.modelled_s == doctest::Approx(3e-3));
  CHECK(a.residual_s == doctest::Approx(7e-3));
  CHECK(a.pass_s == doctest::Approx(10e-3));
  CHECK(a.residual_share == doctest::Approx(0.7));
  CHECK(a.host_bound);
  CHECK(a.uncertainty == 0);

  // On B every op is twice as fast (both peak and bandwidth doubled: any roofline ratio is
  // 1/2) and the host twice as fast: 1.5 ms + 7 ms x 1/2 = 5 ms.
  const PassEstimate b = estimate_pass(w, "B", cat);
  CHECK(b.ops_s == doctest::Approx(1.5e-3));
  CHECK(b.calibration.host_scaled);
  CHECK_FALSE(b.calibration.overhead_scaled);  // B has no overhead factor
  CHECK(b.calibration.carry == doctest::Approx(0.5));
  CHECK(b.residual_s == doctest::Approx(3.5e-3));
  CHECK(b.pass_s == doctest::Approx(5e-3));
  CHECK(b.residual_share == doctest::Approx(0.7));
  CHECK(b.calibration.residual_there_s == doctest::Approx(7e-3));
  CHECK(b.calibration.carry_detail.find("host speed") != std::string::npos);

  // C has no host figure: carried unscaled, and said.
  const PassEstimate c = estimate_pass(w, "C", cat);
  CHECK_FALSE(c.calibration.host_scaled);
  CHECK(c.residual_s == doctest::Approx(7e-3));
  CHECK(c.pass_s == doctest::Approx(1.5e-3 + 7e-3));
  CHECK(c.calibration.carry_detail.find("carried unscaled: no host_speed figure for C") != std::string::npos);
  // An unscaled residual is less certain than a scaled one (0.3 against 0.15 of it).
  const double sigma_b = b.uncertainty * b.pass_s, sigma_c = c.uncertainty * c.pass_s;
  CHECK(sigma_c > sigma_b);

  // D: host 1/2 and overhead factor 1.5 / 1.0: x 0.75.
  const PassEstimate d = estimate_pass(w, "D", cat);
  CHECK(d.calibration.overhead_scaled);
  CHECK(d.calibration.carry == doctest::Approx(0.75));
  CHECK(d.residual_s == doctest::Approx(7e-3 * 0.75));

  // Not host-bound when the modelled operations dominate: a 4 ms pass around 3 ms of ops.
  Workload lean = w;
  lean.pass_s = 4e-3;
  const PassEstimate l = estimate_pass(lean, "B", cat);
  CHECK(l.residual_s == doctest::Approx(1e-3 * 0.5));
  CHECK_FALSE(l.host_bound);
}

TEST_CASE("a measurement on the target is the pass; the target's own beats the recording platform's") {
  const Catalog cat = catalog();
  const Workload w = workload();
  // Measured 4 ms per pass on B: the pass on B is exactly that. The trace's evidence of
  // host time (7 ms outside its ops on A) is carried to B by the host rule, x host(A) /
  // host(B) = 0.5: 3.5 ms of residual; the rest, 0.5 ms, is B's modelled 1.5 ms x 1/3.
  const Calibration on_b = make_calibration(w, "B", 4e-3, std::nullopt, std::nullopt);
  const std::vector<MeasuredPass> m = measured_passes(w, {on_b});
  const PassEstimate b = estimate_pass(w, "B", cat, m);
  CHECK(b.calibration.measured.platform == "B");
  CHECK(b.pass_s == doctest::Approx(4e-3));
  CHECK(b.residual_s == doctest::Approx(3.5e-3));
  CHECK(b.modelled_s == doctest::Approx(0.5e-3));
  CHECK(b.calibration.ops_scale == doctest::Approx(1.0 / 3));
  CHECK(b.uncertainty == 0);
  // C has no measurement of its own: the recording platform's (A) comes before B's.
  const PassEstimate c = estimate_pass(w, "C", cat, m);
  CHECK(c.calibration.measured.platform == "A");
  // Without the trace's step time, B's measurement is the only one and there is no evidence
  // of host time: the dispatch cost (unknown framework: 13 us) x 4 op calls = 52 us, carried
  // to C unscaled (C has no host figure); the other 3.948 ms scales the modelled ops.
  Workload untimed = w;
  untimed.pass_s.reset();
  const PassEstimate c2 = estimate_pass(untimed, "C", cat, m);
  CHECK(c2.calibration.measured.platform == "B");
  CHECK(c2.residual_s == doctest::Approx(52e-6));
  CHECK(c2.calibration.ops_scale == doctest::Approx((4e-3 - 52e-6) / 1.5e-3));
}

TEST_CASE("a measurement shorter than the model scales the modelled operations, less the dispatch time") {
  const Catalog cat = catalog();
  Workload w = workload();
  w.pass_s.reset();
  // 0.75 ms measured on B against 1.5 ms modelled there. Without a trace step there is no
  // evidence of host time: the framework's dispatch cost x op calls stands for it (origin
  // "" is an unknown framework: the larger known figure, 13 us, x 4 calls = 52 us); the
  // rest, 0.698 ms, is the modelled ops' share: the model is 0.698 / 1.5 = 0.4653 of B's
  // time, log -0.7651. B's two ops are predicted from the trace's A times scaled by the
  // roofline, whose band (ops_band_there) allows kernel error up to log(1 + band): the
  // kernel part is -log(1 + band), carried by kSharedOpErrorShare, and the rest is the
  // workload's, carried whole. G (twice B's figures, no host figure) counts its modelled ops
  // x exp(w + rho k) and carries the 52 us unscaled. C, a spec of B's figures, carries the
  // whole error (one op model): its pass is B's measurement.
  const auto m = measured_passes(w, {make_calibration(w, "B", 0.75e-3, std::nullopt, std::nullopt)});
  const Catalog wider = make_catalog(
      {platform("A", 10, 1000, 1.0, 1.0), platform("B", 20, 2000, 2.0), platform("G", 40, 4000, std::nullopt)}, {});
  const PassEstimate twin = estimate_pass(w, "C", cat, m);
  CHECK(twin.calibration.ops_carry == doctest::Approx(twin.calibration.ops_scale));
  CHECK(twin.pass_s == doctest::Approx(0.75e-3));
  const PassEstimate c = estimate_pass(w, "G", wider, m);
  const double ops_g = estimate_pass(w, "G", wider, {}).ops_s;
  const double scale = (0.75e-3 - 52e-6) / 1.5e-3;
  const PassEstimate b_model = estimate_pass(w, "B", wider, {});
  const double band_b = b_model.ops_sigma_s / b_model.ops_s;
  CAPTURE(band_b);
  REQUIRE(std::log1p(band_b) < -std::log(scale));  // a gap beyond the kernels' band
  const double k = -std::log1p(band_b), wl = std::log(scale) - k;
  const double carried = std::exp(wl + kSharedOpErrorShare * k);
  CHECK(c.calibration.ops_band_there == doctest::Approx(band_b));
  CHECK(c.calibration.residual_there_s == doctest::Approx(52e-6));
  CHECK(c.calibration.ops_scale == doctest::Approx(scale));
  CHECK(c.calibration.kernel_log_error == doctest::Approx(k));
  CHECK(c.calibration.workload_log_error == doctest::Approx(wl));
  CHECK(c.calibration.ops_carry == doctest::Approx(carried));
  CHECK(c.calibration.model_error_there_s == doctest::Approx(0.75e-3 - 1.5e-3 - 52e-6));
  CHECK(c.residual_s == doctest::Approx(52e-6));
  CHECK(c.modelled_s == doctest::Approx(ops_g * carried));
  CHECK(c.pass_s == doctest::Approx(ops_g * carried + 52e-6));
  // The kernel part not carried widens the band: sqrt(1 - rho^2) of its log, on the modelled ops.
  const double unshared = std::expm1(std::sqrt(1 - kSharedOpErrorShare * kSharedOpErrorShare) * -k);
  CHECK(c.uncertainty >= unshared * c.modelled_s / c.pass_s * (1 - 1e-12));
  // On B itself the pass is the measurement: the whole error is there.
  CHECK(estimate_pass(w, "B", cat, m).pass_s == doctest::Approx(0.75e-3));
}

TEST_CASE("slower- and faster-than-modelled baselines go through the same rule") {
  // B and E: E has twice B's peak, bandwidth and host speed. A layer-list workload (origin
  // "model": TF1/Keras, 5.5 us per op call) measured on B at twice and at 0.8 of its modelled
  // ops: both times the host part is 5.5 us x 4 calls, carried x host(B)/host(E) = 0.5, and
  // the rest of the measurement, over B's modelled ops, is the op model's error there. Its
  // log splits the same way in both cases: up to log(1 + B's band of the modelled ops) is
  // kernel error, carried by kSharedOpErrorShare, the rest the workload's, carried whole;
  // together they scale E's modelled ops, up in one case and down in the other.
  const Catalog cat = make_catalog(
      {platform("B", 20, 2000, 2.0), platform("E", 40, 4000, 4.0), platform("C", 20, 2000, std::nullopt)}, {});
  Workload w = workload();
  w.pass_s.reset();
  w.recorded_on.clear();
  w.origin = "model";
  for (auto& op : w.ops) op.self_time_s.reset();
  const double ops_b = estimate_pass(w, "B", cat).ops_s;
  const double ops_e = estimate_pass(w, "E", cat).ops_s;
  const double reach = std::log1p(estimate_pass(w, "B", cat).ops_sigma_s / ops_b);
  REQUIRE(ops_b > 0);
  const double host = 5.5e-6 * 4;
  const double floor_b = roofline_floor(w, *cat.platform("B")).seconds;
  for (double ratio : {2.0, 0.8}) {
    CAPTURE(ratio);
    const double measured = ops_b * ratio;
    REQUIRE(measured - floor_b > host);  // a faster run that is still above B's roofline
    const auto m = measured_passes(w, {make_calibration(w, "B", measured, std::nullopt, std::nullopt)});
    const PassEstimate e = estimate_pass(w, "E", cat, m);
    CHECK(e.calibration.residual_there_s == doctest::Approx(host));
    CHECK(e.calibration.ops_scale == doctest::Approx((measured - host) / ops_b));
    CHECK(e.residual_s == doctest::Approx(host * 0.5));
    const double log_error = std::log((measured - host) / ops_b);
    const double k = std::clamp(log_error, -reach, reach);
    const double carried = std::exp(log_error - k + kSharedOpErrorShare * k);
    CHECK(e.calibration.kernel_log_error == doctest::Approx(k));
    CHECK(e.calibration.ops_carry == doctest::Approx(carried));
    CHECK((ratio > 1 ? carried > 1 : carried < 1));
    CHECK(e.pass_s == doctest::Approx(ops_e * carried + host * 0.5));
    // The bounds: the whole gap carried like host time (never below E's roofline), or scaled
    // with the ops.
    CHECK(e.pass_unscaled_s ==
          doctest::Approx(std::max(ops_e + (measured - ops_b) * 0.5, roofline_floor(w, *cat.platform("E")).seconds)));
    CHECK(e.pass_scaled_s == doctest::Approx(ops_e * ratio));
    CHECK(e.pass_low_s <= e.pass_s);
    CHECK(e.pass_high_s >= e.pass_s);
  }
}

TEST_CASE("the op-model error splits at the kernels' band: inside it partly carried, beyond it the rest whole") {
  // A layer-list workload on B and E (as above) of the GEMM alone, twice a pass: with no
  // tables in this catalog it is priced by the roofline on both, whose band is 60%
  // (fallback_models.cpp), so the modelled ops' band on B is 0.6 and kernel error can explain
  // up to log 1.6 = 0.4700 of log ops_scale either way. Measured = ratio x B's modelled ops +
  // the 11 us of dispatch (5.5 us x 2 calls), so ops_scale is the ratio itself;
  // rho = kSharedOpErrorShare = 0.36.
  const Catalog cat = make_catalog({platform("B", 20, 2000, 2.0), platform("E", 40, 4000, 4.0)}, {});
  Workload w = workload();
  w.pass_s.reset();
  w.recorded_on.clear();
  w.origin = "model";
  w.ops.resize(1);
  w.ops[0].self_time_s.reset();
  const PassEstimate b_model = estimate_pass(w, "B", cat);
  const PassEstimate e_model = estimate_pass(w, "E", cat);
  REQUIRE(kSharedOpErrorShare == 0.36);
  REQUIRE(b_model.ops.at(0).method == Method::roofline);
  REQUIRE(b_model.ops_sigma_s / b_model.ops_s == doctest::Approx(0.6));
  const double host = 5.5e-6 * 2;
  struct Case {
    double ratio, kernel, workload, carried, unshared;
  };
  // Written out: k = clamp(log ratio, -0.4700, 0.4700), w = log ratio - k,
  // carried = exp(w + 0.36 k), unshared band = exp(sqrt(1 - 0.36^2) |k|) - 1.
  const Case cases[] = {
      // inside the band: 1.25, log 0.2231, all kernel error: 1.25^0.36 = 1.0836
      {1.25, 0.22314, 0.0, 1.08365, 0.23144},
      // beyond it, slower: 3, log 1.0986 = 0.4700 kernel + 0.6286 workload: exp(0.7978) = 2.2207
      {3.0, 0.47000, 0.62861, 2.22067, 0.55037},
      // beyond it, faster: 0.6, log -0.5108 = -0.4700 kernel - 0.0408 workload: exp(-0.2100) = 0.8106
      // (still above B's roofline, half the modelled GEMM: checked below)
      {0.6, -0.47000, -0.04082, 0.81057, 0.55037},
  };
  for (const auto& x : cases) {
    CAPTURE(x.ratio);
    const double measured = x.ratio * b_model.ops_s + host;
    REQUIRE(measured - roofline_floor(w, *cat.platform("B")).seconds > host);
    const auto m = measured_passes(w, {make_calibration(w, "B", measured, std::nullopt, std::nullopt)});
    const PassEstimate e = estimate_pass(w, "E", cat, m);
    CHECK(e.calibration.ops_scale == doctest::Approx(x.ratio));
    CHECK(e.calibration.ops_band_there == doctest::Approx(0.6));
    CHECK(e.calibration.kernel_log_error == doctest::Approx(x.kernel).epsilon(1e-4));
    CHECK(e.calibration.workload_log_error == doctest::Approx(x.workload).epsilon(1e-4));
    CHECK(e.calibration.ops_carry == doctest::Approx(x.carried).epsilon(1e-4));
    CHECK(e.pass_s == doctest::Approx(e_model.ops_s * x.carried + host * 0.5).epsilon(1e-4));
    // The band holds the kernel part not carried; the workload part is carried whole.
    const double sigma_ops = std::expm1(std::sqrt(1 - 0.36 * 0.36) * std::abs(x.kernel));
    CHECK(sigma_ops == doctest::Approx(x.unshared).epsilon(1e-4));
    CHECK(e.uncertainty >= x.unshared * e.modelled_s / e.pass_s * (1 - 1e-4));
    // On B itself the pass is still the measurement.
    CHECK(estimate_pass(w, "B", cat, m).pass_s == doctest::Approx(measured));
  }
}

TEST_CASE("epoch and run times become one pass with the roll-up's own counts") {
  const Workload w = workload();  // 10 passes per epoch, 3 epochs
  CHECK(measured_pass(w, make_calibration(w, "A", std::nullopt, 0.2, std::nullopt)).pass_s == doctest::Approx(0.02));
  CHECK(measured_pass(w, make_calibration(w, "A", std::nullopt, std::nullopt, 0.6)).pass_s == doctest::Approx(0.02));
  // A study problem's epochs override the workload's for a run time.
  CHECK(measured_pass(w, make_calibration(w, "A", std::nullopt, std::nullopt, 0.6), 6).pass_s == doctest::Approx(0.01));
  // An epoch time needs samples and batch; a run time needs epochs too.
  Workload trace = w;
  trace.samples_per_epoch = 0;
  CHECK_THROWS_AS(make_calibration(trace, "A", std::nullopt, 0.2, std::nullopt), UsageError);
  Workload no_epochs = w;
  no_epochs.epochs = 0;
  CHECK_THROWS_AS(make_calibration(no_epochs, "A", std::nullopt, std::nullopt, 10.0), UsageError);
  CHECK_THROWS_AS(make_calibration(w, "A", std::nullopt, std::nullopt, std::nullopt), UsageError);
  CHECK_THROWS_AS(make_calibration(w, "A", 1.0, 1.0, std::nullopt), UsageError);
  CHECK_THROWS_AS(make_calibration(w, "A", -1.0, std::nullopt, std::nullopt), UsageError);
  CHECK_THROWS_AS(make_calibration(w, "A", std::nan(""), std::nullopt, std::nullopt), UsageError);
  CHECK_THROWS_AS(make_calibration(w, "A", INFINITY, std::nullopt, std::nullopt), UsageError);
}

TEST_CASE("a workload with no measured time anywhere is the modelled operations alone, and says so") {
  const Catalog cat = catalog();
  Workload w = workload();
  w.pass_s.reset();
  for (auto& op : w.ops) op.self_time_s.reset();
  w.recorded_on.clear();
  const PassEstimate p = estimate_pass(w, "B", cat);
  CHECK_FALSE(p.calibration.calibrated);
  CHECK(p.residual_s == 0);
  CHECK(p.pass_s == doctest::Approx(p.ops_s));
  CHECK_FALSE(p.host_bound);
  bool said = false;
  for (const auto& n : p.notes) said = said || n.find("not calibrated") != std::string::npos;
  CHECK(said);
}

// Host speeds come on two scales: the shipped specs' PassMark single-thread ratings (over the
// Xeon E5-2698 v4's) and `fomcast bench`'s own (its reference host = 1). A ratio across the
// two would carry their unknown ratio, so such a pair is not scaled, and says so; two figures
// on the PassMark scale are.
TEST_CASE("host speeds on two different scales are not divided by each other") {
  const std::string passmark = "PassMark CPU Mark single-thread rating (test row)";
  Platform a = platform("A", 10, 1000, std::nullopt), e = platform("E", 20, 2000, std::nullopt),
           f = platform("F", 20, 2000, std::nullopt);
  a.host_speed = Sourced{0.4, passmark};
  e.host_speed = Sourced{1.0, passmark};
  f.host_speed = Sourced{2.0, "fomcast bench on F: host benchmark 6.5 ms"};
  const Catalog cat = make_catalog({a, e, f}, {});
  const Workload w = workload();  // 3 ms of ops + 7 ms of residual measured on A

  // Both PassMark: x 0.4 / 1.0.
  const PassEstimate pe = estimate_pass(w, "E", cat);
  CHECK(pe.calibration.host_scaled);
  CHECK(pe.calibration.carry == doctest::Approx(0.4));
  CHECK(pe.residual_s == doctest::Approx(7e-3 * 0.4));

  // PassMark over bench: unscaled, and the reason named.
  const PassEstimate pf = estimate_pass(w, "F", cat);
  CHECK_FALSE(pf.calibration.host_scaled);
  CHECK(pf.calibration.carry == 1);
  CHECK(pf.residual_s == doctest::Approx(7e-3));
  CHECK(pf.calibration.carry_detail.find("carried unscaled: host_speed figures of A and F are on different scales") !=
        std::string::npos);
}
