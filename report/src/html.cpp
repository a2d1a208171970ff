// The HTML report of a study (`fomcast report`): one page, no outside references, that a
// vendor can paste into a co-design report and a centre can print for a decision. It shows
// the numbers `fom` computed (the same FomResult), the machines with the sources of their
// figures, every problem, and for each estimated workload where its time goes and how sure
// each part is. Every string from user data is escaped through chart::html_escape.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "assets.hpp"
#include "charts.hpp"
#include "fomcast/format.hpp"
#include "fomcast/report/fom.hpp"
#include "fomcast/report/html.hpp"

namespace fomcast {

namespace {

using chart::html_escape;

std::string esc(std::string_view s) { return html_escape(s); }

// Hours per unit as `fom` prints them: three decimals from an hour up, three significant
// digits below.
std::string hours(double seconds) {
  const double h = seconds / 3600.0;
  return h >= 1 ? format_number(h, 3) : format_significant(h, 3);
}

// About three significant digits, never in exponent form: 28.2, 517, 12,345.
std::string three_digits(double v) {
  const int magnitude = v > 0 ? static_cast<int>(std::floor(std::log10(v))) : 0;
  return format_number(v, std::clamp(2 - magnitude, 0, 6));
}

std::string plus_minus(double u) { return u > 0 ? "\u00b1" + format_share(u) : "\u2013"; }

// A word for a shell command line: quoted when it holds anything but the safe characters.
std::string shell_word(const std::string& s) {
  if (!s.empty() &&
      s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-+:/=") == std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string tag(std::string_view method) {
  return "<span class=\"tag " + esc(method) + "\">" + esc(method) + "</span>";
}

// How one side of a problem was obtained, with its uncertainty where it has one.
std::string how(const SideRate& s) {
  return tag(to_string(s.method)) + (s.uncertainty > 0 ? " " + plus_minus(s.uncertainty) : "");
}

// A table whose cells are HTML already (escaped by whoever built them).
struct HtmlTable {
  std::vector<std::pair<std::string, int>> groups;  // an optional row above the header: text, columns spanned
  std::vector<std::string> header;
  std::vector<bool> numeric;  // per column: right-aligned
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> footer;
  std::vector<std::string> cell_class;  // per column, extra class ("name", "shape")
  std::string render() const {
    auto cls = [&](std::size_t i) {
      std::string c = i < numeric.size() && numeric[i] ? "num" : "";
      if (i < cell_class.size() && !cell_class[i].empty()) c += (c.empty() ? "" : " ") + cell_class[i];
      return c.empty() ? std::string() : " class=\"" + c + "\"";
    };
    std::string out = "<table>\n<thead>";
    if (!groups.empty()) {
      out += "<tr class=\"groups\">";
      for (const auto& [text, span] : groups) out += "<th colspan=\"" + std::to_string(span) + "\">" + text + "</th>";
      out += "</tr>";
    }
    out += "<tr>";
    for (std::size_t i = 0; i < header.size(); ++i) {
      const bool num = i < numeric.size() && numeric[i];
      out += std::string(num ? "<th class=\"num\">" : "<th>") + header[i] + "</th>";
    }
    out += "</tr></thead>\n<tbody>\n";
    for (const auto& r : rows) {
      out += "<tr>";
      for (std::size_t i = 0; i < r.size(); ++i) out += "<td" + cls(i) + ">" + r[i] + "</td>";
      out += "</tr>\n";
    }
    out += "</tbody>\n";
    if (!footer.empty()) {
      out += "<tfoot><tr>";
      for (std::size_t i = 0; i < footer.size(); ++i)
        out += std::string(i < numeric.size() && numeric[i] ? "<td class=\"num\">" : "<td>") + footer[i] + "</td>";
      out += "</tr></tfoot>\n";
    }
    return out + "</table>\n";
  }
};

std::string figure(const std::string& svg, const std::string& caption) {
  return "<figure>\n" + svg + "\n<figcaption>" + caption + "</figcaption>\n</figure>\n";
}

std::string note_list(const std::vector<std::string>& notes) {
  std::string out = "<ul class=\"notes\">\n";
  for (const auto& n : notes) out += "<li>" + esc(n) + "</li>\n";
  return out + "</ul>\n";
}

// ---------------------------------------------------------------------------------------
// Header and machines

// "NV_K20X × 18,688 nodes", "H100 × 1 node of 8 devices": one side's machine, as the study
// counts it ("A100_SXM4_80GB × 1 nodes" hid the DGX's 8 GPUs).
std::string machine_text(const StudySide& side) {
  std::string out = side.platform + " \u00d7 " + format_count(side.nodes) + (side.nodes == 1 ? " node" : " nodes");
  if (side.devices_per_unit != 1)
    out += " of " + format_count(side.devices_per_unit) + (side.devices_per_unit == 1 ? " device" : " devices");
  return out;
}

std::string header(const HtmlReportInput& in) {
  const Study& s = *in.study;
  std::string out = "<header>\n<p class=\"kicker\">fomcast figure-of-merit report</p>\n<h1>" + esc(s.name) + "</h1>\n";
  if (!s.description.empty()) out += "<p>" + esc(s.description) + "</p>\n";
  out += "<p><strong>Baseline</strong> " + esc(machine_text(s.baseline)) +
         " &nbsp;\u2192&nbsp; <strong>target</strong> " + esc(machine_text(s.target)) + ", " +
         std::to_string(s.problems.size()) + " problem" + (s.problems.size() == 1 ? "" : "s") + ".</p>\n";
  out += "<dl class=\"provenance\">\n";
  auto item = [&](std::string_view k, const std::string& v) {
    out += "<dt>" + esc(k) + "</dt><dd>" + esc(v) + "</dd>\n";
  };
  item("generated", in.generated_at);
  item("by", in.version);
  item("git commit", in.commit.empty() ? "unknown" : in.commit);
  item("study file", s.file);
  item("database", in.database);
  out += "</dl>\n</header>\n";
  return out;
}

struct Figure {
  std::string label;
  std::function<std::optional<std::string>(const Platform&)> value;  // HTML, with its source
};

std::string sourced(const Sourced& s, double scale, int digits, std::string_view unit) {
  std::string v = format_significant(s.value * scale, digits);
  if (!unit.empty()) v += " " + std::string(unit);
  return esc(v) + (s.source.empty() ? "" : "<div class=\"src\">" + esc(s.source) + "</div>");
}

std::function<std::optional<std::string>(const Platform&)> figure_of(std::optional<Sourced> Platform::*field,
                                                                     double scale, const std::string& unit) {
  return [field, scale, unit](const Platform& p) -> std::optional<std::string> {
    if (!(p.*field)) return std::nullopt;
    return sourced(*(p.*field), scale, 4, unit);
  };
}

std::string machines(const HtmlReportInput& in) {
  const Study& s = *in.study;
  std::string out = "<section id=\"machines\">\n<h2>Baseline and target machines</h2>\n";
  out +=
      "<p>One node of each machine as fomcast knows it (<code>fomcast platforms --json</code>), every figure with "
      "its source.</p>\n";
  std::vector<Figure> rows;
  rows.push_back({"description", [](const Platform& p) -> std::optional<std::string> {
                    return p.description.empty() ? std::nullopt : std::optional(esc(p.description));
                  }});
  rows.push_back({"device", [](const Platform& p) -> std::optional<std::string> {
                    std::string d;
                    for (const auto* part : {&p.vendor, &p.architecture, &p.device_kind})
                      if (!part->empty()) d += (d.empty() ? "" : " \u00b7 ") + *part;
                    return d.empty() ? std::nullopt : std::optional(esc(d));
                  }});
  std::set<DType> dtypes;
  for (const auto* p : {&in.baseline_platform, &in.target_platform})
    if (*p)
      for (const auto& [d, v] : (*p)->peak_flop_per_s) dtypes.insert(d);
  for (DType d : dtypes)
    rows.push_back({"peak " + std::string(to_string(d)), [d](const Platform& p) -> std::optional<std::string> {
                      auto it = p.peak_flop_per_s.find(d);
                      if (it == p.peak_flop_per_s.end()) return std::nullopt;
                      return sourced(it->second, 1e-12, 4, d == DType::int8 ? "TOP/s" : "TFLOP/s");
                    }});
  rows.push_back({"memory bandwidth", figure_of(&Platform::mem_bw_bytes_per_s, 1e-9, "GB/s")});
  rows.push_back({"memory", figure_of(&Platform::mem_bytes, 1.0 / (1024.0 * 1024 * 1024), "GiB")});
  // What a co-design point changes besides rates: the units and clock the transfer model
  // reads, the cache, the host link, and the network levels of a layout across nodes.
  rows.push_back({"compute units (SMs, CUs)", figure_of(&Platform::compute_units, 1, "")});
  rows.push_back({"boost clock", figure_of(&Platform::clock_hz, 1e-6, "MHz")});
  rows.push_back({"L2 cache", figure_of(&Platform::l2_bytes, 1.0 / (1024.0 * 1024), "MiB")});
  rows.push_back({"host link", figure_of(&Platform::host_link_bw_bytes_per_s, 1e-9, "GB/s")});
  rows.push_back({"interconnect bandwidth", figure_of(&Platform::net_bw_bytes_per_s, 1e-9, "GB/s")});
  rows.push_back({"interconnect latency", figure_of(&Platform::net_latency_s, 1e6, "us")});
  rows.push_back({"devices per node", figure_of(&Platform::devices_per_node, 1, "")});
  rows.push_back({"link within a node", figure_of(&Platform::intra_node_bw_bytes_per_s, 1e-9, "GB/s")});
  rows.push_back({"NICs per node", figure_of(&Platform::nics_per_node, 1, "")});
  rows.push_back({"NIC bandwidth", figure_of(&Platform::nic_bw_bytes_per_s, 1e-9, "GB/s")});
  rows.push_back({"power", figure_of(&Platform::power_w, 1, "W")});
  rows.push_back({"host speed", figure_of(&Platform::host_speed, 1, "\u00d7 reference")});
  rows.push_back({"framework overhead", figure_of(&Platform::overhead_factor, 1, "\u00d7 reference")});
  rows.push_back({"kernel launch", figure_of(&Platform::launch_overhead_s, 1e6, "us")});
  rows.push_back({"origin", [](const Platform& p) -> std::optional<std::string> {
                    return std::optional(esc(std::string(to_string(p.origin))));
                  }});

  HtmlTable t;
  t.header = {"", "baseline: " + esc(s.baseline.platform), "target: " + esc(s.target.platform)};
  t.rows.push_back({"nodes", esc(format_count(s.baseline.nodes)), esc(format_count(s.target.nodes))});
  if (s.baseline.devices_per_unit != 1 || s.target.devices_per_unit != 1)
    t.rows.push_back({"devices per counted node (the study's)", esc(format_count(s.baseline.devices_per_unit)),
                      esc(format_count(s.target.devices_per_unit))});
  // A shipped spec's missing figure was not published; a user's (a co-design point) was not given.
  const auto missing = [](const std::optional<Platform>& p) {
    return std::string("<span class=\"muted\">") +
           (p && p->origin == PlatformOrigin::user ? "not in the spec" : "not published") + "</span>";
  };
  for (const auto& f : rows) {
    std::optional<std::string> b, g;
    if (in.baseline_platform) b = f.value(*in.baseline_platform);
    if (in.target_platform) g = f.value(*in.target_platform);
    if (!b && !g) continue;
    t.rows.push_back(
        {esc(f.label), b.value_or(missing(in.baseline_platform)), g.value_or(missing(in.target_platform))});
  }
  return out + t.render() + "</section>\n";
}

// ---------------------------------------------------------------------------------------
// The FOM and the problems

std::string fom_section(const HtmlReportInput& in) {
  const FomResult& r = *in.fom;
  const Study& s = *in.study;
  const FomUncertainty u = fom_uncertainty(r);
  std::string out = "<section id=\"fom\">\n<h2>Figure of merit</h2>\n<div class=\"fom-box\">\n";
  out += "<div class=\"fom-value\"><small>FOM</small><data id=\"fom-value\" value=\"" + exact(r.fom) + "\">" +
         format_ratio(r.fom, 3) + "</data></div>\n<div>";
  out += "<div>FOM = HM(target units/day) / HM(baseline units/day) = " + format_number(r.target_hm_units_per_day, 2) +
         " / " + format_number(r.baseline_hm_units_per_day, 2) + "</div>";
  if (u.fom > 0)
    out += "<div>uncertainty <strong><data id=\"fom-uncertainty\" value=\"" + exact(u.fom) + "\">" + plus_minus(u.fom) +
           "</data></strong>: about " + three_digits(r.fom / (1 + u.fom)) + " to " + three_digits(r.fom * (1 + u.fom)) +
           " <span class=\"muted\">(one standard deviation, first order, the problems' and sides' errors taken as "
           "independent)</span></div>";
  else
    out += "<div class=\"muted\">No uncertainty band: every side of every problem was measured.</div>";
  if (bounds_differ(r.fom_low, r.fom_high))
    out += "<div>under the residual rule's bounds: <strong><data id=\"fom-low\" value=\"" + exact(r.fom_low) + "\">" +
           format_ratio(r.fom_low, 3) + "</data> to <data id=\"fom-high\" value=\"" + exact(r.fom_high) + "\">" +
           format_ratio(r.fom_high, 3) + "</data></strong> <span class=\"muted\">(the calibrated problems' gap " +
           "carried unscaled: " + format_ratio(r.fom_unscaled, 3) +
           "; scaled with the operations: " + format_ratio(r.fom_scaled, 3) +
           (r.fom < std::min(r.fom_unscaled, r.fom_scaled) || r.fom > std::max(r.fom_unscaled, r.fom_scaled)
                ? "; the FOM itself, outside both: " + format_ratio(r.fom, 3)
                : std::string()) +
           ")</span></div>";
  out += "</div>\n</div>\n";

  HtmlTable t;
  t.header = {"", "machine", "harmonic mean of units/day", "uncertainty"};
  t.numeric = {false, false, true, true};
  t.rows.push_back({"baseline", esc(machine_text(s.baseline)), format_number(r.baseline_hm_units_per_day, 2),
                    plus_minus(u.baseline_hm)});
  t.rows.push_back(
      {"target", esc(machine_text(s.target)), format_number(r.target_hm_units_per_day, 2), plus_minus(u.target_hm)});
  out += t.render();
  out +=
      "<div class=\"not-fom\"><strong>Not the FOM</strong>, shown because they are often computed by mistake: "
      "arithmetic mean of the per-problem ratios <strong>" +
      format_number(r.ratio_arithmetic_mean, 2) + "</strong>, harmonic mean of the ratios <strong>" +
      format_number(r.ratio_harmonic_mean, 2) +
      "</strong>. The FOM averages the rates on each machine, not the ratios.</div>\n";
  // What `fom` prints under its table, here in full.
  if (const auto warnings = fom_warnings(r); !warnings.empty()) {
    out += "<div class=\"not-fom\"><strong>Warnings</strong><ul>\n";
    for (const auto& w : warnings) out += "<li>" + esc(w.starts_with("WARNING ") ? w.substr(8) : w) + "</li>\n";
    out += "</ul></div>\n";
  }
  return out + "</section>\n";
}

std::string problems_section(const HtmlReportInput& in) {
  const FomResult& r = *in.fom;
  const Study& s = *in.study;
  std::string out = "<section id=\"problems\">\n<h2>Problems</h2>\n";

  std::vector<chart::Bar> bars;
  bool whiskers = false;
  for (const auto& p : r.problems) {
    chart::Bar b;
    b.label = p.name;
    b.value = p.ratio;
    b.value_label = format_ratio(p.ratio, 2);
    const double u = std::hypot(p.baseline.uncertainty, p.target.uncertainty);
    // A calibrated problem's band is mostly the reach of the residual rule's two bounds: its
    // whisker is those bounds (a symmetric x(1 + 6.88) ran NT3's 6.5-51 to 402).
    if (bounds_differ(p.ratio_low, p.ratio_high) && p.ratio_low > 0)
      b.low = p.ratio_low, b.high = p.ratio_high, whiskers = true;
    else if (u > 0)
      b.low = p.ratio / (1 + u), b.high = p.ratio * (1 + u), whiskers = true;
    bars.push_back(std::move(b));
  }
  out +=
      figure(chart::log_bars(bars, {{r.fom, "FOM " + format_ratio(r.fom, 3)}},
                             "Ratio of target to baseline units/day per problem",
                             "target units/day / baseline units/day (log scale)"),
             "Ratio of the target's to the baseline's units of work per day, per problem, on a log axis. Bars grow "
             "from 1 (the solid line, as fast as the baseline): right where the target is faster, left and orange "
             "where it is slower. The dashed line is the FOM." +
                 std::string(whiskers ? " Whiskers: ratio / (1 + u) to ratio \u00d7 (1 + u), u combining both sides' "
                                        "uncertainties; for a calibrated problem, the ratio's bounds under the "
                                        "residual rule."
                                      : ""));

  HtmlTable t;
  t.groups = {{"", 1},
              {"baseline: " + esc(machine_text(s.baseline)) +
                   (s.baseline.unit.empty() ? std::string() : " (" + esc(s.baseline.unit) + ")"),
               3},
              {"target: " + esc(machine_text(s.target)) +
                   (s.target.unit.empty() ? std::string() : " (" + esc(s.target.unit) + ")"),
               3},
              {"", 1}};
  t.header = {"problem", "h/unit", "units/day", "how", "h/unit", "units/day", "how", "ratio"};
  t.numeric = {false, true, true, false, true, true, false, true};
  t.cell_class = {"name", "", "", "method", "", "", "method"};
  for (std::size_t i = 0; i < r.problems.size(); ++i) {
    const auto& p = r.problems[i];
    const StudyProblem* sp = i < s.problems.size() ? &s.problems[i] : nullptr;
    std::string name = esc(p.name);
    if (sp && sp->workload && *sp->workload != p.name)
      name += "<div class=\"src\">workload " + esc(*sp->workload) + "</div>";
    t.rows.push_back(
        {name, hours(p.baseline.seconds_per_unit), three_digits(p.baseline.units_per_day), how(p.baseline),
         hours(p.target.seconds_per_unit), three_digits(p.target.units_per_day), how(p.target),
         "<strong>" + format_ratio(p.ratio, 2) + "</strong>" +
             (bounds_differ(p.ratio_low, p.ratio_high) ? "<div class=\"src\">bounds " + format_ratio(p.ratio_low, 2) +
                                                             " to " + format_ratio(p.ratio_high, 2) + "</div>"
                                                       : std::string())});
  }
  t.footer = {"harmonic mean",
              "",
              format_number(r.baseline_hm_units_per_day, 2),
              "",
              "",
              format_number(r.target_hm_units_per_day, 2),
              "",
              "FOM " + format_ratio(r.fom, 3)};
  out += t.render();
  out +=
      "<p class=\"muted\">h/unit: hours per unit of work (one training run) on one unit's share of the machine; "
      "units/day: 86,400 / seconds per unit \u00d7 nodes \u00d7 devices per node / devices per unit (the study's "
      "<code>devices_per_unit</code> and <code>nodes_per_unit</code>: how many units run at once). <em>measured</em>: "
      "hours given in the study; <em>estimated</em>: predicted from the workload's operations on that platform; "
      "<em>calibrated</em>: a measured time carried to the other platform, its modelled operations projected there "
      "and the rest (host, framework, the op-model's error) carried as docs/calibration.md splits it; the ratio's "
      "bounds are that rest carried unscaled or scaled with the operations. \u00b1: relative uncertainty of the "
      "time, about one standard deviation.</p>\n";
  return out + "</section>\n";
}

// ---------------------------------------------------------------------------------------
// One workload problem: where the time goes on each side

constexpr OpKind kKinds[] = {OpKind::gemm,        OpKind::batched_gemm, OpKind::conv,          OpKind::rnn,
                             OpKind::elementwise, OpKind::reduction,    OpKind::normalization, OpKind::pooling,
                             OpKind::embedding,   OpKind::optimizer,    OpKind::collective,    OpKind::memcpy,
                             OpKind::other};
// Okabe-Ito first (distinct for colour-blind readers), then further hues; grey last for
// the overhead line.
const char* const kKindColours[] = {"#0072B2", "#56B4E9", "#009E73", "#CC79A7", "#E69F00", "#D55E00", "#F0E442",
                                    "#6A3D9A", "#B15928", "#332288", "#117733", "#888888", "#AA4499"};
const char* const kOverheadColour = "#C8C8C8";

// Table-backed methods in blues, fallbacks in oranges and reds, unestimated grey.
std::string method_colour(Method m) {
  switch (m) {
    case Method::measured: return "#08306B";
    case Method::table: return "#08519C";
    case Method::interpolated: return "#3182BD";
    case Method::implicit_gemm: return "#6BAED6";
    case Method::rnn_as_gemm: return "#9ECAE1";
    case Method::scaled_table: return "#FDAE6B";
    case Method::bandwidth: return "#FD8D3C";
    case Method::network: return "#E6550D";
    case Method::roofline: return "#A63603";
    case Method::scaled: return "#7F2704";
    case Method::unestimated: return "#999999";
  }
  return "#999999";
}

struct SideView {
  std::string role;  // "baseline" or "target"
  const RunEstimate* run;
  const ParallelEstimate* layout = nullptr;  // the step as its layout splits it; null on one device
};

// The kinds' times as the pass counts them: a calibration scales the modelled operations
// (modelled_s = ops_s x its carry), and the kinds must add up to that, not to the raw sum.
double ops_carry(const RunEstimate& r) {
  const auto& c = r.pass.calibration;
  return c.calibrated && c.ops_carry > 0 ? c.ops_carry : 1.0;
}
double carried_ops_s(const RunEstimate& r) { return r.pass.ops_s * ops_carry(r); }

// `updates_only`: the optimizer phase's operations alone.
std::vector<double> time_by_kind(const RunEstimate& r, const Workload& w, bool updates_only = false) {
  std::vector<double> t(std::size(kKinds), 0.0);
  const double carry = ops_carry(r);
  for (const auto& e : r.pass.ops) {
    const Op& op = w.ops[e.op_index];
    if (updates_only && op.phase != Phase::optimizer) continue;
    for (std::size_t k = 0; k < std::size(kKinds); ++k)
      if (kKinds[k] == op.kind) t[k] += op.count * e.predicted_s * carry;
  }
  return t;
}

// What the pass holds beyond its operations and its overhead line: a parallel layout's step
// (the busiest device's micro-batches, exposed communication, the pipeline's bubble) over
// the one micro-batch on one device the operations are. 0 for a pass on one device.
// Round-off of the subtraction (6.68e-05 ps) is 0: it had shown as a row of its own.
double rest_of_step(const RunEstimate& r) {
  const double rest = r.pass.pass_s - carried_ops_s(r) - r.pass.residual_s;
  return rest > r.pass.pass_s * 1e-9 ? rest : 0.0;
}

std::string share(double part, double whole) { return whole > 0 ? format_share(part / whole) : "\u2013"; }

std::string summary_table(const std::vector<SideView>& sides) {
  HtmlTable t;
  // Under a layout the pass is the step, split as the layout's op graph splits it: the busiest
  // device's compute, the communication overlap did not hide, the pipeline's bubble. Its
  // operations are one micro-batch on one device: shown as "ops", the other micro-batches
  // and the layout had read as a "rest of the step" of 87-94%.
  bool layout = false, rest = false;
  for (const auto& s : sides) layout = layout || s.layout, rest = rest || (!s.layout && rest_of_step(*s.run) > 0);
  if (layout)
    t.header = {"side", "platform", "step", "= compute", "+ exposed communication", "+ pipeline bubble", "+ overhead"};
  else
    t.header = {"side", "platform", "pass", "= ops", "+ overhead"};
  if (rest) t.header.push_back("+ rest of the step");
  for (const char* h : {"passes/epoch", "epoch", "epochs", "run (unit)", "runs/day", "from own tables"})
    t.header.push_back(h);
  t.numeric = std::vector<bool>(t.header.size(), true);
  t.numeric[0] = t.numeric[1] = false;
  for (const auto& s : sides) {
    const RunEstimate& r = *s.run;
    std::vector<std::string> row{
        esc(s.role), esc(r.pass.platform),
        format_duration(r.pass.pass_s) +
            (r.pass.uncertainty > 0 ? " <span class=\"muted\">" + plus_minus(r.pass.uncertainty) + "</span>" : "")};
    if (layout) {
      row.push_back(format_duration(s.layout ? s.layout->compute_s : carried_ops_s(r)) +
                    (s.layout ? "<div class=\"src\">busiest device</div>" : ""));
      row.push_back(format_duration(s.layout ? s.layout->exposed_comm_s : 0.0));
      row.push_back(format_duration(s.layout ? s.layout->bubble_s : 0.0));
    } else {
      row.push_back(format_duration(carried_ops_s(r)));
    }
    row.push_back(format_duration(r.pass.residual_s));
    if (rest) row.push_back(format_duration(s.layout ? 0.0 : rest_of_step(r)));
    row.insert(row.end(), {format_number(static_cast<double>(r.passes_per_epoch), 0), format_duration(r.epoch_s),
                           std::to_string(r.epochs), format_duration(r.run_s),
                           // The run's count is of the platform's devices (a study's nodes x devices_per_unit).
                           three_digits(r.units_per_day) + "<div class=\"src\">on " + format_count(r.nodes) +
                               " device" + (r.nodes == 1 ? "" : "s") + "</div>",
                           format_share(r.pass.table_coverage) + "<div class=\"src\">of the " +
                               (r.pass.coverage_of_baseline ? "measured" : "predicted") + " time</div>"});
    t.rows.push_back(std::move(row));
  }
  return t.render();
}

// One side's bar: the kinds, the overhead line, and under a layout the step's other parts.
// A layout's operations are one micro-batch on one device before tensor and pipeline
// parallelism split it: tp=4 had shown kinds adding up to 124% of the step. They keep their
// proportions, scaled to the busiest device's compute over the step.
std::vector<double> side_segments(const SideView& s, const Workload& w) {
  std::vector<double> v = time_by_kind(*s.run, w);
  double rest = rest_of_step(*s.run), exposed = 0, bubble = 0;
  if (s.layout) {
    // The optimizer runs once a step on the device's share of the parameters (the layout
    // says how long); the forward and backward kinds take the rest of its compute. Scaled
    // with them, 16 micro-batches had shown an optimizer 8 times its update.
    const std::vector<double> update = time_by_kind(*s.run, w, true);
    double passes = 0, updates = 0;
    for (std::size_t k = 0; k < v.size(); ++k) passes += v[k] - update[k], updates += update[k];
    const double opt = updates > 0 ? s.layout->optimizer_s : 0.0;  // no update op: in the passes' share
    const double f = passes > 0 ? std::max(0.0, s.layout->compute_s - opt) / passes : 0;
    const double g = updates > 0 ? s.layout->optimizer_s / updates : 0;
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = (v[k] - update[k]) * f + update[k] * g;
    exposed = s.layout->exposed_comm_s, bubble = s.layout->bubble_s, rest = 0;
  }
  v.push_back(s.run->pass.residual_s);
  v.push_back(exposed);
  v.push_back(bubble);
  v.push_back(rest);
  return v;
}

std::string kind_breakdown(const std::vector<SideView>& sides, const Workload& w, const std::string& problem) {
  std::vector<chart::Series> series;
  for (std::size_t k = 0; k < std::size(kKinds); ++k)
    series.push_back({std::string(to_string(kKinds[k])), kKindColours[k]});
  series.push_back({"framework overhead", kOverheadColour});
  series.push_back({"exposed communication", "#B3B3B3"});
  series.push_back({"pipeline bubble", "#D9D9D9"});
  series.push_back({"rest of the step", "#E8E8E8"});
  std::vector<std::vector<double>> by_side;
  std::vector<chart::StackedRow> rows;
  bool overhead = false, layout = false;
  for (const auto& s : sides) {
    auto v = side_segments(s, w);
    overhead = overhead || s.run->pass.residual_s > 0;
    layout = layout || s.layout;
    rows.push_back({s.role + ": " + s.run->pass.platform, v, format_duration(s.run->pass.pass_s)});
    by_side.push_back(std::move(v));
  }
  std::string out = figure(
      chart::stacked_bars(series, rows, "Time per pass by operation kind, " + problem, "time per pass (training step)",
                          [](double v) { return v == 0 ? std::string("0") : format_duration(v); }),
      std::string("Predicted time of one pass on each side, split by operation kind (as the pass counts them: "
                  "a calibration's scaling of the modelled operations included). ") +
          (overhead ? "The grey segment is the framework overhead line (the host, framework and input-pipeline "
                      "time a measurement holds beyond the operations, carried across)."
                    : "No framework overhead line: the workload has no measured pass time to "
                      "take it from.") +
          (layout ? std::string(" Under a parallel layout a bar is the busiest device's training step: the kinds "
                                "are one micro-batch's operations in their proportions on one device, scaled to "
                                "that device's compute over the step (tensor parallelism divides GEMMs and "
                                "attention more than norms and elementwise ops, so the split by kind is "
                                "approximate), then the communication the compute does not hide and the "
                                "pipeline's bubble.")
                  : std::string()));
  HtmlTable t;
  t.header = {"kind"};
  t.numeric = {false};
  for (const auto& s : sides) {
    t.header.push_back(esc(s.run->pass.platform) + " per pass");
    t.header.push_back("share");
    t.numeric.push_back(true), t.numeric.push_back(true);
  }
  t.header.push_back("speed-up");
  t.numeric.push_back(true);
  for (std::size_t k = 0; k < series.size(); ++k) {
    bool any = false;
    for (const auto& v : by_side) any = any || v[k] > 0;
    if (!any) continue;
    std::vector<std::string> row = {"<span class=\"swatch\" style=\"background:" + series[k].color + "\"></span>" +
                                    esc(series[k].name)};
    for (std::size_t i = 0; i < sides.size(); ++i) {
      row.push_back(format_duration(by_side[i][k]));
      row.push_back(share(by_side[i][k], sides[i].run->pass.pass_s));
    }
    row.push_back(by_side.size() == 2 && by_side[1][k] > 0 ? format_number(by_side[0][k] / by_side[1][k], 2) + "\u00d7"
                                                           : "\u2013");
    t.rows.push_back(std::move(row));
  }
  t.footer = {"pass"};
  for (const auto& s : sides) t.footer.push_back(format_duration(s.run->pass.pass_s)), t.footer.push_back("100%");
  t.footer.push_back(sides.size() == 2 && sides[1].run->pass.pass_s > 0
                         ? format_number(sides[0].run->pass.pass_s / sides[1].run->pass.pass_s, 2) + "\u00d7"
                         : "\u2013");
  return out + t.render();
}

std::string coverage(const std::vector<SideView>& sides, const std::string& problem) {
  std::set<Method> methods;
  for (const auto& s : sides)
    for (const auto& [m, sh] : s.run->pass.by_method) methods.insert(m);
  std::vector<chart::Series> series;
  std::vector<Method> order(methods.begin(), methods.end());
  for (Method m : order)
    series.push_back({std::string(to_string(m)) + (is_table_backed(m) ? "" : " (fallback)"), method_colour(m)});
  std::vector<chart::StackedRow> rows;
  for (const auto& s : sides) {
    const PassEstimate& p = s.run->pass;
    chart::StackedRow row{s.role + ": " + p.platform, {}, format_share(p.table_coverage) + " from own tables"};
    for (Method m : order) {
      auto it = p.by_method.find(m);
      row.values.push_back(it != p.by_method.end() && p.ops_s > 0 ? it->second.predicted_s / p.ops_s : 0);
    }
    rows.push_back(std::move(row));
  }
  std::string out = "<h4>Coverage: where each side's operation times came from</h4>\n";
  out += figure(
      chart::stacked_bars(series, rows, "Share of the predicted operation time by method, " + problem,
                          "share of summed operation time per pass", [](double v) { return format_percent(v, 0); }),
      "Share of each side's summed operation time per pass by the method that predicted it. Blues: from the "
      "platform's own measurements (measured, table, interpolated, implicit-gemm, rnn-as-gemm); oranges and "
      "reds: fallbacks (another platform's table scaled, bandwidth, network, roofline, scaled). The label "
      "gives the table-backed share of the measured time where the workload has one, else of the predicted.");
  HtmlTable t;
  t.header = {"method", "source"};
  t.numeric = {false, false};
  for (const auto& s : sides) {
    t.header.push_back(esc(s.run->pass.platform) + " ops");
    // Under a layout the operations are one micro-batch before tensor and pipeline
    // parallelism split it: GPT-2 medium's on 4 A100s, 209 ms of ops beside an 82 ms step.
    t.header.push_back(s.layout ? "time, one micro-batch unsplit" : "time per pass");
    t.header.push_back("share");
    for (int i = 0; i < 3; ++i) t.numeric.push_back(true);
  }
  for (Method m : order) {
    std::vector<std::string> row = {esc(to_string(m)),
                                    is_table_backed(m) ? std::string("own measurements")
                                                       : std::string("<span class=\"tag fallback\">fallback</span>")};
    for (const auto& s : sides) {
      const PassEstimate& p = s.run->pass;
      auto it = p.by_method.find(m);
      if (it == p.by_method.end()) {
        row.insert(row.end(), {"\u2013", "\u2013", "\u2013"});
        continue;
      }
      row.push_back(std::to_string(it->second.ops));
      row.push_back(format_duration(it->second.predicted_s));
      row.push_back(share(it->second.predicted_s, p.ops_s));
    }
    t.rows.push_back(std::move(row));
  }
  return out + t.render();
}

std::string top_ops(const std::vector<SideView>& sides, const Workload& w, std::size_t top) {
  const RunEstimate& base = *sides[0].run;
  const RunEstimate* target = sides.size() > 1 ? sides[1].run : nullptr;
  std::vector<std::size_t> order(base.pass.ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto per_pass = [&](std::size_t i) { return w.ops[base.pass.ops[i].op_index].count * base.pass.ops[i].predicted_s; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return per_pass(a) > per_pass(b); });
  const bool measured = std::any_of(base.pass.ops.begin(), base.pass.ops.end(),
                                    [](const OpEstimate& e) { return e.baseline_s.has_value(); });

  HtmlTable t;
  t.header = {"#", "operation", "shape", "calls/pass"};
  t.numeric = {true, false, false, true};
  t.cell_class = {"", "name", "shape", ""};
  if (measured) {
    t.header.push_back("measured on " +
                       esc(base.pass.baseline_platform.empty() ? "recording" : base.pass.baseline_platform));
    t.numeric.push_back(true);
    t.cell_class.push_back("");
  }
  for (const auto& s : sides) {
    t.header.push_back(esc(s.run->pass.platform) + " per call");
    t.header.push_back("method, \u00b1");
    t.numeric.insert(t.numeric.end(), {true, false});
    t.cell_class.insert(t.cell_class.end(), {"", "method"});
  }
  if (target) t.header.push_back("speed-up"), t.numeric.push_back(true);
  const std::size_t shown = std::min(top, order.size());
  for (std::size_t n = 0; n < shown; ++n) {
    const std::size_t i = order[n];
    const OpEstimate& b = base.pass.ops[i];
    const Op& op = w.ops[b.op_index];
    const std::string shown_name = chart::clip(op.name, 80);
    std::string name = esc(shown_name);
    if (shown_name != op.name) name = "<span title=\"" + esc(op.name) + "\">" + name + "</span>";
    name += "<div class=\"src\">" +
            esc(std::string(to_string(op.kind)) + " \u00b7 " + std::string(to_string(op.phase))) + "</div>";
    std::vector<std::string> row = {std::to_string(n + 1), name, esc(describe(op.shape)),
                                    format_number(op.count, op.count == std::floor(op.count) ? 0 : 2)};
    if (measured) row.push_back(b.baseline_s ? format_duration(*b.baseline_s) : "\u2013");
    for (const auto& s : sides) {
      const OpEstimate& e = s.run->pass.ops[i];
      std::string method = "<span class=\"tag" + std::string(is_table_backed(e.method) ? "" : " fallback") + "\">" +
                           esc(to_string(e.method)) + "</span> " + plus_minus(e.uncertainty);
      if (!e.source_platform.empty() && e.source_platform != s.run->pass.platform)
        method += "<div class=\"src\">from " + esc(e.source_platform) + "</div>";
      row.push_back(format_duration(e.predicted_s));
      row.push_back(method);
    }
    if (target) {
      const double tp = target->pass.ops[i].predicted_s;
      row.push_back(tp > 0 ? format_number(b.predicted_s / tp, 2) + "\u00d7" : "\u2013");
    }
    t.rows.push_back(std::move(row));
  }
  std::string out = "<h4>Top operations</h4>\n<p class=\"muted\">Ranked by predicted time per pass on the baseline (" +
                    esc(base.pass.platform) + "); times are per call.";
  if (order.size() > shown)
    out += " " + std::to_string(order.size() - shown) + " more operation" + (order.size() - shown == 1 ? "" : "s") +
           ": <code>fomcast estimate --workload " + esc(shell_word(w.name)) + " --platform " +
           esc(shell_word(base.pass.platform)) +
           (base.pass.precision == PrecisionMode::recorded
                ? std::string()
                : " --precision " + esc(std::string(to_string(base.pass.precision)))) +
           " --all</code> lists every one.";
  return out + "</p>\n" + t.render();
}

void add_unique(std::vector<std::string>& to, const std::vector<std::string>& from) {
  for (const auto& s : from)
    if (std::find(to.begin(), to.end(), s) == to.end()) to.push_back(s);
}

std::string workload_section(const ProblemResult& p, std::size_t index) {
  const ProblemEstimates& est = *p.estimates;
  const Workload& w = est.workload;
  const std::vector<SideView> sides = {
      {"baseline", &est.baseline, est.baseline_layout ? &*est.baseline_layout : nullptr},
      {"target", &est.target, est.target_layout ? &*est.target_layout : nullptr}};
  const std::string title = p.name == w.name ? p.name : p.name + " (workload " + w.name + ")";
  std::string out = "<section class=\"workload\" id=\"w" + std::to_string(index) + "\">\n<h3>" + esc(title) + "</h3>\n";
  std::string about = w.origin.empty() ? "" : "from " + w.origin;
  if (!w.source.empty()) about += (about.empty() ? "" : ", ") + w.source;
  if (!w.recorded_on.empty()) about += "; times measured on " + w.recorded_on;
  out +=
      "<p>" +
      esc(std::to_string(w.ops.size()) + " distinct operations per pass" + (about.empty() ? "" : ", " + about) + ".") +
      " The FOM uses: baseline " + tag(to_string(p.baseline.method)) + " " + esc(hours(p.baseline.seconds_per_unit)) +
      " h/unit, target " + tag(to_string(p.target.method)) + " " + esc(hours(p.target.seconds_per_unit)) +
      " h/unit (ratio " + format_ratio(p.ratio, 2) +
      "). The passes below are as the estimate gives them, calibrated where a measurement exists; the split by "
      "kind scales the operations as the calibration does.</p>\n";
  out += summary_table(sides);
  // The per-call launch gaps the tables' times hold: up to half of an amp pass on a fast chip,
  // time that does not shrink with its peaks, which the text estimate states and the report
  // had not.
  std::string gaps;
  for (const auto& side : sides) {
    const PassEstimate& pass = side.run->pass;
    if (pass.launch_gap_s > 0 && pass.modelled_s > 0)
      gaps +=
          (gaps.empty() ? "" : "; ") + esc(side.role + " " + pass.platform + ": " + format_duration(pass.launch_gap_s) +
                                           " (" + format_share(pass.launch_gap_s / pass.modelled_s) + ")");
  }
  if (!gaps.empty())
    out +=
        "<p class=\"muted\">Of the modelled operations, the per-call launch gaps the tables' per-call times hold "
        "(host and driver time, which no faster device removes): " +
        gaps +
        ". A run whose host stays ahead of the GPU, or that replays CUDA graphs, hides much of it "
        "(docs/accuracy.md section 8).</p>\n";
  // Each block keeps its heading, chart and table on one printed page.
  out += "<div class=\"block\">\n<h4>Where the time goes</h4>\n" + kind_breakdown(sides, w, p.name) + "</div>\n";
  out += "<div class=\"block\">\n" + coverage(sides, p.name) + "</div>\n";
  out += "<div class=\"block\">\n" + top_ops(sides, w, 12) + "</div>\n";

  std::vector<std::string> study_notes, base_notes, target_notes, workload_notes;
  add_unique(study_notes, p.notes);
  add_unique(base_notes, est.baseline.assumptions);
  add_unique(base_notes, est.baseline.pass.notes);
  add_unique(target_notes, est.target.assumptions);
  add_unique(target_notes, est.target.pass.notes);
  add_unique(workload_notes, w.notes);
  out += "<h4>Notes and warnings</h4>\n";
  if (!study_notes.empty()) out += "<p>From the study evaluation:</p>\n" + note_list(study_notes);
  if (!base_notes.empty())
    out += "<p>Estimate on " + esc(est.baseline.pass.platform) + ":</p>\n" + note_list(base_notes);
  if (!target_notes.empty())
    out += "<p>Estimate on " + esc(est.target.pass.platform) + ":</p>\n" + note_list(target_notes);
  if (!workload_notes.empty()) out += "<p>From reading the workload:</p>\n" + note_list(workload_notes);
  return out + "</section>\n";
}

// ---------------------------------------------------------------------------------------
// History and method

std::string history_section(const HtmlReportInput& in) {
  const auto& h = in.history;
  std::string out = "<section id=\"history\">\n<h2>FOM history</h2>\n<p>FOMs of study <strong>" + esc(in.study->name) +
                    "</strong> recorded with <code>fomcast fom --record</code> in this database (oldest first).</p>\n";
  if (h.size() >= 2) {
    std::vector<chart::Point> points;
    for (const auto& r : h)
      points.push_back({r.label.empty() ? "#" + std::to_string(r.id) : r.label, r.fom,
                        "#" + std::to_string(r.id) + " " + r.recorded_at + (r.label.empty() ? "" : " " + r.label) +
                            (r.git_commit.empty() ? "" : " @" + r.git_commit) + ": FOM " + format_ratio(r.fom, 3)});
    out +=
        figure(chart::line_chart(points, "Recorded FOM of " + in.study->name, "FOM",
                                 [](double v) { return format_significant(v, 4); }),
               "Recorded FOM over the records of this study, in order (labels, else record ids, under the axis); the "
               "axis does not start at zero.");
  }
  HtmlTable t;
  t.header = {"id", "recorded at", "label", "commit", "FOM", "change", "what changed since the record before"};
  t.numeric = {true, false, false, false, true, true, false};
  const FomRecord* previous = nullptr;
  for (const auto& r : h) {
    // The machines, problems or inputs that moved (what `check` warns of): a change there is
    // not the tool's.
    std::string moved;
    if (previous)
      for (const auto& m : fom_record_changes(*previous, r)) moved += (moved.empty() ? "" : "<br>") + esc(m);
    t.rows.push_back({std::to_string(r.id), esc(r.recorded_at), esc(r.label), esc(r.git_commit), format_ratio(r.fom, 3),
                      previous && previous->fom != 0
                          ? format_number(100.0 * (r.fom - previous->fom) / previous->fom, 2) + "%"
                          : "\u2013",
                      moved.empty() ? (previous ? "nothing the record keeps" : "\u2013") : moved});
    previous = &r;
  }
  return out + t.render() + "</section>\n";
}

std::string scaling_section(const HtmlReportInput& in) {
  std::string out =
      "<section id=\"scaling\">\n<h2>Scaling</h2>\n<p>Problems that train on many devices (a <code>parallel</code> "
      "layout): weak scaling over data parallel, the micro-batch per device fixed, as <code>fomcast scaling "
      "--weak</code> gives it. Efficiency is throughput per device against the first point.</p>\n";
  for (const auto& c : in.scaling) {
    std::vector<chart::Point> points;
    HtmlTable t;
    t.header = {"dp", "tp", "pp", "devices", "step", "compute", "exposed comm", "bubble", "efficiency"};
    t.numeric = {true, true, true, true, true, true, true, true, true};
    for (const auto& p : c.points) {
      if (!p.error.empty()) {
        t.rows.push_back({std::to_string(p.layout.dp), std::to_string(p.layout.tp), std::to_string(p.layout.pp),
                          std::to_string(p.devices), esc(p.error), "", "", "", ""});
        continue;
      }
      points.push_back({std::to_string(p.devices), 100 * p.efficiency,
                        std::to_string(p.devices) + " devices: step " + format_duration(p.step_s) + ", efficiency " +
                            format_percent(p.efficiency, 1)});
      t.rows.push_back({std::to_string(p.layout.dp), std::to_string(p.layout.tp), std::to_string(p.layout.pp),
                        std::to_string(p.devices), format_duration(p.step_s), format_duration(p.compute_s),
                        format_duration(p.exposed_comm_s), format_duration(p.bubble_s),
                        format_percent(p.efficiency, 1)});
    }
    out += "<h3>" + esc(c.workload) + " on " + esc(c.platform) + "</h3>\n";
    if (points.size() >= 2)
      out += figure(chart::line_chart(
                        points, "Weak scaling of " + c.workload + " on " + c.platform, "efficiency (%)",
                        [](double v) { return format_significant(v, 3); }, 10),
                    "Efficiency per number of devices (under the axis); the axis does not start at zero.");
    out += t.render();
    for (const auto& n : c.notes) out += "<p class=\"note\">" + esc(n) + "</p>\n";
  }
  return out + "</section>\n";
}

std::string method_section() {
  return R"html(<section id="method">
<h2>Method</h2>
<h4>The CANDLE method</h4>
<p>A problem's time per unit of work (one training run) is measured, or estimated in the steps of the CANDLE
exascale method: profile the training on a baseline machine; take the operations covering 95% of a pass with
their matrix sizes and times; time those operations on the target (DeepBench results, <code>fomcast bench</code>
measurements); roll the operation times up per pass (one minibatch; under a parallel layout, one training step of the global
batch), multiply by passes per epoch and epochs per
run; 86,400 s / time per run &times; the runs the machine holds at once (nodes &times; devices per node /
devices per unit) gives units of work per day, and the target's units/day over the
baseline's the problem's ratio.</p>
<h4>The figure of merit</h4>
<p>The FOM is the rate at which units of work complete on the target over the rate on the baseline, averaged over
the problems. Rates average harmonically, so FOM = HM(target units/day) / HM(baseline units/day). The arithmetic
and harmonic means of the per-problem ratios are shown beside it, labelled <em>not the FOM</em>: they weigh the
problems differently and give different numbers.</p>
<h4>How an operation's time is estimated, in order</h4>
<ol>
<li><strong>measured</strong>: the platform is the one the workload was recorded on.</li>
<li><strong>table</strong>: the exact shape is in the platform's kernel table.</li>
<li><strong>interpolated</strong>: from the platform's nearby measured shapes (rates in log-shape space).</li>
<li><strong>implicit-gemm</strong>, <strong>rnn-as-gemm</strong>: a convolution or recurrent layer through the
platform's GEMM table.</li>
<li><strong>scaled-table</strong>: the most similar platforms' tables (or the recording platform's measurement)
carried by efficiency transfer: the op keeps the fraction of its roofline it reached there, with wave
quantization, achievable bandwidth and the per-call launch floor (docs/estimation.md).</li>
<li><strong>bandwidth</strong> (memory-bound operations) and <strong>network</strong> (collectives): bytes over
bandwidth, or an alpha-beta model.</li>
<li><strong>roofline</strong>: the larger of flops over peak and bytes over bandwidth, with efficiencies.</li>
<li><strong>scaled</strong>: only a measured time is known: it times the ratio of the two platforms' capability
for the op's own kind, never a ratio another op happened to get.</li>
</ol>
<p>The first four use the platform's own measurements and count towards its coverage; the rest are fallbacks. The
framework overhead a trace measured (pass time minus the summed operation times) is its own line, scaled by the
platforms' overhead factors. Every operation carries a relative uncertainty (about one standard deviation, from
the measured errors of its method); the pass combines them, and this report carries the sides' uncertainties to
the harmonic means and the FOM to first order, taking the errors as independent. A calibrated problem scales the
target estimate by the measured over the estimated baseline time.</p>
<p>More, in the fomcast source tree: <code>docs/report.md</code> (this report), <code>docs/estimation.md</code>
(the estimation chain), <code>docs/accuracy.md</code> (its measured errors),
<code>docs/architecture.md</code> (the data path).</p>
</section>
)html";
}

std::string contents(const HtmlReportInput& in) {
  std::string out =
      "<nav><strong>Contents</strong><ol>\n<li><a href=\"#fom\">Figure of merit</a></li>\n"
      "<li><a href=\"#machines\">Baseline and target machines</a></li>\n"
      "<li><a href=\"#problems\">Problems</a></li>\n";
  std::string workloads;
  for (std::size_t i = 0; i < in.fom->problems.size(); ++i)
    if (in.fom->problems[i].estimates)
      workloads += std::string(workloads.empty() ? "" : " \u00b7 ") + "<a href=\"#w" + std::to_string(i) + "\">" +
                   esc(in.fom->problems[i].name) + "</a>";
  if (!workloads.empty()) out += "<li><a href=\"#workloads\">Workload breakdowns</a>: " + workloads + "</li>\n";
  if (!in.history.empty()) out += "<li><a href=\"#history\">FOM history</a></li>\n";
  if (!in.scaling.empty()) out += "<li><a href=\"#scaling\">Scaling</a></li>\n";
  return out + "<li><a href=\"#method\">Method</a></li>\n</ol></nav>\n";
}

}  // namespace

std::string report_to_html(const HtmlReportInput& in) {
  const FomResult& r = *in.fom;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"" +
      esc(in.version) + "\">\n<title>FOM report: " + esc(in.study->name) + "</title>\n<style>\n" +
      std::string(report_asset("report.css")) + "</style>\n</head>\n<body>\n";
  out += header(in);
  out += contents(in);
  out += fom_section(in);
  out += machines(in);
  out += problems_section(in);
  std::string workloads;
  for (std::size_t i = 0; i < r.problems.size(); ++i)
    if (r.problems[i].estimates) workloads += workload_section(r.problems[i], i);
  if (!workloads.empty())
    out +=
        "<section id=\"workloads\">\n<h2>Workload breakdowns</h2>\n<p>For each problem estimated from a workload: "
        "the estimate on each side with its overhead line, where the time goes by operation kind, where each "
        "operation's time came from, the operations that matter most, and every note the estimator wrote.</p>\n" +
        workloads + "</section>\n";
  if (!in.history.empty()) out += history_section(in);
  if (!in.scaling.empty()) out += scaling_section(in);
  out += method_section();
  out += "<footer>Generated by " + esc(in.version) + (in.commit.empty() ? "" : " (" + esc(in.commit) + ")") + " on " +
         esc(in.generated_at) + " from " + esc(in.study->file) +
         ". Self-contained: this page loads nothing from anywhere.</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace fomcast
