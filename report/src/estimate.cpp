// The estimate of one workload on one platform: the pass split into modelled operations and
// the calibrated residual (host, framework, input pipeline), the
// roll-up to epoch, run and units/day, the coverage line, and the operations that matter
// most, each with its method, baseline and predicted time and uncertainty.
#include <algorithm>

#include <cmath>

#include <nlohmann/json.hpp>

#include "fomcast/calibrate.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/report/estimate.hpp"
#include "fomcast/report/text_table.hpp"
#include "fomcast/trace_notes.hpp"

namespace fomcast {

using nlohmann::json;

namespace {

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// Ops by predicted time per pass, largest first.
std::vector<std::size_t> ranked(const RunEstimate& r, const Workload& w) {
  std::vector<std::size_t> order(r.pass.ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto per_pass = [&](std::size_t i) { return w.ops[r.pass.ops[i].op_index].count * r.pass.ops[i].predicted_s; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return per_pass(a) > per_pass(b); });
  return order;
}

json calibration_json(const CalibrationLine& c) {
  if (!c.calibrated) return json{{"calibrated", false}};
  return json{{"calibrated", true},
              {"platform", c.measured.platform},
              {"source", c.measured.source},
              {"measured_pass_s", c.measured.pass_s},
              {"modelled_there_s", c.modelled_there_s},
              {"residual_there_s", c.residual_there_s},
              {"ops_scale", c.ops_scale},
              {"ops_carry", c.ops_carry},
              {"ops_band_there", c.ops_band_there},
              {"kernel_log_error", c.kernel_log_error},
              {"workload_log_error", c.workload_log_error},
              {"model_error_there_s", c.model_error_there_s},
              {"split_basis", c.split_basis},
              {"carry", c.carry},
              {"host_scaled", c.host_scaled},
              {"overhead_scaled", c.overhead_scaled},
              {"carry_detail", c.carry_detail},
              {"notes", c.measured.notes}};
}

std::string precision_name(const PassEstimate& p) {
  return p.precision == PrecisionMode::recorded ? p.recorded_precision : std::string(to_string(p.precision));
}

// A pass's samples over its time; none without a batch.
std::optional<double> samples_per_s(const RunEstimate& r) {
  if (r.samples_per_pass <= 0 || !(r.pass.pass_s > 0)) return std::nullopt;
  return static_cast<double>(r.samples_per_pass) / r.pass.pass_s;
}

}  // namespace

json estimate_to_json(const RunEstimate& r, const Workload& w) {
  const PassEstimate& p = r.pass;
  const CalibrationLine& c = p.calibration;
  const auto sps = samples_per_s(r);
  json ops = json::array();
  for (std::size_t i : ranked(r, w)) {
    const OpEstimate& e = p.ops[i];
    const Op& op = w.ops[e.op_index];
    json j = op_to_json(op);  // name, kind, shape, dtype, phase, count, costs as `show` prints them
    j["baseline_s"] = optional_number(e.baseline_s);
    j["predicted_s"] = e.predicted_s;
    j["predicted_per_pass_s"] = op.count * e.predicted_s;
    // The part of predicted_s that is the tables' per-call launch floor (the pass's
    // launch_gap_s sums it): host dispatch and driver, and for a small kernel part of the
    // device's own work (docs/accuracy.md section 7).
    j["launch_gap_s"] = e.launch_gap_s;
    j["method"] = to_string(e.method);
    j["roofline_capped"] = e.roofline_capped;
    j["uncertainty"] = e.uncertainty;
    j["source_platform"] = e.source_platform;
    j["detail"] = e.detail;
    j["notes"] = e.notes;
    ops.push_back(std::move(j));
  }
  json by_method = json::object();
  for (const auto& [m, s] : p.by_method)
    by_method[std::string(to_string(m))] = {{"ops", s.ops},
                                            // null where no op had a measured time
                                            {"baseline_s", p.coverage_of_baseline ? json(s.baseline_s) : json(nullptr)},
                                            {"predicted_s", s.predicted_s},
                                            {"table_backed", is_table_backed(m)}};
  return json{{"workload", p.workload},
              {"platform", p.platform},
              {"baseline_platform", p.baseline_platform.empty() ? json(nullptr) : json(p.baseline_platform)},
              // The mode given (--precision), else the workload's own types as recorded.
              {"precision", precision_name(p)},
              {"recorded_precision", p.recorded_precision},
              {"retyped_ops", p.retyped_ops},
              {"pass_s", p.pass_s},
              {"epoch_s", r.epoch_s},
              {"run_s", r.run_s},
              {"units_per_day", r.units_per_day},
              // Samples per second of the pass; null where the workload has no batch (a
              // trace that records none and was ingested without --batch).
              {"samples_per_pass", r.samples_per_pass > 0 ? json(r.samples_per_pass) : json(nullptr)},
              {"samples_per_s", sps ? json(*sps) : json(nullptr)},
              {"nodes", r.nodes},
              {"devices_per_run", r.devices_per_run},
              {"passes_per_epoch", r.passes_per_epoch},
              {"epochs", r.epochs},
              {"uncertainty", p.uncertainty},
              {"ops_s", p.ops_s},
              // The overhead line's names from before calibration generalised it.
              {"overhead_s", p.residual_s},
              {"baseline_pass_s", c.calibrated ? json(c.measured.pass_s) : json(nullptr)},
              {"baseline_ops_s", c.calibrated ? json(c.modelled_there_s) : json(nullptr)},
              {"baseline_overhead_s", c.calibrated ? json(c.residual_there_s) : json(nullptr)},
              {"overhead_factor", c.carry},
              {"modelled_s", p.modelled_s},
              {"residual_s", p.residual_s},
              // Of modelled_s: the per-call launch gaps the op times hold (docs/calibration.md).
              {"launch_gap_s", p.launch_gap_s},
              {"modelled_share", p.pass_s > 0 ? p.modelled_s / p.pass_s : 0.0},
              {"residual_share", p.residual_share},
              {"host_bound", p.host_bound},
              // The pass under the residual rule's two bounds (docs/calibration.md), in seconds.
              {"pass_bounds",
               {{"low_s", p.pass_low_s},
                {"high_s", p.pass_high_s},
                {"carried_unscaled_s", p.pass_unscaled_s},
                {"scaled_with_ops_s", p.pass_scaled_s}}},
              {"calibration", calibration_json(p.calibration)},
              {"coverage",
               {{"table_backed_share", p.table_coverage},
                {"of", p.coverage_of_baseline ? "baseline_s" : "predicted_s"},
                {"by_method", by_method}}},
              {"assumptions", r.assumptions},
              {"notes", p.notes},
              {"ops", ops}};
}

std::string estimate_to_text(const RunEstimate& r, const Workload& w, std::size_t top, bool verbose,
                             std::string_view ops_heading) {
  const PassEstimate& p = r.pass;
  std::string out = "Estimate of " + p.workload + " on " + p.platform;
  const bool measured_ops =
      std::any_of(w.ops.begin(), w.ops.end(), [](const Op& op) { return op.self_time_s.has_value(); });
  out += !p.baseline_platform.empty() ? " (baseline: measured on " + p.baseline_platform + ")\n\n"
         : measured_ops ? " (baseline: measured on a platform the trace does not name; ingest --platform names it)\n"
                        : " (no measured op times: predicted from shapes)\n";
  if (p.baseline_platform.empty()) out += "\n";
  if (p.precision != PrecisionMode::recorded)
    out += "precision " + precision_name(p) + " (recorded: " + p.recorded_precision +
           "; docs/estimation.md says which ops run in which type)\n";
  // A mode that moves nothing would otherwise read as a projection of the precision; in the
  // workload's own types it is said in passing.
  if (p.precision != PrecisionMode::recorded && p.retyped_ops == 0 && !w.ops.empty())
    out +=
        precision_name(p) == p.recorded_precision
            ? std::string("(the workload's own types: no op changes)\n")
            : "WARNING precision " + precision_name(p) + " changes no op of this workload: none of its " +
                  std::to_string(w.ops.size()) +
                  " op(s) is a kind the mode re-types with a shape, FLOPs or bytes to re-cost it by (function times "
                  "without shapes, copies and `other` ops keep their recorded type and time), or they are in its types "
                  "already; the estimate is the recorded precision's\n";
  // A type the target's spec has no rate for (bf16 on a V100): another type's rate stood in
  // for the ops computing in it; the ops' notes say it one by one, this once for the estimate.
  const StoodInRate stood_in = stood_in_rate(p, w);
  if (stood_in.ops > 0)
    out += "WARNING " + p.platform + "'s spec states no " + std::string(to_string(stood_in.asked)) +
           " rate (no units for it): " + std::to_string(stood_in.ops) + " op(s) computing in it, " +
           format_duration(stood_in.pass_s) + " of the pass, are timed at its " +
           std::string(to_string(stood_in.with)) + " rate: on this part " + std::string(to_string(stood_in.asked)) +
           " saves memory traffic, not compute time\n";
  // A band of 100% or more read as "+/- 686%" implies negative times: said as the range it
  // spans, the calibration rule's bounds where they make it (one side of the pass), else a
  // factor either way.
  std::string band = " +/- " + format_share(p.uncertainty);
  if (p.uncertainty >= 1)
    band = p.pass_s > 0 &&
                   std::max(p.pass_high_s - p.pass_s, p.pass_s - p.pass_low_s) / p.pass_s >= p.uncertainty * (1 - 1e-9)
               ? " (from " + format_duration(p.pass_low_s) + " to " + format_duration(p.pass_high_s) + ", " +
                     format_share((p.pass_high_s - p.pass_low_s) / p.pass_s) + " of it: the residual rule's bounds)"
               : ", within a factor of " + format_significant(1 + p.uncertainty, 3) + " (" +
                     format_duration(p.pass_s / (1 + p.uncertainty)) + " to " +
                     format_duration(p.pass_s * (1 + p.uncertainty)) + ")";
  out += "pass   " + format_duration(p.pass_s) + band + " = modelled " + format_duration(p.modelled_s) + " (" +
         format_share(p.pass_s > 0 ? p.modelled_s / p.pass_s : 0) + ") + residual " + format_duration(p.residual_s) +
         " (" + format_share(p.residual_share) + ")\n";
  if (p.launch_gap_s > 0 && p.modelled_s > 0)
    out += "       of the modelled ops, " + format_duration(p.launch_gap_s) + " (" +
           format_share(p.launch_gap_s / p.modelled_s) +
           ") is the per-call launch gaps the tables' per-call times hold (host and driver): a run whose host "
           "stays ahead of the GPU, or that replays CUDA graphs, hides much of it (docs/accuracy.md section 8)\n";
  const CalibrationLine& c = p.calibration;
  if (c.calibrated) {
    const std::string there = c.measured.platform.empty() ? std::string("an unnamed platform") : c.measured.platform;
    out += "       calibrated by " + c.measured.source + " on " + there + ": " + format_duration(c.measured.pass_s) +
           " per pass = modelled " + format_duration(c.modelled_there_s) +
           (c.model_error_there_s == 0 ? std::string()
                                       : std::string(c.model_error_there_s < 0 ? " - " : " + ") +
                                             (ops_overlap(c) ? "overlap " : "op-model error ") +
                                             format_duration(std::abs(c.model_error_there_s))) +
           " + residual " + format_duration(c.residual_there_s) + "\n";
    if (c.measured.platform != p.platform) {
      out += "       " +
             // A factor that rounds to 1 ("x 1" beside ops that moved) says nothing.
             (format_significant(c.ops_carry, 3) == "1" ? std::string()
                                                        : "modelled ops x " + format_significant(c.ops_carry, 3) +
                                                              (ops_overlap(c) ? " (the overlap)" : "") + ", ") +
             "residual " + c.carry_detail + "\n";
      out += "       bounds of the residual rule: " + format_duration(p.pass_low_s) + " to " +
             format_duration(p.pass_high_s) + " (gap carried unscaled " + format_duration(p.pass_unscaled_s) +
             ", scaled with the ops " + format_duration(p.pass_scaled_s) + ")\n";
    }
  } else if (std::any_of(p.ops.begin(), p.ops.end(), [](const OpEstimate& e) { return e.baseline_s.has_value(); })) {
    // "No measured time on any platform" beside ops measured on the recording platform (an
    // XPlane profile's kernels) read as a contradiction: what is missing is the pass's time.
    out +=
        "       not calibrated: the profile times its operations but not a pass (no step time to take one "
        "from), so no host, framework or input-pipeline time (`fomcast calibrate --pass-s` gives the step)\n";
  } else {
    out +=
        "       not calibrated: no measured time on any platform, so no host, framework or input-pipeline time "
        "(`fomcast calibrate`)\n";
  }
  if (p.host_bound)
    out += "WARNING host-bound: " + format_share(p.residual_share) +
           " of the pass is residual (host, framework, input pipeline)" +
           (c.measured.platform == p.platform ? std::string(" measured on ") + p.platform
            : c.measured.platform.empty()     ? std::string(" carried from a platform the trace does not name")
                                              : " carried from " + c.measured.platform) +
           ", not modelled operations: the projection says more about the host than about the device" +
           // A profiler adds its own work to the host's side of every call: an H200's BERT amp
           // step took 112 ms profiled and 73 ms without, its residual 67 ms and 29.
           (c.measured.profiled ? std::string("; a profiler slows the host's side of every call, so a profiled "
                                              "host-bound step overstates it: give the step timed without the "
                                              "profiler (`fomcast calibrate --pass-s`)")
                                : std::string()) +
           "\n";
  // Measured times with nowhere to carry them from are the same on every target: the band
  // beside them says nothing about the target, so say it where it is read first.
  if (p.baseline_platform.empty()) {
    int64_t carried = 0;
    for (const auto& e : p.ops)
      if (e.baseline_s && e.method == Method::scaled) ++carried;
    if (carried > 0)
      out += "WARNING not projected: the trace does not say which machine it was recorded on, so its " +
             std::to_string(carried) + " measured op(s) are carried to " + p.platform +
             " as measured, the same on every platform (`ingest --platform P` names the machine)\n";
  }
  // A cProfile of a GPU run: its op times are the host's, said where it is read first.
  // So is a CPU-only trace's projection to a GPU.
  for (const std::string& note : p.notes)
    if (note.starts_with(kHostTimedNote) || note.starts_with(kCpuOnlyProjectedNote)) out += "WARNING " + note + "\n";
  // An --platform at ingest that the trace's own device contradicts: every measured time is
  // read as the other platform's, and a note at ingest is easily missed.
  for (const std::string& note : w.notes)
    if (note.find(kGivenPlatformContradictsTrace) != std::string::npos)
      out += "WARNING " + note + ": its measured times are read as " + w.recorded_on +
             "'s (ingest again without --platform, or with that platform, if the trace is right)\n";
  // A range-profiler trace's op times are shares of a session that replayed every kernel:
  // projected, they scale that session, not a step (an A100 trace's 121 ms ranges made a
  // 6.0 s pass on H100), said where the numbers are, not only in an ingest note.
  if (p.platform != w.recorded_on)
    for (const std::string& note : w.notes)
      if (note.starts_with(kRangeProfilerNote))
        out +=
            "WARNING projected from a CUPTI range-profiler trace: its op times are shares of the profiling "
            "session, which replayed every kernel to read its counters, not kernel durations; the pass here scales "
            "that session, not a training step (a trace without the range profiler times the step)\n";
  // An epoch of unknown size is the trace's passes: said on its line, not only under
  // --verbose, since the run and the rate below rest on it (`fom` warns of it too).
  const bool epoch_unknown = !r.epoch_size_known;
  out +=
      "epoch  " + format_number(static_cast<double>(r.passes_per_epoch), 0) +
      " passes = " + format_duration(r.epoch_s) +
      (epoch_unknown ? " (epoch size unknown: the passes the workload holds; --samples-per-epoch and --batch give it)"
                     : "") +
      "\n";
  out += "run    " + std::to_string(r.epochs) + " epoch(s) = " + format_duration(r.run_s) + "\n";
  // Under a layout one run is D x T x P devices, and --nodes counts runs, not devices: "on 1
  // node(s)" read as one node for a 64-device job.
  out += "rate   " + format_number(r.units_per_day, 2) + " runs/day " +
         (r.devices_per_run > 1 ? "with " + format_significant(r.nodes) + " run(s) side by side, each on " +
                                      std::to_string(r.devices_per_run) + " devices (" +
                                      format_significant(r.nodes * static_cast<double>(r.devices_per_run)) + " in all)"
                                // A node here is one device running one run (CANDLE's), not a
                                // machine's node of 8 GPUs, which a user sizing a DGX read it as.
                                : "on " + format_significant(r.nodes) + " node(s) of one " + r.pass.platform +
                                      " device each, one run per device (--nodes)") +
         "\n";
  if (const auto sps = samples_per_s(r))
    out += "       " + format_number(*sps, *sps < 100 ? 2 : 0) + " samples/s (" +
           format_number(static_cast<double>(r.samples_per_pass), 0) +
           (r.devices_per_run > 1 ? " per step over the run's devices)\n" : " per pass)\n");
  else
    out += "       samples/s unknown: the workload records no batch (`fomcast ingest --batch B` gives it)\n";
  out += "coverage: " + format_share(p.table_coverage) + " of the " +
         (p.coverage_of_baseline ? "baseline" : "predicted") +
         " time predicted from measurements (measured, table, interpolated, implicit-gemm, rnn-as-gemm), " +
         format_share(1 - p.table_coverage) + " by fallbacks\n";
  std::string methods;
  for (const auto& [m, s] : p.by_method)
    methods += (methods.empty() ? "" : ", ") + std::string(to_string(m)) + " " +
               format_share(p.ops_s > 0 ? s.predicted_s / p.ops_s : 0) + " (" + std::to_string(s.ops) + " ops)";
  // "scaled" holds the ops carried at their measured time too, where a figure to scale by is
  // missing (a target with no host speed): said, since that time is the recording platform's.
  std::size_t unscaled = 0;
  double unscaled_s = 0;
  for (const auto& e : p.ops)
    if (e.method == Method::scaled && e.detail.starts_with(kCarriedUnscaledDetail) && e.op_index < w.ops.size())
      ++unscaled, unscaled_s += w.ops[e.op_index].count * e.predicted_s;
  if (unscaled > 0)
    methods += "; of the scaled, " + std::to_string(unscaled) + " op(s), " +
               format_share(p.ops_s > 0 ? unscaled_s / p.ops_s : 0) +
               ", carried at their measured time: no figure to scale them by (`--json` details say which)";
  out += "methods: " + methods + "\n\n";

  TextTable t;
  t.header = {"op", "kind", "shape", "count", "baseline", "predicted", "+/-", "method", "from"};
  t.right_align = {false, false, false, true, true, true, true, false, false};
  t.max_width = {36, 0, 34};
  t.keep_last_word = {false, false, true};
  const auto order = ranked(r, w);
  for (std::size_t n = 0; n < order.size() && n < top; ++n) {
    const OpEstimate& e = p.ops[order[n]];
    const Op& op = w.ops[e.op_index];
    t.rows.push_back({op.name, std::string(to_string(op.kind)), describe(op.shape),
                      format_number(op.count, op.count == static_cast<int64_t>(op.count) ? 0 : 2),
                      e.baseline_s ? format_duration(*e.baseline_s) : "-", format_duration(e.predicted_s),
                      format_share(e.uncertainty), std::string(to_string(e.method)), e.source_platform});
  }
  out += std::string(ops_heading) + ":\n" + t.render();
  if (order.size() > top) out += "... " + std::to_string(order.size() - top) + " more ops (--json lists all)\n";
  if (verbose) {
    for (const auto& a : r.assumptions) out += "assumed: " + a + "\n";
    for (const auto& n : p.notes) out += "note: " + n + "\n";
  } else if (const std::string hidden = counted({{r.assumptions.size(), "assumption"}, {p.notes.size(), "note"}});
             !hidden.empty()) {
    out += "(" + hidden + " not shown: --verbose prints them, --json lists them)\n";
  }
  return out;
}

}  // namespace fomcast
