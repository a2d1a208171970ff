// PyTorch's max-pool kernels are bound by the SMs, not memory (estimator/src/max_pool_bound.hpp):
// by hand on one op, then against the max-pool kernels of a V100's profiled ResNet-50 steps,
// which the rate (measured on an H200) did not see.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "fomcast/estimate.hpp"
#include "fomcast/store.hpp"
#include "fomcast/text.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
using fomcast::test::source_path;

namespace {

// ResNet-50's stem pool at batch 256, as the layer lists write it: x [256, 112, 112, 64]
// forward; dy [256, 56, 56, 64] and x backward.
Workload stem_pool(Phase phase, const std::string& memory_format) {
  Op op;
  op.name = phase == Phase::forward ? "maxpool2d" : "maxpool2d.grad";
  op.kind = OpKind::pooling;
  op.phase = phase;
  op.dtype = DType::fp16;
  op.shape = phase == Phase::forward ? TensorShape{{{256, 112, 112, 64}}}
                                     : TensorShape{{{256, 56, 56, 64}, {256, 112, 112, 64}}};
  fill_costs(op);
  return test::one_op_model(std::move(op), memory_format);
}

double max_pool_s(const nlohmann::json& estimate) {
  double s = 0;
  for (const auto& op : estimate["ops"]) {
    const std::string name = lowercase(op["name"].get<std::string>());
    if (op["kind"] == "pooling" && name.find("max") != std::string::npos) s += op["predicted_per_pass_s"].get<double>();
  }
  return s;
}

}  // namespace

TEST_CASE("max pool: bound by the SMs' index arithmetic, by hand") {
  ScratchDir dir;
  const Catalog c = load_catalog(test::open_seeded(dir.file("p.db")));
  // 205,520,896 input elements over the H200's 132 SMs at 1,980 MHz: 0.97 of one a clock
  // forward (811 us), 0.34 backward channels first (2,313 us), 0.43 channels last (1,829 us);
  // the H200's trace took 832, 2,272 and 1,826 us.
  const double sm_cycles = 132 * 1.98e9, elements = 256.0 * 112 * 112 * 64;
  CHECK(estimate_pass(stem_pool(Phase::forward, "channels_first"), "H200", c).ops_s ==
        doctest::Approx(elements / (0.97 * sm_cycles)));
  CHECK(estimate_pass(stem_pool(Phase::backward, "channels_first"), "H200", c).ops_s ==
        doctest::Approx(elements / (0.34 * sm_cycles)));
  CHECK(estimate_pass(stem_pool(Phase::backward, "channels_last"), "H200", c).ops_s ==
        doctest::Approx(elements / (0.43 * sm_cycles)));
  // The same op read from a trace keeps its own time: only a layer list's pool is bound.
  Workload traced = stem_pool(Phase::forward, "");
  traced.origin = "kineto";
  CHECK(estimate_pass(traced, "H200", c).ops_s < 0.5 * elements / (0.97 * sm_cycles));
  // Nor a layer list that states no layout (CANDLE's Keras models: TensorFlow's pool kernels).
  CHECK(estimate_pass(stem_pool(Phase::forward, ""), "H200", c).ops_s < 0.5 * elements / (0.97 * sm_cycles));
  const PassEstimate p = estimate_pass(stem_pool(Phase::forward, "channels_first"), "H200", c);
  bool noted = false;
  for (const auto& n : p.ops[0].notes) noted = noted || n.find("index arithmetic") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("max pool: a V100's ResNet-50 max pools, out of the rate's sample") {
  // PyTorch's tb_plugin sample: ResNet-50 in fp32 at batch 32 on a V100-DGXS (traces/MANIFEST.md).
  ScratchDir dir;
  const std::string db = dir.file("v.db");
  run_json("ingest '" +
               shared_path("traces/pytorch_kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz") +
               "' --workload traced",
           db);
  run_json("ingest '" + source_path("data/models/resnet50.json") + "' --workload model", db);
  const double measured = max_pool_s(run_json("estimate --workload traced --platform NV_V100", db));
  const double model =
      max_pool_s(run_json("estimate --workload model --platform NV_V100 --batch 32 --precision fp32", db));
  // 0.874 ms a step (237 us forward, 637 backward); 0.834 by the rate (216 + 617), where the
  // bytes at 0.8 of 900 GB/s had given 0.11.
  CHECK(measured == doctest::Approx(0.000874).epsilon(0.02));
  CHECK(model / measured > 0.9);
  CHECK(model / measured < 1.05);
}
