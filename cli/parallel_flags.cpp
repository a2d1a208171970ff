// The many-device flags (parallel_flags.hpp).
#include "parallel_flags.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

#include "context.hpp"
#include "fomcast/error.hpp"
#include "fomcast/input_checks.hpp"
#include "fomcast/layers.hpp"

namespace fomcast::cli {

void add_parallel_flags(CLI::App& cmd, ParallelFlags& f, bool with_layout) {
  if (with_layout)
    cmd.add_option("--parallel", f.parallel,
                   "Train on dp x tp x pp devices: data, tensor (Megatron) and pipeline (1F1B) parallel, e.g. "
                   "dp=8,tp=2,pp=2")
        ->check(
            [](const std::string& v) { return v.empty() ? std::string("an empty layout: give dp=D,tp=T,pp=P") : ""; });
  cmd.add_option("--micro-batches", f.micro_batches, "Micro-batches per step and pipeline (default: pp)")
      ->transform(in_range(ranges::micro_batches));
  cmd.add_option("--gpus-per-node", f.gpus_per_node, "Devices per node (default: the platform's devices_per_node)")
      ->transform(in_range({1, 1e6, true, true}));
  auto* gb = cmd.add_option("--global-batch", f.global_batch, "Samples per step over all devices")
                 ->transform(in_range({1, 1e9, true, true}));
  // The layer expansion's largest batch (2^24 samples per pass).
  cmd.add_option("--batch-per-gpu", f.batch_per_gpu, "Samples per micro-batch per device (default: the workload's)")
      ->transform(in_range({1, 16777216, true, true}))
      ->excludes(gb);
  cmd.add_option("--zero", f.zero, "ZeRO stage of the data-parallel optimizer: 0 (DDP), 1, 2 or 3")
      ->transform(in_range({0, 3, false, true}));
  cmd.add_option("--bucket-mb", f.bucket_mb, "DDP gradient bucket in MiB (default 25)")
      ->transform(in_range({0.001, 1e6, true, false}));
  auto* full = cmd.add_flag("--recompute", f.recompute,
                            "Activation recomputation: each transformer block keeps its input and runs its forward "
                            "again in the backward (Megatron's --recompute-granularity full)");
  cmd.add_flag("--recompute-attention", f.recompute_attention,
               "Selective recomputation: only attention's core (scores, softmax, dropout, context) is dropped and run "
               "again (Megatron's --recompute-granularity selective)")
      ->excludes(full);
  cmd.add_flag("--sequence-parallel", f.sequence_parallel,
               "Megatron's sequence parallelism with tp: layer norms, dropouts and residual adds split over the "
               "sequence, each all-reduce a reduce-scatter and an all-gather");
}

std::optional<ParallelRequest> parallel_request(const ParallelFlags& f, const std::string& layout_text) {
  const bool other = f.micro_batches || f.gpus_per_node || f.global_batch || f.batch_per_gpu || f.zero || f.recompute ||
                     f.recompute_attention || f.sequence_parallel || f.bucket_mb != 25;
  if (layout_text.empty()) {
    if (other)
      throw UsageError(
          "--micro-batches, --gpus-per-node, --global-batch, --batch-per-gpu, --zero, --bucket-mb, --recompute, "
          "--recompute-attention and --sequence-parallel need --parallel");
    return std::nullopt;
  }
  ParallelRequest r;
  r.layout = parse_parallel(layout_text);
  r.layout.micro_batches = f.micro_batches;
  r.layout.gpus_per_node = f.gpus_per_node;
  r.layout.zero_stage = f.zero;
  r.layout.bucket_bytes = f.bucket_mb * 1024 * 1024;
  r.layout.recompute = f.recompute;
  r.layout.recompute_attention = f.recompute_attention;
  r.layout.sequence_parallel = f.sequence_parallel;
  r.global_batch = f.global_batch;
  r.batch_per_gpu = f.batch_per_gpu;
  return r;
}

std::vector<LayerCost> model_layer_costs(const Workload& w) {
  if (w.origin != "model") return {};
  std::vector<LayerCost> out;
  const std::vector<LayerSummary> layers = stored_model_layers(w);
  auto type_of = [&](const std::string& name) {
    const auto it = std::find_if(layers.begin(), layers.end(), [&](const LayerSummary& l) { return l.name == name; });
    return it == layers.end() ? std::string() : it->type;
  };
  for (const auto& l : layers) {
    LayerCost c;
    c.name = l.name;
    c.type = l.type;
    c.params = static_cast<double>(l.params);
    c.trainable_params = static_cast<double>(l.trainable_params);
    c.forward_macs = l.forward_macs * l.share;
    c.output_elems = std::accumulate(l.output_shape.begin(), l.output_shape.end(), 1.0, std::multiplies<>());
    c.kept_elems = l.kept_elements;
    c.kept_attention_elems = l.kept_attention_elements;
    c.kept_replicated_elems = l.kept_replicated_elements;
    c.heads = l.heads;
    c.ff_units = l.ff_units;
    c.kept_mask_bytes = l.kept_mask_bytes;
    c.kept_attention_mask_bytes = l.kept_attention_mask_bytes;
    c.kept_replicated_mask_bytes = l.kept_replicated_mask_bytes;
    c.tied_to_embedding = !l.shares_weights_of.empty() && type_of(l.shares_weights_of) == "embedding";
    // Its vocabulary: the parallel cross-entropy's all-reduces are per token (output / vocabulary).
    if (c.tied_to_embedding && !l.output_shape.empty()) c.out_features = static_cast<double>(l.output_shape.back());
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fomcast::cli
