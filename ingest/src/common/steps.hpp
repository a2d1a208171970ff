// Pass time from the steps a trace marks (ProfilerStep#N spans, the intervals between
// Optimizer.step annotations, NVTX step ranges, repeats of a loop): the median step, so a
// data-loader stall or a slow first step does not move it, with the spread for the notes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fomcast::ingest {

struct StepStats {
  std::size_t n = 0;
  double median_s = 0, min_s = 0, max_s = 0, mean_s = 0;
};

// Statistics of step durations in seconds (empty input: n = 0).
StepStats step_stats(std::vector<double> durations_s);

// "median 176.6 ms (min 128 ms, max 824 ms, mean 333 ms over 29 steps)".
std::string describe_steps(const StepStats&);

// A call with no enclosing call, on one thread, in start order; `key` tells identical calls
// (same op, same recorded inputs) apart from others.
struct TopLevelCall {
  double start = 0, end = 0;
  uint32_t key = 0;
};

// A trace without step markers that runs one loop body N times (a benchmark, a training
// loop profiled without a schedule): the calls split at each call like the first into N
// identical sequences. The durations of the N repeats, each from its start to the next's
// (the last to its last call's end), in the calls' time unit; empty when the calls are not
// such repeats (N >= 2).
std::vector<double> first_call_repeats(const std::vector<TopLevelCall>& calls);

}  // namespace fomcast::ingest
