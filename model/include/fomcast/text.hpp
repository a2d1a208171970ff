// Small string helpers the standard library lacks in C++20 (std::string_view::contains is
// C++23; starts_with and ends_with are members already and are used as such).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fomcast {

inline bool contains(std::string_view text, std::string_view needle) {
  return text.find(needle) != std::string_view::npos;
}

// ASCII lower case; bytes outside A-Z are kept as they are.
std::string lowercase(std::string_view);

// The candidate a misspelt key most likely meant ("precison" -> "precision"), or "" when
// none is near: at most max(2, a third of the longer) single-character edits away.
std::string nearest_key(std::string_view key, const std::vector<std::string>& candidates);

}  // namespace fomcast
