// `fomcast bench`: the measured ceilings and kernels of a bench run. The JSON form has the
// contract's fields first ("platform", "entries" (the number stored), "peak_gemm_gflops",
// "mem_bw_gbs", ...), then the ceilings, every measured kernel and every skipped one; the
// text form is the two tables people read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/microbench.hpp"

namespace fomcast {

nlohmann::json bench_to_json(const bench::BenchResult&, std::string_view platform);
// `stored`: how many kernel entries the run stored for the platform.
std::string bench_to_text(const bench::BenchResult&, std::string_view platform, std::size_t stored);

}  // namespace fomcast
