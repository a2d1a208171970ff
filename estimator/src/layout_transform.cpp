// layout_transform.hpp: the extra traffic of a tensor-core conv on NCHW activations.
#include "layout_transform.hpp"

#include "similarity.hpp"

namespace fomcast::est {

std::optional<Op> layout_transform_op(const Workload& w, const Op& op, const Platform& target) {
  if (w.memory_format != "channels_first" || op.kind != OpKind::conv) return std::nullopt;
  // A part whose spec borrows the type's rate has no tensor cores for it and runs the conv
  // on its NCHW kernels (tf32 on a V100 computes in fp32); nor does cuDNN, allowed TF32,
  // transform for TF32 that is no faster than its fp32 kernels (an RTX 3090's).
  if (peak_for(target, op.dtype).dtype != op.dtype) return std::nullopt;
  if (op.dtype == DType::tf32 && tf32_runs_as_fp32(target)) return std::nullopt;
  const auto* c = std::get_if<ConvShape>(&op.shape);
  if (!c || c->dims != 2) return std::nullopt;
  DType storage = DType::fp32;
  switch (op.dtype) {
    case DType::tf32: storage = DType::fp32; break;
    case DType::fp16:
    case DType::bf16: storage = op.dtype; break;
    default: return std::nullopt;  // fp32 and the rest: no tensor cores, native NCHW kernels
  }
  const auto out = c->output();
  // The activations are the same pair in every direction: x (or dx) and y (or dy).
  const std::vector<int64_t> x{c->n, c->c, c->input[0], c->input[1]};
  const std::vector<int64_t> y{c->n, c->k, out[0], out[1]};
  const double elements = double(c->n) * (double(c->c) * double(c->input[0]) * double(c->input[1]) +
                                          double(c->k) * double(out[0]) * double(out[1]));
  Op t;
  t.name = op.name + ".layout_transform";
  t.kind = OpKind::elementwise;
  t.phase = op.phase;
  t.dtype = storage;
  t.count = op.count;
  t.shape = TensorShape{{x, y}};
  t.bytes = 2 * elements * dtype_bytes(storage);  // each tensor read once and written once
  return t;
}

}  // namespace fomcast::est
