// From workloads and platforms to times, rates and the figure of merit.
//
// The roll-up is the CANDLE method: per-op prediction -> pass -> epoch (passes per epoch)
// -> run (epochs) -> units/day (86400 / run seconds x nodes) -> ratio per problem -> FOM,
// the harmonic mean of the target's rates over the baseline's.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/estimate.hpp"
#include "fomcast/model.hpp"
#include "fomcast/parallel.hpp"
#include "fomcast/store.hpp"

namespace fomcast {

// ---------------------------------------------------------------------------------------
// Rates and means

// Units of work a machine completes per day: 86400 / seconds per unit x the number of
// units it runs at once (nodes / nodes per unit).
double units_per_day(double seconds_per_unit, double nodes, double nodes_per_unit = 1);
double harmonic_mean(const std::vector<double>& values);
double arithmetic_mean(const std::vector<double>& values);

// ---------------------------------------------------------------------------------------
// The figure of merit

// How one side of one problem got its time per unit of work.
enum class SideMethod {
  measured,    // hours given, or the pass measured on this platform
  calibrated,  // modelled operations plus a residual carried from a measurement elsewhere
  estimated,   // modelled operations alone, no measured time anywhere
};
std::string_view to_string(SideMethod);

struct SideRate {
  std::string platform;
  double nodes = 0;
  std::string unit;             // what `nodes` counts (the study's side.unit); "" = node
  double devices_per_unit = 1;  // platform devices in one counted node; one run per device
  double nodes_per_unit = 1;    // counted nodes one unit of work occupies (the problem's nodes_per_unit)
  double seconds_per_unit = 0;
  double units_per_day = 0;
  SideMethod method = SideMethod::measured;
  double uncertainty = 0;     // relative, of seconds_per_unit (0 for measured)
  double residual_share = 0;  // of seconds_per_unit: the measured or carried residual
  bool host_bound = false;    // residual_share > 50%
  std::string calibration;    // where the measured time came from; "" when none
  // Units/day under the residual rule's two bounds (estimate.hpp's pass_unscaled_s and
  // pass_scaled_s): equal to units_per_day where the side was not calibrated elsewhere.
  double units_per_day_unscaled = 0;
  double units_per_day_scaled = 0;
};

// The estimates behind a workload problem, kept so that reports can show their breakdown
// (per-op methods, overhead line, coverage) without estimating a second time.
struct ProblemEstimates {
  Workload workload;
  RunEstimate baseline;  // on the baseline platform, as estimated (before calibration)
  RunEstimate target;    // on the target platform, as estimated (before calibration)
  // Under a parallel layout, each side's step as the layout splits it (the busiest device's
  // compute, exposed communication, pipeline bubble): the passes' operations are one
  // micro-batch on one device, before tensor and pipeline parallelism divide it.
  std::optional<ParallelEstimate> baseline_layout, target_layout;
};

struct ProblemResult {
  std::string name;
  SideRate baseline;
  SideRate target;
  double ratio = 0;  // target units/day / baseline units/day
  // The ratio under the residual rule's two bounds: every calibrated side's gap carried
  // unscaled, or scaled with the ops; low and high are the smaller and larger.
  double ratio_unscaled = 0, ratio_scaled = 0, ratio_low = 0, ratio_high = 0;
  // Calibrated: a measured time of the workload (study field, stored calibration or its
  // own trace) splits modelled and residual; `calibration` says from what, or why not.
  bool calibrated = false;
  std::string calibration;
  bool epoch_size_known = true;  // the baseline's run: false when an epoch is the trace's passes
  std::vector<std::string> notes;
  std::shared_ptr<const ProblemEstimates> estimates;  // null when both sides were given in hours
};

struct FomResult {
  std::string study;
  double fom = 0;  // HM(target units/day) / HM(baseline units/day)
  // The FOM with every calibrated problem under one bound of the residual rule: the gap
  // carried unscaled, or scaled with the ops (docs/calibration.md); low and high order them.
  double fom_unscaled = 0, fom_scaled = 0, fom_low = 0, fom_high = 0;
  double baseline_hm_units_per_day = 0;
  double target_hm_units_per_day = 0;
  // Shown for comparison only; neither is the FOM.
  double ratio_arithmetic_mean = 0;
  double ratio_harmonic_mean = 0;
  std::vector<ProblemResult> problems;
  // What the study's node counts mean where a platform spec says more (devices per node).
  std::vector<std::string> notes;
};

// Whether two bounds (a problem's ratio_low/high, the FOM's fom_low/high) differ by more
// than rounding: an uncalibrated problem's bounds are its ratio. The one test the text, JSON
// and HTML outputs share, so that they never disagree on whether a problem has bounds.
bool bounds_differ(double low, double high);

// Fills ratios and the means from problems whose SideRates are complete.
FomResult fom_from_problems(std::string study, std::vector<ProblemResult> problems);

// Relative uncertainties (about one standard deviation) carried from each side's
// per-problem uncertainty to the harmonic means and the FOM, to first order, with errors
// taken as independent. All 0 when every side was measured.
struct FomUncertainty {
  double baseline_hm = 0;
  double target_hm = 0;
  double fom = 0;
};
FomUncertainty fom_uncertainty(const FomResult&);

// What a study's workload problems are estimated from. Kept apart from the Store so that
// tests and what-if studies can supply their own, and so calibration can plug in here.
struct StudyInputs {
  const Catalog* catalog = nullptr;
  std::function<std::optional<Workload>(std::string_view name)> workload;
  // Every stored workload's name, for "did you mean" on an unknown one; may be empty.
  std::function<std::vector<std::string>()> workload_names;
  // Stored measured times of a workload (`fomcast calibrate`); may be empty.
  std::function<std::vector<Calibration>(std::string_view workload)> calibrations;
  // Expands a model problem again at the problem's batch_size; without it such a problem is
  // an error (estimate.hpp's with_epoch_size).
  ModelExpander expand_model;
  // A model's layer list, for problems with a parallel layout (parallel.hpp).
  LayerReader layers;
};

// Evaluates a study: measured hours are used as given; a workload problem is estimated on
// each side's platform (one run = the workload's epochs, or the problem's `epochs`),
// calibrated by a measured time where there is one: the problem's baseline_hours,
// baseline_epoch_s or baseline_pass_s (measured on the baseline), a stored calibration, or
// the workload's own trace. The measured side is the measurement; the other side is its
// modelled operations plus the residual carried by the host-speed ratio (estimate.hpp).
// Problems may mix calibrated and not. Throws InputError naming the study file and field.
FomResult evaluate_study(const Study&, const StudyInputs&);
// The same against the store (its platforms, tables and workloads).
FomResult evaluate_study(const Study&, const Store&, const ModelExpander& expand_model = {},
                         const LayerReader& layers = {});

// Fingerprints of what evaluate_study(study, store) computes from, as JSON text: every
// platform's spec and kernel table (a platform without a table is estimated from the
// others'), each problem's workload and its stored calibrations; "{}" for a study of
// measured hours alone. `fom --record` keeps it with the FOM.
std::string fom_inputs_json(const Study&, const Store&);
// "platform specs changed: H100; workloads changed: P1B1" where two records' fingerprints
// differ; "" where they agree, or where either holds none (a record made before they were
// kept).
std::string fom_inputs_changed(std::string_view before_json, std::string_view now_json);
// What differs between two records of one study, a sentence each: its machines (platforms,
// node counts), its problems, the inputs of fom_inputs_changed. Empty where nothing does.
// `check` warns of them; `history` and the report's history say them beside each record.
std::vector<std::string> fom_record_changes(const FomRecord& before, const FomRecord& now);

// A problem's parallel layout as the study gives it (`parallel` and its companions); a bad
// layout is an InputError naming `path`.parallel. The one reading `fom` and `report` share.
ParallelRequest study_parallel_request(const Study&, const StudyProblem&, const std::string& path);

}  // namespace fomcast
