// cuDNN's batch norm on channels-first (NCHW) activations is parallel over channels alone:
// its NCHW kernels (bn_fw_tr_1C11_*, bn_bw_1C11_*) launch one thread block per channel
// (their grid is C x 1 x 1 in every profiled step here) and each block walks its channel's
// N x H x W values. A layer of few channels keeps most of a large GPU idle: on an H200,
// ResNet-50's 64-channel batch norms moved 0.28-0.35 TB/s of its 4.8, its 512-channel ones
// 1.1-1.5 (tests/data/profiles/h200_rn50_amp_b256_nchw.json.gz). The channels-last kernels
// (batchnorm_*_nhwc_semiPersist) spread over the whole GPU and are not bound so.
#pragma once

#include <optional>

#include "fomcast/platform.hpp"
#include "fomcast/workload.hpp"

namespace fomcast::est {

// Element passes (one value read or written once) one block retires per SM clock cycle,
// measured on two H200 steps (docs/accuracy.md, "Batch norm on channels-first activations").
inline constexpr double kBatchNormPassesPerBlockCycle = 1.8;

// The time `op` takes with C blocks at that rate, when it is a batch norm of a channels-first
// workload on an NVIDIA GPU whose spec gives its clock; nothing otherwise. The caller
// combines it with the op's memory-bound time (rollup.cpp): neither bound alone matched
// the measured kernels across channel counts.
std::optional<double> nchw_batch_norm_block_bound_s(const Workload&, const Op&, const Platform& target);

}  // namespace fomcast::est
