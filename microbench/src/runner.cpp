// The runner: warm-up, then timed repetitions until the median is stable, a repetition
// cap or a time cap. It never reads a clock: `call` reports how long one call took, so the
// stopping rule is a pure function of the timings it is shown (and tested that way).
#include <algorithm>
#include <cmath>
#include <utility>

#include "fomcast/microbench.hpp"

namespace fomcast::bench {

namespace {

constexpr std::pair<StopReason, const char*> kStopReasons[] = {
    {StopReason::stable, "stable"},
    {StopReason::time_cap, "time cap"},
    {StopReason::max_reps, "max reps"},
};

}  // namespace

std::string_view to_string(StopReason r) {
  for (const auto& [value, name] : kStopReasons)
    if (value == r) return name;
  return "?";
}

Timing measure(const std::function<double()>& call, const RunnerOptions& o) {
  Timing t;
  // Warm-up: caches, page faults, thread pools and lazy library initialisation. One call
  // at least; more while they are cheap.
  double warm_s = 0;
  do {
    warm_s += call();
    ++t.warmup;
  } while (t.warmup < o.warmup_calls && warm_s < o.warmup_s);

  std::vector<double> times;
  double previous = NAN;
  int stable = 0;
  for (;;) {
    const double s = call();
    times.push_back(s);
    t.total_s += s;
    const double m = median(times);
    if (times.size() >= 2 && m > 0) stable = std::abs(m - previous) / m <= o.tolerance ? stable + 1 : 0;
    previous = m;
    const int n = static_cast<int>(times.size());
    if (n >= o.min_reps && stable >= o.stable_reps) {
      t.stopped = StopReason::stable;
      break;
    }
    if (n >= std::max(1, o.max_reps)) {
      t.stopped = StopReason::max_reps;
      break;
    }
    if (t.total_s >= o.max_s) {
      t.stopped = StopReason::time_cap;
      break;
    }
  }
  t.reps = static_cast<int>(times.size());
  t.median_s = median(times);
  t.min_s = *std::min_element(times.begin(), times.end());
  t.p10_s = quantile(times, 0.1);
  t.p90_s = quantile(times, 0.9);
  t.spread = relative_spread(times);
  return t;
}

std::string describe(const Timing& t) {
  const std::string calls = t.calls_per_rep > 1 ? " x " + std::to_string(t.calls_per_rep) + " calls" : "";
  return "median of " + std::to_string(t.reps) + calls + " (warm-up " + std::to_string(t.warmup) + ", " +
         std::string(to_string(t.stopped)) + ")";
}

Timing per_call(Timing t, int calls) {
  if (calls <= 1) return t;
  for (double* v : {&t.median_s, &t.min_s, &t.p10_s, &t.p90_s}) *v /= calls;
  t.calls_per_rep = calls;
  return t;
}

}  // namespace fomcast::bench
