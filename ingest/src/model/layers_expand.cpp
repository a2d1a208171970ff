// The layer-list driver, in stages (expand_model_document runs them in order): reads the
// model's top-level fields (read_top_level) and inputs, wires the layers into a graph, each
// reading the previous layer or the layers and inputs it names, and infers shapes
// (wire_layers); decides which tensors need a gradient and has every layer emit its
// operations (emit_layers); adds the loss (emit_loss), orders the pass (pass_in_order), adds
// one optimizer update per parameter tensor (add_optimizer_updates), merges identical
// operations (aggregate) and sums up parameters, MACs and memory (sum_up, add_notes). See
// docs/model-format.md.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/input_checks.hpp"
#include "fomcast/json_input.hpp"
#include "fomcast/layers.hpp"
#include "fomcast/text.hpp"
#include "layers_graph.hpp"

namespace fomcast {
namespace layers {
namespace {

using nlohmann::json;

// Bytes per parameter element an update moves: read w and g, write w, read and write each
// state tensor. FLOPs per element are rough counts of the update's arithmetic.
struct OptimizerSpec {
  std::string name;
  int states = 0;
  double flops_per_element = 2;
};

OptimizerSpec optimizer_spec(Fields& top) {
  const json* v = top.raw("optimizer");
  if (!v) return {"sgd", 0, 2};
  std::string type;
  double momentum = 0;
  if (v->is_string()) {
    type = v->get<std::string>();
  } else if (v->is_object()) {
    if (!v->contains("type") || !(*v)["type"].is_string()) top.fail("optimizer.type", "required field is missing");
    type = (*v)["type"].get<std::string>();
    for (const auto& [key, value] : v->items()) {
      if (key == "type") continue;
      if (key != "momentum" && key != "learning_rate" && key != "nesterov" && key != "weight_decay")
        top.fail("optimizer." + key, "unknown field (type, momentum, learning_rate, nesterov, weight_decay)");
      const bool ok = key == "nesterov" ? value.is_boolean() : value.is_number() && value.get<double>() >= 0;
      if (!ok) top.fail("optimizer." + key, key == "nesterov" ? "expected true or false" : "expected a number >= 0");
      if (key == "momentum") momentum = value.get<double>();
    }
  } else {
    top.fail("optimizer", "expected a name or an object {\"type\": ...}");
  }
  if (type == "sgd") return momentum > 0 ? OptimizerSpec{"momentum", 1, 4} : OptimizerSpec{"sgd", 0, 2};
  if (type == "momentum" || type == "nesterov") return {"momentum", 1, 4};
  if (type == "rmsprop") return {"rmsprop", 1, 8};
  if (type == "adagrad") return {"adagrad", 1, 6};
  if (type == "adam" || type == "adamw") return {"adam", 2, 12};
  top.fail("optimizer",
           "unknown optimizer '" + type + "' (known: sgd, momentum, nesterov, rmsprop, adagrad, adam, adamw)");
}

constexpr std::array kLosses = {"mse",
                                "mae",
                                "mean_squared_error",
                                "mean_absolute_error",
                                "categorical_crossentropy",
                                "sparse_categorical_crossentropy",
                                "binary_crossentropy",
                                "kld",
                                "huber",
                                "cosine_similarity",
                                "poisson",
                                "hinge",
                                "custom"};

struct Tensor {
  std::string name;
  Shape shape;
  double share = 1;
  bool needs_grad = false;
  int producer = -1;  // node index; -1 for a model input
  bool consumed = false;
  // Whether the backward pass keeps it (some op saved it), and where it was written.
  bool kept = false, replicated = false;
};

struct Graph {
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;
  std::map<std::string, int, std::less<>> by_name;

  int add_tensor(Tensor t) {
    by_name[t.name] = static_cast<int>(tensors.size());
    tensors.push_back(std::move(t));
    return static_cast<int>(tensors.size()) - 1;
  }
};

void read_inputs(Fields& top, Graph& g, int64_t samples_per_epoch, std::string_view file) {
  if (top.has("inputs") && top.has("input_shape"))
    top.fail("input_shape", "give either inputs or input_shape, not both");
  if (auto s = top.optional_shape("input_shape")) {
    top.check_elements("input_shape", volume(*s), "the input");
    g.add_tensor({"input", *s});
    return;
  }
  const json* ins = top.raw("inputs");
  if (!ins) return;  // the first layer's input_shape defines the input
  if (!ins->is_array() || ins->empty()) top.fail("inputs", "expected a non-empty array of {\"name\", \"shape\"}");
  for (std::size_t i = 0; i < ins->size(); ++i) {
    Fields f((*ins)[i], "inputs[" + std::to_string(i) + "]", file);
    Tensor t{f.string("name"), f.shape("shape")};
    f.check_elements("shape", volume(t.shape), "the input");
    if (g.by_name.count(t.name)) f.fail("name", "duplicate input name '" + t.name + "'");
    if (f.has("dtype") && !parse_dtype(f.string("dtype"))) f.fail("dtype", "unknown element type");
    if (const int64_t n = f.positive_or("samples_per_epoch", 0)) {
      if (samples_per_epoch <= 0) f.fail("samples_per_epoch", "needs the model's samples_per_epoch to be set");
      if (n > samples_per_epoch)
        f.fail("samples_per_epoch",
               "exceeds the model's samples_per_epoch (" + std::to_string(samples_per_epoch) + ")");
      t.share = double(n) / double(samples_per_epoch);
    }
    f.string_or("note", "");
    f.finish();
    g.add_tensor(std::move(t));
  }
}

// Resolves what a layer reads: the tensors it names, else the previous layer's output, else
// the model's only input (or the one its own input_shape declares).
std::vector<int> resolve_inputs(Fields& f, Graph& g, std::size_t index) {
  std::vector<int> ids;
  if (f.has("inputs")) {
    const auto names = f.strings("inputs");
    for (std::size_t j = 0; j < names.size(); ++j) {
      auto it = g.by_name.find(names[j]);
      if (it == g.by_name.end())
        f.fail("inputs[" + std::to_string(j) + "]", "no model input or earlier layer is named '" + names[j] + "'");
      ids.push_back(it->second);
    }
    return ids;
  }
  if (index > 0) return {g.nodes.empty() ? 0 : static_cast<int>(g.tensors.size()) - 1};
  std::vector<int> model_inputs;
  for (std::size_t t = 0; t < g.tensors.size(); ++t) model_inputs.push_back(static_cast<int>(t));
  if (model_inputs.size() == 1) return model_inputs;
  if (model_inputs.size() > 1)
    f.fail("inputs",
           "the model has " + std::to_string(model_inputs.size()) + " inputs: name the ones this layer reads");
  if (!f.has("input_shape"))
    f.fail("input_shape", "the first layer needs an input: give the model's \"inputs\" or this layer's input_shape");
  const Shape shape = f.shape("input_shape");
  f.check_elements("input_shape", volume(shape), "the input");
  return {g.add_tensor({"input", shape})};
}

// A layer that reuses another's weights owns none of them. Keras-style reuse needs the same
// type and tensors; a dense layer tied to an embedding (a language-model head) reuses the
// table transposed and keeps its own bias.
void apply_weight_sharing(Fields& f, Node& n, const Graph& g) {
  if (!f.has("share_weights")) return;
  const std::string target = f.string("share_weights");
  int idx = -1;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == target) idx = static_cast<int>(i);
  if (idx < 0) f.fail("share_weights", "no earlier layer is named '" + target + "'");
  const Node* owner = &g.nodes[static_cast<std::size_t>(idx)];
  while (owner->shares >= 0) owner = &g.nodes[static_cast<std::size_t>(owner->shares)];
  const auto dims_of = [](const std::vector<ParamTensor>& ps) {
    std::vector<Shape> d;
    for (const auto& p : ps) d.push_back(p.dims);
    return d;
  };
  if (owner->type == n.type) {
    if (dims_of(owner->params) != dims_of(n.params))
      f.fail("share_weights", "layer '" + owner->name + "' has weights of other shapes than this layer needs");
    n.params.clear();
  } else if (n.type == "dense" && owner->type == "embedding") {
    const Shape& table = owner->params.at(0).dims;  // [vocab, dim]
    const Shape& kernel = n.params.at(0).dims;      // [in, units]
    if (kernel[0] != table[1] || kernel[1] != table[0])
      f.fail("share_weights", "a dense layer " + shape_text(kernel) + " cannot reuse the embedding table " +
                                  shape_text(table) + " of '" + owner->name + "' (needs [dim, vocab])");
    n.params.erase(n.params.begin());
  } else {
    f.fail("share_weights", "a " + n.type + " layer cannot reuse the weights of a " + owner->type + " layer");
  }
  n.shares = static_cast<int>(owner - g.nodes.data());
}

Node read_layer(const json& j, std::size_t index, Graph& g, std::string_view file) {
  Fields f(j, "layers[" + std::to_string(index) + "]", file);
  Node n;
  n.path = f.path();
  n.type = f.string("type");
  n.kind = find_layer_type(n.type);
  if (!n.kind) f.fail("type", "unknown layer type '" + n.type + "' (known: " + layer_type_names() + ")");
  n.name = f.string_or("name", n.type + "_" + std::to_string(index));
  if (g.by_name.count(n.name)) f.fail("name", "the name '" + n.name + "' is already used by an input or a layer");
  n.inputs = resolve_inputs(f, g, index);
  const int count = static_cast<int>(n.inputs.size());
  if (count < n.kind->min_inputs || (n.kind->max_inputs >= 0 && count > n.kind->max_inputs))
    f.fail("inputs", "a " + n.type + " layer reads " +
                         (n.kind->max_inputs < 0 ? "at least " + std::to_string(n.kind->min_inputs)
                          : n.kind->min_inputs == n.kind->max_inputs
                              ? std::to_string(n.kind->min_inputs)
                              : std::to_string(n.kind->min_inputs) + " to " + std::to_string(n.kind->max_inputs)) +
                         " input(s), this one names " + std::to_string(count));
  for (int t : n.inputs) n.in.push_back(g.tensors[static_cast<std::size_t>(t)].shape);
  if (auto declared = f.optional_shape("input_shape")) {
    if (n.in.size() != 1) f.fail("input_shape", "only a layer with one input can declare input_shape");
    if (*declared != n.in[0])
      f.fail("input_shape", "declared " + shape_text(*declared) + " but the layer receives " + shape_text(n.in[0]) +
                                " from '" + g.tensors[static_cast<std::size_t>(n.inputs[0])].name + "'");
  }
  n.trainable = f.boolean_or("trainable", true);
  n.kind->build(f, n);
  f.check_elements("", volume(n.out), "the output " + shape_text(n.out));
  for (const auto& p : n.params) f.check_elements("", volume(p.dims), "the " + p.role + " " + shape_text(p.dims));
  if (auto declared = f.optional_shape("output_shape"); declared && *declared != n.out)
    f.fail("output_shape", "declared " + shape_text(*declared) + " but the layer produces " + shape_text(n.out));
  apply_weight_sharing(f, n, g);
  f.string_or("note", "");
  f.finish();
  n.share = 0;
  for (int t : n.inputs) n.share = std::max(n.share, g.tensors[static_cast<std::size_t>(t)].share);
  return n;
}

// Stage 7: identical operations (same name, kind, shape, element type, phase and costs)
// become one with the counts added, in order of first appearance.
std::vector<Op> aggregate(std::vector<Op> ops) {
  std::vector<Op> out;
  std::map<std::string, std::size_t> seen;
  for (auto& op : ops) {
    const std::string key = op.name + "|" + std::string(to_string(op.kind)) + "|" + shape_key(op.shape) + "|" +
                            std::string(to_string(op.dtype)) + "|" + std::string(to_string(op.phase)) + "|" +
                            std::to_string(op.flops) + "|" + std::to_string(op.bytes);
    auto [it, fresh] = seen.emplace(key, out.size());
    if (fresh)
      out.push_back(std::move(op));
    else
      out[it->second].count += op.count;
  }
  return out;
}

std::string mib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  return buf;
}

// The model's own settings, read with its top-level fields.
struct ModelSettings {
  OptimizerSpec optimizer;
  DType dtype = DType::fp32;
  std::string loss;  // "" when the file names none
};

// Stage 1: the model's top-level fields (name, notes, batch and epoch sizes, optimizer,
// element type, loss) into the workload and the settings the later stages need.
ModelSettings read_top_level(Fields& top, Workload& w, std::string_view file) {
  w.name = top.string_or("name", "");
  w.origin = "model";
  w.source = std::string(file);
  top.string_or("description", "");
  top.string_or("source", "");
  if (const json* notes = top.raw("notes")) {
    if (!notes->is_array()) top.fail("notes", "expected an array of strings");
    for (std::size_t i = 0; i < notes->size(); ++i) {
      if (!(*notes)[i].is_string()) top.fail("notes[" + std::to_string(i) + "]", "expected a string");
      w.notes.push_back((*notes)[i].get<std::string>());
    }
  }
  w.batch_size = top.positive("batch_size");
  if (w.batch_size > kMaxBatch)
    top.fail("batch_size", "a batch of more than " + std::to_string(kMaxBatch) + " samples");
  w.samples_per_epoch = top.non_negative_or("samples_per_epoch", 0);
  w.memory_format = top.string_or("memory_format", "");
  if (!w.memory_format.empty() && w.memory_format != "channels_first" && w.memory_format != "channels_last")
    top.fail("memory_format", "expected \"channels_first\" (NCHW) or \"channels_last\" (NHWC)");
  w.epochs = top.non_negative_or("epochs", 0);
  // The range studies and --epochs take (input_checks.hpp): 1e12 epochs printed 48,000 years.
  if (w.epochs > static_cast<int64_t>(ranges::epochs.max))
    top.fail("epochs", "more than " + std::to_string(static_cast<int64_t>(ranges::epochs.max)) + " epochs");
  if (w.samples_per_epoch > static_cast<int64_t>(ranges::samples.max))
    top.fail("samples_per_epoch",
             "more than " + std::to_string(static_cast<int64_t>(ranges::samples.max)) + " samples per epoch");
  ModelSettings settings;
  settings.optimizer = optimizer_spec(top);
  const std::string dtype_name = top.string_or("dtype", "fp32");
  const auto dtype = parse_dtype(dtype_name);
  if (!dtype || *dtype == DType::boolean || *dtype == DType::unknown)
    top.fail("dtype", "unknown element type '" + dtype_name + "'");
  // What a model trains in: fp8 and integer training (scaled per tensor, with higher-precision
  // masters) is not modelled, and was read as an unknown precision timed at borrowed rates.
  if (*dtype != DType::fp32 && *dtype != DType::fp16 && *dtype != DType::bf16 && *dtype != DType::fp64)
    top.fail("dtype", "'" + dtype_name +
                          "' is no training precision this model expands (fp32, fp16, bf16 or fp64; `estimate "
                          "--precision` runs a model in tf32 or autocast)");
  settings.dtype = *dtype;
  settings.loss = top.string_or("loss", "");
  if (!settings.loss.empty() && std::find(kLosses.begin(), kLosses.end(), settings.loss) == kLosses.end()) {
    std::string known;
    for (const char* l : kLosses) known += (known.empty() ? "" : ", ") + std::string(l);
    top.fail("loss", "unknown loss '" + settings.loss + "' (known: " + known + ")");
  }
  return settings;
}

// Stage 2: the model's inputs and its layers wired into a graph, each layer reading the
// previous one or the layers and inputs it names, with its output shape inferred.
Graph wire_layers(Fields& top, int64_t samples_per_epoch, std::string_view file) {
  Graph g;
  read_inputs(top, g, samples_per_epoch, file);
  const json* layer_list = top.raw("layers");
  if (!layer_list) top.fail("layers", "required field is missing");
  if (!layer_list->is_array() || layer_list->empty()) top.fail("layers", "expected a non-empty array of layers");
  top.finish();
  for (std::size_t i = 0; i < layer_list->size(); ++i) {
    Node n = read_layer((*layer_list)[i], i, g, file);
    for (int t : n.inputs) g.tensors[static_cast<std::size_t>(t)].consumed = true;
    Tensor out{n.name, n.out, n.share};
    out.producer = static_cast<int>(g.nodes.size());
    g.nodes.push_back(std::move(n));
    g.add_tensor(std::move(out));
  }
  return g;
}

// Whether a layer's weights train: its own flag, its weights' owner's, and a trainable
// parameter tensor to train.
bool trains(const Graph& g, const Node& n) {
  const Node& owner = n.shares >= 0 ? g.nodes[static_cast<std::size_t>(n.shares)] : n;
  if (!n.trainable || !owner.trainable) return false;
  return std::any_of(owner.params.begin(), owner.params.end(), [](const ParamTensor& p) { return p.trainable; });
}

// Stage 3: which tensors need a gradient (none for the model's inputs, so the first layer,
// and anything fed only by inputs, computes no data gradient) and every layer's forward and
// backward operations, in layer order.
Emitter emit_layers(Graph& g, DType dtype, int64_t batch) {
  Emitter e;
  e.batch = batch;
  e.dtype = dtype;
  e.elem_bytes = dtype_bytes(dtype);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    e.share = n.share;
    e.input_grad = std::any_of(n.inputs.begin(), n.inputs.end(),
                               [&](int t) { return g.tensors[static_cast<std::size_t>(t)].needs_grad; });
    e.weight_grad = trains(g, n);
    e.begin_node();
    // The node's first op reads its inputs: one value, kept once if an op of the node saves it.
    Emitter::Value in{0, true, false, false, true};
    for (int t : n.inputs) {
      const Tensor& x = g.tensors[static_cast<std::size_t>(t)];
      if (x.kept) continue;
      in.elements += double(batch) * double(product(x.shape));
      in.kept = false;
      in.replicated = in.replicated || x.replicated;
    }
    e.current = in;
    e.node_input_saved = false;
    const Emitter::Kept before = e.kept;
    n.kind->emit(e, n);
    n.macs = e.node_macs / double(batch);
    const double b = double(batch);
    n.kept = (e.kept.elements - before.elements) / b;
    n.kept_attention = (e.kept.attention_elements - before.attention_elements) / b;
    n.kept_replicated = (e.kept.replicated_elements - before.replicated_elements) / b;
    n.kept_mask_bytes = (e.kept.mask_bytes - before.mask_bytes) / b;
    n.kept_attention_mask_bytes = (e.kept.attention_mask_bytes - before.attention_mask_bytes) / b;
    n.kept_replicated_mask_bytes = (e.kept.replicated_mask_bytes - before.replicated_mask_bytes) / b;
    if (e.node_input_saved)
      for (int t : n.inputs) g.tensors[static_cast<std::size_t>(t)].kept = true;
    Tensor& out = g.tensors[static_cast<std::size_t>(g.by_name.at(n.name))];
    out.needs_grad = e.input_grad || e.weight_grad;
    out.kept = e.current.kept;  // a view (flatten, reshape) is its input's storage
    out.replicated = e.current.replicated;
  }
  return e;
}

// Stage 4: the loss on every output (a layer nobody reads): its forward reduction joins the
// forward ops; its backward dY ops are returned, to run before the layers' backward ops.
std::vector<Op> emit_loss(Emitter& e, Graph& g, const std::string& loss) {
  std::vector<Op> loss_backward;
  if (loss.empty()) return loss_backward;
  for (auto& t : g.tensors) {
    if (t.producer < 0 || t.consumed) continue;
    e.share = t.share;
    const Shape y = batched(e, t.shape);
    const Shape target = loss == "sparse_categorical_crossentropy" ? Shape(y.begin(), y.end() - 1) : y;
    // The loss's backward needs its input (the logits, or their log-softmax of the same
    // size): kept, and counted with the layer that wrote it.
    if (!t.kept) {
      Node& producer = g.nodes[static_cast<std::size_t>(t.producer)];
      const double elements = double(product(y));
      e.current = {elements, false, false, t.replicated, false};
      e.save_input();
      producer.kept += elements / double(e.batch);
      if (t.replicated) producer.kept_replicated += elements / double(e.batch);
      t.kept = true;
    }
    e.fwd(e.make("loss." + loss, OpKind::reduction, TensorShape{{y, target}}, Phase::forward));
    if (t.needs_grad)
      loss_backward.push_back(
          e.make("loss." + loss + ".grad", OpKind::elementwise, TensorShape{{y, target}}, Phase::backward));
  }
  return loss_backward;
}

// Stage 5: the pass in execution order: forward, the loss's backward, then the layers'
// backward ops with layers and their primitives in reverse.
std::vector<Op> pass_in_order(Emitter& e, const std::vector<Op>& loss_backward) {
  std::vector<Op> ops = std::move(e.forward);
  ops.insert(ops.end(), loss_backward.begin(), loss_backward.end());
  for (auto node = e.backward.rbegin(); node != e.backward.rend(); ++node)
    for (auto group = node->rbegin(); group != node->rend(); ++group)
      ops.insert(ops.end(), group->begin(), group->end());
  return ops;
}

// Stage 6: one optimizer update per trainable parameter tensor, by the layer that owns it
// (a layer reusing another's weights owns only its extras, such as a tied LM head's bias).
// Counts every parameter into stats.params; returns the trainable ones.
int64_t add_optimizer_updates(std::vector<Op>& ops, Emitter& e, const Graph& g, const OptimizerSpec& opt,
                              ModelStats& stats) {
  int64_t trainable = 0;
  for (const auto& n : g.nodes) {
    const bool train = trains(g, n);
    for (const auto& p : n.params) {
      stats.params += p.elements();
      if (!train || !p.trainable) continue;
      trainable += p.elements();
      e.share = n.share;
      const double elems = double(p.elements());
      ops.push_back(e.make(opt.name + ".update", OpKind::optimizer, TensorShape{{p.dims}}, Phase::optimizer,
                           (3 + 2 * opt.states) * elems * e.elem_bytes, opt.flops_per_element * elems));
    }
  }
  return trainable;
}

// Stage 8: the layers as the expansion saw them, and the model's parameters, MACs and
// memory (weights, gradients, optimizer state, kept activations).
void sum_up(ExpandedModel& result, const Graph& g, const Emitter& e, const OptimizerSpec& opt, ModelStats stats,
            int64_t trainable) {
  for (const auto& n : g.nodes) {
    stats.forward_macs += n.macs;
    LayerSummary s;
    s.name = n.name;
    s.type = n.type;
    s.input_shapes = n.in;
    s.output_shape = n.out;
    s.forward_macs = n.macs;
    s.share = n.share;
    s.kept_elements = n.kept;
    s.kept_attention_elements = n.kept_attention;
    s.kept_replicated_elements = n.kept_replicated;
    s.kept_mask_bytes = n.kept_mask_bytes;
    s.kept_attention_mask_bytes = n.kept_attention_mask_bytes;
    s.kept_replicated_mask_bytes = n.kept_replicated_mask_bytes;
    if (const auto* b = std::get_if<BlockCfg>(&n.cfg)) s.heads = b->attention.heads, s.ff_units = b->ff_units;
    if (const auto* a = std::get_if<AttentionCfg>(&n.cfg)) s.heads = a->heads;
    for (const auto& p : n.params) {
      s.params += p.elements();
      if (p.trainable && n.trainable) s.trainable_params += p.elements();
    }
    if (n.shares >= 0) s.shares_weights_of = g.nodes[static_cast<std::size_t>(n.shares)].name;
    result.layers.push_back(std::move(s));
  }
  stats.weights_bytes = double(stats.params) * e.elem_bytes;
  stats.gradients_bytes = double(trainable) * e.elem_bytes;
  stats.optimizer_bytes = double(trainable) * opt.states * e.elem_bytes;
  stats.activations_bytes = e.kept.elements * e.elem_bytes + e.kept.mask_bytes;
  result.workload.model = stats;
  result.workload.events = static_cast<int64_t>(g.nodes.size());
}

// Stage 9: the notes that say what the pass assumed.
void add_notes(Workload& w, const Graph& g, const OptimizerSpec& opt) {
  const ModelStats& stats = *w.model;
  int shared_layers = 0, partial_layers = 0;
  for (const auto& n : g.nodes) {
    shared_layers += n.shares >= 0;
    partial_layers += n.share < 1;
  }
  w.notes.push_back("analytic pass from a layer list (" + std::to_string(g.nodes.size()) +
                    " layers): forward, backward (data and weight gradients; no data gradient into the model's "
                    "inputs), one " +
                    opt.name + " update per parameter tensor (" + std::to_string(opt.states) +
                    " state tensor(s) each)");
  w.notes.push_back(
      "forward MACs count the dense, convolution, recurrent and attention matrix products; memory: "
      "weights " +
      mib(stats.weights_bytes) + ", gradients " + mib(stats.gradients_bytes) + ", optimizer state " +
      mib(stats.optimizer_bytes) + ", activations kept for a batch of " + std::to_string(w.batch_size) + ": " +
      mib(stats.activations_bytes));
  if (shared_layers)
    w.notes.push_back(std::to_string(shared_layers) +
                      " layer(s) reuse another layer's weights: their parameters are counted and updated once, "
                      "their forward and backward ops run per application");
  if (partial_layers)
    w.notes.push_back(std::to_string(partial_layers) +
                      " layer(s) run in only a share of the passes (inputs with their own samples_per_epoch): "
                      "their ops have counts below 1");
}

}  // namespace
}  // namespace layers

ExpandedModel expand_model_document(const nlohmann::json& doc, std::string_view file) {
  using namespace layers;
  Fields top(doc, "", file);
  ExpandedModel result;
  Workload& w = result.workload;
  const ModelSettings settings = read_top_level(top, w, file);
  result.optimizer = settings.optimizer.name;
  Graph g = wire_layers(top, w.samples_per_epoch, file);
  Emitter e = emit_layers(g, settings.dtype, w.batch_size);
  const std::vector<Op> loss_backward = emit_loss(e, g, settings.loss);
  std::vector<Op> ops = pass_in_order(e, loss_backward);
  ModelStats stats;
  const int64_t trainable = add_optimizer_updates(ops, e, g, settings.optimizer, stats);
  w.ops = aggregate(std::move(ops));  // stage 7: identical operations merged
  sum_up(result, g, e, settings.optimizer, stats, trainable);
  add_notes(w, g, settings.optimizer);
  return result;
}

ExpandedModel expand_model(std::string_view text, std::string_view file) {
  std::size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  if (start == text.size()) throw InputError(std::string(file), "empty file: expected a JSON model description", 0, 0);
  const nlohmann::json doc = parse_json_input(text, std::string(file));
  return expand_model_document(doc, file);
}

int model_description_score(std::string_view head) {
  std::size_t i = utf8_bom_length(head);
  while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  if (i >= head.size() || head[i] != '{') return 0;
  if (head.find("\"traceEvents\"") != std::string_view::npos) return 0;
  for (std::size_t at = head.find("\"layers\""); at != std::string_view::npos; at = head.find("\"layers\"", at + 1)) {
    std::size_t j = at + 8;
    while (j < head.size() && std::isspace(static_cast<unsigned char>(head[j]))) ++j;
    if (j >= head.size() || head[j] != ':') continue;
    ++j;
    while (j < head.size() && std::isspace(static_cast<unsigned char>(head[j]))) ++j;
    if (j < head.size() && head[j] == '[') return 80;
  }
  return 0;
}

}  // namespace fomcast
