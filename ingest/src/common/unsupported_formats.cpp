// Files fomcast cannot read that look like something it can say: a Git LFS pointer, a PyTorch
// profiler summary table, a file named like a protobuf format fomcast reads whose bytes are
// not that format. A clear answer (what it is, what to give instead) rather than "unknown
// format".
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
  // A repository's large file checked out without git-lfs: a three-line pointer to it.
  if (head.starts_with("version https://git-lfs.github.com/spec/")) {
    const std::size_t at = head.find("\nsize ");
    std::string size =
        at == std::string_view::npos ? "" : std::string(head.substr(at + 6, head.find('\n', at + 6) - at - 6));
    if (size.empty() || size.size() > 20 ||
        !std::all_of(size.begin(), size.end(), [](char c) { return c >= '0' && c <= '9'; }))
      size.clear();
    return "a Git LFS pointer, not the profile: the file it stands for" +
           (size.empty() ? std::string() : " (" + size + " bytes)") +
           " was not fetched (`git lfs pull` in its repository fetches it)";
  }
  // torch.profiler's key_averages().table(): totals per op name, no calls in time order, no
  // shapes unless grouped by them, no pass. Nothing to estimate from; the trace it came from is.
  if (head.find("Self CPU %") != std::string_view::npos && head.find("# of Calls") != std::string_view::npos)
    return "a PyTorch profiler summary table (key_averages().table()): totals per op name, with no pass and no "
           "shapes to estimate from, which fomcast does not read; export the trace itself "
           "(prof.export_chrome_trace(\"trace.json\"), or torch.profiler.tensorboard_trace_handler) and ingest "
           "that";
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
