// nchw_batch_norm.hpp: the one-block-per-channel bound of cuDNN's NCHW batch norm.
#include "nchw_batch_norm.hpp"

#include <algorithm>

#include "fomcast/precision.hpp"

namespace fomcast::est {

std::optional<double> nchw_batch_norm_block_bound_s(const Workload& w, const Op& op, const Platform& target) {
  // Only a layer list says its layout (a trace's batch norms carry their measured times),
  // and it writes a tensor channels last ([N, H, W, C], Keras's order) whatever layout the
  // run used: the channels are the last dimension.
  if (w.memory_format != "channels_first" || op.kind != OpKind::normalization || !batch_norm_by_name(op.name))
    return std::nullopt;
  if (target.device_kind != "gpu" || target.vendor != "NVIDIA" || !target.clock_hz || !(target.clock_hz->value > 0))
    return std::nullopt;
  const auto* t = std::get_if<TensorShape>(&op.shape);
  if (!t || t->inputs.empty() || t->inputs.front().size() < 2) return std::nullopt;
  // x (forward), or dy and x of its shape (backward).
  const auto elements = static_cast<double>(t->elements());
  const double channels = static_cast<double>(std::max<int64_t>(t->inputs.front().back(), 1));
  // The layer lists' passes over the tensor (ingest's emit_norm): statistics, then the
  // normalisation; the backward reduces x and dy, then writes dx.
  const double passes = op.phase == Phase::backward ? 5 : 3;
  return elements * passes / (channels * kBatchNormPassesPerBlockCycle * target.clock_hz->value);
}

}  // namespace fomcast::est
