// A traced network and the layer-list model of the same network must give the same GEMMs.
// The traces are small, so the test reads their aten ops directly with nlohmann::json (the
// Kineto and execution-trace readers are separate work): aten::addmm is a forward Linear,
// aten::mm its backward (data gradient [M,N]x[N,K], weight gradient [K,M]x[M,N]), and the
// model files in tests/data/models/ were written down from those same ops (see their
// descriptions). Shapes are compared as (M, N, K) with their counts per pass.
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "common/input.hpp"
#include "fomcast/layers.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::shared_path;
using fomcast::test::slurp;
using fomcast::test::source_path;

namespace {

using Mnk = std::tuple<int64_t, int64_t, int64_t>;
using GemmCounts = std::map<Mnk, double>;

struct TraceGemms {
  GemmCounts forward, backward;
};

// addmm's dims are [[bias], [M, K], [K, N], ...]; mm's are [[M, K], [K, N]].
void add_gemm(TraceGemms& out, const std::string& name, const nlohmann::json& dims) {
  if (name == "aten::addmm") {
    const auto& a = dims.at(1);
    const auto& b = dims.at(2);
    out.forward[{a.at(0).get<int64_t>(), b.at(1).get<int64_t>(), a.at(1).get<int64_t>()}] += 1;
  } else if (name == "aten::mm") {
    const auto& a = dims.at(0);
    const auto& b = dims.at(1);
    out.backward[{a.at(0).get<int64_t>(), b.at(1).get<int64_t>(), a.at(1).get<int64_t>()}] += 1;
  }
}

TraceGemms model_gemms(const std::string& model_file) {
  const ExpandedModel m = expand_model(slurp(model_file), model_file);
  TraceGemms out;
  for (const auto& op : m.workload.ops) {
    const auto* g = std::get_if<GemmShape>(&op.shape);
    if (!g || op.kind != OpKind::gemm) continue;
    auto& side = op.phase == Phase::forward ? out.forward : out.backward;
    side[{g->m, g->n, g->k}] += op.count;
  }
  return out;
}

std::string text(const GemmCounts& c) {
  std::ostringstream s;
  for (const auto& [mnk, n] : c)
    s << "(" << std::get<0>(mnk) << "," << std::get<1>(mnk) << "," << std::get<2>(mnk) << ")x" << n << " ";
  return s.str();
}

}  // namespace

TEST_CASE("the minitoy Kineto trace and its model give the same GEMM shapes") {
  // The trace (HTA test data, one training step on an MI250) runs aten::linear [[5,128],[128,128],[128]]
  // -> aten::addmm [[128],[5,128],[128,128]], ReLU, MSE, then AddmmBackward0 -> aten::mm [[128,5],[5,128]]
  // (the weight gradient; there is no data gradient for the first layer) and SGD.
  const std::string trace = shared_path("traces/pytorch_kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json");
  const auto doc = nlohmann::json::parse(slurp(trace));
  TraceGemms traced;
  for (const auto& ev : doc.at("traceEvents")) {
    if (ev.value("cat", "") != "cpu_op" || !ev.contains("args") || !ev["args"].contains("Input Dims")) continue;
    add_gemm(traced, ev.value("name", ""), ev["args"]["Input Dims"]);
  }
  const TraceGemms modelled = model_gemms(source_path("tests/data/models/minitoy.json"));
  INFO("trace forward " << text(traced.forward) << "| model forward " << text(modelled.forward));
  INFO("trace backward " << text(traced.backward) << "| model backward " << text(modelled.backward));
  REQUIRE(traced.forward.size() == 1);
  CHECK(traced.forward == modelled.forward);
  CHECK(traced.backward == modelled.backward);
}

TEST_CASE("the param linear execution trace and its model give the same GEMMs, counts included") {
  // One iteration of 21 stacked Linear(1024,1024)+ReLU layers at batch 512: 21 addmm
  // forward; backward 21 weight gradients [1024,512]x[512,1024] and only 20 data gradients
  // [512,1024]x[1024,1024], because the first layer's input needs none.
  const std::string trace = shared_path("traces/pytorch_et/param_linear_et.json.gz");
  const auto doc = nlohmann::json::parse(ingest::InputFile(trace).bytes());
  TraceGemms traced;
  for (const auto& node : doc.at("nodes")) add_gemm(traced, node.value("name", ""), node["input_shapes"]);
  const TraceGemms modelled = model_gemms(source_path("tests/data/models/param_linear.json"));
  INFO("trace forward " << text(traced.forward) << "| model forward " << text(modelled.forward));
  INFO("trace backward " << text(traced.backward) << "| model backward " << text(modelled.backward));
  CHECK(traced.forward == GemmCounts{{{512, 1024, 1024}, 21}});
  CHECK(traced.forward == modelled.forward);
  CHECK(traced.backward == modelled.backward);
}
