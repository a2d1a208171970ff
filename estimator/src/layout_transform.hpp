// cuDNN's layout transforms around tensor-core convolutions on channels-first (NCHW)
// activations. cuDNN "may use padding, folding, and NCHW-to-NHWC transformations to call
// the Tensor Core operations" (cuDNN developer guide, Legacy API, "Data and Filter
// Formats"): a conv whose math is tf32 or half on NCHW tensors reads and writes its
// activation inputs and its filter once more into NHWC (forward: x; data gradient: dy;
// filter gradient: x and dy), and its kernel writes the output NCHW itself. fp32 math runs
// NCHW kernels natively and pays nothing; a channels-last (NHWC) workload pays nothing; a
// workload whose layout is unknown is not charged (a trace times the transform kernels it
// ran as ops of their own).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "fomcast/platform.hpp"
#include "fomcast/workload.hpp"

namespace fomcast::est {

// A transpose of `tensors` (`elements` values in all, of `storage`) that `of` makes, as a
// device-to-device copy named "<of's name><what> (DtoD)", with of's phase and count.
Op transpose_copy_op(const Op& of, std::string_view what, std::vector<std::vector<int64_t>> tensors, double elements,
                     DType storage);

// The transform traffic of `op` as a device-to-device copy of the tensors it transposes (each
// read and written once, in the storage type), or nothing when the rule does not apply (also on a
// target without tensor cores for the op's type: its spec borrows the rate).
std::optional<Op> layout_transform_op(const Workload&, const Op&, const Platform& target);

}  // namespace fomcast::est
