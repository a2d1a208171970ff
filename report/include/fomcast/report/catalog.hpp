// What the store holds: `fomcast workloads`, `fomcast show` (one workload's operations
// ranked by time, the CANDLE 95% top set marked), `fomcast platforms` (figures with their
// sources), and what `fomcast ingest` just stored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/model.hpp"
#include "fomcast/store.hpp"

namespace fomcast {

// `fomcast workloads rm NAME`: what went, and whether a shipped model of that name came back.
struct WorkloadRemoval {
  std::string workload;
  int64_t calibrations = 0;
  bool shipped_restored = false;
};
nlohmann::json workload_removal_to_json(const WorkloadRemoval&);
std::string workload_removal_to_text(const WorkloadRemoval&);

// `fomcast platforms add SPEC.json`: the platform stored, and what it replaced (the origin
// of the platform of that name before: "" when the name was new).
struct PlatformAdded {
  Platform platform;
  std::string replaced_origin;
};
nlohmann::json platform_added_to_json(const PlatformAdded&);
std::string platform_added_to_text(const PlatformAdded&);

nlohmann::json workloads_to_json(const std::vector<WorkloadSummary>&);
std::string workloads_to_text(const std::vector<WorkloadSummary>&);
nlohmann::json workload_to_json(const Workload&);
std::string workload_to_text(const Workload&, std::size_t max_rows = 40);
nlohmann::json platforms_to_json(const std::vector<Platform>&, const std::vector<int64_t>& entry_counts);
std::string platforms_to_text(const std::vector<Platform>&, const std::vector<int64_t>& entry_counts);
// `fomcast ingest`: what was read into the workload, then its top operations as `show` lists them.
nlohmann::json ingest_to_json(const Workload&);
std::string ingest_to_text(const Workload&);

}  // namespace fomcast
