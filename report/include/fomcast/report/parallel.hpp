// Many devices (issue 15): validate's allreduce_loo rows, and the parallel layout part of
// `estimate --parallel` and `scaling`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/collectives.hpp"
#include "fomcast/parallel.hpp"

namespace fomcast {

// [{"platform", "n", "median_abs_error", "p90_abs_error"}]
nlohmann::json allreduce_loo_to_json(const std::vector<AllreduceLoo>&);
std::string allreduce_loo_to_text(const std::vector<AllreduceLoo>&);

// estimate --parallel: adds "compute_s", "exposed_comm_s", "bubble_s", "scaling_efficiency",
// "devices", "global_batch", "micro_batch", "memory" and "parallel" (the layout, the
// collectives, notes) to an estimate's JSON.
void add_parallel_json(nlohmann::json& estimate, const ParallelEstimate&);
std::string parallel_to_text(const ParallelEstimate&, bool verbose = false);
// `fomcast scaling`: {"workload", "platform", "key", "weak", "points": [{"dp", "tp", "pp",
// "devices", "global_batch", "micro_batch", "step_s", "compute_s", "exposed_comm_s",
// "bubble_s", "samples_per_s", "efficiency", "scaling_efficiency", "error"}]}
nlohmann::json scaling_to_json(const ScalingCurve&);
std::string scaling_to_text(const ScalingCurve&);
// `whatif --parallel`: whatif's {"workload", "platform", "pass_s", "reference_pass_s",
// "speedup"} for the step, the scaled step's "compute_s", "exposed_comm_s", "bubble_s",
// "scaling_efficiency", and "reference" with the same four of the step on P.
nlohmann::json parallel_whatif_to_json(const ParallelWhatIf&);
std::string parallel_whatif_to_text(const ParallelWhatIf&);

}  // namespace fomcast
