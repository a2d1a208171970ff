// Words a reader puts at the start of a workload note that later commands act on: the
// reader says what its times are, the estimate warns where a projection rests on them.
#pragma once

#include <string_view>

namespace fomcast {

// A CUPTI range-profiler trace: each op's time is its share of a profiling session that
// replayed every kernel to read its counters, not its kernel's duration alone.
inline constexpr std::string_view kRangeProfilerNote = "CUPTI range-profiler trace: ";

// A trace with no device activity at all (no GPU ran, none was recorded): each op's time is
// the CPU's exclusive time, and a CPU's collectives (gloo) are what it measured.
inline constexpr std::string_view kCpuOnlyTraceNote = "CPU-only trace: ";

}  // namespace fomcast
