// Files named like a protobuf format fomcast reads but whose bytes are not that format:
// a clear answer (what was expected, how to force the reader) rather than "unknown format".
#include <algorithm>

#include "common/readers.hpp"

namespace fomcast::ingest {
namespace {

// Protobuf payloads are binary: control bytes that no JSON or text profile contains.
bool binary(std::string_view head) {
  const auto n = std::min<std::size_t>(head.size(), 4096);
  return std::any_of(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(n), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 9 || (u > 13 && u < 32);
  });
}

}  // namespace

std::string unsupported_format_message(std::string_view head, std::string_view path) {
  if (!binary(head)) return {};
  if (path.ends_with(".xplane.pb"))
    return "named like an XPlane profile (.xplane.pb), but it does not start with a /host: or /device: plane; "
           "`--format xplane` reads it anyway and says where it fails";
  if (path.ends_with(".et"))
    return "named like a Chakra execution trace (.et), but its first messages are not a GlobalMetadata and a Node "
           "of et_def.proto; `--format chakra-et` reads it anyway and says where it fails";
  return {};
}

}  // namespace fomcast::ingest
