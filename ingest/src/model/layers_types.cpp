// The table of layer types: for each, how it reads its fields and infers its output shape
// and parameter tensors (build), and which operations one training pass runs for it (emit).
// Per-sample shapes are channels-last, as in Keras: [length, channels] for conv1d,
// [height, width, channels] for conv2d, [depth, height, width, channels] for conv3d.
#include <algorithm>
#include <array>

#include "layers_graph.hpp"

namespace fomcast::layers {
namespace {

// ---------------------------------------------------------------------------------------
// Windows (convolution and pooling): output size and padding per spatial dimension

struct Window {
  int64_t out = 0;
  int64_t pad = 0;    // symmetric padding
  int64_t input = 0;  // input size as the kernel sees it (see below)
};

// "valid", "same", "causal" (conv1d) or explicit symmetric padding. Keras' "same" can pad
// one more at the end than at the start; like TensorFlow on cuDNN we express that as one
// extra input row plus symmetric padding, so ConvShape::output() stays exact.
struct Padding {
  enum Kind { valid, same, causal, explicit_ } kind = valid;
  Shape amounts;
};

Padding read_padding(Fields& f, int dims, bool allow_causal) {
  Padding p;
  const nlohmann::json* v = f.raw("padding");
  if (!v) return p;
  if (v->is_string()) {
    const std::string s = v->get<std::string>();
    if (s == "valid") return p;
    if (s == "same") return {Padding::same, {}};
    if (s == "causal" && allow_causal) return {Padding::causal, {}};
    f.fail("padding", std::string("expected \"valid\", \"same\"") + (allow_causal ? ", \"causal\"" : "") +
                          " or a number of elements, found \"" + s + "\"");
  }
  p.kind = Padding::explicit_;
  p.amounts = f.per_dim("padding", dims, 0, 0);
  return p;
}

// `field` names the window's size in the layer (kernel_size for a conv, pool_size for a
// pool): an error names what the user wrote.
Window window(Fields& f, const Padding& p, std::size_t i, int64_t length, int64_t kernel, int64_t stride,
              int64_t dilation, const char* field = "kernel_size") {
  if (double(dilation) * double(kernel - 1) > double(kMaxDim)) f.fail(field, "window is too large");
  const int64_t span = dilation * (kernel - 1) + 1;
  Window w{0, 0, length};
  switch (p.kind) {
    case Padding::valid:
      if (length < span)
        f.fail(field, "window of " + std::to_string(span) + " is larger than the input (" + std::to_string(length) +
                          ") with \"valid\" padding");
      w.out = (length - span) / stride + 1;
      break;
    case Padding::same: {
      w.out = (length + stride - 1) / stride;
      const int64_t total = std::max<int64_t>((w.out - 1) * stride + span - length, 0);
      w.pad = total / 2;
      w.input = length + total % 2;
      break;
    }
    case Padding::causal:
      w.out = (length - 1) / stride + 1;
      w.input = length + span - 1;
      break;
    case Padding::explicit_:
      w.pad = p.amounts[i];
      if (length + 2 * w.pad < span)
        f.fail("padding", "window of " + std::to_string(span) + " is larger than the padded input");
      w.out = (length + 2 * w.pad - span) / stride + 1;
      break;
  }
  return w;
}

void require_rank(Fields& f, const Shape& in, std::size_t rank, std::string_view what) {
  if (in.size() != rank)
    f.fail_here(std::string(what) + " expects a per-sample input of rank " + std::to_string(rank) + ", got " +
                shape_text(in));
}

std::string conv_name(int dims) { return "conv" + std::to_string(dims) + "d"; }

// ---------------------------------------------------------------------------------------
// dense

void build_dense(Fields& f, Node& n) {
  DenseCfg c;
  c.units = f.positive("units");
  c.bias = f.boolean_or("use_bias", true);
  c.act = parse_activation(f, "activation");
  n.out = n.in[0];
  n.out.back() = c.units;
  n.params = dense_params(n.in[0].back(), c.units, c.bias);
  n.cfg = c;
}

void emit_dense_layer(Emitter& e, const Node& n) {
  const auto& c = std::get<DenseCfg>(n.cfg);
  emit_dense(e, "dense", n.in[0], c.units, c.bias, c.act);
}

// ---------------------------------------------------------------------------------------
// conv1d / conv2d / conv3d

template <int Dims>
void build_conv(Fields& f, Node& n) {
  const Shape& in = n.in[0];
  require_rank(f, in, Dims + 1, conv_name(Dims));
  ConvCfg c;
  c.dims = Dims;
  c.filters = f.positive("filters");
  if (!f.has("kernel_size")) f.fail("kernel_size", "required field is missing");
  const Shape kernel = f.per_dim("kernel_size", Dims, 1, 1);
  const Shape stride = f.per_dim("strides", Dims, 1, 1);
  const Shape dilation = f.per_dim("dilation_rate", Dims, 1, 1);
  const Padding pad = read_padding(f, Dims, Dims == 1);
  c.groups = f.positive_or("groups", 1);
  c.bias = f.boolean_or("use_bias", true);
  c.act = parse_activation(f, "activation");
  const int64_t channels = in.back();
  if (channels % c.groups != 0 || c.filters % c.groups != 0)
    f.fail("groups", std::to_string(c.groups) + " groups must divide both the input channels (" +
                         std::to_string(channels) + ") and the filters (" + std::to_string(c.filters) + ")");
  ConvShape& s = c.shape;
  s.dims = Dims;
  s.c = channels;
  s.k = c.filters;
  s.groups = c.groups;
  for (std::size_t i = 0; i < std::size_t(Dims); ++i) {
    const std::size_t at = 3 - Dims + i;  // spatial arrays run {depth, height, width}
    const Window w = window(f, pad, i, in[i], kernel[i], stride[i], dilation[i]);
    s.input[at] = w.input;
    s.pad[at] = w.pad;
    s.filter[at] = kernel[i];
    s.stride[at] = stride[i];
    s.dilation[at] = dilation[i];
    n.out.push_back(w.out);
  }
  n.out.push_back(c.filters);
  Shape kdims = kernel;
  kdims.push_back(channels / c.groups);
  kdims.push_back(c.filters);
  n.params = {{"kernel", kdims, true}};
  if (c.bias) n.params.push_back({"bias", {c.filters}, true});
  n.cfg = c;
}

void emit_conv(Emitter& e, const Node& n) {
  const auto& c = std::get<ConvCfg>(n.cfg);
  const std::string name = conv_name(c.dims);
  ConvShape s = c.shape;
  s.n = e.batch;
  const Shape out = batched(e, n.out);
  e.begin_group();
  e.save_input();  // the filter gradient needs the input
  e.fwd(e.make(name, OpKind::conv, s, Phase::forward));
  e.wrote(double(product(out)));
  if (c.bias) e.fwd(e.make("bias_add", OpKind::elementwise, TensorShape{{out, {c.filters}}}, Phase::forward));
  if (e.weight_grad) {
    if (c.bias) e.bwd(e.make("bias_grad", OpKind::reduction, TensorShape{{out}}, Phase::backward));
    ConvShape g = s;
    g.direction = ConvDirection::backward_filter;
    e.bwd(e.make(name + ".grad_filter", OpKind::conv, g, Phase::backward));
  }
  if (e.input_grad) {
    ConvShape g = s;
    g.direction = ConvDirection::backward_data;
    e.bwd(e.make(name + ".grad_input", OpKind::conv, g, Phase::backward));
  }
  emit_activation(e, c.act, n.out);
}

// ---------------------------------------------------------------------------------------
// pooling: maxpool/avgpool 1d-3d and their global forms

template <int Dims, bool Max, bool Global>
void build_pool(Fields& f, Node& n) {
  const Shape& in = n.in[0];
  require_rank(f, in, Dims + 1, "pooling");
  PoolCfg c;
  c.dims = Dims;
  c.max = Max;
  c.global = Global;
  if (Global) {
    c.window = Shape(in.begin(), in.end() - 1);
    n.out = {in.back()};
  } else {
    const Shape size = f.per_dim("pool_size", Dims, 2, 1);
    const Shape stride = f.has("strides") ? f.per_dim("strides", Dims, 1, 1) : size;
    const Padding pad = read_padding(f, Dims, false);
    for (std::size_t i = 0; i < std::size_t(Dims); ++i)
      n.out.push_back(window(f, pad, i, in[i], size[i], stride[i], 1, "pool_size").out);
    n.out.push_back(in.back());
    c.window = size;
  }
  n.cfg = c;
}

void emit_pool(Emitter& e, const Node& n) {
  const auto& c = std::get<PoolCfg>(n.cfg);
  const std::string name =
      std::string(c.global ? "global_" : "") + (c.max ? "maxpool" : "avgpool") + std::to_string(c.dims) + "d";
  const Shape in = batched(e, n.in[0]), out = batched(e, n.out);
  const double n_in = double(product(in)), n_out = double(product(out)), window = double(product(c.window));
  e.begin_group();
  // Max pooling's backward needs the input and where the maxima were (counted as one
  // element each); average pooling's needs only the shapes.
  if (c.max) e.save_input();
  e.fwd(
      e.make(name, OpKind::pooling, TensorShape{{in}}, Phase::forward, (n_in + n_out) * e.elem_bytes, n_out * window));
  if (c.max) e.keep(n_out);
  e.wrote(n_out);
  // Max pooling's gradient also reads where the maxima were; average pooling's does not.
  if (e.input_grad)
    e.bwd(e.make(name + ".grad", OpKind::pooling, TensorShape{{out, in}}, Phase::backward,
                 (n_out + (c.max ? 2 : 1) * n_in) * e.elem_bytes, n_out * window));
}

// ---------------------------------------------------------------------------------------
// normalisation, dropout, activation

template <Norm N>
void build_norm(Fields& f, Node& n) {
  NormCfg c;
  c.norm = N;
  if (N == Norm::lrn) {
    c.size = f.positive_or("size", 5);
    f.number_or("alpha", 1e-4, 0, 1e9, true);
    f.number_or("beta", 0.75, 0, 1e9, true);
    f.number_or("bias", 1, 0, 1e9, true);
  } else {
    f.number_or("epsilon", 1e-3, 0, 1, true);
    if (N == Norm::batch) f.number_or("momentum", 0.99, 0, 1, true);
  }
  n.out = n.in[0];
  n.params = norm_params(N, n.in[0].back());
  n.cfg = c;
}

void emit_norm_layer(Emitter& e, const Node& n) {
  const auto& c = std::get<NormCfg>(n.cfg);
  emit_norm(e, c.norm, n.out, c.size);
}

void build_dropout(Fields& f, Node& n) {
  n.cfg = DropoutCfg{f.number_or("rate", -1, 0, 1, false)};
  if (!f.has("rate")) f.fail("rate", "required field is missing");
  n.out = n.in[0];
}

void emit_dropout_layer(Emitter& e, const Node& n) { emit_dropout(e, std::get<DropoutCfg>(n.cfg).rate, n.out); }

void build_activation(Fields& f, Node& n) {
  if (!f.has("activation")) f.fail("activation", "required field is missing");
  n.cfg = ActivationCfg{parse_activation(f, "activation")};
  n.out = n.in[0];
}

void emit_activation_layer(Emitter& e, const Node& n) { emit_activation(e, std::get<ActivationCfg>(n.cfg).act, n.out); }

// ---------------------------------------------------------------------------------------
// embedding

void build_embedding(Fields& f, Node& n) {
  EmbeddingCfg c;
  c.vocab = f.positive("input_dim");
  c.dim = f.positive("output_dim");
  n.out = n.in[0];
  n.out.push_back(c.dim);
  n.params = {{"embeddings", {c.vocab, c.dim}, true}};
  n.cfg = c;
}

void emit_embedding(Emitter& e, const Node& n) {
  const auto& c = std::get<EmbeddingCfg>(n.cfg);
  const EmbeddingShape s{c.vocab, c.dim, e.batch * product(n.in[0])};
  e.begin_group();
  e.save_input();  // the ids: which rows the table's gradient goes to
  e.fwd(e.make("embedding", OpKind::embedding, s, Phase::forward));
  e.wrote(double(s.lookups) * double(s.dim));
  // Token ids have no gradient: only the table's (a scatter-add of dY into the rows used).
  if (e.weight_grad) e.bwd(e.make("embedding.grad", OpKind::embedding, s, Phase::backward));
}

// ---------------------------------------------------------------------------------------
// lstm / gru: kept as recurrent ops (RnnShape), which the estimator can time from
// DeepBench's RNN tables; FLOPs of the backward op are set from what it computes.

int gates(RnnCell c) { return c == RnnCell::lstm ? 4 : c == RnnCell::gru ? 3 : 1; }

template <RnnCell Cell>
void build_rnn(Fields& f, Node& n) {
  const Shape& in = n.in[0];
  require_rank(f, in, 2, Cell == RnnCell::lstm ? "lstm" : "gru");
  RnnCfg c;
  c.cell = Cell;
  c.units = f.positive("units");
  c.return_sequences = f.boolean_or("return_sequences", false);
  f.number_or("dropout", 0, 0, 1, false);
  f.number_or("recurrent_dropout", 0, 0, 1, false);
  parse_activation(f, "activation");
  parse_activation(f, "recurrent_activation");
  const int64_t g = gates(Cell) * c.units;
  n.params = {{"kernel", {in[1], g}, true}, {"recurrent_kernel", {c.units, g}, true}};
  // Keras' GRU (reset_after, the TF2 default and cuDNN's form) keeps two bias vectors.
  const bool two_biases = Cell == RnnCell::gru && f.boolean_or("reset_after", true);
  n.params.push_back({"bias", two_biases ? Shape{2, g} : Shape{g}, true});
  n.out = c.return_sequences ? Shape{in[0], c.units} : Shape{c.units};
  n.cfg = c;
}

void emit_rnn(Emitter& e, const Node& n) {
  const auto& c = std::get<RnnCfg>(n.cfg);
  const Shape& in = n.in[0];
  const RnnShape s{c.cell, c.units, in[1], e.batch, in[0]};
  const std::string name(to_string(c.cell));
  const double g = gates(c.cell), steps = double(e.batch) * double(in[0]), u = double(c.units);
  e.begin_group();
  // Kept: the input and the gate activations and cell states of every step.
  e.save_input();
  e.fwd(e.make(name, OpKind::rnn, s, Phase::forward));
  e.keep(steps * u * (g + 1));
  e.wrote(double(e.batch) * double(product(n.out)));
  if (e.input_grad || e.weight_grad) {
    // Backward through time always needs dH (recurrent weights); dX only when the input
    // needs it; dW when trained. 2 FLOPs per multiply-accumulate.
    double macs = steps * g * u * u;
    if (e.input_grad) macs += steps * g * u * double(in[1]);
    if (e.weight_grad) macs += steps * g * u * (double(in[1]) + u);
    e.bwd(e.make(name + ".grad", OpKind::rnn, s, Phase::backward, 0, 2 * macs));
  }
}

// ---------------------------------------------------------------------------------------
// concatenate, add, flatten, reshape, slice

std::size_t axis_index(Fields& f, std::string_view key, int64_t axis, std::size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    f.fail(key, "axis " + std::to_string(axis) + " is outside a per-sample rank of " + std::to_string(rank) +
                    " (the batch dimension is not counted)");
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

void build_concatenate(Fields& f, Node& n) {
  const std::size_t axis = axis_index(f, "axis", f.integer_or("axis", -1), n.in[0].size());
  n.out = n.in[0];
  n.out[axis] = 0;
  for (std::size_t i = 0; i < n.in.size(); ++i) {
    const Shape& s = n.in[i];
    bool ok = s.size() == n.out.size();
    for (std::size_t d = 0; ok && d < s.size(); ++d) ok = d == axis || s[d] == n.in[0][d];
    if (!ok)
      f.fail("inputs[" + std::to_string(i) + "]", "shape " + shape_text(s) + " does not fit " + shape_text(n.in[0]) +
                                                      " along any axis but " + std::to_string(axis));
    n.out[axis] += s[axis];
  }
}

void emit_concatenate(Emitter& e, const Node& n) {
  TensorShape ts;
  for (const auto& s : n.in) ts.inputs.push_back(batched(e, s));
  const Shape out = batched(e, n.out);
  const double bytes = 2.0 * double(product(out)) * e.elem_bytes;  // every element read and written once
  e.begin_group();
  e.fwd(e.make("concat", OpKind::elementwise, ts, Phase::forward, bytes));
  e.wrote(double(product(out)));
  if (e.input_grad) e.bwd(e.make("concat.grad", OpKind::elementwise, TensorShape{{out}}, Phase::backward, bytes));
}

void build_add(Fields& f, Node& n) {
  for (std::size_t i = 1; i < n.in.size(); ++i)
    if (n.in[i] != n.in[0])
      f.fail("inputs[" + std::to_string(i) + "]",
             "shape " + shape_text(n.in[i]) + " differs from the first input's " + shape_text(n.in[0]));
  n.out = n.in[0];
}

void emit_add_layer(Emitter& e, const Node& n) { emit_add(e, n.in); }

void build_flatten(Fields&, Node& n) { n.out = {product(n.in[0])}; }

void build_reshape(Fields& f, Node& n) {
  const nlohmann::json* v = f.raw("target_shape");
  if (!v) f.fail("target_shape", "required field is missing");
  if (!v->is_array() || v->empty()) f.fail("target_shape", "expected a non-empty array of sizes (one may be -1)");
  double known = 1;
  int unknown = -1;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const auto& d = (*v)[i];
    const std::string key = "target_shape[" + std::to_string(i) + "]";
    if (!d.is_number_integer() || (d.is_number_unsigned() && d.get<uint64_t>() > uint64_t(kMaxDim)) ||
        (d.get<int64_t>() < 1 && d.get<int64_t>() != -1) || d.get<int64_t>() > kMaxDim)
      f.fail(key, "expected a positive size or -1");
    if (d.get<int64_t>() == -1) {
      if (unknown >= 0) f.fail(key, "only one size may be -1");
      unknown = static_cast<int>(i);
    } else {
      known *= double(d.get<int64_t>());
    }
    n.out.push_back(d.get<int64_t>());
  }
  const int64_t total = product(n.in[0]);
  if (unknown >= 0 && known <= double(total) && total % int64_t(known) == 0)
    n.out[static_cast<std::size_t>(unknown)] = total / int64_t(known);
  if (unknown >= 0 ? n.out[static_cast<std::size_t>(unknown)] < 0 : known != double(total))
    f.fail("target_shape",
           "cannot reshape " + shape_text(n.in[0]) + " (" + std::to_string(total) + " elements) to " + v->dump());
}

void build_slice(Fields& f, Node& n) {
  SliceCfg c;
  c.axis = axis_index(f, "axis", f.integer_or("axis", 0), n.in[0].size());
  c.begin = f.non_negative_or("begin", 0);
  c.size = f.positive("size");
  if (c.begin + c.size > n.in[0][c.axis])
    f.fail("size", "slice [" + std::to_string(c.begin) + ", " + std::to_string(c.begin + c.size) +
                       ") runs past the axis length " + std::to_string(n.in[0][c.axis]));
  n.out = n.in[0];
  n.out[c.axis] = c.size;
  n.cfg = c;
}

void emit_slice(Emitter& e, const Node& n) {
  const Shape in = batched(e, n.in[0]), out = batched(e, n.out);
  const double n_in = double(product(in)), n_out = double(product(out));
  e.begin_group();
  e.fwd(e.make("slice", OpKind::elementwise, TensorShape{{in}}, Phase::forward, 2 * n_out * e.elem_bytes));
  e.wrote(n_out);
  // The gradient is zeros with dY copied into the slice.
  if (e.input_grad)
    e.bwd(
        e.make("slice.grad", OpKind::elementwise, TensorShape{{out}}, Phase::backward, (n_in + n_out) * e.elem_bytes));
}

void emit_nothing(Emitter&, const Node&) {}  // views: flatten, reshape

// ---------------------------------------------------------------------------------------

const LayerType kTypes[] = {
    {"dense", 1, 1, build_dense, emit_dense_layer},
    {"conv1d", 1, 1, build_conv<1>, emit_conv},
    {"conv2d", 1, 1, build_conv<2>, emit_conv},
    {"conv3d", 1, 1, build_conv<3>, emit_conv},
    {"maxpool1d", 1, 1, build_pool<1, true, false>, emit_pool},
    {"maxpool2d", 1, 1, build_pool<2, true, false>, emit_pool},
    {"maxpool3d", 1, 1, build_pool<3, true, false>, emit_pool},
    {"avgpool1d", 1, 1, build_pool<1, false, false>, emit_pool},
    {"avgpool2d", 1, 1, build_pool<2, false, false>, emit_pool},
    {"avgpool3d", 1, 1, build_pool<3, false, false>, emit_pool},
    {"global_maxpool1d", 1, 1, build_pool<1, true, true>, emit_pool},
    {"global_maxpool2d", 1, 1, build_pool<2, true, true>, emit_pool},
    {"global_maxpool3d", 1, 1, build_pool<3, true, true>, emit_pool},
    {"global_avgpool1d", 1, 1, build_pool<1, false, true>, emit_pool},
    {"global_avgpool2d", 1, 1, build_pool<2, false, true>, emit_pool},
    {"global_avgpool3d", 1, 1, build_pool<3, false, true>, emit_pool},
    {"batchnorm", 1, 1, build_norm<Norm::batch>, emit_norm_layer},
    {"layernorm", 1, 1, build_norm<Norm::layer>, emit_norm_layer},
    {"lrn", 1, 1, build_norm<Norm::lrn>, emit_norm_layer},
    {"dropout", 1, 1, build_dropout, emit_dropout_layer},
    {"activation", 1, 1, build_activation, emit_activation_layer},
    {"embedding", 1, 1, build_embedding, emit_embedding},
    {"lstm", 1, 1, build_rnn<RnnCell::lstm>, emit_rnn},
    {"gru", 1, 1, build_rnn<RnnCell::gru>, emit_rnn},
    {"multi_head_attention", 1, 2, build_attention, emit_attention_layer},
    {"transformer_block", 1, 1, build_transformer_block, emit_transformer_block},
    {"concatenate", 2, -1, build_concatenate, emit_concatenate},
    {"add", 2, -1, build_add, emit_add_layer},
    {"flatten", 1, 1, build_flatten, emit_nothing},
    {"reshape", 1, 1, build_reshape, emit_nothing},
    {"slice", 1, 1, build_slice, emit_slice},
};

}  // namespace

const LayerType* find_layer_type(std::string_view name) {
  for (const auto& t : kTypes)
    if (t.name == name) return &t;
  return nullptr;
}

std::string layer_type_names() {
  std::string s;
  for (const auto& t : kTypes) s += (s.empty() ? "" : ", ") + std::string(t.name);
  return s;
}

}  // namespace fomcast::layers
