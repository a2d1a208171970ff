// Measured times of a workload (a pass, an epoch, a run) as the time of one pass, with the
// same passes-per-epoch and epochs-per-run rules the roll-up uses, so that a calibration
// and the estimate it calibrates count the same passes.
#include <cmath>

#include "fomcast/calibrate.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "residual.hpp"

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

std::vector<MeasuredPass> measured_passes(const Workload& w, const std::vector<Calibration>& cs) {
  std::vector<MeasuredPass> out;
  for (const auto& c : cs)
    if (c.workload == w.name) out.push_back(measured_pass(w, c));
  return out;
}

CalibrationResult split_calibration(const Workload& w, const Calibration& c, const Catalog& catalog) {
  CalibrationResult r;
  r.calibration = c;
  r.measured = measured_pass(w, c);
  r.pass = estimate_pass(w, c.platform, catalog, {r.measured});
  return r;
}

}  // namespace fomcast
