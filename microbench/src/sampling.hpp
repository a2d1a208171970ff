// Fitting a suite into a time budget: which kernels to try first, and how long one will
// take before it has run. Pure functions. Private to microbench/.
#pragma once

#include <cstddef>
#include <vector>

#include "fomcast/microbench.hpp"

namespace fomcast::bench::detail {

// A permutation of 0..n-1 in bit-reversed order: every prefix is spread evenly over the
// list (0, n/2, n/4, 3n/4, ...), so a budget that keeps the first k samples the whole list.
std::vector<std::size_t> spread_order(std::size_t n);

// Seconds of one call before it has run: the roofline at assumed efficiencies (70% of the
// GEMM ceiling, 80% of the triad bandwidth) plus 5 us of call overhead. 0 rates = unknown.
double estimate_call_s(double flops, double bytes, double peak_flop_per_s, double bytes_per_s);

// The most the runner can spend on a kernel whose call takes call_s (warm-up included).
double estimate_kernel_s(double call_s, const RunnerOptions&);

}  // namespace fomcast::bench::detail
