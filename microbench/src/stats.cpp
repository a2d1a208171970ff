// Statistics of repeated timings: small pure functions, no state.
#include <algorithm>
#include <cmath>

#include "fomcast/microbench.hpp"

namespace fomcast::bench {

double quantile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  p = std::clamp(p, 0.0, 1.0);
  const double pos = p * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

double median(std::vector<double> values) { return quantile(std::move(values), 0.5); }

double relative_spread(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double m = median(values);
  if (!(m > 0)) return 0;
  return (quantile(values, 0.9) - quantile(values, 0.1)) / m;
}

}  // namespace fomcast::bench
