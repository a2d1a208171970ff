// The plain text table every human-facing command prints.
#include "fomcast/report/text_table.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "fomcast/text.hpp"

namespace fomcast {
namespace {

// The longest prefix of `text` of at most `bytes` bytes that ends on a character boundary.
std::string head(const std::string& text, std::size_t bytes) {
  std::size_t n = std::min(bytes, text.size());
  while (n > 0 && n < text.size() && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n);
}

// Moves `i` back to the start of the UTF-8 character it falls in.
std::size_t char_start(const std::string& text, std::size_t i) {
  while (i > 0 && i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
  return i;
}

// Columns a terminal gives `text`: one per character, two for the East Asian wide ones and
// emoji, none for combining marks. Padding by bytes shifted every column after a label
// such as "Größe — 速度".
std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    char32_t c = n == 1 ? b : b & (0x7F >> n);
    for (std::size_t k = 1; k < n && i + k < text.size(); ++k)
      c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    i += n;
    if ((c >= 0x300 && c <= 0x36F) || c == 0x200D || (c >= 0xFE00 && c <= 0xFE0F)) continue;
    const bool wide = (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
                      (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
                      (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1FAFF) || (c >= 0x20000 && c <= 0x3FFFD);
    width += wide ? 2 : 1;
  }
  return width;
}

std::size_t common_prefix(const std::string& a, const std::string& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// The last word of `text` with its space (" bwd-filter") when it is short enough to keep
// in `max` bytes; "" otherwise.
std::string last_word(const std::string& text, std::size_t max) {
  const std::size_t space = text.rfind(' ');
  if (space == std::string::npos || space == 0) return "";
  std::string tail = text.substr(space);
  return tail.size() + 8 > max || tail.size() > max / 3 + 1 ? "" : tail;
}

// Where the identifier holding byte `i` starts ("max_pool_forward_nchw" in
// "...)::max_pool_forward_nchw<float>").
std::size_t word_start(const std::string& text, std::size_t i) {
  while (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_' || text[i - 1] == '='))
    --i;
  return i;
}

// `text` in about `max` bytes, showing what tells it from `others` (cells that shorten()
// printed alike, as their first `shown` bytes): a window from the word where the shortened
// form stopped, reaching where it parts from the most alike ("...13x13 K=384 3x3 ...
// bwd-filter"); when one window cannot reach it, two: the end of what was shown and
// where it parts ("...<PdV_kernel(bool,...(instance 2)]>(clover...").
std::string distinguishing(const std::string& text, const std::set<std::string>& others, std::size_t max,
                           bool keep_last_word, std::size_t shown) {
  std::size_t last = 0;  // where it parts from the most alike
  for (const auto& o : others)
    if (o != text) last = std::max(last, common_prefix(text, o));
  const std::string tail = keep_last_word ? last_word(text, max) : "";
  const std::size_t room = max > 12 + tail.size() ? max - 6 - tail.size() : 6;
  // One window [start, start + width), shifted left to stay full, ended on a word when the
  // last word follows.
  auto window = [&](std::size_t start, std::size_t width, bool lead, bool with_tail) {
    start = char_start(text, std::min(start, text.size() > width ? text.size() - width : 0));
    std::size_t end = std::min(text.size(), start + width);
    if (with_tail && end + tail.size() >= text.size()) end = text.size();
    if (end < text.size()) end = char_start(text, end);
    if (with_tail && !tail.empty() && end < text.size())
      if (const std::size_t space = text.rfind(' ', end); space != std::string::npos && space > start) end = space;
    std::string out = (lead && start > 0 ? "..." : "") + text.substr(start, end - start);
    if (end < text.size()) out += with_tail && !tail.empty() ? " ..." + tail : "...";
    return out;
  };
  if (const std::size_t from = word_start(text, std::min(shown, text.size())); last < from + room)
    return window(from, room, true, true);
  // Two windows: the end of what the shortened form showed (where the group parted from
  // other cells), and where this cell parts from the most alike of the group.
  const std::size_t half = (room - 3) / 2;
  std::size_t from = std::min(shown, text.size()) > half ? std::min(shown, text.size()) - half : 0;
  for (std::size_t i = from; i < from + half / 2 && i < text.size(); ++i)  // begin on a word
    if (!std::isalnum(static_cast<unsigned char>(text[i])) && text[i] != '_') {
      from = i + 1;
      break;
    }
  const std::size_t lead = std::min<std::size_t>(12, half / 2);
  const std::size_t near = last > from + half + lead ? last - lead : from + half;
  return window(from, half, true, false) + window(near, room - 3 - half, false, true);
}

// The rows' cells, each column shortened to its max_width: where cells would then read
// alike, each shows where it parts from the others instead, and where even that does not
// tell them apart, each gets a number in its group (" #2"; --json has every name whole):
// printed whole, one Nsight kernel's template arguments made a table 663 columns wide.
std::vector<std::vector<std::string>> shortened(const TextTable& table) {
  // Names from profiles and paths print as text, never as terminal controls.
  TextTable t = table;
  for (auto& r : t.rows)
    for (auto& cell : r) cell = visible(cell);
  std::vector<std::vector<std::string>> out = t.rows;
  for (std::size_t c = 0; c < t.max_width.size(); ++c) {
    if (t.max_width[c] == 0) continue;
    const bool tail = c < t.keep_last_word.size() && t.keep_last_word[c];
    std::map<std::string, std::set<std::string>> originals;  // shortened -> the cells it stands for
    for (const auto& r : t.rows)
      if (c < r.size()) originals[shorten(r[c], t.max_width[c], tail)].insert(r[c]);
    std::map<std::string, std::string> shown;  // cell -> what it prints
    for (const auto& [s, cells] : originals)
      for (const auto& cell : cells)
        shown[cell] = cells.size() == 1 ? s : distinguishing(cell, cells, t.max_width[c], tail, s.find("..."));
    std::map<std::string, std::set<std::string>> readers;  // what prints -> the cells behind it
    for (const auto& [cell, s] : shown) readers[s].insert(cell);
    for (auto& [s, cells] : readers)
      if (cells.size() > 1) {
        std::size_t k = 0;
        for (const auto& cell : cells) shown[cell] = s + " #" + std::to_string(++k);
      }
    for (auto& r : out)
      if (c < r.size()) r[c] = shown.at(r[c]);
  }
  return out;
}

}  // namespace

std::string shorten(const std::string& text, std::size_t max, bool keep_last_word) {
  if (text.size() <= max) return text;
  if (max <= 3) return head(text, max);
  // The last word when it is short ("bwd-filter"): shapes end with their direction.
  const std::string tail = keep_last_word ? last_word(text, max) : "";
  std::string front = head(text, max - (tail.empty() ? 3 : 4) - tail.size());
  // End the head on a word, not inside one ("27x2..." would read as a value).
  if (const std::size_t space = front.rfind(' ');
      space != std::string::npos && space > front.size() / 2 && front.size() < text.size() && text[front.size()] != ' ')
    front = front.substr(0, space);
  while (!front.empty() && front.back() == ' ') front.pop_back();
  return front + (tail.empty() ? "..." : " ..." + tail);
}

std::string counted(const std::vector<std::pair<std::size_t, std::string>>& counts) {
  std::vector<std::string> parts;
  for (const auto& [n, noun] : counts)
    if (n > 0) parts.push_back(std::to_string(n) + " " + noun + (n == 1 ? "" : "s"));
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

std::string TextTable::render() const {
  const std::vector<std::vector<std::string>> cells = shortened(*this);
  std::vector<std::size_t> width(header.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    if (row.size() > width.size()) width.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], display_width(row[i]));
  };
  widen(header);
  for (const auto& r : cells) widen(r);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      const std::string pad(width[i] - display_width(cell), ' ');
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
  for (const auto& r : cells) out += line(r);
  return out;
}

}  // namespace fomcast
