// Small string helpers the standard library lacks in C++20 (std::string_view::contains is
// C++23; starts_with and ends_with are members already and are used as such).
#pragma once

#include <string>
#include <string_view>

namespace fomcast {

inline bool contains(std::string_view text, std::string_view needle) {
  return text.find(needle) != std::string_view::npos;
}

// ASCII lower case; bytes outside A-Z are kept as they are.
std::string lowercase(std::string_view);

}  // namespace fomcast
