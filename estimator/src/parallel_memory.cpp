// Per-device memory of a parallel layout (parallel.hpp): weights, gradients and optimizer
// state of the device's share of the parameters (ZeRO-1 shards the optimizer state over the
// data-parallel ranks, ZeRO-2 the gradients too, ZeRO-3 the weights too), and the
// activations of the micro-batches a stage holds at once under 1F1B (stage s: min(P - s, M)),
// or with recomputation only each checkpointed layer's input plus one such layer's full
// activations (parallel_layers.hpp says which layers are checkpointed). Each stage holds its
// own layers (parallel.cpp's cut), and a stage with a tied LM head but not the word embedding
// a copy of the table; the fullest stage is the one reported. A model's layers
// say what each keeps; a trace's do not, and the model's total is shared out instead.
#include <algorithm>

#include "fomcast/format.hpp"
#include "fomcast/parallel.hpp"
#include "parallel_layers.hpp"

namespace fomcast {

DeviceMemory device_memory(const Workload& w, const std::vector<LayerCost>& layers, const Platform& platform,
                           const ParallelLayout& layout, std::vector<std::size_t> starts) {
  const double D = static_cast<double>(layout.dp), T = static_cast<double>(layout.tp);
  const auto P = layout.pp, M = layout.micro();
  const ModelStats stats = w.model.value_or(ModelStats{});
  double total_params = 0, total_out = 0;
  for (const auto& l : layers) total_params += l.params, total_out += l.output_elems;
  auto per = [&](double bytes) { return total_params > 0 ? bytes / total_params : 0.0; };
  const double vocabulary = vocabulary_params(layers);
  auto split = [&](const LayerCost& l) { return tp_rank_share(l, layout.tp, vocabulary); };
  // Without the stages' cut (a caller that has none), every stage is taken as 1/P of the
  // parameters and activations.
  const bool cut = starts.size() == static_cast<std::size_t>(P) + 1 && starts.back() == layers.size();
  if (!cut) starts = {0, layers.size()};
  const double share = cut ? 1.0 : 1.0 / static_cast<double>(P);
  const bool trace = !w.model;
  const double b = static_cast<double>(w.batch_size), eb = activation_bytes_per_elem(w);
  const bool per_layer = std::any_of(layers.begin(), layers.end(),
                                     [](const LayerCost& l) { return l.kept_elems > 0 || l.kept_mask_bytes > 0; });
  const bool has_blocks = std::any_of(layers.begin(), layers.end(), is_block);
  // Half weights beside an fp32 update: half training's fp32 master copy is optimizer state
  // (precision.hpp's model_stats_in).
  const bool master = stats.params > 0 && stats.weights_bytes < 4.0 * static_cast<double>(stats.params) &&
                      std::any_of(w.ops.begin(), w.ops.end(),
                                  [](const Op& op) { return op.kind == OpKind::optimizer && op.dtype == DType::fp32; });
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

  DeviceMemory m;
  bool recompute_helped = !layout.recompute;
  for (std::size_t s = 0; s + 1 < starts.size(); ++s) {
    DeviceMemory st;
    const double in_flight =
        cut ? static_cast<double>(std::min(P - static_cast<int64_t>(s), M)) : static_cast<double>(std::min(P, M));
    double params = 0, out = 0, largest_layer_share = 0;
    double plain = 0, held = 0, largest = 0;  // per sample (and micro-batch in flight)
    for (std::size_t i = starts[s]; i < starts[s + 1]; ++i) {
      const LayerCost& l = layers[i];
      params += l.params * split(l);
      out += l.output_elems;
      if (total_out > 0) largest_layer_share = std::max(largest_layer_share, l.output_elems / total_out);
      const double keeps = on_rank(l);
      plain += keeps;
      if (recomputed(layout, l, has_blocks)) {
        // Its input, the layer before's output (the same shape in a block stack), and never
        // more than the layer keeps anyway (a convolution keeps only its input).
        held += std::min(keeps, l.output_elems * input_split(l) * eb);
        largest = std::max(largest, keeps);
      } else {
        held += keeps;
      }
    }
    // The word embedding's copy beside a tied LM head on another stage, split like the table.
    if (cut) params += tied_copy_params(layers, starts[s], starts[s + 1], vocabulary) / T;
    params *= share;
    // A trace has no model description: weights and gradients in the GEMMs' element type;
    // its optimizer state and activations are not known and not counted (said in `detail`).
    st.weights_bytes = trace ? params * eb : params * per(stats.weights_bytes);
    st.gradients_bytes = trace ? st.weights_bytes : params * per(stats.gradients_bytes);
    st.optimizer_bytes = params * per(stats.optimizer_bytes);
    if (layout.zero_stage >= 1) st.optimizer_bytes /= D;
    if (layout.zero_stage >= 2) st.gradients_bytes /= D;
    if (layout.zero_stage >= 3) st.weights_bytes /= D;
    if (per_layer) {
      // Recomputation keeps checkpoints and one live layer, which can be more than the layers
      // keep without it (every layer of a model without transformer blocks is checkpointed,
      // and a convolution keeps only its input anyway): said in `detail`.
      const double kept_per_sample = held * share * in_flight + largest;
      st.activations_bytes = kept_per_sample * b;
      recompute_helped = recompute_helped || kept_per_sample < plain * share * in_flight;
    } else {
      // A trace's layers (no per-layer figure): the model's total, or its largest layer's share.
      const double stage_acts =
          stats.activations_bytes * (cut && total_out > 0 ? out / total_out : share) / (layout.tp > 1 ? T : 1);
      st.activations_bytes = layout.recompute
                                 ? b * out * share * eb * in_flight + stats.activations_bytes * largest_layer_share
                                 : stage_acts * in_flight;
    }
    st.total_bytes = st.weights_bytes + st.gradients_bytes + st.optimizer_bytes + st.activations_bytes;
    if (s == 0 || st.total_bytes > m.total_bytes) {
      m = st;
      m.stage = static_cast<int64_t>(s);
      m.in_flight = in_flight;
    }
  }
  m.capacity_bytes = platform.mem_bytes ? platform.mem_bytes->value : 0;
  m.fits = !(m.capacity_bytes > 0) || m.total_bytes <= m.capacity_bytes;
  m.recompute_helped = recompute_helped;
  m.detail = std::string(cut && P > 1
                             ? "the fullest stage, " + std::to_string(m.stage) + " of 0-" + std::to_string(P - 1) + ": "
                             : "") +
             "weights " + format_gib(m.weights_bytes) + ", gradients " + format_gib(m.gradients_bytes) +
             ", optimizer state " + format_gib(m.optimizer_bytes) + " (" +
             (master ? "fp32 master weights and states, " : "") + "ZeRO-" + std::to_string(layout.zero_stage) +
             "), activations " + format_gib(m.activations_bytes) + " (" + format_significant(m.in_flight) +
             " micro-batch" + (m.in_flight == 1 ? "" : "es") + " in flight" +
             (layout.recompute && recompute_helped ? ", recomputed: layer inputs kept"
              : layout.recompute ? ", recomputed: every layer's input kept, no less than without (no transformer "
                                   "block to checkpoint)"
              : layout.recompute_attention ? ", attention's core recomputed"
                                           : "") +
             (layout.sequence_parallel && layout.tp > 1 ? ", sequence parallel" : "") + ")" +
             (trace ? "; a trace: optimizer state and kept activations unknown, not counted (a lower bound)" : "");
  return m;
}

}  // namespace fomcast
