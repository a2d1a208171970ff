// max_pool_bound.hpp: the SM-bound time of PyTorch's max-pool kernels.
#include "max_pool_bound.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace fomcast::est {

std::optional<double> max_pool_sm_bound_s(const Workload& w, const Op& op, const Platform& target) {
  // The rate is PyTorch's kernels': a layer list that states its memory format was written
  // from a PyTorch model (torchvision's ResNet-50); CANDLE's Keras models state none, and
  // TensorFlow's pool kernels were not measured here.
  if (w.origin != "model" || w.memory_format.empty() || op.kind != OpKind::pooling) return std::nullopt;
  std::string n = op.name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  if (n.find("maxpool") == std::string::npos && n.find("max_pool") == std::string::npos) return std::nullopt;
  if (target.device_kind != "gpu" || target.vendor != "NVIDIA" || !target.clock_hz || !target.compute_units)
    return std::nullopt;
  const double sm_cycles_per_s = target.compute_units->value * target.clock_hz->value;
  const auto* t = std::get_if<TensorShape>(&op.shape);
  if (!t || !(sm_cycles_per_s > 0)) return std::nullopt;
  // The input is the pool's largest tensor (forward: x; backward: dy and x, x the larger).
  double elements = 0;
  for (const auto& dims : t->inputs) {
    double e = 1;
    for (const int64_t d : dims) e *= static_cast<double>(std::max<int64_t>(d, 1));
    elements = std::max(elements, e);
  }
  if (!(elements > 0)) return std::nullopt;
  const double rate = op.phase != Phase::backward          ? kMaxPoolForwardPerSmCycle
                      : w.memory_format == "channels_last" ? kMaxPoolBackwardNhwcPerSmCycle
                                                           : kMaxPoolBackwardPerSmCycle;
  return elements / (rate * sm_cycles_per_s);
}

}  // namespace fomcast::est
