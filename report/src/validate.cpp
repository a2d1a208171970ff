// `fomcast validate`: leave-one-out per platform and group, leave-one-platform-out with
// the proxy the estimator picks, and cross-hardware pass-time checks.
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "fomcast/report/text_table.hpp"
#include "fomcast/report/validate.hpp"

namespace fomcast {

using nlohmann::json;

namespace {

// The interpolated rows' interpolator; the through-GEMM rows name the table they go through.
std::string interpolator(const LooGroup& g) {
  return g.method == Method::interpolated ? g.interpolator : "via the " + g.precision + " GEMM table";
}

// Statistics of nothing are null, not 0: a script read {"n": 0, "median": 0.0} as a perfect score.
json stats_json(const ErrorStats& s) {
  if (s.n == 0)
    return json{{"n", 0}, {"median", nullptr}, {"p68", nullptr}, {"p90", nullptr}, {"mean_log_ratio", nullptr}};
  return json{{"n", s.n}, {"median", s.median}, {"p68", s.p68}, {"p90", s.p90}, {"mean_log_ratio", s.mean_log_ratio}};
}

// The median |error|, "-" when nothing was measured.
std::string median_error(const ErrorStats& s) { return s.n ? format_percent(s.median, 1) : "-"; }

}  // namespace

json validation_to_json(const LooReport& loo, const std::vector<PlatformTransfer>& transfers,
                        const std::vector<CrossHardware>& cross, const std::vector<LeavePlatformOut>& held) {
  json groups = json::array(), platforms = json::array(), lopo = json::array(), pairs = json::array(),
       lpo = json::array();
  for (const auto& r : held)
    lpo.push_back({{"held_out", r.held_out},
                   {"kind", r.kind},
                   {"n", r.n},
                   {"median_abs_error", r.median_abs_error},
                   {"error", stats_json(r.stats)},
                   {"roofline_capped", r.capped},
                   {"naive_source", r.source},
                   {"peak_ratio_error", stats_json(r.peak_ratio)},
                   {"bandwidth_ratio_error", stats_json(r.bandwidth_ratio)},
                   {"curve_rule_error", stats_json(r.curve_rule)},
                   {"target_abs_error", r.target_abs_error}});
  for (const auto& g : loo.groups)
    groups.push_back({{"platform", g.platform},
                      {"kind", g.kind},
                      {"precision", g.precision},
                      {"mode", g.mode},
                      {"variant", g.variant},
                      {"method", to_string(g.method)},
                      {"interpolator", interpolator(g)},
                      {"exact_other_transposes", g.exact_other_transposes},
                      {"error", stats_json(g.stats)}});
  for (const auto& p : loo.platforms)
    platforms.push_back({{"platform", p.platform},
                         {"gemm_and_conv", stats_json(p.gemm_and_conv)},
                         {"gemm", stats_json(p.gemm)},
                         {"conv", stats_json(p.conv)},
                         {"rnn", stats_json(p.rnn)}});
  for (const auto& t : transfers)
    lopo.push_back({{"target", t.target},
                    {"precision", t.precision},
                    {"chosen", t.chosen},
                    {"chosen_error", stats_json(t.chosen_stats)},
                    {"chosen_peak_ratio_error", stats_json(t.chosen_peak_ratio)},
                    {"chosen_bandwidth_ratio_error", stats_json(t.chosen_bw_ratio)},
                    {"best", t.best},
                    {"best_error", stats_json(t.best_stats)},
                    {"median_over_sources", t.median_over_sources},
                    {"sources", t.sources}});
  for (const auto& c : cross)
    pairs.push_back({{"from_workload", c.from_workload},
                     {"from_platform", c.from_platform},
                     {"to_workload", c.to_workload},
                     {"to_platform", c.to_platform},
                     {"measured_pass_s", c.measured_pass_s},
                     {"predicted_pass_s", c.predicted_pass_s},
                     {"pass_bounds", {{"low_s", c.pass_low_s}, {"high_s", c.pass_high_s}}},
                     {"error", c.error},
                     {"measured_ops_s", c.measured_ops_s},
                     {"predicted_ops_s", c.predicted_ops_s},
                     {"uncertainty", c.uncertainty},
                     {"table_coverage", c.table_coverage},
                     {"uncalibrated_pass_s", c.predicted_ops_s},
                     {"uncalibrated_error", c.uncalibrated_error},
                     {"residual_share", c.residual_share},
                     {"host_scaled", c.host_scaled},
                     {"carry_detail", c.carry_detail},
                     {"implied_carry", std::isfinite(c.implied_carry) ? json(c.implied_carry) : json(nullptr)}});
  json coverage = json::array();
  for (const auto& b : band_coverage(loo, transfers, cross))
    coverage.push_back(
        {{"check", b.check}, {"n", b.n}, {"within", b.within}, {"share", b.n ? json(b.share) : json(nullptr)}});
  return json{{"leave_one_out", {{"platforms", platforms}, {"groups", groups}}},
              {"leave_one_platform_out", lopo},
              {"leave_platform_out", lpo},
              {"cross_hardware", pairs},
              {"band_coverage", coverage}};
}

std::string validation_to_text(const LooReport& loo, const std::vector<PlatformTransfer>& transfers,
                               const std::vector<CrossHardware>& cross, const std::vector<LeavePlatformOut>& held) {
  std::string out;
  if (!loo.platforms.empty()) {
    out += "Leave-one-out: each table entry predicted from the rest of its platform's table (median |error|)\n";
    TextTable t;
    t.header = {"platform", "GEMM+conv", "n", "GEMM", "conv", "RNN", "implicit-gemm conv", "rnn-as-gemm"};
    t.right_align = {false, true, true, true, true, true, true, true};
    for (const auto& p : loo.platforms) {
      // The through-GEMM rows: the median of the platform's per-group medians.
      std::vector<double> ig_med, rg_med;
      for (const auto& g : loo.groups) {
        if (g.platform != p.platform) continue;
        if (g.method == Method::implicit_gemm) ig_med.push_back(g.stats.median);
        if (g.method == Method::rnn_as_gemm) rg_med.push_back(g.stats.median);
      }
      auto med = [](std::vector<double> v) {
        if (v.empty()) return std::string("-");
        std::sort(v.begin(), v.end());
        return format_percent(v[v.size() / 2], 1);
      };
      t.rows.push_back({p.platform, median_error(p.gemm_and_conv), std::to_string(p.gemm_and_conv.n),
                        median_error(p.gemm), median_error(p.conv), median_error(p.rnn), med(ig_med), med(rg_med)});
    }
    out += t.render();
    out +=
        "\nPer group (interpolated = the estimator's `interpolated` method; implicit-gemm / rnn-as-gemm = through "
        "the GEMM table):\n";
    TextTable d;
    d.header = {"platform",     "kind", "precision", "mode", "variant", "method",
                "interpolator", "n",    "median",    "p68",  "p90",     "bias"};
    d.right_align = {false, false, false, false, false, false, false, true, true, true, true, true};
    for (const auto& g : loo.groups)
      d.rows.push_back(
          {g.platform, g.kind, g.precision, g.mode, g.variant, std::string(to_string(g.method)), interpolator(g),
           std::to_string(g.stats.n), median_error(g.stats), g.stats.n ? format_percent(g.stats.p68, 1) : "-",
           g.stats.n ? format_percent(g.stats.p90, 1) : "-", format_percent(std::exp(g.stats.mean_log_ratio) - 1, 1)});
    out += d.render();
  }
  if (!transfers.empty()) {
    out +=
        "\nLeave-one-platform-out: a platform's training tables predicted from another platform's (median |error| "
        "over the shapes both measured)\n";
    TextTable t;
    t.header = {"target",          "precision",   "chosen source", "roofline ratio",      "peak ratio",
                "bandwidth ratio", "best source", "best",          "median over sources", "sources"};
    t.right_align = {false, false, false, true, true, true, false, true, true, true};
    for (const auto& r : transfers)
      t.rows.push_back({r.target, r.precision, r.chosen.empty() ? "-" : r.chosen, median_error(r.chosen_stats),
                        median_error(r.chosen_peak_ratio), median_error(r.chosen_bw_ratio), r.best,
                        median_error(r.best_stats), format_percent(r.median_over_sources, 1),
                        std::to_string(r.sources)});
    out += t.render();
  }
  if (!held.empty()) {
    out +=
        "\nLeave-platform-out (NeuSight tables): each GPU predicted from the others' tables and its spec, as "
        "`estimate` does for a GPU with no table (median |error|), next to the most alike source carried by the "
        "fp32 peak ratio and by the bandwidth ratio, and (memory kinds) the normalised curves alone, which the "
        "estimator tries first (docs/accuracy.md section 5); target: issue 13's goal for the kind\n";
    TextTable t;
    t.header = {"held out", "kind",         "n",          "fomcast",         "target",    "p90", "bias",
                "capped",   "naive source", "peak ratio", "bandwidth ratio", "curve rule"};
    t.right_align = {false, false, true, true, false, true, true, true, false, true, true, true};
    for (const auto& r : held) {
      t.rows.push_back({r.held_out, r.kind, std::to_string(r.n), median_error(r.stats),
                        (meets_target(r) ? "met " : "over ") + format_percent(r.target_abs_error, 0),
                        format_percent(r.stats.p90, 1), format_percent(std::exp(r.stats.mean_log_ratio) - 1, 1),
                        std::to_string(r.capped), r.source.empty() ? "-" : r.source, median_error(r.peak_ratio),
                        median_error(r.bandwidth_ratio), median_error(r.curve_rule)});
    }
    out += t.render();
    const LeavePlatformOutSummary s = summarize(held);
    out += std::to_string(s.met) + " of " + std::to_string(s.rows) + " rows within their target; the rows' median " +
           format_percent(s.median_abs_error, 1) + "\n";
  }
  if (!cross.empty()) {
    out += "\nCross-hardware: one workload's pass predicted from the same workload recorded elsewhere\n";
    TextTable t;
    t.header = {"from",  "recorded on", "to",           "measured on",   "measured pass", "predicted pass",
                "error", "+/-",         "measured ops", "predicted ops", "table coverage"};
    t.right_align = {false, false, false, false, true, true, true, true, true, true, true};
    for (const auto& c : cross)
      t.rows.push_back({c.from_workload, c.from_platform, c.to_workload, c.to_platform,
                        format_duration(c.measured_pass_s), format_duration(c.predicted_pass_s),
                        format_percent(c.error, 1), format_percent(c.uncertainty, 0), format_duration(c.measured_ops_s),
                        format_duration(c.predicted_ops_s), format_percent(c.table_coverage, 0)});
    out += t.render();
    out +=
        "\nThe same pairs without calibration (the modelled operations alone, no measured time) and with it "
        "(the source trace's step split into modelled and residual, the residual carried; bounds: the "
        "whole gap carried unscaled, or scaled with the operations):\n";
    TextTable u;
    u.header = {"from",  "to",       "measured pass", "uncalibrated",      "error",           "calibrated",
                "error", "residual", "bounds",        "carry for 0 error", "residual carried"};
    u.right_align = {false, false, true, true, true, true, true, true, true, true, false};
    for (const auto& c : cross)
      u.rows.push_back(
          {c.from_platform, c.to_platform, format_duration(c.measured_pass_s), format_duration(c.predicted_ops_s),
           format_percent(c.uncalibrated_error, 1), format_duration(c.predicted_pass_s), format_percent(c.error, 1),
           format_percent(c.residual_share, 0), format_duration(c.pass_low_s) + " - " + format_duration(c.pass_high_s),
           std::isfinite(c.implied_carry) ? format_number(c.implied_carry, 3) : std::string("-"), c.carry_detail});
    out += u.render();
  }
  // Whether the bands mean what they say: about two thirds of the truths within +-1 band.
  const auto coverage = band_coverage(loo, transfers, cross);
  if (coverage.back().n > 0) {
    out +=
        "\nBand coverage: the share of held-out truths within +-1 band of the prediction (about two thirds "
        "when the bands mean what they say)\n";
    TextTable b;
    b.header = {"check", "n", "within +-1 band", "share"};
    b.right_align = {false, true, true, true};
    for (const auto& c : coverage)
      if (c.n > 0)
        b.rows.push_back({c.check, std::to_string(c.n), std::to_string(c.within), format_percent(c.share, 1)});
    out += b.render();
  }
  return out;
}

json shared_op_error_to_json(const std::vector<SharedOpError>& shared) {
  json out = json::array();
  for (const auto& e : shared)
    out.push_back({{"check", e.check},
                   {"rows", e.rows},
                   {"platform_pairs", e.platform_pairs},
                   {"rho", e.rho},
                   {"correlation", e.correlation}});
  return out;
}

std::string shared_op_error_to_text(const std::vector<SharedOpError>& shared) {
  if (shared.empty() || shared.back().rows == 0) return "";
  std::string out =
      "\nShared op-model error: the slope rho of one platform's held-out log error on another's, same rows, "
      "predicted independently (calibration carries the kernel part k of its log error as exp(rho k))\n";
  TextTable t;
  t.header = {"check", "rows", "platform pairs", "rho", "correlation"};
  t.right_align = {false, true, true, true, true};
  for (const auto& e : shared)
    if (e.rows > 0)
      t.rows.push_back({e.check, std::to_string(e.rows), std::to_string(e.platform_pairs), format_number(e.rho, 3),
                        format_number(e.correlation, 3)});
  return out + t.render();
}

json band_refit_to_json(const std::vector<BandRefit>& refits) {
  json out = json::array();
  for (const auto& r : refits)
    out.push_back({{"check", r.check},
                   {"band", r.band >= 0 ? json(r.band) : json(nullptr)},
                   {"n", r.n},
                   {"coverage", r.coverage},
                   {"scale_for_two_thirds", r.scale_for_68},
                   {"held_out_coverage", r.held_out_coverage >= 0 ? json(r.held_out_coverage) : json(nullptr)},
                   {"held_out_scale", r.held_out_scale > 0 ? json(r.held_out_scale) : json(nullptr)}});
  return out;
}

std::string band_refit_to_text(const std::vector<BandRefit>& refits) {
  if (refits.empty() || refits.back().n == 0) return "";
  std::string out =
      "\nBand refit (measured, not applied): the factor the bands would need for 68.3% of the truths within "
      "+-1 band\n";
  TextTable t;
  t.header = {"check", "band", "n", "within +-1 band", "bands x this for two thirds", "refit out of sample"};
  t.right_align = {false, true, true, true, true, true};
  for (const auto& r : refits)
    if (r.n > 0)
      t.rows.push_back(
          {r.check, r.band >= 0 ? format_percent(r.band, 0) : std::string("all"), std::to_string(r.n),
           format_percent(r.coverage, 1), format_number(r.scale_for_68, 2),
           r.held_out_coverage < 0 ? std::string("- (one pair)")
           : r.held_out_scale > 0
               ? format_percent(r.held_out_coverage, 1) + " (x " + format_number(r.held_out_scale, 2) + ")"
               : format_percent(r.held_out_coverage, 1) + (r.check == "all" ? " (each x the other)" : " (by pair)")});
  return out + t.render() +
         "(refit out of sample: within +-1 band x a factor fitted on other rows: each check's by the other "
         "check's, each band value's by the rows of the other platform pairs, a pair's two directions held out "
         "together)\n";
}

}  // namespace fomcast
