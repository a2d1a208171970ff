// The FOM table: one row per problem, both sides' time per unit and units/day, the ratio,
// and how each side's time was obtained.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>

#include <nlohmann/json.hpp>

#include "fomcast/report/fom.hpp"
#include "fomcast/report/text_table.hpp"
#include "fomcast/text.hpp"

namespace fomcast {

using nlohmann::json;

namespace {

// One decimal where that keeps three figures; three significant figures below 100: a slow
// problem's 0.051 and 0.169 units/day had printed as 0.1 and 0.2 beside their ratio 3.32.
std::string units_per_day_text(double v) {
  return std::fabs(v) >= 100 ? format_number(v, 1) : format_significant(v, 3);
}

// Relative, about one standard deviation; all 0 when every side was measured.
json uncertainty_to_json(const FomUncertainty& u) {
  return json{{"baseline_hm", u.baseline_hm}, {"target_hm", u.target_hm}, {"fom", u.fom}};
}

// A count that is usually whole (18,688 nodes, 8 devices) as a JSON integer, so a reader
// sees 18688, not 18688.0; study files allow fractions (a share of a node), which stay numbers.
json count_json(double v) {
  return std::nearbyint(v) == v && std::fabs(v) < 9e15 ? json(static_cast<std::int64_t>(v)) : json(v);
}

// A value under the residual rule's two bounds (docs/calibration.md).
json bounds_to_json(double low, double high, double unscaled, double scaled) {
  return json{{"low", low}, {"high", high}, {"carried_unscaled", unscaled}, {"scaled_with_ops", scaled}};
}

}  // namespace

json fom_to_json(const FomResult& r) {
  json problems = json::array();
  for (const auto& p : r.problems) {
    auto side = [](const SideRate& s) {
      return json{{"platform", s.platform},
                  {"nodes", count_json(s.nodes)},
                  {"unit", s.unit.empty() ? std::string("node") : s.unit},
                  {"devices_per_unit", count_json(s.devices_per_unit)},
                  {"nodes_per_unit", count_json(s.nodes_per_unit)},
                  {"seconds_per_unit", s.seconds_per_unit},
                  {"hours_per_unit", s.seconds_per_unit / 3600.0},
                  {"units_per_day", s.units_per_day},
                  {"method", to_string(s.method)},
                  {"uncertainty", s.uncertainty},
                  {"residual_share", s.residual_share},
                  {"units_per_day_unscaled", s.units_per_day_unscaled},
                  {"units_per_day_scaled", s.units_per_day_scaled},
                  {"host_bound", s.host_bound},
                  {"calibration", s.calibration.empty() ? json(nullptr) : json(s.calibration)}};
    };
    problems.push_back(
        json{{"name", p.name},
             {"baseline_units_per_day", p.baseline.units_per_day},
             {"target_units_per_day", p.target.units_per_day},
             {"ratio", p.ratio},
             {"ratio_bounds", bounds_to_json(p.ratio_low, p.ratio_high, p.ratio_unscaled, p.ratio_scaled)},
             {"baseline", side(p.baseline)},
             {"target", side(p.target)},
             {"calibrated", p.calibrated},
             {"calibration", p.calibration.empty() ? json(nullptr) : json(p.calibration)},
             {"notes", p.notes}});
  }
  return json{{"study", r.study},
              {"fom", r.fom},
              {"fom_bounds", bounds_to_json(r.fom_low, r.fom_high, r.fom_unscaled, r.fom_scaled)},
              {"baseline_hm_units_per_day", r.baseline_hm_units_per_day},
              {"target_hm_units_per_day", r.target_hm_units_per_day},
              {"ratio_arithmetic_mean", r.ratio_arithmetic_mean},
              {"ratio_harmonic_mean", r.ratio_harmonic_mean},
              {"problems", problems},
              {"notes", r.notes},
              {"uncertainty", uncertainty_to_json(fom_uncertainty(r))}};
}

namespace {

// "77% / 3.2%": the residual shares of the two sides, "-" for sides given as hours.
std::string residual(const ProblemResult& p) {
  auto one = [](const SideRate& s) {
    return s.method == SideMethod::measured && s.calibration.empty() ? std::string("-")
                                                                     : format_percent(s.residual_share, 0);
  };
  return one(p.baseline) + " / " + one(p.target);
}

}  // namespace

namespace {

// The host-bound sides of the study in one line: "WARNING host-bound (NT3-perf on NV_K20X
// and MI250X, TC1-perf on MI250X): 72-98% of the time is residual ...".
std::string host_bound_warning(const FomResult& r) {
  std::string where;
  double lo = 1, hi = 0;
  for (const auto& p : r.problems) {
    std::string sides;
    for (const auto* s : {&p.baseline, &p.target}) {
      if (!s->host_bound) continue;
      sides += (sides.empty() ? "" : " and ") + s->platform;
      lo = std::min(lo, s->residual_share);
      hi = std::max(hi, s->residual_share);
    }
    if (!sides.empty()) where += (where.empty() ? "" : ", ") + p.name + " on " + sides;
  }
  if (where.empty()) return "";
  const std::string share = format_percent(lo, 0) == format_percent(hi, 0)
                                ? format_percent(lo, 0)
                                : format_number(100 * lo, 0) + "-" + format_percent(hi, 0);
  return "WARNING host-bound (" + where + "): " + share +
         " of the time is residual (host, framework, input pipeline), not modelled operations";
}

// Sides whose spec has no rate for a type the problem computes in, so another type's rate
// stood in ("gpt2-medium on V100_SXM2_32GB: no bf16 rate, fp32's stands in"): the study's
// precision does not run there as asked. Said in one line; the ops' notes say it op by op.
std::string borrowed_rate_warning(const FomResult& r) {
  std::string where;
  for (const auto& p : r.problems) {
    if (!p.estimates) continue;
    for (const RunEstimate* side : {&p.estimates->baseline, &p.estimates->target}) {
      const StoodInRate borrowed = stood_in_rate(side->pass, p.estimates->workload);
      if (borrowed.ops == 0) continue;
      where += (where.empty() ? "" : "; ") + p.name + " on " + side->pass.platform + ": no " +
               std::string(to_string(borrowed.asked)) + " rate, " + std::string(to_string(borrowed.with)) +
               "'s stands in";
    }
  }
  if (where.empty()) return "";
  return "WARNING a precision the spec states no rate for (" + where +
         "): those sides compute at the rate that stands in, not the one asked for";
}

// Problems whose unit of work is what a trace holds, its epoch unknown: a unit of 1 pass is
// a few milliseconds, and weighs almost nothing in the harmonic mean.
std::string epoch_unknown_warning(const FomResult& r) {
  std::string which;
  for (const auto& p : r.problems)
    if (!p.epoch_size_known) which += (which.empty() ? "" : ", ") + p.name;
  if (which.empty()) return "";
  return "WARNING epoch unknown (" + which +
         "): a unit of work is the pass(es) the trace holds; give the problem's batch_size and samples_per_epoch "
         "for a unit that means a training run";
}

}  // namespace

std::vector<std::string> fom_warnings(const FomResult& r) {
  std::vector<std::string> out;
  if (std::string w = host_bound_warning(r); !w.empty()) out.push_back(w);
  if (std::string w = epoch_unknown_warning(r); !w.empty()) out.push_back(w);
  if (std::string w = borrowed_rate_warning(r); !w.empty()) out.push_back(w);
  std::size_t workload = 0, uncalibrated = 0;
  for (const auto& p : r.problems) {
    if (p.calibration.empty()) continue;
    ++workload;
    if (!p.calibrated) ++uncalibrated;
  }
  if (uncalibrated > 0)
    out.push_back("WARNING " + std::to_string(uncalibrated) + " of " + std::to_string(workload) +
                  " workload problems not calibrated: their times are the modelled operations alone, without host, "
                  "framework or input-pipeline time (each problem's calibration says why: `fom --verbose`, or the "
                  "`calibration` field of `fom --json`)");
  return out;
}

namespace {

constexpr std::size_t kMaxWarningLines = 3;

}  // namespace

std::string fom_to_text(const FomResult& r, const Study& study, bool verbose) {
  // "NV_K20X x 18,688 nodes", or with the study's unit "MI250X x 37,632 nodes (a node here:
  // one MI250X module, 2 devices, one run per device)": what the count counts.
  const bool one_per_device = std::all_of(r.problems.begin(), r.problems.end(),
                                          [](const ProblemResult& p) { return p.baseline.nodes_per_unit == 1; });
  const auto side = [&](const StudySide& s) {
    std::string text = s.platform + " x " + format_count(s.nodes) + (s.nodes == 1 ? " node" : " nodes");
    if (!s.unit.empty() || s.devices_per_unit != 1) {
      // A unit that says its own article ("one H100 SXM5 GPU", "a DGX node") is not given another.
      const std::string lead = lowercase(s.unit.substr(0, s.unit.find(' ')));
      const bool counted =
          lead == "one" || lead == "a" || lead == "an" || std::isdigit(static_cast<unsigned char>(lead[0]));
      text += " (a node here: " + (s.unit.empty() ? std::string("one node") : counted ? s.unit : "one " + s.unit);
      if (s.devices_per_unit != 1)
        text += ", " + format_count(s.devices_per_unit) + " devices" + (one_per_device ? ", one run per device" : "");
      text += ")";
    }
    return text;
  };
  std::string out =
      "Study " + r.study + ": baseline " + side(study.baseline) + ", target " + side(study.target) + "\n\n";
  // Workload problems have a calibration (or a reason for none); hours-only studies do not.
  bool any_workload = false;
  for (const auto& p : r.problems) any_workload = any_workload || !p.calibration.empty();
  TextTable t;
  t.header = {"problem", "baseline time/unit", "baseline units/day", "target time/unit", "target units/day", "ratio",
              "how"};
  t.right_align = {false, true, true, true, true, true, false};
  // The ratio under the residual rule's bounds, where a calibration makes them differ.
  bool any_bounds = false;
  for (const auto& p : r.problems) any_bounds = any_bounds || bounds_differ(p.ratio_low, p.ratio_high);
  if (any_bounds) t.header.push_back("ratio bounds"), t.right_align.push_back(true);
  if (any_workload) t.header.push_back("residual"), t.right_align.push_back(false);
  for (const auto& p : r.problems) {
    t.rows.push_back({p.name, format_duration(p.baseline.seconds_per_unit),
                      units_per_day_text(p.baseline.units_per_day), format_duration(p.target.seconds_per_unit),
                      units_per_day_text(p.target.units_per_day), format_ratio(p.ratio, 2),
                      std::string(to_string(p.baseline.method)) + " / " + std::string(to_string(p.target.method))});
    if (any_bounds)
      t.rows.back().push_back(bounds_differ(p.ratio_low, p.ratio_high)
                                  ? format_ratio(p.ratio_low, 2) + " - " + format_ratio(p.ratio_high, 2)
                                  : std::string("-"));
    if (any_workload) t.rows.back().push_back(residual(p));
  }
  out += t.render();
  // A unit of work that takes more (or less) than one counted node says so: its units/day
  // count nodes / nodes_per_unit runs at once (docs/study-format.md).
  for (const auto& p : r.problems) {
    if (p.baseline.nodes_per_unit == 1) continue;
    const double b = p.baseline.nodes_per_unit / p.baseline.devices_per_unit,
                 t = p.target.nodes_per_unit / p.target.devices_per_unit;
    out += "(" + p.name + ": one unit of work occupies " + format_significant(p.baseline.nodes_per_unit, 3) +
           " platform devices on each side: " +
           (b == t ? format_significant(b, 3) + (b == 1 ? " counted node" : " counted nodes")
                   : format_significant(b, 3) + " counted node(s) on the baseline, " + format_significant(t, 3) +
                         " on the target") +
           ")\n";
  }
  out += "\nHM of baseline units/day: " + format_number(r.baseline_hm_units_per_day, 2) + "\n";
  out += "HM of target units/day:   " + format_number(r.target_hm_units_per_day, 2) + "\n";
  const FomUncertainty u = fom_uncertainty(r);
  out += "FOM = HM(target) / HM(baseline) = " + format_ratio(r.fom, 3) +
         (u.fom > 0 ? " +/- " + format_percent_significant(u.fom, 2) +
                          " (one standard deviation, from the problems' estimates: " +
                          format_ratio(r.fom / (1 + u.fom), 3) + " to " + format_ratio(r.fom * (1 + u.fom), 3) + ")"
                    : std::string()) +
         "\n";
  if (bounds_differ(r.fom_low, r.fom_high))
    out += "FOM under the residual rule's bounds: " + format_ratio(r.fom_low, 3) + " to " +
           format_ratio(r.fom_high, 3) +
           " (the calibrated problems' gap carried unscaled: " + format_ratio(r.fom_unscaled, 3) +
           "; scaled with the operations: " + format_ratio(r.fom_scaled, 3) +
           // A bound neither rule names is the FOM itself, outside both.
           (r.fom < std::min(r.fom_unscaled, r.fom_scaled) || r.fom > std::max(r.fom_unscaled, r.fom_scaled)
                ? "; the FOM itself, outside both: " + format_ratio(r.fom, 3)
                : std::string()) +
           ")\n";
  out += "(not the FOM, for comparison: arithmetic mean of ratios " + format_ratio(r.ratio_arithmetic_mean, 2) +
         ", harmonic mean of ratios " + format_ratio(r.ratio_harmonic_mean, 2) + ")\n";
  std::size_t calibration_lines = 0, notes = r.notes.size();
  for (const auto& p : r.problems) {
    if (!p.calibration.empty()) ++calibration_lines;
    notes += p.notes.size();
  }
  if (!verbose) {
    // The table and the FOM, then at most three lines of warnings; the rest is one flag away.
    const auto w = fom_warnings(r);
    if (!w.empty()) out += "\n";
    const std::size_t shown = w.size() <= kMaxWarningLines ? w.size() : kMaxWarningLines - 1;
    for (std::size_t i = 0; i < shown; ++i) out += w[i] + "\n";
    if (shown < w.size()) out += "... " + std::to_string(w.size() - shown) + " more warnings (--verbose)\n";
    if (const std::string hidden = counted({{calibration_lines, "calibration line"}, {notes, "note"}}); !hidden.empty())
      out += "(" + hidden + " not shown: --verbose prints them; --json and the HTML report carry them)\n";
    return out;
  }
  if (any_workload) {
    out +=
        "\nCalibration (CANDLE step 1: a projection starts from a measured run; the residual column is the share "
        "of the baseline / target time that is host, framework and input pipeline rather than modelled "
        "operations):\n";
    for (const auto& p : r.problems)
      if (!p.calibration.empty())
        out += "  " + p.name + ": " + (p.calibrated ? "calibrated by " : "NOT calibrated: ") + p.calibration + "\n";
    for (const auto& p : r.problems)
      for (const auto* s : {&p.baseline, &p.target})
        if (s->host_bound)
          out += "WARNING host-bound (" + p.name + " on " + s->platform + "): " + format_percent(s->residual_share, 0) +
                 " of the time is residual, not modelled operations\n";
  }
  for (const std::string& w : {epoch_unknown_warning(r), borrowed_rate_warning(r)})
    if (!w.empty()) out += w + "\n";
  for (const auto& n : r.notes) out += "note (study): " + n + "\n";
  for (const auto& p : r.problems)
    for (const auto& n : p.notes) out += "note (" + p.name + "): " + n + "\n";
  return out;
}

json fom_history_to_json(const std::vector<FomRecord>& records) {
  json out = json::array();
  std::map<std::string, const FomRecord*> previous;
  for (const auto& r : records) {
    const FomRecord*& before = previous[r.study_name];
    out.push_back({{"id", r.id},
                   {"recorded_at", r.recorded_at},
                   {"label", r.label},
                   {"commit", r.git_commit.empty() ? json(nullptr) : json(r.git_commit)},  // null outside git
                   {"study", r.study_name},
                   {"fom", r.fom},
                   {"problems", json::parse(r.problems_json, nullptr, false)},
                   // Against the study's record before it: what `check` would warn of.
                   {"changes", before ? fom_record_changes(*before, r) : std::vector<std::string>{}}});
    before = &r;
  }
  return out;
}

std::string fom_history_to_text(const std::vector<FomRecord>& records) {
  if (records.empty()) return "No FOM recorded yet: run `fomcast fom STUDY.json --record`.\n";
  TextTable t;
  t.header = {"id", "recorded at", "study", "label", "commit", "FOM", "change"};
  t.right_align = {true, false, false, false, false, true, true};
  std::map<std::string, const FomRecord*> previous;
  // A change is not a regression where the study's machines, problems or inputs moved between
  // the records (halving the target's nodes read as -50.00% with no word): said under the table.
  std::string said;
  for (const auto& r : records) {
    std::string change = "-";
    const FomRecord*& before = previous[r.study_name];
    if (before) {
      const double pct = 100.0 * (r.fom - before->fom) / before->fom;
      change = (pct > 0 ? "+" : "") + format_number(pct, 2) + "%";
      const auto moved = fom_record_changes(*before, r);
      if (!moved.empty()) change += " *";
      for (const auto& m : moved)
        said += "* #" + std::to_string(r.id) + " against #" + std::to_string(before->id) + ": " + m + "\n";
    }
    before = &r;
    t.rows.push_back(
        {std::to_string(r.id), r.recorded_at, r.study_name, r.label, r.git_commit, format_number(r.fom, 3), change});
  }
  return t.render() + said;
}

}  // namespace fomcast
