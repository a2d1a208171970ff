// PyTorch's CUDA max-pool kernels are bound by the SMs, not by memory: per input element they
// do index arithmetic (64-bit divisions for the window and the saved argmax), and they take
// the same time in fp16 as in fp32, on an H100 as on an H200 (0.81 ms forward and 2.3 ms
// backward for ResNet-50's [256, 64, 112, 112] stem pool on each: tests/data/profiles/). Per SM
// clock they retire about one input element forward and a third of one backward on Hopper
// and on Volta alike (a V100's steps within 4-9% of that rate), where the bytes alone give
// a tenth of the measured time.
#pragma once

#include <optional>

#include "fomcast/platform.hpp"
#include "fomcast/workload.hpp"

namespace fomcast::est {

// Input elements one SM retires per clock, measured on the H200's ResNet-50 steps (amp-fp16
// and tf32, channels first; channels last backward from the amp step's one kernel).
inline constexpr double kMaxPoolForwardPerSmCycle = 0.97;
inline constexpr double kMaxPoolBackwardPerSmCycle = 0.34;
inline constexpr double kMaxPoolBackwardNhwcPerSmCycle = 0.43;

// The time `op` takes at that rate over the target's SMs, when it is a max pool of a layer
// list that states its memory format (written from a PyTorch model; a trace's pools carry
// their measured times) on an NVIDIA GPU whose spec gives its SM count and clock; nothing
// otherwise. The op's time is at least this.
std::optional<double> max_pool_sm_bound_s(const Workload&, const Op&, const Platform& target);

}  // namespace fomcast::est
