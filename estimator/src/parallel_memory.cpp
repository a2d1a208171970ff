// Per-device memory of a parallel layout (parallel.hpp): weights, gradients and optimizer
// state of the device's share of the parameters (ZeRO-1 shards the optimizer state over the
// data-parallel ranks, ZeRO-2 the gradients too, ZeRO-3 the weights too), and the
// activations of the micro-batches a stage holds at once under 1F1B (stage s: min(P - s, M);
// the first stage, the most, is the one reported), or with recomputation only each
// checkpointed layer's input plus one such layer's full activations (parallel_layers.hpp says
// which layers are checkpointed). A model's layers say what each keeps; a trace's do not,
// and the model's total is shared out instead.
#include <algorithm>

#include "fomcast/format.hpp"
#include "fomcast/parallel.hpp"
#include "parallel_layers.hpp"

namespace fomcast {

DeviceMemory device_memory(const Workload& w, const std::vector<LayerCost>& layers, const Platform& platform,
                           const ParallelLayout& layout) {
  DeviceMemory m;
  const double D = static_cast<double>(layout.dp), T = static_cast<double>(layout.tp);
  const auto P = layout.pp, M = layout.micro();
  const ModelStats stats = w.model.value_or(ModelStats{});
  double total_params = 0, total_out = 0;
  for (const auto& l : layers) total_params += l.params, total_out += l.output_elems;
  auto per = [&](double bytes) { return total_params > 0 ? bytes / total_params : 0.0; };
  // Stage 0 holds the most activations; its layers as parallel.cpp cuts them are not known
  // here, so its share is taken as 1/P of the parameters and activations (equal stages).
  double params = 0, largest_layer_share = 0;
  for (const auto& l : layers) {
    params += l.params * (layout.tp > 1 && split_by_tp(l) ? 1 / T : 1);
    if (total_out > 0) largest_layer_share = std::max(largest_layer_share, l.output_elems / total_out);
  }
  params /= static_cast<double>(P);
  // A trace has no model description: weights and gradients in the GEMMs' element type;
  // its optimizer state and activations are not known and not counted (said in `detail`).
  const bool trace = !w.model;
  m.weights_bytes = trace ? params * activation_bytes_per_elem(w) : params * per(stats.weights_bytes);
  m.gradients_bytes = trace ? m.weights_bytes : params * per(stats.gradients_bytes);
  m.optimizer_bytes = params * per(stats.optimizer_bytes);
  if (layout.zero_stage >= 1) m.optimizer_bytes /= D;
  if (layout.zero_stage >= 2) m.gradients_bytes /= D;
  if (layout.zero_stage >= 3) m.weights_bytes /= D;
  const double in_flight = static_cast<double>(std::min(P, M));
  const bool per_layer = std::any_of(layers.begin(), layers.end(),
                                     [](const LayerCost& l) { return l.kept_elems > 0 || l.kept_mask_bytes > 0; });
  if (per_layer) {
    // Each layer's kept activations, split T ways where the layout splits the layer, in the
    // GEMMs' element type (dropout masks in bytes); stage 0's share of them.
    const double b = static_cast<double>(w.batch_size), eb = activation_bytes_per_elem(w);
    const bool has_blocks = std::any_of(layers.begin(), layers.end(), is_block);
    auto split = [&](const LayerCost& l) { return layout.tp > 1 && split_by_tp(l) ? 1 / T : 1.0; };
    // Sequence parallel keeps a block's input split over the sequence too; selective
    // recomputation drops attention's core.
    const bool selective = recomputes_attention_only(layout);
    auto input_split = [&](const LayerCost& l) { return layout.sequence_parallel && is_block(l) ? split(l) : 1.0; };
    // A layer's bytes on one rank, per sample: what tensor parallel splits, divided by T, and
    // what it leaves whole (a block's norms, dropouts and residuals), split only by sequence
    // parallel.
    auto on_rank = [&](const LayerCost& l) {
      const bool drop_core = selective && is_block(l);
      const double kept = (l.kept_elems - (drop_core ? l.kept_attention_elems : 0)) * eb + l.kept_mask_bytes -
                          (drop_core ? l.kept_attention_mask_bytes : 0);
      const double replicated = l.kept_replicated_elems * eb + l.kept_replicated_mask_bytes;
      return (kept - replicated) * split(l) + replicated * input_split(l);
    };
    double held = 0, largest = 0;  // per micro-batch in flight; one checkpointed layer at a time
    for (const auto& l : layers) {
      if (recomputed(layout, l, has_blocks)) {
        // Its input, the layer before's output: the same shape in a block stack.
        held += l.output_elems * input_split(l) * eb;
        largest = std::max(largest, on_rank(l));
      } else {
        held += on_rank(l);
      }
    }
    m.activations_bytes = (held / static_cast<double>(P) * in_flight + largest) * b;
  } else {
    // A trace's layers (no per-layer figure): the model's total, or its largest layer's share.
    const double stage_acts = stats.activations_bytes / static_cast<double>(P) / (layout.tp > 1 ? T : 1);
    if (layout.recompute) {
      const double inputs =
          static_cast<double>(w.batch_size) * total_out / static_cast<double>(P) * activation_bytes_per_elem(w);
      m.activations_bytes = inputs * in_flight + stats.activations_bytes * largest_layer_share;
    } else {
      m.activations_bytes = stage_acts * in_flight;
    }
  }
  m.total_bytes = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes;
  m.capacity_bytes = platform.mem_bytes ? platform.mem_bytes->value : 0;
  m.fits = !(m.capacity_bytes > 0) || m.total_bytes <= m.capacity_bytes;
  m.detail = "weights " + format_gib(m.weights_bytes) + ", gradients " + format_gib(m.gradients_bytes) +
             ", optimizer state " + format_gib(m.optimizer_bytes) + " (ZeRO-" + std::to_string(layout.zero_stage) +
             "), activations " + format_gib(m.activations_bytes) + " (" + format_significant(in_flight) +
             " micro-batch" + (in_flight == 1 ? "" : "es") + " in flight" +
             (layout.recompute             ? ", recomputed: layer inputs kept"
              : layout.recompute_attention ? ", attention's core recomputed"
                                           : "") +
             (layout.sequence_parallel ? ", sequence parallel" : "") + ")" +
             (trace ? "; a trace: optimizer state and kept activations unknown, not counted (a lower bound)" : "");
  return m;
}

}  // namespace fomcast
