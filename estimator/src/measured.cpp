// Measured times of a workload (a pass, an epoch, a run) as the time of one pass, with the
// same passes-per-epoch and epochs-per-run rules the roll-up uses, so that a calibration
// and the estimate it calibrates count the same passes.
#include <algorithm>
#include <cmath>

#include "fomcast/calibrate.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "residual.hpp"
#include "similarity.hpp"

namespace fomcast {
namespace {

// `scale` turns the stored seconds back into the flag's unit for the message.
void check_positive(std::optional<double> v, const char* flag, double scale, const char* unit) {
  if (v && !(std::isfinite(*v) && *v > 0))
    throw UsageError(std::string(flag) + " must be a positive number of " + unit + ", got " +
                     (std::isnan(*v) ? std::string("NaN") : format_significant(*v / scale, 6)));
}

}  // namespace

void check_measured_time(std::optional<double> pass_s, std::optional<double> epoch_s, std::optional<double> run_s) {
  const int given = (pass_s ? 1 : 0) + (epoch_s ? 1 : 0) + (run_s ? 1 : 0);
  if (given != 1)
    throw UsageError(std::string(given ? "give only one" : "give one") +
                     " of --pass-s, --epoch-s and --run-hours (the measured time of a pass, an epoch or a whole run)");
  check_positive(pass_s, "--pass-s", 1, "seconds");
  check_positive(epoch_s, "--epoch-s", 1, "seconds");
  check_positive(run_s, "--run-hours", 3600, "hours");
}

Calibration make_calibration(const Workload& w, const std::string& platform, std::optional<double> pass_s,
                             std::optional<double> epoch_s, std::optional<double> run_s, std::string note) {
  check_measured_time(pass_s, epoch_s, run_s);
  if (epoch_s && !(w.samples_per_epoch > 0 && w.batch_size > 0))
    throw UsageError("--epoch-s: workload '" + w.name +
                     "' has no samples per epoch and batch size, so an epoch's time cannot be split into passes: "
                     "give --pass-s");
  if (run_s && !(w.samples_per_epoch > 0 && w.batch_size > 0 && w.epochs > 0))
    throw UsageError("--run-hours: workload '" + w.name +
                     "' lacks samples per epoch, batch size or epochs, so a run's time cannot be split into passes: "
                     "give --epoch-s or --pass-s");
  Calibration c;
  c.workload = w.name;
  c.platform = platform;
  c.pass_s = pass_s;
  c.epoch_s = epoch_s;
  c.run_s = run_s;
  c.note = std::move(note);
  c.batch_size = w.batch_size;  // the batch it ran at: the workload's, as calibrated
  return c;
}

MeasuredPass measured_pass(const Workload& w, const Calibration& c, std::optional<int64_t> epochs) {
  MeasuredPass m;
  m.platform = c.platform;
  std::string why;
  if (!c.recorded_at.empty()) why = "recorded " + c.recorded_at;
  if (!c.note.empty()) why += (why.empty() ? "" : ": ") + c.note;
  if (!why.empty()) why = " (" + why + ")";
  const int64_t ppe = passes_per_epoch(w, &m.notes);
  if (c.pass_s) {
    m.pass_s = *c.pass_s;
    m.source = "a measured pass time" + why;
  } else if (c.epoch_s) {
    m.pass_s = *c.epoch_s / static_cast<double>(ppe);
    m.source = "a measured epoch time" + why;
    m.notes.push_back("epoch " + format_duration(*c.epoch_s) + " / " + std::to_string(ppe) + " passes per epoch");
  } else if (c.run_s) {
    const int64_t e = epochs_per_run(w, epochs, &m.notes);
    m.pass_s = *c.run_s / static_cast<double>(ppe * e);
    m.source = "a measured run time" + why;
    m.notes.push_back("run " + format_duration(*c.run_s) + " / (" + std::to_string(e) + " epochs x " +
                      std::to_string(ppe) + " passes per epoch)");
  }
  if (!c.pass_s)
    m.notes.push_back(
        "it includes whatever else the measured epoch or run did (validation, checkpoints, "
        "data loading): that lands in the residual");
  return m;
}

std::vector<MeasuredPass> measured_passes(const Workload& w, const std::vector<Calibration>& cs,
                                          std::vector<std::string>* not_used) {
  std::vector<MeasuredPass> out;
  for (const auto& c : cs) {
    if (c.workload != w.name) continue;
    // A pass measured at batch 20 is not a pass at batch 5: taken as one, a study's NT3 at
    // batch 1 ran 20 times as many 150 ms passes per epoch.
    if (c.batch_size > 0 && w.batch_size > 0 && c.batch_size != w.batch_size) {
      if (not_used)
        not_used->push_back("the calibration of " + w.name + " on " + c.platform + " was measured at batch " +
                            std::to_string(c.batch_size) + ", and this runs batch " + std::to_string(w.batch_size) +
                            ": not used (`fomcast calibrate --batch " + std::to_string(w.batch_size) +
                            "` records a measurement at it)");
      continue;
    }
    out.push_back(measured_pass(w, c));
  }
  return out;
}

PassFloor roofline_floor(const Workload& w, const Platform& p) {
  PassFloor f;
  f.complete = !w.ops.empty();
  for (const auto& op : w.ops) {
    const DType d = op.dtype == DType::unknown ? DType::fp32 : op.dtype;
    const double flops = op.flops > 0 ? op.flops : op_flops(op.kind, op.shape);
    const double bytes = op.bytes > 0 ? op.bytes : op_bytes(op.kind, op.shape, d);
    // The estimator's own bound (op_roofline): a 3x3 conv in fp32 may run as Winograd, a
    // quarter of the direct multiplies. With direct flops, VGG-16's real V100 pass (about
    // 1.2 s at batch 256) and fomcast's own estimate of it were refused as below 1.85 s.
    double t = est::op_roofline(p, op.kind, op.shape, d, flops, bytes).seconds;
    // fp32 matrix products may run on tf32 tensor cores: the faster rate bounds them.
    if (d == DType::fp32 && p.peak_flop_per_s.count(DType::tf32))
      t = std::min(t, est::op_roofline(p, op.kind, op.shape, DType::tf32, flops, bytes).seconds);
    if (t > 0) {
      f.seconds += op.count * t;
      ++f.ops;
    } else if (op.count > 0) {
      f.complete = false;
    }
  }
  return f;
}

namespace {

// The flag the measurement was given by, and its value as given.
std::string as_given(const Calibration& c) {
  if (c.pass_s) return "--pass-s " + format_significant(*c.pass_s, 6);
  if (c.epoch_s) return "--epoch-s " + format_significant(*c.epoch_s, 6);
  return "--run-hours " + format_significant(c.run_s.value_or(0) / 3600.0, 6);
}

void check_plausible(const Workload& w, const Calibration& c, const MeasuredPass& m, const Catalog& catalog,
                     bool force) {
  const Platform* p = catalog.platform(c.platform);
  if (!p) return;
  const PassFloor f = roofline_floor(w, *p);
  if (!(f.seconds > 0)) return;
  const std::string floor = format_duration(f.seconds) + " per pass, the roofline of " + std::to_string(f.ops) +
                            " of its " + std::to_string(w.ops.size()) + " operations on " + p->name +
                            " (each op's flops at peak and bytes at memory bandwidth, full efficiency)";
  if (m.pass_s < f.seconds)
    throw UsageError(as_given(c) + " cannot be true: " + format_duration(m.pass_s) + " per pass is below the least " +
                     w.name + " can take on " + p->name + ", " + floor);
  if (f.complete && m.pass_s > kImplausibleFactor * f.seconds && !force)
    throw UsageError(as_given(c) + " is " + format_number(m.pass_s / f.seconds, 0) + " times the least " + w.name +
                     " can take on " + p->name + ", " + floor + ": more than " + format_number(kImplausibleFactor, 0) +
                     " times is likely a wrong unit or workload; give --force to record it anyway");
}

}  // namespace

CalibrationResult split_calibration(const Workload& w, const Calibration& c, const Catalog& catalog, bool force) {
  CalibrationResult r;
  r.calibration = c;
  r.measured = measured_pass(w, c);
  check_plausible(w, c, r.measured, catalog, force);
  r.pass = estimate_pass(w, c.platform, catalog, {r.measured});
  return r;
}

}  // namespace fomcast
