// The attention layer types: multi_head_attention (Keras MultiHeadAttention: query, and
// optionally a separate key/value input) and transformer_block (attention + MLP with
// residual adds and layer norms, post-norm as in BERT or pre-norm as in GPT-2).
#include "layers_graph.hpp"

namespace fomcast::layers {

std::vector<ParamTensor> dense_params(int64_t in, int64_t units, bool bias) {
  std::vector<ParamTensor> p{{"kernel", {in, units}, true}};
  if (bias) p.push_back({"bias", {units}, true});
  return p;
}

std::vector<ParamTensor> norm_params(Norm norm, int64_t channels) {
  if (norm == Norm::lrn) return {};
  std::vector<ParamTensor> p{{"gamma", {channels}, true}, {"beta", {channels}, true}};
  // Keras counts BatchNorm's moving statistics among the parameters (non-trainable).
  if (norm == Norm::batch) {
    p.push_back({"moving_mean", {channels}, false});
    p.push_back({"moving_variance", {channels}, false});
  }
  return p;
}

std::vector<ParamTensor> attention_params(const AttentionCfg& a, int64_t query_dim, int64_t kv_dim) {
  std::vector<ParamTensor> p;
  auto add = [&](std::vector<ParamTensor> more) { p.insert(p.end(), more.begin(), more.end()); };
  const int64_t h = a.heads;
  if (a.fused_qkv) {
    add(dense_params(query_dim, h * (2 * a.key_dim + a.value_dim), a.bias));
  } else {
    add(dense_params(query_dim, h * a.key_dim, a.bias));
    add(dense_params(kv_dim, h * a.key_dim, a.bias));
    add(dense_params(kv_dim, h * a.value_dim, a.bias));
  }
  add(dense_params(h * a.value_dim, a.output_dim, a.bias));
  return p;
}

namespace {

AttentionCfg read_attention(Fields& f, int64_t query_dim) {
  AttentionCfg a;
  a.heads = f.positive("heads");
  a.key_dim = f.positive_or("key_dim", 0);
  if (a.key_dim == 0) {
    if (query_dim % a.heads != 0)
      f.fail("heads", std::to_string(a.heads) + " heads do not divide the model width " + std::to_string(query_dim) +
                          "; give key_dim");
    a.key_dim = query_dim / a.heads;
  }
  a.value_dim = f.positive_or("value_dim", a.key_dim);
  a.output_dim = f.positive_or("output_dim", query_dim);
  a.dropout = f.number_or("dropout", 0, 0, 1, false);
  a.fused_qkv = f.boolean_or("fused_qkv", false);
  f.check_elements("heads", double(a.heads) * double(2 * a.key_dim + a.value_dim), "the projections");
  a.causal = f.boolean_or("causal", false);
  a.bias = f.boolean_or("use_bias", true);
  const std::string kernels = f.string_or("attention_kernels", "fused");
  if (kernels == "eager")
    a.kernels = AttentionCfg::Kernels::eager;
  else if (kernels == "flash")
    a.kernels = AttentionCfg::Kernels::flash;
  else if (kernels != "fused")
    f.fail("attention_kernels",
           "expected \"fused\" (scale, mask and softmax in one kernel), \"eager\" (each its own) or \"flash\" "
           "(FlashAttention: one kernel that never writes the scores)");
  return a;
}

void require_sequence(Fields& f, const Shape& s, std::string_view what) {
  if (s.size() != 2)
    f.fail_here(std::string(what) + " expects a [sequence, features] input per sample, got " + shape_text(s));
}

}  // namespace

void build_attention(Fields& f, Node& n) {
  const Shape& q = n.in[0];
  const Shape& kv = n.in.size() > 1 ? n.in[1] : n.in[0];
  require_sequence(f, q, "multi_head_attention");
  require_sequence(f, kv, "multi_head_attention");
  AttentionCfg a = read_attention(f, q[1]);
  if (a.fused_qkv && n.in.size() > 1) f.fail("fused_qkv", "a fused QKV projection needs self-attention (one input)");
  f.check_elements("heads", double(a.heads) * double(q[0]) * double(kv[0]), "the attention scores");
  n.params = attention_params(a, q[1], kv[1]);
  n.out = {q[0], a.output_dim};
  n.cfg = a;
}

void emit_attention_layer(Emitter& e, const Node& n) {
  emit_attention(e, std::get<AttentionCfg>(n.cfg), n.in[0], n.in.size() > 1 ? n.in[1] : n.in[0]);
}

void build_transformer_block(Fields& f, Node& n) {
  const Shape& x = n.in[0];
  require_sequence(f, x, "transformer_block");
  BlockCfg b;
  b.attention = read_attention(f, x[1]);
  if (b.attention.output_dim != x[1])
    f.fail("output_dim", "a transformer block's attention must give back the model width " + std::to_string(x[1]));
  b.ff_units = f.positive("ff_units");
  f.check_elements("ff_units", double(x[0]) * double(b.ff_units), "the MLP");
  f.check_elements("heads", double(b.attention.heads) * double(x[0]) * double(x[0]), "the attention scores");
  b.act = parse_activation(f, "activation");
  if (!f.has("activation")) b.act = {"gelu"};
  const std::string norm = f.string_or("norm", "post");
  if (norm != "post" && norm != "pre") f.fail("norm", "expected \"post\" (BERT) or \"pre\" (GPT-2)");
  b.pre_norm = norm == "pre";
  b.dropout = b.attention.dropout;
  const int64_t d = x[1];
  n.params = attention_params(b.attention, d, d);
  auto add = [&](std::vector<ParamTensor> more) { n.params.insert(n.params.end(), more.begin(), more.end()); };
  add(norm_params(Norm::layer, d));
  add(dense_params(d, b.ff_units, true));
  add(dense_params(b.ff_units, d, true));
  add(norm_params(Norm::layer, d));
  n.out = x;
  n.cfg = b;
}

void emit_transformer_block(Emitter& e, const Node& n) {
  const auto& b = std::get<BlockCfg>(n.cfg);
  const Shape& x = n.in[0];
  const bool outer_input_grad = e.input_grad;
  const bool inner = e.input_grad || e.weight_grad;
  // The ops on the block's own [s x h] activations, which tensor parallel replicates.
  auto replicated = [&](auto&& emit) {
    e.in_replicated = true;
    emit();
    e.in_replicated = false;
  };
  if (b.pre_norm) {  // x + drop(attn(ln(x))); then x + drop(mlp(ln(x)))
    replicated([&] { emit_norm(e, Norm::layer, x); });
    e.input_grad = inner;
    emit_attention(e, b.attention, x, x);
  } else {  // ln(x + drop(attn(x))); then ln(x + drop(mlp(x)))
    emit_attention(e, b.attention, x, x);
    e.input_grad = inner;
  }
  replicated([&] {
    emit_dropout(e, b.dropout, x);
    emit_add(e, {x, x});
    emit_norm(e, Norm::layer, x);
  });
  emit_dense(e, "mlp.up", x, b.ff_units, true, b.act);
  emit_dense(e, "mlp.down", {x[0], b.ff_units}, x[1], true, {});
  replicated([&] {
    emit_dropout(e, b.dropout, x);
    emit_add(e, {x, x});
    if (!b.pre_norm) emit_norm(e, Norm::layer, x);
  });
  e.input_grad = outer_input_grad;
}

}  // namespace fomcast::layers
