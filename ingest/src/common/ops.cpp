// Name-based classification and op aggregation. The name rules follow the kernel naming of
// the libraries in real traces: cuBLAS/CUTLASS (`sm80_xmma_gemm`, `cutlass::Kernel`,
// `ampere_sgemm`), rocBLAS/Tensile (`Cijk_...`), cuDNN/MIOpen, Triton (`triton_poi_`,
// `triton_red_`), neon (`sgemm_nn_128x128`, `sconv_direct_fprop`), PyTorch elementwise
// kernels, NCCL/RCCL; and the op names of aten and TensorFlow.
#include "common/ops.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "fomcast/text.hpp"

namespace fomcast::ingest {

double tensor_elements(const std::vector<int64_t>& dims) {
  double n = 1;
  for (const int64_t d : dims) n *= d < 0 ? 1.0 : static_cast<double>(d);
  return n;
}
namespace {

template <std::size_t N>
bool has_any(const std::string& s, const std::string_view (&needles)[N]) {
  for (auto n : needles)
    if (contains(s, n)) return true;
  return false;
}

constexpr std::string_view kCollective[] = {
    "nccl", "rccl", "allreduce", "all_reduce", "allgather", "all_gather", "reduce_scatter", "reducescatter", "alltoall",
    "all_to_all", "c10d::", "multimem", "gloo:", "mpi_allreduce", "mpi_bcast",
    // A broadcast between devices, not one of shapes: DataParallel's and DDP's
    // broadcast_coalesced, Horovod's and TensorFlow's collective ops. A bare "broadcast" is
    // also TF's BroadcastGradientArgs and torch's broadcast_tensors, local shape work.
    "broadcast_coalesced", "horovodbroadcast", "collectivebcast",
    // MPI as TAU and nsys name it: point-to-point and waits count as
    // communication time too.
    "mpi_send", "mpi_recv", "mpi_isend", "mpi_irecv", "mpi_sendrecv", "mpi_wait", "mpi_barrier", "mpi_reduce",
    "mpi_gather", "mpi_scatter", "mpi_ibcast", "mpi_iallreduce", "mpi collective sync",
    // XLA's HLO collectives
    "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute"};
constexpr std::string_view kMemcpy[] = {"memcpy", "memset", "copy device to", "copy host to", "memory copy",
                                        "enqueuewritebuffer", "enqueuereadbuffer", "enqueuecopybuffer",
                                        // ROCm's runtime copy and fill kernels
                                        "rocclr_copy", "rocclr_fill"};
constexpr std::string_view kOptimizer[] = {"adam",          "sgd",     "optimizer", "multi_tensor_apply",
                                           "momentum",      "rmsprop", "adagrad",   "applygradientdescent",
                                           "apply_gradient"};
constexpr std::string_view kNorm[] = {"batch_norm", "batchnorm",      "layer_norm",    "layernorm", "group_norm",
                                      "groupnorm",  "instance_norm",  "bn_fw",         "bn_bw",     "rms_norm",
                                      "rmsnorm",    "fusedbatchnorm", "local_response"};
constexpr std::string_view kPool[] = {"pool"};
constexpr std::string_view kEmbedding[] = {"embedding", "index_select", "indexselect", "gather_", "lookup"};
constexpr std::string_view kConv[] = {"conv",
                                      "winograd",
                                      "implicit_gemm",
                                      "implicit_convolve",
                                      "fprop",
                                      "dgrad",
                                      "wgrad",
                                      "miopen",
                                      "igemm",
                                      "precomputed_convolve",
                                      "xprop_image",
                                      "update_image",
                                      "bprop_filter",
                                      "update_delta",
                                      "filter_dimshuffle",
                                      "im2col",
                                      "im3d2col"};
constexpr std::string_view kGemm[] = {
    "gemm", "cutlass", "cublas", "xmma", "sm80_", "sm90_", "sm75_", "sm70_", "ampere_", "volta_", "turing_", "hopper",
    "maxwell_", "kepler_", "cijk_", "matmul", "gemv", "aten::mm", "aten::addmm", "aten::bmm", "aten::linear",
    "aten::baddbmm", "aten::dot", "dot'", "dot of", "wgmma", "hipblaslt", "triton_tem",
    // cProfile's names for torch's and numpy's C functions: {built-in method addmm}, {... dot}
    "addmm", "method mm}", "method dot}",
    // FBGEMM's quantized GEMMs are named for their operand types (f8f8bf16_rowwise, ...)
    "f8f8", "bf16bf16", "i8i8", "f8i4", "bf16i4"};
constexpr std::string_view kReduction[] = {"reduce",        "reduction",    "softmax",    "aten::sum",  "aten::mean",
                                           "argmax",        "argmin",       "triton_red", "triton_per", "_sum",
                                           "cross_entropy", "crossentropy", "nll_loss",   "_loss",      "aten::max",
                                           "aten::min",     "topk",         "norm",       "cumsum"};
constexpr std::string_view kElementwise[] = {
    "elementwise", "vectorized", "unrolled", "triton_poi", "aten::add", "aten::mul", "aten::sub", "aten::div", "relu",
    "gelu", "silu", "sigmoid", "tanh", "dropout", "aten::copy", "aten::fill", "aten::zero", "aten::clone", "aten::cat",
    "aten::where", "aten::exp", "aten::pow", "aten::sqrt", "aten::rsqrt", "aten::neg", "aten::abs", "aten::threshold",
    "aten::masked", "aten::to", "kernel_", "_kernel<", "transpose", "nchwtonhwc", "nhwctonchw", "biasadd", "addn",
    "concat", "select", "cast", "aten::clamp", "hardtanh", "hardswish", "softplus", "mish", "aten::elu", "aten::erf",
    "aten::log", "aten::reciprocal", "aten::sin", "aten::cos", "aten::floor", "aten::round", "aten::sign", "aten::lerp",
    "aten::ones", "aten::zeros", "aten::_foreach_", "aten::uniform", "aten::rand", "aten::bernoulli", "axpy",
    // TF's fused chain of unary ops (Log1p, Exp, ...)
    "unaryopscomposition"};

// TF op types are short CamelCase words; match those exactly so "Add" does not catch
// "AddN" rules twice and "Mul" is not mistaken for MatMul.
struct Exact {
  std::string_view name;
  OpKind kind;
};
constexpr Exact kExact[] = {
    {"matmul", OpKind::gemm},
    {"batchmatmul", OpKind::batched_gemm},
    {"batchmatmulv2", OpKind::batched_gemm},
    {"aten::bmm", OpKind::batched_gemm},
    {"aten::baddbmm", OpKind::batched_gemm},
    {"add", OpKind::elementwise},
    {"mul", OpKind::elementwise},
    {"sub", OpKind::elementwise},
    {"realdiv", OpKind::elementwise},
    {"assign", OpKind::elementwise},
    {"fill", OpKind::elementwise},
    {"floor", OpKind::elementwise},
    {"slice", OpKind::elementwise},
    {"randomuniform", OpKind::elementwise},
    {"relugrad", OpKind::elementwise},
    {"biasaddgrad", OpKind::reduction},
    {"sum", OpKind::reduction},
    {"mean", OpKind::reduction},
    {"variablev2", OpKind::other},
    {"const", OpKind::other},
    {"noop", OpKind::other},
    {"identity", OpKind::other},
    // Random fills, not normalisations.
    {"aten::normal", OpKind::elementwise},
    {"aten::normal_", OpKind::elementwise},
    {"randomstandardnormal", OpKind::elementwise},
    {"truncatednormal", OpKind::elementwise},
    // TensorFlow's elementwise op types that no substring rule reaches.
    {"addv2", OpKind::elementwise},
    {"neg", OpKind::elementwise},
    {"square", OpKind::elementwise},
    {"squareddifference", OpKind::elementwise},
    {"sqrt", OpKind::elementwise},
    {"rsqrt", OpKind::elementwise},
    {"exp", OpKind::elementwise},
    {"log", OpKind::elementwise},
    {"pow", OpKind::elementwise},
    {"reciprocal", OpKind::elementwise},
    {"maximum", OpKind::elementwise},
    {"minimum", OpKind::elementwise},
    {"greater", OpKind::elementwise},
    {"greaterequal", OpKind::elementwise},
    {"less", OpKind::elementwise},
    {"lessequal", OpKind::elementwise},
    {"equal", OpKind::elementwise},
    {"notequal", OpKind::elementwise},
    {"logicaland", OpKind::elementwise},
    {"logicalor", OpKind::elementwise},
    {"logicalnot", OpKind::elementwise},
    {"stridedslice", OpKind::elementwise},
    {"pad", OpKind::elementwise},
    {"tile", OpKind::elementwise},
    {"gatherv2", OpKind::embedding},
    {"reshape", OpKind::other},
    {"shape", OpKind::other},
    {"stopgradient", OpKind::other},
};

// TF's LRN and LRNGrad, cuDNN's lrnForward: "lrn" at the start of a word, not inside one.
bool lrn_name(const std::string& s) {
  for (std::size_t at = s.find("lrn"); at != std::string::npos; at = s.find("lrn", at + 1))
    if (at == 0 || !std::isalpha(static_cast<unsigned char>(s[at - 1]))) return true;
  return false;
}

// LAMB the optimizer, not a Python <lambda> (cProfile lists many).
bool optimizer_name(const std::string& s) {
  return has_any(s, kOptimizer) || (contains(s, "lamb") && !contains(s, "lambda"));
}

}  // namespace

OpKind classify_name(std::string_view raw) {
  std::string s = lowercase(raw);
  // FBGEMM's name holds "gemm", but most of its ops (fbgemm::permute_2D_sparse_data,
  // asynchronous_complete_cumsum, the embedding lookups, fbgemm_gpu kernels) multiply no
  // matrices: the library's name says nothing about the op.
  // TensorFlow's grappler names the transposes it inserts "...-LayoutOptimizer": no optimizer.
  for (std::string_view lib : {"fbgemm_gpu", "fbgemm", "layoutoptimizer"})
    for (std::size_t at; (at = s.find(lib)) != std::string::npos;) s.erase(at, lib.size());
  for (const auto& e : kExact)
    if (s == e.name) return e.kind;
  // rocBLAS / hipBLASLt's Tensile kernels (Cijk_Alik_Bljk_..._ELFLR0_...) are GEMMs whatever
  // their tuning tags spell: "ELFLRn" had read as a local response norm.
  if (s.starts_with("cijk_")) return OpKind::gemm;
  if (has_any(s, kCollective)) return OpKind::collective;
  // torch.distributed's broadcast as cProfile names it: "distributed_c10d.py:1390(broadcast)".
  if (contains(s, "c10d") && contains(s, "broadcast")) return OpKind::collective;
  // Shape arithmetic and views that move no data (not a "cast"): TF's BroadcastGradientArgs,
  // torch's broadcast_tensors (views), broadcast_all and broadcast_shapes.
  for (std::string_view views : {"broadcastgradientargs", "broadcast_tensors", "broadcast_all", "broadcast_shapes"})
    if (contains(s, views)) return OpKind::other;
  if (has_any(s, kMemcpy)) return OpKind::memcpy;
  // Layout transposes (cuDNN's nchwToNhwcKernel, grappler's "conv68/Conv2D-0-TransposeNHWCToNCHW")
  // move data for the layer they are named after: elementwise traffic, not a conv (nor the
  // pooling of "pool1-0-TransposeNHWCToNCHW-LayoutOptimizer").
  if (contains(s, "nhwctonchw") || contains(s, "nchwtonhwc")) return OpKind::elementwise;
  if (optimizer_name(s)) return OpKind::optimizer;
  if (has_any(s, kNorm) || lrn_name(s)) return OpKind::normalization;
  if (has_any(s, kPool)) return OpKind::pooling;
  if (has_any(s, kEmbedding)) return OpKind::embedding;
  if (has_any(s, kConv)) return OpKind::conv;
  if (contains(s, "bmm") && !contains(s, "addmm")) return OpKind::batched_gemm;
  if (has_any(s, kGemm)) return OpKind::gemm;
  if (has_any(s, kReduction)) return OpKind::reduction;
  if (has_any(s, kElementwise)) return OpKind::elementwise;
  return OpKind::other;
}

Phase phase_from_name(std::string_view raw) {
  std::string s = lowercase(raw);
  if (const std::size_t at = s.find("layoutoptimizer"); at != std::string::npos) s.erase(at, 15);
  // FBGEMM's forward lookup is named after the optimizer its backward fuses
  // (split_embedding_codegen_lookup_rowwise_adagrad_function); its backward says backward.
  if (contains(s, "embedding") && contains(s, "lookup") && !contains(s, "backward")) return Phase::forward;
  if (optimizer_name(s) || contains(s, "optimizer.step") || contains(s, "zero_grad")) return Phase::optimizer;
  // TensorFlow's Conv2DBackpropFilter / Conv2DBackpropInput say "backprop".
  if (contains(s, "backward") || contains(s, "grad") || contains(s, "bprop") || contains(s, "backprop") ||
      contains(s, "dgrad") || contains(s, "wgrad") || contains(s, "autograd::engine"))
    return Phase::backward;
  return Phase::forward;
}

CollectiveKind collective_kind_from_name(std::string_view raw) {
  const std::string s = lowercase(raw);
  if (contains(s, "reduce_scatter") || contains(s, "reducescatter") || contains(s, "reduce-scatter"))
    return CollectiveKind::reduce_scatter;
  if (contains(s, "allreduce") || contains(s, "all_reduce") || contains(s, "all-reduce"))
    return CollectiveKind::allreduce;
  if (contains(s, "allgather") || contains(s, "all_gather") || contains(s, "all-gather"))
    return CollectiveKind::allgather;
  if (contains(s, "alltoall") || contains(s, "all_to_all") || contains(s, "all-to-all"))
    return CollectiveKind::alltoall;
  if (contains(s, "broadcast") || contains(s, "bcast")) return CollectiveKind::broadcast;
  if (contains(s, "barrier")) return CollectiveKind::barrier;
  if (contains(s, "reduce")) return CollectiveKind::reduce;
  if (contains(s, "send") || contains(s, "recv") || contains(s, "mpi_wait") || contains(s, "collective-permute"))
    return CollectiveKind::send_recv;
  return CollectiveKind::other;
}

bool is_step_name(std::string_view raw) {
  const std::string s = lowercase(raw);
  if (s.starts_with("profilerstep")) return true;
  constexpr std::string_view kSteps[] = {"train_step", "training_step", "train_batch",  "train_on_batch",
                                         "trainstep",  "train step",    "training step"};
  if (has_any(s, kSteps)) return true;
  // "step", "iteration", "Step 12", "iter_3", "iteration#7": the whole name is a step label.
  for (std::string_view word : {"step", "iteration", "iter"}) {
    if (!s.starts_with(word)) continue;
    std::size_t i = word.size();
    if (i < s.size() && (s[i] == ' ' || s[i] == '_' || s[i] == '#' || s[i] == ':' || s[i] == '-')) ++i;
    bool digits_only = true;
    for (std::size_t j = i; j < s.size(); ++j)
      if (!std::isdigit(static_cast<unsigned char>(s[j]))) digits_only = false;
    if (digits_only && (i == s.size() || i == word.size() || std::isdigit(static_cast<unsigned char>(s[i]))))
      return true;
  }
  return false;
}

std::string op_identity(const Op& op) {
  std::string key = std::string(to_string(op.kind));
  key += '|';
  key += shape_key(op.shape);
  key += '|';
  key += to_string(op.dtype);
  key += '|';
  key += to_string(op.phase);
  key += '|';
  key += op.name;
  return key;
}

namespace {

// The keys a call's op is looked up by, most exact first: its identity; the same without a
// GEMM's transposes and a collective's rank count (one reader learns them, the other not:
// autograd's transposes, a Kineto trace's world size); kind, phase and name alone.
constexpr std::size_t kKeys = 3;
std::string op_key(const Op& op, std::size_t level) {
  if (level == 0) return op_identity(op);
  if (level == 1) {
    Op plain = op;
    if (auto* g = std::get_if<GemmShape>(&plain.shape)) g->trans_a = g->trans_b = false;
    if (auto* c = std::get_if<CollectiveShape>(&plain.shape)) c->ranks = 0;
    return op_identity(plain);
  }
  std::string key(to_string(op.kind));
  key += '|';
  key += to_string(op.phase);
  key += '|';
  key += op.name;
  return key;
}

}  // namespace

std::vector<OpCall> calls_onto(const std::vector<OpCall>& calls, const std::vector<Op>& from, const std::vector<Op>& to,
                               std::size_t& left_out) {
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::array<std::unordered_map<std::string, std::size_t>, kKeys> at;  // key -> op of `to`; kNone: several
  for (std::size_t level = 0; level < kKeys; ++level)
    for (std::size_t i = 0; i < to.size(); ++i) {
      auto [it, fresh] = at[level].try_emplace(op_key(to[i], level), i);
      if (!fresh && level > 0) it->second = kNone;
    }
  auto find = [&](const Op& op) {
    for (std::size_t level = 0; level < kKeys; ++level)
      if (auto it = at[level].find(op_key(op, level)); it != at[level].end() && it->second != kNone) return it->second;
    return kNone;
  };
  std::vector<OpCall> out;
  std::vector<std::vector<std::size_t>> waits_for(calls.size());  // per call: the calls of `out` it stands for
  for (std::size_t i = 0; i < calls.size(); ++i) {
    std::vector<std::size_t> after;
    for (std::size_t a : calls[i].after)
      if (a < i) after.insert(after.end(), waits_for[a].begin(), waits_for[a].end());
    std::sort(after.begin(), after.end());
    after.erase(std::unique(after.begin(), after.end()), after.end());
    const std::size_t op = calls[i].op < from.size() ? find(from[calls[i].op]) : kNone;
    if (op == kNone) {
      ++left_out;
      waits_for[i] = std::move(after);
      continue;
    }
    waits_for[i] = {out.size()};
    out.push_back(OpCall{op, std::move(after)});
  }
  return out;
}

OpsByIdentity ops_by_identity(const std::vector<Op>& ops) {
  OpsByIdentity at;
  for (std::size_t i = 0; i < ops.size(); ++i) at.emplace(op_identity(ops[i]), i);
  return at;
}

std::optional<std::size_t> append_call_ops(const std::vector<std::string>& identities, const OpsByIdentity& ops,
                                           const std::vector<std::size_t>& after, std::vector<OpCall>& calls) {
  std::optional<std::size_t> last;
  for (const auto& id : identities) {
    auto at = ops.find(id);
    if (at == ops.end()) continue;
    calls.push_back(OpCall{at->second, last ? std::vector<std::size_t>{*last} : after});
    last = calls.size() - 1;
  }
  return last;
}

std::size_t dependency_count(const std::vector<OpCall>& calls) {
  std::size_t edges = 0;
  for (const auto& c : calls) edges += c.after.size();
  return edges;
}

void OpAggregator::add(const Op& op, double calls, std::optional<double> total_time_s) {
  auto [it, inserted] = index_.try_emplace(op_identity(op), slots_.size());
  if (inserted) {
    Slot slot;
    slot.op = op;
    slots_.push_back(std::move(slot));
  }
  Slot& s = slots_[it->second];
  s.calls += calls;
  if (total_time_s) {
    s.time_s += *total_time_s;
    s.timed = true;
  }
}

std::vector<Op> OpAggregator::finish(double passes) const {
  const double p = passes > 0 ? passes : 1;
  std::vector<Op> out;
  out.reserve(slots_.size());
  for (const auto& s : slots_) {
    if (s.calls <= 0) continue;
    Op op = s.op;
    op.count = s.calls / p;
    op.self_time_s = s.timed ? std::optional<double>(s.time_s / s.calls) : std::nullopt;
    out.push_back(std::move(op));
  }
  return out;
}

std::string short_kernel_name(std::string_view n) {
  if (n.starts_with("void ")) n.remove_prefix(5);
  constexpr std::string_view kAnonymous = "(anonymous namespace)::";
  std::string out;
  int depth = 0;  // inside template arguments <...>
  for (std::size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    if (depth == 0 && n.substr(i).starts_with(kAnonymous)) {
      // "at::native::(anonymous namespace)::max_pool_forward_nchw": a namespace, not the
      // parameter list; dropped so the function's own name follows its namespace.
      i += kAnonymous.size() - 1;
      continue;
    }
    if (c == '<') {
      ++depth;
    } else if (c == '>') {
      depth = std::max(0, depth - 1);
    } else if (depth == 0) {
      if (c == '(') break;  // the parameter list
      out.push_back(c);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.empty()) out = std::string(n.substr(0, 120));
  if (out.size() > 120) out.resize(120);
  return out;
}

Phase phase_from_kernel_name(std::string_view name) {
  // MIOpen's igemm_bwd / igemm_wrw, cuDNN's dgrad / wgrad: the backward pass whatever the
  // rest of the name says.
  if (kernel_direction(name) != KernelDirection::unknown) return Phase::backward;
  return phase_from_name(name);
}

KernelDirection kernel_direction(std::string_view raw) {
  const std::string s = lowercase(raw);
  if (contains(s, "wgrad") || contains(s, "bprop_filter") || contains(s, "backward_filter") || contains(s, "_wrw") ||
      contains(s, "wrw_") || contains(s, "backward_weight") || contains(s, "update_image"))
    return KernelDirection::backward_filter;
  if (contains(s, "dgrad") || contains(s, "bprop_data") || contains(s, "backward_data") || contains(s, "_bwd") ||
      contains(s, "bwd_") || contains(s, "backward_input") || contains(s, "xprop_image"))
    return KernelDirection::backward_data;
  return KernelDirection::unknown;
}

DType dtype_from_kernel_name(std::string_view raw) {
  const std::string s = lowercase(raw);
  // Tensile (rocBLAS, hipBLASLt): Cijk_<layout>_<types>_..., input types first.
  if (contains(s, "cijk_")) {
    if (contains(s, "_bbs_") || contains(s, "_bb_") || contains(s, "_bbh_")) return DType::bf16;
    if (contains(s, "_hhs_") || contains(s, "_hh_")) return DType::fp16;
    if (contains(s, "_sb_") || contains(s, "_ss_")) return DType::fp32;
    if (contains(s, "_db_") || contains(s, "_dd_")) return DType::fp64;
    return DType::unknown;
  }
  if (contains(s, "bf16")) return DType::bf16;
  // CUTLASS's Ampere TF32 GEMMs say it by their shape: tensorop_s1688gemm is fp32 out of
  // tf32 in (m16n8k8); the same shape on Turing names its f16 inputs.
  if (contains(s, "tf32") || (contains(s, "tensorop_s1688gemm") && !contains(s, "f16"))) return DType::tf32;
  if (contains(s, "e4m3") || contains(s, "e5m2") || contains(s, "fp8")) return DType::fp8;
  if (contains(s, "fp16") || contains(s, "f16") || contains(s, "h884") || contains(s, "h1688") ||
      contains(s, "h16816") || contains(s, "hgemm") || contains(s, "hmma"))
    return DType::fp16;
  if (contains(s, "i8") || contains(s, "int8") || contains(s, "imma")) return DType::int8;
  if (contains(s, "dgemm") || contains(s, "f64") || contains(s, "double")) return DType::fp64;
  if (contains(s, "sgemm") || contains(s, "scudnn") || contains(s, "f32") || contains(s, "float")) return DType::fp32;
  return DType::unknown;
}

}  // namespace fomcast::ingest
