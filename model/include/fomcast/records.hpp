// What fomcast records about its own runs: a workload's summary line, a measured time of
// a workload on a platform, a recorded FOM. Plain values; the store keeps them, the
// estimator and the reports read them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fomcast {

// One line of `workloads`: a workload without its operations.
struct WorkloadSummary {
  std::string name;
  std::string origin;
  std::string source;
  std::string recorded_on;
  int64_t ops = 0;
  int64_t passes = 0;
  std::optional<double> pass_s;
  bool shipped = false;
};

// A measured time of a workload on a platform (CANDLE step 1). One of the three is set.
struct Calibration {
  std::string workload;
  std::string platform;
  std::optional<double> pass_s;
  std::optional<double> epoch_s;
  std::optional<double> run_s;
  std::string recorded_at;
  std::string note;
  // The batch the measurement ran at (the workload's when calibrated, or `calibrate
  // --batch`); 0 when not recorded (calibrations stored before fomcast kept it).
  int64_t batch_size = 0;
};

// One FOM recorded by `fom --record`.
struct FomRecord {
  int64_t id = 0;
  std::string recorded_at;  // ISO 8601 UTC
  std::string label;
  std::string git_commit;
  std::string study_name;
  std::string study_json;
  double fom = 0;
  std::string problems_json;
  // Fingerprints of what it was computed from (estimator's fom_inputs_json): "{}" for
  // records made before they were kept.
  std::string inputs_json;
};

}  // namespace fomcast
