// fomcast/text.hpp: the string helpers shared by the readers and the name rules.
#include "fomcast/text.hpp"

#include <algorithm>
#include <cctype>

namespace fomcast {

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace fomcast
