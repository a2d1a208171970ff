// Platform comparison for carrying times between machines. The roofline ratio rather than
// a plain peak ratio: a small GEMM bound by memory on both machines should scale with
// bandwidth, a large one with peak compute. Measured against plain peak and bandwidth
// ratios in docs/accuracy.md (leave-one-platform-out over the DeepBench tables).
#include "similarity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fomcast::est {
namespace {

double figure(const Platform& p, DType d) {
  auto it = p.peak_flop_per_s.find(d);
  return it == p.peak_flop_per_s.end() ? 0 : it->second.value;
}

bool same_text(const std::string& a, const std::string& b) { return !a.empty() && a == b; }

}  // namespace

Peak peak_for(const Platform& p, DType d) {
  if (d == DType::unknown) d = DType::fp32;
  if (double v = figure(p, d); v > 0) return {v, d};
  // Stated equivalents: tf32 without its own figure runs at the fp32 rate; fp8 and int8 at
  // the 16-bit rate. Not bf16 at the fp16 rate or the reverse: every shipped part that has
  // both states both, and one that states one has no units for the other (Volta and Turing
  // have fp16 tensor cores, no bf16 ones: bf16 on a V100 came out 4.3x faster than fp32).
  const DType fallbacks[][2] = {{DType::tf32, DType::fp32},  {DType::fp8, DType::fp16},    {DType::fp8, DType::bf16},
                                {DType::int8, DType::fp16},  {DType::int8, DType::bf16},   {DType::int32, DType::fp32},
                                {DType::int64, DType::fp32}, {DType::boolean, DType::fp32}};
  for (const auto& [from, to] : fallbacks)
    if (from == d)
      if (double v = figure(p, to); v > 0) return {v, to};
  // A narrow type on a part with no rate for it runs at the fp32 rate (frameworks compute
  // it in fp32 there): never faster than the spec says.
  if (d == DType::fp16 || d == DType::bf16 || d == DType::fp8 || d == DType::int8)
    if (double v = figure(p, DType::fp32); v > 0) return {v, DType::fp32};
  return {};
}

double bandwidth_of(const Platform& p) { return p.mem_bw_bytes_per_s ? p.mem_bw_bytes_per_s->value : 0; }

std::optional<double> roofline_ratio(OpKind kind, double flops, double bytes, const Platform& from, DType from_dtype,
                                     const Platform& to, DType to_dtype) {
  const double pf = peak_for(from, from_dtype).flop_per_s, pt = peak_for(to, to_dtype).flop_per_s;
  const double bf = bandwidth_of(from), bt = bandwidth_of(to);
  if (flops <= 0 && bytes <= 0) {
    if (is_memory_bound(kind)) {
      if (bf > 0 && bt > 0) return bf / bt;
      return std::nullopt;
    }
    if (pf > 0 && pt > 0) return pf / pt;
    return std::nullopt;
  }
  // Each side's bound from the figures it has; a ratio needs the same terms on both.
  const bool use_flops = flops > 0 && pf > 0 && pt > 0;
  const bool use_bytes = bytes > 0 && bf > 0 && bt > 0;
  if (!use_flops && !use_bytes) return std::nullopt;
  if (flops > 0 && !use_flops && !is_memory_bound(kind)) return std::nullopt;  // compute-bound op, no peaks
  const double t_from = std::max(use_flops ? flops / pf : 0.0, use_bytes ? bytes / bf : 0.0);
  const double t_to = std::max(use_flops ? flops / pt : 0.0, use_bytes ? bytes / bt : 0.0);
  return t_to / t_from;
}

bool tf32_runs_as_fp32(const Platform& p) {
  const Peak tf32 = peak_for(p, DType::tf32);
  return tf32.dtype != DType::tf32 || !(tf32.flop_per_s > peak_for(p, DType::fp32).flop_per_s);
}

Roofline op_roofline(const Platform& p, OpKind kind, const OpShape& shape, DType math, double flops, double bytes) {
  Roofline r;
  const Peak peak = peak_for(p, math);
  r.peak = peak.flop_per_s;
  r.peak_dtype = peak.dtype;
  r.bandwidth = bandwidth_of(p);
  double work = flops;
  if (const auto* c = std::get_if<ConvShape>(&shape); c && kind == OpKind::conv) {
    const bool three = c->filter[0] == 1 && c->filter[1] == 3 && c->filter[2] == 3;
    const bool unit = c->stride == std::array<int64_t, 3>{1, 1, 1} && c->dilation == std::array<int64_t, 3>{1, 1, 1};
    // Winograd kernels are fp32's (and fp64's): an op whose math runs at the fp32 rate (a tf32
    // op on a part without TF32) may take them, and so may a tf32 op where TF32 is no faster
    // than fp32 (an RTX 3090's: cuDNN, allowed TF32, keeps the faster fp32 kernels). Without
    // that, tf32 came out slower than fp32 on a V100. Where TF32 is faster, the bound stays
    // direct TF32: a transfer from fp32 tables (whose 3x3 times are Winograd's) would
    // otherwise carry Winograd's gain onto the TF32 rate.
    const DType m = peak.dtype == DType::unknown ? DType::fp32 : peak.dtype;
    if (three && unit && c->groups <= 1) {
      if (m == DType::fp32 || m == DType::fp64) {
        r.winograd = true;
        work = flops / kWinogradReduction;
      } else if (math == DType::tf32 && tf32_runs_as_fp32(p)) {
        const Peak fp32 = peak_for(p, DType::fp32);
        if (fp32.flop_per_s > 0 && r.peak > 0) {
          r.winograd = true;
          work = flops / kWinogradReduction;
          r.peak = fp32.flop_per_s;
          r.peak_dtype = DType::fp32;
        }
      }
    }
  }
  if (work > 0 && r.peak > 0) r.compute_s = work / r.peak;
  if (bytes > 0 && r.bandwidth > 0) r.memory_s = bytes / r.bandwidth;
  r.seconds = std::max(r.compute_s, r.memory_s);
  return r;
}

double output_tiles(OpKind kind, const OpShape& shape, int64_t edge) {
  auto tiles = [edge](double m, double n) {
    return std::ceil(m / static_cast<double>(edge)) * std::ceil(n / static_cast<double>(edge));
  };
  if (const auto* g = std::get_if<GemmShape>(&shape))
    return tiles(static_cast<double>(g->m), static_cast<double>(g->n)) *
           static_cast<double>(std::max<int64_t>(g->batch, 1));
  if (const auto* c = std::get_if<ConvShape>(&shape); c && kind == OpKind::conv) {
    const auto out = c->output();
    const double npq = static_cast<double>(c->n) * static_cast<double>(out[0] * out[1] * out[2]);
    const double crs = static_cast<double>(c->c) * static_cast<double>(c->filter[0] * c->filter[1] * c->filter[2]);
    switch (c->direction) {
      case ConvDirection::forward: return tiles(npq, static_cast<double>(c->k));
      case ConvDirection::backward_data:
        return tiles(static_cast<double>(c->n) * static_cast<double>(c->input[0] * c->input[1] * c->input[2]),
                     static_cast<double>(c->c));
      case ConvDirection::backward_filter: return tiles(crs, static_cast<double>(c->k));
    }
  }
  return 0;
}

bool wave_quantized(OpKind kind) { return kind == OpKind::batched_gemm; }

double wave_factor(const Platform& p, OpKind kind, const OpShape& shape) {
  const double units = p.compute_units ? p.compute_units->value : 0;
  if (!(units > 0) || !wave_quantized(kind)) return 1;
  // The library's heuristics pick smaller tiles until the grid fills the machine: the
  // largest edge whose tiles cover every unit, else the smallest.
  double tiles = 0;
  for (const int64_t edge : kTileEdges) {
    tiles = output_tiles(kind, shape, edge);
    if (tiles >= units) break;
  }
  if (!(tiles > 0)) return 1;
  // Fewer tiles than units: one partial wave, whose time latency and occupancy decide more
  // than the count of idle units (modelled that way, the leave-platform-out GEMM errors
  // grew); from one full wave up, the part-empty last wave costs its whole time.
  const double waves = tiles / units;
  return waves < 1 ? 1.0 : std::ceil(waves) / waves;
}

namespace {

// Both sides' figures for carrying an op: the peaks of its math types, the achievable
// bandwidths, the wave factors, and which of flops and bytes can be used.
struct TransferSides {
  double pf = 0, pt = 0, bf = 0, bt = 0, w_from = 1, w_to = 1;
  bool use_flops = false, use_bytes = false;
};

TransferSides transfer_sides(OpKind kind, const OpShape& shape, double flops, double bytes, const Platform& from,
                             DType from_math, double bw_fraction_from, const Platform& to, DType to_math,
                             double bw_fraction_to) {
  TransferSides s;
  s.pf = peak_for(from, from_math).flop_per_s, s.pt = peak_for(to, to_math).flop_per_s;
  s.bf = bandwidth_of(from) * (bw_fraction_from > 0 ? bw_fraction_from : 1.0);
  s.bt = bandwidth_of(to) * (bw_fraction_to > 0 ? bw_fraction_to : 1.0);
  s.use_flops = flops > 0 && s.pf > 0 && s.pt > 0;
  s.use_bytes = bytes > 0 && s.bf > 0 && s.bt > 0;
  // Waves only when both sides know their compute units: one side's alone would read as a
  // speed difference.
  if (from.compute_units && to.compute_units)
    s.w_from = wave_factor(from, kind, shape), s.w_to = wave_factor(to, kind, shape);
  return s;
}

std::optional<double> roofline_transfer(const TransferSides& s, OpKind kind, double flops, double bytes) {
  if (!s.use_flops && !s.use_bytes) return std::nullopt;
  if (flops > 0 && !s.use_flops && !is_memory_bound(kind)) return std::nullopt;
  const double t_from = std::max(s.use_flops ? flops / s.pf * s.w_from : 0.0, s.use_bytes ? bytes / s.bf : 0.0);
  const double t_to = std::max(s.use_flops ? flops / s.pt * s.w_to : 0.0, s.use_bytes ? bytes / s.bt : 0.0);
  return t_to / t_from;
}

}  // namespace

std::optional<double> transfer_ratio(OpKind kind, const OpShape& shape, double flops, double bytes,
                                     const Platform& from, DType from_math, double bw_fraction_from, const Platform& to,
                                     DType to_math, double bw_fraction_to) {
  return roofline_transfer(
      transfer_sides(kind, shape, flops, bytes, from, from_math, bw_fraction_from, to, to_math, bw_fraction_to), kind,
      flops, bytes);
}

std::optional<double> measured_transfer_ratio(OpKind kind, const OpShape& shape, double flops, double bytes,
                                              double measured_s, const Platform& from, DType from_math,
                                              double bw_fraction_from, const Platform& to, DType to_math,
                                              double bw_fraction_to) {
  const TransferSides s =
      transfer_sides(kind, shape, flops, bytes, from, from_math, bw_fraction_from, to, to_math, bw_fraction_to);
  const auto roof = roofline_transfer(s, kind, flops, bytes);
  // Across architectures the rest is not one resource's: measured on the end-to-end rows,
  // scaling it by the compute ratio took ResNet-50's amp convs from a V100's fp16 table to an
  // H100 at its 7.9x tensor-core ratio (H100 SXM amp -14.5% -> -19.9%, the step median 7.4% ->
  // 7.9%), where the chips' compute units x clock differ 2.1x. The roofline ratio stays there.
  if (!roof || !(measured_s > 0) || kinship(from, to) != Kinship::same_architecture) return roof;
  const double r_compute = s.use_flops ? s.pf / s.pt * s.w_to / s.w_from : 0.0;
  const double r_memory = s.use_bytes ? s.bf / s.bt : 0.0;
  const double e_c = s.use_flops ? std::min(1.0, flops / s.pf * s.w_from / measured_s) : 0.0;
  const double e_m = s.use_bytes ? std::min(1.0, bytes / s.bf / measured_s) : 0.0;
  double r_rest = 0;
  if (!is_memory_bound(kind))
    r_rest = s.use_flops ? r_compute : r_memory;
  else if (from.compute_units && to.compute_units && from.clock_hz && to.clock_hz)
    r_rest = from.compute_units->value * from.clock_hz->value / (to.compute_units->value * to.clock_hz->value);
  if (!(r_rest > 0)) return roof;
  return std::max(e_c * r_compute, e_m * r_memory) + (1 - std::max(e_c, e_m)) * r_rest;
}

Kinship kinship(const Platform& a, const Platform& b) {
  if (same_text(a.vendor, b.vendor) && same_text(a.architecture, b.architecture)) return Kinship::same_architecture;
  if (same_text(a.vendor, b.vendor)) return Kinship::same_vendor;
  return Kinship::other;
}

bool comparable_devices(const Platform& source, const Platform& target) {
  if (target.device_kind != "cpu" && target.device_kind != "gpu") return true;
  return source.device_kind == target.device_kind;
}

bool same_chip(const Platform& a, const Platform& b) {
  if (a.name == b.name) return true;
  return kinship(a, b) == Kinship::same_architecture && a.compute_units && b.compute_units &&
         a.compute_units->value == b.compute_units->value;
}

std::string_view to_string(Kinship k) {
  switch (k) {
    case Kinship::same_architecture: return "same architecture";
    case Kinship::same_vendor: return "same vendor";
    case Kinship::other: return "other vendor";
  }
  return "?";
}

double kinship_band(Kinship k) {
  switch (k) {
    // 0.20 x 0.66, validate's band_refit for the same-architecture rows, which held out of
    // sample (fitted on the other platform pairs' rows: 70.9% within +-1 band against 85.0%
    // at 0.20; docs/accuracy.md, "Band coverage").
    case Kinship::same_architecture: return 0.13;
    case Kinship::same_vendor: return 0.35;
    case Kinship::other: return 0.50;
  }
  return 0.50;
}

double platform_distance(const Platform& from, DType from_dtype, const Platform& to, DType to_dtype) {
  // A figure one side lacks adds 1, as a missing bandwidth does: a spec with only an fp16
  // peak was infinitely far from every source, and the sources' weights exp(-(inf - inf))
  // came out NaN. Whether an op can be carried at all is the transfer's to say.
  const double pf = peak_for(from, from_dtype).flop_per_s, pt = peak_for(to, to_dtype).flop_per_s;
  double d = pf > 0 && pt > 0 ? std::fabs(std::log(pt / pf)) : 1.0;
  const double bf = bandwidth_of(from), bt = bandwidth_of(to);
  d += bf > 0 && bt > 0 ? std::fabs(std::log(bt / bf)) : 1.0;
  switch (kinship(from, to)) {
    case Kinship::same_architecture: break;
    case Kinship::same_vendor: d += 0.5; break;
    case Kinship::other: d += 1.5; break;
  }
  if (from.device_kind != to.device_kind) d += 1.0;
  return d;
}

}  // namespace fomcast::est
