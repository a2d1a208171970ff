// Steps 1-3 of the method chain (estimate.hpp), on one platform's own kernel tables: the
// exact entry, interpolation among the group's measured shapes, a convolution through the
// GEMM table (implicit-gemm) and a recurrent layer as the GEMMs it runs (rnn-as-gemm), each
// carried from the table's precision to the op's. Every substitution (another precision,
// another mode, transposes, the direction of a backward conv) becomes a note.
#include "table_lookup.hpp"

#include <algorithm>
#include <cmath>

#include "fomcast/format.hpp"
#include "similarity.hpp"

namespace fomcast::est {
namespace {

constexpr KernelMode kModes[] = {KernelMode::train, KernelMode::inference};
// Bands (about the 68th percentile of |error|) of the through-GEMM methods, from the
// leave-one-out in docs/accuracy.md (median over the DeepBench groups: 0.56 for
// implicit-gemm, 0.54 for rnn-as-gemm), and of a table's time at a type with no rate to
// scale it by.
constexpr double kImplicitGemmBand = 0.55;
constexpr double kImplicitGemmUncorrectedBand = 0.8;
constexpr double kRnnAsGemmBand = 0.55;
constexpr double kUnknownRateBand = 0.5;

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

// A GEMM larger than every measured one in some dimension (M or N, K, the batch), clamped
// into the measured box: the shape whose rate stands at the table's edge. nullopt for another
// kind of shape, or one within the box.
std::optional<GemmShape> clamped_into_table(const TableGroup& g, const OpShape& shape, std::size_t skip) {
  const auto* q = std::get_if<GemmShape>(&shape);
  if (!q) return std::nullopt;
  int64_t max_mn = 0, max_k = 0, max_batch = 0;
  for (std::size_t i = 0; i < g.entries.size(); ++i)
    if (const auto* e = std::get_if<GemmShape>(&g.entries[i]->shape); e && !left_out(g, i, skip))
      max_mn = std::max({max_mn, e->m, e->n}), max_k = std::max(max_k, e->k), max_batch = std::max(max_batch, e->batch);
  if (max_mn == 0 || (q->m <= max_mn && q->n <= max_mn && q->k <= max_k && q->batch <= max_batch)) return std::nullopt;
  GemmShape c = *q;
  c.m = std::min(c.m, max_mn), c.n = std::min(c.n, max_mn), c.k = std::min(c.k, max_k);
  c.batch = std::min(c.batch, max_batch);
  return c;
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
    q.detail = "exact entry in " + group_name(platform, g) + ": " + describe(e.shape) + " = " +
               format_significant(e.time_us) + " us (" + e.provenance + ")";
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
    q.notes.push_back("at the fastest time measured in " + group_name(platform, g) + " (" +
                      format_significant(floor * 1e6) + " us): a latency floor");
  }
  // A GEMM beyond the measured shapes is read off a fitted surface that can fall steeply there
  // (NT3's 20 x 200 x 773,760 GEMM came out at 1.1 TFLOP/s on an A100 whose table reaches 12
  // at K = 65,430). A larger GEMM reuses each tile more, not less: its time above the launch
  // floor is at most the work ratio times that of the same shape clamped to the table's edge.
  if (const auto edge = clamped_into_table(g, shape, skip); edge && q.seconds > floor) {
    std::optional<Interpolation> at_edge;
    for (const OpShape& v : {OpShape{*edge}, OpShape{swapped(*edge)}})
      if (auto in = interpolate(g, shape_features(kind, v), g.interpolator, skip);
          in && (!at_edge || in->nearest_distance < at_edge->nearest_distance))
        at_edge = in;
    if (at_edge) {
      const double edge_work = table_work(kind, *edge);
      const double edge_s = std::max(edge_work / std::exp(at_edge->log_rate), floor);
      const double held = floor + (edge_s - floor) * work / edge_work;
      if (held < q.seconds) {
        q.seconds = held;
        q.notes.push_back("the rate of " + describe(OpShape{*edge}) +
                          ", the shape clamped to the table's largest measured dimensions, held beyond them (" +
                          format_significant(edge_s * 1e6) +
                          " us there; the time above the latency floor scaled by the work): the fitted surface "
                          "fell below it out there");
      }
    }
  }
  q.uncertainty = interpolation_uncertainty(g, best->nearest_distance);
  q.nearest_log_distance = best->nearest_distance;
  q.method = Method::interpolated;
  q.source = platform;
  // Past a log-distance of 1 the group's leave-one-out band no longer holds: say the band
  // the op carries, not the one measured near the table's shapes.
  const bool far = q.uncertainty > std::max(g.band, 0.0) + 1e-9;
  q.detail = std::string(to_string(g.interpolator)) + " in " + group_name(platform, g) + " (" +
             std::to_string(g.entries.size()) + " entries; nearest " + describe(g.entries[best->nearest]->shape) +
             " at log-distance " + format_significant(best->nearest_distance) + "; leave-one-out band " +
             format_percent_significant(g.band) +
             (far ? ", widened to " + format_percent_significant(q.uncertainty) + " this far out" : std::string()) +
             ")";
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

// The time on the table's precision carried to the op's dtype on the same platform. `fixed_s`
// is the part of the time no precision moves: the table's least time per call (its launch
// floor) x the calls the op makes. Scaled whole, a PTB LSTM's 36 small GEMMs from the A100
// PCIe's fp32 table came out at 3.6 us each in bf16 (x 1/16), below any call the table holds.
void to_op_precision(Quote& q, const Platform& p, KernelPrecision precision, KernelMode mode, OpKind kind,
                     const OpShape& shape, DType dtype, double fixed_s) {
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
      const double fixed = std::clamp(fixed_s, 0.0, q.seconds);
      q.seconds = fixed + (q.seconds - fixed) * *r;
      q.notes.push_back("scaled by " + format_significant(*r) + ", the roofline ratio of " + p.name + "'s " +
                        std::string(to_string(math)) + " and " + std::string(to_string(dtype)) + " rates" +
                        (fixed > 0 ? ", all but its calls' launch floor (" + format_significant(fixed * 1e6) + " us)"
                                   : std::string()));
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
  const auto crs = static_cast<int64_t>(static_cast<double>(c.c) / static_cast<double>(g) * product(c.filter));
  GemmShape s;
  switch (c.direction) {
    case ConvDirection::forward: s.m = npq, s.n = c.k, s.k = crs; break;
    case ConvDirection::backward_data:
      s.m = static_cast<int64_t>(static_cast<double>(c.n) * product(c.input));
      s.n = c.c;
      s.k = static_cast<int64_t>(static_cast<double>(c.k) / static_cast<double>(g) * product(c.filter));
      break;
    case ConvDirection::backward_filter: s.m = crs, s.n = c.k, s.k = npq; break;
  }
  s.m = std::max<int64_t>(s.m, 1), s.n = std::max<int64_t>(s.n, 1), s.k = std::max<int64_t>(s.k, 1);
  return s;
}

std::optional<Quote> conv_through_gemm(const PlatformTables& t, const Platform& p, const ConvShape& c,
                                       const TableGroup& gemm, KernelPrecision precision, const KernelEntry* exclude) {
  const GemmShape gs = implicit_gemm(c);
  auto q = in_group(gemm, OpKind::gemm, gs, p.name, exclude);
  if (!q) return std::nullopt;
  const double correction = conv_gemm_correction(t, p, precision, c.direction);
  q->seconds *= correction;
  q->method = Method::implicit_gemm;
  const bool corrected = t.find(OpKind::conv, precision, gemm.mode, c.direction) != nullptr;
  q->uncertainty = quad(q->uncertainty, corrected ? kImplicitGemmBand : kImplicitGemmUncorrectedBand);
  q->detail = "as the GEMM " + describe(gs) + " (implicit GEMM; " + q->detail + ")" +
              (corrected ? ", x " + format_significant(correction) + " = " + p.name +
                               "'s median conv/GEMM time ratio for " + std::string(to_string(c.direction)) + " convs"
                         : ", uncorrected: " + p.name + " has no " + std::string(to_string(precision)) + " conv table");
  if (c.groups > 1) q->notes.push_back("grouped conv timed as one GEMM of the same work");
  return q;
}

// The GEMMs a recurrent layer runs, as cuDNN runs a layer: the input projection for all
// timesteps in one GEMM, then one recurrent GEMM per timestep (M = gates x hidden, N = batch,
// K = hidden). Backward: the data gradient the same way round, and the two weight gradients
// over all timesteps.
struct RnnGemm {
  GemmShape shape;
  int64_t repeat;
};
std::vector<RnnGemm> rnn_gemms(const RnnShape& r) {
  const int64_t gates = r.cell == RnnCell::lstm ? 4 : r.cell == RnnCell::gru ? 3 : 1;
  const int64_t gh = gates * r.hidden, bt = r.batch * r.timesteps;
  if (!r.backward) return {{GemmShape{gh, bt, r.input}, 1}, {GemmShape{gh, r.batch, r.hidden}, r.timesteps}};
  return {{GemmShape{r.hidden, r.batch, gh}, r.timesteps},
          {GemmShape{r.input, bt, gh}, 1},
          {GemmShape{gh, r.input, bt}, 1},
          {GemmShape{gh, r.hidden, bt}, 1}};
}

// The GEMM calls rnn_through_gemm times a recurrent layer as.
int64_t rnn_gemm_calls(const RnnShape& r) {
  int64_t calls = 0;
  for (const auto& g : rnn_gemms(r)) calls += g.repeat;
  return calls;
}

std::optional<Quote> rnn_through_gemm(const RnnShape& r, const TableGroup& gemm, const std::string& platform,
                                      const KernelEntry* exclude) {
  const std::vector<RnnGemm> steps = rnn_gemms(r);
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
          to_op_precision(*q, p, prec, mode, kind, shape, dtype, g->launch_floor_s * latency_units(shape));
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
      const auto* r = std::get_if<RnnShape>(&shape);
      to_op_precision(*q, p, prec, mode, kind, shape, dtype,
                      gemm->launch_floor_s * static_cast<double>(r ? rnn_gemm_calls(*r) : 1));
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

}  // namespace

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

std::string group_name(const std::string& platform, const TableGroup& g) {
  std::string kind(to_string(g.kind));
  if (const auto* d = std::get_if<ConvDirection>(&g.variant)) kind += " " + std::string(to_string(*d));
  if (const auto* r = std::get_if<RnnVariant>(&g.variant))
    kind += r->direction == RnnDirection::backward ? " backward" : " forward";
  return platform + "'s " + std::string(to_string(g.precision)) + " " + std::string(to_string(g.mode)) + " " + kind +
         " table";
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

bool memory_table_fits(const Op& op) {
  if (!is_memory_kind(op.kind) || !std::holds_alternative<TensorShape>(op.shape)) return false;
  std::string name = op.name;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  // The tables time layer norm and softmax; a batch norm or a sum reduces otherwise.
  if (op.kind == OpKind::normalization)
    return name.find("layer_norm") != std::string::npos || name.find("layernorm") != std::string::npos;
  if (op.kind == OpKind::reduction) return name.find("softmax") != std::string::npos;
  return true;
}

std::optional<Quote> quote_memory(const PlatformTables& t, const Platform& p, const Op& op, DType dtype,
                                  const KernelEntry* exclude) {
  if (!memory_table_fits(op)) return std::nullopt;
  KernelMode mode = KernelMode::train;
  const auto* g = find_group(t, op.kind, KernelPrecision::fp32, std::monostate{}, mode);
  if (!g) return std::nullopt;
  auto q = in_group(*g, op.kind, op.shape, p.name, exclude);
  if (!q) return std::nullopt;
  // The table's rate is bytes per second at fp32: a narrower type moves fewer bytes at
  // about that rate, down to the group's launch floor.
  if (const double ratio = dtype_bytes(dtype) / dtype_bytes(DType::fp32); std::fabs(ratio - 1) > 1e-9) {
    q->seconds = std::max(g->min_time_s, q->seconds * ratio);
    q->notes.push_back(std::string(to_string(dtype)) + " op timed from the fp32 table's bytes per second (x " +
                       format_significant(ratio) + " the bytes)");
  }
  return q;
}

std::optional<Quote> collective_from_tables(const Context& ctx, const CollectiveShape& c) {
  const auto* t = ctx.tables(ctx.target.name);
  if (!t || c.ranks < 2) return std::nullopt;
  KernelMode mode = KernelMode::train;
  const auto* g = find_group(*t, OpKind::collective, KernelPrecision::fp32, c.op, mode);
  if (!g) return std::nullopt;
  return in_group(*g, OpKind::collective, c, ctx.target.name, nullptr);
}

std::optional<Quote> quote_from_tables(const PlatformTables& t, const Platform& p, OpKind kind, const OpShape& shape,
                                       DType dtype, const KernelEntry* exclude) {
  return quote_shape(t, p, kind, shape, normalized(dtype), exclude);
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

}  // namespace fomcast::est
