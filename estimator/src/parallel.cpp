// Data, tensor and pipeline parallel layouts (parallel.hpp): the step as an op graph built
// from the single-device estimate of one micro-batch, its critical path, and the split of
// the step into compute, exposed communication and bubble.
#include "fomcast/parallel.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/op_graph.hpp"
#include "parallel_layers.hpp"

namespace fomcast {
namespace {

// A trace has no model description: its weights taken in the GEMMs' element type.
double param_bytes_per_param(const Workload& w) {
  return w.model && w.model->params > 0 && w.model->weights_bytes > 0
             ? w.model->weights_bytes / static_cast<double>(w.model->params)
             : activation_bytes_per_elem(w);
}

struct PhaseTimes {
  double forward = 0, backward = 0, optimizer = 0;
  double forward_tp_share = 0, backward_tp_share = 0;  // of the phase's time, in Megatron's TP region
  double forward_attention = 0;  // attention's core forward: what selective recomputation runs again
};

// Attention's core, scores to context (what Megatron's selective recomputation drops and runs
// again): the forward batched GEMMs, and the forward elementwise and reduction ops on a
// tensor the size of one of those GEMMs' outputs (the scores) and larger than the block's
// output. A flash kernel recomputes inside its own backward, so its GEMMs are not counted.
std::vector<bool> attention_core(const Workload& w, const PassEstimate& pass, double block_elems) {
  std::vector<double> scores;
  for (const auto& e : pass.ops) {
    const Op& op = w.ops[e.op_index];
    const auto* g = std::get_if<GemmShape>(&op.shape);
    if (g && op.kind == OpKind::batched_gemm && op.phase == Phase::forward &&
        op.name.find("flash") == std::string::npos)
      scores.push_back(static_cast<double>(g->batch) * static_cast<double>(g->m) * static_cast<double>(g->n));
  }
  std::vector<bool> core(pass.ops.size(), false);
  if (scores.empty()) return core;
  for (std::size_t i = 0; i < pass.ops.size(); ++i) {
    const Op& op = w.ops[pass.ops[i].op_index];
    if (op.phase != Phase::forward) continue;
    if (op.kind == OpKind::batched_gemm) {
      core[i] = op.name.find("flash") == std::string::npos;
    } else if (op.kind == OpKind::elementwise || op.kind == OpKind::reduction) {
      const auto* t = std::get_if<TensorShape>(&op.shape);
      const double n = t ? static_cast<double>(t->elements()) : 0;
      core[i] = n > block_elems && std::find(scores.begin(), scores.end(), n) != scores.end();
    }
  }
  return core;
}

// Megatron's tensor-parallel region, split T ways: the GEMMs (column- and row-parallel weights,
// attention's per-head batched GEMMs) and the memory-bound ops between a column- and a
// row-parallel GEMM, which carry more elements than the block's b x s x h activation:
// attention's per-head scores (softmax, mask, dropout of the probabilities) and the MLP's 4h
// intermediate and the QKV output (bias, GeLU). Layer norms and the ops on b x s x h (residual
// adds, dropout after the row-parallel GEMM) stay replicated on every rank.
bool in_tp_region(const Op& op, double block_elems) {
  if (op.kind == OpKind::gemm || op.kind == OpKind::batched_gemm) return true;
  if (block_elems <= 0 || (op.kind != OpKind::elementwise && op.kind != OpKind::reduction)) return false;
  const auto* t = std::get_if<TensorShape>(&op.shape);
  return t && static_cast<double>(t->elements()) > block_elems;
}

// `block_elems`: a transformer block's output activation (b x s x h); 0 without blocks.
PhaseTimes phase_times(const Workload& w, const PassEstimate& pass, double block_elems) {
  PhaseTimes t;
  double fs = 0, bs = 0;
  const double scale = pass.ops_s > 0 ? pass.modelled_s / pass.ops_s : 1;
  const std::vector<bool> core = attention_core(w, pass, block_elems);
  for (std::size_t i = 0; i < pass.ops.size(); ++i) {
    const auto& e = pass.ops[i];
    const Op& op = w.ops[e.op_index];
    const double s = op.count * e.predicted_s * scale;
    if (core[i]) t.forward_attention += s;
    const bool split = in_tp_region(op, block_elems);
    switch (op.phase) {
      case Phase::backward:
        t.backward += s;
        if (split) bs += s;
        break;
      case Phase::optimizer: t.optimizer += s; break;
      default:
        t.forward += s;
        if (split) fs += s;
        break;
    }
  }
  t.forward_tp_share = t.forward > 0 ? fs / t.forward : 0;
  t.backward_tp_share = t.backward > 0 ? bs / t.backward : 0;
  return t;
}

// Contiguous stages of about equal time: cut where the running sum passes s/P of the total,
// every stage keeping at least one layer.
std::vector<std::size_t> stage_starts(const std::vector<double>& cost, int64_t pp) {
  const double total = std::accumulate(cost.begin(), cost.end(), 0.0);
  std::vector<std::size_t> starts{0};
  double sum = 0;
  const auto n = cost.size();
  for (std::size_t i = 0; i < n && static_cast<int64_t>(starts.size()) < pp; ++i) {
    sum += cost[i];
    const auto s = static_cast<double>(starts.size());
    const std::size_t left_after = n - (i + 1);
    const auto stages_left = static_cast<std::size_t>(pp) - starts.size();
    if ((sum >= total * s / static_cast<double>(pp) || left_after == stages_left) && i + 1 < n) starts.push_back(i + 1);
  }
  return starts;
}

}  // namespace

ParallelLayout parse_parallel(std::string_view text, std::string_view flag) {
  ParallelLayout l;
  const std::string f(flag);
  auto bad = [&](const std::string& why) {
    return UsageError(f + " wants dp=D,tp=T,pp=P (whole numbers >= 1): " + why);
  };
  std::size_t pos = 0;
  if (text.empty()) throw bad("empty");
  std::string seen;  // keys given, ",dp,tp,"
  while (pos <= text.size()) {
    const auto comma = std::min(text.find(',', pos), text.size());
    const std::string part(text.substr(pos, comma - pos));
    const auto eq = part.find('=');
    if (eq == std::string::npos) throw bad("'" + part + "' has no '='");
    const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
    int64_t v = 0;
    std::size_t used = 0;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || value.empty() || v < 1 || v > 1'000'000)
      throw bad("'" + value + "' for " + key + " is not a whole number from 1 to 1000000");
    if (seen.find("," + key + ",") != std::string::npos) throw bad(key + " is given twice");
    seen += "," + key + ",";
    if (key == "dp")
      l.dp = v;
    else if (key == "tp")
      l.tp = v;
    else if (key == "pp")
      l.pp = v;
    else
      throw bad("unknown key '" + key + "'");
    pos = comma + 1;
  }
  return l;
}

double dp_volume_bytes(double n, int64_t dp, int zero_stage) {
  if (dp <= 1) return 0;
  const double share = static_cast<double>(dp - 1) / static_cast<double>(dp) * n;
  return zero_stage >= 3 ? 3 * share : 2 * share;
}

double tp_block_volume_bytes(double activation_bytes, int64_t tp) {
  if (tp <= 1) return 0;
  return 4 * 2 * static_cast<double>(tp - 1) / static_cast<double>(tp) * activation_bytes;
}

double bubble_fraction(int64_t pp, int64_t m) { return static_cast<double>(pp - 1) / static_cast<double>(m + pp - 1); }

ParallelEstimate estimate_parallel(const Workload& w, const PassEstimate& pass,
                                   const std::vector<LayerCost>& model_layers, const Platform& platform,
                                   const Catalog& catalog, const ParallelLayout& layout, std::string_view flag) {
  const std::string f(flag);
  // A trace's layers come from its ops' weight shapes (parallel_trace.cpp).
  const bool from_trace = model_layers.empty() && w.origin != "model";
  DerivedLayers derived;
  if (from_trace) {
    derived = trace_layers(w, flag);
    if (layout.tp > 1) derived = megatron_blocks(std::move(derived), w.name, layout.tp, flag);
  }
  const std::vector<LayerCost>& layers = from_trace ? derived.layers : model_layers;
  const double vocabulary = vocabulary_params(layers);
  auto split = [&](const LayerCost& l) { return split_by_tp(l, vocabulary); };
  if (layers.empty())
    throw UsageError(f + ": workload '" + w.name +
                     "' has no layer list: the layout needs each layer's parameters and activations");
  if (static_cast<std::size_t>(layout.pp) > layers.size())
    throw UsageError(f + ": pp=" + std::to_string(layout.pp) + " stages but '" + w.name + "' has " +
                     std::to_string(layers.size()) + " layers");
  if (w.batch_size <= 0) throw UsageError(f + ": workload '" + w.name + "' has no batch size");
  // The 1F1B schedule is built micro-batch by micro-batch (its graph grows with M): a million
  // took 6.8 GB before it ran out of memory. Megatron's largest runs use a few thousand.
  if (layout.micro() > kMaxMicroBatches)
    throw UsageError(f + ": " + std::to_string(layout.micro()) + " micro-batches per step; at most " +
                     std::to_string(kMaxMicroBatches) + " (the pipeline schedule is timed micro-batch by micro-batch)");
  ParallelEstimate out;
  out.notes = derived.notes;
  out.layout = layout;
  const int64_t D = layout.dp, T = layout.tp, P = layout.pp, M = layout.micro();
  out.devices = layout.devices();
  out.micro_batch = w.batch_size;
  out.global_batch = D * M * w.batch_size;
  const double dev_per_node = platform.devices_per_node ? platform.devices_per_node->value : 0;
  const int64_t G =
      layout.gpus_per_node > 0 ? layout.gpus_per_node : (dev_per_node >= 1 ? static_cast<int64_t>(dev_per_node) : 0);
  out.gpus_per_node = G;
  // Without a node size, a few devices are one server's (eight PCIe cards are common); more
  // are several servers, whose network the spec must give: 1,024 PCIe cards taken as one
  // node scaled at 98%.
  if (G == 0 && out.devices > kMaxDevicesWithoutNodeSize)
    throw UsageError(
        f + ": " + platform.name + "'s spec gives no devices_per_node, and " + std::to_string(out.devices) +
        " devices are more than one server holds: give --gpus-per-node " +
        "(study: gpus_per_node) and a spec with the network between nodes (nics_per_node, nic_bw_gb_per_s)");
  if (G == 0)
    out.notes.push_back(platform.name +
                        ": no devices_per_node in the spec and no --gpus-per-node: the layout's devices taken as one "
                        "node");
  if (G > 0 && out.devices > G) {
    if (out.devices % G != 0)
      throw UsageError(f + ": nodes of " + std::to_string(G) + " devices do not hold the layout's " +
                       std::to_string(out.devices) + " evenly: give a --gpus-per-node that divides it");
    // A GPU spec's net_bw_gb_per_s is the link within a node (docs/platforms.md): across
    // nodes it would run at NVLink's speed. A CPU's is its node's network.
    if (platform.device_kind == "gpu" && (!platform.nics_per_node || !platform.nic_bw_bytes_per_s))
      throw UsageError(f + ": the layout's " + std::to_string(out.devices) + " devices span " +
                       std::to_string(out.devices / G) + " nodes of " + std::to_string(G) + ", and " + platform.name +
                       "'s spec gives no network between nodes (nics_per_node, nic_bw_gb_per_s): add them "
                       "(`fomcast platforms add`) or keep the layout within one node");
  }
  const int64_t node = G > 0 ? G : out.devices;
  const double b = static_cast<double>(w.batch_size);
  const double act_bytes = activation_bytes_per_elem(w), par_bytes = param_bytes_per_param(w);

  // Megatron splits attention by heads and the MLP by columns: T must divide both.
  if (T > 1)
    for (const auto& l : layers)
      if ((l.heads > 0 && l.heads % T != 0) || (l.ff_units > 0 && l.ff_units % T != 0))
        throw UsageError(f + ": tp=" + std::to_string(T) + " does not divide layer '" + l.name + "' (" +
                         std::to_string(l.heads) + " attention heads" +
                         (l.ff_units > 0 ? ", MLP width " + std::to_string(l.ff_units) : std::string()) +
                         "): Megatron's layout splits heads and MLP columns T ways");

  // Each layer's forward and backward time on one device of its tensor group.
  double block_elems = 0;
  for (const auto& l : layers)
    if (is_block(l)) block_elems = std::max(block_elems, b * l.output_elems);
  const PhaseTimes ph = phase_times(w, pass, block_elems);
  double macs = 0;
  for (const auto& l : layers) macs += l.forward_macs;
  std::vector<double> fwd(layers.size()), bwd(layers.size());
  const bool has_blocks = std::any_of(layers.begin(), layers.end(), is_block);
  double block_macs = 0;  // attention's core belongs to the blocks alone
  for (const auto& l : layers)
    if (is_block(l)) block_macs += l.forward_macs;
  const bool selective = recomputes_attention_only(layout);
  auto rerun = [&](std::size_t i) { return recomputed(layout, layers[i], has_blocks); };
  double recompute_one_device = 0;  // the forward a single device runs again per micro-batch
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const double share = macs > 0 ? layers[i].forward_macs / macs : 1.0 / static_cast<double>(layers.size());
    // A layer's time is its MACs' share of the phase, so a split layer splits the phase's
    // tensor-parallel share of it: together the split layers split exactly the region's ops.
    // Sequence parallel splits a block's remaining ops over the sequence: all of it splits.
    auto tp_factor = [&](double region_share) {
      if (T <= 1 || !split(layers[i])) return 1.0;
      if (layout.sequence_parallel && is_block(layers[i])) return 1 / static_cast<double>(T);
      return region_share / static_cast<double>(T) + (1 - region_share);
    };
    fwd[i] = ph.forward * share * tp_factor(ph.forward_tp_share);
    bwd[i] = ph.backward * share * tp_factor(ph.backward_tp_share) + (rerun(i) ? fwd[i] : 0);
    if (rerun(i)) recompute_one_device += ph.forward * share;
    if (selective && is_block(layers[i]) && block_macs > 0) {
      // Attention's core forward once more, split over the heads like the rest of the region.
      const double core = ph.forward_attention * layers[i].forward_macs / block_macs;
      bwd[i] += core / static_cast<double>(T);
      recompute_one_device += core;
    }
  }
  if (layout.sequence_parallel && T == 1)
    out.notes.push_back("--sequence-parallel at tp=1: nothing to split (it splits what tensor parallel leaves whole)");
  // Tensor parallel with nothing Megatron's layout splits ran T devices at one's speed, a 50%
  // efficiency said only in a note; a trace with no block is refused the same way.
  if (T > 1 && std::none_of(layers.begin(), layers.end(), split))
    throw UsageError(f + ": tp=" + std::to_string(T) + ": none of the " + std::to_string(layers.size()) +
                     " layers of workload '" + w.name +
                     "' is a transformer block (`transformer_block`) or a word embedding, what Megatron's "
                     "layout splits; data and pipeline parallel work on it");
  if (T > 1) {
    // Layers with weights that the layout leaves whole: a model written as attention and dense
    // layers rather than transformer blocks ran tp=8 at tp=1's compute, without a word.
    double macs = 0, whole = 0;
    std::size_t n = 0;
    for (const auto& l : layers) {
      macs += l.forward_macs;
      if (l.params > 0 && !split(l)) whole += l.forward_macs, ++n;
    }
    if (macs > 0 && whole / macs > 0.05)
      out.notes.push_back("tp=" + std::to_string(T) + ": " + std::to_string(n) + " layer(s) with weights, " +
                          format_percent_significant(whole / macs, 3) +
                          " of the forward MACs, run whole on every rank: the Megatron layout splits transformer "
                          "blocks (`transformer_block`) and embeddings, not attention or dense layers outside a block");
  }
  std::vector<double> cost(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) cost[i] = fwd[i] + bwd[i];
  std::vector<std::size_t> starts = stage_starts(cost, P);
  starts.push_back(layers.size());
  for (std::size_t s = 0; s + 1 < starts.size(); ++s)
    out.stages.push_back(
        {layers[starts[s]].name, layers[starts[s + 1] - 1].name, static_cast<int64_t>(starts[s + 1] - starts[s])});

  // The collectives, one call each.
  auto timed_on = [&](const Platform& on, const std::string& what, CollectiveKind kind, double bytes, int64_t ranks,
                      int64_t per_node, bool same_node, int64_t calls) {
    std::string why;
    auto t = collective_time(catalog, on, kind, bytes, ranks, per_node, same_node, &why);
    if (!t) throw UsageError(f + ": " + why + "; cannot time the " + what);
    for (const auto& n : t->notes)
      if (std::find(out.notes.begin(), out.notes.end(), n) == out.notes.end()) out.notes.push_back(n);
    out.collectives.push_back({what, bytes, ranks, calls, *t});
    return t->seconds;
  };
  auto timed = [&](const std::string& what, CollectiveKind kind, double bytes, int64_t ranks, int64_t per_node,
                   bool same_node,
                   int64_t calls) { return timed_on(platform, what, kind, bytes, ranks, per_node, same_node, calls); };
  const int64_t tp_per_node = std::min(T, node);
  const int64_t dp_per_node = T >= node ? 1 : std::min(D, std::max<int64_t>(1, node / T));
  // The tensor-parallel ranks of a node run their data-parallel collectives at the same time:
  // across nodes they share the node's NICs, each group getting 1/min(T, G) of them.
  Platform dp_net = platform;
  if (T > 1 && D > 1 && T * D > node && dp_net.nic_bw_bytes_per_s) {
    const auto sharing = static_cast<double>(std::min(T, node));
    dp_net.nic_bw_bytes_per_s->value /= sharing;
    out.notes.push_back("data-parallel collectives across nodes: the node's NICs shared by " +
                        format_significant(sharing) + " concurrent groups (one per tensor-parallel rank)");
  }
  const bool pp_same_node = T * D * P <= node;
  const CollectiveKind grad_kind = layout.zero_stage >= 1 ? CollectiveKind::reduce_scatter : CollectiveKind::allreduce;

  OpGraph g;
  struct Chain {
    std::size_t first = 0, last = 0;
  };
  std::vector<std::vector<Chain>> F(static_cast<std::size_t>(P), std::vector<Chain>(static_cast<std::size_t>(M)));
  auto B = F;
  std::vector<std::vector<std::size_t>> send_f = std::vector<std::vector<std::size_t>>(
      static_cast<std::size_t>(P), std::vector<std::size_t>(static_cast<std::size_t>(M), 0));
  auto send_b = send_f;
  std::vector<double> stage_compute(static_cast<std::size_t>(P), 0), stage_comm(static_cast<std::size_t>(P), 0);
  std::vector<double> stage_optimizer(static_cast<std::size_t>(P), 0);
  std::vector<double> stage_table_copy(static_cast<std::size_t>(P), 0);  // parameters per rank
  // Per stage: the node after which its gradients are final (its last bucket's collective, or
  // its last backward), and its optimizer.
  std::vector<std::size_t> grads_done(static_cast<std::size_t>(P), 0), optimizer_node(static_cast<std::size_t>(P), 0);
  for (int64_t s = 0; s < P; ++s) {
    const auto su = static_cast<std::size_t>(s);
    const int cs = static_cast<int>(3 * s), ps = cs + 1, ds = cs + 2;  // compute, p2p, data-parallel streams
    const std::size_t lo = starts[su], hi = starts[su + 1];
    double stage_params = 0;
    // A tied LM head without the word embedding on its stage holds a copy of the table.
    const double tied_copy = tied_copy_params(layers, lo, hi, vocabulary) / static_cast<double>(T);
    stage_table_copy[su] = tied_copy;
    // A layer's parameters on one rank (only those with a gradient, `trained`), the copy with
    // the head that uses it.
    auto rank_params = [&](std::size_t i, bool trained = false) {
      const double n = trained ? layers[i].trainable_params.value_or(layers[i].params) : layers[i].params;
      return n * tp_rank_share(layers[i], T, vocabulary) + (layers[i].tied_to_embedding ? tied_copy : 0);
    };
    for (std::size_t i = lo; i < hi; ++i) stage_params += rank_params(i);
    const double boundary = b * layers[hi - 1].output_elems * act_bytes;
    // Every device of a stage sends at once to the next stage: across nodes each gets its
    // share of the node's NICs (one in G of them when a node holds G of the stage's ranks),
    // not the node's whole bandwidth (a 33.5 MB send between H100 nodes had taken 86.6 us).
    const double send_s = s + 1 < P ? timed("pp send/recv (stage " + std::to_string(s) + ")", CollectiveKind::send_recv,
                                            boundary, 2, std::min(T * D, node), pp_same_node, M)
                                    : 0;
    std::vector<double> ag_s(hi - lo, 0);
    if (D > 1 && layout.zero_stage >= 3)
      for (std::size_t i = lo; i < hi; ++i) {
        const double bytes = rank_params(i) * par_bytes;
        if (bytes > 0)
          ag_s[i - lo] = timed_on(dp_net, "zero-3 all-gather (" + layers[i].name + ")", CollectiveKind::allgather,
                                  bytes, D, dp_per_node, true, 2 * M);
      }
    // Megatron's tensor-parallel collectives of one micro-batch, forward and backward, per
    // layer. Under sequence parallel an all-reduce is a reduce-scatter and an all-gather of the
    // same tensor (the same ring volume, twice the steps' latency).
    std::vector<double> tp_fwd(hi - lo, 0), tp_bwd(hi - lo, 0);
    auto tp_call = [&](const std::string& what, CollectiveKind kind, double bytes, int64_t calls) {
      const char* name = kind == CollectiveKind::allreduce        ? "tp all-reduce ("
                         : kind == CollectiveKind::reduce_scatter ? "tp reduce-scatter ("
                                                                  : "tp all-gather (";
      return timed(name + what + ")", kind, bytes, T, tp_per_node, true, calls);
    };
    if (T > 1)
      for (std::size_t i = lo; i < hi; ++i) {
        const LayerCost& l = layers[i];
        const std::size_t k = i - lo;
        if (is_block(l)) {
          // Two all-reduces of the block's output each way; a recomputed block runs its
          // forward's two again in the backward.
          const double bytes = b * l.output_elems * act_bytes;
          const int64_t calls = (rerun(i) ? 6 : 4) * M;
          const double two = layout.sequence_parallel
                                 ? 2 * (tp_call(l.name, CollectiveKind::reduce_scatter, bytes, calls) +
                                        tp_call(l.name, CollectiveKind::allgather, bytes, calls))
                                 : 2 * tp_call(l.name, CollectiveKind::allreduce, bytes, calls);
          tp_fwd[k] = two;
          tp_bwd[k] = two * (rerun(i) ? 2 : 1);
        } else if (is_vocabulary(l, vocabulary)) {
          // Each rank looks up the tokens of its share of the vocabulary (zeros elsewhere), and
          // one all-reduce sums the output (sequence parallel: a reduce-scatter); token ids
          // have no gradient, so nothing goes back.
          const double bytes = b * l.output_elems * act_bytes;
          tp_fwd[k] =
              tp_call(l.name + ", word embedding",
                      layout.sequence_parallel ? CollectiveKind::reduce_scatter : CollectiveKind::allreduce, bytes, M);
        } else if (l.tied_to_embedding) {
          // The vocabulary-parallel logits: the head's input gradient is all-reduced backward
          // (Megatron's copy_to_tensor_model_parallel_region; sequence parallel: the input
          // all-gathered forward and its gradient reduce-scattered back), and the parallel
          // cross-entropy all-reduces three fp32 values per token forward (the logits'
          // maximum, the target's logit, the sum of the exponentials).
          const double in_elems = l.in_features > 0 && l.out_features > 0
                                      ? l.output_elems / l.out_features * l.in_features
                                      : (i > 0 ? layers[i - 1].output_elems : 0);
          const double bytes = b * in_elems * act_bytes;
          if (bytes > 0 && layout.sequence_parallel) {
            tp_fwd[k] += tp_call(l.name + ", LM head input", CollectiveKind::allgather, bytes, M);
            tp_bwd[k] += tp_call(l.name + ", LM head input", CollectiveKind::reduce_scatter, bytes, M);
          } else if (bytes > 0) {
            tp_bwd[k] += tp_call(l.name + ", LM head input", CollectiveKind::allreduce, bytes, M);
          }
          if (l.out_features > 0)
            tp_fwd[k] += 3 * tp_call(l.name + ", cross-entropy", CollectiveKind::allreduce,
                                     b * l.output_elems / l.out_features * 4, 3 * M);
        }
      }
    // One micro-batch's forward or backward through the stage's layers.
    std::vector<std::size_t> last_bwd_layer_op(hi - lo, 0);
    auto chain = [&](int64_t m, bool forward) {
      Chain c;
      bool first = true;
      for (std::size_t k = 0; k < hi - lo; ++k) {
        const std::size_t i = forward ? lo + k : hi - 1 - k;
        std::size_t ag = 0;
        if (ag_s[i - lo] > 0) ag = g.add({"zero-3 all-gather " + layers[i].name, ds, true, ag_s[i - lo]});
        const std::size_t op = g.add({(forward ? "fwd " : "bwd ") + layers[i].name + " mb" + std::to_string(m), cs,
                                      false, forward ? fwd[i] : bwd[i]});
        stage_compute[su] += forward ? fwd[i] : bwd[i];
        if (ag_s[i - lo] > 0) g.depend(ag, op), stage_comm[su] += ag_s[i - lo];
        std::size_t end = op;
        if (const double tp_here = forward ? tp_fwd[i - lo] : tp_bwd[i - lo]; tp_here > 0) {
          end = g.add({"tp collectives " + layers[i].name, cs, true, tp_here});
          stage_comm[su] += tp_here;
        }
        if (!forward) last_bwd_layer_op[i - lo] = end;
        if (first) c.first = op, first = false;
        c.last = end;
      }
      return c;
    };
    // Data parallel: the gradients in buckets, backward order, each bucket's collective as
    // soon as the layer that fills it has finished its backward. DDP, and ZeRO-1 (whose ranks
    // keep whole gradients), reduce the last micro-batch's only, the others accumulating in
    // place (no_sync); ZeRO-2 and -3 keep only their shard of the gradients, so every
    // micro-batch's are reduce-scattered into it (DeepSpeed's and FSDP's way).
    struct Bucket {
      std::size_t filled_by = 0;  // the layer whose backward completes it
      double seconds = 0;
    };
    std::vector<Bucket> buckets;
    int64_t oversized_buckets = 0;  // a layer's gradients alone past twice the bucket size
    const bool every_micro_batch = layout.zero_stage >= 2;
    if (D > 1) {
      double bucket = 0;
      for (std::size_t k = 0; k < hi - lo; ++k) {
        const std::size_t i = hi - 1 - k;
        // Only trained parameters have gradients to reduce (not frozen layers, nor batch
        // norm's running statistics).
        bucket += rank_params(i, true) * par_bytes;
        if (bucket > 0 && (bucket >= layout.bucket_bytes || i == lo)) {
          if (bucket > 2 * layout.bucket_bytes) ++oversized_buckets;
          const double t =
              timed_on(dp_net,
                       "dp " + std::string(grad_kind == CollectiveKind::allreduce ? "all-reduce" : "reduce-scatter") +
                           " bucket " + std::to_string(buckets.size()) + " (stage " + std::to_string(s) + ")",
                       grad_kind, bucket, D, dp_per_node, true, every_micro_batch ? M : 1);
          buckets.push_back({i, t});
          bucket = 0;
        }
      }
    }
    std::size_t last_comm = 0;
    bool any_bucket = false;
    auto reduce_buckets = [&] {
      for (std::size_t n = 0; n < buckets.size(); ++n) {
        const auto id = g.add({"dp bucket " + std::to_string(n), ds, true, buckets[n].seconds});
        g.depend(last_bwd_layer_op[buckets[n].filled_by - lo], id);
        stage_comm[su] += buckets[n].seconds;
        last_comm = id, any_bucket = true;
      }
    };
    // 1F1B: P - s - 1 warm-up forwards, then one forward one backward, then the rest.
    const int64_t warm = std::min(P - s - 1, M);
    int64_t next_f = 0, next_b = 0;
    auto do_f = [&] {
      F[su][static_cast<std::size_t>(next_f)] = chain(next_f, true);
      if (s + 1 < P) {
        const auto id = g.add({"pp send act", ps, true, send_s});
        g.depend(F[su][static_cast<std::size_t>(next_f)].last, id);
        send_f[su][static_cast<std::size_t>(next_f)] = id;
        stage_comm[su] += send_s;
      }
      ++next_f;
    };
    auto do_b = [&] {
      B[su][static_cast<std::size_t>(next_b)] = chain(next_b, false);
      g.depend(F[su][static_cast<std::size_t>(next_b)].last, B[su][static_cast<std::size_t>(next_b)].first);
      if (s > 0) {
        const double back_s =
            timed("pp send/recv grad (stage " + std::to_string(s) + ")", CollectiveKind::send_recv,
                  b * layers[lo - 1].output_elems * act_bytes, 2, std::min(T * D, node), pp_same_node, 0);
        if (next_b == 0)
          out.collectives.back().calls_per_step = M;
        else
          out.collectives.pop_back();
        const auto id = g.add({"pp send grad", ps, true, back_s});
        g.depend(B[su][static_cast<std::size_t>(next_b)].last, id);
        send_b[su][static_cast<std::size_t>(next_b)] = id;
        stage_comm[su] += back_s;
      }
      if (every_micro_batch || next_b == M - 1) reduce_buckets();
      ++next_b;
    };
    for (int64_t i = 0; i < warm; ++i) do_f();
    while (next_b < M) {
      if (next_f < M) do_f();
      do_b();
    }
    // --bucket-mb 0.001 gave as many buckets as the default 25: a layer is never split.
    if (oversized_buckets > 0 && layout.bucket_bytes != ParallelLayout{}.bucket_bytes) {
      const std::string note = "--bucket-mb " + format_significant(layout.bucket_bytes / (1024.0 * 1024.0)) + ": " +
                               "layers whose gradients alone exceed twice the bucket are a bucket each (DDP keeps "
                               "a tensor whole; a layer's tensors are taken together)";
      if (std::find(out.notes.begin(), out.notes.end(), note) == out.notes.end()) out.notes.push_back(note);
    }
    // The optimizer on this device's share of the parameters, after the last bucket.
    double total_params = 0;
    for (const auto& l : layers) total_params += l.params;
    double opt = total_params > 0 ? ph.optimizer * stage_params / total_params : ph.optimizer / static_cast<double>(P);
    if (layout.zero_stage >= 1 && D > 1) opt /= static_cast<double>(D);
    const auto o = g.add({"optimizer", cs, false, opt});
    stage_compute[su] += opt;
    stage_optimizer[su] = opt;
    if (any_bucket) g.depend(last_comm, o);
    grads_done[su] = any_bucket ? last_comm : B[su][static_cast<std::size_t>(M - 1)].last;
    optimizer_node[su] = o;
    if (D > 1 && (layout.zero_stage == 1 || layout.zero_stage == 2) && stage_params > 0) {
      const double t = timed_on(dp_net, "zero all-gather of parameters (stage " + std::to_string(s) + ")",
                                CollectiveKind::allgather, stage_params * par_bytes, D, dp_per_node, true, 1);
      const auto id = g.add({"zero all-gather params", ds, true, t});
      g.depend(o, id);
      stage_comm[su] += t;
    }
  }
  // The word embedding's two copies (its own stage's and the tied head's) stay one weight:
  // their gradients are all-reduced once a step, after each stage's data-parallel reduction
  // and before either optimizer (Megatron's embedding group).
  const auto copy = std::find_if(stage_table_copy.begin(), stage_table_copy.end(), [](double n) { return n > 0; });
  const auto word =
      std::find_if(layers.begin(), layers.end(), [&](const LayerCost& l) { return is_vocabulary(l, vocabulary); });
  if (copy != stage_table_copy.end() && word != layers.end()) {
    const auto head = static_cast<std::size_t>(copy - stage_table_copy.begin());
    // The stage whose layers hold the table: the last stage start at or before it.
    const auto table = static_cast<std::size_t>(
        std::upper_bound(starts.begin(), starts.end(), static_cast<std::size_t>(word - layers.begin())) -
        starts.begin() - 1);
    const double t =
        timed("embedding all-reduce (stages " + std::to_string(table) + " and " + std::to_string(head) + ")",
              CollectiveKind::allreduce, *copy * par_bytes, 2, pp_same_node ? 2 : 1, pp_same_node, 1);
    const auto id = g.add({"embedding all-reduce", static_cast<int>(3 * P), true, t});
    for (const std::size_t s : {table, head}) {
      g.depend(grads_done[s], id);
      g.depend(id, optimizer_node[s]);
      stage_comm[s] += t;
    }
  }
  for (int64_t s = 0; s + 1 < P; ++s)
    for (int64_t m = 0; m < M; ++m) {
      const auto su = static_cast<std::size_t>(s), mu = static_cast<std::size_t>(m);
      g.depend(send_f[su][mu], F[su + 1][mu].first);
      g.depend(send_b[su + 1][mu], B[su][mu].first);
    }
  const CriticalPath cp = critical_path(g);
  const auto busiest = std::max_element(stage_compute.begin(), stage_compute.end());
  out.compute_s = *busiest;
  out.optimizer_s = stage_optimizer[static_cast<std::size_t>(busiest - stage_compute.begin())];
  out.comm_total_s = *std::max_element(stage_comm.begin(), stage_comm.end());
  out.exposed_comm_s = cp.exposed_comm_s;
  out.bubble_s = std::max(0.0, cp.without_comm_s - out.compute_s);
  out.residual_s = pass.residual_s;
  out.step_s = cp.seconds + out.residual_s;
  // One device doing the global batch micro-batch by micro-batch, accumulating gradients:
  // forward and backward per micro-batch, the optimizer and the host residual once. With
  // --recompute it recomputes too, so the efficiency measures the layout, not the
  // recomputation (Megatron's weak-scaling figures compare runs that both recompute).
  out.single_device_pass_s = pass.pass_s + recompute_one_device;
  const double once = std::min(pass.pass_s, ph.optimizer + pass.residual_s);
  out.single_device_step_s = (out.single_device_pass_s - once) * static_cast<double>(D * M) + once;
  const double ideal = out.single_device_step_s / static_cast<double>(out.devices);
  out.scaling_efficiency = out.step_s > 0 ? ideal / out.step_s : 0;
  out.samples_per_s = out.step_s > 0 ? static_cast<double>(out.global_batch) / out.step_s : 0;
  out.memory = device_memory(w, layers, platform, layout, starts);
  if (out.residual_s > 0)
    out.notes.push_back("the host residual of one micro-batch (" + format_duration(out.residual_s) +
                        ") is added once per step, outside the op graph");
  out.notes.push_back(
      "layer times: the single-device forward and backward spread over the layers by their "
      "forward MACs");
  return out;
}

}  // namespace fomcast
