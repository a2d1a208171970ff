// What parallel.cpp and parallel_memory.cpp both ask of a layer and a workload.
#pragma once

#include "fomcast/parallel.hpp"

namespace fomcast {

// Megatron's tensor-parallel layout splits the transformer blocks, the embeddings and the LM
// head tied to the token embedding (vocabulary-parallel) T ways; every other layer is
// replicated.
inline bool split_by_tp(const LayerCost& l) {
  return l.type == "transformer_block" || l.type == "embedding" || l.tied_to_embedding;
}
inline bool is_block(const LayerCost& l) { return l.type == "transformer_block"; }
// The share of the layer's weights (and of what it keeps) one of `tp` ranks holds.
inline double tp_rank_share(const LayerCost& l, int64_t tp) {
  return tp > 1 && split_by_tp(l) ? 1.0 / static_cast<double>(tp) : 1.0;
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
