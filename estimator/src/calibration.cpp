// Calibration (CANDLE step 1): a projection starts from a measured run. The gap between
// the measurement and the modelled operations on its platform is split by evidence into
// host and framework time (a trace's time outside its measured ops, else the framework's
// dispatch cost x op calls) and the op model's error there; on the target the first is its
// own residual line, carried by the ratio of the platforms' host speeds (and overhead
// factors), and the second moves with the ops, as much of it as recurs on another platform
// for the same ops: what the kernel tables' own measured error cannot explain whole, the
// rest by its measured shared share (kSharedOpErrorShare of its log). Faster- and slower-than-modelled baselines
// go through the same rule. The pass under the rule's two bounds (the whole gap carried
// unscaled, or scaled with the ops) is kept beside it (docs/calibration.md).
#include <algorithm>
#include <cmath>
#include <limits>

#include "dispatch_overhead.hpp"
#include "fomcast/calibrate.hpp"
#include "fomcast/format.hpp"
#include "residual.hpp"
#include "similarity.hpp"

namespace fomcast::est {
namespace {

// Relative uncertainty of a residual carried with no factor to scale it by, and with one:
// the host benchmark or spec figure explains part of the change, not all of it.
constexpr double kUnscaledResidualBand = 0.3;
constexpr double kScaledResidualBand = 0.15;
// An estimate from a measurement on an unnamed machine: its own size, either way.
constexpr double kNotProjectedBand = 1.0;

// The measurement that calibrates an estimate on `target`: the target's own, then the
// recording platform's (where the workload's op times come from), then the most alike
// platform's. Measurements given explicitly come before the trace's own, so a stored
// calibration of the recording platform wins over the trace's step time.
const MeasuredPass* choose(const std::vector<MeasuredPass>& all, const Workload& w, const Platform& target,
                           const Catalog& catalog) {
  for (const auto& m : all)
    if (m.platform == target.name) return &m;
  for (const auto& m : all)
    if (m.platform == w.recorded_on) return &m;
  const MeasuredPass* best = nullptr;
  double best_d = std::numeric_limits<double>::infinity();
  for (const auto& m : all) {
    const Platform* p = catalog.platform(m.platform);
    // A platform with nothing to model the operations with cannot split its measurement.
    if (!p || (p->peak_flop_per_s.empty() && !p->mem_bw_bytes_per_s && !catalog.tables.count(p->name))) continue;
    const double d = platform_distance(*p, DType::fp32, target, DType::fp32);
    if (!best || d < best_d) best = &m, best_d = d;
  }
  return best;
}

std::string seconds(double s) { return format_duration(s); }

struct HostPart {
  double seconds = 0;
  std::string basis;
};

// The part of a measured pass outside the modelled operations (host, framework, input
// pipeline), found by the best evidence there is:
//  - the trace's own measurement on its recording platform, with per-op measured times:
//    everything outside the ops is host time (the ops' times are measured, not modelled);
//  - a trace that measured its step and op times elsewhere: that host time, carried to
//    the measured platform by the host rule;
//  - no such evidence (a model workload): the framework's dispatch cost per op call x the
//    op calls of a pass (dispatch_overhead.hpp).
// Never more than the measurement less the ops' roofline there (the ops cannot run faster
// than that), never negative. The same rule whether the baseline ran slower or faster than
// modelled: the rest of the gap, of either sign, is the op model's error there.
HostPart host_part(const Workload& w, const MeasuredPass& m, const Platform* there, double modelled_there,
                   const Catalog& catalog) {
  HostPart h;
  const double op_times = w.measured_op_time_s();
  const bool trace_evidence = w.pass_s && *w.pass_s > 0 && op_times > 0;
  if (trace_evidence && m.platform == w.recorded_on) {
    // The ops' times are measured here, so no roofline cap: the evidence is the measurement.
    h.seconds = std::max(0.0, m.pass_s - modelled_there);
    h.basis = "time outside the trace's measured operations";
    return h;
  }
  if (trace_evidence && !w.recorded_on.empty()) {
    const double outside = std::max(0.0, *w.pass_s - op_times);
    const Platform* rec = catalog.platform(w.recorded_on);
    const CalibrationLine f = there ? carry_factor(rec, *there) : CalibrationLine{};
    h.seconds = outside * f.carry;
    h.basis = "the trace's time outside its operations on " + w.recorded_on + ", " + format_duration(outside) +
              (f.carry != 1 ? " x " + format_significant(f.carry, 3) : std::string(", carried unscaled"));
  } else {
    double calls = 0;  // counts may be fractional (an op every other pass)
    for (const auto& op : w.ops) calls += std::max(op.count, 0.0);
    const Framework fw = framework_of(w);
    const DispatchCost d = dispatch_cost(fw);
    h.seconds = d.seconds_per_op_call * calls;
    h.basis = std::string(to_string(fw)) + " dispatch " + format_significant(d.seconds_per_op_call * 1e6, 3) +
              " us x " + format_significant(calls, 4) + " op calls per pass";
  }
  const double floor_there = there ? roofline_floor(w, *there).seconds : 0.0;
  const double most = std::max(0.0, m.pass_s - floor_there);
  if (h.seconds > most) {
    h.seconds = most;
    h.basis += "; capped at the measurement less the operations' roofline there";
  }
  h.seconds = std::max(0.0, h.seconds);
  return h;
}

}  // namespace

KernelSplit split_op_error(double log_error, double band) {
  KernelSplit s;
  const double reach = band > 0 && std::isfinite(band) ? std::log1p(band) : 0.0;
  s.kernel = std::clamp(log_error, -reach, reach);
  s.workload = log_error - s.kernel;
  return s;
}

bool host_speeds_comparable(const Sourced& a, const Sourced& b) {
  auto passmark = [](const Sourced& s) { return std::string_view(s.source).starts_with(kPassmarkHostScale); };
  return passmark(a) == passmark(b);
}

CalibrationLine carry_factor(const Platform* there, const Platform& target) {
  CalibrationLine c;
  std::vector<std::string> parts, missing;
  const std::string from = there ? there->name : std::string("the recording platform");
  // A PassMark-scaled figure over a bench-scaled one would carry the two scales' unknown
  // ratio (docs/calibration.md, "Host speed"): such a pair counts as no figure.
  const bool one_scale =
      there && there->host_speed && target.host_speed && host_speeds_comparable(*there->host_speed, *target.host_speed);
  std::string scale_note;
  if (there && there->host_speed && target.host_speed && !one_scale)
    scale_note = "host_speed figures of " + from + " and " + target.name +
                 " are on different scales (PassMark single-thread over the Xeon E5-2698 v4, and `fomcast bench`'s)";
  if (one_scale) {
    c.host_scaled = true;
    const double f = there->host_speed->value / target.host_speed->value;
    c.carry *= f;
    parts.push_back("x " + format_significant(f, 3) + " = host speed " +
                    format_significant(there->host_speed->value, 3) + " on " + from + " / " +
                    format_significant(target.host_speed->value, 3) + " on " + target.name);
  } else if (scale_note.empty()) {
    if (!there || !there->host_speed) missing.push_back(from);
    if (!target.host_speed) missing.push_back(target.name);
  }
  if (there && there->overhead_factor && target.overhead_factor) {
    c.overhead_scaled = true;
    const double f = target.overhead_factor->value / there->overhead_factor->value;
    c.carry *= f;
    parts.push_back("x " + format_significant(f, 3) + " = overhead factor " + target.name + " / " + from);
  }
  const std::string host_gap = !scale_note.empty() ? scale_note
                               : missing.empty()   ? std::string()
                                                   : "no host_speed figure for " + missing.front() +
                                                       (missing.size() > 1 ? " or " + missing.back() : std::string());
  if (parts.empty()) {
    c.carry_detail = "carried unscaled: " + host_gap +
                     (scale_note.empty() ? " (data/platforms/*.json, or `fomcast bench` measures one)" : std::string());
  } else {
    c.carry_detail = "carried from " + from;
    for (const auto& p : parts) c.carry_detail += " " + p;
    if (!c.host_scaled && !host_gap.empty()) c.carry_detail += "; " + host_gap;
  }
  return c;
}

void calibrate_pass(PassEstimate& pe, const Workload& recorded, const PrecisionApplied& applied, const Catalog& catalog,
                    const std::vector<MeasuredPass>& given) {
  const Workload& w = recorded;
  const Platform* target = catalog.platform(pe.platform);
  std::vector<MeasuredPass> all;
  for (const auto& m : given) {
    if (!(m.pass_s > 0) || !std::isfinite(m.pass_s)) continue;
    if (!m.platform.empty() && !catalog.platform(m.platform) && m.platform != w.recorded_on) {
      pe.notes.push_back("a measured time on '" + m.platform + "', which is not a known platform, was not used");
      continue;
    }
    all.push_back(m);
  }
  if (w.pass_s && *w.pass_s > 0) {
    MeasuredPass own;
    own.platform = w.recorded_on;
    own.pass_s = *w.pass_s;
    own.source = "the trace's measured pass time (from " + std::to_string(std::max<int64_t>(w.passes, 1)) + " step(s))";
    own.profiled = true;
    all.push_back(std::move(own));
  }
  const MeasuredPass* m = target ? choose(all, w, *target, catalog) : nullptr;
  if (!m) {
    pe.calibration = CalibrationLine{};
    pe.modelled_s = pe.ops_s;
    pe.residual_s = 0;
    pe.pass_s = pe.ops_s;
    pe.residual_share = 0;
    pe.host_bound = false;
    pe.uncertainty = pe.pass_s > 0 ? pe.ops_sigma_s / pe.pass_s : 0;
    pe.pass_low_s = pe.pass_high_s = pe.pass_unscaled_s = pe.pass_scaled_s = pe.pass_s;
    pe.notes.push_back("not calibrated: no measured time of " + w.name +
                       " on any platform (`fomcast calibrate`, or a trace's step time), so the pass is the modelled "
                       "operations alone, without host, framework or input-pipeline time");
    return;
  }

  // A measurement taken in the estimate's precision (a study problem's measured baseline
  // time) is set against the model in that precision; any other, as the workload recorded
  // it. Read as recorded, a 30 h amp-fp16 run of gpt2-small was scaled by the model's
  // amp/fp32 ratio to 8.4 h and still called measured.
  const bool in_mode = m->precision != PrecisionMode::recorded && m->precision == pe.precision;
  const Workload& basis = in_mode ? applied.workload : recorded;
  // The modelled operations on the measured platform: this estimate's own when it is the
  // target, else the same model there (for the recording platform, its measured op times).
  CalibrationLine c;
  const Platform* there = m->platform.empty() ? nullptr : catalog.platform(m->platform);
  const bool on_target = m->platform == pe.platform;
  double modelled_there = 0;
  double band_there = 0;  // the modelled ops' own relative band there (one standard deviation)
  if (on_target) {
    modelled_there = in_mode ? pe.ops_s : pe.ops_as_recorded_s.value_or(pe.ops_s);  // as it was measured
    band_there = pe.ops_s > 0 ? pe.ops_sigma_s / pe.ops_s : 0;
  } else if (there) {
    // The mode's model there is the target's: measured ops carried into the mode alike.
    const PassEstimate model_there =
        in_mode ? mode_pass(recorded, applied, m->platform, catalog) : model_pass(recorded, m->platform, catalog);
    modelled_there = model_there.ops_s;
    band_there = model_there.ops_s > 0 ? model_there.ops_sigma_s / model_there.ops_s : 0;
  } else {
    modelled_there = w.measured_op_time_s();  // a trace that did not say where it ran
  }
  if (on_target) {
    c.carry_detail = "measured on " + pe.platform + " itself";
  } else {
    const CalibrationLine f = carry_factor(there, *target);
    c.carry = f.carry, c.host_scaled = f.host_scaled, c.overhead_scaled = f.overhead_scaled;
    c.carry_detail = f.carry_detail;
  }
  c.calibrated = true;
  c.measured = *m;
  c.modelled_there_s = modelled_there;
  const HostPart h = host_part(basis, *m, there, modelled_there, catalog);
  c.residual_there_s = h.seconds;
  c.split_basis = h.basis;
  c.model_error_there_s = m->pass_s - modelled_there - h.seconds;
  c.ops_scale = modelled_there > 0 ? (m->pass_s - h.seconds) / modelled_there : 1.0;
  // The op-model error there, split in two by what the kernel tables' own measured error can
  // explain: their band on P (validation's spread of held-out predictions, one standard
  // deviation) allows at most log(1 + band) of kernel error either way; the rest of the log
  // error is the workload's, outside the tables (op kinds the workload lacks, framework
  // inefficiency, layout transforms), and recurs on every platform. On the measured platform
  // the whole error is there; elsewhere the workload part is carried in full and only the
  // shared part of the kernel part (kSharedOpErrorShare of its log), and the rest of the
  // kernel part widens the band below.
  const double log_error = c.ops_scale > 0 ? std::log(c.ops_scale) : 0;
  const KernelSplit split = split_op_error(log_error, band_there);
  c.ops_band_there = band_there;
  c.kernel_log_error = split.kernel;
  c.workload_log_error = split.workload;
  // Of the kernel part, the share that recurs on the target: the measured share across
  // platforms, all of it on a spec of the same figures (a renamed copy, an MI210 for an MI250
  // GCD), whose op model is the same: at 0.36 a target identical to a calibrated baseline came
  // out 1.42x faster than it (NT3, a band of 74% capping the kernel part), and a FOM against
  // itself 1.368.
  const bool twin = there && same_figures(*there, *target);
  const double shared = twin ? 1.0 : kSharedOpErrorShare;
  c.ops_carry = on_target || twin || !(c.ops_scale > 0) ? c.ops_scale : ops_carry_elsewhere(c);

  pe.calibration = c;
  pe.modelled_s = pe.ops_s * c.ops_carry;
  pe.residual_s = c.residual_there_s * c.carry;
  pe.pass_s = pe.modelled_s + pe.residual_s;
  pe.residual_share = pe.pass_s > 0 ? pe.residual_s / pe.pass_s : 0;
  pe.host_bound = pe.residual_share > kHostBoundShare;

  if (on_target) {
    // The pass is the measurement, and the split says what the model explains of it; ops
    // re-typed by --precision are predictions, with their bands.
    pe.uncertainty = pe.ops_as_recorded_s && pe.pass_s > 0 ? pe.ops_sigma_s * c.ops_carry / pe.pass_s : 0;
    pe.pass_low_s = pe.pass_high_s = pe.pass_unscaled_s = pe.pass_scaled_s = pe.pass_s;
  } else {
    // The two bounds of the rule: the whole gap carried like host time, or moved with the ops.
    const double gap = m->pass_s - modelled_there;
    const double floor_target = roofline_floor(basis, *target).seconds;
    const double unscaled = std::max(pe.ops_s + gap * c.carry, floor_target);
    const double scaled = modelled_there > 0 ? pe.ops_s * m->pass_s / modelled_there : pe.pass_s;
    pe.pass_unscaled_s = unscaled;
    pe.pass_scaled_s = scaled;
    pe.pass_low_s = std::min({unscaled, scaled, pe.pass_s});
    pe.pass_high_s = std::max({unscaled, scaled, pe.pass_s});
    const double band = c.host_scaled || c.overhead_scaled ? kScaledResidualBand : kUnscaledResidualBand;
    // The part of the baseline's op-model error not carried: if the log errors of two
    // platforms share the slope rho and spread alike, what the baseline's error leaves
    // unexplained on the target has a standard deviation of sqrt(1 - rho^2) times it.
    // Only the kernel part is partly shared; the workload part is carried whole.
    const double unshared = std::expm1(std::sqrt(std::max(0.0, 1 - shared * shared)) * std::abs(c.kernel_log_error));
    const double var = std::pow(pe.ops_sigma_s * c.ops_carry, 2) + std::pow(pe.modelled_s * unshared, 2) +
                       std::pow(pe.residual_s * band, 2);
    const double sigma = pe.pass_s > 0 ? std::sqrt(var) / pe.pass_s : 0;
    // The band includes the bounds: how far the answer depends on the split is part of how
    // sure it is.
    const double reach =
        pe.pass_s > 0 ? std::max(pe.pass_high_s - pe.pass_s, pe.pass_s - pe.pass_low_s) / pe.pass_s : 0;
    pe.uncertainty = std::max(sigma, reach);
    // A trace that names no machine: its times are carried as measured, the same on every
    // platform (the estimate warns "not projected"), and nothing says how far the target is
    // from where it ran. The residual's 30% had set the band of such a pass at +-30%.
    if (m->platform.empty()) pe.uncertainty = std::max(pe.uncertainty, kNotProjectedBand);
  }

  const std::string where = m->platform.empty() ? std::string("an unnamed platform") : m->platform;
  pe.notes.push_back(
      "calibrated by " + m->source + " on " + where + ": " + seconds(m->pass_s) + " per pass = modelled operations " +
      seconds(modelled_there) + " " + (c.model_error_there_s < 0 ? "- " : "+ ") +
      (ops_overlap(c) ? "overlap (operations that ran at the same time) " : "op-model error ") +
      seconds(std::abs(c.model_error_there_s)) + " + host and framework residual " + seconds(c.residual_there_s) +
      " (" + format_percent_significant(m->pass_s > 0 ? c.residual_there_s / m->pass_s : 0, 3) + "; " + c.split_basis +
      ")");
  for (const auto& n : m->notes) pe.notes.push_back("calibration: " + n);
  if (ops_overlap(c))
    pe.notes.push_back("the modelled operations are scaled by " + format_significant(c.ops_carry, 3) +
                       ": the trace's operations overlapped on " + where + " (their measured times sum to " +
                       seconds(modelled_there) + " in a pass of " + seconds(m->pass_s - c.residual_there_s) +
                       " of operations: concurrent streams or threads), and the overlap is carried whole");
  else if (std::abs(c.ops_scale - 1) > 5e-4 && on_target)
    pe.notes.push_back("the modelled operations are scaled by " + format_significant(c.ops_scale, 3) +
                       " = (measured - residual) / modelled on " + where + ": the model is " +
                       (c.ops_scale > 1 ? "faster" : "slower") + " than " + where + " ran");
  else if (std::abs(c.ops_scale - 1) > 5e-4)
    pe.notes.push_back(
        "the modelled operations are scaled by " + format_significant(c.ops_carry, 3) + ": (measured - residual) / " +
        "modelled on " + where + " is " + format_significant(c.ops_scale, 3) + " (the model is " +
        (c.ops_scale > 1 ? "faster" : "slower") + " than " + where + " ran); of its log, " +
        format_significant(c.kernel_log_error, 3) + " is within what the kernel tables' measured error can explain " +
        "(their band there, " + format_percent_significant(c.ops_band_there, 3) + ", allows up to " +
        format_significant(std::log1p(c.ops_band_there), 3) + ") and recurs " +
        (twin ? "whole (" + where + " and " + pe.platform + " are specs of the same figures: one op model)"
              : "by the measured share " + format_significant(kSharedOpErrorShare, 3) +
                    " (`fomcast validate`, shared_op_error)") +
        ", and the rest, " + format_significant(c.workload_log_error, 3) +
        ", is error outside the tables (the workload's), carried whole; the part not carried widens the band");
  if (!on_target)
    pe.notes.push_back("bounds of the residual rule on " + pe.platform + ": " + seconds(pe.pass_low_s) + " to " +
                       seconds(pe.pass_high_s) + " per pass (the whole gap carried unscaled, or scaled with the " +
                       "operations); the band includes them");
  if (!on_target) pe.notes.push_back("residual " + c.carry_detail);
  for (const auto& other : all)
    if (&other != m)
      pe.notes.push_back("also measured, not used here: " + seconds(other.pass_s) + " per pass on " +
                         (other.platform.empty() ? std::string("an unnamed platform") : other.platform) + " (" +
                         other.source + ")");
  if (pe.host_bound)
    pe.notes.push_back("host-bound: " + format_percent_significant(pe.residual_share, 3) + " of the pass on " +
                       pe.platform + " is the residual carried from the measurement, not modelled operations");
}

}  // namespace fomcast::est

namespace fomcast {

double ops_carry_elsewhere(const CalibrationLine& c) {
  return std::exp(c.workload_log_error + kSharedOpErrorShare * c.kernel_log_error);
}

}  // namespace fomcast
