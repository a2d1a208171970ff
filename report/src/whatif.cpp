// `fomcast whatif`: the hypothetical pass against the reference, Amdahl's speedup, and
// each class of operations (and the residual) before and after.
#include <cmath>

#include <nlohmann/json.hpp>

#include "fomcast/report/text_table.hpp"
#include "fomcast/report/whatif.hpp"

namespace fomcast {

using nlohmann::json;

namespace {

// Seconds with the precision people quote a profile at ("9,317.5 s", "4.312 s"); under a
// second in the unit estimate uses ("2.87 ms", "1.24 us"), not "1.235e-06 s".
std::string secs(double s) {
  if (s > 0 && s < 1) return format_duration(s);
  return (s >= 100 ? format_number(s, 1) : format_significant(s, 4)) + " s";
}

std::string band(double relative) { return " +/- " + format_percent_significant(relative, 2); }

json scale_json(const ScaleSpec& s) {
  json j = json::object();
  for (const auto& [key, v] :
       {std::pair{"peak_flops", s.peak_flops}, std::pair{"mem_bw", s.mem_bw}, std::pair{"net_bw", s.net_bw},
        std::pair{"host_link", s.host_link}, std::pair{"overhead", s.overhead}, std::pair{"host", s.host}})
    if (v != 1) j[key] = v;
  for (const auto& [k, v] : s.kinds) j["kind:" + std::string(to_string(k))] = v;
  return j;
}

}  // namespace

json whatif_to_json(const WhatIf& w) {
  json classes = json::array();
  for (const auto& c : w.classes)
    classes.push_back({{"name", c.name}, {"ops", c.ops}, {"reference_s", c.reference_s}, {"scaled_s", c.scaled_s}});
  const PassEstimate& ref = w.reference;
  return json{{"workload", w.workload},
              {"platform", w.platform},
              {"scale", scale_json(w.scale)},
              {"precision", ref.precision == PrecisionMode::recorded ? ref.recorded_precision
                                                                     : std::string(to_string(ref.precision))},
              {"pass_s", w.pass_s},
              {"reference_pass_s", ref.pass_s},
              {"speedup", w.speedup},
              {"uncertainty", w.uncertainty},
              {"speedup_uncertainty", w.speedup_uncertainty},
              {"reference_uncertainty", ref.uncertainty},
              {"modelled_s", w.modelled_s},
              {"residual_s", w.residual_s},
              {"reference_modelled_s", ref.modelled_s},
              {"reference_residual_s", ref.residual_s},
              {"reference_residual_share", ref.residual_share},
              {"reference_host_bound", ref.host_bound},
              {"calibrated", ref.calibration.calibrated},
              {"touched_share", w.touched_share},
              {"amdahl_limit", std::isfinite(w.amdahl_limit) ? json(w.amdahl_limit) : json(nullptr)},
              {"classes", classes},
              {"notes", w.notes}};
}

std::string whatif_to_text(const WhatIf& w) {
  const PassEstimate& ref = w.reference;
  std::string out = "What if " + w.platform + " had " + w.scale.text + ": " + w.workload;
  if (ref.precision != PrecisionMode::recorded) out += " in " + std::string(to_string(ref.precision));
  out += "\n\n";
  out += "reference  " + secs(ref.pass_s) + band(ref.uncertainty) + " per pass = modelled " + secs(ref.modelled_s) +
         " + residual " + secs(ref.residual_s) + (ref.calibration.calibrated ? "" : " (not calibrated)") + "\n";
  out += "what-if    " + secs(w.pass_s) + band(w.uncertainty) + " per pass = modelled " + secs(w.modelled_s) +
         " + residual " + secs(w.residual_s) + "\n";
  out += "speedup    " + format_number(w.speedup, 3) + "x" + band(w.speedup_uncertainty) +
         " (Amdahl: the scaling touches " + format_percent(w.touched_share, 1) +
         " of the pass; were that to take no time at all, " +
         (std::isfinite(w.amdahl_limit) ? format_number(w.amdahl_limit, 3) + "x" : std::string("no limit")) + ")\n\n";
  TextTable t;
  t.header = {"class", "ops", "reference", "what-if", "share before", "share after"};
  t.right_align = {false, true, true, true, true, true};
  for (const auto& c : w.classes) {
    if (c.reference_s <= 0 && c.name != "residual") continue;
    t.rows.push_back({c.name, c.name == "residual" ? "-" : std::to_string(c.ops), secs(c.reference_s), secs(c.scaled_s),
                      format_number(ref.pass_s > 0 ? 100 * c.reference_s / ref.pass_s : 0, 1) + "%",
                      format_number(w.pass_s > 0 ? 100 * c.scaled_s / w.pass_s : 0, 1) + "%"});
  }
  out += t.render();
  for (const auto& n : w.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace fomcast
