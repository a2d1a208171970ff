// Studies, the FOM's input: a baseline and a target machine and the problems timed or
// estimated on both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/precision.hpp"

namespace fomcast {

struct StudySide {
  std::string platform;
  double nodes = 0;  // how many of `unit` the machine has
  // What `nodes` counts, the unit of the machine's size ("Titan node", "MI250X module"): ""
  // says nothing, and output calls it a node.
  std::string unit;
  // Platform devices (what one process drives, what an estimate runs on) in one counted
  // unit: a unit of work (a training run) runs on one device, so the machine runs
  // nodes x devices_per_unit / nodes_per_unit of them at once. 1 unless the study says
  // otherwise (an MI250X module is 2 devices where the platform is one GCD).
  double devices_per_unit = 1;
  bool devices_per_unit_given = false;
};

// A problem gives measured hours per unit of work on either side, or a workload whose
// time per unit (one training run) is estimated on that side's platform.
struct StudyProblem {
  std::string name;
  std::optional<std::string> workload;
  std::optional<double> baseline_hours;
  std::optional<double> target_hours;
  std::optional<int64_t> epochs;
  std::optional<int64_t> batch_size, samples_per_epoch;  // the epoch's size, where the workload lacks it
  std::optional<double> baseline_epoch_s;
  std::optional<double> baseline_pass_s;
  // Platform devices one unit of work occupies (counted nodes where devices_per_unit is 1;
  // ensembles run in parallel); a parallel layout's D x T x P unless given.
  double nodes_per_unit = 1;
  bool nodes_per_unit_given = false;
  std::string baseline_source;             // where the measured baseline time comes from (calibration)
  std::string note;                        // free text: why a problem is (not) calibrated, configuration
  std::optional<PrecisionMode> precision;  // the workload's precision on both sides; else as recorded
  // Many devices per unit of work (docs/parallel.md): "dp=8,tp=2,pp=2" as `estimate
  // --parallel` takes it (checked by the estimator), with its companions; batch_size is then
  // the micro-batch per device. Empty: one device per unit, as before.
  std::string parallel;
  std::optional<int64_t> micro_batches, gpus_per_node, global_batch, zero_stage;
  // The layout's --recompute, --recompute-attention (one or the other) and --sequence-parallel.
  bool recompute = false, recompute_attention = false, sequence_parallel = false;
};

struct Study {
  std::string name;
  std::string file;
  std::string description;
  StudySide baseline;
  StudySide target;
  std::vector<StudyProblem> problems;
};

// Throws InputError naming the file and the field at fault.
Study parse_study(std::string_view text, std::string_view file);
nlohmann::json study_to_json(const Study&);

}  // namespace fomcast
