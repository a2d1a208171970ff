// Step statistics: sorted once, median of the middle two for an even count.
#include "common/steps.hpp"

#include <algorithm>
#include <numeric>

#include "fomcast/format.hpp"

namespace fomcast::ingest {

StepStats step_stats(std::vector<double> d) {
  StepStats s;
  s.n = d.size();
  if (d.empty()) return s;
  std::sort(d.begin(), d.end());
  const std::size_t mid = d.size() / 2;
  s.median_s = d.size() % 2 ? d[mid] : (d[mid - 1] + d[mid]) / 2;
  s.min_s = d.front();
  s.max_s = d.back();
  s.mean_s = std::accumulate(d.begin(), d.end(), 0.0) / static_cast<double>(d.size());
  return s;
}

std::string describe_steps(const StepStats& s) {
  if (s.n == 1) return format_duration(s.median_s) + " (one step)";
  return "median " + format_duration(s.median_s) + " (min " + format_duration(s.min_s) + ", max " +
         format_duration(s.max_s) + ", mean " + format_duration(s.mean_s) + " over " + std::to_string(s.n) + " steps)";
}

std::vector<double> first_call_repeats(const std::vector<TopLevelCall>& calls) {
  if (calls.size() < 2) return {};
  const uint32_t first = calls.front().key;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (calls[i].key == first) at.push_back(i);
  if (at.size() < 2 || calls.size() % at.size() != 0) return {};
  const std::size_t period = calls.size() / at.size();
  for (std::size_t k = 0; k < at.size(); ++k)
    if (at[k] != k * period) return {};
  for (std::size_t i = period; i < calls.size(); ++i)
    if (calls[i].key != calls[i - period].key) return {};
  std::vector<double> durations;
  for (std::size_t k = 0; k < at.size(); ++k) {
    const double end = k + 1 < at.size() ? calls[at[k + 1]].start : calls.back().end;
    durations.push_back(end - calls[at[k]].start);
  }
  return durations;
}

}  // namespace fomcast::ingest
