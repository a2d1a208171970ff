// Turning results into text for people and JSON for programs. Every printed number goes
// through here, so units and rounding are the same everywhere.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/fom.hpp"
#include "fomcast/format.hpp"

namespace fomcast {

// A plain text table: a header row, left-aligned text columns, right-aligned numbers.
struct TextTable {
  std::vector<std::string> header;
  std::vector<bool> right_align;  // per column; missing entries mean left
  std::vector<std::vector<std::string>> rows;
  std::string render() const;
};

nlohmann::json fom_to_json(const FomResult&);
std::string fom_to_text(const FomResult&, const Study&);

}  // namespace fomcast

namespace fomcast {

// `fomcast workloads`, `fomcast show`, `fomcast platforms`.
nlohmann::json workloads_to_json(const std::vector<WorkloadSummary>&);
std::string workloads_to_text(const std::vector<WorkloadSummary>&);
nlohmann::json workload_to_json(const Workload&);
std::string workload_to_text(const Workload&, std::size_t max_rows = 40);
nlohmann::json platforms_to_json(const std::vector<Platform>&, const std::vector<int64_t>& entry_counts);
std::string platforms_to_text(const std::vector<Platform>&, const std::vector<int64_t>& entry_counts);

}  // namespace fomcast

namespace fomcast {

// `fomcast estimate`: the contract's JSON (workload, platform, pass_s, epoch_s, run_s,
// units_per_day, ops[] with method) plus uncertainty, coverage and the overhead line; the
// text shows the top operations with method, baseline vs predicted and uncertainty.
nlohmann::json estimate_to_json(const RunEstimate&, const Workload&);
std::string estimate_to_text(const RunEstimate&, const Workload&, std::size_t top = 15);

}  // namespace fomcast
