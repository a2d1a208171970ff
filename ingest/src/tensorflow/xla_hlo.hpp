// XLA's HloProto (xla/service/hlo.proto), read for what a performance model needs: per
// instruction name, its kind of work and shape. The XPlane reader finds a module's
// HloProto in the profile's /host:metadata plane and gives its kernels' HLO ops these
// shapes. Private to ingest/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "fomcast/model.hpp"

namespace fomcast::ingest {

struct HloOpInfo {
  std::string opcode;  // "fusion", "custom-call", "convolution", "dot", ...
  OpKind kind = OpKind::other;
  OpShape shape;  // GemmShape, ConvShape, or TensorShape of the operands
  DType dtype = DType::unknown;
  double bytes = 0;  // operands read and results written, each at its own element size
};

// Instruction name -> what it is, over every computation of the module. Throws InputError
// (file, byte offset) for a malformed proto; an instruction it cannot interpret is left out.
std::unordered_map<std::string, HloOpInfo> read_hlo_module(std::string_view hlo_proto, const std::string& file,
                                                           int64_t offset);

}  // namespace fomcast::ingest
