// The transfer rules for a GPU with no table of its own (issue 13, section 5), on hand-built
// platforms and tables whose answers can be worked out by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fomcast/estimate.hpp"
#include "fomcast/validate.hpp"

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

Op add_op(int64_t rows, int64_t cols) {
  Op op;
  op.name = "aten::add";
  op.kind = OpKind::elementwise;
  op.shape = TensorShape{{{rows, cols}, {rows, cols}}};
  op.dtype = DType::fp32;
  fill_costs(op);
  return op;
}
Op tiny_add() { return add_op(1, 8); }

// A source whose large adds all stream at `fraction` of its 1000 GB/s, and whose empty-sized
// add takes `floor_us`: the 90th percentile of its fractions is `fraction`.
KernelTable streaming(const std::string& platform, double floor_us, double fraction) {
  KernelTable t{platform, {add(1, 8, floor_us)}};
  for (const int64_t rows : {4096, 8192, 16384})
    t.entries.push_back(add(rows, 1024, add_op(rows, 1024).bytes / (1000e9 * fraction) * 1e6));
  return t;
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

TEST_CASE("a GPU with no table gets the sources' median achievable bandwidth fraction") {
  // Sources at 1000 GB/s sustaining 0.5, 0.6 and 0.8 of it (gaps 20, 30, 50 us); the target
  // (2000 GB/s, another architecture) is given their median fraction, 0.6, not each source's
  // own. A large add on source i: its time q_i = B / (1000 GB/s x f_i); carried, the gap
  // becomes the sources' median 30 us and the rest scales by (1000 x f_i) / (2000 x 0.6):
  // t_i = 30 us + (q_i - gap_i) x f_i / 1.2. Equal weights: their geometric mean.
  const Catalog c = make_catalog(
      {gpu("S1", "A", 10, 1000), gpu("S2", "A", 10, 1000), gpu("S3", "A", 10, 1000), gpu("T", "B", 20, 2000)},
      {streaming("S1", 20, 0.5), streaming("S2", 30, 0.6), streaming("S3", 50, 0.8)});
  const Op op = add_op(8192, 1024);
  Workload w;
  w.name = "large";
  w.ops.push_back(op);
  const PassEstimate e = estimate_pass(w, "T", c);
  REQUIRE(e.ops.size() == 1);
  INFO(e.ops[0].detail);
  double log_sum = 0;
  for (const auto& [gap, f] : {std::pair{20e-6, 0.5}, std::pair{30e-6, 0.6}, std::pair{50e-6, 0.8}}) {
    const double q = op.bytes / (1000e9 * f);
    log_sum += std::log(30e-6 + (q - gap) * f / 1.2);
  }
  CHECK(e.ops[0].predicted_s == doctest::Approx(std::exp(log_sum / 3)).epsilon(1e-6));
  CHECK(e.ops[0].detail.find("x 0.6, the sources' median") != std::string::npos);
}

TEST_CASE("the normalised-curve rule reads each source where it is as large against its own gap") {
  // Sources A and B (1000 GB/s; empty-sized adds at 20 and 40 us: their launch gaps) stream
  // adds at 0.5 of their bandwidth while an op is 1 to 2.7 times as large as their gap's
  // worth of bytes (x = log(bytes / (bandwidth x gap)) in [0, 1]) and at 0.9 from 4.5 to
  // 55 times (x in [1.5, 4]). C (4000 GB/s) is held out; its gap is taken as the sources'
  // median, 30 us, so its adds of 1.5e8 to 2.6e8 B sit at x = log(bytes / 1.2e8) in [0.2,
  // 0.8], where both sources reach 0.5: the rule predicts bytes / (4000 GB/s x 0.5), which
  // is what C measured, so its median error is 0. Read at the same shape instead, A and B
  // are on their 0.9 plateau (x + log(4 x 30 / 20) and x + log(4 x 30 / 40): above 1.5),
  // 44% too fast.
  auto add_at = [](double bytes, double fraction) {
    const auto rows = static_cast<int64_t>(std::llround(bytes / (12.0 * 1024)));  // 3 x 4 B per element
    return add(rows, 1024, add_op(rows, 1024).bytes / (1000e9 * fraction) * 1e6);
  };
  auto source = [&](const std::string& name, double gap_us) {
    KernelTable t{name, {add(1, 8, gap_us)}};
    for (int i = 0; i < 20; ++i) {
      const double mid = std::exp(i / 19.0), large = std::exp(1.5 + 2.5 * i / 19.0);
      t.entries.push_back(add_at(mid * 1000e9 * gap_us * 1e-6, 0.5));
      t.entries.push_back(add_at(large * 1000e9 * gap_us * 1e-6, 0.9));
    }
    return t;
  };
  KernelTable c{"C", {}};
  for (int64_t rows = 12000; rows <= 21000; rows += 1000)
    c.entries.push_back(add(rows, 1024, add_op(rows, 1024).bytes / (4000e9 * 0.5) * 1e6));
  const Catalog cat = make_catalog({gpu("A", "X", 10, 1000), gpu("B", "X", 10, 1000), gpu("C", "Y", 40, 4000)},
                                   {source("A", 20), source("B", 40), c});
  const auto held = validate_leave_platform_out(cat);
  const auto it = std::find_if(held.begin(), held.end(), [](const LeavePlatformOut& r) { return r.held_out == "C"; });
  REQUIRE(it != held.end());
  CHECK(it->kind == "elementwise");
  CHECK(it->curve_rule.n == 10);
  CHECK(it->curve_rule.median == doctest::Approx(0).epsilon(1e-9));
  CHECK(it->curve_rule.mean_log_ratio == doctest::Approx(0).epsilon(1e-9));
}
