// The transfer rules for a GPU with no table of its own (issue 13, section 5), on hand-built
// platforms and tables whose answers can be worked out by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "fomcast/estimate.hpp"

using namespace fomcast;

namespace {

Platform gpu(const std::string& name, const std::string& arch, double tflops, double gbs) {
  Platform p;
  p.name = name;
  p.device_kind = "gpu";
  p.vendor = "Test";
  p.architecture = arch;
  p.peak_flop_per_s[DType::fp32] = Sourced{tflops * 1e12, "test"};
  p.mem_bw_bytes_per_s = Sourced{gbs * 1e9, "test"};
  return p;
}

KernelEntry add(int64_t rows, int64_t cols, double us) {
  KernelEntry e;
  e.kind = OpKind::elementwise;
  e.shape = TensorShape{{{rows, cols}, {rows, cols}}};
  e.time_us = us;
  e.method = "neusight test";
  return e;
}

// A source GPU's add table: one latency-bound add (its launch floor) and three large ones.
KernelTable adds(const std::string& platform, double floor_us) {
  return {platform, {add(1, 8, floor_us), add(4096, 1024, 120), add(8192, 1024, 220), add(16384, 1024, 420)}};
}

Op tiny_add() {
  Op op;
  op.name = "aten::add";
  op.kind = OpKind::elementwise;
  op.shape = TensorShape{{{1, 8}, {1, 8}}};
  op.dtype = DType::fp32;
  fill_costs(op);
  return op;
}

}  // namespace

TEST_CASE("a GPU with no table gets the sources' median launch gap, not one source's") {
  // Three alike sources (same figures, so equal weights) measured empty-sized adds at 20, 30
  // and 50 us: the gap of the host each was measured on. The target (no table) is given their
  // median, 30 us, whichever source's table carries the op; the tiny add's own work (96 B at
  // 2 TB/s) is nothing. Keeping each source's gap gave their geometric mean, 31.07 us.
  const Catalog c = make_catalog(
      {gpu("S1", "A", 10, 1000), gpu("S2", "A", 10, 1000), gpu("S3", "A", 10, 1000), gpu("T", "B", 20, 2000)},
      {adds("S1", 20), adds("S2", 30), adds("S3", 50)});
  Workload w;
  w.name = "tiny";
  w.ops.push_back(tiny_add());
  const PassEstimate e = estimate_pass(w, "T", c);
  REQUIRE(e.ops.size() == 1);
  INFO(e.ops[0].detail);
  CHECK(e.ops[0].method == Method::scaled_table);
  CHECK(e.ops[0].predicted_s == doctest::Approx(30e-6).epsilon(1e-6));
  CHECK(e.ops[0].detail.find("the sources' median 30 us") != std::string::npos);
}
