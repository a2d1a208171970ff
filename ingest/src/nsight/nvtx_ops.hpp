// NVTX range text as PyTorch's emit_nvtx writes it, "aten::addmm, seq = 12, op_id = 34,
// sizes = [[64, 128], [64, 256], [256, 128]], input_op_ids = [...]", and the op shape its
// sizes give (the same rules as the Kineto "Input Dims": mm, addmm, bmm, linear, matmul;
// other memory-bound ops keep their input shapes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/model.hpp"

namespace fomcast::ingest::nvtx {

struct FrameworkOp {
  std::string name;                         // "aten::addmm"
  std::vector<std::vector<int64_t>> sizes;  // empty when the range has none
  bool has_sizes = false;
};

// nullopt when the text is not an emit_nvtx op range (a user range, an MPI call).
std::optional<FrameworkOp> parse_framework_op(std::string_view text);

// Kind and shape of an aten op from its input sizes; kind from the name when the sizes
// do not fit a rule, shape empty then.
struct ShapedOp {
  OpKind kind = OpKind::other;
  OpShape shape;
};
ShapedOp shape_from_sizes(std::string_view name, const std::vector<std::vector<int64_t>>& sizes);

}  // namespace fomcast::ingest::nvtx
