// `fomcast estimate`: the contract's JSON (workload, platform, pass_s, epoch_s, run_s,
// units_per_day, ops[] with method) plus uncertainty, coverage and the residual line; the
// text shows the pass split, the roll-up and the top operations with method, baseline vs
// predicted and uncertainty.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/estimate.hpp"

namespace fomcast {

nlohmann::json estimate_to_json(const RunEstimate&, const Workload&);
// The pass, the roll-up and the `top` operations; `verbose` adds the assumptions and notes
// (the JSON always carries them), otherwise one line says how many there are. `ops_heading`
// names what the op table lists (under --parallel: one device's micro-batch before the split).
std::string estimate_to_text(
    const RunEstimate&, const Workload&, std::size_t top = 15, bool verbose = false,
    std::string_view ops_heading = "top operations by predicted time per pass (times per call)");

}  // namespace fomcast
