// Re-typing a workload into a precision mode (precision.hpp). Autocast's lists decide the
// amp modes: matmul-like ops (mm, addmm, bmm, linear, conv, cudnn rnn) run in half; softmax,
// the losses, norms and reductions (sum, mean, ...) run in fp32; everything else runs in the
// type of its inputs, which after a half matmul is half (activations, dropout, adds, pooling).
// Embedding tables and the optimizer's parameters, gradients and states stay fp32 (fp32 master
// weights), and so does the gradients' all-reduce. fp16 and bf16 run everything in half but the
// optimizer, whose fp32 master weights and states half training keeps.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "fomcast/precision.hpp"
#include "fomcast/text.hpp"

namespace fomcast {
namespace {

constexpr std::pair<PrecisionMode, const char*> kModes[] = {
    {PrecisionMode::recorded, "recorded"}, {PrecisionMode::fp32, "fp32"}, {PrecisionMode::tf32, "tf32"},
    {PrecisionMode::fp16, "fp16"},         {PrecisionMode::bf16, "bf16"}, {PrecisionMode::amp_fp16, "amp-fp16"},
    {PrecisionMode::amp_bf16, "amp-bf16"},
};

// Types a mixed-precision setting chooses between; fp64 and integer ops are the model's own.
bool floating(DType d) {
  return d == DType::fp32 || d == DType::tf32 || d == DType::fp16 || d == DType::bf16 || d == DType::unknown;
}

bool matmul_like(OpKind k) {
  return k == OpKind::gemm || k == OpKind::batched_gemm || k == OpKind::conv || k == OpKind::rnn;
}

// An elementwise op autocast runs in fp32 although its kind is memory-bound half work:
// softmax (the model layer lists make it elementwise) and the losses.
bool fp32_by_name(std::string_view name) {
  const std::string n = lowercase(name);
  return contains(n, "softmax") || contains(n, "loss") || contains(n, "entropy");
}

bool can_recost(const Op& op) {
  return op.flops > 0 || op.bytes > 0 || !std::holds_alternative<std::monostate>(op.shape);
}

}  // namespace

bool batch_norm_by_name(std::string_view name) {
  const std::string n = lowercase(name);
  return contains(n, "batchnorm") || contains(n, "batch_norm");
}

std::string_view to_string(PrecisionMode m) {
  for (const auto& [e, name] : kModes)
    if (e == m) return name;
  return "?";
}

std::optional<PrecisionMode> parse_precision_mode(std::string_view text) {
  for (const auto& [e, name] : kModes)
    if (e != PrecisionMode::recorded && text == name) return e;
  return std::nullopt;
}

OpPrecision op_precision(OpKind kind, std::string_view name, DType recorded, PrecisionMode mode) {
  const DType as_recorded = recorded;
  if (mode == PrecisionMode::recorded || !floating(recorded) || kind == OpKind::memcpy || kind == OpKind::other)
    return {as_recorded, as_recorded};
  switch (mode) {
    case PrecisionMode::recorded: break;
    case PrecisionMode::fp32: return {DType::fp32, DType::fp32};
    case PrecisionMode::tf32: return matmul_like(kind) ? OpPrecision{DType::tf32, DType::fp32} : OpPrecision{};
    // Half training keeps fp32 master weights and optimizer states (Megatron-LM's --fp16 and
    // --bf16, DeepSpeed; the ZeRO paper's 2 + 2 + 12 bytes per parameter): the update reads
    // and writes them in fp32.
    case PrecisionMode::fp16: return kind == OpKind::optimizer ? OpPrecision{} : OpPrecision{DType::fp16, DType::fp16};
    case PrecisionMode::bf16: return kind == OpKind::optimizer ? OpPrecision{} : OpPrecision{DType::bf16, DType::bf16};
    case PrecisionMode::amp_fp16:
    case PrecisionMode::amp_bf16: {
      const DType half = mode == PrecisionMode::amp_fp16 ? DType::fp16 : DType::bf16;
      switch (kind) {
        case OpKind::gemm:
        case OpKind::batched_gemm:
        case OpKind::conv:
        case OpKind::rnn:
        case OpKind::pooling: return {half, half};
        case OpKind::elementwise: return fp32_by_name(name) ? OpPrecision{} : OpPrecision{half, half};
        case OpKind::normalization: return batch_norm_by_name(name) ? OpPrecision{DType::fp32, half} : OpPrecision{};
        case OpKind::reduction:
        case OpKind::embedding:
        case OpKind::optimizer:
        case OpKind::collective: return {};
        case OpKind::memcpy:
        case OpKind::other: return {as_recorded, as_recorded};
      }
    }
  }
  return {as_recorded, as_recorded};
}

PrecisionApplied apply_precision(const Workload& w, PrecisionMode mode) {
  PrecisionApplied out{w, std::vector<bool>(w.ops.size(), false), {}};
  if (mode == PrecisionMode::recorded) return out;
  int64_t kept = 0, retyped = 0;
  for (std::size_t i = 0; i < out.workload.ops.size(); ++i) {
    Op& op = out.workload.ops[i];
    const OpPrecision p = op_precision(op.kind, op.name, op.dtype, mode);
    // The recorded element width: tf32 and unknown are stored as 4 bytes.
    const double recorded_width = dtype_bytes(op.dtype);
    const double width = dtype_bytes(p.storage);
    if (p.math == op.dtype && width == recorded_width) continue;
    if (!can_recost(op)) {
      ++kept;
      continue;
    }
    // The recorded traffic scaled by the element widths keeps what the recording or the
    // model expansion knew beyond the shape (a batch norm's three passes over its input, a
    // dropout's mask); the shape's own bytes only where none was recorded.
    const double shaped = op_bytes(op.kind, op.shape, p.storage);
    if (op.bytes > 0)
      op.bytes *= width / recorded_width;
    else if (shaped > 0)
      op.bytes = shaped;
    if (op.flops <= 0) op.flops = op_flops(op.kind, op.shape);
    op.dtype = p.math;
    op.self_time_s.reset();
    out.retyped[i] = true;
    ++retyped;
  }
  if (out.workload.model) out.workload.model = model_stats_in(*out.workload.model, mode);
  const std::vector<Op> casts = autocast_weight_casts(w, mode);
  double cast_calls = 0;
  for (const Op& c : casts) {
    out.workload.ops.push_back(c);
    out.retyped.push_back(true);  // added: nothing measured them
    cast_calls += c.count;
  }
  std::int64_t measured = 0;
  for (std::size_t i = 0; i < w.ops.size(); ++i)
    if (out.retyped[i] && w.ops[i].self_time_s) ++measured;
  out.notes.push_back("precision " + std::string(to_string(mode)) + " (recorded: " + recorded_precision(w) +
                      "): " + std::to_string(retyped) + " of " + std::to_string(w.ops.size()) +
                      " op(s) re-typed and re-costed" +
                      (measured > 0 ? "; the " + std::to_string(measured) +
                                          " measured at the recorded precision carry their measurement by the model's "
                                          "ratio of the two types on the target (method scaled)"
                                    : std::string()));
  if (!casts.empty())
    out.notes.push_back(
        "autocast casts added (method: modelled elementwise, autocast.cast_weight): " +
        std::to_string(std::llround(cast_calls)) +
        " cast kernel call(s) per pass of the weights of the GEMMs and convs re-typed to half, once per forward "
        "and once for each weight gradient (read 4 B, write 2 B per element, and back); casts of activations "
        "are not modelled");
  if (kept > 0)
    out.notes.push_back(std::to_string(kept) +
                        " op(s) with no shape, FLOPs or bytes keep their recorded precision and measured time");
  return out;
}

ModelStats model_stats_in(const ModelStats& s, PrecisionMode mode) {
  if (mode == PrecisionMode::recorded || s.params <= 0 || !(s.weights_bytes > 0)) return s;
  const double recorded = s.weights_bytes / static_cast<double>(s.params);  // bytes per parameter
  // Only a floating-point model changes: fp64 and integer weights are the model's own.
  if (recorded != 4 && recorded != 2) return s;
  const bool half = mode == PrecisionMode::fp16 || mode == PrecisionMode::bf16;
  const bool half_activations = half || mode == PrecisionMode::amp_fp16 || mode == PrecisionMode::amp_bf16;
  const double param = half ? 2 : 4, trainable = s.gradients_bytes / recorded;
  ModelStats out = s;
  out.weights_bytes = static_cast<double>(s.params) * param;
  out.gradients_bytes = trainable * param;
  out.optimizer_bytes = s.optimizer_bytes / recorded * 4 + (half ? trainable * 4 : 0.0);
  out.activations_bytes = s.activations_bytes * (half_activations ? 2 : 4) / recorded;
  return out;
}

std::string recorded_precision(const Workload& w) {
  std::set<std::string> types;
  for (const auto& op : w.ops)
    if (floating(op.dtype) && op.dtype != DType::unknown) types.insert(std::string(to_string(op.dtype)));
  if (types.empty()) return "unknown";
  std::string out;
  for (const auto& t : types) out += (out.empty() ? "" : "+") + t;
  return out;
}

}  // namespace fomcast
