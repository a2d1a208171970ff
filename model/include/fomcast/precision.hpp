// Precision as a choice (`--precision`, a study problem's "precision"): the arithmetic a
// training run uses, and the one transformation that re-types a recorded workload into it
// before anything is predicted. Each op's dtype becomes the precision its MATH runs in (what
// kernel tables and rooflines key on) and its bytes what it moves in that mode; docs/
// estimation.md has the table of op kinds, modes and peaks.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/op.hpp"
#include "fomcast/workload.hpp"

namespace fomcast {

enum class PrecisionMode {
  recorded,  // as the workload was recorded: nothing changes (the default)
  fp32,      // fp32 math and storage everywhere (PyTorch's default for matmul)
  tf32,      // matmul, conv and rnn on tensor cores at tf32, fp32 storage; the rest fp32
  fp16,      // everything floating in fp16, math and storage (model.half(), no master weights)
  bf16,      // everything floating in bf16
  amp_fp16,  // autocast to fp16: matmul, conv, rnn and attention (bmm) and the activations
             // between them in fp16; normalization, softmax, loss, reductions, embedding,
             // gradients' collectives and the optimizer (fp32 master weights) in fp32
  amp_bf16,  // the same with bf16
};
std::string_view to_string(PrecisionMode);  // "recorded", "fp32", ..., "amp-fp16", "amp-bf16"
// The names `--precision` and study files accept: fp32, tf32, fp16, bf16, amp-fp16, amp-bf16.
std::optional<PrecisionMode> parse_precision_mode(std::string_view);
inline constexpr const char* kPrecisionModeNames = "fp32, tf32, fp16, bf16, amp-fp16 or amp-bf16";

// What one op becomes in a mode.
struct OpPrecision {
  DType math = DType::fp32;     // the precision its math runs in (the peak it uses)
  DType storage = DType::fp32;  // the element type it reads and writes (its bytes)
};
// For an op of `kind` named `name`, recorded in `recorded`. Ops that no mode re-types keep
// their recorded type: integer and fp64 ops, copies and `other` ops.
OpPrecision op_precision(OpKind kind, std::string_view name, DType recorded, PrecisionMode mode);

// Whether an op is a batch norm by its name ("batchnorm", "aten::cudnn_batch_norm", any case).
// Autocast's float32 list names layer_norm and group_norm but not batch_norm (PyTorch's
// "Autocast Op Reference", CUDA ops that can autocast to float32): a batch norm runs in its
// input's type, so after a half conv it reads and writes half (cuDNN's batch norm keeps its
// statistics and parameters in fp32, its math fp32). The estimator's NCHW batch-norm rule
// picks its ops by it too.
bool batch_norm_by_name(std::string_view name);

struct PrecisionApplied {
  Workload workload;          // the ops re-typed
  std::vector<bool> retyped;  // per op: its dtype or bytes changed (its measured time no longer applies)
  std::vector<std::string> notes;
};
// The workload in `mode`. A re-typed op gets the mode's math dtype and its bytes in the
// storage type (its recorded bytes scaled by the element widths, else from its shape); its
// measured self time, taken at the recorded precision, is cleared so that nothing carries it
// as if it had been measured in the new one. An op with no shape, FLOPs or bytes cannot be
// re-costed and keeps its type and measured time (a note counts them). `recorded` changes
// nothing.
// In the amp modes the workload also gets the casts autocast adds for the weights of the
// matmul-like ops it re-types from fp32 storage to half (autocast_weight_casts), appended
// after the recorded ops.
PrecisionApplied apply_precision(const Workload&, PrecisionMode);

// A model's memory in `mode` (apply_precision applies it to Workload::model): fp32, tf32 and
// the amp modes keep fp32 weights, gradients and optimizer states; fp16 and bf16 keep half
// weights and gradients and, as half training does (Megatron-LM, DeepSpeed: the ZeRO paper's
// 2 + 2 + 12 bytes per parameter under Adam), fp32 master weights and states, counted as
// optimizer state. Activations are kept in half under fp16, bf16 and amp. fp64 or integer
// models, and `recorded`, are returned as they are.
ModelStats model_stats_in(const ModelStats&, PrecisionMode);

// The weight casts autocast adds when a workload recorded in fp32 storage runs in an amp
// mode (empty in every other mode). Per forward call of a GEMM (linear, weight [K,N]) or a
// conv (weight [K, C/groups, filter], cast as the matrix [K, C/groups x filter]) that the
// mode runs in half: one elementwise cast of its weight (`autocast.cast_weight`, read 4 B and
// write 2 B per element; autocast's weight cache casts each parameter once per forward).
// Where the pass computes that weight's gradient (a backward GEMM dW[K,N] = X^T dY, a conv's
// backward_filter): one cast of the half gradient back to fp32 (`autocast.cast_weight.grad`,
// read 2 B, write 4 B). Casts of activations (an fp32 op's output read by a half op) are not
// added: an aggregated op list does not say which op reads which; docs/estimation.md.
std::vector<Op> autocast_weight_casts(const Workload& recorded, PrecisionMode mode);

// The floating-point types of a workload's ops as recorded: "fp32", "fp16+fp32", or
// "unknown" when no op has one.
std::string recorded_precision(const Workload&);

}  // namespace fomcast
