// The casts autocast adds (precision.hpp, autocast_weight_casts): a workload recorded in
// fp32 and estimated in an amp mode gets one cast per forward call of each weight of a GEMM
// or conv it runs in half (read 4 B, write 2 B per element) and one back for each weight
// gradient the pass computes. Expected counts and bytes are worked out by hand from the tiny
// layer list below.
#include <doctest/doctest.h>

#include <map>

#include "fomcast/estimate.hpp"
#include "fomcast/layers.hpp"
#include "fomcast/precision.hpp"

using namespace fomcast;

namespace {

// Input 8x8x3 at batch 2. conv: weight [4 filters, 3 channels, 3, 3] = 108 elements (the
// cast's shape: the matrix [4, 27]), output
// 8x8x4 = 256 per sample; fc1: weight [256, 10] = 2,560 elements; fc2 (frozen): [10, 5] =
// 50 elements, no weight gradient. Biases are the expansion's own elementwise ops: no cast.
constexpr const char* kTiny = R"({
  "name": "tiny", "batch_size": 2, "input_shape": [8, 8, 3], "loss": "mse",
  "layers": [
    {"type": "conv2d", "filters": 4, "kernel_size": 3, "padding": "same", "use_bias": false, "name": "conv"},
    {"type": "flatten"},
    {"type": "dense", "units": 10, "name": "fc1"},
    {"type": "dense", "units": 5, "name": "fc2", "trainable": false}
  ]
})";

struct CastKey {
  std::vector<int64_t> dims;
  Phase phase;
  auto operator<=>(const CastKey&) const = default;
};

std::map<CastKey, const Op*> casts_of(const std::vector<Op>& ops) {
  std::map<CastKey, const Op*> out;
  for (const Op& op : ops) {
    if (op.name.rfind("autocast.cast_weight", 0) != 0) continue;
    const auto& t = std::get<TensorShape>(op.shape);
    REQUIRE(t.inputs.size() == 1);
    out[{t.inputs[0], op.phase}] = &op;
  }
  return out;
}

}  // namespace

TEST_CASE("autocast casts: one per weight of a half GEMM or conv per forward, one back per weight gradient") {
  const Workload w = expand_model(kTiny, "tiny.json").workload;
  const std::vector<Op> casts = autocast_weight_casts(w, PrecisionMode::amp_fp16);
  const auto by = casts_of(casts);
  REQUIRE(casts.size() == 5);  // conv, fc1, fc2 forward; conv, fc1 backward (fc2 is frozen)
  REQUIRE(by.size() == 5);
  struct Expect {
    std::vector<int64_t> dims;
    Phase phase;
    double elements;
  };
  const Expect expected[] = {
      {{4, 27}, Phase::forward, 108},     {{4, 27}, Phase::backward, 108}, {{256, 10}, Phase::forward, 2560},
      {{256, 10}, Phase::backward, 2560}, {{10, 5}, Phase::forward, 50},
  };
  for (const auto& e : expected) {
    INFO(e.elements, " ", to_string(e.phase));
    const auto it = by.find({e.dims, e.phase});
    REQUIRE(it != by.end());
    const Op& c = *it->second;
    CHECK(c.kind == OpKind::elementwise);
    CHECK(c.dtype == DType::fp16);
    CHECK(c.count == 1);
    CHECK(c.bytes == doctest::Approx(e.elements * 6));  // 4 B read + 2 B written, or back
    CHECK(c.flops == 0);
    CHECK(c.name == (e.phase == Phase::forward ? "autocast.cast_weight" : "autocast.cast_weight.grad"));
  }
  CHECK(by.count({{10, 5}, Phase::backward}) == 0);  // a frozen weight has no gradient to cast back
  // bf16: the same casts in bf16.
  for (const Op& c : autocast_weight_casts(w, PrecisionMode::amp_bf16)) CHECK(c.dtype == DType::bf16);
}

TEST_CASE("autocast casts: apply_precision appends them in amp modes only, with a note; recorded half has them") {
  const Workload w = expand_model(kTiny, "tiny.json").workload;
  const PrecisionApplied amp = apply_precision(w, PrecisionMode::amp_fp16);
  REQUIRE(amp.workload.ops.size() == w.ops.size() + 5);
  for (std::size_t i = w.ops.size(); i < amp.workload.ops.size(); ++i) {
    CHECK(amp.retyped[i]);
    CHECK_FALSE(amp.workload.ops[i].self_time_s);  // nothing measured them
  }
  bool noted = false;
  for (const auto& n : amp.notes) noted = noted || n.find("autocast casts added") != std::string::npos;
  CHECK(noted);
  // Modes without autocast add none.
  for (PrecisionMode m :
       {PrecisionMode::recorded, PrecisionMode::fp32, PrecisionMode::tf32, PrecisionMode::fp16, PrecisionMode::bf16}) {
    INFO(to_string(m));
    CHECK(apply_precision(w, m).workload.ops.size() == w.ops.size());
  }
  // A workload recorded in half already holds its casts (a trace ran them): none added.
  Workload half = w;
  for (Op& op : half.ops) op.dtype = DType::fp16;
  CHECK(autocast_weight_casts(half, PrecisionMode::amp_fp16).empty());

  // The pass estimate costs them: the amp pass holds the cast ops' time.
  const Catalog c = make_catalog({[] {
                                   Platform p;
                                   p.name = "P";
                                   p.device_kind = "gpu";
                                   p.origin = PlatformOrigin::user;
                                   p.peak_flop_per_s[DType::fp32] = Sourced{10e12, "test spec"};
                                   p.peak_flop_per_s[DType::fp16] = Sourced{100e12, "test spec"};
                                   p.mem_bw_bytes_per_s = Sourced{1e12, "test spec"};
                                   return p;
                                 }()},
                                 {});
  const PassEstimate pe = estimate_pass(w, "P", c, {}, PrecisionMode::amp_fp16);
  double cast_s = 0;
  for (const auto& e : pe.ops)
    if (e.op_index >= w.ops.size()) {
      CHECK(e.predicted_s >= amp.workload.ops[e.op_index].bytes / 1e12);  // never beyond the bandwidth
      CHECK_FALSE(e.baseline_s);
      cast_s += e.predicted_s * amp.workload.ops[e.op_index].count;
    }
  CHECK(cast_s > 0);
}
