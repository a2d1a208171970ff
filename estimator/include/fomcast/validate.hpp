// How good are the estimates? Three measurements, all on real data (docs/accuracy.md):
//   1. leave-one-out: every GEMM, conv and RNN entry of a platform's tables predicted from
//      the rest of that table (the `interpolated` method), and every conv and RNN entry
//      through the platform's GEMM table (`implicit-gemm`, `rnn-as-gemm`);
//   2. leave-one-platform-out: every training-table entry of a platform predicted from the
//      most alike other platform's table, scaled (`scaled-table`), next to every other
//      source and to plain peak and bandwidth ratios, to show the choice and the rule;
//   3. cross-hardware: one workload's measured pass time predicted from the same workload
//      recorded on another platform.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fomcast/estimate.hpp"

namespace fomcast {

struct ErrorStats {
  int64_t n = 0;
  double median = 0;  // of |predicted - measured| / measured
  double p68 = 0;     // what the estimator's bands are meant to match
  double p90 = 0;
  double mean_log_ratio = 0;  // mean log(predicted / measured): the bias
  // Band coverage: of the pairs that came with the estimator's band (relative, one standard
  // deviation), how many measured truths fall within +-1 band of the prediction
  // (|predicted - measured| <= band x predicted). About two thirds when the bands mean what
  // they say.
  int64_t banded = 0;
  int64_t within_band = 0;
};
ErrorStats error_stats(const std::vector<double>& predicted, const std::vector<double>& measured,
                       const std::vector<double>& bands = {});
bool within_band(double predicted, double measured, double band);

// One banded held-out row: its band and |predicted - measured| / (band x predicted), which is
// <= 1 when the truth is within +-1 band (band_refit, below).
struct BandRatio {
  double band = 0;
  double ratio = 0;
};

// One held-out row's log error, log(predicted / measured), under a key that names the same
// row on every platform (its group and shape): shared_op_error (below) joins them.
struct KeyedLogError {
  std::string key;
  double log_error = 0;
};

// 1. One group of one platform's tables: kind, precision, mode, direction.
struct LooGroup {
  std::string platform, kind, precision, mode, variant;
  Method method = Method::interpolated;  // interpolated (with the group's interpolator), implicit-gemm, rnn-as-gemm
  // Local-linear or nearest, chosen by leave-one-out; "" for implicit-gemm and rnn-as-gemm,
  // which go through the group's precision's GEMM table.
  std::string interpolator;
  ErrorStats stats;
  int64_t exact_other_transposes = 0;     // entries answered by the same M,N,K with other transposes
  std::vector<KeyedLogError> log_errors;  // the interpolated rows, for shared_op_error
  std::vector<BandRatio> band_ratios;     // the banded rows, for band_refit
};
struct LooPlatform {
  std::string platform;
  ErrorStats gemm_and_conv;  // every GEMM and conv entry of every precision and mode
  ErrorStats gemm, conv, rnn;
};
struct LooReport {
  std::vector<LooGroup> groups;
  std::vector<LooPlatform> platforms;
};
LooReport validate_leave_one_out(const Catalog&, const std::vector<std::string>& platforms = {});

// 2. One platform's training tables predicted from another's.
struct PlatformTransfer {
  std::string target, precision;
  std::string chosen;                         // the proxy the estimator picks (most alike)
  ErrorStats chosen_stats;                    // roofline-ratio scaling, the estimator's rule
  ErrorStats chosen_peak_ratio;               // the same source scaled by the peak ratio alone
  ErrorStats chosen_bw_ratio;                 // ... and by the bandwidth ratio alone
  std::vector<BandRatio> chosen_band_ratios;  // the chosen proxy's banded rows, for band_refit
  std::string best;                           // the source that would have done best
  ErrorStats best_stats;
  double median_over_sources = 0;  // median of the per-source medians
  int64_t sources = 0;
};
std::vector<PlatformTransfer> validate_platform_transfer(const Catalog&,
                                                         const std::vector<std::string>& platforms = {});

// 2b. Issue 13: each GPU with NeuSight tables predicted from the other NeuSight GPUs'
// tables plus its own spec (the target's table and those of the same chip, the other
// A100 PCIe card, removed), per op kind, through predict_op: what `estimate` does on a GPU
// with no table. Next to it, in the same run, the naive rules: the most alike source's
// time for the same shape x the fp32 peak ratio, and x the bandwidth ratio. Held-out rows
// are every k-th of the kind's entries, k = ceil(n / kLeavePlatformOutRows), in table order.
constexpr int64_t kLeavePlatformOutRows = 150;
struct LeavePlatformOut {
  std::string held_out, kind;
  int64_t n = 0;
  double median_abs_error = 0;  // fomcast's transfer
  ErrorStats stats;
  std::string source;                      // the most alike source, which the naive rules carry from
  ErrorStats peak_ratio, bandwidth_ratio;  // the naive rules on the same rows
  // Memory kinds: the sources' normalised curves alone on the same rows (n = 0 for other
  // kinds); the estimator tries them first and falls back to the same-shape transfer.
  ErrorStats curve_rule;
  int64_t capped = 0;                     // rows the roofline raised
  std::vector<KeyedLogError> log_errors;  // per held-out row, for shared_op_error
  double target_abs_error = 0;            // issue 13's goal for the kind (leave_platform_out_target)
};
std::vector<LeavePlatformOut> validate_leave_platform_out(const Catalog&);
// The median |error| issue 13 sets as the goal of a held-out GPU's rows of a kind: 15% for
// convs, 10% for GEMMs, batched GEMMs, elementwise, normalization and softmax.
double leave_platform_out_target(OpKind);
bool meets_target(const LeavePlatformOut&);
// How many rows meet their target, and the median of the rows' medians.
struct LeavePlatformOutSummary {
  std::size_t rows = 0, met = 0;
  double median_abs_error = 0;
};
LeavePlatformOutSummary summarize(const std::vector<LeavePlatformOut>&);

// 3. Workload `from` (recorded on one platform) estimated on the platform `to` was
// recorded on, against `to`'s measured pass time.
struct CrossHardware {
  std::string from_workload, from_platform, to_workload, to_platform;
  double measured_pass_s = 0, predicted_pass_s = 0, error = 0;  // error: (predicted - measured) / measured
  // The prediction under the residual rule's bounds (the gap carried unscaled; scaled with
  // the ops): the band includes them.
  double pass_low_s = 0, pass_high_s = 0;
  double measured_ops_s = 0, predicted_ops_s = 0;
  double uncertainty = 0;
  double table_coverage = 0;
  // Without calibration the projection is the modelled operations alone (predicted_ops_s):
  // no measured time anywhere. With it (predicted_pass_s) the source trace's step time is
  // split there and its residual carried: x host-speed ratio when both specs have one.
  double uncalibrated_error = 0;  // (predicted_ops_s - measured) / measured
  double residual_share = 0;      // of the predicted pass
  bool host_scaled = false;
  std::string carry_detail;
  // The factor the residual would have needed to be carried by for a zero error
  // ((measured - predicted ops) / residual on the source); NaN with no residual.
  double implied_carry = 0;
};
CrossHardware validate_cross_hardware(const Workload& from, const Workload& to, const Catalog&);

// How often the truth falls within +-1 band, per held-out check and over all of them.
struct BandCoverage {
  std::string check;  // leave_one_out, leave_one_platform_out, cross_hardware, all
  int64_t n = 0;
  int64_t within = 0;
  double share = 0;  // within / n; 0 when n is 0
};
// How much of the op model's error one platform shares with another (issue 14: the part of a
// calibrated baseline's op-model error that carries to the target). Over every pair of
// platforms that both have a held-out prediction of the same row (the same group and shape),
// made independently (neither platform's measurement among the other's sources), the
// symmetric through-origin slope of one's log error on the other's:
//   rho = sum 2 e_a e_b / sum (e_a^2 + e_b^2),
// the least-squares slope of e_b on e_a and of e_a on e_b when the two spread alike; it lies
// in [-1, 1] and is 1 only when the errors are identical. Calibration carries the kernel part k
// of a baseline's log error as exp(rho k) (docs/calibration.md).
// Two checks: leave_one_out (every platform's tables, each row from the rest of its own
// table) and leave_pair_out (the NeuSight GPUs: each row predicted as leave_platform_out
// does, with the other platform of the pair also left out of the sources); "all" pools them.
struct SharedOpError {
  std::string check;  // leave_one_out, leave_pair_out, all
  int64_t rows = 0;   // (row, platform pair) terms
  int64_t platform_pairs = 0;
  double rho = 0;          // the slope above; 0 when rows is 0
  double correlation = 0;  // the centred correlation of the same terms, for comparison
};
std::vector<SharedOpError> shared_op_error(const Catalog&, const LooReport&);

// What a refit of the band rule to two thirds would be: per held-out check (and per band
// value of the scaled-table check, one per kinship), the factor the bands would need for
// 68.3% of the truths to fall within +-1 band, the 68.3th percentile of
// |predicted - measured| / (band x predicted). Measured, not applied (docs/accuracy.md).
struct BandRefit {
  std::string check;  // leave_one_out, leave_one_platform_out, all
  double band = -1;   // the band value of these rows; -1: the check's rows of every band
  int64_t n = 0;
  double coverage = 0;      // share within +-1 band as the bands are
  double scale_for_68 = 0;  // x the bands for 68.3%
  // Out of sample: the share within +-1 band when each row's band is scaled by a factor
  // fitted on rows it is not among. leave_one_out rows take the leave_one_platform_out
  // factor and the other way round ("all": both); each band value's rows take that band's
  // factor fitted on the rows of every other pair of platforms (target and source, both
  // ways, held out together); -1 where only one pair has rows of that band.
  double held_out_coverage = 0;
  double held_out_scale = 0;  // the factor so applied; 0 where it differs by held-out pair
};
std::vector<BandRefit> band_refit(const LooReport&, const std::vector<PlatformTransfer>&);

std::vector<BandCoverage> band_coverage(const LooReport&, const std::vector<PlatformTransfer>&,
                                        const std::vector<CrossHardware>&);

}  // namespace fomcast
