// The two halves of a pass estimate: the modelled operations (rollup.cpp) and the residual
// line that calibration adds (calibration.cpp). Private to estimator/.
#pragma once

#include <string_view>
#include <vector>

#include "fomcast/estimate.hpp"
#include "fomcast/precision.hpp"

namespace fomcast::est {

// Every operation predicted on `platform` and summed (pass_s = ops_s): no residual yet.
PassEstimate model_pass(const Workload&, std::string_view platform, const Catalog&);
// The sums of pe's ops (ops_s, by_method, launch gaps, coverage, band) over again, after
// some op's time changed.
void sum_pass(PassEstimate&, const Workload&);
// A re-typed op that was measured in its recorded type keeps what its measurement says:
// its time as recorded on pe's platform (the measurement there, or carried to it) times the
// model's ratio of the new type to the recorded one there, never below its roofline in the
// new type. Predicted afresh, ResNet-50's measured fp32 V100 trace had come out slower in
// amp-fp16 than in fp32 on H100 (memory-bound ops read far outside the per-call tables,
// each with a launch gap the trace's residual already holds).
void carry_measured_into_mode(PassEstimate&, const Workload& recorded, const PrecisionApplied&,
                              const PassEstimate& as_recorded, const Catalog&);
// The modelled operations of `recorded` in the precision `applied` gives, on `platform`:
// model_pass of the re-typed workload with the measured ops carried into the mode
// (carry_measured_into_mode) and ops_as_recorded_s set where ops were re-typed. No residual.
PassEstimate mode_pass(const Workload& recorded, const PrecisionApplied& applied, std::string_view platform,
                       const Catalog&);

// Splits the chosen measurement into modelled and residual on its platform and carries the
// residual to the pass's platform; fills the pass's calibration, residual and uncertainty.
void calibrate_pass(PassEstimate&, const Workload& recorded, const PrecisionApplied& applied, const Catalog&,
                    const std::vector<MeasuredPass>& given);

// The factor a residual measured on `there` is carried to `target` by, and how (in words):
// host_speed(there) / host_speed(target) x overhead_factor(target) / overhead_factor(there),
// each part only when both platforms give it. Host speeds are compared only on one scale:
// the shipped figures are PassMark single-thread ratings over the Intel Xeon E5-2698 v4's
// (their source starts with kPassmarkHostScale), `fomcast bench` and a user's spec use the
// bench's own (its reference host = 1); a pair across the two is not scaled, and says so.
inline constexpr std::string_view kPassmarkHostScale = "PassMark CPU Mark single-thread rating";
// Whether two host_speed figures are on one scale (both PassMark's, or neither) and so divide.
bool host_speeds_comparable(const Sourced& a, const Sourced& b);
CalibrationLine carry_factor(const Platform* there, const Platform& target);

// The op model's log error on the measured platform (log ops_scale) split in two: the
// kernel part, at most what the modelled ops' own band there allows (|kernel| <=
// log(1 + band), band relative, one standard deviation), and the workload part, the rest.
struct KernelSplit {
  double kernel = 0;
  double workload = 0;
};
KernelSplit split_op_error(double log_error, double band);

}  // namespace fomcast::est
