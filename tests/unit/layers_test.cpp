// The layer-list expansion, one layer type at a time, on small models whose operations
// can be checked by hand: forward ops, data and weight gradients (none into the model's
// inputs), optimizer updates and their bytes, parameters and MACs.
#include <doctest/doctest.h>

#include <regex>

#include "fomcast/error.hpp"
#include "fomcast/layers.hpp"
#include "test_support.hpp"

using namespace fomcast;

namespace {

ExpandedModel expand(const std::string& json) { return expand_model(json, "test.json"); }

std::vector<const Op*> find(const Workload& w, const std::string& name, Phase phase) {
  std::vector<const Op*> out;
  for (const auto& op : w.ops)
    if (op.name == name && op.phase == phase) out.push_back(&op);
  return out;
}

const Op& one(const Workload& w, const std::string& name, Phase phase) {
  const auto ops = find(w, name, phase);
  REQUIRE_MESSAGE(ops.size() == 1, ops.size() << " ops named " << name);
  return *ops.front();
}

GemmShape gemm(const Op& op) {
  REQUIRE(std::holds_alternative<GemmShape>(op.shape));
  return std::get<GemmShape>(op.shape);
}

std::vector<std::tuple<int64_t, int64_t, int64_t>> tuples(const std::string& text) {
  std::vector<std::tuple<int64_t, int64_t, int64_t>> out;
  const std::regex t(R"(\((\d+),\s*(\d+),\s*(\d+)\))");
  for (std::sregex_iterator it(text.begin(), text.end(), t), end; it != end; ++it)
    out.emplace_back(std::stoll((*it)[1]), std::stoll((*it)[2]), std::stoll((*it)[3]));
  return out;
}

std::vector<std::tuple<int64_t, int64_t, int64_t>> gemms(const Workload& w, Phase phase, std::string_view suffix = "") {
  std::vector<std::tuple<int64_t, int64_t, int64_t>> out;
  for (const auto& op : w.ops) {
    if (op.kind != OpKind::gemm || op.phase != phase || !op.name.ends_with(suffix)) continue;
    const auto g = gemm(op);
    for (int i = 0; i < int(op.count); ++i) out.emplace_back(g.m, g.n, g.k);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The field an InputError names, or "" when expansion succeeds.
std::string error_field(const std::string& json) {
  try {
    expand(json);
  } catch (const InputError& e) {
    CHECK(e.file == "test.json");
    return e.field.empty() ? "line " + std::to_string(e.line) : e.field;
  }
  return "";
}

}  // namespace

TEST_CASE("dense: the GEMMs of the seed README's MNIST MLP") {
  // The README lists the GEMMs (M,N,K) of a 784-1000-1000-10 MLP at batch 100, forward then
  // backward. Chainer stores W as [out, in], so its weight gradients are dY^T X (M = out); we
  // follow Keras and PyTorch's addmm backward, X^T dY (M = in): the same product transposed.
  const std::string readme = fomcast::test::slurp(fomcast::test::shared_path("fixtures/seed-formats/README.md"));
  std::smatch m;
  REQUIRE(std::regex_search(readme, m, std::regex(R"(GEMMs \(M,N,K\) are ([^\n]*)\n?([^\n]*))")));
  const std::string sentence = std::string(m[1]) + " " + std::string(m[2]);
  const auto split = sentence.find("forward");
  REQUIRE(split != std::string::npos);
  auto fwd = tuples(sentence.substr(0, split));
  auto bwd = tuples(sentence.substr(split));
  REQUIRE(fwd.size() == 3);
  REQUIRE(bwd.size() == 5);

  const auto w = expand(R"({"batch_size": 100, "optimizer": "adam", "input_shape": [784], "layers": [
      {"type": "dense", "units": 1000, "activation": "relu"},
      {"type": "dense", "units": 1000, "activation": "relu"},
      {"type": "dense", "units": 10, "activation": "softmax"}]})")
                     .workload;
  std::sort(fwd.begin(), fwd.end());
  CHECK(gemms(w, Phase::forward) == fwd);
  // Data gradients: the README's first two backward GEMMs (none for the first layer).
  std::vector<std::tuple<int64_t, int64_t, int64_t>> data(bwd.begin(), bwd.begin() + 2), weight;
  std::sort(data.begin(), data.end());
  CHECK(gemms(w, Phase::backward, ".grad_input") == data);
  for (auto it = bwd.begin() + 2; it != bwd.end(); ++it)
    weight.emplace_back(std::get<1>(*it), std::get<0>(*it), std::get<2>(*it));
  std::sort(weight.begin(), weight.end());
  CHECK(gemms(w, Phase::backward, ".grad_weight") == weight);
  for (const auto& op : find(w, "dense.grad_weight", Phase::backward)) CHECK(gemm(*op).trans_a);
  for (const auto& op : find(w, "dense.grad_input", Phase::backward)) CHECK(gemm(*op).trans_b);
  // 784*1000+1000 + 1000*1000+1000 + 1000*10+10 parameters; MACs per sample without biases.
  CHECK(w.model->params == 1796010);
  CHECK(w.model->forward_macs == 784.0 * 1000 + 1000.0 * 1000 + 1000.0 * 10);
  CHECK(one(w, "softmax", Phase::forward).count == 1);
  CHECK(find(w, "relu", Phase::forward).front()->count == 2);
  CHECK(find(w, "bias_grad", Phase::backward).size() == 2);  // [100,1000] x2 and [100,10]
}

TEST_CASE("optimizers: one update per parameter tensor, bytes per optimizer") {
  // Dense 3 -> 2: a [3,2] kernel and a [2] bias. Bytes per element: read w and g, write w
  // (SGD: 3 x 4 bytes), plus read and write of each state (momentum, RMSprop: 1; Adam: 2).
  struct Case {
    std::string optimizer;
    int states;
  };
  for (const Case& c : {Case{"\"sgd\"", 0}, Case{"{\"type\": \"sgd\", \"momentum\": 0.9}", 1}, Case{"\"momentum\"", 1},
                        Case{"\"rmsprop\"", 1}, Case{"\"adam\"", 2}, Case{"\"adamw\"", 2}}) {
    CAPTURE(c.optimizer);
    const auto m = expand(R"({"batch_size": 4, "optimizer": )" + c.optimizer +
                          R"(, "input_shape": [3], "layers": [{"type": "dense", "units": 2}]})");
    const auto& w = m.workload;
    std::vector<const Op*> updates;
    for (const auto& op : w.ops)
      if (op.kind == OpKind::optimizer) updates.push_back(&op);
    REQUIRE(updates.size() == 2);
    for (const Op* op : updates) {
      CHECK(op->phase == Phase::optimizer);
      const auto& t = std::get<TensorShape>(op->shape);
      const double elems = double(t.elements());
      CHECK((elems == 6 || elems == 2));
      CHECK(op->bytes == doctest::Approx((3 + 2 * c.states) * elems * 4));
    }
    CHECK(w.model->weights_bytes == 8 * 4);
    CHECK(w.model->gradients_bytes == 8 * 4);
    CHECK(w.model->optimizer_bytes == 8 * 4 * c.states);
  }
  CHECK(
      error_field(
          R"({"batch_size": 4, "optimizer": "lbfgs", "input_shape": [3], "layers": [{"type": "dense", "units": 2}]})") ==
      "optimizer");
}

TEST_CASE("conv2d: forward, filter and data gradients, grouped and dilated") {
  const auto m = expand(R"({"batch_size": 2, "input_shape": [8, 8, 3], "layers": [
      {"type": "conv2d", "filters": 4, "kernel_size": 3, "strides": 2, "padding": "same", "output_shape": [4, 4, 4]},
      {"type": "conv2d", "filters": 6, "kernel_size": 3, "padding": 1, "dilation_rate": 2, "groups": 2, "activation": "relu"}]})");
  const auto& w = m.workload;
  REQUIRE(m.layers.size() == 2);
  CHECK(m.layers[1].output_shape == std::vector<int64_t>{2, 2, 6});  // (4 + 2 - 5) / 1 + 1
  CHECK(m.layers[0].params == 3 * 3 * 3 * 4 + 4);
  CHECK(m.layers[1].params == 3 * 3 * (4 / 2) * 6 + 6);
  CHECK(m.layers[0].forward_macs == 4 * 4 * 4 * (3 * 3 * 3));
  CHECK(m.layers[1].forward_macs == 2 * 2 * 6 * (3 * 3 * 2));
  // Two forward convolutions, two filter gradients, one data gradient (not into the input).
  int fwd = 0, filter = 0, data = 0;
  for (const auto& op : w.ops) {
    const auto* c = std::get_if<ConvShape>(&op.shape);
    if (!c) continue;
    CHECK(c->n == 2);
    CHECK(op.flops == doctest::Approx(op_flops(OpKind::conv, *c)));
    fwd += c->direction == ConvDirection::forward;
    filter += c->direction == ConvDirection::backward_filter;
    data += c->direction == ConvDirection::backward_data;
    CHECK(c->output() == (c->k == 4 ? std::array<int64_t, 3>{1, 4, 4} : std::array<int64_t, 3>{1, 2, 2}));
    if (c->k == 6) {
      CHECK(c->groups == 2);
      CHECK(c->dilation == std::array<int64_t, 3>{1, 2, 2});
      CHECK(c->pad == std::array<int64_t, 3>{0, 1, 1});
      CHECK(c->c == 4);
    } else {
      CHECK(c->direction != ConvDirection::backward_data);
    }
  }
  CHECK(fwd == 2);
  CHECK(filter == 2);
  CHECK(data == 1);
  CHECK(error_field(R"({"batch_size": 2, "input_shape": [8, 8, 3], "layers": [
      {"type": "conv2d", "filters": 4, "kernel_size": 3, "groups": 2}]})") == "layers[0].groups");
}

TEST_CASE("conv1d and conv3d: Keras 'same' with even kernels, 'causal', 3-D windows") {
  // Keras pads an even kernel's "same" one more at the end; the op's shape carries that as one
  // extra input element, so ConvShape::output() is exact (as TensorFlow does on cuDNN).
  const auto m = expand(R"({"batch_size": 3, "input_shape": [1500, 300], "layers": [
      {"type": "conv1d", "filters": 100, "kernel_size": 4, "padding": "same", "output_shape": [1500, 100]},
      {"type": "conv1d", "filters": 10, "kernel_size": 3, "dilation_rate": 2, "padding": "causal", "output_shape": [1500, 10]}]})");
  for (const auto& op : m.workload.ops)
    if (const auto* c = std::get_if<ConvShape>(&op.shape)) CHECK(c->output()[2] == 1500);
  CHECK(m.layers[0].forward_macs == 1500.0 * 100 * 300 * 4);
  const auto v = expand(R"({"batch_size": 1, "input_shape": [4, 6, 6, 2], "layers": [
      {"type": "conv3d", "filters": 3, "kernel_size": [2, 3, 3]}]})");
  CHECK(v.layers[0].output_shape == std::vector<int64_t>{3, 4, 4, 3});
  CHECK(v.layers[0].params == 2 * 3 * 3 * 2 * 3 + 3);
  const Op& conv = one(v.workload, "conv3d", Phase::forward);
  CHECK(std::get<ConvShape>(conv.shape).dims == 3);
  CHECK(std::get<ConvShape>(conv.shape).output() == std::array<int64_t, 3>{3, 4, 4});
}

TEST_CASE("pooling, global pooling, flatten") {
  const auto m = expand(R"({"batch_size": 2, "input_shape": [6, 6, 2], "layers": [
      {"type": "conv2d", "filters": 2, "kernel_size": 1},
      {"type": "maxpool2d", "pool_size": 2, "output_shape": [3, 3, 2]},
      {"type": "avgpool2d", "pool_size": 3, "strides": 1, "padding": "same", "output_shape": [3, 3, 2]},
      {"type": "global_avgpool2d", "output_shape": [2]},
      {"type": "flatten"}]})");
  const auto& w = m.workload;
  const Op& max = one(w, "maxpool2d", Phase::forward);
  CHECK(max.kind == OpKind::pooling);
  CHECK(max.bytes == (2 * 72 + 2 * 18) * 4);  // read the input, write the output
  const Op& max_grad = one(w, "maxpool2d.grad", Phase::backward);
  CHECK(max_grad.bytes == (2 * 18 + 2 * 2 * 72) * 4);  // read dY and where the maxima were, write dX
  CHECK(one(w, "avgpool2d.grad", Phase::backward).bytes == (2 * 18 + 2 * 18) * 4);
  CHECK(one(w, "global_avgpool2d", Phase::forward).flops == 2 * 2 * 9);
  CHECK(m.layers[4].output_shape == std::vector<int64_t>{2});
  // Pooling right on the input has nothing to differentiate.
  const auto first = expand(R"({"batch_size": 2, "input_shape": [6, 6, 2], "layers": [
      {"type": "maxpool2d"}, {"type": "flatten"}, {"type": "dense", "units": 3}]})");
  CHECK(find(first.workload, "maxpool2d.grad", Phase::backward).empty());
  CHECK(find(first.workload, "dense.grad_input", Phase::backward).empty());
}

TEST_CASE("normalisation, dropout and activation layers") {
  const auto m = expand(R"({"batch_size": 4, "input_shape": [5, 5, 8], "layers": [
      {"type": "conv2d", "filters": 8, "kernel_size": 1, "use_bias": false},
      {"type": "batchnorm"},
      {"type": "lrn", "size": 5},
      {"type": "dropout", "rate": 0.5},
      {"type": "dropout", "rate": 0.0},
      {"type": "activation", "activation": "elu"},
      {"type": "reshape", "target_shape": [25, -1]},
      {"type": "layernorm"}]})");
  const auto& w = m.workload;
  CHECK(m.layers[1].params == 4 * 8);  // gamma, beta, moving mean and variance
  CHECK(m.layers[1].trainable_params == 2 * 8);
  CHECK(m.layers[2].params == 0);
  CHECK(m.layers[6].output_shape == std::vector<int64_t>{25, 8});
  CHECK(m.layers[7].params == 2 * 8);
  CHECK(w.model->params == 64 + 32 + 16);
  CHECK(w.model->gradients_bytes == (64 + 16 + 16) * 4);
  const double n = 4 * 5 * 5 * 8;
  CHECK(one(w, "batchnorm", Phase::forward).kind == OpKind::normalization);
  CHECK(one(w, "batchnorm", Phase::forward).bytes == 3 * n * 4);
  CHECK(one(w, "batchnorm.grad", Phase::backward).bytes == 5 * n * 4);
  CHECK(one(w, "layernorm", Phase::forward).bytes == 2 * n * 4);
  // Dropout reads x and writes y and a one-byte mask; a rate of 0 adds nothing.
  CHECK(one(w, "dropout", Phase::forward).bytes == (2 * 4 + 1) * n);
  CHECK(one(w, "dropout.grad", Phase::backward).bytes == (2 * 4 + 1) * n);
  CHECK(one(w, "elu", Phase::forward).count == 1);
  CHECK(one(w, "elu.grad", Phase::backward).count == 1);
  CHECK(one(w, "lrn", Phase::forward).kind == OpKind::normalization);
  // BatchNorm's moving statistics get no optimizer update: conv kernel, BN gamma/beta, LN gamma/beta.
  int updates = 0;
  for (const auto& op : w.ops) updates += op.kind == OpKind::optimizer ? int(op.count) : 0;
  CHECK(updates == 5);
}

TEST_CASE("embedding: a lookup forward, a scatter-add of the table's gradient backward") {
  const auto m = expand(R"({"batch_size": 4, "inputs": [{"name": "ids", "shape": [12], "dtype": "int64"}], "layers": [
      {"type": "embedding", "input_dim": 100, "output_dim": 8},
      {"type": "flatten"},
      {"type": "dense", "units": 3}]})");
  const auto& w = m.workload;
  const Op& look = one(w, "embedding", Phase::forward);
  CHECK(look.kind == OpKind::embedding);
  CHECK(std::get<EmbeddingShape>(look.shape) == EmbeddingShape{100, 8, 48});
  CHECK(one(w, "embedding.grad", Phase::backward).kind == OpKind::embedding);
  CHECK(m.layers[0].params == 800);
  // The dense layer reads a trained tensor, so it computes a data gradient.
  CHECK(gemm(one(w, "dense.grad_input", Phase::backward)) == GemmShape{4, 96, 3, 1, false, true});
}

TEST_CASE("lstm and gru: Keras parameter counts, recurrent ops for the kernel tables") {
  const auto m = expand(R"({"batch_size": 5, "input_shape": [10, 8], "layers": [
      {"type": "lstm", "units": 16, "return_sequences": true, "output_shape": [10, 16]},
      {"type": "gru", "units": 16, "output_shape": [16]},
      {"type": "gru", "units": 4, "reset_after": false, "inputs": ["lstm_0"]}]})");
  CHECK(m.layers[0].params == 4 * (16 * (8 + 16) + 16));
  CHECK(m.layers[1].params == 3 * (16 * (16 + 16) + 2 * 16));
  CHECK(m.layers[2].params == 3 * (4 * (16 + 4) + 4));
  CHECK(m.layers[0].forward_macs == 4.0 * 16 * (8 + 16) * 10);
  const auto& w = m.workload;
  const Op& fwd = one(w, "lstm", Phase::forward);
  CHECK(fwd.kind == OpKind::rnn);
  CHECK(std::get<RnnShape>(fwd.shape) == RnnShape{RnnCell::lstm, 16, 8, 5, 10});
  // The first layer's backward: recurrent dH and the weight gradient, no dX.
  const Op& bwd = one(w, "lstm.grad", Phase::backward);
  CHECK(bwd.flops == doctest::Approx(2.0 * 5 * 10 * 4 * 16 * (16 + (8 + 16))));
  for (const Op* g : find(w, "gru.grad", Phase::backward)) {
    const auto& s = std::get<RnnShape>(g->shape);
    const double u = double(s.hidden), in = double(s.input);
    CHECK(g->flops == doctest::Approx(2.0 * 5 * 10 * 3 * u * (u + in + (in + u))));
  }
}

TEST_CASE("multi-head attention: projections, batched score and context GEMMs, their gradients") {
  const auto m = expand(R"({"batch_size": 2, "input_shape": [6, 8], "layers": [
      {"type": "multi_head_attention", "heads": 2, "dropout": 0.1}]})");
  const auto& w = m.workload;
  CHECK(m.layers[0].params == 4 * (8 * 8 + 8));
  for (const char* p : {"attention.query", "attention.key", "attention.value", "attention.output"})
    CHECK(gemm(one(w, p, Phase::forward)) == GemmShape{12, 8, 8});
  // Batch x heads = 4 problems of S x S x d_k (scores, Q K^T) and S x d_k x S (context, P V).
  const Op& scores = one(w, "attention.scores", Phase::forward);
  CHECK(scores.kind == OpKind::batched_gemm);
  CHECK(gemm(scores) == GemmShape{6, 6, 4, 4, false, true});
  CHECK(gemm(one(w, "attention.context", Phase::forward)) == GemmShape{6, 4, 6, 4});
  CHECK(gemm(one(w, "attention.scores.grad_query", Phase::backward)) == GemmShape{6, 4, 6, 4});
  CHECK(gemm(one(w, "attention.scores.grad_key", Phase::backward)) == GemmShape{6, 4, 6, 4, true, false});
  CHECK(gemm(one(w, "attention.context.grad_probs", Phase::backward)) == GemmShape{6, 6, 4, 4, false, true});
  CHECK(gemm(one(w, "attention.context.grad_value", Phase::backward)) == GemmShape{6, 4, 6, 4, true, false});
  CHECK(std::get<TensorShape>(one(w, "attention.softmax", Phase::forward).shape).inputs.front() ==
        std::vector<int64_t>{2, 2, 6, 6});
  CHECK(!find(w, "dropout", Phase::forward).empty());
  // The query/key/value projections read the model's input: no data gradient there, but the
  // output projection's input (the context) needs one.
  CHECK(find(w, "attention.query.grad_input", Phase::backward).empty());
  CHECK(gemm(one(w, "attention.output.grad_input", Phase::backward)) == GemmShape{12, 8, 8, 1, false, true});
  // MACs: 4 projections 6*8*8 each, scores and context 2 heads * 6*6*4 each.
  CHECK(m.layers[0].forward_macs == 4 * 6 * 8 * 8 + 2 * 2 * 6 * 6 * 4);
  // Cross-attention: keys and values from a second input of another length and width.
  const auto x =
      expand(R"({"batch_size": 2, "inputs": [{"name": "q", "shape": [6, 8]}, {"name": "kv", "shape": [10, 12]}],
      "layers": [{"type": "multi_head_attention", "heads": 2, "inputs": ["q", "kv"]}]})");
  CHECK(gemm(one(x.workload, "attention.key", Phase::forward)) == GemmShape{20, 8, 12});
  CHECK(gemm(one(x.workload, "attention.scores", Phase::forward)) == GemmShape{6, 10, 4, 4, false, true});
}

TEST_CASE("transformer block: post-norm and pre-norm, parameters and op counts") {
  for (const std::string norm : {"post", "pre"}) {
    CAPTURE(norm);
    const auto m = expand(R"({"batch_size": 2, "inputs": [{"name": "ids", "shape": [6]}], "layers": [
        {"type": "embedding", "input_dim": 50, "output_dim": 8},
        {"type": "transformer_block", "heads": 2, "ff_units": 32, "norm": ")" +
                          norm + R"(", "dropout": 0.1, "fused_qkv": )" + (norm == "pre" ? "true" : "false") + R"(}]})");
    // Attention 4(D^2 + D), two layer norms 2 x 2D, MLP D*F + F + F*D + D.
    CHECK(m.layers[1].params == 4 * (64 + 8) + 4 * 8 + (8 * 32 + 32) + (32 * 8 + 8));
    const auto& w = m.workload;
    CHECK(find(w, "layernorm", Phase::forward).front()->count == 2);
    CHECK(find(w, "add", Phase::forward).front()->count == 2);
    CHECK(gemm(one(w, "mlp.up", Phase::forward)) == GemmShape{12, 32, 8});
    CHECK(gemm(one(w, "mlp.down", Phase::forward)) == GemmShape{12, 8, 32});
    CHECK(one(w, "gelu", Phase::forward).count == 1);
    if (norm == "pre") CHECK(gemm(one(w, "attention.qkv", Phase::forward)) == GemmShape{12, 24, 8});
    // The embedding trains, so the block's first projections compute data gradients.
    CHECK(!find(w, norm == "pre" ? "attention.qkv.grad_input" : "attention.query.grad_input", Phase::backward).empty());
  }
}

TEST_CASE("transformer block: eager attention kernels add the scale, the mask and the heads' merge") {
  auto block = [](const std::string& kernels, bool causal) {
    return expand(R"({"batch_size": 2, "inputs": [{"name": "ids", "shape": [6]}], "layers": [
        {"type": "embedding", "input_dim": 50, "output_dim": 8},
        {"type": "transformer_block", "heads": 2, "ff_units": 32, "causal": )" +
                  std::string(causal ? "true" : "false") + R"(, "attention_kernels": ")" + kernels + R"("}]})")
        .workload;
  };
  const Workload fused = block("fused", false), eager = block("eager", false), causal = block("eager", true);
  // Fused (the default): none of them.
  for (const char* name : {"attention.scale", "attention.mask", "attention.merge_heads"})
    CHECK(find(fused, name, Phase::forward).empty());
  // Eager: each reads and writes the scores [2 x 2 heads x 6 x 6] in fp32, by hand 2 x 144 x 4 bytes.
  CHECK(one(eager, "attention.scale", Phase::forward).bytes == 2 * 144 * 4);
  CHECK(one(eager, "attention.scale.grad", Phase::backward).bytes == 2 * 144 * 4);
  CHECK(one(eager, "attention.mask", Phase::forward).bytes == 2 * 144 * 4);
  CHECK(find(eager, "attention.mask.grad", Phase::backward).empty());  // an added mask passes the gradient on
  CHECK(one(causal, "attention.mask.grad", Phase::backward).bytes == 2 * 144 * 4);  // a selected one zeroes part
  // The merged context [2 x 6 x 8], copied forward and back.
  CHECK(one(eager, "attention.merge_heads", Phase::forward).bytes == 2 * 96 * 4);
  CHECK(one(eager, "attention.merge_heads.grad", Phase::backward).bytes == 2 * 96 * 4);
  // The same GEMMs either way.
  CHECK(gemm(one(eager, "attention.scores", Phase::forward)) == gemm(one(fused, "attention.scores", Phase::forward)));
  CHECK_THROWS_WITH_AS(block("paged", false), doctest::Contains("attention_kernels"), InputError);
}

TEST_CASE("transformer block: flash attention runs its GEMMs without the scores' ops, causal on half the keys") {
  // Batch 2, sequence 6, width 8, 2 heads of 4: batch x heads = 4.
  auto block = [](const std::string& kernels, bool causal) {
    return expand(R"({"batch_size": 2, "inputs": [{"name": "ids", "shape": [6]}], "layers": [
        {"type": "embedding", "input_dim": 50, "output_dim": 8},
        {"type": "transformer_block", "heads": 2, "ff_units": 32, "dropout": 0.1, "causal": )" +
                  std::string(causal ? "true" : "false") + R"(, "attention_kernels": ")" + kernels + R"("}]})");
  };
  const auto fused = block("fused", false), flash = block("flash", false), causal = block("flash", true);
  const Workload& w = flash.workload;
  // Nothing runs on the [4 x 6 x 6] scores on its own: no softmax, no dropout of the
  // probabilities (the block's two dropouts on [2 x 6 x 8] remain), no scale or mask.
  for (const char* name : {"attention.softmax", "attention.scale", "attention.mask", "attention.scores"})
    CHECK(find(w, name, Phase::forward).empty());
  CHECK(find(w, "attention.softmax.grad", Phase::backward).empty());
  CHECK(find(w, "dropout", Phase::forward).size() == find(fused.workload, "dropout", Phase::forward).size() - 1);
  // Forward: S = Q K^T (6 x 6, inner 4) and C = P V (6 x 4, inner 6), 4 of each.
  CHECK(gemm(one(w, "attention.flash.qk", Phase::forward)) == GemmShape{6, 6, 4, 4, false, true});
  CHECK(gemm(one(w, "attention.flash.pv", Phase::forward)) == GemmShape{6, 4, 6, 4});
  // Backward: the scores again, then dV = P^T dC, dP = dC V^T, dQ = dS K, dK = dS^T Q.
  CHECK(gemm(one(w, "attention.flash.grad.qk", Phase::backward)) == GemmShape{6, 6, 4, 4, false, true});
  CHECK(gemm(one(w, "attention.flash.grad.dv", Phase::backward)) == GemmShape{6, 4, 6, 4, true, false});
  CHECK(gemm(one(w, "attention.flash.grad.dp", Phase::backward)) == GemmShape{6, 6, 4, 4, false, true});
  CHECK(gemm(one(w, "attention.flash.grad.dq", Phase::backward)) == GemmShape{6, 4, 6, 4});
  CHECK(gemm(one(w, "attention.flash.grad.dk", Phase::backward)) == GemmShape{6, 4, 6, 4, true, false});
  // Work: forward 2 x 4 x 6 x 6 x (4 + 4) = 2304 FLOPs, as the fused path's two GEMMs;
  // backward 2 x 4 x 6 x 6 x (3 x 4 + 2 x 4) = 5760, one recomputed GEMM more than the fused 4608.
  auto flops = [](const Workload& wl, Phase phase, std::string_view prefix) {
    double f = 0;
    for (const auto& op : wl.ops)
      if (op.phase == phase && op.kind == OpKind::batched_gemm && op.name.starts_with(prefix)) f += op.flops * op.count;
    return f;
  };
  CHECK(flops(w, Phase::forward, "attention.flash") == 2304);
  CHECK(flops(fused.workload, Phase::forward, "attention.") == 2304);
  CHECK(flops(w, Phase::backward, "attention.flash") == 5760);
  CHECK(flops(fused.workload, Phase::backward, "attention.") == 4608);
  // Causal: the blocks above the diagonal are skipped, 3 of the 6 keys per query.
  CHECK(gemm(one(causal.workload, "attention.flash.qk", Phase::forward)) == GemmShape{6, 3, 4, 4, false, true});
  CHECK(gemm(one(causal.workload, "attention.flash.grad.dk", Phase::backward)) == GemmShape{3, 4, 6, 4, true, false});
  CHECK(flops(causal.workload, Phase::forward, "attention.flash") == 1152);
  // Kept for the backward: the softmax's row statistics (4 x 6, 4 bytes each) instead of the
  // probabilities, the dropped probabilities (4 x 36 each, 4 bytes) and the dropout's mask
  // (one byte each): 96 - (576 + 576 + 144) = -1200 bytes. (The raw scores are kept by
  // neither: the softmax's backward needs only its output.)
  CHECK(w.model->activations_bytes - fused.workload.model->activations_bytes == doctest::Approx(-1200.0));
  CHECK(w.model->params == fused.workload.model->params);
}

TEST_CASE("kept activations: what autograd saves, each tensor once (Korthikanti et al.'s block)") {
  // Two post-norm blocks in fp16: s = 6, h = 8, a = 2 heads, feed-forward 4h, dropout, batch 2.
  // Korthikanti et al. (2022, section 4.1) count a block's kept bytes as s b h (34 + 5 a s / h):
  // the QKV input, Q, K, V, the output projection's input, the MLP's input, GELU's input and
  // output, the two layer norms' inputs (2 bytes each), the softmax's output and the dropped
  // probabilities (2 bytes each), and three dropout masks (1 byte each). Not the raw scores,
  // the scale's or the mask's outputs, nor a dropout's input or output before a residual add.
  for (const char* kernels : {"eager", "fused"}) {
    CAPTURE(kernels);
    const auto m = expand(R"({"batch_size": 2, "dtype": "fp16", "inputs": [{"name": "ids", "shape": [6]}], "layers": [
        {"type": "embedding", "input_dim": 50, "output_dim": 8},
        {"type": "transformer_block", "heads": 2, "ff_units": 32, "dropout": 0.1, "norm": "post",
         "attention_kernels": ")" +
                          std::string(kernels) + R"("},
        {"type": "transformer_block", "heads": 2, "ff_units": 32, "dropout": 0.1, "norm": "post",
         "attention_kernels": ")" +
                          std::string(kernels) + R"("}]})");
    const double s = 6, h = 8, a = 2;
    for (int i : {1, 2}) {
      const LayerSummary& l = m.layers[static_cast<std::size_t>(i)];
      CHECK(l.kept_elements * 2 + l.kept_mask_bytes == doctest::Approx(s * h * (34 + 5 * a * s / h)));
      CHECK(l.kept_mask_bytes == doctest::Approx(a * s * s + 2 * s * h));  // per sample
      // Attention's core: the softmax's output, its dropout's mask and output.
      CHECK(l.kept_attention_elements == doctest::Approx(2 * a * s * s));
      CHECK(l.kept_attention_mask_bytes == doctest::Approx(a * s * s));
      // Whole on every tensor-parallel rank: the block's input (the QKV input; the first
      // block's is the embedding's output, not a block's), both norms' inputs, the MLP's input
      // and the two hidden dropouts' masks.
      CHECK(l.kept_replicated_elements == doctest::Approx((i == 1 ? 3 : 4) * s * h));
      CHECK(l.kept_replicated_mask_bytes == doctest::Approx(2 * s * h));
    }
  }
  // A conv, batch norm and ReLU chain: the conv saves its input, the norm its input (the
  // conv's output), ReLU its output, which the next conv saves again: kept once. The image
  // (3 x 4 x 4) is saved by the first conv; the second conv's output by nobody (average
  // pooling's backward needs only shapes); the pooled output by the loss.
  const auto cnn = expand(R"({"batch_size": 1, "input_shape": [4, 4, 3], "loss": "mse", "layers": [
      {"type": "conv2d", "filters": 2, "kernel_size": 3, "padding": "same", "use_bias": false},
      {"type": "batchnorm"}, {"type": "activation", "activation": "relu"},
      {"type": "conv2d", "filters": 2, "kernel_size": 3, "padding": "same", "use_bias": false},
      {"type": "global_avgpool2d"}]})");
  const double image = 48, map = 32;
  CHECK(cnn.workload.model->activations_bytes == doctest::Approx((image + map + map + 2) * 4));
}

TEST_CASE("graphs: several inputs, concatenate, add, slice, shared weights, tied embeddings") {
  const auto m = expand(R"({"batch_size": 4, "inputs": [{"name": "a", "shape": [10]}, {"name": "b", "shape": [10]},
      {"name": "c", "shape": [3]}], "layers": [
      {"type": "dense", "name": "tower", "units": 6, "inputs": ["a"]},
      {"type": "dense", "name": "tower@b", "units": 6, "inputs": ["b"], "share_weights": "tower"},
      {"type": "concatenate", "inputs": ["tower", "tower@b", "c"], "output_shape": [15]},
      {"type": "slice", "begin": 5, "size": 6},
      {"type": "add", "inputs": ["slice_3", "tower"]}]})");
  const auto& w = m.workload;
  CHECK(m.layers[1].params == 0);
  CHECK(m.layers[1].shares_weights_of == "tower");
  CHECK(w.model->params == 66);
  CHECK(w.model->forward_macs == 2 * 60);  // the tower runs twice per sample
  CHECK(one(w, "dense", Phase::forward).count == 2);
  CHECK(one(w, "dense.grad_weight", Phase::backward).count == 2);
  int updates = 0;
  for (const auto& op : w.ops) updates += op.kind == OpKind::optimizer ? int(op.count) : 0;
  CHECK(updates == 2);  // kernel and bias, once
  CHECK(m.layers[3].output_shape == std::vector<int64_t>{6});
  CHECK(one(w, "concat", Phase::forward).bytes == 2.0 * 4 * 15 * 4);
  // A language-model head tied to the embedding table: [dim, vocab] is the table transposed.
  const auto lm = expand(R"({"batch_size": 2, "inputs": [{"name": "ids", "shape": [5]}], "layers": [
      {"type": "embedding", "name": "wte", "input_dim": 40, "output_dim": 8},
      {"type": "dense", "units": 40, "share_weights": "wte", "use_bias": false}]})");
  CHECK(lm.workload.model->params == 320);
  CHECK(gemm(one(lm.workload, "dense", Phase::forward)) == GemmShape{10, 40, 8});
  CHECK(error_field(R"({"batch_size": 2, "inputs": [{"name": "ids", "shape": [5]}], "layers": [
      {"type": "embedding", "name": "wte", "input_dim": 40, "output_dim": 8},
      {"type": "dense", "units": 41, "share_weights": "wte"}]})") == "layers[1].share_weights");
}

TEST_CASE("multi-task models: each task's ops run in its share of the passes") {
  // Two task models trained in turn on 300 and 100 of an epoch's 400 samples.
  const auto m = expand(R"({"batch_size": 10, "samples_per_epoch": 400, "inputs": [
      {"name": "t0", "shape": [4], "samples_per_epoch": 300}, {"name": "t1", "shape": [4], "samples_per_epoch": 100}],
      "layers": [{"type": "dense", "units": 3, "inputs": ["t0"]}, {"type": "dense", "units": 5, "inputs": ["t1"]}]})");
  CHECK(m.layers[0].share == doctest::Approx(0.75));
  CHECK(m.layers[1].share == doctest::Approx(0.25));
  for (const auto& op : m.workload.ops) {
    if (op.kind != OpKind::gemm) continue;
    CHECK(op.count == doctest::Approx(gemm(op).n == 3 || gemm(op).m == 3 ? 0.75 : 0.25));
  }
  CHECK(m.workload.model->forward_macs == 12 + 20);
}

TEST_CASE("element type: fp16 halves every byte figure") {
  const std::string base = R"("batch_size": 8, "input_shape": [32], "layers": [{"type": "dense", "units": 16}])";
  const auto a = expand("{" + base + "}");
  const auto b = expand(R"({"dtype": "fp16", )" + base + "}");
  CHECK(b.workload.model->weights_bytes * 2 == a.workload.model->weights_bytes);
  CHECK(b.workload.model->activations_bytes * 2 == a.workload.model->activations_bytes);
  REQUIRE(a.workload.ops.size() == b.workload.ops.size());
  for (std::size_t i = 0; i < a.workload.ops.size(); ++i) {
    CHECK(b.workload.ops[i].dtype == DType::fp16);
    CHECK(b.workload.ops[i].bytes * 2 == doctest::Approx(a.workload.ops[i].bytes));
  }
}

TEST_CASE("bad model descriptions name the JSON path of the bad field") {
  const std::string head = R"("batch_size": 4, "input_shape": [10], )";
  CHECK(error_field(R"({"input_shape": [10], "layers": [{"type": "dense", "units": 2}]})") == "batch_size");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "units": "ten"}]})") == "layers[0].units");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "units": -3}]})") == "layers[0].units");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "units": 2.5}]})") == "layers[0].units");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "units": 1000000000000000}]})") == "layers[0].units");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "unit": 2}]})") == "layers[0].units");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "units": 2, "unit": 2}]})") == "layers[0].unit");
  // A pool's window too large is its pool_size, not a kernel_size the layer does not have.
  CHECK(error_field(
            R"({"batch_size": 2, "input_shape": [8, 8, 3], "layers": [{"type": "maxpool2d", "pool_size": 1000}]})") ==
        "layers[0].pool_size");
  // A key given twice: JSON keeps the last, so the first would vanish without a word.
  CHECK(error_field("{" + head +
                    R"("layers": [{"type": "dense", "units": 2}, {"type": "dense", "units": 2, "units": 3}]})") ==
        "layers[1].units");
  CHECK(error_field("{" + head + R"("batch_size": 8, "layers": [{"type": "dense", "units": 2}]})") == "batch_size");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "units": 2}, {"type": "convolution"}]})") ==
        "layers[1].type");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "units": 2, "output_shape": [3]}]})") ==
        "layers[0].output_shape");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "units": 2, "input_shape": [11]}]})") ==
        "layers[0].input_shape");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "units": 2, "name": "d"},
      {"type": "dense", "units": 3, "name": "e", "inputs": ["input"]}, {"type": "add", "inputs": ["d", "e"]}]})") ==
        "layers[2].inputs[1]");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dense", "units": 2, "inputs": ["nowhere"]}]})") ==
        "layers[0].inputs[0]");
  CHECK(error_field("{" + head + R"("layers": [{"type": "dropout", "rate": 1.5}]})") == "layers[0].rate");
  CHECK(error_field("{" + head + R"("layers": [{"type": "activation", "activation": "sigmoidal"}]})") ==
        "layers[0].activation");
  CHECK(error_field("{" + head + R"("layers": [{"type": "conv2d", "filters": 2, "kernel_size": 3}]})") ==
        "layers[0]");  // a conv2d needs [height, width, channels]
  CHECK(error_field("{" + head + R"("layers": []})") == "layers");
  // Absurd sizes are refused before any product could overflow.
  CHECK(error_field(R"({"batch_size": 1073741824, "input_shape": [10], "layers": [{"type": "dense", "units": 2}]})") ==
        "batch_size");
  CHECK(error_field(
            R"({"batch_size": 4, "input_shape": [1048576], "layers": [{"type": "dense", "units": 549755813888}]})") ==
        "layers[0]");
  CHECK(error_field(
            R"({"batch_size": 4, "input_shape": [1099511627776, 1099511627776], "layers": [{"type": "flatten"}]})") ==
        "input_shape");
  CHECK(error_field("{" + head + R"("layers": [{"type": "reshape", "target_shape": [18446744073709551615]}]})") ==
        "layers[0].target_shape[0]");
  CHECK(error_field("{" + head + R"("layers": [{"type": "reshape", "target_shape": [3, -1]}]})") ==
        "layers[0].target_shape");
  CHECK(error_field("{" + head + R"("layers": [3]})") == "layers[0]");
  CHECK(error_field(R"({"batch_size": 4, "layers": [{"type": "dense", "units": 2}]})") == "layers[0].input_shape");
  CHECK(error_field("[1, 2]") == "(top level)");
  CHECK(error_field("{\"batch_size\": 4,\n \"layers\": [") == "line 2");
  CHECK(error_field("") == "line 0");
}

TEST_CASE("format detection: a JSON object with a layers array and no traceEvents") {
  CHECK(model_description_score(R"(  {"name": "x", "layers" : [ {"type": "dense"}]})") > 0);
  CHECK(model_description_score(R"({"traceEvents": [], "layers": []})") == 0);
  CHECK(model_description_score(R"({"layers": 3})") == 0);
  CHECK(model_description_score(R"([{"layers": []}])") == 0);
  CHECK(model_description_score("name,layers\n") == 0);
}

TEST_CASE("the example in docs/model-format.md expands to the figures the page gives") {
  const std::string doc = fomcast::test::slurp(fomcast::test::source_path("docs/model-format.md"));
  const auto start = doc.find("```json\n");
  REQUIRE(start != std::string::npos);
  const auto end = doc.find("```", start + 8);
  const auto m = expand(doc.substr(start + 8, end - start - 8));
  // conv 3*3*3*16+16 + 3*3*16*32; batch norm 4*32; dense 40*64+64 + 64*10+10.
  CHECK(m.workload.model->params == 448 + 4608 + 128 + 2624 + 650);
  CHECK(m.workload.model->params == 8458);
  // 32*32*16*27 + 16*16*32*144 + 40*64 + 64*10 multiply-accumulates per sample.
  CHECK(m.workload.model->forward_macs == 1625216);
  CHECK(m.workload.ops.size() == 45);
  int data_grads = 0;
  for (const auto& op : m.workload.ops)
    if (const auto* c = std::get_if<ConvShape>(&op.shape)) data_grads += c->direction == ConvDirection::backward_data;
  CHECK(data_grads == 1);
}
