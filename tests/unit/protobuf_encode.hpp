// Protocol Buffers encoding for tests that write protobuf traces (Chakra .et, XPlane,
// HloProto) field by field from their .proto definitions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fomcast::test::pb {

inline std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
// Field n as a varint / as length-delimited bytes / as packed varints.
inline std::string num(uint32_t n, uint64_t v) { return varint(uint64_t{n} << 3) + varint(v); }
inline std::string bytes(uint32_t n, const std::string& b) {
  return varint((uint64_t{n} << 3) | 2) + varint(b.size()) + b;
}
inline std::string packed(uint32_t n, const std::vector<uint64_t>& vs) {
  std::string b;
  for (uint64_t v : vs) b += varint(v);
  return bytes(n, b);
}
// One message of a varint-delimited stream.
inline std::string delimited(const std::string& message) { return varint(message.size()) + message; }

}  // namespace fomcast::test::pb
