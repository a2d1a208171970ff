// CANDLE steps 6-11: every operation of a workload predicted on a platform, then rolled up
// per pass, epoch and run into units of work per day.
//
// Each operation's time comes from the first method that applies, in this order, and says
// which it was (Method) and how sure it is (a relative uncertainty):
//   measured       the platform is the one the workload was recorded on
//   table          the exact shape is in the platform's kernel table
//   interpolated   from the platform's nearby measured shapes (band from leave-one-out)
//   implicit-gemm  a convolution (or rnn-as-gemm: a recurrent layer) through the GEMM table
//   scaled-table   another, similar platform's table (or the workload's own measurement on
//                  its recording platform) scaled by the roofline ratio of the two platforms
//   bandwidth      memory-bound ops: bytes / bandwidth, or the baseline time x bandwidth ratio
//   network        collectives: alpha-beta model, or the baseline time x network ratio
//   roofline       max(flops / peak, bytes / bandwidth) with the platform's efficiencies
//   scaled         the baseline time x the workload's overall predicted/baseline ratio
// Calibration (CANDLE step 1, docs/calibration.md): a measured time of the workload on some
// platform (the trace's own step time, `fomcast calibrate`, a study's baseline time) is split
// into what the modelled operations explain there and a residual (host, framework, input
// pipeline). On the target the residual is its own line, carried over and scaled by the
// platforms' host speeds (and overhead factors) where both are known.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fomcast/model.hpp"
#include "fomcast/store.hpp"

namespace fomcast {

enum class Method {
  measured,
  table,
  interpolated,
  implicit_gemm,
  rnn_as_gemm,
  scaled_table,
  bandwidth,
  network,
  roofline,
  scaled,
  unestimated,
};
std::string_view to_string(Method);
// measured, table, interpolated, implicit-gemm, rnn-as-gemm: from the platform's own
// measurements; everything else is a fallback (the coverage line counts these apart).
bool is_table_backed(Method);

// One operation predicted on the target platform. Times are for one call.
struct OpEstimate {
  std::size_t op_index = 0;  // into Workload::ops
  Method method = Method::unestimated;
  std::string detail;           // which table, neighbours, scaling, substitution
  std::string source_platform;  // whose table or measurement the number came from
  double predicted_s = 0;
  double uncertainty = 0;            // relative, about one standard deviation
  std::optional<double> baseline_s;  // as measured on the recording platform
  std::vector<std::string> notes;    // precision substituted, transposes differ, ...
  // Of predicted_s, the per-call launch gap it holds (host and driver time of a call in
  // per-call tables; 0 for measured, bandwidth and roofline times): what-if leaves it to the
  // host, PassEstimate::launch_gap_s sums it.
  double launch_gap_s = 0;
  // Of predicted_s, a measured kernel's fixed latency carried unscaled (the fastest call the
  // trace measured on its GPU: fallback_models.cpp): neither a faster chip nor a faster host
  // moves it, in an estimate on another platform or in what-if.
  double fixed_latency_s = 0;
  // Of predicted_s, a measured collective's wait for the other ranks: its measured time beyond
  // what the collective model moves on the recording platform, carried as measured (the
  // ranks' skew, their host's and their compute's, which no network model times).
  double wait_s = 0;
  // The method's time was below the op's roofline on the target (flops at the peak of its
  // math precision, bytes at memory bandwidth) and was raised to it: `method` still says
  // where the number came from, this says it was bounded (docs/estimation.md).
  bool roofline_capped = false;
  // The target's spec states no rate for the op's type, and this type's stood in (fp32 for a
  // bf16 op on a V100); unknown when the op's own rate applied. The op's notes say it in words.
  DType rate_stood_in = DType::unknown;
};

struct MethodShare {
  double baseline_s = 0;   // per pass, ops with a measured baseline time
  double predicted_s = 0;  // per pass
  int64_t ops = 0;
};

// A measured time of one pass of a workload on a platform: what calibration starts from.
struct MeasuredPass {
  std::string platform;  // "" when the trace did not say where it ran
  double pass_s = 0;
  std::string source;              // the trace's step time, `fomcast calibrate`, a study field
  bool profiled = false;           // the trace's own step: timed under the profiler
  std::vector<std::string> notes;  // how it was converted to one pass
  // The arithmetic the measured run used: the workload's own, or a study problem's
  // `precision`, which its measured baseline time ran in (study-format.md).
  PrecisionMode precision = PrecisionMode::recorded;
};

// How the pass was calibrated. The measurement on `measured.platform` is split into the
// modelled operations there and the residual; the residual is carried to the target x `carry`.
struct CalibrationLine {
  bool calibrated = false;
  MeasuredPass measured;
  double modelled_there_s = 0;  // the workload's modelled ops on the measured platform
  // The gap (measured - modelled there, either sign) split by evidence (docs/calibration.md):
  // residual_there_s is the host and framework part, time outside the ops (a trace's step
  // minus its measured op times, else the framework's dispatch cost x op calls), carried by
  // the host rule; the rest is the op model's error there, and moves with the ops.
  double residual_there_s = 0;     // never negative
  double model_error_there_s = 0;  // measured - modelled there - residual there
  std::string split_basis;         // how residual_there_s was found, in words
  // (measured - residual there) / modelled there: the modelled ops on every target are
  // scaled by it, above 1 when the baseline ran slower than modelled, below when faster.
  double ops_scale = 1;
  // What the target's modelled ops are multiplied by: ops_scale on the measured platform
  // itself (the pass is the measurement), elsewhere the part of the op model's error there
  // that recurs on another platform: the workload part whole, and of the kernel part the
  // share `validate`'s shared_op_error measures (kSharedOpErrorShare of its log;
  // docs/calibration.md). The rest widens the band.
  double ops_carry = 1;
  // log ops_scale split by what the kernel tables' measured error can explain
  // (docs/calibration.md): the kernel part is at most log(1 + ops_band_there) either way,
  // ops_band_there being the modelled ops' relative band on the measured platform; the
  // workload part (error outside the tables: op kinds not modelled, framework inefficiency)
  // is the rest. Elsewhere ops_carry = exp(workload + kSharedOpErrorShare x kernel).
  double ops_band_there = 0;
  double kernel_log_error = 0;
  double workload_log_error = 0;
  double carry = 1;              // host_speed(there) / host_speed(target) x overhead_factor(target) / (there)
  bool host_scaled = false;      // both platforms have a host speed
  bool overhead_scaled = false;  // both platforms have an overhead factor
  std::string carry_detail;      // how the residual was carried, in words
};

// One pass (training step) on the target.
struct PassEstimate {
  std::string workload, platform;
  std::string baseline_platform;  // where the workload's times were measured ("" if none)
  std::vector<OpEstimate> ops;    // same order as Workload::ops
  double ops_s = 0;               // sum of count x predicted
  double pass_s = 0;              // modelled_s + residual_s
  double uncertainty = 0;         // relative, of pass_s
  std::map<Method, MethodShare> by_method;
  // Share of the baseline time (or, with no baseline times, of the predicted time) that
  // table-backed methods predicted.
  double table_coverage = 0;
  bool coverage_of_baseline = false;
  std::vector<std::string> notes;
  // The split every estimate reports: modelled operations (ops_s x ops_scale) and the carried
  // residual (host, framework, input pipeline: the measured pass time minus the modelled ops
  // on the measured platform, calibration.residual_there_s, x calibration.carry). Its own
  // line, never hidden. host_bound when the residual is more than half of the pass: the
  // projection then says more about the host than about the device.
  CalibrationLine calibration;
  double modelled_s = 0;
  double residual_s = 0;
  double residual_share = 0;
  bool host_bound = false;
  double ops_sigma_s = 0;  // one standard deviation of ops_s, before scaling
  // Of modelled_s, the per-call launch gaps the op times hold (host and driver time of each
  // call in per-call tables, docs/calibration.md): what an eager, host-paced run pays per
  // kernel and a CUDA-graph or compiled one largely does not.
  double launch_gap_s = 0;
  // The pass under the residual rule's two bounds: the whole gap carried as host time
  // (unscaled by the ops), or the whole gap scaled with the ops. Equal to pass_s when not
  // calibrated or measured on this platform; the band (uncertainty) includes both.
  double pass_unscaled_s = 0;  // the whole gap carried like host time
  double pass_scaled_s = 0;    // the whole gap scaled with the ops
  double pass_low_s = 0;       // the least of the two and pass_s
  double pass_high_s = 0;      // the most
  // The precision the ops were estimated in (fomcast/precision.hpp) and the workload's as
  // recorded. When the mode re-typed ops, the modelled ops at the recorded precision on the
  // target: what a measurement on the target itself is compared with by calibration.
  PrecisionMode precision = PrecisionMode::recorded;
  std::string recorded_precision;
  std::optional<double> ops_as_recorded_s;
  // Of the workload's own ops, how many the mode re-typed (autocast's added casts apart): 0
  // under a mode that changes nothing here (ops without shapes, or already in its types).
  std::size_t retyped_ops = 0;
};

// The ops of a pass that the target's spec states no rate for, timed at another type's rate
// (bf16 on a V100): what the estimate and the FOM say once, where each op's notes say it.
struct StoodInRate {
  std::size_t ops = 0;
  double pass_s = 0;             // their count x predicted time
  DType asked = DType::unknown;  // the type they compute in (unknown read as fp32)
  DType with = DType::unknown;   // the type whose rate stood in
};
StoodInRate stood_in_rate(const PassEstimate&, const Workload&);

// The start of the detail of a `scaled` op carried at its measured time for want of a figure
// to scale it by (a target with no host speed): the estimate's methods line counts them.
inline constexpr const char* kCarriedUnscaledDetail = "measured time carried unscaled";

// The start of the pass note said when a cProfile was recorded on a GPU ("a Python function
// profile of a run on NV_V100 times the host's ..."): estimate repeats it as a warning.
inline constexpr const char* kHostTimedNote = "a Python function profile of a run on ";
// The pass note of a CPU-only trace (no device activity) estimated on a GPU; `estimate`
// repeats it as a warning.
inline constexpr const char* kCpuOnlyProjectedNote = "projected from a CPU-only trace to a GPU: ";

// A residual share above this makes a projection host-bound.
constexpr double kHostBoundShare = 0.5;

// The share of a calibrated baseline's op-model log error that is carried to another
// platform: a calibration on P scales the target's modelled ops by exp(workload part + this x
// kernel part) of log ops_scale (CalibrationLine). Not
// chosen: it is the slope of one platform's held-out log error on another's for the same
// rows, over every pair of platforms and both held-out checks, as `fomcast validate`
// prints it (shared_op_error, "all"; docs/calibration.md gives the measurement), rounded to
// two places. A test holds it to the measurement.
constexpr double kSharedOpErrorShare = 0.36;

// What a calibration multiplies the modelled ops of a platform other than the measured one
// by: exp(workload_log_error + kSharedOpErrorShare x kernel_log_error) (docs/calibration.md).
double ops_carry_elsewhere(const CalibrationLine&);

struct RunOptions {
  std::optional<int64_t> epochs;  // else the workload's, else 1 (noted)
  double nodes = 1;
  double nodes_per_unit = 1;
  // Measured times to calibrate with (calibrate.hpp turns stored ones into these); the
  // workload's own measured pass time is always used as well.
  std::vector<MeasuredPass> measured;
  PrecisionMode precision = PrecisionMode::recorded;  // --precision: the default changes nothing
};

struct RunEstimate {
  PassEstimate pass;
  int64_t passes_per_epoch = 0;
  double epoch_s = 0;
  int64_t epochs = 0;
  double run_s = 0;
  double nodes = 1;
  double units_per_day = 0;
  // Devices one run occupies: 1, or a parallel layout's D x T x P (run_parallel sets it);
  // `nodes` then counts whole runs side by side, not devices.
  int64_t devices_per_run = 1;
  // Samples one pass (under a layout, one step of the global batch) trains; 0 when the
  // workload records no batch.
  int64_t samples_per_pass = 0;
  // False when the workload gives no samples per epoch and batch: an epoch is then the
  // passes it holds (an assumption says so), a unit of work of a few milliseconds.
  bool epoch_size_known = true;
  std::vector<std::string> assumptions;  // what was not known and how it was filled in
};

// Platforms and their kernel tables, loaded once and indexed on first use.
struct PlatformTablesCache;
struct Catalog {
  std::map<std::string, Platform> platforms;
  std::map<std::string, KernelTable> tables;   // only platforms with entries
  std::shared_ptr<PlatformTablesCache> cache;  // the indices built from `tables`
  const Platform* platform(std::string_view name) const;
};
Catalog load_catalog(const Store&);
Catalog make_catalog(std::vector<Platform>, std::vector<KernelTable>);

// Throws InputError (field "platform") when the platform is unknown. Calibrated by the
// workload's own measured pass time and by `measured`: the target's own measurement first,
// then the recording platform's, then the most alike platform's.
PassEstimate estimate_pass(const Workload&, std::string_view platform, const Catalog&);
PassEstimate estimate_pass(const Workload&, std::string_view platform, const Catalog&,
                           const std::vector<MeasuredPass>& measured);
// In a precision mode: the ops re-typed by apply_precision (fomcast/precision.hpp) are
// predicted in it; calibration compares measured times with the ops at the precision they
// were measured in, so the residual it carries does not grow by what the mode saves.
PassEstimate estimate_pass(const Workload&, std::string_view platform, const Catalog&,
                           const std::vector<MeasuredPass>& measured, PrecisionMode);
RunEstimate estimate_run(const Workload&, std::string_view platform, const Catalog&, const RunOptions& = {});
// The roll-up alone, from a pass time: exposed for tests and for calibration.
RunEstimate roll_up(const Workload&, PassEstimate pass, const RunOptions&);
// The roll-up's rules for passes per epoch (samples / batch, else the trace's passes, else
// 1) and epochs per run (given, else the workload's, else 1); what was assumed is appended.
int64_t passes_per_epoch(const Workload&, std::vector<std::string>* assumptions = nullptr);

// Expands a model workload's layer list again at another batch (fomcast/layers.hpp's
// expand_model_at_batch; the estimator does not read model files itself).
using ModelExpander = std::function<Workload(const Workload&, int64_t batch)>;

// The workload with its batch size and samples per epoch set where the caller gives them
// (a trace knows neither), with a note saying so. A model's operations depend on its batch:
// another batch re-expands it through `expand`, or is a UsageError without one. Throws
// UsageError when samples per epoch would be known without a batch size to divide by.
Workload with_epoch_size(Workload, std::optional<int64_t> batch_size, std::optional<int64_t> samples_per_epoch,
                         const ModelExpander& expand = {});
int64_t epochs_per_run(const Workload&, std::optional<int64_t> given, std::vector<std::string>* assumptions = nullptr);

}  // namespace fomcast
