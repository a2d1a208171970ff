// validate's end_to_end section (fomcast/validate_e2e.hpp): published training steps
// against predicted ones, and the speedups between GPUs.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/validate_e2e.hpp"

namespace fomcast {

// {"rows": [{"id", "workload", "platform", "precision", "batch", "published_samples_per_s",
// "published_step_s", "predicted_step_s", "error", "by_kind_s", "roofline_capped_s",
// "source"}], "speedups": [{"from", "to", "from_platform", "to_platform", "workload",
// "published", "predicted", "error"}], "median_abs_step_error", "median_abs_speedup_error"}
nlohmann::json end_to_end_to_json(const E2eReport&);
std::string end_to_end_to_text(const E2eReport&);

}  // namespace fomcast
