// The plain text table every human-facing report prints: a header row, a rule, and rows
// with left-aligned text and right-aligned numbers. Numbers themselves go through
// fomcast/format.hpp, so units and rounding are the same in text, HTML and notes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fomcast/format.hpp"

namespace fomcast {

struct TextTable {
  std::vector<std::string> header;
  std::vector<bool> right_align;  // per column; missing entries mean left
  std::vector<std::vector<std::string>> rows;
  // Per column, the most bytes a cell prints (missing or 0: no limit). A longer cell is
  // shortened (shorten() below); a cell that would then read like a different cell of its
  // column is printed whole, so shortening never hides what tells two rows apart.
  std::vector<std::size_t> max_width;
  // Per column, whether a shortened cell keeps its last word: where shapes say their
  // direction ("conv2d N=128 C=96 ... bwd-filter"); not for prose.
  std::vector<bool> keep_last_word;
  std::string render() const;
};

// `text` in at most `max` bytes: the head up to a word, "...", and (with `keep_last_word`)
// the last word when it is short ("conv2d N=128 C=96 ... bwd-filter"); never cut inside a
// UTF-8 character.
std::string shorten(const std::string& text, std::size_t max, bool keep_last_word = false);

// Counts as a person says them, zeros left out: {{2, "note"}, {1, "assumption"}} ->
// "2 notes and 1 assumption"; "" when every count is zero.
std::string counted(const std::vector<std::pair<std::size_t, std::string>>& counts);

}  // namespace fomcast
