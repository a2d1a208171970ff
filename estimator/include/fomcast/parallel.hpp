// One model trained on many devices (issue 15): data, tensor and pipeline parallel layouts,
// their collectives, overlap by the op graph, and the memory each device needs.
//
// The step is built as an op graph (op_graph.hpp) from the single-device estimate of one
// micro-batch, spread over the model's layers by their forward MACs:
//   tensor parallel (Megatron): transformer blocks' and embeddings' time split T ways in
//     the share Megatron splits (GEMMs, attention's per-head ops, the MLP's 4h intermediate:
//     ops with more elements than b x s x h); layer norms and b x s x h ops replicated; per block two all-reduces of
//     the activations (b x seq x hidden) forward and two backward, on the critical path.
//   pipeline parallel: layers cut into P stages of about equal time; each stage runs the
//     1F1B schedule (P - s - 1 warm-up forwards, then one forward one backward) over M
//     micro-batches; a stage's output activations go to the next one (send/recv) and their
//     gradients back. Bubble (P-1)/(M+P-1) of the pipeline with equal stages.
//   data parallel: the gradients of the last micro-batch's backward go out in buckets
//     (DDP: 25 MiB by default, in backward order), each bucket's all-reduce ready when the
//     layer that fills it finishes its backward, on the communication stream; the optimizer
//     waits for the last. ZeRO-1/2: a reduce-scatter per bucket and an all-gather of the
//     parameters after the optimizer (same volume as the all-reduce); ZeRO-3: also an
//     all-gather of each layer's parameters before its forward and its backward (1.5x).
// Devices are numbered tensor-parallel fastest, then data, then pipeline (Megatron's
// order): a tensor group shares a node where it fits, data and pipeline groups span nodes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/collectives.hpp"
#include "fomcast/estimate.hpp"
#include "fomcast/input_checks.hpp"

namespace fomcast {

// The most micro-batches per step and pipeline a layout may have (input_checks.hpp says why).
inline constexpr int64_t kMaxMicroBatches = static_cast<int64_t>(ranges::micro_batches.max);
// The most devices a layout takes as one node when the spec gives no devices_per_node and
// no --gpus-per-node says: one server's worth of PCIe cards.
inline constexpr int64_t kMaxDevicesWithoutNodeSize = 8;

struct ParallelLayout {
  int64_t dp = 1, tp = 1, pp = 1;
  int64_t micro_batches = 0;  // per step and pipeline; 0: pp (1 without pipeline)
  int64_t gpus_per_node = 0;  // 0: the platform's devices_per_node
  int zero_stage = 0;         // 0 (plain DDP), 1, 2 or 3
  double bucket_bytes = 25.0 * 1024 * 1024;
  bool recompute = false;  // activation recomputation: keep layer inputs, run forward again
  // Selective recomputation (Megatron's --recompute-granularity selective): only attention's
  // core (scores, softmax, dropout, context) is dropped and run again in the backward.
  bool recompute_attention = false;
  // Megatron's sequence parallelism: the ops a block leaves replicated under tensor parallel
  // (layer norms, dropouts, residual adds) split over the sequence, each all-reduce a
  // reduce-scatter plus an all-gather.
  bool sequence_parallel = false;
  int64_t devices() const { return dp * tp * pp; }
  int64_t micro() const { return micro_batches > 0 ? micro_batches : pp; }
};
// "dp=4,tp=2,pp=2" (any order, any subset, each a whole number >= 1). Throws UsageError
// naming `flag` and the bad part.
ParallelLayout parse_parallel(std::string_view text, std::string_view flag = "--parallel");

// One layer of the model as the layout sees it (from the model's layer list).
struct LayerCost {
  std::string name, type;
  double params = 0;
  double forward_macs = 0;  // per sample
  double output_elems = 0;  // per sample: what goes to the next layer (and back as a gradient)
  // A trace's linear layer: its weight K x N; a model's tied LM head: N alone, its vocabulary
  // (0 elsewhere).
  double in_features = 0, out_features = 0;
  // per sample: activation elements the forward keeps for the backward (0: not known, as in
  // a trace; memory then falls back to the model's total)
  double kept_elems = 0;
  double kept_attention_elems = 0;  // of them, attention's core: what selective recomputation drops
  double kept_replicated_elems =
      0;  // of them, what Megatron's TP leaves whole on every rank (norms, dropouts, residuals)
  // Dropout masks it keeps, bytes per sample (one per element, whatever the activations'
  // type): all, attention's core's, and the replicated ones.
  double kept_mask_bytes = 0, kept_attention_mask_bytes = 0, kept_replicated_mask_bytes = 0;
  int64_t heads = 0, ff_units = 0;  // what tensor parallel splits a block by (0: none, or not known)
  // An output layer reusing an embedding's weights (GPT's tied LM head): Megatron splits it
  // over the vocabulary with the embedding (its parallel_lm_logits), so it splits T ways.
  bool tied_to_embedding = false;
  std::optional<double> trainable_params{};  // of params, with a gradient to reduce (unset: all)
};

// A trace's layer list (it has no model description), per sample of its batch: every call of
// a forward GEMM (weight K x N, + N bias for addmm; a weight of an embedding table's shape is
// tied to it and counted once), batched GEMM (attention: no weight), convolution (K x C/groups
// x filter) and embedding (rows x dim), in the order the ops first ran; a run of consecutive
// ops with the same call count c > 1 is a block repeated c times and interleaved. Throws
// UsageError naming `flag` when the trace has no batch size or no such op with a shape.
struct DerivedLayers {
  std::vector<LayerCost> layers;
  std::vector<std::string> notes;  // what was derived and what was left out
};
DerivedLayers trace_layers(const Workload& micro, std::string_view flag = "--parallel");

// The derived layers with each transformer block that Megatron's layout splits made one layer
// of type "transformer_block", found by its GEMMs' weight shapes in run order: the attention's
// input projection (one linear h -> 3h, or three h -> h for Q, K and V), one or more of
// attention's batched GEMMs, the output projection h -> h, the MLP's h -> f and f -> h (f > h).
// Other layers stay as they are (embeddings are split too; other linears replicated). Throws
// UsageError naming `flag`, the workload and the reason when no block is found, or when h or f
// does not divide by tp.
DerivedLayers megatron_blocks(DerivedLayers layers, const std::string& workload, int64_t tp,
                              std::string_view flag = "--parallel");

// Bytes one device sends in the data-parallel gradient exchange of `param_bytes` over D
// ranks: all-reduce 2(D-1)/D n; ZeRO-1/2 reduce-scatter + all-gather, the same;
// ZeRO-3 reduce-scatter + two all-gathers, 3(D-1)/D n.
double dp_volume_bytes(double param_bytes, int64_t dp, int zero_stage);
// Megatron tensor parallel, one transformer block, one micro-batch: bytes one device sends
// in its 2 forward + 2 backward all-reduces of b x seq x hidden activations over T ranks:
// 4 x 2(T-1)/T x activation_bytes.
double tp_block_volume_bytes(double activation_bytes, int64_t tp);
// The 1F1B bubble as a fraction of the pipeline's time: (P-1)/(M+P-1).
double bubble_fraction(int64_t pp, int64_t micro_batches);

struct DeviceMemory {
  double weights_bytes = 0, gradients_bytes = 0, optimizer_bytes = 0, activations_bytes = 0;
  double total_bytes = 0;
  double capacity_bytes = 0;  // the platform's mem_bytes; 0 when its spec has none
  bool fits = true;
  int64_t stage = 0;             // the pipeline stage these figures are of (the fullest)
  double in_flight = 1;          // its micro-batches in flight under 1F1B
  bool recompute_helped = true;  // --recompute kept less than the layers would without it
  std::string detail;            // what each part is, in words
};

struct CollectiveLine {
  std::string what;  // "tp all-reduce (block)", "dp bucket 3", "pp send", ...
  double bytes = 0;
  int64_t ranks = 0;
  int64_t calls_per_step = 0;
  CollectiveTime time;  // one call
};

// A pipeline stage's layers (contiguous, in the model's order).
struct StageSpan {
  std::string first_layer, last_layer;
  int64_t layers = 0;
};
struct ParallelEstimate {
  ParallelLayout layout;
  std::vector<StageSpan> stages;  // one per pipeline stage
  int64_t devices = 1, micro_batch = 0, global_batch = 0, gpus_per_node = 0;
  double step_s = 0;
  double compute_s = 0;             // the busiest device's compute, optimizer included
  double optimizer_s = 0;           // of compute_s, the optimizer's update (once a step)
  double exposed_comm_s = 0;        // what communication adds to the critical path
  double bubble_s = 0;              // pipeline idle time on the critical path
  double residual_s = 0;            // the single-device estimate's host residual, once per step
  double comm_total_s = 0;          // all communication on the busiest device, hidden or not
  double single_device_pass_s = 0;  // one micro-batch on one device (with residual; recomputing as the layout does)
  // One device's time for the step's global batch: its micro-batches one after another, the
  // optimizer and host residual once. scaling_efficiency = this / (devices x step_s).
  double single_device_step_s = 0;
  // One device's time for the global batch (its micro-batches one after another, the
  // optimizer and host residual once) / (devices x step).
  double scaling_efficiency = 0;
  double samples_per_s = 0;
  std::vector<CollectiveLine> collectives;
  DeviceMemory memory;
  std::vector<std::string> notes;
};

// `pass` is the single-device estimate of `micro` (the workload at the per-device
// micro-batch) on `platform`; `layers` the model's layer list. Throws UsageError (naming
// `flag`) for a layout the model cannot take (more stages than layers, no layer list) or a
// network the platform's spec cannot time; the memory check is the caller's (memory.fits).
ParallelEstimate estimate_parallel(const Workload& micro, const PassEstimate& pass,
                                   const std::vector<LayerCost>& layers, const Platform& platform, const Catalog&,
                                   const ParallelLayout&, std::string_view flag = "--parallel");

// Per-device memory of the layout (weights, gradients, optimizer state by ZeRO stage,
// activations of the micro-batches in flight, or only layer inputs with recomputation), of
// the fullest pipeline stage. `stage_starts`: each stage's first layer and, last,
// layers.size() (estimate_parallel's cut); without it every stage is 1/P of the model.
DeviceMemory device_memory(const Workload& micro, const std::vector<LayerCost>& layers, const Platform&,
                           const ParallelLayout&, std::vector<std::size_t> stage_starts = {});

}  // namespace fomcast

namespace fomcast {

// A layout as the flags (or a study problem) give it, with the batch to use.
struct ParallelRequest {
  ParallelLayout layout;
  int64_t global_batch = 0;   // 0: not given
  int64_t batch_per_gpu = 0;  // 0: not given (neither: the workload's batch per device)
};
// The micro-batch per device a request gives: its batch per device, or its global batch over
// dp x micro-batches; nullopt when it gives neither. Throws UsageError (naming --global-batch,
// or a study's global_batch when `flag` is not --parallel) when the global batch is no
// multiple of dp x micro-batches.
std::optional<int64_t> requested_micro_batch(const ParallelRequest&, std::string_view flag = "--parallel");
// The model's layers (fomcast/layers.hpp's stored_model_layers, through the CLI).
using LayerReader = std::function<std::vector<LayerCost>(const Workload&)>;

struct ParallelRun {
  Workload micro;  // the workload at the per-device micro-batch
  ParallelEstimate parallel;
  RunEstimate run;  // rolled up with the step time and the global batch
};
// The whole path: the per-device micro-batch from the request (UsageError naming
// --global-batch when it is not a multiple of dp x micro-batches), the model expanded at it,
// its single-device estimate, the layout, the roll-up. Throws UsageError naming `flag` when
// the per-device memory exceeds the platform's.
ParallelRun run_parallel(const Workload& stored, std::string_view platform, const Catalog&, const ParallelRequest&,
                         const ModelExpander&, const LayerReader&, const RunOptions& = {},
                         std::string_view flag = "--parallel");

// A model's training on one device (no layout) must fit the platform's memory as a layout's
// must: weights, gradients, optimizer state and the batch's activations in the precision
// run. Throws UsageError naming `flag` when it does not; a trace (whose memory is not
// known), a platform without mem_gib, and a platform `measured` holds a time of (it ran
// there, with whatever the model does not say: fused attention, recomputation) pass.
void require_fits_one_device(const Workload& w, const Platform&, const LayerReader&, PrecisionMode,
                             const std::vector<MeasuredPass>& measured, std::string_view flag);

}  // namespace fomcast

namespace fomcast {

// A scaling curve (`fomcast scaling`): one layout key swept over values, the rest fixed.
// Strong: the global batch is fixed (the request's, else the first point's), each point's
// micro-batch is global / (dp x micro-batches). Weak: the micro-batch per device is fixed.
// Efficiency is throughput per device over the first point's: strong, (first step x first
// devices) / (step x devices); weak (sweeping dp), first step / step.
struct ScalingPoint {
  ParallelLayout layout;
  int64_t devices = 0, global_batch = 0, micro_batch = 0;
  double step_s = 0, compute_s = 0, exposed_comm_s = 0, bubble_s = 0;
  double samples_per_s = 0;
  double efficiency = 0;          // against the first point (strong or weak, as above)
  double scaling_efficiency = 0;  // against one device (ParallelEstimate's)
  std::string error;              // why this point has no estimate (does not fit, batch not divisible)
};
struct ScalingCurve {
  std::string workload, platform, key;
  bool weak = false;
  std::vector<ScalingPoint> points;
  std::vector<std::string> notes;  // every point's notes, once each (missing network figures, ...)
};
// "dp=1,2,4,...,64,tp=2": one key with several values ("..." doubles up to the next value).
// Throws UsageError naming `flag`.
std::pair<ParallelLayout, std::pair<std::string, std::vector<int64_t>>> parse_sweep(
    std::string_view text, std::string_view flag = "--parallel");
ScalingCurve scaling_curve(const Workload& stored, std::string_view platform, const Catalog&,
                           const ParallelRequest& base, const std::string& key, const std::vector<int64_t>& values,
                           bool weak, const ModelExpander&, const LayerReader&, const RunOptions& = {});

}  // namespace fomcast

#include "fomcast/whatif.hpp"

namespace fomcast {

// `whatif --parallel`: the layout's step on P and on P with the scaling applied: each
// operation of the single-device micro-batch by its class's what_if factor (and the
// residual by what_if's), the network levels' bandwidths by net_bw (a measured all-reduce
// table no longer applies then: the alpha-beta model times every collective of both).
struct ParallelWhatIf {
  WhatIf single;  // the micro-batch on one device, as `whatif` alone gives it
  ParallelEstimate reference, scaled;
  double speedup = 0;  // reference step / scaled step
};
ParallelWhatIf what_if_parallel(const Workload& stored, std::string_view platform, const Catalog&, const ScaleSpec&,
                                const ParallelRequest&, const ModelExpander&, const LayerReader&,
                                const RunOptions& = {});

}  // namespace fomcast
