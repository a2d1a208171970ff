// The fallback models of the method chain (estimate.hpp), for what the target's own kernel
// tables cannot time: another, similar platform's table (or the op's own measurement on the
// recording platform) scaled by the roofline ratio (scaled-table), bytes over bandwidth
// (bandwidth), the alpha-beta model of a collective (network), and the roofline of the op's
// flops and bytes (roofline). Each says which figures it used and how sure it is.
#include "fallback_models.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "catalog.hpp"
#include "fomcast/collectives.hpp"
#include "fomcast/format.hpp"
#include "residual.hpp"
#include "similarity.hpp"
#include "table_lookup.hpp"

namespace fomcast::est {
namespace {

// Bands (about the 68th percentile of |error|) of the assumed-efficiency fallbacks.
constexpr double kAssumedBandwidthBand = 0.5;
constexpr double kRooflineBand = 0.6;
// A measured time carried by a capability ratio, without the op's shape; and one carried
// unscaled for want of a figure: right only if the two platforms happen to be alike.
constexpr double kScaledBand = 0.5;
constexpr double kUnscaledBand = 1.0;

bool over_host_link(CopyDirection d) {
  return d == CopyDirection::host_to_device || d == CopyDirection::device_to_host;
}

double figure(const std::optional<Sourced>& s) { return s ? s->value : 0; }

// One capability of a platform for carrying a time: its value (0 when unknown) and name.
struct Capability {
  double value = 0;
  std::string name;  // "fp32 peak", "memory bandwidth", "host link", "host speed", ...
};

// What an op of this kind runs at, on one platform. Times scale inversely with it.
Capability capability(const Platform& p, const Op& op, DType dtype) {
  if (is_compute_bound(op.kind)) {
    const Peak peak = peak_for(p, dtype);
    return {peak.flop_per_s, std::string(to_string(peak.dtype == DType::unknown ? dtype : peak.dtype)) + " peak"};
  }
  if (op.kind == OpKind::memcpy && over_host_link(copy_route(op.name).direction))
    return {figure(p.host_link_bw_bytes_per_s), "host link bandwidth"};
  if (is_memory_bound(op.kind)) return {bandwidth_of(p), "memory bandwidth"};
  if (op.kind == OpKind::collective) return {figure(p.net_bw_bytes_per_s), "network bandwidth"};
  return {figure(p.host_speed), "host speed"};
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

}  // namespace

std::vector<Proxy> rank_proxies(const Catalog& catalog, const Platform& target, OpKind kind, DType dtype) {
  dtype = normalized(dtype);
  // The precision the target computes the op in: a bf16 op on a part with no 16-bit rate
  // runs in fp32 there, so fp32 tables are its proxies, not another part's tensor cores.
  const Peak math = peak_for(target, dtype);
  const DType as = math.dtype == DType::fp32 && dtype != DType::fp32 ? DType::fp32 : dtype;
  std::vector<Proxy> out;
  for (const auto& [name, table] : catalog.tables) {
    if (name == target.name) continue;
    const Platform* q = catalog.platform(name);
    const PlatformTables* t = q && comparable_devices(*q, target) ? tables_of(catalog, name) : nullptr;
    if (!t) continue;
    for (const auto& prec : precisions_for(as)) {
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

namespace {

// The achievable fraction of peak bandwidth for a platform: its own memory-bound tables',
// else its architecture's; 0 when nothing measured says.
double achievable_fraction(const Catalog& catalog, const Platform& p) {
  return architecture_bandwidth_fraction(catalog, p, OpKind::elementwise);
}

// The least launch floor of a platform's groups of one kind (tables.hpp's launch_floor_s:
// its fastest latency-bound kernel); 0 when no kernel of the kind there is latency-bound.
double kind_launch_floor(const PlatformTables& t, OpKind kind) {
  double floor = INFINITY;
  for (const auto& g : t.groups)
    if (g.kind == kind && g.launch_floor_s > 0) floor = std::min(floor, g.launch_floor_s);
  return std::isfinite(floor) ? floor : 0;
}

// The source's launch floor for the op's kind, else its GEMMs'.
double launch_floor(const PlatformTables& t, OpKind kind) {
  const double own = kind_launch_floor(t, kind);
  return own > 0 ? own : kind_launch_floor(t, OpKind::gemm);
}

}  // namespace

double sources_launch_floor(const Context& ctx, OpKind kind) {
  std::vector<double> floors;
  for (const auto& [name, table] : ctx.catalog.tables) {
    if (name == ctx.target.name) continue;
    const Platform* q = ctx.catalog.platform(name);
    const PlatformTables* t = q && comparable_devices(*q, ctx.target) ? ctx.tables(name) : nullptr;
    if (!t) continue;
    // Only tables of the op's own kind: another kind's floor (DeepBench's GEMMs, timed on the
    // device without a framework call) is another quantity.
    if (const double f = kind_launch_floor(*t, kind); f > 0) floors.push_back(f);
  }
  return percentile(floors, 0.5);
}

double target_launch_gap(const Context& ctx, OpKind kind) {
  if (const PlatformTables* t = ctx.tables(ctx.target.name))
    if (t->has(kind)) return kind_launch_floor(*t, kind);
  return sources_launch_floor(ctx, kind);
}

namespace {

// The least time one call of a kernel takes on the target, for the fallbacks that time an
// op from its flops or bytes alone: a spec's launch overhead, else on a GPU the per-call gap
// the measured tables hold for the kind (the elementwise one for a kind no table has: every
// kernel is at least a call). Without it a tfprof op view of 7,282 Mul calls on H100 came
// out at 0.2 us a call, 200x under what any call costs, and the pass 1,000x too fast.
// Collectives and copies have models of their own; optimizer updates are not floored, as
// frameworks fuse them (multi_tensor_apply, foreach, apex's fused optimizers: one call for
// many tensors): floored per tensor, ResNet-50's 161 updates took 5.1 ms on a V100 and the
// published end-to-end steps' median error grew from 7.5% to 8.3%.
double call_floor(const Context& ctx, OpKind kind) {
  if (ctx.target.launch_overhead_s) return ctx.target.launch_overhead_s->value;
  if (ctx.target.device_kind != "gpu" || kind == OpKind::collective || kind == OpKind::memcpy ||
      kind == OpKind::optimizer)
    return 0;
  const double own = target_launch_gap(ctx, kind);
  return own > 0 ? own : target_launch_gap(ctx, OpKind::elementwise);
}

// Raises q to the call floor of the op's kind; returns what to add to its detail ("" when the
// floor did not bind). A floor from the measured tables is host time, which what-if leaves to
// the host, so the quote carries it as its launch gap; a spec's launch overhead is the spec's.
std::string raise_to_call_floor(const Context& ctx, OpKind kind, Quote& q) {
  const double floor = call_floor(ctx, kind);
  if (!(floor > q.seconds)) return "";
  q.seconds = floor;
  if (!ctx.target.launch_overhead_s) q.launch_gap_s = floor;
  return "; raised to " + format_significant(floor * 1e6) + " us, the least one call takes on " + ctx.target.name +
         (ctx.target.launch_overhead_s ? " (its spec's launch overhead)"
                                       : " (the per-call launch gap of the measured tables: the host's and driver's "
                                         "part of each call)");
}

}  // namespace

std::optional<double> measured_kernel_latency(const Context& ctx, const Op& op) {
  if (!op.self_time_s || !ctx.baseline || ctx.baseline->device_kind != "gpu" || ctx.host_timed ||
      !(ctx.recorded_call_floor_s > 0))
    return std::nullopt;
  return std::min(*op.self_time_s, ctx.recorded_call_floor_s);
}

double launch_gap_part(const Context& ctx, const Op& op, const OpEstimate& e) {
  // On a CPU the op runs where it is called: no launch, no gap a host could hide.
  if (ctx.target.device_kind == "cpu") return 0;
  // A GPU trace's op timed as a kernel, its fixed latency in place of a table's gap: none.
  if (e.fixed_latency_s > 0 && measured_kernel_latency(ctx, op)) return 0;
  switch (e.method) {
    case Method::table:
    case Method::interpolated:
    case Method::scaled_table: return std::min(e.predicted_s, target_launch_gap(ctx, op.kind));
    case Method::implicit_gemm:
    case Method::rnn_as_gemm: return std::min(e.predicted_s, target_launch_gap(ctx, OpKind::gemm));
    default: return e.launch_gap_s;  // a roofline or bandwidth time raised to the per-call floor
  }
}

std::optional<Quote> scaled_from(const Context& ctx, const Source& src, const Op& op, DType dtype, double flops,
                                 double bytes) {
  if (!src.platform) return std::nullopt;
  const Kinship kin = kinship(*src.platform, ctx.target);
  // Issue 13, section 5: the op keeps the fraction of its roofline it reached on the
  // source (wave quantization of its tiles over each side's compute units, achievable
  // rather than peak bandwidth), not a bare peak ratio.
  // The target's achievable fraction is every source's median, as for memory-bound ops
  // (memory_from_tables): measured on leave-platform-out, bmm P4 25.4% -> 20.5%, T4 27.3 ->
  // 26.7, P100 24.2 -> 23.9 against the same architecture's or the source's own.
  // A source whose architecture has no memory-bound table takes the same pooled fraction,
  // so that the ratio is of bandwidths alone, not of one measured and one assumed fraction.
  const double f_to = target_bandwidth_fraction(ctx.catalog, ctx.target, OpKind::elementwise);
  double f_from = achievable_fraction(ctx.catalog, *src.platform);
  if (!(f_from > 0)) f_from = f_to;
  // A bf16 op read on a source without bf16 units (a V100: its bf16 is its fp32 rate) is read
  // as the source's fp16, the same tensor-core kernels at the same rate on every part that
  // states both, and carried from the source's fp16 rate to the target's bf16 one. Read as
  // bf16 there, its fp16 table was scaled down to the fp32 rate and back up, and the bounds of
  // the two rooflines did not cancel: H100's amp-bf16 ResNet-50 came out 3% slower than its
  // amp-fp16, five convs slower than in fp32, where H100 states one rate for both.
  const bool as_fp16 = dtype == DType::bf16 && peak_for(*src.platform, DType::bf16).dtype != DType::bf16 &&
                       peak_for(*src.platform, DType::fp16).dtype == DType::fp16 &&
                       peak_for(ctx.target, DType::bf16).dtype == DType::bf16;
  // A target with no units for a half type computes it at its fp32 rate (its spec borrows
  // it), so a source's fp32 table times it, as the target's own fp32 table would: scaled from
  // NV_V100's fp16 tensor-core table by the 7.96 rate ratio instead, a V100 SXM2 32 GB spec's
  // amp-bf16 steps came out 8-40% slower than NV_V100's, the same chip timed from its fp32 table.
  const bool as_fp32 =
      !as_fp16 && (dtype == DType::bf16 || dtype == DType::fp16) && peak_for(ctx.target, dtype).dtype == DType::fp32;
  const DType src_dtype = as_fp16 ? DType::fp16 : as_fp32 ? DType::fp32 : dtype;
  auto ratio_for = [&](double measured_s) {
    return measured_transfer_ratio(op.kind, op.shape, flops, bytes, measured_s, *src.platform, src_dtype, f_from,
                                   ctx.target, dtype, f_to);
  };
  const bool waves = src.platform->compute_units && ctx.target.compute_units && wave_quantized(op.kind);
  const std::string why =
      "the efficiency-transfer ratio " + src.platform->name + " -> " + ctx.target.name + " (" +
      std::string(to_string(kin)) +
      (waves ? "; waves " + format_significant(wave_factor(*src.platform, op.kind, op.shape)) + " -> " +
                   format_significant(wave_factor(ctx.target, op.kind, op.shape))
             : std::string(wave_quantized(op.kind) ? "; no wave quantization: compute units unknown"
                                                   : "; no wave quantization for this kind (docs/estimation.md)")) +
      ")";
  if (!src.tables) {
    // The part of the call that is the kernel's fixed latency (the fastest call the trace
    // measured) is carried unscaled, as a table's launch floor is below: a 5.8 us GEMM of
    // 74 MFLOP on an H100 is mostly latency, and a 1.6x bandwidth does not make it 1.6x faster
    // (an MI300X ran it in 5.0 us, where x 0.632 said 3.7).
    const double m = *op.self_time_s;
    const double latency = src.platform == ctx.baseline ? std::min(m, ctx.recorded_call_floor_s) : 0.0;
    const auto r = ratio_for(m - latency);
    if (!r) return std::nullopt;
    Quote q;
    q.seconds = latency + (m - latency) * *r;
    q.fixed_latency_s = latency;
    q.uncertainty = kinship_band(kin);
    q.method = Method::scaled_table;
    q.source = src.platform->name;
    q.detail = "the op's own time measured on " + src.platform->name +
               (latency > 0 ? ": " + format_significant(latency * 1e6) +
                                  " us of it unscaled (the fastest call the trace measured there: a kernel's fixed "
                                  "latency), the rest x "
                            : " x ") +
               format_significant(*r) + ", " + why;
    return q;
  }
  auto q = quote_op(*src.tables, *src.platform, op, src_dtype);
  if (!q) return std::nullopt;
  if (as_fp16)
    q->notes.push_back("read as fp16 on " + src.platform->name +
                       ", which has no bf16 units: the same tensor-core kernels at the same rate where a part states "
                       "both, carried to " +
                       ctx.target.name + "'s bf16 rate");
  // The launch gap is the measuring host's, not the chip's: the source's own is taken off,
  // the kernel's time is carried, and the target gets the sources' median gap (its own
  // host is unknown; sources_launch_floor). An op a GPU trace timed as a kernel gets the
  // kernel's fixed latency instead: DLRM's 4-14 us GEMMs on a V100 had read 39 us each on an
  // H100 (the A100 table's 53.5 us floor -> the sources' 39.3), the trace's host time counted
  // again beside its residual, and the H100 came out slower than the V100.
  const double launch = std::min(launch_floor(*src.tables, op.kind), q->seconds);
  const auto kernel = measured_kernel_latency(ctx, op);
  const double launch_to = !(launch > 0) ? 0.0 : kernel ? *kernel : sources_launch_floor(ctx, op.kind);
  const auto r = ratio_for(q->seconds - launch);
  if (!r) return std::nullopt;
  q->seconds = launch_to + (q->seconds - launch) * *r;
  if (kernel && launch > 0) q->fixed_latency_s = launch_to;
  q->uncertainty = quad(q->uncertainty, kinship_band(kin));
  q->detail = src.platform->name + " " + std::string(to_string(q->method)) + " (" + q->detail + "): its " +
              format_significant(launch * 1e6) + " us launch floor (host-timed) -> " +
              (kernel ? "the trace's fixed kernel latency " : "the sources' median ") +
              format_significant(launch_to * 1e6) + " us, the rest x " + format_significant(*r) + ", " + why;
  q->method = Method::scaled_table;
  q->source = src.platform->name;
  return q;
}

namespace {

struct Weighted {
  Quote quote;
  double weight = 0;
};

// The weighted geometric mean of the sources' times, their bands, the first one's notes.
std::optional<Quote> combine(std::vector<Weighted> parts) {
  if (parts.empty()) return std::nullopt;
  if (parts.size() == 1) return std::move(parts.front().quote);
  double wsum = 0, log_sum = 0, u = 0;
  for (const auto& p : parts) wsum += p.weight;
  for (const auto& p : parts) {
    log_sum += p.weight / wsum * std::log(p.quote.seconds);
    u += p.weight / wsum * p.quote.uncertainty;
  }
  std::string names, details;
  for (const auto& p : parts) {
    names += (names.empty() ? "" : ", ") + p.quote.source + " (weight " + format_significant(p.weight / wsum, 2) + ")";
    details += "; " + p.quote.detail;
  }
  Quote q = std::move(parts.front().quote);
  q.seconds = std::exp(log_sum);
  q.uncertainty = u;
  q.detail = "weighted geometric mean over " + names + details;
  return q;
}

}  // namespace

std::optional<Quote> transferred(const Context& ctx, const Op& op, DType dtype, double flops, double bytes) {
  const auto proxies = rank_proxies(ctx.catalog, ctx.target, op.kind, dtype);
  // The ensemble is anchored on the most alike source that can answer: one whose tables lack
  // the op (a conv direction it did not measure) neither joins nor sets the reach. A card of
  // the target's own chip is read as the target's own tables are (step 3): where it has no
  // table of the op's kind and variant, its GEMM route, uncorrected (23-80% off), answers
  // only when no other source can. Otherwise the A100 SXM4 board's backward convs came from
  // the A100 PCIe 40GB card's GEMM table while that card's own came from the V100s' conv
  // tables: ResNet-50 717 ms on the board, 591 ms on the card of equal peaks and bandwidth.
  // Other platforms' GEMM routes keep their place by distance (taken last, they moved the
  // CANDLE projections of calibrate_candle_test from 20-44% off to 60-80%).
  auto ensemble = [&](bool own_chip_route_last) {
    std::vector<Weighted> parts;
    const Proxy* anchor = nullptr;
    for (const auto& p : proxies) {
      if (own_chip_route_last && same_chip(*p.platform, ctx.target) && !p.tables->has_variant_of(op.kind, op.shape))
        continue;
      if (parts.size() >= kEnsembleSize || (anchor && p.distance > anchor->distance + kEnsembleReach)) break;
      if (anchor && p.precision != anchor->precision) continue;  // one kind of math in one mean
      auto q = scaled_from(ctx, Source{p.platform, p.tables, p.distance}, op, dtype, flops, bytes);
      if (!q) continue;
      if (!anchor) anchor = &p;
      parts.push_back({std::move(*q), std::exp(-kEnsembleDecay * (p.distance - anchor->distance))});
    }
    return combine(std::move(parts));
  };
  if (auto q = ensemble(true)) return q;
  return ensemble(false);
}

double architecture_bandwidth_fraction(const Catalog& catalog, const Platform& target, OpKind kind,
                                       const std::string& exclude, FractionScope scope) {
  std::vector<double> fractions;
  for (const auto& [name, table] : catalog.tables) {
    if (name == exclude) continue;
    const Platform* q = catalog.platform(name);
    if (!q) continue;
    if (scope == FractionScope::same_architecture && kinship(*q, target) != Kinship::same_architecture) continue;
    if (scope == FractionScope::same_chip && !same_chip(*q, target)) continue;
    const PlatformTables* t = tables_of(catalog, name);
    if (!t) continue;
    for (const auto& g : t->groups)
      if (g.kind == kind && g.top_bandwidth_fraction > 0) fractions.push_back(g.top_bandwidth_fraction);
  }
  return percentile(fractions, 0.5);
}

double target_bandwidth_fraction(const Catalog& catalog, const Platform& target, OpKind kind) {
  const double chip = architecture_bandwidth_fraction(catalog, target, kind, target.name, FractionScope::same_chip);
  return chip > 0 ? chip : architecture_bandwidth_fraction(catalog, target, kind, target.name, FractionScope::any);
}

namespace {

constexpr double kCurveLopsided = 0.5;

// y at (x, log_cols) from a curve's `kCurveNeighbours` points nearest to it: their median
// where they sit around x, else a least-squares line through them, y = a + b (x_i - x), read
// at x. The neighbours of a size at the sparse launch-bound end of a curve lie mostly above
// it in x, where y falls as x rises (x + y, the time against the gap, is flat there): their
// median read a 7.2 KB op on H100 at 2.8 us where the points at its own x say 30, and a
// faster memory made the op slower.
double read_curve(const std::vector<TableGroup::CurvePoint>& curve, double x, double log_cols) {
  struct Near {
    double d2;
    const TableGroup::CurvePoint* p;
  };
  const auto closer = [](const Near& a, const Near& b) { return a.d2 < b.d2; };
  // The curve is sorted by x (tables.cpp): walk out from x on both sides, keeping the k
  // nearest in a max-heap, until no point further out in x alone can be nearer.
  const std::size_t k = std::min(kCurveNeighbours, curve.size());
  std::vector<Near> by_distance;
  by_distance.reserve(k + 1);
  auto right = std::lower_bound(curve.begin(), curve.end(), x, [](const auto& p, double v) { return p.x < v; });
  auto left = right;
  while (left != curve.begin() || right != curve.end()) {
    const double dl = left != curve.begin() ? x - std::prev(left)->x : INFINITY;
    const double dr = right != curve.end() ? right->x - x : INFINITY;
    const double dx = std::min(dl, dr);
    if (by_distance.size() == k && dx * dx >= by_distance.front().d2) break;
    const auto& p = dl <= dr ? *--left : *right++;
    const double dc = kCurveColsWeight * (p.log_cols - log_cols);
    by_distance.push_back({(p.x - x) * (p.x - x) + dc * dc, &p});
    std::push_heap(by_distance.begin(), by_distance.end(), closer);
    if (by_distance.size() > k) {
      std::pop_heap(by_distance.begin(), by_distance.end(), closer);
      by_distance.pop_back();
    }
  }
  std::vector<double> ys, xs;
  for (const auto& n : by_distance) ys.push_back(n.p->y), xs.push_back(n.p->x);
  const double median = percentile(ys, 0.5);
  if (std::fabs(percentile(xs, 0.5) - x) <= kCurveLopsided) return median;
  Eigen::MatrixXd a(static_cast<Eigen::Index>(k), 2);
  Eigen::VectorXd rhs(static_cast<Eigen::Index>(k));
  for (std::size_t i = 0; i < k; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    a(r, 0) = 1, a(r, 1) = by_distance[i].p->x - x;
    rhs(r) = by_distance[i].p->y;
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  if (k < 6 || qr.rank() < 2) return median;
  const double fitted = qr.solve(rhs)(0);
  return std::isfinite(fitted) ? fitted : median;
}

constexpr double kCurveGridStep = 0.05;  // in x, and in log row length for the cache's key

// z = x + y = log(time / gap) of a curve read at x, made non-decreasing in x: on a GPU a
// larger op of a kind does not take less time than a smaller one, but the curve's points
// mix kernels (relu and gelu, add and mul: P100's [10x1200] relu gradient read 22.6 us at
// H100's bandwidth and 32.6 us at 1.5x it) and a read at a smaller x could land on slower
// ones, so a faster memory made an op slower. The reads on a grid from the curve's low to
// its high end are fitted by isotonic regression (pool adjacent violators: means of the
// reads that break the order, not their least, so no kernel's noise sets the floor) and
// interpolated; below the low end the time is held (launch-bound). Filled per row length
// (rounded to kCurveGridStep in its log) on first use.
double monotone_z(const TableGroup& g, double x, double log_cols) {
  const auto& lo = g.gap_curve.front();  // sorted by x (tables.cpp)
  const auto& hi = g.gap_curve.back();
  const long key = std::lround(log_cols / kCurveGridStep);
  auto& grid = g.monotone_z[key];
  const auto n = static_cast<std::size_t>(std::ceil((hi.x - lo.x) / kCurveGridStep)) + 1;
  if (grid.empty()) {
    struct Block {
      double sum;
      std::size_t count;
    };
    std::vector<Block> blocks;
    for (std::size_t j = 0; j < n; ++j) {
      const double xg = std::min(lo.x + static_cast<double>(j) * kCurveGridStep, hi.x);
      blocks.push_back({read_curve(g.gap_curve, xg, static_cast<double>(key) * kCurveGridStep) + xg, 1});
      while (blocks.size() > 1) {
        const auto& b = blocks.back();
        auto& a = blocks[blocks.size() - 2];
        if (a.sum / static_cast<double>(a.count) <= b.sum / static_cast<double>(b.count)) break;
        a.sum += b.sum, a.count += b.count;
        blocks.pop_back();
      }
    }
    for (const auto& b : blocks) grid.insert(grid.end(), b.count, b.sum / static_cast<double>(b.count));
  }
  const double u = (std::clamp(x, lo.x, hi.x) - lo.x) / kCurveGridStep;
  const auto j = std::min(static_cast<std::size_t>(u), n - 1);
  const double t = j + 1 < n ? u - static_cast<double>(j) : 0.0;
  return j + 1 < n ? grid[j] + t * (grid[j + 1] - grid[j]) : grid[j];
}

// Whether a tensor op's rows and row length both lie within those a memory table measured
// (features 0 and 1 of shape_features).
bool within_measured_rows(const TableGroup& g, const TensorShape& shape) {
  if (g.features.empty()) return false;
  const auto [rows, cols] = kernel_rows_and_cols(g.kind, shape);
  const double lr = std::log(rows), lc = std::log(cols), eps = 1e-9;
  double r_lo = INFINITY, r_hi = -INFINITY, c_lo = INFINITY, c_hi = -INFINITY;
  for (const auto& f : g.features) {
    r_lo = std::min(r_lo, f[0]), r_hi = std::max(r_hi, f[0]);
    c_lo = std::min(c_lo, f[1]), c_hi = std::max(c_hi, f[1]);
  }
  return lr >= r_lo - eps && lr <= r_hi + eps && lc >= c_lo - eps && lc <= c_hi + eps;
}

}  // namespace

constexpr double kCurveFloorShare = 0.5;

std::optional<Quote> memory_from_curves(const Context& ctx, const Op& op, DType dtype) {
  const auto* shape = std::get_if<TensorShape>(&op.shape);
  if (!memory_table_fits(op) || !shape) return std::nullopt;
  const double bw_t = bandwidth_of(ctx.target);
  const double bytes = op.bytes > 0 ? op.bytes : op_bytes(op.kind, op.shape, dtype);
  const double gap = sources_launch_floor(ctx, op.kind);
  if (!(bw_t > 0) || !(bytes > 0) || !(gap > 0)) return std::nullopt;
  const double roof = bytes / bw_t;
  const double x = std::log(roof / gap), log_cols = std::log(rows_and_cols(*shape).second);
  std::vector<double> ys, bands;
  std::string names;
  const Platform* nearest = nullptr;
  double nearest_d = INFINITY;
  for (const auto& [name, table] : ctx.catalog.tables) {
    if (name == ctx.target.name || !ctx.tables(name)) continue;
    const Platform* q = ctx.catalog.platform(name);
    if (!q || !(bandwidth_of(*q) > 0) || !comparable_devices(*q, ctx.target)) continue;
    const PlatformTables* t = ctx.tables(name);
    const TableGroup* g = memory_group(*t, op.kind);
    if (!g || g->gap_curve.size() < kCurveNeighbours) continue;
    // Only up to the largest ops the source measured against its gap: beyond, it says nothing
    // of how streaming goes on. Below its smallest, a call is launch-bound: it takes what the
    // smallest took against the gap (x + y held). Left out instead, H100 with 1.5x the
    // bandwidth timed P1B2's [60x10] sigmoid gradient from another rule, 35.2 us, where H100
    // itself read 31.2 us off the curves: a faster memory made the op slower.
    if (x > g->gap_curve.back().x) continue;  // sorted by x (tables.cpp)
    // Nor beyond the rows and row lengths it measured: the curve holds the size against the
    // gap, not how a kernel treats a row length (or a row count) no entry had.
    if (!within_measured_rows(*g, *shape)) continue;
    const double y = monotone_z(*g, x, log_cols) - x;
    ys.push_back(y);
    bands.push_back(quad(g->band, kinship_band(kinship(*q, ctx.target))));
    names += (names.empty() ? "" : ", ") + name + " (" + format_significant(std::exp(-y)) + ")";
    if (const double d = platform_distance(*q, DType::fp32, ctx.target, DType::fp32); d < nearest_d)
      nearest_d = d, nearest = q;
  }
  if (ys.empty()) return std::nullopt;
  const double y = percentile(ys, 0.5);
  Quote q;
  q.seconds = roof * std::exp(y);
  // The curve is time against the gap, so no call comes out far below the gap it was read
  // against: a 7.2 KB op had read 2.8 us on H100 (the median of neighbours most of them
  // larger, before reads were monotone), and 34 us on the same chip with twice the
  // bandwidth, where the transfer timed it. A guard since: a monotone read holds the
  // smallest measured call's time, which is about the gap. Half the gap,
  // not all of it: a faster host's calls take less (the lent H200's smallest, 15-21 us,
  // against the sources' 25-47 us; floored at the whole gap, its memory kinds' error grew
  // from 31% to 34%).
  const double least = kCurveFloorShare * gap;
  const bool floored = q.seconds < least;
  if (floored) {
    q.seconds = least;
    q.launch_gap_s = least;
  }
  q.uncertainty = percentile(bands, 0.5);
  q.method = Method::scaled_table;
  q.source = nearest ? nearest->name : std::string();
  q.detail = format_significant(bytes) + " B at " + format_significant(bw_t / 1e9) + " GB/s x " +
             format_significant(std::exp(-y)) + ": the median of the fractions of their bandwidth " + names +
             " reach at the same size against their own launch gap as this op against the sources' median gap " +
             format_significant(gap * 1e6) + " us (x = " + format_significant(x) + ")" +
             (floored ? "; raised to half that gap, the least a call takes on the fastest host measured" : "");
  return q;
}

std::optional<Quote> memory_from_tables(const Context& ctx, const Op& op, DType dtype) {
  if (!memory_table_fits(op)) return std::nullopt;
  const double bw_t = bandwidth_of(ctx.target);
  if (!(bw_t > 0)) return std::nullopt;
  // Sources: every other platform with a table of the op's kind, most alike first.
  struct Candidate {
    const Platform* platform;
    const PlatformTables* tables;
    double distance;
  };
  std::vector<Candidate> candidates;
  for (const auto& [name, table] : ctx.catalog.tables) {
    if (name == ctx.target.name || !ctx.tables(name)) continue;
    const Platform* q = ctx.catalog.platform(name);
    if (!q || !(bandwidth_of(*q) > 0) || !comparable_devices(*q, ctx.target)) continue;
    const PlatformTables* t = ctx.tables(name);
    if (!t->has(op.kind, KernelPrecision::fp32)) continue;
    candidates.push_back({q, t, platform_distance(*q, DType::fp32, ctx.target, DType::fp32)});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.distance < b.distance; });
  // The target's achievable fraction (target_bandwidth_fraction): its own chip's tables,
  // else the median over every source of the kind, of any architecture. Measured on
  // leave-platform-out, this beats the same architecture's alone (GP100's HBM2 is no guide
  // to GP104's GDDR5: P4 softmax 31.7% -> 12.6%) and the source's own fraction (V100 layer
  // norm 18.0% -> 14.0%).
  double frac_t = target_bandwidth_fraction(ctx.catalog, ctx.target, op.kind);
  const bool own_arch = frac_t > 0;
  // The target's launch gap: the median of every source's (sources_launch_floor).
  const double launch_to = sources_launch_floor(ctx, op.kind);
  std::vector<Weighted> parts;
  const Candidate* anchor = nullptr;  // the most alike source that answers (transferred's rule)
  for (const auto& c : candidates) {
    if (parts.size() >= kEnsembleSize || (anchor && c.distance > anchor->distance + kEnsembleReach)) break;
    auto q = quote_memory(*c.tables, *c.platform, op, dtype);
    if (!q) continue;
    if (!anchor) anchor = &c;
    const TableGroup* g = memory_group(*c.tables, op.kind);
    const double frac_s = g && g->top_bandwidth_fraction > 0 ? g->top_bandwidth_fraction : 1.0;
    const double f_t = own_arch ? frac_t : frac_s;
    const double launch = g ? std::min(g->launch_floor_s, q->seconds) : 0;
    const double ratio = (bandwidth_of(*c.platform) * frac_s) / (bw_t * f_t);
    const double to = launch > 0 ? launch_to : 0.0;
    q->seconds = to + (q->seconds - launch) * ratio;
    q->uncertainty = quad(q->uncertainty, kinship_band(kinship(*c.platform, ctx.target)));
    q->detail = c.platform->name + " " + std::string(to_string(q->method)) + " (" + q->detail + "): its " +
                format_significant(launch * 1e6) + " us launch floor -> the sources' median " +
                format_significant(to * 1e6) + " us, the rest x " + format_significant(ratio) +
                ", the achievable-bandwidth ratio (" + format_significant(bandwidth_of(*c.platform) / 1e9) +
                " GB/s x " + format_significant(frac_s) + " -> " + format_significant(bw_t / 1e9) + " GB/s x " +
                format_significant(f_t) + (own_arch ? ", the sources' median" : ", the source's fraction") + ")";
    q->method = Method::scaled_table;
    q->source = c.platform->name;
    parts.push_back({std::move(*q), std::exp(-kEnsembleDecay * (c.distance - anchor->distance))});
  }
  return combine(std::move(parts));
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
  const std::string floored = raise_to_call_floor(ctx, op.kind, q);
  q.uncertainty = kRooflineBand;
  q.method = Method::roofline;
  q.source = ctx.target.name;
  q.detail = "max(" + format_significant(flops) + " flop / (" + format_significant(peak.flop_per_s / 1e12) +
             " TFLOP/s x " + format_significant(e) + "), " + format_significant(bytes) + " B / (" +
             format_significant(bw / 1e9) + " GB/s x " + format_significant(kAssumedBandwidthEfficiency) + "))" +
             (why.empty() ? "" : "; " + why) + floored;
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
    // bytes at the same fraction of peak: time x bandwidth ratio. A launch floor the spec
    // gives (launch_overhead_s) is carried unscaled: a faster memory does not launch faster.
    // Without a spec's figure, the fastest call the trace measured on the recording GPU
    // stands for the kernel's fixed latency (scaled_from's rule for measured ops).
    const double t = *op.self_time_s;
    const bool spec_floor = ctx.baseline->launch_overhead_s.has_value();
    const double launch = std::min(t, spec_floor ? ctx.baseline->launch_overhead_s->value : ctx.recorded_call_floor_s);
    double ratio = bw_base / bw;
    std::string how =
        "bandwidth ratio " + format_significant(bw_base / 1e9) + " / " + format_significant(bw / 1e9) + " GB/s";
    // Another card of the same architecture: only the share of the time its bytes explain
    // moves with bandwidth (measured_transfer_ratio). cuDNN's NCHW batch norm moved 0.5 TB/s
    // on a 4.8 TB/s H200, and x 1.43 had put it 43% slower on an H100 of the same SMs.
    const Kinship kin = kinship(*ctx.baseline, ctx.target);
    const double f = achievable_fraction(ctx.catalog, *ctx.baseline);
    if (kin == Kinship::same_architecture && t > launch)
      if (auto r = measured_transfer_ratio(op.kind, op.shape, 0, bytes, t - launch, *ctx.baseline, DType::fp32, f,
                                           ctx.target, DType::fp32, f);
          r && std::fabs(*r - ratio) > 1e-9 * ratio) {
        const double share = std::min(1.0, bytes / (bw_base * (f > 0 ? f : 1.0)) / (t - launch));
        how = format_significant(*r) + " (its bytes at " + ctx.baseline->name + "'s achievable bandwidth explain " +
              format_significant(share * 100, 2) + "% of the time: that part x the " + how +
              ", the rest x the ratio of compute units x clock, the same architecture)";
        ratio = *r;
      }
    q.seconds = launch + (t - launch) * ratio;
    q.fixed_latency_s = launch;
    q.uncertainty = kinship_band(kin);
    q.detail = "baseline time on " + ctx.baseline->name + " x " + how +
               (launch > 0 ? " (" + format_significant(launch * 1e6) +
                                 (spec_floor ? " us, its spec's launch floor, unscaled)"
                                             : " us unscaled: the fastest call the trace measured there, a "
                                               "kernel's fixed latency)")
                           : "");
    q.source = ctx.baseline->name;
    return q;
  }
  if (!(bytes > 0)) return std::nullopt;
  q.seconds = bytes / (bw * kAssumedBandwidthEfficiency);
  const std::string floored = raise_to_call_floor(ctx, op.kind, q);
  q.uncertainty = kAssumedBandwidthBand;
  q.detail = format_significant(bytes) + " B / (" + format_significant(bw / 1e9) + " GB/s x assumed efficiency " +
             format_significant(kAssumedBandwidthEfficiency) + ")" + floored;
  return q;
}

std::string carry_measured_collective(Quote& q, double measured_s, double base_model_s, double target_model_s) {
  const double transfer = std::min(measured_s, base_model_s);
  q.wait_s = measured_s - transfer;
  q.seconds = transfer * target_model_s / base_model_s + q.wait_s;
  return q.wait_s > 0 ? ", and " + format_significant(q.wait_s * 1e6) +
                            " us the ranks' wait for each other, carried as measured (their skew, which no network "
                            "model times)"
                      : std::string();
}

std::optional<Quote> network(const Context& ctx, const Op& op, const CollectiveShape& c) {
  // A spec with network levels: the collective model (collectives.hpp) for the kinds it knows.
  auto has_levels = [](const Platform& p) { return p.intra_node_bw_bytes_per_s || p.nic_bw_bytes_per_s; };
  // An all-to-all moves what an all-gather does, (p-1)/p of its bytes in p-1 steps: timed on
  // the same levels (it took the flat ring over the aggregate NVLink figure, at twice the
  // all-reduce's bandwidth and none of the spec's latency, beside it in one estimate).
  const CollectiveKind as = c.op == CollectiveKind::alltoall ? CollectiveKind::allgather : c.op;
  const bool known = as == CollectiveKind::allreduce || as == CollectiveKind::allgather ||
                     as == CollectiveKind::reduce_scatter || as == CollectiveKind::send_recv;
  if (has_levels(ctx.target) && known && c.ranks > 1 && c.bytes > 0)
    if (auto t = collective_model(ctx.target, as, static_cast<double>(c.bytes), c.ranks, 0)) {
      Quote q;
      q.method = Method::network;
      q.source = ctx.target.name;
      q.seconds = t->seconds;
      q.uncertainty = t->uncertainty;
      q.detail = (c.op == CollectiveKind::alltoall ? "all-to-all as an all-gather's volume: " : "") + t->detail;
      q.notes = t->notes;
      // A measured collective holds its wait for the other ranks too, which the model knows
      // nothing of (the bare model cut a measured 692 us all-reduce to 12.5 us).
      if (op.self_time_s && ctx.baseline && has_levels(*ctx.baseline))
        if (auto b = collective_model(*ctx.baseline, as, static_cast<double>(c.bytes), c.ranks, 0);
            b && b->seconds > 0) {
          const double measured = *op.self_time_s;
          const std::string wait = carry_measured_collective(q, measured, b->seconds, t->seconds);
          q.detail = "measured " + format_significant(measured * 1e6) + " us on " + ctx.baseline->name + ": " +
                     format_significant(std::min(measured, b->seconds) * 1e6) +
                     " us the collective model's transfer there, x its ratio (" + q.detail + "; " +
                     format_significant(b->seconds * 1e6) + " us on " + ctx.baseline->name + ")" + wait;
          q.source = ctx.baseline->name;
        }
      return q;
    }
  const double bw = ctx.target.net_bw_bytes_per_s ? ctx.target.net_bw_bytes_per_s->value : 0;
  if (!(bw > 0)) return std::nullopt;
  Quote q;
  q.method = Method::network;
  q.source = ctx.target.name;
  q.uncertainty = kAssumedBandwidthBand;
  if (c.ranks > 1 && c.bytes > 0) {
    const double p = static_cast<double>(c.ranks), b = static_cast<double>(c.bytes);
    double steps = p - 1, volume = (p - 1) / p * b;  // ring allgather / reduce-scatter
    switch (c.op) {
      case CollectiveKind::allreduce: steps = 2 * (p - 1), volume = 2 * (p - 1) / p * b; break;
      case CollectiveKind::broadcast:
      case CollectiveKind::reduce: steps = std::ceil(std::log2(p)), volume = b; break;
      case CollectiveKind::send_recv: steps = 1, volume = b; break;
      default: break;
    }
    auto ring = [&](const Platform& on) {
      const double lat = on.net_latency_s ? on.net_latency_s->value : 0;
      return volume / on.net_bw_bytes_per_s->value + steps * lat;
    };
    const double lat = ctx.target.net_latency_s ? ctx.target.net_latency_s->value : 0;
    q.seconds = ring(ctx.target);
    q.detail = "ring model: " + format_significant(volume) + " B / " + format_significant(bw / 1e9) + " GB/s + " +
               format_significant(steps) + " x latency " +
               (ctx.target.net_latency_s ? format_significant(lat * 1e6) + " us" : "(unknown, 0)");
    // A measured collective also holds its wait for the other ranks (a rank's imbalance),
    // which the ring model knows nothing of: carried as above.
    const bool base_net =
        ctx.baseline && ctx.baseline->net_bw_bytes_per_s && ctx.baseline->net_bw_bytes_per_s->value > 0;
    if (op.self_time_s && base_net && ring(*ctx.baseline) > 0) {
      const std::string wait = carry_measured_collective(q, *op.self_time_s, ring(*ctx.baseline), q.seconds);
      q.detail = "measured on " + ctx.baseline->name + ": its ring model's transfer x the model's ratio (" + q.detail +
                 ")" + wait;
      q.source = ctx.baseline->name;
    }
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

std::optional<Quote> copy(const Context& ctx, const Op& op, double bytes) {
  const CopyRoute route = copy_route(op.name);
  const std::string way = route.direction == CopyDirection::unknown
                              ? std::string()
                              : std::string(to_string(route.direction)) + (route.pageable ? ", pageable" : "");
  if (!over_host_link(route.direction)) {
    // On the device: a copy reads and writes its bytes, a fill writes them.
    const bool reads_too = route.direction == CopyDirection::device_to_device && !route.memset;
    const bool from_bytes = !(op.self_time_s && ctx.baseline && bandwidth_of(*ctx.baseline) > 0);
    auto q = bandwidth(ctx, op, reads_too ? 2 * bytes : bytes);
    if (q && !way.empty()) q->detail += " (" + way + (reads_too && from_bytes ? ": read and written" : "") + ")";
    return q;
  }
  const double link = figure(ctx.target.host_link_bw_bytes_per_s);
  if (!(link > 0)) {
    // No device between host and memory (a CPU), or a spec without the figure: a copy
    // from bytes at memory bandwidth; a measured one is carried below.
    if (op.self_time_s || !(bytes > 0)) return std::nullopt;
    auto q = bandwidth(ctx, op, bytes);
    if (q) q->notes.push_back(ctx.target.name + "'s spec gives no host link bandwidth: its memory bandwidth stands in");
    return q;
  }
  Quote q;
  q.method = Method::bandwidth;
  q.source = ctx.target.name;
  const double link_base = ctx.baseline ? figure(ctx.baseline->host_link_bw_bytes_per_s) : 0;
  if (op.self_time_s && link_base > 0) {
    // The measured copy holds what the link reached there (pinned or pageable, its size).
    q.seconds = *op.self_time_s * link_base / link;
    q.uncertainty = kinship_band(kinship(*ctx.baseline, ctx.target));
    q.source = ctx.baseline->name;
    q.detail = "baseline time on " + ctx.baseline->name + " x host link ratio " + format_significant(link_base / 1e9) +
               " / " + format_significant(link / 1e9) + " GB/s (" + way + ")";
    return q;
  }
  if (!(bytes > 0)) return std::nullopt;
  q.seconds = bytes / (link * kAssumedBandwidthEfficiency);
  if (ctx.target.launch_overhead_s) q.seconds = std::max(q.seconds, ctx.target.launch_overhead_s->value);
  q.uncertainty = kAssumedBandwidthBand;
  q.detail = format_significant(bytes) + " B / (" + format_significant(link / 1e9) +
             " GB/s host link x assumed efficiency " + format_significant(kAssumedBandwidthEfficiency) + ") (" + way +
             ")";
  if (route.pageable) {
    q.uncertainty = kUnscaledBand;
    q.notes.push_back("a pageable copy is staged through a pinned buffer by the host: it usually runs below the link");
  }
  return q;
}

std::optional<Quote> carried(const Context& ctx, const Op& op, DType dtype, bool as_host) {
  if (!op.self_time_s) return std::nullopt;
  Quote q;
  q.method = Method::scaled;
  q.seconds = *op.self_time_s;
  const std::string there = ctx.baseline ? ctx.baseline->name : ctx.recorded_on;
  q.source = there;
  const auto host = [](const Platform& p) { return Capability{figure(p.host_speed), "host speed"}; };
  const Capability to = as_host ? host(ctx.target) : capability(ctx.target, op, dtype);
  const Capability from = !ctx.baseline ? Capability{0, to.name}
                          : as_host     ? host(*ctx.baseline)
                                        : capability(*ctx.baseline, op, normalized(dtype));
  // Host speeds divide only on one scale (PassMark's, shipped, or bench's: residual.hpp).
  const bool host_scales_differ = ctx.baseline && ctx.baseline->host_speed && ctx.target.host_speed &&
                                  from.name == "host speed" && to.name == "host speed" &&
                                  !host_speeds_comparable(*ctx.baseline->host_speed, *ctx.target.host_speed);
  if (from.value > 0 && to.value > 0 && !host_scales_differ) {
    const double r = from.value / to.value;
    // A device kernel's fixed latency (the fastest call the trace measured there) is carried
    // unscaled, as scaled_from does: a 2.7 us GEMM on a V100 had come out 0.63 us on an H100.
    const double t = *op.self_time_s;
    const double latency = to.name == "host speed" ? 0.0 : std::min(t, ctx.recorded_call_floor_s);
    q.seconds = latency + (t - latency) * r;
    q.fixed_latency_s = latency;
    q.uncertainty = kScaledBand;
    q.detail = "measured time on " + there +
               (latency > 0 ? ": " + format_significant(latency * 1e6) +
                                  " us of it unscaled (the fastest call the trace measured there: a kernel's fixed "
                                  "latency), the rest x "
                            : " x ") +
               format_significant(r) + ", the " + to.name + " ratio " + there + " -> " + ctx.target.name + " (" +
               std::string(to_string(op.kind)) +
               (as_host ? ", timed on the host: a function profile of a GPU run)" : ", no shape to model it by)");
    return q;
  }
  std::string missing;
  if (!ctx.baseline)
    missing = there.empty() ? "the workload does not say where it was measured"
                            : "its recording platform " + there + " has no spec";
  else if (host_scales_differ)
    missing = "the host speed figures of " + there + " and " + ctx.target.name +
              " are on different scales (PassMark single-thread, and `fomcast bench`'s)";
  else
    missing = "no " + to.name + " figure for " +
              (!(from.value > 0) && !(to.value > 0) ? there + " or " + ctx.target.name
               : !(from.value > 0)                  ? there
                                                    : ctx.target.name);
  q.uncertainty = kUnscaledBand;
  q.detail = kCarriedUnscaledDetail + (there.empty() ? std::string() : " from " + there) + ": " + missing;
  q.notes.push_back("carried at its measured time (" + missing + "): right only as far as the platforms are alike");
  return q;
}

}  // namespace fomcast::est
