// `fomcast calibrate`: the measured time as one pass, split on its platform into the
// modelled operations and the residual that estimates elsewhere carry.
#include <cmath>

#include <nlohmann/json.hpp>

#include "fomcast/calibrate.hpp"
#include "fomcast/report/calibration.hpp"
#include "fomcast/report/text_table.hpp"

namespace fomcast {

using nlohmann::json;

namespace {

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

json calibration_to_json(const CalibrationResult& r) {
  const Calibration& c = r.calibration;
  const PassEstimate& p = r.pass;
  return json{{"workload", c.workload},
              {"platform", c.platform},
              {"pass_s", optional_number(c.pass_s)},
              {"epoch_s", optional_number(c.epoch_s)},
              {"run_s", optional_number(c.run_s)},
              {"note", c.note},
              {"measured_pass_s", r.measured.pass_s},
              {"modelled_s", p.modelled_s},
              {"residual_s", p.residual_s},
              {"residual_share", p.residual_share},
              {"ops_scale", p.calibration.ops_scale},
              {"ops_band", p.calibration.ops_band_there},
              {"kernel_log_error", p.calibration.kernel_log_error},
              {"workload_log_error", p.calibration.workload_log_error},
              {"ops_carry_elsewhere", ops_carry_elsewhere(p.calibration)},
              {"modelled_ops_s", p.calibration.modelled_there_s},
              {"model_error_s", p.calibration.model_error_there_s},
              {"split_basis", p.calibration.split_basis},
              {"host_bound", p.host_bound},
              {"source", r.measured.source},
              {"notes", r.measured.notes}};
}

std::string calibration_to_text(const CalibrationResult& r) {
  const Calibration& c = r.calibration;
  const PassEstimate& p = r.pass;
  std::string given = c.pass_s    ? format_duration(*c.pass_s) + " per pass"
                      : c.epoch_s ? format_duration(*c.epoch_s) + " per epoch"
                                  : format_duration(c.run_s.value_or(0)) + " per run";
  std::string out = "Calibrated " + c.workload + " on " + c.platform + ": " + given + " measured\n";
  out += "one pass   " + format_duration(r.measured.pass_s) + "\n";
  for (const auto& n : r.measured.notes) out += "           (" + n + ")\n";
  const CalibrationLine& k = p.calibration;
  out += "modelled   " + format_duration(k.modelled_there_s) + ": the workload's operations as estimated on " +
         c.platform + "\n";
  if (ops_overlap(k))
    out += "overlap    -" + format_duration(std::abs(k.model_error_there_s)) +
           ": the trace's operations ran at the same time there (their measured times sum to more than the pass: x " +
           format_significant(k.ops_scale, 3) + "); it moves with the operations to other platforms\n";
  else
    out += "op error   " + std::string(k.model_error_there_s < 0 ? "-" : "+") +
           format_duration(std::abs(k.model_error_there_s)) + ": the op model's error there (x " +
           format_significant(k.ops_scale, 3) +
           "); the part that recurs on other platforms moves with the operations\n";
  out += "           of its log " + format_significant(k.kernel_log_error + k.workload_log_error, 3) + ", " +
         format_significant(k.kernel_log_error, 3) + " is kernel error (at most log(1 + " +
         format_percent_significant(k.ops_band_there, 3) +
         " band of the modelled ops there)), recurring by the measured share " +
         format_significant(kSharedOpErrorShare, 3) + ", and " + format_significant(k.workload_log_error, 3) +
         " error outside the kernel tables, carried whole: estimates elsewhere scale their operations by exp(" +
         format_significant(k.workload_log_error, 3) + " + " + format_significant(kSharedOpErrorShare, 3) + " x " +
         format_significant(k.kernel_log_error, 3) + ") = " + format_significant(ops_carry_elsewhere(k), 3) + "\n";
  out += "residual   " + format_duration(p.residual_s) + " (" + format_percent(p.residual_share, 1) +
         "): host and framework time, carried to other platforms by their host speeds (" + k.split_basis + ")\n";
  if (p.host_bound)
    out +=
        "WARNING host-bound: most of the measured time is not the modelled operations; projections from it "
        "are host-bound too\n";
  out += "Estimates of " + c.workload + " now start from this measurement (`fomcast estimate`, `fom`, `whatif`).\n";
  return out;
}

json calibration_cleared_to_json(const std::string& workload, const std::string& platform, bool removed) {
  return json{{"workload", workload}, {"platform", platform}, {"cleared", removed}};
}

std::string calibration_cleared_to_text(const std::string& workload, const std::string& platform, bool removed) {
  if (!removed) return "No calibration of '" + workload + "' on " + platform + ": nothing to clear.\n";
  return "Cleared the calibration of '" + workload + "' on " + platform + ".\n";
}

}  // namespace fomcast
