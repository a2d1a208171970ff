// layout_transform.hpp: the extra traffic of a tensor-core conv on NCHW activations.
#include "layout_transform.hpp"

#include <algorithm>
#include <vector>

#include "similarity.hpp"

namespace fomcast::est {

Op transpose_copy_op(const Op& of, std::string_view what, std::vector<std::vector<int64_t>> tensors, double elements,
                     DType storage) {
  // Timed as the device-to-device copy a transpose kernel is (each tensor read and written
  // once, at the target's streaming bandwidth), not from the elementwise tables: those hold
  // at most 16,372 rows, and far beyond them their transfer put a 1 GB transpose on an A100
  // at 180-370 GB/s, which made ResNet-50's NCHW tf32 step twice the published one.
  Op t;
  t.name = of.name + std::string(what) + " (DtoD)";
  t.kind = OpKind::memcpy;
  t.phase = of.phase;
  t.dtype = storage;
  t.count = of.count;
  t.shape = TensorShape{std::move(tensors)};
  t.bytes = elements * dtype_bytes(storage);  // what is copied: the copy reads it and writes it
  return t;
}

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
  // What cuDNN transposes, as an A100 trace shows it (traces/pytorch_kineto/
  // hta_critical_path_alexnet_trace.json.gz: each tf32 forward conv runs two nchwToNhwcKernel
  // launches, its input activation and its filter, then an xmma `nhwckrsc_nchw` kernel that
  // writes its output NCHW itself): the direction's activation inputs and the filter, each
  // read once and written once. Forward reads x, the data gradient dy, the filter gradient
  // both. A 2-D conv's spatial arrays are {1, H, W} (op.hpp).
  const auto out = c->output();
  const std::vector<int64_t> x{c->n, c->c, c->input[1], c->input[2]};
  const std::vector<int64_t> dy{c->n, c->k, out[1], out[2]};
  const std::vector<int64_t> filter{c->k, c->c / std::max<int64_t>(c->groups, 1), c->filter[1], c->filter[2]};
  const ConvElements n = conv_elements(*c);
  std::vector<std::vector<int64_t>> moved;
  double elements = 0;
  switch (c->direction) {
    case ConvDirection::forward: moved = {x, filter}, elements = n.x + n.filter; break;
    case ConvDirection::backward_data: moved = {dy, filter}, elements = n.y + n.filter; break;
    case ConvDirection::backward_filter: moved = {x, dy}, elements = n.x + n.y; break;
  }
  return transpose_copy_op(op, ".layout_transform", std::move(moved), elements, storage);
}

}  // namespace fomcast::est
