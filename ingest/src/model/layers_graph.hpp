// The private pieces of the layer-list expansion: a layer after parsing (Node), the table
// of layer types (how each parses its fields, infers its output and emits its operations),
// and the Emitter that collects a pass's operations.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fomcast/model.hpp"
#include "layers_fields.hpp"

namespace fomcast::layers {

// ---------------------------------------------------------------------------------------
// Activations (Keras names)

struct Activation {
  std::string name;  // "" = linear (none)
  bool none() const { return name.empty(); }
};
// Reads an activation name; "linear" and absence mean none. Fails on unknown names.
Activation parse_activation(Fields&, std::string_view key);

// ---------------------------------------------------------------------------------------
// Per-type settings

struct DenseCfg {
  int64_t units = 0;
  bool bias = true;
  Activation act;
};

struct ConvCfg {
  int dims = 2;
  int64_t filters = 0, groups = 1;
  ConvShape shape;  // n left 0: the batch is filled in at emission
  bool bias = true;
  Activation act;
};

struct PoolCfg {
  int dims = 2;
  bool max = true;
  bool global = false;
  Shape window;  // elements pooled per output
};

enum class Norm { batch, layer, lrn };
struct NormCfg {
  Norm norm = Norm::batch;
  int64_t size = 5;  // LRN window
};

struct DropoutCfg {
  double rate = 0;
};

struct ActivationCfg {
  Activation act;
};

struct EmbeddingCfg {
  int64_t vocab = 0, dim = 0;
};

struct RnnCfg {
  RnnCell cell = RnnCell::lstm;
  int64_t units = 0;
  bool return_sequences = false;
};

struct AttentionCfg {
  int64_t heads = 0, key_dim = 0, value_dim = 0, output_dim = 0;
  double dropout = 0;
  bool fused_qkv = false, causal = false, bias = true;
  // How the attention's kernels run (attention_kernels). "fused" (the default): one
  // elementwise op with the softmax, as fused attention implementations without flash
  // kernels run it. "eager": the scale, the mask and the head merge run as kernels of their
  // own, as in PyTorch code written op by op (Hugging Face's and NVIDIA
  // DeepLearningExamples' BertSelfAttention). "flash": FlashAttention (PyTorch's
  // scaled_dot_product_attention): scores, softmax, dropout and context in one kernel that
  // never writes the scores, and one backward kernel that recomputes them.
  enum class Kernels { fused, eager, flash };
  Kernels kernels = Kernels::fused;
};

struct BlockCfg {
  AttentionCfg attention;
  int64_t ff_units = 0;
  Activation act;
  bool pre_norm = false;
  double dropout = 0;
};

struct SliceCfg {
  std::size_t axis = 0;
  int64_t begin = 0, size = 0;
};

using Config = std::variant<std::monostate, DenseCfg, ConvCfg, PoolCfg, NormCfg, DropoutCfg, ActivationCfg,
                            EmbeddingCfg, RnnCfg, AttentionCfg, BlockCfg, SliceCfg>;

// ---------------------------------------------------------------------------------------
// A layer after parsing and shape inference

struct ParamTensor {
  std::string role;  // kernel, bias, gamma, moving_mean, ...
  Shape dims;
  bool trainable = true;
  int64_t elements() const;
};

struct LayerType;

struct Node {
  std::string name, type, path;  // path: "layers[3]"
  const LayerType* kind = nullptr;
  std::vector<int> inputs;  // tensor ids
  std::vector<Shape> in;    // per-sample input shapes
  Shape out;
  std::vector<ParamTensor> params;  // what it owns (a weight-sharing layer drops the shared ones)
  int shares = -1;                  // node whose weights it reuses
  bool trainable = true;
  double share = 1;            // fraction of passes it runs in
  double macs = 0;             // forward MACs per sample, from its emitted ops
  double kept = 0;             // activation elements per sample its forward keeps for the backward
  double kept_attention = 0;   // of them, attention's core (scores to context)
  double kept_replicated = 0;  // of them, what tensor parallel leaves whole on every rank
  // Dropout masks it keeps, bytes per sample, and of them attention's core's and the replicated.
  double kept_mask_bytes = 0, kept_attention_mask_bytes = 0, kept_replicated_mask_bytes = 0;
  Config cfg;
};

struct Emitter;

struct LayerType {
  std::string_view name;
  int min_inputs = 1, max_inputs = 1;  // max -1: any number
  // Reads the type's own fields and fills out, params and cfg from node.in.
  void (*build)(Fields&, Node&);
  // Emits forward and backward ops (optimizer updates are added from params by the driver).
  void (*emit)(Emitter&, const Node&);
};

const LayerType* find_layer_type(std::string_view name);
std::string layer_type_names();

// ---------------------------------------------------------------------------------------
// Collecting the operations of a pass

struct Emitter {
  int64_t batch = 1;
  DType dtype = DType::fp32;
  double elem_bytes = 4;

  // Of the node being emitted.
  double share = 1;
  bool input_grad = false;   // its inputs need a gradient (something upstream trains)
  bool weight_grad = false;  // its own weights are trained

  std::vector<Op> forward;
  // Backward ops of each node, grouped by the primitive that produced them; the pass
  // runs nodes and groups in reverse.
  std::vector<std::vector<std::vector<Op>>> backward;
  // What the backward pass keeps of the forward, per batch, as autograd saves it: each op
  // says whether its backward needs its input (a GEMM, a norm, GELU), its output (ReLU,
  // softmax) or only a mask (dropout), and a tensor two ops save is kept once. A scale, a
  // mask, a bias add or a residual add saves nothing, so the raw attention scores and a
  // block's pre-dropout output are not kept (Korthikanti et al. 2022, section 4.1).
  struct Kept {
    double elements = 0;    // in the activations' element type
    double mask_bytes = 0;  // dropout masks, one byte per element whatever the type
    // Of them, what attention's core keeps (scores to context: the part Megatron's selective
    // recomputation drops and recomputes).
    double attention_elements = 0, attention_mask_bytes = 0;
    // And what a transformer block's layer norms, hidden-size dropouts and residual adds
    // keep: whole on every rank under Megatron's tensor parallel (split only by sequence
    // parallel).
    double replicated_elements = 0, replicated_mask_bytes = 0;
    void add(double n, bool attention, bool replicated) {
      elements += n;
      if (attention) attention_elements += n;
      if (replicated) replicated_elements += n;
    }
  };
  Kept kept;                       // per batch
  bool in_attention_core = false;  // set while attention's core ops are emitted
  bool in_replicated = false;
  double node_macs = 0;  // of the node being emitted, per batch

  // The value the last forward op wrote (a node's input tensors until its first op runs):
  // kept only when an op that reads it saves it, or the op that wrote it saves its output.
  struct Value {
    double elements = 0;
    bool kept = true;
    bool attention = false, replicated = false;  // where it was written
    bool node_input = false;                     // the node's input tensors, not yet overwritten
  };
  Value current;
  bool node_input_saved = false;  // the node's inputs were saved by one of its ops

  void begin_node();
  void begin_group();
  void fwd(Op op);
  void bwd(Op op);
  // The op just emitted wrote `elements` (per batch); its backward needs them or not.
  void wrote(double elements);
  void wrote_and_saved(double elements);
  // The next op reads the current value and its backward needs it.
  void save_input();
  // Another tensor the op's backward needs (FlashAttention's row statistics).
  void keep(double elements);
  void keep_mask(double elements);

  Op make(std::string name, OpKind kind, OpShape shape, Phase phase, double bytes = 0, double flops = 0) const;
};

// Per-batch tensor dims: {batch} + per-sample shape.
Shape batched(const Emitter&, const Shape& per_sample);
int64_t product(const Shape&);

// Primitive emitters shared by layer types (layers_primitives.cpp).
void emit_dense(Emitter&, std::string_view name, const Shape& in, int64_t units, bool bias, const Activation& act);
void emit_activation(Emitter&, const Activation&, const Shape& per_sample);
void emit_dropout(Emitter&, double rate, const Shape& per_sample);
void emit_norm(Emitter&, Norm, const Shape& per_sample, int64_t lrn_size = 5);
void emit_add(Emitter&, const std::vector<Shape>& per_sample);
void emit_attention(Emitter&, const AttentionCfg&, const Shape& query, const Shape& key_value);

// Parameter tensors of the composite layers (layers_attention.cpp).
std::vector<ParamTensor> attention_params(const AttentionCfg&, int64_t query_dim, int64_t kv_dim);
std::vector<ParamTensor> dense_params(int64_t in, int64_t units, bool bias);
std::vector<ParamTensor> norm_params(Norm, int64_t channels);

// Layer types defined in layers_attention.cpp.
void build_attention(Fields&, Node&);
void emit_attention_layer(Emitter&, const Node&);
void build_transformer_block(Fields&, Node&);
void emit_transformer_block(Emitter&, const Node&);

}  // namespace fomcast::layers
