// run_parallel (parallel.hpp): from a stored workload and a requested layout to the step,
// the memory check and the roll-up, as `estimate --parallel`, `whatif` and `scaling` use it.
#include <algorithm>
#include <variant>

#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/parallel.hpp"
#include "fomcast/precision.hpp"
#include "parallel_layers.hpp"
#include "similarity.hpp"

namespace fomcast {
namespace {

// The refusal of a layout, or of one device, whose memory does not fit: the figures, then the
// remedies they allow. Weights, gradients and optimizer state that fill the device alone are
// answered only by spreading them; otherwise the largest micro-batch that fits (activations
// grow with it), recomputation, and half precision where activations are kept in 4 bytes. A
// study's problem gets its own field names, a command line the flags.
[[noreturn]] void refuse_unfit(const std::string& head, const DeviceMemory& m, int64_t batch, const Workload& run,
                               const ParallelLayout& l, bool layout_given, std::string_view flag, const Platform& p,
                               int64_t global_batch = 0) {
  const bool cli = flag.starts_with("--");
  auto name = [&](const char* option, const char* field) { return std::string(cli ? option : field); };
  const double fixed = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes;
  std::vector<std::string> remedies;
  const std::string zero = cli ? "--zero" : "zero_stage";
  const std::string spread =
      layout_given ? "more tp or pp" + (l.dp > 1 && l.zero_stage < 3 ? ", a higher ZeRO stage (" + zero + ")" : "")
                   : "a layout that spreads it (" + name("--parallel", "parallel") + " with tp or pp, or dp with " +
                         zero + " 3)";
  std::string why;
  if (fixed >= m.capacity_bytes) {
    why = "; its weights, gradients and optimizer state alone take " + format_gib(fixed) + ": ";
    remedies.push_back(spread);
  } else {
    why = "; ";
    remedies.push_back(spread);
    const double per_sample = batch > 0 ? m.activations_bytes / static_cast<double>(batch) : 0;
    if (per_sample > 0) {
      const auto most = static_cast<int64_t>((m.capacity_bytes - fixed) / per_sample);
      // With the global batch given, the micro-batch is what it leaves each device and
      // micro-batch: more micro-batches (gradient accumulation) make it smaller.
      int64_t steps = most >= 1 && global_batch > 0 ? (global_batch + l.dp * most - 1) / (l.dp * most) : 0;
      while (steps > 0 && global_batch % (l.dp * steps) != 0 && l.dp * steps <= global_batch) ++steps;
      if (steps > 0 && l.dp * steps > global_batch) steps = 0;
      const std::string how = steps > 0 ? name("--micro-batches", "micro_batches") + " " + std::to_string(steps) +
                                              ": the global batch " + std::to_string(global_batch) +
                                              " over dp x micro-batches"
                                        : name(layout_given ? "--batch-per-gpu" : "--batch", "batch_size");
      remedies.push_back(most < 1 ? std::string("no micro-batch fits as it is")
                                  : "a micro-batch of at most about " + std::to_string(most) + " (" + how + ")");
    }
    if (!l.recompute)
      remedies.push_back("recomputation (" +
                         (layout_given ? name("--recompute", "recompute")
                                       : name("--parallel dp=1 --recompute", "parallel dp=1 with recompute")) +
                         ")");
    // The half type the part has units for: bf16 on a V100 runs at its fp32 rate.
    const bool bf16 = est::peak_for(p, DType::bf16).dtype == DType::bf16;
    const bool fp16 = est::peak_for(p, DType::fp16).dtype == DType::fp16;
    if (activation_bytes_per_elem(run) >= 4)
      remedies.push_back("half precision (" + name("--precision", "precision") +
                         (bf16 || !fp16 ? " bf16 or amp-bf16" : " fp16 or amp-fp16") +
                         ": activations kept in 2 bytes)");
  }
  std::string list;
  for (std::size_t i = 0; i < remedies.size(); ++i)
    list += (i == 0 ? "" : i + 1 == remedies.size() ? " or " : ", ") + remedies[i];
  throw Refusal(head + ": " + format_gib(m.total_bytes) + (layout_given ? " per device" : "") + " (" + m.detail +
                ") > " + format_gib(m.capacity_bytes) + why + "use " + list);
}

}  // namespace

std::optional<int64_t> requested_micro_batch(const ParallelRequest& req, std::string_view flag) {
  const ParallelLayout& l = req.layout;
  if (req.global_batch > 0) {
    const int64_t per_step = l.dp * l.micro();
    if (req.global_batch % per_step != 0)
      throw UsageError(std::string(flag == "--parallel" ? "--global-batch " : std::string(flag) + ": global_batch ") +
                       std::to_string(req.global_batch) + " is not a multiple of dp x micro-batches (" +
                       std::to_string(l.dp) + " x " + std::to_string(l.micro()) + ")");
    return req.global_batch / per_step;
  }
  if (req.batch_per_gpu > 0) return req.batch_per_gpu;
  return std::nullopt;
}

ParallelRun run_parallel(const Workload& stored, std::string_view platform, const Catalog& catalog,
                         const ParallelRequest& req, const ModelExpander& expand, const LayerReader& layers_of,
                         const RunOptions& opts, std::string_view flag) {
  const std::string f(flag);
  const Platform* p = catalog.platform(platform);
  if (!p) throw UsageError("unknown platform '" + std::string(platform) + "' (see `fomcast platforms`)");
  const ParallelLayout& l = req.layout;
  // A layout spreads one device's work; a job's trace already holds its ranks' collectives,
  // which a layout would count as compute and add its own gradient exchange to.
  const bool job_collectives = std::any_of(stored.ops.begin(), stored.ops.end(), [](const Op& op) {
    return op.kind == OpKind::collective && std::holds_alternative<CollectiveShape>(op.shape) &&
           std::get<CollectiveShape>(op.shape).ranks > 1;
  });
  if (stored.ranks > 1 || job_collectives)
    throw UsageError(f + ": workload '" + stored.name + "' is a trace of a " +
                     (stored.ranks > 1 ? std::to_string(stored.ranks) + "-rank " : std::string("distributed ")) +
                     "job: its collectives are among its operations already; estimate it without a layout (its "
                     "collectives are timed on the target by the collective model)");
  const int64_t b = requested_micro_batch(req, flag).value_or(stored.batch_size);
  if (b <= 0) throw UsageError(f + ": workload '" + stored.name + "' has no batch size: give --batch-per-gpu");
  // A trace's operations are its recorded micro-batch's: no layer list to expand at another.
  if (stored.origin != "model" && stored.batch_size > 0 && b != stored.batch_size)
    throw UsageError(f + ": workload '" + stored.name + "' is a trace recorded at a batch of " +
                     std::to_string(stored.batch_size) + " per device: its operations cannot be re-sized to " +
                     std::to_string(b) + " (--global-batch / --batch-per-gpu must give " +
                     std::to_string(stored.batch_size) + " per device and micro-batch)");
  ParallelRun out;
  if (b == stored.batch_size) {
    out.micro = stored;
  } else {
    // The model expanded at the micro-batch the flags give: its refusal is theirs to answer
    // for, not the shipped model file's ("data/models/gpt2-small.json: batch_size: ...").
    try {
      out.micro = with_epoch_size(stored, b, std::nullopt, expand);
    } catch (const InputError& e) {
      const bool cli = f == "--parallel", global = req.global_batch > 0;
      const std::string given = std::string(global ? (cli ? "--global-batch " : "global_batch ")
                                                   : (cli ? "--batch-per-gpu " : "batch_size ")) +
                                std::to_string(global ? req.global_batch : b);
      throw UsageError(given + ": a micro-batch of " + std::to_string(b) + " per device, which workload '" +
                       stored.name + "' cannot be expanded at: " + e.message);
    }
  }
  const std::vector<LayerCost> layers = layers_of ? layers_of(stored) : std::vector<LayerCost>{};
  const PassEstimate pass = estimate_pass(out.micro, platform, catalog, opts.measured, opts.precision);
  // The ops as estimated (re-typed by --precision): activations travel in their type.
  out.micro = apply_precision(out.micro, opts.precision).workload;
  out.parallel = estimate_parallel(out.micro, pass, layers, *p, catalog, l, flag);
  const DeviceMemory& m = out.parallel.memory;
  if (!m.fits)
    refuse_unfit(f + ": workload '" + stored.name + "' does not fit on " + p->name +
                     " with dp=" + std::to_string(l.dp) + ",tp=" + std::to_string(l.tp) +
                     ",pp=" + std::to_string(l.pp) + " at a micro-batch of " + std::to_string(b),
                 m, b, out.micro, l, true, flag, *p, req.global_batch);
  // The count is of the model's tensors only: the CUDA context, library workspaces (cuBLAS,
  // cuDNN) and the allocator's fragmentation come on top, commonly 1-2 GiB a device.
  if (m.capacity_bytes > 0 && m.total_bytes > 0.9 * m.capacity_bytes)
    out.parallel.notes.push_back("memory: " + format_gib(m.total_bytes) + " of " + format_gib(m.capacity_bytes) +
                                 " per device (" + format_significant(100 * m.total_bytes / m.capacity_bytes, 3) +
                                 "%) counts the model's tensors only; the CUDA context, library workspaces and the "
                                 "allocator's fragmentation, commonly 1-2 GiB, may not fit beside them");
  Workload global = out.micro;
  global.batch_size = out.parallel.global_batch;
  PassEstimate step = pass;
  step.pass_s = out.parallel.step_s;
  // The step's own split: the one-device pass's modelled time is not part of it (the
  // headline read "modelled 292 ms (151%)" of a 194 ms step).
  step.residual_s = out.parallel.residual_s;
  step.modelled_s = out.parallel.step_s - out.parallel.residual_s;
  step.residual_share = step.pass_s > 0 ? step.residual_s / step.pass_s : 0;
  // The residual rule's bounds move the once-per-step residual: shifted with the step.
  const double shift = out.parallel.step_s - pass.pass_s;
  for (double* b : {&step.pass_low_s, &step.pass_high_s, &step.pass_unscaled_s, &step.pass_scaled_s}) *b += shift;
  step.notes.push_back("many devices: " + std::to_string(out.parallel.devices) +
                       " devices (dp=" + std::to_string(l.dp) + ", tp=" + std::to_string(l.tp) +
                       ", pp=" + std::to_string(l.pp) + "); the operations are one micro-batch of " +
                       std::to_string(b) + " on one device; pass_s is the step of the global batch " +
                       std::to_string(out.parallel.global_batch));
  out.run = roll_up(global, std::move(step), opts);
  out.run.devices_per_run = out.parallel.devices;
  return out;
}

void require_fits_one_device(const Workload& w, const Platform& p, const LayerReader& layers_of,
                             PrecisionMode precision, const std::vector<MeasuredPass>& measured,
                             std::string_view flag) {
  if (!w.model || !layers_of || !p.mem_bytes) return;
  if (std::any_of(measured.begin(), measured.end(), [&](const MeasuredPass& m) { return m.platform == p.name; }))
    return;
  const Workload run = apply_precision(w, precision).workload;
  // The layers come from the model's file; a stored model estimated at its own batch needs
  // no file, and then the stored totals (at the recorded precision) stand in.
  std::vector<LayerCost> layers;
  try {
    layers = layers_of(w);
  } catch (const std::exception&) {
    layers.clear();
  }
  DeviceMemory m;
  if (!layers.empty()) {
    m = device_memory(run, layers, p, ParallelLayout{});
  } else {
    const ModelStats& s = *run.model;  // in the precision run
    m.weights_bytes = s.weights_bytes, m.gradients_bytes = s.gradients_bytes;
    m.optimizer_bytes = s.optimizer_bytes, m.activations_bytes = s.activations_bytes;
    m.total_bytes = s.weights_bytes + s.gradients_bytes + s.optimizer_bytes + s.activations_bytes;
    m.capacity_bytes = p.mem_bytes->value;
    m.fits = m.total_bytes <= m.capacity_bytes;
    m.detail = "weights " + format_gib(m.weights_bytes) + ", gradients " + format_gib(m.gradients_bytes) +
               ", optimizer state " + format_gib(m.optimizer_bytes) + ", activations " +
               format_gib(m.activations_bytes) + ", as stored";
  }
  if (m.fits) return;
  refuse_unfit(std::string(flag) + ": workload '" + w.name + "' does not fit on one " + p.name + " at a batch of " +
                   std::to_string(w.batch_size),
               m, w.batch_size, run, ParallelLayout{}, false, flag, p);
}

}  // namespace fomcast

namespace fomcast {

ParallelWhatIf what_if_parallel(const Workload& stored, std::string_view platform, const Catalog& catalog,
                                const ScaleSpec& spec, const ParallelRequest& req, const ModelExpander& expand,
                                const LayerReader& layers_of, const RunOptions& opts) {
  ParallelWhatIf out;
  const ParallelRun ref = run_parallel(stored, platform, catalog, req, expand, layers_of, opts);
  out.single = what_if(ref.micro, platform, catalog, spec, opts.measured, opts.precision);
  const std::vector<LayerCost> layers = layers_of ? layers_of(stored) : std::vector<LayerCost>{};
  // The reference, with the network timed by the model alone where net_bw is scaled, so
  // that both sides use the same method.
  Platform base = *catalog.platform(platform);
  Platform hyp = base;
  // kind:collective speeds up the layout's collectives too: as net_bw does, by bandwidth.
  const auto collective = spec.kinds.find(OpKind::collective);
  const double net_factor = spec.net_bw * (collective != spec.kinds.end() ? collective->second : 1.0);
  const bool net = net_factor != 1;
  if (net) {
    base.name += " (network modelled)";
    hyp.name += " (what if)";
    for (auto* f : {&hyp.net_bw_bytes_per_s, &hyp.intra_node_bw_bytes_per_s, &hyp.nic_bw_bytes_per_s})
      if (*f) (*f)->value *= net_factor;
  }
  const PassEstimate& pass = out.single.reference;
  out.reference = estimate_parallel(ref.micro, pass, layers, base, catalog, req.layout);
  PassEstimate scaled = pass;
  const double ops_scale = pass.ops_s > 0 ? pass.modelled_s / pass.ops_s : 1;
  double ops_s = 0;
  for (auto& e : scaled.ops) {
    const Op& op = ref.micro.ops[e.op_index];
    const std::string kind(to_string(op.kind));
    for (const auto& c : out.single.classes)
      if (c.name == kind && c.reference_s > 0) e.predicted_s *= c.scaled_s / c.reference_s;
    ops_s += op.count * e.predicted_s;
  }
  scaled.ops_s = ops_s;
  scaled.modelled_s = ops_s * ops_scale;
  scaled.residual_s = out.single.residual_s;
  scaled.pass_s = scaled.modelled_s + scaled.residual_s;
  out.scaled = estimate_parallel(ref.micro, scaled, layers, hyp, catalog, req.layout);
  if (collective != spec.kinds.end())
    out.scaled.notes.push_back("kind:collective=" + format_significant(collective->second) +
                               " scales the layout's collectives as net_bw does: the network's bandwidth");
  out.speedup = out.scaled.step_s > 0 ? out.reference.step_s / out.scaled.step_s : 0;
  return out;
}

}  // namespace fomcast
