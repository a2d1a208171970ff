// The casts autocast adds (precision.hpp, autocast_weight_casts). Under torch.autocast a
// matmul-like op on the fp16 list (mm, addmm, linear, conv) casts each fp32 input to half
// before it runs (aten::_to_copy: one elementwise kernel reading 4 B and writing 2 B per
// element). A weight is a leaf tensor that requires grad, which autocast casts once per
// forward of its region and caches (autocast_mode.cpp, cached_cast); the cast is
// differentiable, so the backward pass casts the weight's half gradient back to the fp32
// parameter (ToCopyBackward0: read 2 B, write 4 B per element) where the weight trains.
// A workload recorded in fp16/bf16 storage already holds these kernels; one recorded in fp32
// and estimated in an amp mode gets them here.
//
// Only the weights are added: which activations reach a half op in fp32 (the output of a
// layer norm, a softmax, an fp32 residual stream after type promotion) depends on the data
// flow, which an aggregated op list does not keep. Biases are left out too: the layer
// expansion adds them as their own elementwise op, not as an operand of the GEMM.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fomcast/precision.hpp"

namespace fomcast {
namespace {

// The weight operand of a forward matmul-like op, as the layer expansion and PyTorch's
// linear and conv pass it: GEMM C[M,N] = X[M,K] W[K,N]; conv weight [K, C/groups, filter],
// given as the matrix [K, C/groups x filter] (a cast copies contiguous memory, and the
// elementwise tables index a shape by its rows and row length: a 1x1 conv's weight
// [2048, 512, 1, 1] would read as 10^6 rows of one element). Empty for ops with no weight
// operand (batched GEMMs multiply two activations).
std::vector<int64_t> weight_dims(const Op& op) {
  if (const auto* g = std::get_if<GemmShape>(&op.shape); g && op.kind == OpKind::gemm && g->batch == 1)
    return {g->k, g->n};
  if (const auto* c = std::get_if<ConvShape>(&op.shape); c && op.kind == OpKind::conv) {
    if (c->groups <= 0 || c->c % c->groups != 0) return {};
    int64_t per_filter = c->c / c->groups;
    for (int i = 3 - c->dims; i < 3; ++i) per_filter *= c->filter[static_cast<std::size_t>(i)];
    return {c->k, per_filter};
  }
  return {};
}

// The key of the weight a backward op computes the gradient of, in the forward op's terms:
// dW[K,N] = X^T[K,M] dY[M,N] (trans_a), a conv's backward_filter of the same shape.
std::optional<std::string> weight_grad_key(const Op& op) {
  if (const auto* g = std::get_if<GemmShape>(&op.shape);
      g && op.kind == OpKind::gemm && g->batch == 1 && g->trans_a && !g->trans_b)
    return "gemm " + std::to_string(g->m) + "x" + std::to_string(g->n) + " rows " + std::to_string(g->k);
  if (const auto* c = std::get_if<ConvShape>(&op.shape);
      c && op.kind == OpKind::conv && c->direction == ConvDirection::backward_filter) {
    ConvShape f = *c;
    f.direction = ConvDirection::forward;
    return "conv " + shape_key(f);
  }
  return std::nullopt;
}

std::string forward_key(const Op& op) {
  if (const auto* g = std::get_if<GemmShape>(&op.shape))
    return "gemm " + std::to_string(g->k) + "x" + std::to_string(g->n) + " rows " + std::to_string(g->m);
  return "conv " + shape_key(op.shape);
}

Op cast_op(const std::vector<int64_t>& dims, DType half, Phase phase, double count) {
  double elements = 1;
  for (int64_t d : dims) elements *= static_cast<double>(d);
  Op c;
  c.name = phase == Phase::forward ? "autocast.cast_weight" : "autocast.cast_weight.grad";
  c.kind = OpKind::elementwise;
  c.shape = TensorShape{{dims}};
  // Its math is a conversion; the half side is the type its table and roofline key on.
  c.dtype = half;
  c.phase = phase;
  c.count = count;
  c.bytes = elements * (dtype_bytes(DType::fp32) + dtype_bytes(half));  // read one, write the other
  c.flops = 0;
  return c;
}

}  // namespace

std::vector<Op> autocast_weight_casts(const Workload& recorded, PrecisionMode mode) {
  if (mode != PrecisionMode::amp_fp16 && mode != PrecisionMode::amp_bf16) return {};
  const DType half = mode == PrecisionMode::amp_fp16 ? DType::fp16 : DType::bf16;
  struct Weight {
    std::vector<int64_t> dims;
    double forward_calls = 0, grad_calls = 0;
  };
  std::map<std::string, Weight> weights;  // by the forward op's weight and rows: one entry per shape
  for (const Op& op : recorded.ops) {
    if (op.phase != Phase::forward || dtype_bytes(op.dtype) != dtype_bytes(DType::fp32)) continue;
    if (op_precision(op.kind, op.name, op.dtype, mode).storage != half) continue;
    auto dims = weight_dims(op);
    if (dims.empty()) continue;
    Weight& w = weights[forward_key(op)];
    w.dims = std::move(dims);
    w.forward_calls += op.count;
  }
  for (const Op& op : recorded.ops) {
    if (op.phase != Phase::backward || dtype_bytes(op.dtype) != dtype_bytes(DType::fp32)) continue;
    if (const auto key = weight_grad_key(op)) {
      auto it = weights.find(*key);
      if (it != weights.end()) it->second.grad_calls += op.count;
    }
  }
  // One cast op per weight shape and direction (weights of one shape are one op, as the
  // workload's own ops are aggregated).
  std::map<std::pair<std::vector<int64_t>, Phase>, double> calls;
  for (const auto& [key, w] : weights) {
    calls[{w.dims, Phase::forward}] += w.forward_calls;
    // A weight whose gradient the pass computes; a frozen one has no backward cast.
    calls[{w.dims, Phase::backward}] += std::min(w.grad_calls, w.forward_calls);
  }
  std::vector<Op> casts;
  for (const auto& [what, count] : calls)
    if (count > 0) casts.push_back(cast_op(what.first, half, what.second, count));
  return casts;
}

}  // namespace fomcast
