// The platform's ceilings, measured on every run whatever the suite: a large square GEMM
// in fp32 and fp64, STREAM copy and triad, an Adam update over arrays far larger than the
// last-level cache, and the host speed. Private to microbench/.
#pragma once

#include <functional>
#include <string>

#include "backend.hpp"

namespace fomcast::bench::detail {

// Seconds one call of `run` takes on the host's steady clock.
double time_call(const std::function<void()>& run);

// `seconds` is shared among the six measurements (operand set-up comes on top); `step`
// is told the name of each before it starts.
Ceilings measure_ceilings(const Backend&, double seconds, const std::function<void(const std::string&)>& step);

// The square GEMM size whose call takes about target_s on this backend (multiples of 64,
// at least 256, at most what fits in memory).
int64_t choose_gemm_size(const Backend&, DType, double target_s);

}  // namespace fomcast::bench::detail
