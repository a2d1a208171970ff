// CANDLE step 1: a projection starts from a measured run on some platform. A measured
// time (of a pass, an epoch or a whole run) becomes the time of one pass with the roll-up's
// own rules, and estimate.hpp splits it into modelled operations and a carried residual.
// docs/calibration.md explains the method.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fomcast/estimate.hpp"
#include "fomcast/store.hpp"

namespace fomcast {

// One measured time of a workload on a platform, as `fomcast calibrate` takes it: exactly
// one of pass_s, epoch_s, run_s, each positive and finite. Throws UsageError naming the
// flag (--pass-s, --epoch-s, --run-hours) when it is not, or when the workload lacks what
// the conversion to one pass needs (samples and batch for an epoch, epochs for a run).
// The checks that need no workload (run before the database is opened).
void check_measured_time(std::optional<double> pass_s, std::optional<double> epoch_s, std::optional<double> run_s);
Calibration make_calibration(const Workload&, const std::string& platform, std::optional<double> pass_s,
                             std::optional<double> epoch_s, std::optional<double> run_s, std::string note = {});

// The calibration as one pass of the workload: epoch / passes per epoch, run / (epochs x
// passes per epoch). `epochs` overrides the workload's (a study problem's epochs).
MeasuredPass measured_pass(const Workload&, const Calibration&, std::optional<int64_t> epochs = std::nullopt);
// Calibrations measured at another batch than the workload's are left out, each with a
// sentence in `not_used` (when given) for the estimate's notes.
std::vector<MeasuredPass> measured_passes(const Workload&, const std::vector<Calibration>&,
                                          std::vector<std::string>* not_used = nullptr);

// Whether a calibration's negative gap is its trace's operations overlapping (concurrent
// streams or threads), not an op model's error: the modelled operations there are the trace's
// own measured times (no band, nothing for a model to be wrong by), and they sum to more than
// the pass. Carried whole like any workload part; named so ("op-model error 17.5 ms" had read
// as a model 2x too slow for a trace whose kernels ran on two streams).
inline bool ops_overlap(const CalibrationLine& c) {
  return c.calibrated && c.model_error_there_s < 0 && c.ops_band_there == 0;
}

// The least time the workload's operations can take on a platform: each op's flops at the
// platform's peak for its precision and its bytes at the memory bandwidth, at full
// efficiency (its roofline: a physical limit, not a prediction). A measured pass below it
// cannot be true. `complete` when every op has a cost, so that the floor is the whole
// operations' and a measurement very far above it is suspect too.
struct PassFloor {
  double seconds = 0;     // 0 when the platform has no figures or no op a cost
  int64_t ops = 0;        // ops that have a cost
  bool complete = false;  // every op does
};
PassFloor roofline_floor(const Workload&, const Platform&);

// A measurement this many times above the floor is refused without `force`.
constexpr double kImplausibleFactor = 1000;

// What `fomcast calibrate` shows: the measurement split on its own platform.
struct CalibrationResult {
  Calibration calibration;
  MeasuredPass measured;
  PassEstimate pass;  // the estimate on the measured platform: modelled + residual = measured
};
// Throws UsageError naming the flag and the floor when the measured pass is below
// roofline_floor on its platform, or (unless `force`) more than kImplausibleFactor above a
// complete one.
CalibrationResult split_calibration(const Workload&, const Calibration&, const Catalog&, bool force = false);

}  // namespace fomcast
