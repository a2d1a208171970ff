// The plain text table every human-facing command prints.
#include "fomcast/report/text_table.hpp"

#include <algorithm>

namespace fomcast {

std::string TextTable::render() const {
  std::vector<std::size_t> width(header.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    if (row.size() > width.size()) width.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  widen(header);
  for (const auto& r : rows) widen(r);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      const std::string pad(width[i] - cell.size(), ' ');
      const bool right = i < right_align.size() && right_align[i];
      if (i) out += "  ";
      out += right ? pad + cell : cell + (i + 1 < width.size() ? pad : "");
    }
    return out + "\n";
  };
  std::string out = line(header);
  std::size_t total = 0;
  for (std::size_t w : width) total += w;
  out += std::string(total + 2 * (width.empty() ? 0 : width.size() - 1), '-') + "\n";
  for (const auto& r : rows) out += line(r);
  return out;
}

}  // namespace fomcast
