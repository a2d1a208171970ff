// CANDLE steps 7-11: ops -> pass (the modelled operations, then the residual line from
// calibration.cpp) -> epoch -> run -> units/day, and how much of it the platform's own
// measurements covered.
//
// The pass uncertainty treats errors of one method as correlated (an interpolation band
// that is off is off for every op it times) and errors of different methods as
// independent: sum within a method, root-sum-square across methods.
#include <algorithm>
#include <cmath>

#include "catalog.hpp"
#include "fallback_models.hpp"
#include "fomcast/error.hpp"
#include "fomcast/fom.hpp"
#include "fomcast/format.hpp"
#include "fomcast/text.hpp"
#include "fomcast/trace_notes.hpp"
#include "layout_transform.hpp"
#include "max_pool_bound.hpp"
#include "nchw_batch_norm.hpp"
#include "predict.hpp"
#include "residual.hpp"
#include "similarity.hpp"
#include "table_lookup.hpp"
#include "tables.hpp"

namespace fomcast {
std::string_view to_string(Method m) {
  switch (m) {
    case Method::measured: return "measured";
    case Method::table: return "table";
    case Method::interpolated: return "interpolated";
    case Method::implicit_gemm: return "implicit-gemm";
    case Method::rnn_as_gemm: return "rnn-as-gemm";
    case Method::scaled_table: return "scaled-table";
    case Method::bandwidth: return "bandwidth";
    case Method::network: return "network";
    case Method::roofline: return "roofline";
    case Method::scaled: return "scaled";
    case Method::unestimated: return "unestimated";
  }
  return "?";
}

bool is_table_backed(Method m) {
  return m == Method::measured || m == Method::table || m == Method::interpolated || m == Method::implicit_gemm ||
         m == Method::rnn_as_gemm;
}

namespace est {

void tally_coverage(PassEstimate& pe, const Workload& w) {
  double baseline_total = 0, baseline_backed = 0, predicted_backed = 0;
  for (auto& [m, share] : pe.by_method) share.baseline_s = 0;
  for (const auto& e : pe.ops) {
    const double count = w.ops[e.op_index].count;
    if (e.baseline_s) {
      pe.by_method[e.method].baseline_s += count * *e.baseline_s;
      baseline_total += count * *e.baseline_s;
      if (is_table_backed(e.method)) baseline_backed += count * *e.baseline_s;
    }
    if (is_table_backed(e.method)) predicted_backed += count * e.predicted_s;
  }
  pe.coverage_of_baseline = baseline_total > 0;
  pe.table_coverage =
      pe.coverage_of_baseline ? baseline_backed / baseline_total : (pe.ops_s > 0 ? predicted_backed / pe.ops_s : 0);
}

namespace {

// The fastest measured call of device work in a GPU trace that did next to nothing (its
// roofline on the recording GPU under kLatencyBound of its time, as a table's launch floor
// is chosen): est::Context's recorded_call_floor_s. Only a latency-bound call says what a
// kernel's fixed latency is: a trace of five 15.7 ms GEMMs holds none. Kernels only, so
// copies (their own model), collectives (the network's) and optimizer updates (often fused
// host loops) do not set it; nor does a shaped call that is not latency-bound (its roofline
// on the recording GPU over kLatencyBound of its time), while a call with no shape to cost
// it by may. Nor a call longer than `call_s`, a whole call with its launch
// as the measured tables hold one: a 1 ms GEMM at 7% of its peak is slow, not latency.
double recorded_call_floor(const Workload& w, const Platform* baseline, double call_s) {
  if (!baseline || baseline->device_kind != "gpu" || !(call_s > 0)) return 0;
  const double bw = bandwidth_of(*baseline);
  double floor = 0;
  for (const auto& op : w.ops) {
    if (!op.self_time_s || !(*op.self_time_s > 0)) continue;
    if (op.kind == OpKind::memcpy || op.kind == OpKind::collective || op.kind == OpKind::optimizer) continue;
    const double t = *op.self_time_s, peak = peak_for(*baseline, normalized(op.dtype)).flop_per_s;
    const double flops = op.flops > 0 ? op.flops : op_flops(op.kind, op.shape);
    const double bytes = op.bytes > 0 ? op.bytes : op_bytes(op.kind, op.shape, op.dtype);
    const double roof = std::max(flops > 0 && peak > 0 ? flops / peak : 0.0, bytes > 0 && bw > 0 ? bytes / bw : 0.0);
    // A kernel with no shape to cost it by (a trace without record_shapes) says nothing of how
    // latency-bound it is, but the fastest call still bounds the fixed latency from above: a
    // 1 us fill on a V100 had come out 0.27 us on an H100 by the bandwidth ratio.
    // (`other` ops aside: host-side work in some readers).
    const bool shapeless = !(flops > 0) && !(bytes > 0);
    if (shapeless && op.kind == OpKind::other) continue;
    if (t > call_s || (!shapeless && roof >= kLatencyBound * t)) continue;
    floor = floor > 0 ? std::min(floor, t) : t;
  }
  return floor;
}

}  // namespace

PassEstimate model_pass(const Workload& w, std::string_view platform, const Catalog& catalog) {
  const Platform* target = catalog.platform(platform);
  if (!target) throw UsageError("unknown platform '" + std::string(platform) + "' (see `fomcast platforms`)");
  if (target->peak_flop_per_s.empty() && !target->mem_bw_bytes_per_s && !catalog.tables.count(target->name) &&
      w.recorded_on != target->name)
    // Not an InputError: no file is at fault ("platform: platform: platform 'A' ..." read as one).
    throw Refusal("platform '" + target->name +
                  "' has no figures to estimate with (no peak rates, bandwidth or kernel table): give measured "
                  "hours for it, a spec, or a table (`fomcast import-bench`, `fomcast bench`)");
  const Platform* baseline = w.recorded_on.empty() ? nullptr : catalog.platform(w.recorded_on);
  est::Context ctx{catalog, *target, baseline, [&](std::string_view name) { return est::tables_of(catalog, name); },
                   w.recorded_on};
  ctx.recorded_call_floor_s = recorded_call_floor(w, baseline, est::sources_launch_floor(ctx, OpKind::elementwise));
  ctx.host_timed = w.origin == "cprofile" && baseline && baseline->device_kind == "gpu";

  PassEstimate pe;
  pe.workload = w.name;
  pe.platform = target->name;
  pe.baseline_platform = w.recorded_on;
  if (!w.recorded_on.empty() && !baseline)
    pe.notes.push_back("recorded on '" + w.recorded_on + "', which has no platform spec: its times cannot be carried");
  // A CPU-only trace on a GPU: none of its times is a GPU's. A 300-rank gloo job's 210 ms of
  // CPU all-reduces came out 554 us on a V100 cluster's network without a word.
  if (target->device_kind == "gpu" && (!baseline || baseline->device_kind != "gpu") &&
      std::any_of(w.notes.begin(), w.notes.end(),
                  [](const std::string& n) { return n.starts_with(kCpuOnlyTraceNote); }))
    pe.notes.push_back(std::string(kCpuOnlyProjectedNote) +
                       "its measured times are a CPU's, not a GPU's: each op is modelled from its shape on " +
                       target->name +
                       " and each collective on its network, and an op without a shape is left out or carried "
                       "as measured (see its method)");
  if (ctx.host_timed)
    pe.notes.push_back(std::string(kHostTimedNote) + w.recorded_on +
                       " times the host: each call's dispatch and kernel launches, and in the calls that wait on the "
                       "GPU (PyTorch's .item(), TF1's Session.run) the GPU's time too, which no GPU model can "
                       "separate: its measured ops are carried by host speed (unscaled where a platform has no "
                       "host_speed); a GPU trace (PyTorch profiler, Nsight Systems) times the GPU");
  pe.ops.reserve(w.ops.size());
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    OpEstimate e = est::predict_op(ctx, w.ops[i], i);
    // What cuDNN's and PyTorch's kernels cost beyond the op's own time on the layouts a layer
    // list states; a measured op's time holds it already.
    if (e.method != Method::measured) {
      // A tensor-core conv on NCHW activations also pays cuDNN's layout transforms: timed as
      // the elementwise traffic they are and carried in the conv's own time, so the op list
      // stays the workload's (layout_transform.hpp).
      if (const auto t = est::layout_transform_op(w, w.ops[i], *target)) {
        const OpEstimate te = est::predict_op(ctx, *t, i);
        e.predicted_s += te.predicted_s;
        e.notes.push_back("includes " + format_significant(te.predicted_s * 1e6, 3) +
                          " us of NCHW<->NHWC layout transforms of its activations (tensor-core math on a "
                          "channels-first workload; " +
                          std::string(to_string(te.method)) + ")");
      }
      // A batch norm on NCHW activations runs one block per channel (nchw_batch_norm.hpp):
      // the two bounds combine as the root of their squares, which followed the measured
      // kernels from 64 channels (block-bound) to 2048 (memory-bound) within 5-20% at the median
      // per trace (docs/accuracy.md section 7).
      if (const auto blocks_s = est::nchw_batch_norm_block_bound_s(w, w.ops[i], *target)) {
        const double memory_s = e.predicted_s;
        e.predicted_s = std::hypot(memory_s, *blocks_s);
        e.uncertainty = std::max(e.uncertainty, 0.2);
        e.detail += "; with the channel-parallel bound, " + format_significant(e.predicted_s * 1e3, 3) + " ms";
        e.notes.push_back("cuDNN's channels-first batch norm runs one thread block per channel: " +
                          format_significant(*blocks_s * 1e3, 3) + " ms at " +
                          format_significant(est::kBatchNormPassesPerBlockCycle) +
                          " element passes per block per clock, combined with the " +
                          format_significant(memory_s * 1e3, 3) + " ms its bytes take (root of the squares)");
      }
      if (const auto sm_s = est::max_pool_sm_bound_s(w, w.ops[i], *target); sm_s && *sm_s > e.predicted_s) {
        e.notes.push_back("PyTorch's max pool is bound by its index arithmetic on the SMs, not by memory: " +
                          format_significant(*sm_s * 1e3, 3) + " ms where its bytes take " +
                          format_significant(e.predicted_s * 1e3, 3) + " ms (max_pool_bound.hpp)");
        e.detail += "; raised to the SMs' bound, " + format_significant(*sm_s * 1e3, 3) + " ms";
        e.predicted_s = *sm_s;
        e.uncertainty = std::max(e.uncertainty, 0.15);
      }
    }
    e.launch_gap_s = launch_gap_part(ctx, w.ops[i], e);
    pe.ops.push_back(std::move(e));
  }

  // A matrix op whose math the target's spec gives no rate for (fp32 GEMMs on a part that
  // states only bf16 and fp8): refused, not counted as 0 s. A chip stating only its low
  // precisions had come out 3x faster than an H100 in fp32, its FOM inflated without a word.
  {
    int64_t rateless = 0;
    const Op* first = nullptr;
    for (const auto& e : pe.ops) {
      const Op& op = w.ops[e.op_index];
      const double flops = op.flops > 0 ? op.flops : op_flops(op.kind, op.shape);
      if (e.method != Method::unestimated || !is_compute_bound(op.kind) || !(flops > 0)) continue;
      if (peak_for(*target, normalized(op.dtype)).flop_per_s > 0) continue;
      ++rateless;
      if (!first) first = &op;
    }
    if (first) {
      std::string stated;
      for (const auto& [dtype, figure] : target->peak_flop_per_s)
        if (figure.value > 0) stated += (stated.empty() ? "" : ", ") + std::string(to_string(dtype));
      throw Refusal(
          "platform '" + target->name + "' states no rate for " + std::string(to_string(normalized(first->dtype))) +
          " math" +
          (stated.empty() ? std::string(" (its spec gives no peak rate)") : " (its spec gives " + stated + ")") +
          ", and " + std::to_string(rateless) + " matrix op(s) of workload '" + w.name +
          "' compute in it (first: " + visible(first->name) + ", " + describe(first->shape) +
          "): add that peak to its spec (`fomcast platforms add`) or estimate in a precision it states "
          "(--precision, or a study problem's `precision`)");
    }
  }
  int64_t unestimated = 0;
  for (const auto& e : pe.ops)
    if (e.method == Method::unestimated) ++unestimated;
  if (unestimated)
    pe.notes.push_back(std::to_string(unestimated) +
                       " op(s) could not be estimated (no shape, costs or measured time) and are not counted");

  sum_pass(pe, w);
  return pe;
}

void sum_pass(PassEstimate& pe, const Workload& w) {
  pe.ops_s = 0;
  pe.launch_gap_s = 0;
  pe.by_method.clear();
  std::map<Method, double> sigma;
  for (const auto& e : pe.ops) {
    const double count = w.ops[e.op_index].count;
    const double t = count * e.predicted_s;
    pe.ops_s += t;
    sigma[e.method] += t * e.uncertainty;
    auto& share = pe.by_method[e.method];
    share.predicted_s += t;
    ++share.ops;
    pe.launch_gap_s += count * e.launch_gap_s;
  }
  tally_coverage(pe, w);

  pe.modelled_s = pe.ops_s;
  pe.pass_s = pe.ops_s;
  double var = 0;
  for (const auto& [m, s] : sigma) var += s * s;
  pe.ops_sigma_s = std::sqrt(var);
  pe.uncertainty = pe.pass_s > 0 ? pe.ops_sigma_s / pe.pass_s : 0;
}

void carry_measured_into_mode(PassEstimate& pe, const Workload& w, const PrecisionApplied& applied,
                              const PassEstimate& as_recorded, const Catalog& catalog) {
  const Platform* target = catalog.platform(pe.platform);
  if (!target) return;
  // The model of each re-typed op in its recorded type, without its measurement: the
  // denominator of the ratio its measurement is carried by.
  Workload unmeasured = w;
  for (std::size_t i = 0; i < unmeasured.ops.size(); ++i)
    if (applied.retyped[i]) unmeasured.ops[i].self_time_s.reset();
  const PassEstimate modelled = model_pass(unmeasured, pe.platform, catalog);
  for (auto& e : pe.ops) {
    const std::size_t i = e.op_index;
    if (i >= w.ops.size() || !applied.retyped[i] || !w.ops[i].self_time_s) continue;
    const OpEstimate& recorded = as_recorded.ops[i];
    const OpEstimate& model_then = modelled.ops[i];
    if (*w.ops[i].self_time_s == 0 && recorded.method != Method::unestimated && recorded.predicted_s == 0) {
      // Measured at 0 s (a copy that launched nothing on the device): 0 in any type. Priced
      // afresh, ten such [64]-element copies took 306 us an MI300X pass in amp-fp16.
      e.detail = "measured 0 s as recorded (no device work): 0 in any precision";
      e.method = Method::scaled;
      e.source_platform = recorded.source_platform;
      e.predicted_s = 0;
      e.launch_gap_s = 0;
      continue;
    }
    if (recorded.method == Method::unestimated || !(recorded.predicted_s > 0) || !(model_then.predicted_s > 0) ||
        !(e.predicted_s > 0))
      continue;
    const Op& op = applied.workload.ops[i];
    const DType dtype = normalized(op.dtype);
    const double flops = op.flops > 0 ? op.flops : op_flops(op.kind, op.shape);
    const double bytes = op.bytes > 0 ? op.bytes : op_bytes(op.kind, op.shape, dtype);
    const double ratio = e.predicted_s / model_then.predicted_s;
    const double floor_s = op_roofline(*target, op.kind, op.shape, dtype, flops, bytes).seconds;
    const double carried = std::max(recorded.predicted_s * ratio, floor_s);
    const std::string from = std::string(to_string(normalized(w.ops[i].dtype)));
    e.detail = std::string(to_string(recorded.method)) + " " + format_significant(recorded.predicted_s * 1e6) +
               " us as recorded (" + from + ") x " + format_significant(ratio, 3) + ", the model's " +
               std::string(to_string(dtype)) + " / " + from + " time here (" + format_significant(e.predicted_s * 1e6) +
               " / " + format_significant(model_then.predicted_s * 1e6) + " us, " + std::string(to_string(e.method)) +
               ")" + (carried > recorded.predicted_s * ratio ? "; raised to its roofline" : "");
    e.method = Method::scaled;
    e.source_platform = recorded.source_platform;
    e.predicted_s = carried;
    e.launch_gap_s = std::min(recorded.launch_gap_s, carried);
    e.uncertainty = std::max(e.uncertainty, model_then.uncertainty);
  }
}

PassEstimate mode_pass(const Workload& w, const PrecisionApplied& applied, std::string_view platform,
                       const Catalog& catalog) {
  PassEstimate pe = model_pass(applied.workload, platform, catalog);
  if (std::find(applied.retyped.begin(), applied.retyped.end(), true) == applied.retyped.end()) return pe;
  // The measured times stay visible beside the re-typed predictions.
  // Ops the mode added (autocast's casts) come after the recorded ones and have none.
  for (auto& e : pe.ops)
    if (e.op_index < w.ops.size()) e.baseline_s = w.ops[e.op_index].self_time_s;
  // The pass as recorded: calibration on the target reads its sum. A target that states no
  // rate for the recorded type (fp32 on a part that states bf16 alone) has no such pass:
  // none, not a refusal of the estimate in the precision it does state.
  std::optional<PassEstimate> as_recorded;
  try {
    as_recorded = model_pass(w, platform, catalog);
  } catch (const UsageError&) {
    as_recorded.reset();  // no pass as recorded, so no measurement to carry
  }
  if (as_recorded) {
    pe.ops_as_recorded_s = as_recorded->ops_s;
    carry_measured_into_mode(pe, w, applied, *as_recorded, catalog);
  }
  // Sums again, and the coverage: a re-typed op's time is predicted, not its measurement.
  sum_pass(pe, applied.workload);
  return pe;
}

}  // namespace est

PassEstimate estimate_pass(const Workload& w, std::string_view platform, const Catalog& catalog,
                           const std::vector<MeasuredPass>& measured) {
  return estimate_pass(w, platform, catalog, measured, PrecisionMode::recorded);
}

PassEstimate estimate_pass(const Workload& w, std::string_view platform, const Catalog& catalog,
                           const std::vector<MeasuredPass>& measured, PrecisionMode precision) {
  const PrecisionApplied applied = apply_precision(w, precision);
  PassEstimate pe = est::mode_pass(w, applied, platform, catalog);
  pe.precision = precision;
  pe.recorded_precision = recorded_precision(w);
  pe.retyped_ops = static_cast<std::size_t>(
      std::count(applied.retyped.begin(), applied.retyped.begin() + static_cast<std::ptrdiff_t>(w.ops.size()), true));
  if (precision != PrecisionMode::recorded) pe.notes.insert(pe.notes.end(), applied.notes.begin(), applied.notes.end());
  // Calibration models every other platform at the precision the measurement was taken in:
  // as recorded, or the mode's where a study problem's measured time ran in it.
  est::calibrate_pass(pe, w, applied, catalog, measured);
  if (pe.ops_s > 0) pe.launch_gap_s *= pe.modelled_s / pe.ops_s;  // as the ops were carried
  return pe;
}

PassEstimate estimate_pass(const Workload& w, std::string_view platform, const Catalog& catalog) {
  return estimate_pass(w, platform, catalog, {});
}

StoodInRate stood_in_rate(const PassEstimate& pe, const Workload& w) {
  StoodInRate out;
  for (const auto& e : pe.ops) {
    if (e.rate_stood_in == DType::unknown || e.op_index >= w.ops.size()) continue;
    const Op& op = w.ops[e.op_index];
    ++out.ops;
    out.pass_s += op.count * e.predicted_s;
    out.asked = op.dtype == DType::unknown ? DType::fp32 : op.dtype;  // as the estimator reads it
    out.with = e.rate_stood_in;
  }
  return out;
}

namespace {
bool epoch_size_known(const Workload& w) { return w.samples_per_epoch > 0 && w.batch_size > 0; }
}  // namespace

int64_t passes_per_epoch(const Workload& w, std::vector<std::string>* assumptions) {
  if (epoch_size_known(w)) return (w.samples_per_epoch + w.batch_size - 1) / w.batch_size;
  if (w.passes > 0) {
    if (assumptions)
      assumptions->push_back("samples per epoch or batch size unknown: an epoch is taken as the " +
                             std::to_string(w.passes) + " pass(es) the trace holds");
    return w.passes;
  }
  if (assumptions) assumptions->push_back("samples per epoch or batch size unknown: an epoch is taken as one pass");
  return 1;
}

Workload with_epoch_size(Workload w, std::optional<int64_t> batch_size, std::optional<int64_t> samples_per_epoch,
                         const ModelExpander& expand) {
  if (!batch_size && !samples_per_epoch) return w;
  if (batch_size && w.origin == "model" && *batch_size != w.batch_size) {
    // Its GEMM rows and activations are the batch: only a new expansion has the new ops.
    if (!expand)
      throw UsageError("workload '" + w.name + "' is a model expanded at batch " + std::to_string(w.batch_size) +
                       ": another batch needs its layer list expanded again, which this caller cannot do");
    w = expand(w, *batch_size);
  }
  if (batch_size) w.batch_size = *batch_size;
  if (samples_per_epoch) w.samples_per_epoch = *samples_per_epoch;
  if (w.samples_per_epoch > 0 && w.batch_size <= 0)
    throw UsageError("workload '" + w.name + "' has no batch size to divide " + std::to_string(w.samples_per_epoch) +
                     " samples per epoch by: give the batch size too");
  w.notes.push_back("epoch size given for this estimate: batch " + std::to_string(w.batch_size) + ", " +
                    (w.samples_per_epoch > 0 ? std::to_string(w.samples_per_epoch) : std::string("unknown")) +
                    " samples per epoch");
  return w;
}

int64_t epochs_per_run(const Workload& w, std::optional<int64_t> given, std::vector<std::string>* assumptions) {
  if (given) return *given;
  if (w.epochs > 0) return w.epochs;
  if (assumptions) assumptions->push_back("epochs unknown: one epoch per run (give --epochs)");
  return 1;
}

RunEstimate roll_up(const Workload& w, PassEstimate pass, const RunOptions& opts) {
  RunEstimate r;
  r.passes_per_epoch = passes_per_epoch(w, &r.assumptions);
  r.epoch_size_known = epoch_size_known(w);
  r.epochs = epochs_per_run(w, opts.epochs, &r.assumptions);
  r.epoch_s = static_cast<double>(r.passes_per_epoch) * pass.pass_s;
  r.run_s = static_cast<double>(r.epochs) * r.epoch_s;
  r.nodes = opts.nodes;
  // A job's trace of several ranks: one run is its ranks' devices ("on 1 node(s)" for DLRM's 8).
  r.devices_per_run = std::max<int64_t>(1, w.ranks);
  r.samples_per_pass = std::max<int64_t>(0, w.batch_size);
  if (!(r.run_s > 0))
    throw InputError(w.name, "no operation of the workload could be estimated on " + pass.platform +
                                 ", so it has no time per run (see `fomcast estimate --workload " + w.name + "`)");
  r.units_per_day = units_per_day(r.run_s, opts.nodes, opts.nodes_per_unit);
  r.pass = std::move(pass);
  return r;
}

RunEstimate estimate_run(const Workload& w, std::string_view platform, const Catalog& catalog, const RunOptions& opts) {
  return roll_up(w, estimate_pass(w, platform, catalog, opts.measured, opts.precision), opts);
}

}  // namespace fomcast
