// `fomcast bench`: the measured ceilings and kernels of a bench run. The JSON form has the
// contract's fields first ("platform", "entries" (the number stored), "peak_gemm_gflops",
// "mem_bw_gbs", ...), then the ceilings, every measured kernel and every skipped one; the
// text form is the two tables people read. `fomcast import-bench`: which kernel entries a
// kernel-table file gave which platforms.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/bench_import.hpp"
#include "fomcast/microbench.hpp"

namespace fomcast {

nlohmann::json bench_to_json(const bench::BenchResult&, std::string_view platform);
// `stored`: how many kernel entries the run stored for the platform.
std::string bench_to_text(const bench::BenchResult&, std::string_view platform, std::size_t stored);

// `file` as given, `format` as the --format flag named it.
nlohmann::json bench_import_to_json(const BenchImport&, std::string_view file, std::string_view format);
std::string bench_import_to_text(const BenchImport&, std::string_view file, std::string_view format);

}  // namespace fomcast
