// A real trace estimated in another precision keeps what its measurements say: each re-typed
// op's measured time is carried by the model's ratio of the two types on the target
// (rollup.cpp, carry_measured_into_mode). Predicted afresh, the old Kineto ResNet-50 trace
// (fp32, V100) had come out slower in amp-fp16 than in fp32 on H100: 72.5 against 37.8 ms of
// ops, its memory-bound ops read far outside the per-call tables with a launch gap each.
#include <doctest/doctest.h>

#include <string>

#include "fomcast/estimate.hpp"
#include "fomcast/ingest.hpp"
#include "shipped_catalog.hpp"
#include "test_support.hpp"

using namespace fomcast;

namespace {

// The old Kineto ResNet-50 trace: fp32, a V100 (NV_V100), its ops measured.
Workload rn50_v100_trace() {
  IngestOptions o;
  o.workload = "rn50-v100";
  Workload w = ingest_files(
      {test::shared_path("traces/pytorch_kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz")}, o);
  w.name = "rn50-v100";
  w.recorded_on = "NV_V100";
  return w;
}

}  // namespace

TEST_CASE("a measured fp32 trace is faster in amp than in fp32 on tensor-core GPUs, and alike in fp16 and bf16") {
  const Workload w = rn50_v100_trace();
  const Catalog& c = test::catalog();
  for (const char* platform : {"NV_V100", "H100", "B200"}) {
    CAPTURE(platform);
    const double fp32 = estimate_pass(w, platform, c, {}, PrecisionMode::fp32).ops_s;
    const double amp16 = estimate_pass(w, platform, c, {}, PrecisionMode::amp_fp16).ops_s;
    CHECK(amp16 < fp32);
    if (std::string(platform) != "NV_V100") {  // one 16-bit rate on each (V100 has no bf16)
      const double amp_bf16 = estimate_pass(w, platform, c, {}, PrecisionMode::amp_bf16).ops_s;
      CHECK(amp_bf16 == doctest::Approx(amp16).epsilon(0.02));
    }
  }
  // A re-typed op that was measured says so: scaled from its measurement, the ratio in words.
  const PassEstimate amp = estimate_pass(w, "H100", c, {}, PrecisionMode::amp_fp16);
  int carried = 0;
  for (const auto& e : amp.ops)
    if (e.method == Method::scaled && e.detail.find("as recorded (fp32) x ") != std::string::npos) ++carried;
  CHECK(carried > 50);
}

TEST_CASE("a half type a target has no units for is timed from a source's fp32 table, as the target's own would be") {
  // NV_V100 (DeepBench's V100, with tables) and the V100 SXM2 32 GB spec (none) are one chip:
  // amp-bf16 runs at the fp32 rate on both. The spec's estimate had read NV_V100's fp16
  // tensor-core table scaled down 7.96x by the rates, and came out 8-40% slower.
  const Workload* rn50 = nullptr;
  for (const auto& w : test::shipped_workloads())
    if (w.name == "resnet50") rn50 = &w;
  REQUIRE(rn50);
  const Catalog& c = test::catalog();
  const double own = estimate_pass(*rn50, "NV_V100", c, {}, PrecisionMode::amp_bf16).ops_s;
  const PassEstimate spec = estimate_pass(*rn50, "V100_SXM2_32GB", c, {}, PrecisionMode::amp_bf16);
  CHECK(spec.ops_s == doctest::Approx(own).epsilon(0.03));
  for (const auto& e : spec.ops) {
    INFO(e.detail);
    CHECK(e.detail.find("fp16_mixed") == std::string::npos);
  }
}

TEST_CASE("a measurement taken in the mode of a measured trace is set against the same carried model there") {
  // A study's measured baseline time of the fp32 V100 ResNet-50 trace, stated in amp-bf16 (a
  // V100 runs bf16 at its fp32 rate): the model there is the trace's ops carried into the
  // mode, on the baseline as on the target. Modelled from shapes alone off the baseline (160 ms
  // against the 91 ms carried), the residual there had shrunk to 16 ms on H100 and the
  // target came out 2.5x faster than without the measurement.
  const Workload w = rn50_v100_trace();
  const Catalog& c = test::catalog();
  MeasuredPass m;
  m.platform = "NV_V100";
  m.pass_s = *w.pass_s;
  m.source = "the study's baseline_pass_s";
  m.precision = PrecisionMode::amp_bf16;
  const PassEstimate there = estimate_pass(w, "NV_V100", c, {m}, PrecisionMode::amp_bf16);
  const PassEstimate target = estimate_pass(w, "H100", c, {m}, PrecisionMode::amp_bf16);
  CHECK(target.calibration.modelled_there_s == doctest::Approx(there.ops_s).epsilon(1e-9));
  CHECK(target.calibration.residual_there_s == doctest::Approx(there.calibration.residual_there_s).epsilon(1e-9));
  const PassEstimate unmeasured = estimate_pass(w, "H100", c, {}, PrecisionMode::amp_bf16);
  CHECK(target.pass_s == doctest::Approx(unmeasured.pass_s).epsilon(0.2));
}

TEST_CASE("an op measured at 0 s (no device work) is 0 in any precision, not priced afresh") {
  Workload w;
  w.name = "zero-copy";
  w.recorded_on = "MI300X";
  Op copy;
  copy.name = "aten::copy_";
  copy.kind = OpKind::elementwise;
  copy.dtype = DType::fp32;
  copy.shape = TensorShape{{{64}, {64}}};
  copy.count = 10;
  copy.self_time_s = 0.0;
  fill_costs(copy);
  Op add = copy;
  add.name = "aten::add";
  add.self_time_s = 5e-6;
  w.ops = {copy, add};
  // fp16: every op re-typed, the copy with it.
  const PassEstimate pe = estimate_pass(w, "MI300X", test::catalog(), {}, PrecisionMode::fp16);
  REQUIRE(pe.ops.size() >= 2);
  CHECK(pe.ops[0].method == Method::scaled);
  CHECK(pe.ops[0].predicted_s == 0);
  CHECK(pe.ops[0].detail.find("measured 0 s as recorded") != std::string::npos);
}
