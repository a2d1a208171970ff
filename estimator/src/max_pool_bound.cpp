// max_pool_bound.hpp: the SM-bound time of PyTorch's max-pool kernels.
#include "max_pool_bound.hpp"

#include <string>

#include "fomcast/text.hpp"

namespace fomcast::est {

std::optional<double> max_pool_sm_bound_s(const Workload& w, const Op& op, const Platform& target) {
  // The rate is PyTorch's kernels': a layer list that states its memory format was written
  // from a PyTorch model (torchvision's ResNet-50); CANDLE's Keras models state none, and
  // TensorFlow's pool kernels were not measured here.
  if (w.origin != "model" || w.memory_format.empty() || op.kind != OpKind::pooling) return std::nullopt;
  const std::string n = lowercase(op.name);
  if (n.find("maxpool") == std::string::npos && n.find("max_pool") == std::string::npos) return std::nullopt;
  if (target.device_kind != "gpu" || target.vendor != "NVIDIA" || !target.clock_hz || !target.compute_units)
    return std::nullopt;
  const double sm_cycles_per_s = target.compute_units->value * target.clock_hz->value;
  const auto* t = std::get_if<TensorShape>(&op.shape);
  if (!t || !(sm_cycles_per_s > 0)) return std::nullopt;
  // The input is the pool's largest tensor (forward: x; backward: dy and x, x the larger).
  const auto elements = static_cast<double>(t->elements());
  if (!(elements > 0)) return std::nullopt;
  const double rate = op.phase != Phase::backward          ? kMaxPoolForwardPerSmCycle
                      : w.memory_format == "channels_last" ? kMaxPoolBackwardNhwcPerSmCycle
                                                           : kMaxPoolBackwardPerSmCycle;
  return elements / (rate * sm_cycles_per_s);
}

}  // namespace fomcast::est
