// What-if by resource and by class of operation. The reference is the pass as estimated
// (and calibrated) on P; each op's time is then scaled by how much faster its bound gets
// (the roofline of its flops and bytes on P, or its kind's resource when it has no costs)
// and by its class's factor, and the residual by host and overhead. The speedup is
// Amdahl's law over those times, so a profile with no shapes works as well as a trace.
#include "fomcast/whatif.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/input_checks.hpp"
#include "similarity.hpp"

namespace fomcast {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string kind_list() {
  std::string out;
  for (int k = 0; k <= static_cast<int>(OpKind::other); ++k)
    out += (out.empty() ? "" : ", ") + std::string(to_string(static_cast<OpKind>(k)));
  return out;
}

double* resource(ScaleSpec& s, std::string_view key) {
  if (key == "peak_flops") return &s.peak_flops;
  if (key == "mem_bw") return &s.mem_bw;
  if (key == "net_bw") return &s.net_bw;
  if (key == "overhead") return &s.overhead;
  if (key == "host") return &s.host;
  if (key == "host_link") return &s.host_link;
  return nullptr;
}

// How much faster one op gets from the resource factors: the ratio of its roofline bound
// after and before, or its kind's resource when its costs are unknown. `costless` is set
// when nothing is known to scale it by.
double resource_scale(const Op& op, const Platform& p, const ScaleSpec& s, bool& costless) {
  // A host <-> device copy runs over the host link (estimate prices it there): memory
  // bandwidth does not move it (mem_bw=2 halved an H100's PCIe copies), the link does.
  if (op.kind == OpKind::memcpy) {
    const CopyDirection d = copy_route(op.name).direction;
    if (d == CopyDirection::host_to_device || d == CopyDirection::device_to_host) return 1 / s.host_link;
  }
  if (s.peak_flops == 1 && s.mem_bw == 1 && s.net_bw == 1) return 1;
  if (op.kind == OpKind::collective) return 1 / s.net_bw;
  const DType dtype = op.dtype == DType::unknown ? DType::fp32 : op.dtype;
  const double flops = op.flops > 0 ? op.flops : op_flops(op.kind, op.shape);
  const double bytes = op.bytes > 0 ? op.bytes : op_bytes(op.kind, op.shape, dtype);
  const double peak = est::peak_for(p, dtype).flop_per_s, bw = est::bandwidth_of(p);
  if (flops > 0 && bytes > 0 && peak > 0 && bw > 0) {
    const double tf = flops / peak, tb = bytes / bw;
    return std::max(tf / s.peak_flops, tb / s.mem_bw) / std::max(tf, tb);
  }
  if (is_compute_bound(op.kind) || (flops > 0 && !(bytes > 0))) return 1 / s.peak_flops;
  if (is_memory_bound(op.kind) || bytes > 0) return 1 / s.mem_bw;
  costless = true;
  return 1;
}

}  // namespace

ScaleSpec parse_scale(std::string_view text, std::string_view flag) {
  const std::string f(flag);
  ScaleSpec s;
  s.text = std::string(text);
  if (trim(text).empty())
    throw UsageError(
        f +
        " is empty: give KEY=FACTOR[,KEY=FACTOR...] with keys peak_flops, mem_bw, net_bw, host_link, overhead, "
        "host or kind:<kind>");
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item =
        trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) throw UsageError(f + ": an empty item in '" + s.text + "' (two commas, or one at an end)");
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) throw UsageError(f + ": '" + std::string(item) + "' is not KEY=FACTOR");
    const std::string key(trim(item.substr(0, eq)));
    const std::string value(trim(item.substr(eq + 1)));
    // How many times better: above zero, and no more than a million (past that the
    // resource is free and the answer is the Amdahl limit anyway).
    constexpr NumberRange kFactor{1e-6, 1e6, true, false};
    if (std::string problem = text_range_problem(value, kFactor); !problem.empty())
      throw UsageError(f + ": the factor of '" + key + "' (how many times better) " + problem);
    const double factor = std::stod(value);
    if (!seen.insert(key).second) throw UsageError(f + ": '" + key + "' is given twice");
    if (key.rfind("kind:", 0) == 0) {
      const auto kind = parse_op_kind(key.substr(5));
      if (!kind || key.substr(5) != to_string(*kind))
        throw UsageError(f + ": '" + key.substr(5) + "' is not a kind of operation (kinds: " + kind_list() + ")");
      s.kinds[*kind] = factor;
    } else if (double* r = resource(s, key)) {
      *r = factor;
    } else if (parse_op_kind(key)) {
      throw UsageError(f + ": '" + key + "' is a kind of operation: write kind:" + key + "=" + value);
    } else {
      throw UsageError(f + ": unknown key '" + key +
                       "' (keys: peak_flops, mem_bw, net_bw, host_link, overhead, host, kind:<kind>)");
    }
  }
  return s;
}

WhatIf what_if(const Workload& recorded, std::string_view platform, const Catalog& catalog, const ScaleSpec& scale,
               const std::vector<MeasuredPass>& measured, PrecisionMode precision) {
  WhatIf r;
  r.reference = estimate_pass(recorded, platform, catalog, measured, precision);
  const Workload w = apply_precision(recorded, precision).workload;  // the ops as estimated
  const PassEstimate& ref = r.reference;
  const Platform& p = *catalog.platform(ref.platform);  // estimate_pass threw if unknown
  r.workload = w.name;
  r.platform = ref.platform;
  r.scale = scale;

  const double host_factor = 1 / (scale.host * scale.overhead);
  std::map<OpKind, ClassTime> classes;
  std::map<Method, double> change_sigma;  // by method: the band of the time each method's ops moved
  // A device factor moves an op by its roofline on P before and after: the rule that carries
  // a time to another card of the same architecture, with that kinship's band (one rule, so
  // its errors add up across ops). kind:K, host and overhead are the user's own arithmetic.
  double device_rule_sigma = 0;
  double touched = 0, held_gap = 0, held_fixed = 0;
  int64_t costless = 0, blas_convs = 0;
  for (const auto& e : ref.ops) {
    const Op& op = w.ops[e.op_index];
    const double before = op.count * e.predicted_s * ref.calibration.ops_carry;
    bool no_costs = false;
    // The device part of the op's time moves with peak_flops and mem_bw, its launch gap with
    // host and overhead; kind:<kind> (Amdahl over the class) moves both.
    // A measured kernel's fixed latency (the fastest call the trace measured) moves with
    // neither: as an estimate on another chip carries it unscaled, so does what-if (x10 on
    // every figure had made a trace's 5 us kernels 0.5 us, where estimate keeps them whole).
    const double gap_share = e.predicted_s > 0 ? e.launch_gap_s / e.predicted_s : 0;
    // A measured collective's wait for the other ranks is held with them: it is the ranks'
    // skew, not the network's (net_bw=2 had halved a DLRM all-to-all that was 99.8% wait).
    const double fixed_share =
        e.predicted_s > 0 ? std::clamp((e.fixed_latency_s + e.wait_s) / e.predicted_s, 0.0, 1.0 - gap_share) : 0;
    const double device_share = 1 - gap_share - fixed_share;
    const double device_factor = resource_scale(op, p, scale, no_costs);
    double factor = gap_share * host_factor + fixed_share + device_share * device_factor;
    if (device_factor < 1) held_gap += before * gap_share * host_factor;
    if (device_factor != 1 || host_factor != 1) held_fixed += before * fixed_share;
    // What of the op the scaling moves (Amdahl's touched part): its device part, its launch
    // gap, or all of it under kind:<kind>. Counting a whole op touched when only its device
    // part moved claimed limits no scaling reaches (12,775x where 115x was the most).
    double moved_share = (device_factor != 1 ? device_share : 0) + (host_factor != 1 ? gap_share : 0);
    if (auto it = scale.kinds.find(op.kind); it != scale.kinds.end()) {
      factor /= it->second;
      moved_share = 1;
    } else if (auto g = scale.kinds.find(OpKind::gemm);
               g != scale.kinds.end() && op.kind == OpKind::conv && op.implementation == Implementation::im2col_blas) {
      // An im2col + BLAS convolution runs its work in the BLAS GEMM: a faster GEMM moves it.
      // A oneDNN (or cuDNN, MIOpen) convolution has its own kernels: kind:gemm leaves it.
      factor /= g->second;
      moved_share = 1;
      ++blas_convs;
    }
    if (no_costs && before > 0) ++costless;
    const double after = before * factor;
    auto& c = classes[op.kind];
    c.name = std::string(to_string(op.kind));
    c.reference_s += before;
    c.scaled_s += after;
    ++c.ops;
    r.modelled_s += after;
    change_sigma[e.method] += std::fabs(before - after) * e.uncertainty;
    if (device_factor != 1)
      device_rule_sigma +=
          before * device_share * std::fabs(1 - device_factor) * est::kinship_band(est::Kinship::same_architecture);
    if (factor != 1) touched += before * moved_share;
  }
  const double residual_factor = 1 / (scale.host * scale.overhead);
  r.residual_s = ref.residual_s * residual_factor;
  if (residual_factor != 1) touched += ref.residual_s;
  r.pass_s = r.modelled_s + r.residual_s;
  r.speedup = r.pass_s > 0 ? ref.pass_s / r.pass_s : 0;
  r.touched_share = ref.pass_s > 0 ? touched / ref.pass_s : 0;
  const double untouched = ref.pass_s - touched;
  r.amdahl_limit = untouched > ref.pass_s * 1e-12 ? ref.pass_s / untouched : INFINITY;
  // The residual's change is the host and overhead factors' arithmetic on a carried line:
  // its band is the reference's, counted below.
  double change_var = device_rule_sigma * device_rule_sigma;
  for (const auto& [m, sigma] : change_sigma) change_var += sigma * sigma;
  if (r.pass_s > 0) {
    r.speedup_uncertainty = std::sqrt(change_var) / r.pass_s;
    r.uncertainty = std::hypot(ref.uncertainty, r.speedup_uncertainty);
  }

  for (auto& [k, c] : classes) r.classes.push_back(c);
  std::stable_sort(r.classes.begin(), r.classes.end(),
                   [](const ClassTime& a, const ClassTime& b) { return a.reference_s > b.reference_s; });
  r.classes.push_back(ClassTime{"residual", ref.residual_s, r.residual_s, 0});

  // What the scaling could not reach, said rather than silently ignored.
  for (const auto& [kind, factor] : scale.kinds)
    if (!classes.count(kind))
      r.notes.push_back("kind:" + std::string(to_string(kind)) + ": " + w.name + " has no " +
                        std::string(to_string(kind)) + " operations, so it changes nothing");
  if (scale.kinds.count(OpKind::gemm) && !scale.kinds.count(OpKind::batched_gemm) &&
      classes.count(OpKind::batched_gemm))
    r.notes.push_back("kind:gemm does not include the " + std::to_string(classes[OpKind::batched_gemm].ops) +
                      " batched_gemm op(s) (" + format_duration(classes[OpKind::batched_gemm].reference_s) +
                      " per pass): add kind:batched_gemm=F to scale them too");
  if (blas_convs)
    r.notes.push_back("kind:gemm also scales the " + std::to_string(blas_convs) +
                      " im2col+blas convolution op(s): their work is the BLAS GEMM (oneDNN, cuDNN and MIOpen "
                      "convolutions are not moved by it)");
  if (held_gap > 0) {
    // Name the keys given: "the ops peak_flops and mem_bw speed up" read as if both were.
    const std::string keys = scale.peak_flops != 1 && scale.mem_bw != 1 ? "peak_flops and mem_bw"
                             : scale.peak_flops != 1                    ? "peak_flops"
                             : scale.mem_bw != 1                        ? "mem_bw"
                                                                        : "the scale";
    r.notes.push_back(format_duration(held_gap) + " per pass is the per-call launch gap of the ops " + keys +
                      (keys.find(" and ") == std::string::npos ? " speeds" : " speed") +
                      " up (the host's and driver's part of each call's time in the tables): it does not move with "
                      "the device; host and overhead scale it");
  }
  if (held_fixed > 0)
    r.notes.push_back(format_duration(held_fixed) +
                      " per pass is measured kernels' fixed latency (the fastest call the trace measured on its GPU, "
                      "carried unscaled as an estimate on another chip carries it): no device or host figure moves "
                      "it; kind:<kind> does");
  if (costless)
    r.notes.push_back(std::to_string(costless) +
                      " op(s) of kind other have no flops or bytes: peak_flops and mem_bw leave them unchanged");
  if ((scale.host != 1 || scale.overhead != 1) && !(ref.residual_s > 0))
    r.notes.push_back("host and overhead scale the residual line, and this estimate has none (" +
                      std::string(ref.calibration.calibrated ? "the measurement is all modelled operations"
                                                             : "it is not calibrated: `fomcast calibrate`") +
                      ")");
  if (ref.host_bound && scale.host == 1 && scale.overhead == 1)
    r.notes.push_back("the reference is host-bound (" + format_percent_significant(ref.residual_share, 3) +
                      " residual): device-side scaling cannot speed it up by more than " +
                      format_significant(1 / ref.residual_share, 3) + "x");
  return r;
}

}  // namespace fomcast
