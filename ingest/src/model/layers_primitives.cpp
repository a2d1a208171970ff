// The building blocks every layer type emits with: a dense (GEMM) layer with its bias and
// activation, elementwise activations, dropout, normalisation, residual adds, and
// multi-head attention. Each primitive emits its forward ops and, when a gradient flows
// through it, the backward ops in one group (the pass runs groups in reverse).
//
// GEMM conventions (cuBLAS/DeepBench C[M,N] = op(A)[M,K] op(B)[K,N]; weights stored
// [in, out] as Keras does):
//   forward       Y[M,N]  = X[M,K]   W[K,N]          M = batch rows, N = units, K = inputs
//   data grad     dX[M,K] = dY[M,N]  W^T[N,K]        (trans_b)
//   weight grad   dW[K,N] = X^T[K,M] dY[M,N]         (trans_a)
// which is also how PyTorch's addmm backward calls aten::mm.
#include "layers_graph.hpp"

#include <algorithm>
#include <array>

namespace fomcast::layers {

namespace {

// Keras activation names; "linear" means none.
constexpr std::array kActivations = {"relu",     "sigmoid",  "tanh",         "softmax",     "log_softmax", "elu",
                                     "selu",     "gelu",     "leaky_relu",   "relu6",       "swish",       "silu",
                                     "softplus", "softsign", "hard_sigmoid", "exponential", "mish"};

Op gemm_op(const Emitter& e, std::string name, OpKind kind, GemmShape g, Phase phase) {
  return e.make(std::move(name), kind, g, phase);
}

}  // namespace

Activation parse_activation(Fields& f, std::string_view key) {
  if (!f.has(key)) return {};
  const std::string name = f.string(key);
  if (name == "linear") return {};
  if (std::find(kActivations.begin(), kActivations.end(), name) == kActivations.end()) {
    std::string known = "linear";
    for (const char* a : kActivations) known += std::string(", ") + a;
    f.fail(key, "unknown activation '" + name + "' (known: " + known + ")");
  }
  return {name};
}

int64_t ParamTensor::elements() const { return product(dims); }

int64_t product(const Shape& s) {
  int64_t p = 1;
  for (int64_t d : s) p *= d;
  return p;
}

Shape batched(const Emitter& e, const Shape& per_sample) {
  Shape s{e.batch};
  s.insert(s.end(), per_sample.begin(), per_sample.end());
  return s;
}

// ---------------------------------------------------------------------------------------
// Emitter

void Emitter::begin_node() {
  backward.emplace_back();
  node_macs = 0;
}

void Emitter::begin_group() { backward.back().emplace_back(); }

Op Emitter::make(std::string name, OpKind kind, OpShape shape, Phase phase, double bytes, double flops) const {
  Op op;
  op.name = std::move(name);
  op.kind = kind;
  op.shape = std::move(shape);
  op.dtype = dtype;
  op.phase = phase;
  op.count = share;
  op.bytes = bytes;
  op.flops = flops;
  fill_costs(op);
  return op;
}

void Emitter::fwd(Op op) {
  if (is_compute_bound(op.kind)) node_macs += op.flops / 2;
  forward.push_back(std::move(op));
}

void Emitter::wrote(double elements) { current = {elements, false, in_attention_core, in_replicated, false}; }

void Emitter::wrote_and_saved(double elements) {
  wrote(elements);
  save_input();
}

void Emitter::save_input() {
  if (current.kept) return;
  kept.add(current.elements, current.attention, current.replicated);
  current.kept = true;
  if (current.node_input) node_input_saved = true;
}

void Emitter::keep(double elements) { kept.add(elements, in_attention_core, in_replicated); }

void Emitter::keep_mask(double elements) {
  kept.mask_bytes += elements;
  if (in_attention_core) kept.attention_mask_bytes += elements;
  if (in_replicated) kept.replicated_mask_bytes += elements;
}

void Emitter::bwd(Op op) { backward.back().back().push_back(std::move(op)); }

// ---------------------------------------------------------------------------------------
// Primitives

void emit_dense(Emitter& e, std::string_view name, const Shape& in, int64_t units, bool bias, const Activation& act) {
  const int64_t k = in.back();
  const int64_t rows = e.batch * product(Shape(in.begin(), in.end() - 1));
  Shape out = in;
  out.back() = units;
  const std::string n(name);
  e.begin_group();
  e.save_input();  // the weight gradient needs the input
  e.fwd(gemm_op(e, n, OpKind::gemm, GemmShape{rows, units, k}, Phase::forward));
  e.wrote(double(rows) * double(units));
  // In place on the GEMM's output (addmm), and its gradient needs nothing saved.
  if (bias) e.fwd(e.make("bias_add", OpKind::elementwise, TensorShape{{batched(e, out), {units}}}, Phase::forward));
  if (e.weight_grad) {
    if (bias) e.bwd(e.make("bias_grad", OpKind::reduction, TensorShape{{batched(e, out)}}, Phase::backward));
    e.bwd(gemm_op(e, n + ".grad_weight", OpKind::gemm, GemmShape{k, units, rows, 1, true, false}, Phase::backward));
  }
  if (e.input_grad)
    e.bwd(gemm_op(e, n + ".grad_input", OpKind::gemm, GemmShape{rows, k, units, 1, false, true}, Phase::backward));
  emit_activation(e, act, out);
}

void emit_activation(Emitter& e, const Activation& act, const Shape& per_sample) {
  if (act.none()) return;
  const Shape t = batched(e, per_sample);
  e.begin_group();
  // ReLU, sigmoid, tanh and the softmaxes differentiate from their output; GELU, SiLU and
  // the rest from their input.
  const bool from_output = act.name == "relu" || act.name == "sigmoid" || act.name == "tanh" || act.name == "softmax" ||
                           act.name == "log_softmax";
  if (!from_output) e.save_input();
  e.fwd(e.make(act.name, OpKind::elementwise, TensorShape{{t}}, Phase::forward));
  if (from_output)
    e.wrote_and_saved(double(product(t)));
  else
    e.wrote(double(product(t)));
  // The gradient reads dY and the saved output (or input) and writes dX.
  if (e.input_grad || e.weight_grad)
    e.bwd(e.make(act.name + ".grad", OpKind::elementwise, TensorShape{{t, t}}, Phase::backward));
}

void emit_dropout(Emitter& e, double rate, const Shape& per_sample) {
  if (rate <= 0) return;
  const Shape t = batched(e, per_sample);
  const double n = double(product(t));
  // Reads x, writes y and a one-byte mask; the gradient reads dY and the mask, writes dX.
  const double bytes = (2 * e.elem_bytes + 1) * n;
  e.begin_group();
  e.fwd(e.make("dropout", OpKind::elementwise, TensorShape{{t}}, Phase::forward, bytes));
  e.keep_mask(n);
  e.wrote(n);
  if (e.input_grad || e.weight_grad)
    e.bwd(e.make("dropout.grad", OpKind::elementwise, TensorShape{{t, t}}, Phase::backward, bytes));
}

void emit_norm(Emitter& e, Norm norm, const Shape& per_sample, int64_t lrn_size) {
  const Shape t = batched(e, per_sample);
  const double n = double(product(t));
  // Traffic in passes over the tensor: batch norm takes statistics in one pass and
  // normalises in another (3 tensor passes forward: read, read, write; 5 backward: two
  // reductions over x and dY, then dX); layer norm and LRN work per row in one pass.
  const char* name = norm == Norm::batch ? "batchnorm" : norm == Norm::layer ? "layernorm" : "lrn";
  const double fwd_passes = norm == Norm::batch ? 3 : 2;
  const double bwd_passes = norm == Norm::batch ? 5 : 3;
  const double flops = norm == Norm::lrn ? 2.0 * double(lrn_size) * n : 5 * n;
  e.begin_group();
  e.save_input();  // (and its per-row or per-channel statistics, small beside it)
  e.fwd(e.make(name, OpKind::normalization, TensorShape{{t}}, Phase::forward, fwd_passes * n * e.elem_bytes, flops));
  e.wrote(n);
  if (e.input_grad || e.weight_grad)
    e.bwd(e.make(std::string(name) + ".grad", OpKind::normalization, TensorShape{{t, t}}, Phase::backward,
                 bwd_passes * n * e.elem_bytes, 2 * flops));
}

void emit_add(Emitter& e, const std::vector<Shape>& per_sample) {
  TensorShape ts;
  for (const auto& s : per_sample) ts.inputs.push_back(batched(e, s));
  e.begin_group();
  // The gradient of a sum is passed on unchanged: no backward op, nothing saved.
  e.fwd(e.make("add", OpKind::elementwise, ts, Phase::forward));
  e.wrote(double(ts.elements()));
}

namespace {

// FlashAttention (Dao et al. 2022; PyTorch's scaled_dot_product_attention on its flash path):
// the forward computes Q K^T, the softmax, the dropout and P V block by block in one kernel
// and writes only the context; the backward recomputes the scores and forms dV, dP, dQ and
// dK. No table measures such a kernel, so each of its GEMMs is timed as the batched GEMM it
// is, which the tables time with its product written out: that write stands for the
// on-chip softmax, rescaling and masking the kernel does instead. No scale, mask, softmax
// or dropout op runs on its own, and nothing the size of the scores is kept for the
// backward. A causal mask skips the blocks above the diagonal: half the keys per query.
void emit_flash_attention(Emitter& e, const AttentionCfg& a, int64_t sq, int64_t sk, bool grad) {
  const int64_t dk = a.key_dim, dv = a.value_dim, bh = e.batch * a.heads;
  const int64_t keys = a.causal ? std::max<int64_t>(1, (sk + 1) / 2) : sk;
  e.begin_group();
  // Kept: Q, K and V (the projections', saved by the caller), the softmax's row
  // statistics and the context.
  e.fwd(
      gemm_op(e, "attention.flash.qk", OpKind::batched_gemm, GemmShape{sq, keys, dk, bh, false, true}, Phase::forward));
  e.keep(double(bh) * double(sq));
  e.fwd(gemm_op(e, "attention.flash.pv", OpKind::batched_gemm, GemmShape{sq, dv, keys, bh}, Phase::forward));
  e.wrote_and_saved(double(bh) * double(sq) * double(dv));
  if (!grad) return;
  e.bwd(gemm_op(e, "attention.flash.grad.qk", OpKind::batched_gemm, GemmShape{sq, keys, dk, bh, false, true},
                Phase::backward));
  e.bwd(gemm_op(e, "attention.flash.grad.dv", OpKind::batched_gemm, GemmShape{keys, dv, sq, bh, true, false},
                Phase::backward));
  e.bwd(gemm_op(e, "attention.flash.grad.dp", OpKind::batched_gemm, GemmShape{sq, keys, dv, bh, false, true},
                Phase::backward));
  e.bwd(gemm_op(e, "attention.flash.grad.dq", OpKind::batched_gemm, GemmShape{sq, dk, keys, bh}, Phase::backward));
  e.bwd(gemm_op(e, "attention.flash.grad.dk", OpKind::batched_gemm, GemmShape{keys, dk, sq, bh, true, false},
                Phase::backward));
}

}  // namespace

// Multi-head attention over query [Sq, Dq] and key/value [Sk, Dkv] per sample. Scores and
// context are batched GEMMs with batch = batch x heads; the scale, mask and softmax are one
// fused elementwise op, as in fused attention implementations without flash kernels, unless
// the layer says its kernels are eager or flash (AttentionCfg::Kernels).
void emit_attention(Emitter& e, const AttentionCfg& a, const Shape& q, const Shape& kv) {
  const int64_t sq = q[0], sk = kv[0], h = a.heads, dk = a.key_dim, dv = a.value_dim;
  const int64_t bh = e.batch * h;
  const bool outer_input_grad = e.input_grad;
  // Each projection's output is saved by the batched GEMM (or flash kernel) that reads it.
  if (a.fused_qkv) {
    emit_dense(e, "attention.qkv", q, h * (2 * dk + dv), a.bias, {});
    e.save_input();
  } else {
    for (const auto& [name, dim] : {std::pair{"attention.query", dk}, {"attention.key", dk}, {"attention.value", dv}}) {
      emit_dense(e, name, name == std::string_view("attention.query") ? q : kv, h * dim, a.bias, {});
      e.save_input();
    }
  }
  // Everything after the projections depends on their weights.
  e.input_grad = e.input_grad || e.weight_grad;
  const bool grad = e.input_grad;

  if (a.kernels == AttentionCfg::Kernels::flash) {
    emit_flash_attention(e, a, sq, sk, grad);
    emit_dense(e, "attention.output", {sq, h * dv}, a.output_dim, a.bias, {});
    e.input_grad = outer_input_grad;
    return;
  }
  const bool eager = a.kernels == AttentionCfg::Kernels::eager;
  e.in_attention_core = true;
  e.begin_group();
  // The raw scores are not kept: the scale, the mask and the softmax's backward need none
  // of them.
  e.fwd(gemm_op(e, "attention.scores", OpKind::batched_gemm, GemmShape{sq, sk, dk, bh, false, true}, Phase::forward));
  e.wrote(double(bh) * double(sq) * double(sk));
  if (grad) {
    // S = Q K^T: dQ = dS K, dK = dS^T Q.
    e.bwd(gemm_op(e, "attention.scores.grad_query", OpKind::batched_gemm, GemmShape{sq, dk, sk, bh}, Phase::backward));
    e.bwd(gemm_op(e, "attention.scores.grad_key", OpKind::batched_gemm, GemmShape{sk, dk, sq, bh, true, false},
                  Phase::backward));
  }
  const Shape probs{h, sq, sk};
  const Shape pt = batched(e, probs);
  if (eager) {
    // scores / sqrt(d), then + mask (a padding mask added, or a causal one selected with
    // torch.where): each reads and writes the scores. The scale's gradient is another pass;
    // an added mask passes the gradient on unchanged, a selected one zeroes part of it.
    e.begin_group();
    e.fwd(e.make("attention.scale", OpKind::elementwise, TensorShape{{pt}}, Phase::forward));
    if (grad) e.bwd(e.make("attention.scale.grad", OpKind::elementwise, TensorShape{{pt}}, Phase::backward));
    e.begin_group();
    e.fwd(e.make("attention.mask", OpKind::elementwise, TensorShape{{pt}}, Phase::forward));
    if (grad && a.causal) e.bwd(e.make("attention.mask.grad", OpKind::elementwise, TensorShape{{pt}}, Phase::backward));
  }
  e.begin_group();
  e.fwd(e.make("attention.softmax", OpKind::elementwise, TensorShape{{pt}}, Phase::forward));
  e.wrote_and_saved(double(product(pt)));
  if (grad) e.bwd(e.make("attention.softmax.grad", OpKind::elementwise, TensorShape{{pt, pt}}, Phase::backward));
  emit_dropout(e, a.dropout, probs);

  e.begin_group();
  e.save_input();  // the probabilities (dropped out or not); V was saved above
  e.fwd(gemm_op(e, "attention.context", OpKind::batched_gemm, GemmShape{sq, dv, sk, bh}, Phase::forward));
  // The context is the core's output, kept (by the output projection) when the core is
  // recomputed too.
  e.in_attention_core = false;
  e.wrote(double(bh) * double(sq) * double(dv));
  if (grad) {
    // C = P V: dP = dC V^T, dV = P^T dC.
    e.bwd(gemm_op(e, "attention.context.grad_probs", OpKind::batched_gemm, GemmShape{sq, sk, dv, bh, false, true},
                  Phase::backward));
    e.bwd(gemm_op(e, "attention.context.grad_value", OpKind::batched_gemm, GemmShape{sk, dv, sq, bh, true, false},
                  Phase::backward));
  }
  if (eager) {
    // The heads merged back: context.permute(0, 2, 1, 3).contiguous() copies the context,
    // and its gradient is copied back into the heads' layout.
    const Shape merged = batched(e, Shape{sq, h * dv});
    e.begin_group();
    e.fwd(e.make("attention.merge_heads", OpKind::elementwise, TensorShape{{merged}}, Phase::forward));
    e.wrote(double(product(merged)));
    if (grad) e.bwd(e.make("attention.merge_heads.grad", OpKind::elementwise, TensorShape{{merged}}, Phase::backward));
  }
  emit_dense(e, "attention.output", {sq, h * dv}, a.output_dim, a.bias, {});
  e.input_grad = outer_input_grad;
}

}  // namespace fomcast::layers
