// Estimation speed: a workload of thousands of operations against kernel tables of
// thousands of entries. Prints absolute times and ratios against a reference measured in
// the same run: one brute-force pass over the table per operation (computing every
// entry's log-shape distance), the least any nearest-neighbour lookup without an index
// could cost.
//
//   build/tests/perf_estimate_bench [ops] [entries]     (defaults 5000 and 5000)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "fomcast/estimate.hpp"

using namespace fomcast;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int64_t pick(std::mt19937& rng, int lo, int hi) {
  return int64_t{1} << std::uniform_int_distribution<int>(lo, hi)(rng);
}

}  // namespace

int main(int argc, char** argv) {
  const int n_ops = argc > 1 ? std::atoi(argv[1]) : 5000;
  const int n_entries = argc > 2 ? std::atoi(argv[2]) : 5000;
  std::mt19937 rng(42);

  // A platform with a large measured GEMM table (times from a roofline with noise) and
  // one without a table that must borrow it.
  Platform big;
  big.name = "BigTable";
  big.vendor = "V";
  big.architecture = "A";
  big.device_kind = "gpu";
  big.peak_flop_per_s[DType::fp32] = {20e12, "benchmark"};
  big.mem_bw_bytes_per_s = Sourced{1.5e12, "benchmark"};
  Platform bare = big;
  bare.name = "NoTable";
  bare.peak_flop_per_s[DType::fp32] = {40e12, "benchmark"};
  KernelTable table;
  table.platform = big.name;
  std::lognormal_distribution<double> noise(0, 0.1);
  for (int i = 0; i < n_entries; ++i) {
    const GemmShape g{pick(rng, 4, 14), pick(rng, 4, 14), pick(rng, 4, 16) + i % 7};
    const double flops = 2.0 * g.m * g.n * g.k, bytes = 4.0 * (g.m * g.k + g.k * g.n + g.m * g.n);
    table.entries.push_back(KernelEntry{.kind = OpKind::gemm,
                                        .shape = g,
                                        .precision = KernelPrecision::fp32,
                                        .mode = KernelMode::train,
                                        .time_us = 1e6 * std::max(flops / 14e12, bytes / 1.2e12) * noise(rng) + 3,
                                        .spread = 0,
                                        .method = {},
                                        .provenance = {}});
  }

  Workload w;
  w.name = "synthetic";
  for (int i = 0; i < n_ops; ++i) {
    Op op;
    op.name = "op" + std::to_string(i);
    if (i % 5 == 4) {
      op.kind = OpKind::elementwise;
      op.shape = TensorShape{{{pick(rng, 8, 12), pick(rng, 8, 12)}}};
    } else {
      op.kind = OpKind::gemm;
      op.shape = GemmShape{pick(rng, 3, 15), pick(rng, 3, 15), pick(rng, 3, 17)};
    }
    fill_costs(op);
    w.ops.push_back(op);
  }

  auto t0 = std::chrono::steady_clock::now();
  double sink = 0;
  for (const auto& op : w.ops) {
    const auto* q = std::get_if<GemmShape>(&op.shape);
    if (!q) continue;
    for (const auto& e : table.entries) {
      const auto& g = std::get<GemmShape>(e.shape);
      sink += std::hypot(std::log(double(g.m) / q->m), std::log(double(g.n) / q->n), std::log(double(g.k) / q->k));
    }
  }
  const double reference = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  const Catalog catalog = make_catalog({big, bare}, {table});
  const PassEstimate first = estimate_pass(w, "BigTable", catalog);  // builds the index and its leave-one-out
  const double with_index = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const PassEstimate again = estimate_pass(w, "BigTable", catalog);
  const double warm = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const PassEstimate borrowed = estimate_pass(w, "NoTable", catalog);
  const double scaled = seconds_since(t0);

  std::printf("estimate of %d ops against a %d-entry GEMM table\n", n_ops, n_entries);
  std::printf("  reference: one distance pass over the table per op   %8.3f s\n", reference);
  std::printf("  first estimate (indexing + leave-one-out included)   %8.3f s  (%.2f x reference)\n", with_index,
              with_index / reference);
  std::printf("  estimate again (index reused)                        %8.3f s  (%.2f x reference)\n", warm,
              warm / reference);
  std::printf("  estimate on a platform borrowing that table          %8.3f s  (%.2f x reference)\n", scaled,
              scaled / reference);
  std::printf("  (pass %.4g s, %.4g s, %.4g s; checksum %.3g)\n", first.pass_s, again.pass_s, borrowed.pass_s, sink);
  return 0;
}
