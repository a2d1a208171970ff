// What parallel.cpp and parallel_memory.cpp both ask of a layer and a workload.
#pragma once

#include <algorithm>
#include <vector>

#include "fomcast/parallel.hpp"

namespace fomcast {

// Megatron's word embedding, split over the vocabulary (VocabParallelEmbedding): the
// embedding with the most parameters, the table an LM head is tied to. Position and
// token-type embeddings are plain tables that every rank holds whole. Returns its parameters
// (0: no embedding).
inline double vocabulary_params(const std::vector<LayerCost>& layers) {
  double most = 0;
  for (const auto& l : layers)
    if (l.type == "embedding") most = std::max(most, l.params);
  return most;
}
inline bool is_vocabulary(const LayerCost& l, double vocabulary) {
  return l.type == "embedding" && vocabulary > 0 && l.params >= vocabulary;
}

// Megatron's tensor-parallel layout splits the transformer blocks, the word embedding and the
// LM head tied to it (vocabulary-parallel) T ways; every other layer is replicated.
inline bool is_block(const LayerCost& l) { return l.type == "transformer_block"; }
inline bool split_by_tp(const LayerCost& l, double vocabulary) {
  return is_block(l) || l.tied_to_embedding || is_vocabulary(l, vocabulary);
}
// The share of the layer's weights (and of what it keeps) one of `tp` ranks holds.
inline double tp_rank_share(const LayerCost& l, int64_t tp, double vocabulary) {
  return tp > 1 && split_by_tp(l, vocabulary) ? 1.0 / static_cast<double>(tp) : 1.0;
}

// A pipeline stage holding a tied LM head but not the word embedding keeps its own copy of
// the table (Megatron's last stage: the two copies' gradients are all-reduced every step so
// they stay one weight). The copy's parameters for the layers [lo, hi), 0 when they hold the
// table or no tied head.
inline double tied_copy_params(const std::vector<LayerCost>& layers, std::size_t lo, std::size_t hi,
                               double vocabulary) {
  bool head = false;
  for (std::size_t i = lo; i < hi; ++i) {
    if (is_vocabulary(layers[i], vocabulary)) return 0;
    head = head || layers[i].tied_to_embedding;
  }
  return head ? vocabulary : 0;
}

// Whether --recompute checkpoints the layer (its input kept, its forward run again in the
// backward): each transformer block where the model has them, as Megatron's
// --checkpoint-activations and Hugging Face's gradient checkpointing do (the embeddings and
// the LM head keep their activations), else every layer.
inline bool recomputed(const ParallelLayout& layout, const LayerCost& l, bool model_has_blocks) {
  return layout.recompute && (!model_has_blocks || is_block(l));
}
// Whether only attention's core is recomputed (--recompute-attention; --recompute covers it).
inline bool recomputes_attention_only(const ParallelLayout& layout) {
  return layout.recompute_attention && !layout.recompute;
}

// The element type activations are kept and travel in: the first GEMM's (2 bytes under fp16,
// bf16 and autocast, whose GEMMs keep half-precision copies of their inputs).
inline double activation_bytes_per_elem(const Workload& w) {
  for (const auto& op : w.ops)
    if (op.kind == OpKind::gemm || op.kind == OpKind::batched_gemm || op.kind == OpKind::conv) switch (op.dtype) {
        case DType::fp16:
        case DType::bf16: return 2;
        case DType::fp64: return 8;
        default: return 4;
      }
  return 4;
}

}  // namespace fomcast
