// The method chain for one operation (estimate.hpp lists the order and why). Every quote
// carries its method, its source and a relative uncertainty; every substitution (another
// precision, another mode, transposes, the direction of a backward conv) becomes a note.
#include "predict.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "catalog.hpp"
#include "fomcast/report.hpp"
#include "similarity.hpp"

namespace fomcast::est {
namespace {

constexpr KernelMode kModes[] = {KernelMode::train, KernelMode::inference};
// Bands (about the 68th percentile of |error|) of the through-GEMM methods, from the
// leave-one-out in docs/accuracy.md (median over the DeepBench groups: 0.56 for
// implicit-gemm, 0.54 for rnn-as-gemm), and of the assumed-efficiency fallbacks.
constexpr double kImplicitGemmBand = 0.55;
constexpr double kImplicitGemmUncorrectedBand = 0.8;
constexpr double kRnnAsGemmBand = 0.55;
constexpr double kAssumedBandwidthBand = 0.5;
constexpr double kRooflineBand = 0.6;
constexpr double kUnknownRateBand = 0.5;


std::string pct(double u) { return format_significant(100 * u) + "%"; }

DType normalized(DType d) { return d == DType::unknown ? DType::fp32 : d; }

double quad(double a, double b) { return std::sqrt(a * a + b * b); }

// Table precisions for an op of dtype, best first.
std::vector<KernelPrecision> precisions_for(DType d) {
  using P = KernelPrecision;
  switch (d) {
    case DType::fp16: return {P::fp16, P::fp16_mixed, P::bf16, P::fp16_io_fp32_math, P::fp32};
    case DType::bf16: return {P::bf16, P::fp16_mixed, P::fp16, P::fp16_io_fp32_math, P::fp32};
    case DType::fp8: return {P::fp8, P::fp16_mixed, P::fp16, P::bf16, P::fp32};
    case DType::int8: return {P::int8, P::fp16_mixed, P::fp32};
    case DType::fp64: return {P::fp64, P::fp32};
    case DType::tf32: return {P::tf32, P::fp32};
    default: return {P::fp32, P::tf32};
  }
}

double product(const std::array<int64_t, 3>& a) {
  return static_cast<double>(a[0]) * static_cast<double>(a[1]) * static_cast<double>(a[2]);
}

bool conv_tabulable(const ConvShape& c) {
  return c.groups == 1 && c.dilation == std::array<int64_t, 3>{1, 1, 1} && c.input[0] == 1 && c.filter[0] == 1 &&
         c.dims <= 2;
}

GemmShape swapped(const GemmShape& g) {
  GemmShape s = g;  // C^T = B^T A^T: the same kernel, operands exchanged
  std::swap(s.m, s.n);
  s.trans_a = !g.trans_b;
  s.trans_b = !g.trans_a;
  return s;
}

double exact_uncertainty(const KernelEntry& e) {
  // The spread of repeats where the source has one; else the 1 us resolution DeepBench's
  // NVIDIA binaries print, and 2% run-to-run at least.
  return std::max({e.spread, 0.5 / e.time_us, 0.02});
}

std::string group_name(const std::string& platform, const TableGroup& g) {
  std::string kind(to_string(g.kind));
  if (const auto* d = std::get_if<ConvDirection>(&g.variant)) kind += " " + std::string(to_string(*d));
  if (const auto* r = std::get_if<RnnVariant>(&g.variant))
    kind += r->direction == RnnDirection::backward ? " backward" : " forward";
  return platform + "'s " + std::string(to_string(g.precision)) + " " + std::string(to_string(g.mode)) + " " + kind +
         " table";
}

std::size_t index_of(const TableGroup& g, const KernelEntry* e) {
  if (!e) return kNone;
  for (std::size_t i = 0; i < g.entries.size(); ++i)
    if (g.entries[i] == e) return i;
  return kNone;
}

// Exact entry or interpolation inside one group.
std::optional<Quote> in_group(const TableGroup& g, OpKind kind, const OpShape& shape, const std::string& platform,
                              const KernelEntry* exclude) {
  const std::size_t skip = index_of(g, exclude);
  std::vector<OpShape> variants{shape};
  if (const auto* gs = std::get_if<GemmShape>(&shape)) variants.push_back(swapped(*gs));

  auto exact = [&](std::size_t i, const char* note) {
    const KernelEntry& e = *g.entries[i];
    Quote q;
    q.seconds = e.time_us * 1e-6;
    q.uncertainty = exact_uncertainty(e);
    q.method = Method::table;
    q.source = platform;
    q.detail = "exact entry in " + group_name(platform, g) + ": " + describe(e.shape) + " = " + format_significant(e.time_us) +
               " us (" + e.provenance + ")";
    if (note) q.notes.emplace_back(note);
    return q;
  };
  for (std::size_t v = 0; v < variants.size(); ++v)
    if (auto it = g.by_key.find(shape_key(variants[v])); it != g.by_key.end() && !left_out(g, it->second, skip))
      return exact(it->second, v ? "operands exchanged (C^T = B^T A^T): the same kernel" : nullptr);
  // The same M, N, K with other transposes; not when leaving a shape out (validation).
  if (skip == kNone)
    for (const auto& v : variants)
      if (const auto* gs = std::get_if<GemmShape>(&v))
        if (auto it = g.by_mnk.find(mnk_key(*gs)); it != g.by_mnk.end())
          return exact(it->second, "same M, N, K measured with other transposes");

  const double work = table_work(kind, shape);
  if (!(work > 0)) return std::nullopt;
  std::optional<Interpolation> best;
  for (const auto& v : variants) {
    auto in = interpolate(g, shape_features(kind, v), g.interpolator, skip);
    if (in && (!best || in->nearest_distance < best->nearest_distance)) best = in;
  }
  if (!best) return std::nullopt;
  Quote q;
  q.seconds = work / std::exp(best->log_rate);
  // A shape far smaller than anything measured would otherwise come out as fast as its
  // work at the slowest measured rate; no kernel in the group ran faster than this.
  double floor = g.min_time_s;
  if (skip != kNone) {
    floor = INFINITY;
    for (std::size_t i = 0; i < g.entries.size(); ++i)
      if (!left_out(g, i, skip))
        floor = std::min(floor, g.entries[i]->time_us * 1e-6 / latency_units(g.entries[i]->shape));
  }
  floor *= latency_units(shape);
  if (q.seconds < floor) {
    q.seconds = floor;
    q.notes.push_back("at the fastest time measured in " + group_name(platform, g) + " (" + format_significant(floor * 1e6) +
                      " us): a latency floor");
  }
  q.uncertainty = interpolation_uncertainty(g, best->nearest_distance);
  q.method = Method::interpolated;
  q.source = platform;
  q.detail = std::string(to_string(g.interpolator)) + " in " + group_name(platform, g) + " (" +
             std::to_string(g.entries.size()) + " entries; nearest " + describe(g.entries[best->nearest]->shape) +
             " at log-distance " + format_significant(best->nearest_distance) + "; leave-one-out band " + pct(g.band) + ")";
  return q;
}

const TableGroup* find_group(const PlatformTables& t, OpKind kind, KernelPrecision precision,
                             const TableVariant& variant, KernelMode& mode_used) {
  for (const KernelMode mode : kModes)
    if (const auto* g = t.find(kind, precision, mode, variant)) {
      mode_used = mode;
      return g;
    }
  return nullptr;
}

// The time on the table's precision carried to the op's dtype on the same platform.
void to_op_precision(Quote& q, const Platform& p, KernelPrecision precision, KernelMode mode, OpKind kind,
                     const OpShape& shape, DType dtype) {
  const DType math = normalized(precision_math_dtype(precision));
  if (precision_of(dtype) != precision)
    q.notes.push_back(std::string(to_string(dtype)) + " op timed with the " + std::string(to_string(precision)) +
                      " table");
  if (mode != KernelMode::train)
    q.notes.push_back("only " + std::string(to_string(mode)) + "-mode measurements for this kind and precision");
  if (math == dtype) return;
  const double flops = op_flops(kind, shape), bytes = op_bytes(kind, shape, dtype);
  if (auto r = roofline_ratio(kind, flops, bytes, p, math, p, dtype)) {
    if (std::fabs(*r - 1) > 1e-9) {
      q.seconds *= *r;
      q.notes.push_back("scaled by " + format_significant(*r) + ", the roofline ratio of " + p.name + "'s " +
                        std::string(to_string(math)) + " and " + std::string(to_string(dtype)) + " rates");
    }
  } else {
    // Without both rates the table's time stands; how wrong that can be grows with how
    // different the types are (int8 for fp32 is a factor of several).
    const double widths = dtype_bytes(math) / dtype_bytes(dtype);
    q.uncertainty = quad(q.uncertainty, widths >= 4 || widths <= 0.25 ? 1.0 : kUnknownRateBand);
    q.notes.push_back("no " + std::string(to_string(dtype)) + " or " + std::string(to_string(math)) +
                      " rate known for " + p.name + " to scale by: timed as " + std::string(to_string(math)));
  }
}

GemmShape implicit_gemm(const ConvShape& c) {
  const int64_t g = std::max<int64_t>(c.groups, 1);
  const auto out = c.output();
  const auto npq = static_cast<int64_t>(static_cast<double>(c.n) * product(out));
  const auto crs = static_cast<int64_t>(static_cast<double>(c.c / g) * product(c.filter));
  GemmShape s;
  switch (c.direction) {
    case ConvDirection::forward: s.m = npq, s.n = c.k, s.k = crs; break;
    case ConvDirection::backward_data:
      s.m = static_cast<int64_t>(static_cast<double>(c.n) * product(c.input));
      s.n = c.c;
      s.k = static_cast<int64_t>(static_cast<double>(c.k / g) * product(c.filter));
      break;
    case ConvDirection::backward_filter: s.m = crs, s.n = c.k, s.k = npq; break;
  }
  s.m = std::max<int64_t>(s.m, 1), s.n = std::max<int64_t>(s.n, 1), s.k = std::max<int64_t>(s.k, 1);
  return s;
}

std::optional<Quote> conv_through_gemm(const PlatformTables& t, const Platform& p, const ConvShape& c,
                                       const TableGroup& gemm, KernelPrecision precision,
                                       const KernelEntry* exclude) {
  const GemmShape gs = implicit_gemm(c);
  auto q = in_group(gemm, OpKind::gemm, gs, p.name, exclude);
  if (!q) return std::nullopt;
  const double correction = conv_gemm_correction(t, p, precision, c.direction);
  q->seconds *= correction;
  q->method = Method::implicit_gemm;
  const bool corrected = t.find(OpKind::conv, precision, gemm.mode, c.direction) != nullptr;
  q->uncertainty = quad(q->uncertainty, corrected ? kImplicitGemmBand : kImplicitGemmUncorrectedBand);
  q->detail = "as the GEMM " + describe(gs) + " (implicit GEMM; " + q->detail + ")" +
              (corrected ? ", x " + format_significant(correction) + " = " + p.name + "'s median conv/GEMM time ratio for " +
                               std::string(to_string(c.direction)) + " convs"
                         : ", uncorrected: " + p.name + " has no " + std::string(to_string(precision)) + " conv table");
  if (c.groups > 1) q->notes.push_back("grouped conv timed as one GEMM of the same work");
  return q;
}

std::optional<Quote> rnn_through_gemm(const RnnShape& r, const TableGroup& gemm, const std::string& platform,
                                      const KernelEntry* exclude) {
  const int64_t gates = r.cell == RnnCell::lstm ? 4 : r.cell == RnnCell::gru ? 3 : 1;
  const int64_t gh = gates * r.hidden, bt = r.batch * r.timesteps;
  // As cuDNN runs a layer: the input projection for all timesteps in one GEMM, then one
  // recurrent GEMM per timestep (M = gates x hidden, N = batch, K = hidden). Backward: the
  // data gradient the same way round, and the two weight gradients over all timesteps.
  struct Step {
    GemmShape shape;
    int64_t repeat;
  };
  std::vector<Step> steps;
  if (!r.backward)
    steps = {{GemmShape{gh, bt, r.input}, 1}, {GemmShape{gh, r.batch, r.hidden}, r.timesteps}};
  else
    steps = {{GemmShape{r.hidden, r.batch, gh}, r.timesteps},
             {GemmShape{r.input, bt, gh}, 1},
             {GemmShape{gh, r.input, bt}, 1},
             {GemmShape{gh, r.hidden, bt}, 1}};
  Quote total;
  total.method = Method::rnn_as_gemm;
  total.source = platform;
  double weighted_u = 0;
  std::string parts;
  for (const auto& s : steps) {
    auto q = in_group(gemm, OpKind::gemm, s.shape, platform, exclude);
    if (!q) return std::nullopt;
    const double t = q->seconds * static_cast<double>(s.repeat);
    total.seconds += t;
    weighted_u += t * q->uncertainty;
    parts += (parts.empty() ? "" : " + ") + (s.repeat > 1 ? std::to_string(s.repeat) + " x " : std::string()) +
             describe(s.shape);
  }
  total.uncertainty = quad(weighted_u / total.seconds, kRnnAsGemmBand);
  total.detail = "as GEMMs " + parts + " in " + group_name(platform, gemm);
  return total;
}

// One shape through one platform's tables, best precision first.
std::optional<Quote> quote_shape(const PlatformTables& t, const Platform& p, OpKind kind, const OpShape& in_shape,
                                 DType dtype, const KernelEntry* exclude) {
  const OpShape shape = table_shape(in_shape);
  const auto* conv = std::get_if<ConvShape>(&shape);
  const bool direct = !conv || conv_tabulable(*conv);
  // The preferred precisions, then whatever else the platform measured (a device with
  // only int8 GEMMs still says something about an fp32 GEMM; the notes say how little).
  auto precisions = precisions_for(dtype);
  for (const auto& g : t.groups)
    if ((g.kind == kind || g.kind == OpKind::gemm) &&
        std::find(precisions.begin(), precisions.end(), g.precision) == precisions.end())
      precisions.push_back(g.precision);
  KernelMode mode = KernelMode::train;
  if (direct)
    for (const auto& prec : precisions)
      if (const auto* g = find_group(t, kind, prec, group_variant(kind, shape), mode))
        if (auto q = in_group(*g, kind, shape, p.name, exclude)) {
          to_op_precision(*q, p, prec, mode, kind, shape, dtype);
          return q;
        }
  for (const auto& prec : precisions) {
    const auto* gemm = find_group(t, OpKind::gemm, prec, std::monostate{}, mode);
    if (!gemm) continue;
    std::optional<Quote> q;
    if (conv) {
      q = conv_through_gemm(t, p, *conv, *gemm, prec, exclude);
    } else if (const auto* r = std::get_if<RnnShape>(&shape)) {
      q = rnn_through_gemm(*r, *gemm, p.name, exclude);
    } else if (const auto* b = std::get_if<GemmShape>(&shape); b && kind == OpKind::batched_gemm) {
      GemmShape flat = *b;
      flat.n *= std::max<int64_t>(b->batch, 1);
      flat.batch = 1;
      q = in_group(*gemm, OpKind::gemm, flat, p.name, exclude);
      if (q) q->notes.push_back("batched GEMM timed as one GEMM with N x batch");
    }
    if (q) {
      to_op_precision(*q, p, prec, mode, kind, shape, dtype);
      return q;
    }
  }
  return std::nullopt;
}

// The shapes an op's time is the sum of: a backward conv given without a direction is the
// data and the filter gradient; a backward recurrent layer is the layer's backward pass.
std::vector<OpShape> op_shapes(const Op& op) {
  if (const auto* c = std::get_if<ConvShape>(&op.shape))
    if (op.phase == Phase::backward && c->direction == ConvDirection::forward) {
      ConvShape d = *c, f = *c;
      d.direction = ConvDirection::backward_data;
      f.direction = ConvDirection::backward_filter;
      return {d, f};
    }
  if (const auto* r = std::get_if<RnnShape>(&op.shape)) {
    RnnShape s = *r;
    s.backward = r->backward || op.phase == Phase::backward;
    return {s};
  }
  return {op.shape};
}

std::optional<Quote> quote_op(const PlatformTables& t, const Platform& p, const Op& op, DType dtype) {
  const auto shapes = op_shapes(op);
  std::optional<Quote> total;
  double weighted_u = 0;
  for (const auto& s : shapes) {
    auto q = quote_shape(t, p, op.kind, s, dtype, nullptr);
    if (!q) return std::nullopt;
    weighted_u += q->seconds * q->uncertainty;
    if (!total) {
      total = std::move(q);
      continue;
    }
    total->seconds += q->seconds;
    total->detail += "; plus " + q->detail;
    // The weaker method names the sum.
    total->method = std::max(total->method, q->method);
    for (auto& n : q->notes)
      if (std::find(total->notes.begin(), total->notes.end(), n) == total->notes.end()) total->notes.push_back(n);
  }
  if (shapes.size() > 1) {
    total->uncertainty = weighted_u / total->seconds;
    total->notes.push_back("backward conv without a direction: backward-data + backward-filter");
  }
  return total;
}

bool compute_shape(const Op& op) {
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::batched_gemm: return std::holds_alternative<GemmShape>(op.shape);
    case OpKind::conv: return std::holds_alternative<ConvShape>(op.shape);
    case OpKind::rnn: return std::holds_alternative<RnnShape>(op.shape);
    default: return false;
  }
}

// Whose measurement to carry to the target: another platform's kernel table, or the op's
// own measured time on the workload's recording platform, whichever is most alike.
struct Source {
  const Platform* platform = nullptr;
  const PlatformTables* tables = nullptr;  // null: the op's own measurement
  double distance = std::numeric_limits<double>::infinity();
};

Source best_source(const Context& ctx, const Op& op, DType dtype) {
  Source best;
  const auto proxies = rank_proxies(ctx.catalog, ctx.target, op.kind, dtype);
  if (!proxies.empty()) best = Source{proxies.front().platform, proxies.front().tables, proxies.front().distance};
  if (op.self_time_s && ctx.baseline && ctx.baseline->name != ctx.target.name) {
    // Same shape, same software: it wins ties.
    const double d = platform_distance(*ctx.baseline, dtype, ctx.target, dtype);
    if (d <= best.distance) best = Source{ctx.baseline, nullptr, d};
  }
  return best;
}

std::optional<Quote> scaled_from(const Context& ctx, const Source& src, const Op& op, DType dtype, double flops,
                                 double bytes) {
  if (!src.platform) return std::nullopt;
  const Kinship kin = kinship(*src.platform, ctx.target);
  if (!src.tables) {
    auto r = roofline_ratio(op.kind, flops, bytes, *src.platform, dtype, ctx.target, dtype);
    if (!r) return std::nullopt;
    Quote q;
    q.seconds = *op.self_time_s * *r;
    q.uncertainty = kinship_band(kin);
    q.method = Method::scaled_table;
    q.source = src.platform->name;
    q.detail = "the op's own time measured on " + src.platform->name + " x " + format_significant(*r) + ", the roofline ratio " +
               src.platform->name + " -> " + ctx.target.name + " (" + std::string(to_string(kin)) + ")";
    return q;
  }
  auto q = quote_op(*src.tables, *src.platform, op, dtype);
  if (!q) return std::nullopt;
  // The proxy quote is already at the op's dtype on the proxy; carry it across.
  auto r = roofline_ratio(op.kind, flops, bytes, *src.platform, dtype, ctx.target, dtype);
  if (!r) return std::nullopt;
  q->seconds *= *r;
  q->uncertainty = quad(q->uncertainty, kinship_band(kin));
  q->detail = src.platform->name + " " + std::string(to_string(q->method)) + " (" + q->detail + ") x " + format_significant(*r) +
              ", the roofline ratio " + src.platform->name + " -> " + ctx.target.name + " (" +
              std::string(to_string(kin)) + ")";
  q->method = Method::scaled_table;
  q->source = src.platform->name;
  return q;
}

// The compute efficiency a roofline assumes on the target: its own tables' median for the
// op's kind (else GEMM), else the most alike tabulated platform's, else kAssumed.
double compute_efficiency(const Context& ctx, const Op& op, DType dtype, std::string& why) {
  auto from_tables = [&](const PlatformTables& t, const std::string& name) -> double {
    for (const auto& prec : precisions_for(dtype))
      for (OpKind k : {op.kind, OpKind::gemm})
        for (const auto& g : t.groups)
          if (g.kind == k && g.precision == prec && g.median_efficiency > 0) {
            why = "median efficiency " + format_significant(g.median_efficiency) + " of " + group_name(name, g);
            return g.median_efficiency;
          }
    return 0;
  };
  if (const auto* t = ctx.tables(ctx.target.name))
    if (double e = from_tables(*t, ctx.target.name); e > 0) return e;
  const Source src = best_source(ctx, op, dtype);
  if (src.tables)
    if (double e = from_tables(*src.tables, src.platform->name); e > 0) return e;
  why = "assumed efficiency " + format_significant(kAssumedComputeEfficiency);
  return kAssumedComputeEfficiency;
}

std::optional<Quote> roofline(const Context& ctx, const Op& op, DType dtype, double flops, double bytes) {
  const Peak peak = peak_for(ctx.target, dtype);
  const double bw = bandwidth_of(ctx.target);
  const bool memory = is_memory_bound(op.kind);
  std::string why;
  const double e = memory ? kAssumedComputeEfficiency : compute_efficiency(ctx, op, dtype, why);
  double t_compute = 0, t_memory = 0;
  if (flops > 0 && peak.flop_per_s > 0) t_compute = flops / (peak.flop_per_s * e);
  if (bytes > 0 && bw > 0) t_memory = bytes / (bw * kAssumedBandwidthEfficiency);
  if (flops > 0 && !(peak.flop_per_s > 0) && !memory) return std::nullopt;
  if (t_compute <= 0 && t_memory <= 0) return std::nullopt;
  Quote q;
  q.seconds = std::max(t_compute, t_memory);
  if (ctx.target.launch_overhead_s) q.seconds = std::max(q.seconds, ctx.target.launch_overhead_s->value);
  q.uncertainty = kRooflineBand;
  q.method = Method::roofline;
  q.source = ctx.target.name;
  q.detail = "max(" + format_significant(flops) + " flop / (" + format_significant(peak.flop_per_s / 1e12) + " TFLOP/s x " +
             format_significant(e) + "), " + format_significant(bytes) + " B / (" + format_significant(bw / 1e9) +
             " GB/s x " + format_significant(kAssumedBandwidthEfficiency) + "))" + (why.empty() ? "" : "; " + why);
  return q;
}

std::optional<Quote> bandwidth(const Context& ctx, const Op& op, double bytes) {
  const double bw = bandwidth_of(ctx.target);
  if (!(bw > 0)) {
    // No published bandwidth (the mobile devices): the fastest streaming the platform's own
    // GEMM table shows is the only evidence, a lower bound of the bandwidth, so the time is
    // an upper bound; said, with a 100% band.
    const auto* t = ctx.tables(ctx.target.name);
    if (!t || !(t->achieved_bandwidth > 0) || !(bytes > 0)) return std::nullopt;
    Quote q;
    q.method = Method::bandwidth;
    q.source = ctx.target.name;
    q.seconds = bytes / t->achieved_bandwidth;
    q.uncertainty = 1.0;
    q.detail = format_significant(bytes) + " B / " + format_significant(t->achieved_bandwidth / 1e9) +
               " GB/s, the most any GEMM of " + ctx.target.name + "'s table moved (" +
               describe(t->achieved_bandwidth_entry->shape) + " " +
               std::string(to_string(t->achieved_bandwidth_entry->precision)) + ")";
    q.notes.push_back(ctx.target.name + "'s spec gives no memory bandwidth: a measured lower bound stands in");
    return q;
  }
  Quote q;
  q.method = Method::bandwidth;
  q.source = ctx.target.name;
  const double bw_base = ctx.baseline ? bandwidth_of(*ctx.baseline) : 0;
  if (op.self_time_s && bw_base > 0) {
    // The measured time holds the kernel's real efficiency and access pattern; the same
    // bytes at the same fraction of peak: time x bandwidth ratio.
    q.seconds = *op.self_time_s * bw_base / bw;
    q.uncertainty = kinship_band(kinship(*ctx.baseline, ctx.target));
    q.detail = "baseline time on " + ctx.baseline->name + " x bandwidth ratio " + format_significant(bw_base / 1e9) + " / " +
               format_significant(bw / 1e9) + " GB/s";
    q.source = ctx.baseline->name;
    return q;
  }
  if (!(bytes > 0)) return std::nullopt;
  q.seconds = bytes / (bw * kAssumedBandwidthEfficiency);
  if (ctx.target.launch_overhead_s) q.seconds = std::max(q.seconds, ctx.target.launch_overhead_s->value);
  q.uncertainty = kAssumedBandwidthBand;
  q.detail = format_significant(bytes) + " B / (" + format_significant(bw / 1e9) + " GB/s x assumed efficiency " + format_significant(kAssumedBandwidthEfficiency) +
             ")";
  return q;
}

std::optional<Quote> network(const Context& ctx, const Op& op, const CollectiveShape& c) {
  const double bw = ctx.target.net_bw_bytes_per_s ? ctx.target.net_bw_bytes_per_s->value : 0;
  if (!(bw > 0)) return std::nullopt;
  Quote q;
  q.method = Method::network;
  q.source = ctx.target.name;
  q.uncertainty = kAssumedBandwidthBand;
  if (c.ranks > 1 && c.bytes > 0) {
    const double p = static_cast<double>(c.ranks), b = static_cast<double>(c.bytes);
    const double lat = ctx.target.net_latency_s ? ctx.target.net_latency_s->value : 0;
    double steps = p - 1, volume = (p - 1) / p * b;  // ring allgather / reduce-scatter
    switch (c.op) {
      case CollectiveKind::allreduce: steps = 2 * (p - 1), volume = 2 * (p - 1) / p * b; break;
      case CollectiveKind::broadcast:
      case CollectiveKind::reduce: steps = std::ceil(std::log2(p)), volume = b; break;
      case CollectiveKind::send_recv: steps = 1, volume = b; break;
      default: break;
    }
    q.seconds = volume / bw + steps * lat;
    q.detail = "ring model: " + format_significant(volume) + " B / " + format_significant(bw / 1e9) + " GB/s + " + format_significant(steps) + " x latency " +
               (ctx.target.net_latency_s ? format_significant(lat * 1e6) + " us" : "(unknown, 0)");
    return q;
  }
  const double bw_base = ctx.baseline && ctx.baseline->net_bw_bytes_per_s ? ctx.baseline->net_bw_bytes_per_s->value : 0;
  if (op.self_time_s && bw_base > 0) {
    q.seconds = *op.self_time_s * bw_base / bw;
    q.detail = "baseline time on " + ctx.baseline->name + " x network bandwidth ratio";
    q.source = ctx.baseline->name;
    return q;
  }
  return std::nullopt;
}

std::optional<Quote> collective_from_tables(const Context& ctx, const CollectiveShape& c) {
  const auto* t = ctx.tables(ctx.target.name);
  if (!t || c.ranks < 2) return std::nullopt;
  KernelMode mode = KernelMode::train;
  const auto* g = find_group(*t, OpKind::collective, KernelPrecision::fp32, c.op, mode);
  if (!g) return std::nullopt;
  return in_group(*g, OpKind::collective, c, ctx.target.name, nullptr);
}

OpEstimate applied(OpEstimate e, Quote q) {
  e.method = q.method;
  e.predicted_s = q.seconds;
  e.uncertainty = q.uncertainty;
  e.detail = std::move(q.detail);
  e.source_platform = std::move(q.source);
  e.notes = std::move(q.notes);
  return e;
}

// Says when the target's spec has no rate for the op's type and another one stood in.
void note_borrowed_rate(OpEstimate& e, const Platform& target, DType dtype) {
  if (e.method == Method::table || e.method == Method::interpolated || e.method == Method::measured) return;
  const Peak p = peak_for(target, dtype);
  if (p.flop_per_s > 0 && p.dtype != dtype)
    e.notes.push_back("no " + std::string(to_string(dtype)) + " rate in " + target.name + "'s spec: its " +
                      std::string(to_string(p.dtype)) + " rate stands in");
}

}  // namespace

std::optional<Quote> quote_from_tables(const PlatformTables& t, const Platform& p, OpKind kind, const OpShape& shape,
                                       DType dtype, const KernelEntry* exclude) {
  return quote_shape(t, p, kind, shape, normalized(dtype), exclude);
}

std::vector<Proxy> rank_proxies(const Catalog& catalog, const Platform& target, OpKind kind, DType dtype) {
  dtype = normalized(dtype);
  std::vector<Proxy> out;
  for (const auto& [name, table] : catalog.tables) {
    if (name == target.name) continue;
    const Platform* q = catalog.platform(name);
    const PlatformTables* t = q ? tables_of(catalog, name) : nullptr;
    if (!t) continue;
    for (const auto& prec : precisions_for(dtype)) {
      double penalty = 0;
      if (!t->has(kind, prec)) {
        if (kind == OpKind::gemm || !t->has(OpKind::gemm, prec)) continue;
        penalty = 0.5;
      }
      const double d = platform_distance(*q, normalized(precision_math_dtype(prec)), target, dtype) + penalty;
      if (std::isfinite(d)) out.push_back(Proxy{q, t, prec, d});
      break;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Proxy& a, const Proxy& b) { return a.distance < b.distance; });
  return out;
}

std::optional<Quote> quote_group(const TableGroup& g, OpKind kind, const OpShape& shape, const std::string& platform,
                                 const KernelEntry* exclude) {
  return in_group(g, kind, shape, platform, exclude);
}

std::optional<Quote> quote_through_gemm(const PlatformTables& t, const Platform& p, const OpShape& shape,
                                        KernelPrecision precision, KernelMode mode, const KernelEntry* exclude) {
  const auto* gemm = t.find(OpKind::gemm, precision, mode, std::monostate{});
  if (!gemm) return std::nullopt;
  if (const auto* c = std::get_if<ConvShape>(&shape)) return conv_through_gemm(t, p, *c, *gemm, precision, exclude);
  if (const auto* r = std::get_if<RnnShape>(&shape)) return rnn_through_gemm(*r, *gemm, p.name, exclude);
  return std::nullopt;
}

double conv_gemm_correction(const PlatformTables& t, const Platform& p, KernelPrecision precision,
                            ConvDirection direction) {
  const auto key = std::pair{precision, direction};
  if (auto it = t.conv_correction.find(key); it != t.conv_correction.end()) return it->second;
  double correction = 1;
  KernelMode mode = KernelMode::train;
  const auto* conv = find_group(t, OpKind::conv, precision, direction, mode);
  const auto* gemm = conv ? t.find(OpKind::gemm, precision, conv->mode, std::monostate{}) : nullptr;
  if (conv && gemm) {
    std::vector<double> ratios;
    for (const auto* e : conv->entries) {
      const auto& c = std::get<ConvShape>(e->shape);
      if (auto q = in_group(*gemm, OpKind::gemm, implicit_gemm(c), p.name, nullptr))
        ratios.push_back(e->time_us * 1e-6 / q->seconds);
    }
    if (!ratios.empty()) {
      std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
      correction = ratios[ratios.size() / 2];
    }
  }
  t.conv_correction[key] = correction;
  return correction;
}

OpEstimate predict_op(const Context& ctx, const Op& op, std::size_t index) {
  OpEstimate e;
  e.op_index = index;
  e.baseline_s = op.self_time_s;
  const DType dtype = normalized(op.dtype);
  const double flops = op.flops > 0 ? op.flops : op_flops(op.kind, op.shape);
  const double bytes = op.bytes > 0 ? op.bytes : op_bytes(op.kind, op.shape, dtype);

  if (op.self_time_s && ctx.baseline && ctx.baseline->name == ctx.target.name) {
    e.method = Method::measured;
    e.predicted_s = *op.self_time_s;
    e.source_platform = ctx.target.name;
    e.detail = "measured on " + ctx.target.name + ", the platform the workload was recorded on";
    return e;
  }

  if (compute_shape(op)) {
    if (const auto* t = ctx.tables(ctx.target.name))
      if (auto q = quote_op(*t, ctx.target, op, dtype)) return applied(std::move(e), std::move(*q));
    std::optional<Quote> q = scaled_from(ctx, best_source(ctx, op, dtype), op, dtype, flops, bytes);
    if (!q) q = roofline(ctx, op, dtype, flops, bytes);
    if (q) {
      e = applied(std::move(e), std::move(*q));
      note_borrowed_rate(e, ctx.target, dtype);
      return e;
    }
  } else if (op.kind == OpKind::collective) {
    if (const auto* c = std::get_if<CollectiveShape>(&op.shape)) {
      if (auto q = collective_from_tables(ctx, *c)) return applied(std::move(e), std::move(*q));
      if (auto q = network(ctx, op, *c)) return applied(std::move(e), std::move(*q));
    } else if (auto q = network(ctx, op, CollectiveShape{})) {
      return applied(std::move(e), std::move(*q));
    }
  } else if (is_memory_bound(op.kind)) {
    if (auto q = bandwidth(ctx, op, bytes)) return applied(std::move(e), std::move(*q));
    if (auto q = roofline(ctx, op, dtype, flops, bytes)) return applied(std::move(e), std::move(*q));
  } else if (is_compute_bound(op.kind)) {
    // A GEMM, conv or RNN kernel without a shape (a GPU kernel the trace tied to no op):
    // its own time carried by the peak ratio, else a roofline of what costs are known.
    if (op.self_time_s)
      if (auto q = scaled_from(ctx, Source{ctx.baseline, nullptr, 0}, op, dtype, flops, bytes))
        return applied(std::move(e), std::move(*q));
    if (auto q = roofline(ctx, op, dtype, flops, bytes)) return applied(std::move(e), std::move(*q));
  } else if (!op.self_time_s) {
    // `other` ops: measured ones are scaled (in rollup) by the workload's overall ratio,
    // which knows more about them than a roofline with an assumed efficiency.
    if (auto q = roofline(ctx, op, dtype, flops, bytes)) return applied(std::move(e), std::move(*q));
  }
  e.method = Method::unestimated;  // rollup scales it by the workload's ratio if it can
  return e;
}

}  // namespace fomcast::est
