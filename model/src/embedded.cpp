// Lookup over the data files compiled into the binary.
#include "fomcast/embedded.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

namespace fomcast {

std::optional<std::string_view> embedded_file(std::string_view path) {
  for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i) {
    const auto& f = detail::kEmbeddedFiles[i];
    if (path == f.path) return std::string_view(f.begin, static_cast<std::size_t>(f.end - f.begin));
  }
  return std::nullopt;
}

std::vector<std::pair<std::string_view, std::string_view>> embedded_files(std::string_view prefix) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i) {
    const auto& f = detail::kEmbeddedFiles[i];
    std::string_view path = f.path;
    if (path.substr(0, prefix.size()) == prefix)
      out.emplace_back(path, std::string_view(f.begin, static_cast<std::size_t>(f.end - f.begin)));
  }
  return out;  // the generator emits paths sorted
}

std::string embedded_data_hash() {
  // FNV-1a over paths and contents: cheap, stable across builds, and only compared for equality.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::string_view bytes) {
    for (unsigned char c : bytes) {
      h ^= c;
      h *= 1099511628211ull;
    }
  };
  // How the files are seeded is part of what a database holds: a new rule (2: one NeuSight
  // sampling k per op folder) makes older databases reseed, as new data does.
  mix("seed rule 2");
  for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i) {
    const auto& f = detail::kEmbeddedFiles[i];
    mix(f.path);
    mix(std::string_view(f.begin, static_cast<std::size_t>(f.end - f.begin)));
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace fomcast
