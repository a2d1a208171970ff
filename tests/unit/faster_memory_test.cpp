// A co-design question fomcast must answer the right way round: the same chip with more
// memory bandwidth never runs an op slower. Every shipped workload, on H100 and on a copy of
// its spec with 1.5x and 2x the bandwidth (nothing else changed), in fp32 and autocast bf16.
// The memory-bound kinds are read off the tabulated GPUs' curves at the op's size against
// the launch gap; a faster memory moves that size down the curve, where the curves' points
// mix kernels (relu and gelu, add and mul) and a plain read had made 70 of 710 ops slower,
// a [10x1200] relu gradient of P3B1 by 40%.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <tuple>

#include "fomcast/estimate.hpp"
#include "fomcast/precision.hpp"
#include "shipped_catalog.hpp"

using namespace fomcast;
using fomcast::test::catalog;
using fomcast::test::shipped_workloads;

namespace {

// Summed per (op index): the same ops in both passes, so the index says which.
std::map<std::size_t, double> op_times(const Workload& w, const std::string& platform, const Catalog& c,
                                       PrecisionMode mode) {
  const PassEstimate pe = estimate_pass(w, platform, c, {}, mode);
  std::map<std::size_t, double> out;
  for (const auto& e : pe.ops) out[e.op_index] += e.predicted_s;
  return out;
}

bool memory_kind(OpKind k) { return k == OpKind::elementwise || k == OpKind::reduction || k == OpKind::normalization; }

}  // namespace

TEST_CASE("more memory bandwidth on the same chip never makes an op or a pass slower") {
  Catalog c = catalog();
  const Platform* h100 = c.platform("H100");
  REQUIRE(h100);
  REQUIRE(h100->mem_bw_bytes_per_s);
  for (const double factor : {1.5, 2.0}) {
    Platform faster = *h100;
    faster.name = "H100_bw_x" + std::to_string(factor);
    faster.device_names.clear();
    faster.mem_bw_bytes_per_s->value *= factor;
    c.platforms[faster.name] = faster;
  }
  int64_t compared = 0, memory_bound_faster = 0;
  for (const auto& w : shipped_workloads())
    for (const PrecisionMode mode : {PrecisionMode::fp32, PrecisionMode::amp_bf16}) {
      const auto base = op_times(w, "H100", c, mode);
      auto slower = base;
      for (const std::string name : {"H100_bw_x1.500000", "H100_bw_x2.000000"}) {
        const auto t = op_times(w, name, c, mode);
        REQUIRE(t.size() == slower.size());
        for (const auto& [i, s] : t) {
          // Indices past the recorded ops are the casts autocast adds (elementwise).
          const bool recorded = i < w.ops.size();
          const std::string what = w.name + " " + std::string(to_string(mode)) + " " + name + " op " +
                                   std::to_string(i) + " " + (recorded ? w.ops[i].name : "autocast cast");
          INFO(what);
          CHECK(s <= slower.at(i) * (1 + 1e-9));
          if (s < slower.at(i) * 0.99 && (!recorded || memory_kind(w.ops[i].kind))) ++memory_bound_faster;
          ++compared;
        }
        slower = t;
      }
    }
  CHECK(compared > 2000);
  // Not vacuous: the memory-bound ops do speed up.
  CHECK(memory_bound_faster > compared / 10);
}
