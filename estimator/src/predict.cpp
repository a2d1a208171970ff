// The method chain for one operation (estimate.hpp lists the order and why): which method
// is tried first for which kind of op. The methods themselves are the platform's own tables
// (table_lookup.cpp) and the fallback models (fallback_models.cpp); every quote carries its
// method, its source and a relative uncertainty.
#include "predict.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "fallback_models.hpp"
#include "fomcast/collectives.hpp"
#include "fomcast/format.hpp"
#include "layout_transform.hpp"
#include "similarity.hpp"
#include "table_lookup.hpp"

namespace fomcast::est {
namespace {

bool compute_shape(const Op& op) {
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::batched_gemm: return std::holds_alternative<GemmShape>(op.shape);
    case OpKind::conv: return std::holds_alternative<ConvShape>(op.shape);
    case OpKind::rnn: return std::holds_alternative<RnnShape>(op.shape);
    default: return false;
  }
}

// Another card of the target's chip that has a table of this kind (NeuSight measured the
// A100's convs on the 80 GB PCIe card, its GEMMs on the 40 GB one); nullptr when none.
const Platform* sibling_with_kind(const Context& ctx, OpKind kind) {
  for (const auto& [name, table] : ctx.catalog.tables) {
    if (name == ctx.target.name) continue;
    const Platform* sib = ctx.catalog.platform(name);
    const PlatformTables* t = ctx.tables(name);
    if (sib && t && same_chip(*sib, ctx.target) && t->has(kind)) return sib;
  }
  return nullptr;
}

// The sibling's table read as the target's own: the same kernels on the same SMs. nullopt
// where the sibling measured no entry the op can be read from (its own GEMM fallbacks do
// not count: a conv direction it did not measure goes to the transfer instead).
std::optional<Quote> sibling_quote(const Context& ctx, const Platform& sib, const Op& op, DType dtype) {
  const PlatformTables* t = ctx.tables(sib.name);
  // The target's figures (peaks, precision), the sibling's name on what its table says.
  Platform as_sibling = ctx.target;
  as_sibling.name = sib.name;
  auto q = t ? quote_op(*t, as_sibling, op, dtype) : std::nullopt;
  if (!q || q->method == Method::implicit_gemm || q->method == Method::rnn_as_gemm) return std::nullopt;
  q->detail = sib.name + "'s table read as " + ctx.target.name +
              "'s own (the same chip: " + format_significant(sib.compute_units->value) +
              " compute units): " + std::string(to_string(q->method)) + " (" + q->detail + ")";
  q->method = Method::scaled_table;
  q->source = sib.name;
  q->uncertainty = quad(q->uncertainty, kinship_band(kinship(sib, ctx.target)));
  return q;
}

// A oneDNN convolution that was measured is not timed from convolutions fomcast's own bench
// measured ("bench:..." entries): those are im2col + BLAS GEMM, another implementation, and a
// faster or slower BLAS says nothing about oneDNN's kernels. Its own measured time carries it.
bool other_implementation_tables(const Context& ctx, const Op& op) {
  if (op.kind != OpKind::conv || op.implementation != Implementation::onednn || !op.self_time_s) return false;
  for (const PlatformTables* t : {ctx.tables(ctx.target.name), ctx.baseline ? ctx.tables(ctx.baseline->name) : nullptr})
    if (t)
      for (const auto& e : t->table.entries)
        if (e.kind == OpKind::conv && e.method.starts_with("bench:")) return true;
  return false;
}

// NeuSight timed each call from the host, the launch gap (25-50 us) in every entry; a GPU
// trace times the kernel alone. An op the trace measured, read from the target's own table,
// keeps the trace's fixed kernel latency in place of the table's launch floor: a V100 trace's
// 1 us adds of [256] had read 50 us each on the V100 PCIe card, once its elementwise tables
// were read by element count; DLRM's 4-14 us GEMMs 53.5 us each off an A100's GEMM table.
// `table_floor_s`: the floor the table's time holds.
void keep_measured_call_floor(Quote& q, double table_floor_s, const Context& ctx, const Op& op) {
  const auto kernel = measured_kernel_latency(ctx, op);
  if (!(table_floor_s > 0) || !kernel) return;
  const double floor = std::min(table_floor_s, q.seconds);
  q.seconds = *kernel + (q.seconds - floor);
  q.fixed_latency_s = *kernel;
  q.detail += "; its " + format_significant(floor * 1e6) +
              " us launch floor (host-timed) -> the trace's fixed kernel latency " + format_significant(*kernel * 1e6) +
              " us";
}

OpEstimate applied(OpEstimate e, Quote q) {
  e.method = q.method;
  e.predicted_s = q.seconds;
  e.uncertainty = q.uncertainty;
  e.launch_gap_s = q.launch_gap_s;
  e.fixed_latency_s = q.fixed_latency_s;
  e.wait_s = q.wait_s;
  e.detail = std::move(q.detail);
  e.source_platform = std::move(q.source);
  e.notes = std::move(q.notes);
  return e;
}

// Says when the target's spec has no rate for the op's type and another one stood in.
void note_borrowed_rate(OpEstimate& e, const Platform& target, DType dtype) {
  if (e.method == Method::table || e.method == Method::interpolated || e.method == Method::measured) return;
  const Peak p = peak_for(target, dtype);
  if (p.flop_per_s > 0 && p.dtype != dtype) {
    e.rate_stood_in = p.dtype;
    e.notes.push_back("no " + std::string(to_string(dtype)) + " rate in " + target.name + "'s spec: its " +
                      std::string(to_string(p.dtype)) + " rate stands in");
  }
}

// Tensor-core GEMM kernels load 16 bytes at a time: a dimension that is not a multiple of
// 16 bytes of its storage type (8 half elements, 4 tf32 ones) runs on slower kernels with
// narrower loads. The tables hold aligned shapes (DeepBench padded its tensor-core shapes to
// multiples of 8; NeuSight's are fp32), so such an op's time is optimistic, and the note says
// so, by how much one GPU measured it (tests/data/measured/h200_gemm_alignment.json: one GPU,
// so no factor is applied), and what avoids it. A time measured on the target stands.
void note_misaligned_tensor_core(OpEstimate& e, const Platform& target, const Op& op, DType dtype) {
  if (e.method == Method::measured || e.method == Method::table || e.method == Method::unestimated) return;
  // Only where the part has tensor cores for the type: one whose spec borrows the rate runs
  // the op on other units (a tf32 GEMM on a P4).
  if (peak_for(target, dtype).dtype != dtype) return;
  if (op.kind != OpKind::gemm && op.kind != OpKind::batched_gemm) return;
  const auto* g = std::get_if<GemmShape>(&op.shape);
  const int64_t multiple = dtype == DType::fp16 || dtype == DType::bf16 ? 8 : dtype == DType::tf32 ? 4 : 0;
  if (!g || multiple == 0) return;
  std::string odd;
  for (const auto& [name, dim] : {std::pair<const char*, int64_t>{"M", g->m}, {"N", g->n}, {"K", g->k}})
    if (dim % multiple != 0) odd += (odd.empty() ? "" : ", ") + std::string(name) + "=" + std::to_string(dim);
  if (odd.empty()) return;
  e.notes.push_back(odd + " not a multiple of " + std::to_string(multiple) + " (16 bytes of " +
                    std::string(to_string(dtype)) +
                    "): tensor-core GEMM kernels run such shapes with narrower loads, slower than the aligned "
                    "shapes the tables hold, so this time is likely optimistic (on an H200, GEMMs one element "
                    "off a multiple of 8 ran 2-3x slower in tf32 and 4-5x in fp16 than their aligned "
                    "neighbours); padding the dimension avoids it (nanoGPT pads GPT-2's 50257-token vocabulary "
                    "to 50304)");
}

// Section 4 of issue 13: no op faster than its roofline on the target. A time the op
// measured on the target itself (`measured`, or an exact `table` entry) stands; any other
// method's time below the roofline is raised to it, and says so.
void cap_at_roofline(OpEstimate& e, const Platform& target, const Op& op, DType dtype, double flops, double bytes) {
  if (e.method == Method::measured || e.method == Method::table || e.method == Method::unestimated) return;
  const Roofline r = op_roofline(target, op.kind, op.shape, dtype, flops, bytes);
  if (!(r.seconds > 0) || e.predicted_s >= r.seconds) return;
  const bool compute = r.compute_s >= r.memory_s;
  e.notes.push_back(std::string(to_string(e.method)) + "'s " + format_significant(e.predicted_s * 1e6) +
                    " us is below the roofline on " + target.name + ": raised to " +
                    format_significant(r.seconds * 1e6) + " us (" +
                    (compute ? format_significant(flops / (r.winograd ? kWinogradReduction : 1.0)) + " flop at the " +
                                   std::string(to_string(r.peak_dtype)) + " peak " + format_significant(r.peak / 1e12) +
                                   " TFLOP/s" + (r.winograd ? ", a Winograd conv's quarter of the direct flops" : "")
                             : format_significant(bytes) + " B at " + format_significant(r.bandwidth / 1e9) + " GB/s") +
                    ")");
  e.predicted_s = r.seconds;
  e.roofline_capped = true;
}

OpEstimate predict_unbounded(const Context& ctx, const Op& op, std::size_t index) {
  OpEstimate e;
  e.op_index = index;
  e.baseline_s = op.self_time_s;
  const DType dtype = normalized(op.dtype);
  const double flops = op.flops > 0 ? op.flops : op_flops(op.kind, op.shape);
  const double bytes = op.bytes > 0 ? op.bytes : op_bytes(op.kind, op.shape, dtype);

  if (op.self_time_s && ctx.baseline && ctx.baseline->name == ctx.target.name) {
    e.method = Method::measured;
    e.predicted_s = *op.self_time_s;
    e.fixed_latency_s = std::min(*op.self_time_s, ctx.recorded_call_floor_s);
    e.source_platform = ctx.target.name;
    e.detail = "measured on " + ctx.target.name + ", the platform the workload was recorded on";
    return e;
  }

  // An op the trace measured at 0 launched no device work of its own: its copy is the
  // Memcpy the trace lists beside it (an aten::copy_ of a host tensor), or it only views or
  // reshapes. Timed from its shape elsewhere, the copy counted twice (0 -> 29.6 us on an
  // MI250X beside the memcpy's own 19.1 us).
  if (op.self_time_s && *op.self_time_s == 0) {
    e.method = Method::scaled;
    e.predicted_s = 0;
    e.source_platform = ctx.baseline ? ctx.baseline->name : std::string();
    e.detail = "measured 0 on " + (ctx.baseline ? ctx.baseline->name : std::string("the recording machine")) +
               ": no device work of its own (what it moves is another op of the trace), 0 on every platform";
    return e;
  }

  // A function profile's time of a call on a GPU run is the host's dispatch and launch: its
  // kind's GPU model would time work the call did not wait for.
  if (ctx.host_timed && op.self_time_s)
    if (auto q = carried(ctx, op, dtype, true)) return applied(std::move(e), std::move(*q));

  const bool own_time_only = other_implementation_tables(ctx, op);
  if (compute_shape(op) && !own_time_only) {
    // A conv or RNN the target can time only through its GEMM table (it has no table of the
    // kind to correct that by), while another card of its chip measured the kind: that
    // card's table, else (a direction it did not measure) the transfer from the platforms
    // that did; the GEMM route is the last resort (implicit GEMM: 23-80% median error,
    // docs/accuracy.md section 1).
    std::optional<Quote> via_gemm;
    // A 16-bit op on a part whose spec states no rate for its type computes in fp32 there
    // (peak_for): timed from the part's fp32 tables, not its other 16-bit type's tensor-core
    // tables scaled down (a bf16 GEMM on a V100 from its fp16_mixed table x 8).
    const bool in_fp32 = (dtype == DType::fp16 || dtype == DType::bf16 || dtype == DType::tf32) &&
                         peak_for(ctx.target, dtype).dtype == DType::fp32;
    if (const auto* t = ctx.tables(ctx.target.name))
      if (auto q = quote_op(*t, ctx.target, op, in_fp32 ? DType::fp32 : dtype)) {
        if (in_fp32)
          q->notes.push_back("no " + std::string(to_string(dtype)) + " rate in " + ctx.target.name +
                             "'s spec (no units for it): timed from its fp32 tables");
        // Uncorrected: no table of the op's own variant (NeuSight measured forward convs
        // only, so a V100 PCIe card's backward convs went through its GEMM table, 2-3.6x the
        // times a V100 SXM2 measured for them).
        const bool uncorrected = (q->method == Method::implicit_gemm || q->method == Method::rnn_as_gemm) &&
                                 !t->has_variant_of(op.kind, op.shape);
        // The uncorrected route waits for the transfer (step 4), whether or not a card of the
        // target's chip measured the kind: a P4, whose NeuSight convs are forward only, took it
        // for its backward convs and came out 2.5x slower on NT3 than a copy of its spec
        // without tables.
        auto own = [&](Quote quote) {
          OpEstimate r = applied(std::move(e), std::move(quote));
          if (in_fp32) r.rate_stood_in = DType::fp32;
          return r;
        };
        if (!uncorrected) {
          keep_measured_call_floor(*q, target_launch_gap(ctx, op.kind), ctx, op);
          return own(std::move(*q));
        }
        if (const Platform* sib = sibling_with_kind(ctx, op.kind))
          if (auto s = sibling_quote(ctx, *sib, op, in_fp32 ? DType::fp32 : dtype)) return own(std::move(*s));
        via_gemm = std::move(q);
      }
    // The op's own measurement on the recording platform when it is the most alike
    // source, else several alike platforms' tables (fallback_models.hpp's ensemble).
    const Source src = best_source(ctx, op, dtype);
    std::optional<Quote> q = src.platform && !src.tables ? scaled_from(ctx, src, op, dtype, flops, bytes)
                                                         : transferred(ctx, op, dtype, flops, bytes);
    if (!q) q = std::move(via_gemm);
    if (!q) q = roofline(ctx, op, dtype, flops, bytes);
    if (q) {
      e = applied(std::move(e), std::move(*q));
      note_borrowed_rate(e, ctx.target, dtype);
      return e;
    }
  } else if (op.kind == OpKind::collective) {
    if (const auto* c = std::get_if<CollectiveShape>(&op.shape)) {
      if (auto q = collective_from_tables(ctx, *c)) {
        // A measured collective holds the ranks' wait as well as the transfer the table times:
        // the wait is carried as measured, as the network model's path does (a DLRM rank's
        // 601 us all-reduce of 448 B, mostly wait, had read 102 us off a P100 table, and the
        // slower GPU came out faster).
        if (op.self_time_s && ctx.baseline && c->ranks > 1 && c->bytes > 0)
          if (const auto b =
                  collective_time(ctx.catalog, *ctx.baseline, c->op, static_cast<double>(c->bytes), c->ranks, 0);
              b && b->seconds > 0 && q->seconds > 0) {
            const double table_s = q->seconds;
            const std::string wait = carry_measured_collective(*q, *op.self_time_s, b->seconds, table_s);
            q->detail = "measured " + format_significant(*op.self_time_s * 1e6) + " us on " + ctx.baseline->name +
                        ": " + format_significant(std::min(*op.self_time_s, b->seconds) * 1e6) +
                        " us the transfer there (" + b->detail + "), x the table's " +
                        format_significant(table_s * 1e6) + " us here over it (" + q->detail + ")" + wait;
          }
        return applied(std::move(e), std::move(*q));
      }
      if (auto q = network(ctx, op, *c)) return applied(std::move(e), std::move(*q));
    } else if (auto q = network(ctx, op, CollectiveShape{})) {
      return applied(std::move(e), std::move(*q));
    }
  } else if (op.kind == OpKind::memcpy) {
    if (auto q = copy(ctx, op, bytes)) return applied(std::move(e), std::move(*q));
  } else if (is_memory_bound(op.kind)) {
    // Elementwise, layer norm and softmax: the target's measured, shape-aware table first.
    // Then the op's own measurement on the recording platform (bandwidth), then other
    // GPUs' tables carried by achievable bandwidth, then bytes over bandwidth.
    // Where the table only extrapolates (past a log-distance of 1 from anything it measured:
    // ResNet's [32, 1024, 14, 14] is 458,752 rows of 14, where NeuSight's tensors stop at
    // 16,372 rows), the op's own measurement carried by bandwidth knows more: the
    // extrapolation put a V100 trace's adds 3-11x slower on the V100 PCIe card than the V100
    // that ran them.
    const bool own = op.self_time_s && ctx.baseline && bandwidth_of(*ctx.baseline) > 0;
    if (const auto* t = ctx.tables(ctx.target.name))
      if (auto q = quote_memory(*t, ctx.target, op, dtype); q && !(own && q->nearest_log_distance > kBandReach)) {
        if (own) {
          const TableGroup* g = memory_group(*t, op.kind);
          keep_measured_call_floor(*q, g ? g->launch_floor_s : 0.0, ctx, op);
        }
        return applied(std::move(e), std::move(*q));
      }
    if (!own) {
      if (auto q = memory_from_curves(ctx, op, dtype)) return applied(std::move(e), std::move(*q));
      if (auto q = memory_from_tables(ctx, op, dtype)) return applied(std::move(e), std::move(*q));
    }
    if (auto q = bandwidth(ctx, op, bytes)) return applied(std::move(e), std::move(*q));
    if (auto q = roofline(ctx, op, dtype, flops, bytes)) return applied(std::move(e), std::move(*q));
  } else if (is_compute_bound(op.kind)) {
    // A GEMM, conv or RNN kernel without a shape (a GPU kernel the trace tied to no op):
    // its own time carried by the peak ratio, else a roofline of what costs are known.
    if (op.self_time_s)
      if (auto q = scaled_from(ctx, Source{ctx.baseline, nullptr, 0}, op, dtype, flops, bytes)) {
        if (own_time_only)
          q->notes.push_back(
              "a oneDNN convolution: not timed from the im2col + BLAS convolutions fomcast's bench "
              "measured, its own measured time carried");
        return applied(std::move(e), std::move(*q));
      }
    if (auto q = roofline(ctx, op, dtype, flops, bytes)) return applied(std::move(e), std::move(*q));
  } else if (!op.self_time_s) {
    // `other` ops: a measured one is carried below by host speed, which knows more about
    // it than a roofline with an assumed efficiency.
    if (auto q = roofline(ctx, op, dtype, flops, bytes)) return applied(std::move(e), std::move(*q));
  }
  // What no model could time keeps its measured time, carried by a capability ratio of
  // its own kind: never another op's ratio, never dropped.
  if (auto q = carried(ctx, op, dtype)) return applied(std::move(e), std::move(*q));
  e.method = Method::unestimated;
  e.detail = "no shape, no costs and no measured time to carry: not counted";
  return e;
}

// A batched GEMM is never slower than its GEMMs run one after another: a strided-batched
// kernel could always do that. The bound matters where the batched tables extrapolate far:
// a few large matrices, where NeuSight's bmm tables hold many small ones (4 x 4096^3 in tf32
// on H100 came out at 185 TFLOP/s from the A100's bmm table, the same GEMM once at 377 from
// its GEMM table; published, 347 and 402: docs/accuracy.md). Timed, like the op, by the
// chain without the roofline cap; the cap then applies to whichever time stands. An op with
// its own measured time is left alone: that measurement, carried, knows more than a table.
void bound_by_single_gemms(OpEstimate& e, const Context& ctx, const Op& op, std::size_t index) {
  if (op.kind != OpKind::batched_gemm || e.method == Method::measured || e.method == Method::table ||
      e.method == Method::unestimated)
    return;
  if (op.self_time_s && ctx.baseline && e.source_platform == ctx.baseline->name) return;
  const auto* g = std::get_if<GemmShape>(&op.shape);
  if (!g || g->batch <= 1) return;
  Op one = op;
  one.kind = OpKind::gemm;
  auto& shape = std::get<GemmShape>(one.shape);
  shape.batch = 1;
  one.flops = 0, one.bytes = 0, one.self_time_s.reset();
  fill_costs(one);
  const OpEstimate single = predict_unbounded(ctx, one, index);
  if (single.method == Method::unestimated || !(single.predicted_s > 0)) return;
  const double loop_s = static_cast<double>(g->batch) * single.predicted_s;
  if (e.predicted_s <= loop_s) return;
  e.notes.push_back(std::string(to_string(e.method)) + "'s " + format_significant(e.predicted_s * 1e6) +
                    " us is more than its " + std::to_string(g->batch) + " GEMMs one after another: lowered to " +
                    std::to_string(g->batch) + " x " + format_significant(single.predicted_s * 1e6) + " us (" +
                    std::string(to_string(single.method)) + ", " + single.detail + ")");
  e.predicted_s = loop_s;
  e.uncertainty = std::max(e.uncertainty, single.uncertainty);
}

// A conv whose windows tile its input without overlap, padding or dilation (a ViT's 16x16
// stride-16 patch embedding, a 2x2 stride-2 downsampling) is exactly a GEMM over the
// patches: rows are the N x P x Q patches, columns the C x R x S values of one patch, and
// laying the input out as patches is a permute, not im2col's duplication. Its time is never
// more than that GEMM and the permute of its two activation tensors: cuDNN's implicit-GEMM
// kernels run it so. The bound matters where the conv tables extrapolate far: none holds a
// 16x16 filter, and a ViT-B/16's patch conv came out at 3.5 ms on an A100 SXM4, 25x its
// 14.8 GFLOP GEMM. An op with its own measured time is left alone, as above.
std::optional<std::pair<Op, Op>> patch_gemm(const Op& op) {
  const auto* c = std::get_if<ConvShape>(&op.shape);
  if (op.kind != OpKind::conv || !c || c->groups != 1) return std::nullopt;
  int64_t window = 1;
  for (std::size_t i = 0; i < 3; ++i) {
    if (c->filter[i] != c->stride[i] || c->pad[i] != 0 || c->dilation[i] != 1) return std::nullopt;
    window *= c->filter[i];
  }
  if (window <= 1) return std::nullopt;  // 1x1 stride 1: the tables hold those shapes
  const auto out = c->output();
  const int64_t patches = c->n * out[0] * out[1] * out[2], values = c->c * window;
  if (patches <= 0 || values <= 0 || c->k <= 0) return std::nullopt;
  Op gemm;
  gemm.name = op.name + ".as_gemm";
  gemm.kind = OpKind::gemm;
  gemm.dtype = op.dtype;
  gemm.phase = op.phase;
  gemm.count = op.count;
  gemm.implementation = op.implementation;
  switch (c->direction) {
    case ConvDirection::forward: gemm.shape = GemmShape{patches, c->k, values, 1, false, true}; break;
    case ConvDirection::backward_data: gemm.shape = GemmShape{patches, values, c->k, 1, false, false}; break;
    case ConvDirection::backward_filter: gemm.shape = GemmShape{c->k, values, patches, 1, true, false}; break;
  }
  fill_costs(gemm);
  // The activations are the same pair in every direction: x (or dx) and y (or dy), each read
  // and written once, in the storage type: a transpose, timed as the layout transforms are.
  const DType storage = op.dtype == DType::tf32 ? DType::fp32 : normalized(op.dtype);
  std::vector<int64_t> x{c->n, c->c}, y{c->n, c->k};
  for (std::size_t i = 3 - static_cast<std::size_t>(std::clamp(c->dims, 1, 3)); i < 3; ++i) {
    x.push_back(c->input[i]);
    y.push_back(out[i]);
  }
  const ConvElements n = conv_elements(*c);
  Op permute = transpose_copy_op(op, ".patches", {x, y}, n.x + n.y, storage);
  return std::pair{std::move(gemm), std::move(permute)};
}

void bound_by_patch_gemm(OpEstimate& e, const Context& ctx, const Op& op, std::size_t index) {
  if (e.method == Method::measured || e.method == Method::table || e.method == Method::unestimated) return;
  if (op.self_time_s && ctx.baseline && e.source_platform == ctx.baseline->name) return;
  auto parts = patch_gemm(op);
  if (!parts) return;
  const OpEstimate gemm = predict_unbounded(ctx, parts->first, index);
  const OpEstimate permute = predict_unbounded(ctx, parts->second, index);
  if (gemm.method == Method::unestimated || permute.method == Method::unestimated || !(gemm.predicted_s > 0)) return;
  const double bound_s = gemm.predicted_s + permute.predicted_s;
  if (e.predicted_s <= bound_s) return;
  const auto& g = std::get<GemmShape>(parts->first.shape);
  e.notes.push_back(std::string(to_string(e.method)) + "'s " + format_significant(e.predicted_s * 1e6) +
                    " us is more than the GEMM this conv is (its windows tile the input: M=" + std::to_string(g.m) +
                    " N=" + std::to_string(g.n) + " K=" + std::to_string(g.k) +
                    ") and the permute into patches: lowered to " + format_significant(gemm.predicted_s * 1e6) + " + " +
                    format_significant(permute.predicted_s * 1e6) + " us (" + std::string(to_string(gemm.method)) +
                    ", " + gemm.detail + ")");
  e.predicted_s = bound_s;
  e.uncertainty = std::max(gemm.uncertainty, permute.uncertainty);
}

}  // namespace

// A 16-bit GEMM or conv is never slower than the same op in fp32 on the same target: the
// library can always run it in fp32 math. The bound matters where a half table is read far
// from anything it measured: ResNet-50's first weight-gradient conv (C=3, 7x7/2) came out at
// 4.78 ms in amp-bf16 on an H100 from NV_V100's fp16 conv table, 2.52 ms in fp32, 33x its
// bf16 roofline. Said in a note; not where the time is the op's own measurement.
void bound_by_fp32(OpEstimate& e, const Context& ctx, const Op& op, std::size_t index, double flops, double bytes) {
  const DType dtype = normalized(op.dtype);
  if (dtype != DType::fp16 && dtype != DType::bf16) return;
  if (op.kind != OpKind::gemm && op.kind != OpKind::batched_gemm && op.kind != OpKind::conv) return;
  // Not where the time comes from the op's own measurement (on this platform or carried from
  // its recording one): a measurement knows what the library ran.
  if (std::holds_alternative<std::monostate>(op.shape) || op.self_time_s) return;
  Op wide = op;
  wide.dtype = DType::fp32;
  wide.bytes = op_bytes(op.kind, op.shape, DType::fp32);
  OpEstimate in_fp32 = predict_unbounded(ctx, wide, index);
  bound_by_single_gemms(in_fp32, ctx, wide, index);
  cap_at_roofline(in_fp32, ctx.target, wide, DType::fp32, flops, wide.bytes);
  if (!(in_fp32.predicted_s > 0) || in_fp32.predicted_s >= e.predicted_s) return;
  const std::string was = format_significant(e.predicted_s * 1e6);
  in_fp32.notes.push_back("its " + std::string(to_string(dtype)) + " time (" + was + " us, " +
                          std::string(to_string(e.method)) + ") was above the same op's in fp32 on " + ctx.target.name +
                          ": no slower than fp32, which the library can always run it in");
  in_fp32.baseline_s = e.baseline_s;
  // Still no faster than the op's own roofline: an fp32 3x3 conv's bound is Winograd's, a
  // quarter of the direct flops, below a 16-bit direct conv's on a part with 2x the rate.
  cap_at_roofline(in_fp32, ctx.target, op, dtype, flops, bytes);
  if (in_fp32.predicted_s >= e.predicted_s) return;
  e = std::move(in_fp32);
}

namespace {

// Costs the op's own measurement disproves: measured on the recording platform in less time
// than its counted flops or bytes take there at peak, it did not compute or move them all
// (a count read off the arguments, or data its cache held). A vLLM reshape_and_cache_flash,
// counted as the whole 25.9 GB paged KV cache it indexes, ran in 4.5 us on a B200, and the
// H100 roofline of those bytes raised it to 7.7 ms, 80% of the pass. The target's roofline
// is drawn from the counts scaled down to what the measurement allows, and said.
void bound_costs_by_measurement(const Context& ctx, const Op& op, DType dtype, double& flops, double& bytes,
                                OpEstimate& e) {
  if (!op.self_time_s) return;
  const double measured = *op.self_time_s;
  // Measured at 0: no device work of its own (predict_unbounded's rule), so no roofline.
  if (measured == 0) {
    flops = bytes = 0;
    return;
  }
  if (!ctx.baseline || ctx.baseline->name == ctx.target.name) return;
  const Roofline there = op_roofline(*ctx.baseline, op.kind, op.shape, dtype, flops, bytes);
  std::string disproved;
  if (there.memory_s > measured && bytes > 0) {
    disproved = format_significant(bytes) + " B would take " + format_significant(there.memory_s * 1e6) + " us";
    bytes *= measured / there.memory_s;
  }
  if (there.compute_s > measured && flops > 0) {
    disproved += (disproved.empty() ? "" : ", ") + format_significant(flops) + " flop " +
                 format_significant(there.compute_s * 1e6) + " us";
    flops *= measured / there.compute_s;
  }
  if (disproved.empty()) return;
  e.notes.push_back("its counted costs (" + disproved + " at " + ctx.baseline->name +
                    "'s peaks) exceed what it did in " + format_significant(measured * 1e6) +
                    " us there: the roofline on " + ctx.target.name + " is drawn from what that time allows");
}

}  // namespace

OpEstimate predict_op(const Context& ctx, const Op& op, std::size_t index) {
  OpEstimate e = predict_unbounded(ctx, op, index);
  bound_by_single_gemms(e, ctx, op, index);
  bound_by_patch_gemm(e, ctx, op, index);
  const DType dtype = normalized(op.dtype);
  double flops = op.flops > 0 ? op.flops : op_flops(op.kind, op.shape);
  double bytes = op.bytes > 0 ? op.bytes : op_bytes(op.kind, op.shape, dtype);
  bound_costs_by_measurement(ctx, op, dtype, flops, bytes, e);
  cap_at_roofline(e, ctx.target, op, dtype, flops, bytes);
  note_misaligned_tensor_core(e, ctx.target, op, dtype);
  bound_by_fp32(e, ctx, op, index, flops, bytes);
  return e;
}

}  // namespace fomcast::est
