// The layer list a parallel layout needs, derived from a trace's operations (parallel.hpp's
// trace_layers): a trace has no model description, but its forward GEMMs, convolutions and
// embeddings carry the weight shapes, so each call of one is a layer with the parameters of
// its weight, its MACs and its output.
#include <algorithm>
#include <cmath>
#include <optional>

#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/parallel.hpp"

namespace fomcast {
namespace {

bool is_layer_op(const Op& op) {
  if (op.phase != Phase::forward) return false;
  switch (op.kind) {
    case OpKind::gemm: return std::holds_alternative<GemmShape>(op.shape);
    case OpKind::batched_gemm: return std::holds_alternative<GemmShape>(op.shape);
    case OpKind::conv: return std::holds_alternative<ConvShape>(op.shape);
    case OpKind::embedding: return std::holds_alternative<EmbeddingShape>(op.shape);
    default: return false;
  }
}

bool is_weight_kind(OpKind k) { return k == OpKind::gemm || k == OpKind::conv || k == OpKind::embedding; }

// One call of a layer op, per sample of a micro-batch of b.
LayerCost layer_of(const Op& op, double b, const std::vector<EmbeddingShape>& tables, bool* tied) {
  LayerCost l;
  l.name = op.name;
  if (const auto* g = std::get_if<GemmShape>(&op.shape)) {
    const double m = static_cast<double>(g->m), n = static_cast<double>(g->n), k = static_cast<double>(g->k);
    l.output_elems = static_cast<double>(g->batch) * m * n / b;
    if (op.kind == OpKind::batched_gemm) {
      // Attention's two batched GEMMs multiply activations: no weight.
      l.type = "attention";
    } else {
      l.type = "linear";
      l.in_features = k;
      l.out_features = n;
      // The weight is K x N (the rows are the tokens or samples); addmm adds a bias of N.
      l.params = k * n + (op.name.find("addmm") != std::string::npos ? n : 0);
      // A GEMM whose weight has an embedding table's shape is the tied output projection
      // (GPT-2, BERT): its parameters are the table's, counted once.
      for (const auto& t : tables)
        if ((t.rows == g->n && t.dim == g->k) || (t.rows == g->k && t.dim == g->n)) {
          l.params = 0;
          l.tied_to_embedding = true;
          *tied = true;
        }
    }
  } else if (const auto* c = std::get_if<ConvShape>(&op.shape)) {
    l.type = "conv";
    double filter = 1, out = 1;
    const auto o = c->output();
    for (int d = 0; d < 3; ++d) filter *= static_cast<double>(c->filter[d]), out *= static_cast<double>(o[d]);
    const double groups = static_cast<double>(std::max<int64_t>(1, c->groups));
    l.params = static_cast<double>(c->k) * static_cast<double>(c->c) / groups * filter;
    l.output_elems = static_cast<double>(c->n) * static_cast<double>(c->k) * out / b;
  } else if (const auto* e = std::get_if<EmbeddingShape>(&op.shape)) {
    l.type = "embedding";
    l.params = static_cast<double>(e->rows) * static_cast<double>(e->dim);
    l.output_elems = static_cast<double>(e->lookups) * static_cast<double>(e->dim) / b;
  }
  // MACs as the cost model counts them (two FLOPs each), per sample.
  l.forward_macs = op_flops(op.kind, op.shape) / 2 / b;
  return l;
}

}  // namespace

DerivedLayers trace_layers(const Workload& w, std::string_view flag) {
  const std::string f(flag);
  if (w.batch_size <= 0) throw UsageError(f + ": workload '" + w.name + "' has no batch size: give --batch-per-gpu");
  const auto b = static_cast<double>(w.batch_size);
  DerivedLayers out;
  std::vector<EmbeddingShape> tables;
  std::size_t unshaped = 0;
  for (const auto& op : w.ops) {
    if (const auto* e = std::get_if<EmbeddingShape>(&op.shape); e && op.phase == Phase::forward) tables.push_back(*e);
    if (op.phase == Phase::forward && is_weight_kind(op.kind) && !is_layer_op(op)) ++unshaped;
  }
  // The layer ops in the order they first ran, each with its calls per pass.
  struct Entry {
    const Op* op;
    int64_t calls;
  };
  std::vector<Entry> entries;
  bool fractional = false;
  for (const auto& op : w.ops) {
    if (!is_layer_op(op)) continue;
    const auto calls = std::max<int64_t>(1, std::llround(op.count));
    if (std::abs(op.count - static_cast<double>(calls)) > 1e-6) fractional = true;
    entries.push_back({&op, calls});
  }
  if (entries.empty())
    throw UsageError(
        f + ": workload '" + w.name + "' is a trace with no forward GEMM, convolution or embedding whose shape it " +
        (unshaped > 0 ? "records (" + std::to_string(unshaped) +
                            " such ops without shapes: record the trace with shapes, or give its execution trace)"
                      : "records") +
        ": the layout needs each layer's parameters, MACs and output");
  bool tied = false;
  int64_t layer_calls = 0, kept_layer_calls = 0;
  for (const auto& e : entries) layer_calls += e.calls;
  for (const auto& c : w.calls)
    if (c.op < w.ops.size() && is_layer_op(w.ops[c.op])) ++kept_layer_calls;
  if (!w.calls.empty() && kept_layer_calls == layer_calls) {
    // The trace kept its pass's calls in the order they ran (an execution trace): one layer
    // per forward call of a layer op, in that order.
    for (const auto& c : w.calls)
      if (c.op < w.ops.size() && is_layer_op(w.ops[c.op]))
        out.layers.push_back(layer_of(w.ops[c.op], b, tables, &tied));
  } else if (!w.calls.empty()) {
    out.notes.push_back("the trace's kept calls hold " + std::to_string(kept_layer_calls) + " of the " +
                        std::to_string(layer_calls) +
                        " layer op calls of a pass (some were not carried onto its ops): their order is not used");
  }
  // Otherwise the trace's order is aggregated away: the calls of one distinct op are merged.
  // A run of consecutive ops (in first-run order) with the same call count c > 1 is taken as
  // a block repeated c times (a transformer's or a ResNet stage's), so its ops are interleaved.
  const bool in_run_order = !out.layers.empty();
  for (std::size_t i = 0; !in_run_order && i < entries.size();) {
    std::size_t j = i + 1;
    while (j < entries.size() && entries[j].calls == entries[i].calls) ++j;
    for (int64_t r = 0; r < entries[i].calls; ++r)
      for (std::size_t k = i; k < j; ++k) {
        LayerCost l = layer_of(*entries[k].op, b, tables, &tied);
        if (entries[i].calls > 1) l.name += " #" + std::to_string(r);
        out.layers.push_back(std::move(l));
      }
    i = j;
  }
  double params = 0;
  for (const auto& l : out.layers) params += l.params;
  out.notes.push_back("layers derived from the trace: " + std::to_string(out.layers.size()) +
                      " forward GEMM, convolution and embedding calls " +
                      (w.calls.empty()
                           ? std::string("in the order their ops first ran (runs of ops with the same call count "
                                         "interleaved as a repeated block), ")
                           : std::string("in the order the trace ran them, ")) +
                      format_significant(params) +
                      " parameters from their weight shapes (biases of addmm counted; normalization and other small "
                      "parameters left out)");
  if (tied)
    out.notes.push_back(
        "a GEMM whose weight has an embedding table's shape is taken as tied to it (its parameters counted once)");
  if (fractional) out.notes.push_back("some layer ops have a fractional count per pass: rounded to whole calls");
  if (unshaped > 0)
    out.notes.push_back(std::to_string(unshaped) +
                        " forward GEMM/convolution/embedding ops without a shape are not layers (their time is "
                        "spread over the others)");
  return out;
}

namespace {

bool linear(const LayerCost& l, double in, double out) {
  return l.type == "linear" && l.in_features == in && (out <= 0 || l.out_features == out);
}

// The block starting at layers[i], its end (one past its last layer) and widths; nullopt
// when the layers there are not one.
struct Block {
  std::size_t end = 0;
  double hidden = 0, ffn = 0;
};
std::optional<Block> block_at(const std::vector<LayerCost>& layers, std::size_t i) {
  const auto n = layers.size();
  if (i >= n || layers[i].type != "linear") return std::nullopt;
  const double h = layers[i].in_features;
  std::size_t j = i;
  if (layers[i].out_features == 3 * h)
    j += 1;  // fused QKV
  else if (i + 2 < n && linear(layers[i], h, h) && linear(layers[i + 1], h, h) && linear(layers[i + 2], h, h))
    j += 3;  // Q, K and V apart
  else
    return std::nullopt;
  const std::size_t attention = j;
  while (j < n && layers[j].type == "attention") ++j;
  if (j == attention || j + 3 > n) return std::nullopt;
  if (!linear(layers[j], h, h)) return std::nullopt;
  const double f = layers[j + 1].out_features;
  if (!linear(layers[j + 1], h, 0) || f <= h || !linear(layers[j + 2], f, h)) return std::nullopt;
  return Block{j + 3, h, f};
}

}  // namespace

DerivedLayers megatron_blocks(DerivedLayers in, const std::string& workload, int64_t tp, std::string_view flag) {
  const std::string f(flag);
  DerivedLayers out;
  out.notes = std::move(in.notes);
  std::size_t blocks = 0, replicated_linears = 0;
  bool tied_head = false;
  std::optional<Block> first;
  for (std::size_t i = 0; i < in.layers.size();) {
    const auto b = block_at(in.layers, i);
    if (!b) {
      const LayerCost& l = in.layers[i];
      if (l.type == "linear" && l.params > 0 && !l.tied_to_embedding) ++replicated_linears;
      tied_head = tied_head || l.tied_to_embedding;
      out.layers.push_back(l);
      ++i;
      continue;
    }
    if (!first) first = b;
    const auto ti = static_cast<double>(tp);
    if (std::fmod(b->hidden, ti) != 0 || std::fmod(b->ffn, ti) != 0)
      throw UsageError(f + ": tp=" + std::to_string(tp) + " on the trace '" + workload + "': its transformer block " +
                       "at layer " + std::to_string(i) + " has hidden size " + std::to_string(std::llround(b->hidden)) +
                       " and MLP width " + std::to_string(std::llround(b->ffn)) +
                       ", which Megatron's layout cannot split " + std::to_string(tp) + " ways");
    LayerCost block;
    block.name = "block " + std::to_string(blocks) + " (" + in.layers[i].name + " ...)";
    block.type = "transformer_block";
    for (std::size_t k = i; k < b->end; ++k) {
      block.params += in.layers[k].params;
      block.forward_macs += in.layers[k].forward_macs;
    }
    block.output_elems = in.layers[b->end - 1].output_elems;
    out.layers.push_back(std::move(block));
    ++blocks;
    i = b->end;
  }
  if (blocks == 0)
    throw UsageError(f + ": tp=" + std::to_string(tp) + " on the trace '" + workload + "': none of its " +
                     std::to_string(in.layers.size()) +
                     " layers form a transformer block by Megatron's shapes (in the order they ran: a linear h -> 3h "
                     "or three h -> h, attention's batched GEMMs, a linear h -> h, then h -> f and f -> h), so "
                     "there is no column- and row-parallel pair to split and no place for its all-reduces; data and "
                     "pipeline parallel work on this trace");
  out.notes.push_back(
      "tensor parallel: " + std::to_string(blocks) + " transformer blocks found by their GEMMs' shapes (hidden " +
      std::to_string(std::llround(first->hidden)) + ", MLP " + std::to_string(std::llround(first->ffn)) +
      "; attention's input projection, batched GEMMs, output projection and MLP), each split " + std::to_string(tp) +
      " ways as Megatron does, with its two all-reduces each way" +
      (tied_head ? "; the output projection tied to the token embedding split over the vocabulary (the lookup's "
                   "all-reduce forward, the head input's backward, the parallel cross-entropy's three forward)"
                 : "") +
      (replicated_linears > 0
           ? "; " + std::to_string(replicated_linears) + " other linear layers with weights replicated"
           : std::string()));
  return out;
}

}  // namespace fomcast
