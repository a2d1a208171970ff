// fomcast/op.hpp's copy_route: the direction of a copy from the words of its name. Whole
// words only, so that no kernel name that happens to contain "htod" is taken for a copy.
#include <algorithm>
#include <array>

#include "fomcast/op.hpp"
#include "fomcast/platform_match.hpp"

namespace fomcast {
namespace {

struct Spelling {
  CopyDirection direction;
  std::array<const char*, 6> words;  // any one of them, a whole word of the name
};

// Words as device_words gives them: lower case, letters and digits ("Memcpy HtoD" ->
// memcpy htod; "MemcpyHtoD" -> memcpyhtod).
const Spelling kSpellings[] = {
    {CopyDirection::host_to_device, {"htod", "h2d", "memcpyhtod", "memcpyh2d", "copyhosttodevice", "hosttodevice"}},
    {CopyDirection::device_to_host, {"dtoh", "d2h", "memcpydtoh", "memcpyd2h", "copydevicetohost", "devicetohost"}},
    {CopyDirection::device_to_device,
     {"dtod", "d2d", "memcpydtod", "memcpyd2d", "copydevicetodevice", "devicetodevice"}},
    {CopyDirection::host_to_host, {"htoh", "h2h", "memcpyhtoh", "memcpyh2h", "copyhosttohost", "hosttohost"}},
    {CopyDirection::peer_to_peer, {"ptop", "p2p", "memcpyptop", "memcpyp2p", "copypeertopeer", "peertopeer"}},
};

bool has_word(const std::vector<std::string>& words, std::string_view w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

}  // namespace

std::string_view to_string(CopyDirection d) {
  switch (d) {
    case CopyDirection::unknown: return "unknown";
    case CopyDirection::host_to_device: return "HtoD";
    case CopyDirection::device_to_host: return "DtoH";
    case CopyDirection::device_to_device: return "DtoD";
    case CopyDirection::host_to_host: return "HtoH";
    case CopyDirection::peer_to_peer: return "PtoP";
  }
  return "?";
}

CopyRoute copy_route(std::string_view name) {
  const std::vector<std::string> words = device_words(name);
  CopyRoute r;
  for (const auto& s : kSpellings)
    if (std::any_of(s.words.begin(), s.words.end(), [&](const char* w) { return has_word(words, w); })) {
      r.direction = s.direction;
      break;
    }
  // "Host to device" spelled out in words.
  for (std::size_t i = 0; r.direction == CopyDirection::unknown && i + 2 < words.size(); ++i) {
    if (words[i + 1] != "to") continue;
    const std::string& a = words[i];
    const std::string& b = words[i + 2];
    if (a == "host" && b == "device") r.direction = CopyDirection::host_to_device;
    if (a == "device" && b == "host") r.direction = CopyDirection::device_to_host;
    if (a == "device" && b == "device") r.direction = CopyDirection::device_to_device;
  }
  r.pageable = has_word(words, "pageable");
  r.memset = has_word(words, "memset") || (!words.empty() && words.front().starts_with("memset"));
  return r;
}

}  // namespace fomcast
