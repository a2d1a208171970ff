// The two halves of a pass estimate: the modelled operations (rollup.cpp) and the residual
// line that calibration adds (calibration.cpp). Private to estimator/.
#pragma once

#include <string_view>
#include <vector>

#include "fomcast/estimate.hpp"

namespace fomcast::est {

// Every operation predicted on `platform` and summed (pass_s = ops_s): no residual yet.
PassEstimate model_pass(const Workload&, std::string_view platform, const Catalog&);

// Splits the chosen measurement into modelled and residual on its platform and carries the
// residual to the pass's platform; fills the pass's calibration, residual and uncertainty.
void calibrate_pass(PassEstimate&, const Workload& recorded, const Workload& applied, const Catalog&,
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
