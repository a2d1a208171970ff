// Spread order and run-time estimates for the budget.
#include "sampling.hpp"

#include <algorithm>
#include <cmath>

namespace fomcast::bench::detail {

std::vector<std::size_t> spread_order(std::size_t n) {
  std::size_t bits = 0;
  while ((std::size_t(1) << bits) < n) ++bits;
  std::vector<std::size_t> out;
  out.reserve(n);
  for (std::size_t i = 0; i < (std::size_t(1) << bits); ++i) {
    std::size_t r = 0;
    for (std::size_t b = 0; b < bits; ++b)
      if (i & (std::size_t(1) << b)) r |= std::size_t(1) << (bits - 1 - b);
    if (r < n) out.push_back(r);
  }
  return out;
}

double estimate_call_s(double flops, double bytes, double peak, double bw) {
  double t = 0;
  if (flops > 0 && peak > 0) t = std::max(t, flops / (0.7 * peak));
  if (bytes > 0 && bw > 0) t = std::max(t, bytes / (0.8 * bw));
  return t + 5e-6;
}

double estimate_kernel_s(double call_s, const RunnerOptions& o) {
  const int warm = std::max(1, std::min(o.warmup_calls, static_cast<int>(std::ceil(o.warmup_s / call_s))));
  // Repetitions stop at the time cap (overshooting it by less than one call) or max_reps;
  // a call longer than the cap is timed once.
  const double reps =
      call_s >= o.max_s ? call_s : std::min(std::max(1, o.max_reps) * call_s, std::max(o.max_s, 0.0) + call_s);
  return warm * call_s + reps;
}

}  // namespace fomcast::bench::detail
