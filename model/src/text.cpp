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

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string nearest_key(std::string_view key, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = 0;
  for (const auto& k : candidates) {
    const std::size_t d = edit_distance(key, k);
    if (best.empty() || d < best_d) best = k, best_d = d;
  }
  const std::size_t limit = std::max<std::size_t>(2, std::max(key.size(), best.size()) / 3);
  return best_d <= limit ? best : std::string();
}

}  // namespace fomcast
