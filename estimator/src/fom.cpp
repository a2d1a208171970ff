// The FOM core: units/day per side, ratio per problem, harmonic means over problems.
// The FOM averages RATES, so it is HM(target rates) / HM(baseline rates); the arithmetic
// and harmonic means of the per-problem ratios are reported beside it, labelled, because
// people compute them by mistake and should see that they differ.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "fomcast/calibrate.hpp"
#include "fomcast/error.hpp"
#include "fomcast/fom.hpp"
#include "fomcast/format.hpp"
#include "fomcast/platform_match.hpp"

namespace fomcast {

namespace {

constexpr std::pair<SideMethod, const char*> kSideMethods[] = {
    {SideMethod::measured, "measured"},
    {SideMethod::calibrated, "calibrated"},
    {SideMethod::estimated, "estimated"},
};

}  // namespace

std::string_view to_string(SideMethod m) {
  for (const auto& [value, name] : kSideMethods)
    if (value == m) return name;
  return "?";
}

double units_per_day(double seconds_per_unit, double nodes, double nodes_per_unit) {
  if (!(seconds_per_unit > 0) || !(nodes > 0) || !(nodes_per_unit > 0))
    throw std::invalid_argument("units_per_day needs positive seconds, nodes and nodes per unit");
  return 86400.0 / seconds_per_unit * (nodes / nodes_per_unit);
}

double harmonic_mean(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("harmonic mean of no values");
  double inverse_sum = 0;
  for (double v : values) {
    if (!(v > 0)) throw std::invalid_argument("harmonic mean needs positive values");
    inverse_sum += 1.0 / v;
  }
  return static_cast<double>(values.size()) / inverse_sum;
}

double arithmetic_mean(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("arithmetic mean of no values");
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

bool bounds_differ(double low, double high) { return high - low > 1e-9 * std::abs(high); }

FomResult fom_from_problems(std::string study, std::vector<ProblemResult> problems) {
  FomResult r;
  r.study = std::move(study);
  std::vector<double> base, target, ratios, base_u, target_u, base_s, target_s;
  // A side without bound rates (filled by hand) is at its central rate under both bounds.
  const auto or_central = [](double v, double central) { return v > 0 ? v : central; };
  for (auto& p : problems) {
    p.ratio = p.target.units_per_day / p.baseline.units_per_day;
    p.baseline.units_per_day_unscaled = or_central(p.baseline.units_per_day_unscaled, p.baseline.units_per_day);
    p.baseline.units_per_day_scaled = or_central(p.baseline.units_per_day_scaled, p.baseline.units_per_day);
    p.target.units_per_day_unscaled = or_central(p.target.units_per_day_unscaled, p.target.units_per_day);
    p.target.units_per_day_scaled = or_central(p.target.units_per_day_scaled, p.target.units_per_day);
    p.ratio_unscaled = p.target.units_per_day_unscaled / p.baseline.units_per_day_unscaled;
    p.ratio_scaled = p.target.units_per_day_scaled / p.baseline.units_per_day_scaled;
    p.ratio_low = std::min({p.ratio, p.ratio_unscaled, p.ratio_scaled});
    p.ratio_high = std::max({p.ratio, p.ratio_unscaled, p.ratio_scaled});
    base.push_back(p.baseline.units_per_day);
    target.push_back(p.target.units_per_day);
    base_u.push_back(p.baseline.units_per_day_unscaled);
    target_u.push_back(p.target.units_per_day_unscaled);
    base_s.push_back(p.baseline.units_per_day_scaled);
    target_s.push_back(p.target.units_per_day_scaled);
    ratios.push_back(p.ratio);
  }
  r.baseline_hm_units_per_day = harmonic_mean(base);
  r.target_hm_units_per_day = harmonic_mean(target);
  r.fom = r.target_hm_units_per_day / r.baseline_hm_units_per_day;
  r.fom_unscaled = harmonic_mean(target_u) / harmonic_mean(base_u);
  r.fom_scaled = harmonic_mean(target_s) / harmonic_mean(base_s);
  r.fom_low = std::min({r.fom, r.fom_unscaled, r.fom_scaled});
  r.fom_high = std::max({r.fom, r.fom_unscaled, r.fom_scaled});
  r.ratio_arithmetic_mean = arithmetic_mean(ratios);
  r.ratio_harmonic_mean = harmonic_mean(ratios);
  r.problems = std::move(problems);
  return r;
}

namespace {

SideRate measured_side(const StudySide& side, double seconds, double nodes_per_unit) {
  SideRate r;
  r.platform = side.platform;
  r.nodes = side.nodes;
  r.unit = side.unit;
  r.devices_per_unit = side.devices_per_unit;
  r.nodes_per_unit = nodes_per_unit;
  r.seconds_per_unit = seconds;
  r.units_per_day = units_per_day(seconds, side.nodes * side.devices_per_unit, nodes_per_unit);
  r.method = SideMethod::measured;
  return r;
}

// How the side's pass was obtained: measured on this very platform, calibrated by a
// measurement elsewhere, or modelled alone.
SideRate estimated_side(const StudySide& side, const RunEstimate& run, double nodes_per_unit) {
  const PassEstimate& p = run.pass;
  SideRate r;
  r.platform = side.platform;
  r.nodes = side.nodes;
  r.unit = side.unit;
  r.devices_per_unit = side.devices_per_unit;
  r.nodes_per_unit = nodes_per_unit;
  r.seconds_per_unit = run.run_s;
  r.units_per_day = run.units_per_day;
  r.uncertainty = p.uncertainty;
  r.residual_share = p.residual_share;
  r.host_bound = p.host_bound;
  // Rates scale inversely with the pass time (the roll-up is linear in it).
  r.units_per_day_unscaled = p.pass_unscaled_s > 0 ? run.units_per_day * p.pass_s / p.pass_unscaled_s : r.units_per_day;
  r.units_per_day_scaled = p.pass_scaled_s > 0 ? run.units_per_day * p.pass_s / p.pass_scaled_s : r.units_per_day;
  if (!p.calibration.calibrated) {
    r.method = SideMethod::estimated;
  } else {
    const auto& m = p.calibration.measured;
    r.method = m.platform == side.platform ? SideMethod::measured : SideMethod::calibrated;
    r.calibration = m.source + " on " + (m.platform.empty() ? std::string("an unnamed platform") : m.platform);
  }
  return r;
}

std::string run_note(const std::string& workload, const RunEstimate& r) {
  std::string s = workload + " on " + r.pass.platform + ": " + std::to_string(r.passes_per_epoch) + " passes/epoch x " +
                  std::to_string(r.epochs) + " epoch(s), pass " + format_duration(r.pass.pass_s) + " +/- " +
                  format_whole_percent(r.pass.uncertainty) + ", " + format_whole_percent(r.pass.table_coverage) +
                  " of the " + (r.pass.coverage_of_baseline ? "baseline" : "predicted") + " time from its own tables";
  std::string methods;
  for (const auto& [m, share] : r.pass.by_method)
    if (share.predicted_s > 0)
      methods += (methods.empty() ? "" : ", ") + std::string(to_string(m)) + " " +
                 format_whole_percent(r.pass.ops_s > 0 ? share.predicted_s / r.pass.ops_s : 0);
  if (!methods.empty()) s += " (" + methods + ")";
  return s;
}

// A problem's measured baseline time (baseline_hours per unit of work, baseline_epoch_s,
// baseline_pass_s) as one pass on the baseline platform; `field` names the field used.
std::optional<MeasuredPass> study_measurement(const Workload& w, const StudyProblem& sp, const std::string& platform,
                                              std::string& field) {
  Calibration c;
  c.workload = w.name;
  c.platform = platform;
  if (sp.baseline_hours) {
    c.run_s = *sp.baseline_hours * 3600.0, field = "baseline_hours";
  } else if (sp.baseline_epoch_s) {
    c.epoch_s = *sp.baseline_epoch_s, field = "baseline_epoch_s";
  } else if (sp.baseline_pass_s) {
    c.pass_s = *sp.baseline_pass_s, field = "baseline_pass_s";
  } else {
    return std::nullopt;
  }
  MeasuredPass m = measured_pass(w, c, sp.epochs);
  m.precision = sp.precision.value_or(PrecisionMode::recorded);  // the problem's arithmetic, on both sides
  m.source = "the study's " + field + (sp.baseline_source.empty() ? std::string() : " (" + sp.baseline_source + ")");
  return m;
}

}  // namespace

// The layout's messages name the field they were given as a flag; an error names it once.
static std::string without_field(std::string message, const std::string& field) {
  if (const std::string prefix = field + ": "; message.starts_with(prefix)) message.erase(0, prefix.size());
  return message;
}

// A problem's parallel layout (parallel.hpp) as the study gives it; a bad one names the field.
ParallelRequest study_parallel_request(const Study& study, const StudyProblem& sp, const std::string& path) {
  ParallelRequest req;
  try {
    req.layout = parse_parallel(sp.parallel, "the layout");  // the error names the field
  } catch (const UsageError& e) {
    throw InputError(study.file, e.what(), 0, -1, path + ".parallel");
  }
  req.layout.micro_batches = sp.micro_batches.value_or(0);
  req.layout.gpus_per_node = sp.gpus_per_node.value_or(0);
  req.layout.zero_stage = static_cast<int>(sp.zero_stage.value_or(0));
  req.layout.recompute = sp.recompute;
  req.layout.recompute_attention = sp.recompute_attention;
  req.layout.sequence_parallel = sp.sequence_parallel;
  req.global_batch = sp.global_batch.value_or(0);
  return req;
}

// A problem with a parallel layout: its step on the side's platform, rolled up with the
// global batch. A layout that does not fit names the problem's field.
static ParallelRun parallel_problem(const Workload& w, const ParallelRequest& req, const std::string& platform,
                                    const Catalog& catalog, const StudyInputs& in, const RunOptions& opts,
                                    const std::string& path) {
  try {
    return run_parallel(w, platform, catalog, req, in.expand_model, in.layers, opts, path + ".parallel");
  } catch (const UsageError& e) {
    throw InputError(w.name, without_field(e.what(), path + ".parallel"), 0, -1, path + ".parallel");
  }
}

FomResult evaluate_study(const Study& study, const StudyInputs& in) {
  if (in.catalog)
    for (const auto* side : {&study.baseline, &study.target})
      if (!in.catalog->platform(side->platform))
        throw InputError(study.file, "unknown platform '" + side->platform + "' (see `fomcast platforms`)", 0, -1,
                         side == &study.baseline ? "baseline.platform" : "target.platform");
  // A machine runs nodes x devices_per_unit / nodes_per_unit units at once: fewer than one
  // is a unit it cannot run (a 16-device layout on an 8-device machine was credited half a
  // 16-device run's rate).
  auto require_room = [&](double nodes_per_unit, const std::string& field, const std::string& what) {
    for (const auto* side : {&study.baseline, &study.target}) {
      const double devices = side->nodes * side->devices_per_unit;
      if (devices >= nodes_per_unit * (1 - 1e-9)) continue;
      throw InputError(study.file,
                       what + " occupies " + format_significant(nodes_per_unit, 6) + " platform devices, and the " +
                           (side == &study.baseline ? "baseline" : "target") + " machine has " +
                           format_significant(devices, 6) + " (nodes x devices_per_unit): it cannot run one",
                       0, -1, field);
    }
  };
  std::vector<ProblemResult> problems;
  for (std::size_t i = 0; i < study.problems.size(); ++i) {
    const StudyProblem& sp = study.problems[i];
    const std::string path = "problems[" + std::to_string(i) + "]";
    ProblemResult p;
    p.name = sp.name;
    if (!sp.workload) {
      require_room(sp.nodes_per_unit, path + ".nodes_per_unit", "one unit of work");
      p.baseline = measured_side(study.baseline, *sp.baseline_hours * 3600.0, sp.nodes_per_unit);
      p.target = measured_side(study.target, *sp.target_hours * 3600.0, sp.nodes_per_unit);
      problems.push_back(std::move(p));
      continue;
    }
    if (!in.catalog || !in.workload)
      throw InputError(study.file, "problems given as workloads need the platform catalog and workloads", 0, -1,
                       path + ".workload");
    auto stored = in.workload(*sp.workload);
    if (!stored)
      throw InputError(
          study.file,
          unknown_workload_message(*sp.workload, in.workload_names ? in.workload_names() : std::vector<std::string>{}),
          0, -1, path + ".workload");
    std::optional<Workload> w;
    const std::string stored_name = stored->name;
    try {
      w = with_epoch_size(std::move(*stored), sp.batch_size, sp.samples_per_epoch, in.expand_model);
    } catch (const UsageError& e) {
      throw InputError(study.file, e.what(), 0, -1, path + ".batch_size");
    } catch (const InputError& e) {
      // The model refuses the batch (more samples than any model takes): the study gave it.
      if (!e.field.ends_with("batch_size")) throw;
      throw InputError(study.file, e.message + " (the model " + stored_name + " at this batch)", 0, -1,
                       path + ".batch_size");
    }
    // A unit of work on a parallel layout occupies its D x T x P devices.
    double nodes_per_unit = sp.nodes_per_unit;
    std::optional<ParallelRequest> layout;
    if (!sp.parallel.empty()) {
      layout = study_parallel_request(study, sp, path);
      const int64_t devices = layout->layout.devices();
      if (!sp.nodes_per_unit_given)
        nodes_per_unit = static_cast<double>(devices);
      else if (std::abs(sp.nodes_per_unit - static_cast<double>(devices)) > 1e-9 * static_cast<double>(devices))
        throw InputError(study.file,
                         "the layout " + sp.parallel + " trains one unit of work on " + std::to_string(devices) +
                             " devices, and nodes_per_unit (the platform devices one unit occupies) says " +
                             format_significant(sp.nodes_per_unit, 6) + ": leave it out or give " +
                             std::to_string(devices),
                         0, -1, path + ".nodes_per_unit");
    }
    if (layout)
      require_room(nodes_per_unit, path + ".parallel", "the layout " + sp.parallel + " of one unit of work");
    else
      require_room(nodes_per_unit, path + ".nodes_per_unit", "one unit of work");
    RunOptions opts;
    opts.epochs = sp.epochs;
    opts.nodes_per_unit = nodes_per_unit;
    opts.precision = sp.precision.value_or(PrecisionMode::recorded);
    // CANDLE step 1: the problem's measured baseline time first, then stored calibrations
    // (read before, so that a failing database is not taken for a bad study).
    const std::vector<Calibration> stored_calibrations =
        in.calibrations ? in.calibrations(*sp.workload) : std::vector<Calibration>{};
    std::string what;
    std::vector<std::string> calibrations_not_used;  // measured at another batch than the problem's
    try {
      if (auto m = study_measurement(*w, sp, study.baseline.platform, what)) opts.measured.push_back(std::move(*m));
      for (auto& m : measured_passes(*w, stored_calibrations, &calibrations_not_used))
        opts.measured.push_back(std::move(m));
    } catch (const std::exception& e) {
      throw InputError(study.file, e.what(), 0, -1, path + "." + (what.empty() ? "workload" : what));
    }
    RunEstimate base, target;
    std::optional<ParallelEstimate> base_layout, target_layout;
    try {
      // One unit of work runs on one device (or one parallel layout's devices): the machine
      // runs nodes x devices per counted node of them at once (study.hpp).
      auto run = [&](const StudySide& side) {
        opts.nodes = side.nodes * side.devices_per_unit;
        if (layout) {
          ParallelRun r = parallel_problem(*w, *layout, side.platform, *in.catalog, in, opts, path);
          (&side == &study.baseline ? base_layout : target_layout) = std::move(r.parallel);
          return std::move(r.run);
        }
        try {
          // A side the study measures ran: its time is the problem's, whatever the model says.
          if (!(&side == &study.target && sp.target_hours))
            require_fits_one_device(*w, *in.catalog->platform(side.platform), in.layers, opts.precision, opts.measured,
                                    path + ".workload");
        } catch (const UsageError& e) {
          throw InputError(w->name, without_field(e.what(), path + ".workload"), 0, -1, path + ".workload");
        }
        try {
          return estimate_run(*w, side.platform, *in.catalog, opts);
        } catch (const Refusal& e) {
          // A side's platform with nothing to estimate from: the study's field, and which
          // problem asked ("cannot estimate: platform 'A' ..." named neither).
          throw InputError(study.file, path + " (" + sp.name + "): " + e.what(), 0, -1,
                           std::string(&side == &study.baseline ? "baseline" : "target") + ".platform");
        }
      };
      base = run(study.baseline);
      target = run(study.target);
    } catch (const InputError& e) {
      throw InputError(study.file, e.message, 0, -1,
                       e.field == path + ".parallel" || e.field.ends_with(".platform") ? e.field : path + ".workload");
    }
    p.baseline = estimated_side(study.baseline, base, nodes_per_unit);
    p.estimates = std::make_shared<const ProblemEstimates>(
        ProblemEstimates{apply_precision(*w, opts.precision).workload, base, target, base_layout, target_layout});
    p.target = sp.target_hours ? measured_side(study.target, *sp.target_hours * 3600.0, nodes_per_unit)
                               : estimated_side(study.target, target, nodes_per_unit);
    const bool target_calibrated = !sp.target_hours && target.pass.calibration.calibrated;
    p.calibrated = base.pass.calibration.calibrated || target_calibrated;
    if (p.calibrated) {
      const auto& c = base.pass.calibration.calibrated ? base.pass.calibration : target.pass.calibration;
      p.calibration = c.measured.source + " on " + c.measured.platform;
    } else {
      p.calibration =
          sp.note.empty() ? std::string("no measured time of ") + *sp.workload + " on any platform" : sp.note;
    }
    p.notes.push_back(run_note(*sp.workload, base));
    if (!sp.target_hours) p.notes.push_back(run_note(*sp.workload, target));
    for (const auto& a : base.assumptions) p.notes.push_back(a);
    p.epoch_size_known = base.epoch_size_known;
    for (const auto& n : calibrations_not_used) p.notes.push_back(n);
    for (const auto* side : {&base, &target}) {
      if (side == &target && sp.target_hours) continue;
      const auto& c = side->pass.calibration;
      if (c.calibrated && c.measured.platform != side->pass.platform)
        p.notes.push_back(side->pass.platform + ": residual " + c.carry_detail);
      if (side->pass.host_bound)
        p.notes.push_back("host-bound on " + side->pass.platform + ": " +
                          format_whole_percent(side->pass.residual_share) +
                          " of the time is the residual (host, framework, input pipeline), not modelled operations");
    }
    problems.push_back(std::move(p));
  }
  FomResult result = fom_from_problems(study.name, std::move(problems));
  // Units of work named right: a node count is what the study counts, one run per platform
  // device; where the spec says how many devices a machine's node holds, say which it is.
  // A problem with a parallel layout (or its own devices per unit) runs on that many
  // devices, not one: said so, where "one run per device" had contradicted the table.
  const bool many = std::any_of(study.problems.begin(), study.problems.end(),
                                [](const StudyProblem& p) { return !p.parallel.empty() || p.nodes_per_unit != 1; });
  if (in.catalog)
    for (const auto* side : {&study.baseline, &study.target}) {
      const Platform* p = in.catalog->platform(side->platform);
      if (!p || !p->devices_per_node) continue;
      const std::string role = side == &study.baseline ? "baseline" : "target";
      result.notes.push_back(
          role + ": " + side->platform + "'s spec gives " + format_significant(p->devices_per_node->value, 3) +
          " devices per machine node (" + p->devices_per_node->source + "); the study counts " +
          format_significant(side->nodes, 6) + (side->nodes == 1 ? " node" : " nodes") +
          (side->unit.empty() ? std::string() : " (" + side->unit + ")") + " of " +
          format_significant(side->devices_per_unit, 3) + " device(s) each, " +
          (many ? "each problem's run on the devices its layout or nodes_per_unit names (the table's devices per unit)"
                : "one run per device") +
          (side->devices_per_unit_given ? std::string() : " (" + role + ".devices_per_unit not given: 1)"));
    }
  return result;
}

FomResult evaluate_study(const Study& study, const Store& store, const ModelExpander& expand_model,
                         const LayerReader& layers) {
  for (const auto* side : {&study.baseline, &study.target}) {
    if (!store.platform(side->platform)) {
      const char* field = side == &study.baseline ? "baseline.platform" : "target.platform";
      throw InputError(study.file, unknown_platform_message(side->platform, store.platforms()), 0, -1, field);
    }
  }
  const bool estimates = std::any_of(study.problems.begin(), study.problems.end(),
                                     [](const StudyProblem& p) { return p.workload.has_value(); });
  // Tables are read only when a problem needs an estimate.
  const Catalog catalog = estimates ? load_catalog(store) : Catalog{};
  StudyInputs in;
  in.catalog = estimates ? &catalog : nullptr;
  in.workload = [&store](std::string_view name) { return store.workload(name); };
  in.workload_names = [&store] {
    std::vector<std::string> names;
    for (const auto& w : store.workloads()) names.push_back(w.name);
    return names;
  };
  in.calibrations = [&store](std::string_view name) { return store.calibrations(name); };
  in.expand_model = expand_model;
  in.layers = layers;
  return evaluate_study(study, in);
}

}  // namespace fomcast
