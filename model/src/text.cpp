// fomcast/text.hpp: the string helpers shared by the readers and the name rules.
#include "fomcast/text.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace fomcast {

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

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

std::string visible(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x20 || b == 0x7F) {
      if (b == '\t' || b == '\n') {  // layout, not control: kept as a space and a line end
        out += b == '\t' ? ' ' : '\n';
        continue;
      }
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
      continue;
    }
    // C1 controls (U+0080-009F: C2 80-9F) and U+202A-202E, U+2066-2069 (E2 80 AA-AE, E2 81 A6-A9).
    const auto at = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0; };
    if (b == 0xC2 && at(1) >= 0x80 && at(1) <= 0x9F) {
      out += "\\u00";
      out += kHex[at(1) >> 4];
      out += kHex[at(1) & 0xF];
      ++i;
      continue;
    }
    if (b == 0xE2 &&
        ((at(1) == 0x80 && at(2) >= 0xAA && at(2) <= 0xAE) || (at(1) == 0x81 && at(2) >= 0xA6 && at(2) <= 0xA9))) {
      const unsigned code = ((b & 0x0F) << 12) | ((at(1) & 0x3F) << 6) | (at(2) & 0x3F);
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code >> shift) & 0xF];
      i += 2;
      continue;
    }
    out += text[i];
  }
  return out;
}

std::string unknown_field_message(std::string_view key, const std::vector<std::string>& known,
                                  std::string_view where_listed) {
  const std::string near = nearest_key(key, known);
  return "unknown field" +
         (near.empty() ? " (" + std::string(where_listed) + ")" : " (did you mean \"" + near + "\"?)");
}

}  // namespace fomcast
