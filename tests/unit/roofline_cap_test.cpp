// Physical limits (issue 13, section 4): no op is predicted faster than its roofline on the
// target. Every shipped workload on every shipped platform, at every precision the
// platform has a peak for, each op's prediction against its flops at that peak and its
// bytes at the memory bandwidth, computed here from the spec (a 3x3 stride-1 conv in
// fp32/fp64 math at a quarter of the direct flops: Winograd F(4x4, 3x3); so too tf32 on a part
// whose TF32 rate is no faster than its fp32 rate, where cuDNN keeps fp32 kernels). Times measured
// on the target itself (method `measured`, an exact `table` entry) are measurements.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "fomcast/estimate.hpp"
#include "shipped_catalog.hpp"

using namespace fomcast;
using fomcast::test::catalog;
using fomcast::test::shipped_workloads;

namespace {

bool floating(DType d) {
  return d == DType::fp32 || d == DType::tf32 || d == DType::fp16 || d == DType::bf16 || d == DType::unknown;
}

double roofline_s(const Platform& p, const Op& op, DType d) {
  const double peak = p.peak_flop_per_s.at(d).value;
  const double bw = p.mem_bw_bytes_per_s ? p.mem_bw_bytes_per_s->value : 0;
  double flops = op.flops > 0 ? op.flops : op_flops(op.kind, op.shape);
  const double bytes = op.bytes > 0 ? op.bytes : op_bytes(op.kind, op.shape, d);
  if (const auto* c = std::get_if<ConvShape>(&op.shape))
    if (op.kind == OpKind::conv && c->filter == std::array<int64_t, 3>{1, 3, 3} &&
        c->stride == std::array<int64_t, 3>{1, 1, 1} && c->dilation == std::array<int64_t, 3>{1, 1, 1} &&
        c->groups <= 1 && (d == DType::fp32 || (d == DType::tf32 && p.peak_flop_per_s.at(DType::fp32).value >= peak))) {
      flops /= 4;
      return std::max(flops / p.peak_flop_per_s.at(DType::fp32).value, bw > 0 ? bytes / bw : 0.0);
    }
  return std::max(flops / peak, bw > 0 ? bytes / bw : 0.0);
}

}  // namespace

TEST_CASE("no op of a shipped workload is predicted faster than its roofline on any shipped platform") {
  REQUIRE(shipped_workloads().size() >= 10);
  int64_t checked = 0, capped = 0;
  for (const auto& entry : catalog().platforms) {
    const std::string& name = entry.first;
    const Platform& p = entry.second;
    for (const DType d : {DType::fp32, DType::tf32, DType::fp16, DType::bf16}) {
      if (!p.peak_flop_per_s.count(d) || !(p.peak_flop_per_s.at(d).value > 0)) continue;
      for (Workload w : shipped_workloads()) {
        for (auto& op : w.ops)
          if (floating(op.dtype)) {
            op.dtype = d;
            op.bytes = 0;  // recomputed at the new element size
            fill_costs(op);
          }
        const PassEstimate pe = estimate_pass(w, name, catalog());
        for (const auto& e : pe.ops) {
          if (e.method == Method::measured || e.method == Method::table || e.method == Method::unestimated) continue;
          const Op& op = w.ops[e.op_index];
          if (!floating(op.dtype)) continue;
          const double floor = roofline_s(p, op, d);
          INFO(w.name << " on " << name << " at " << to_string(d) << ": " << op.name << " " << describe(op.shape) << " "
                      << to_string(e.method) << " " << e.detail);
          CHECK(e.predicted_s >= floor * (1 - 1e-9));
          ++checked;
          capped += e.roofline_capped;
        }
      }
    }
  }
  MESSAGE(checked << " op predictions checked, " << capped << " raised to their roofline");
  CHECK(checked > 1000);
}

TEST_CASE("VGG-16's convs on the A100 stay under its fp32 peak (x4 for Winograd), not 241 TFLOP/s") {
  const auto& all = shipped_workloads();
  auto it = std::find_if(all.begin(), all.end(), [](const Workload& w) { return w.name == "vgg16"; });
  REQUIRE(it != all.end());
  const PassEstimate pe = estimate_pass(*it, "A100", catalog());
  double conv_flops = 0, conv_s = 0;
  for (const auto& e : pe.ops) {
    const Op& op = it->ops[e.op_index];
    if (op.kind != OpKind::conv) continue;
    conv_flops += op.count * op.flops;
    conv_s += op.count * e.predicted_s;
  }
  REQUIRE(conv_s > 0);
  const double rate = conv_flops / conv_s;
  MESSAGE("VGG-16 conv rate on A100: " << rate / 1e12 << " TFLOP/s");
  CHECK(rate <= 4 * 19.5e12);
}
