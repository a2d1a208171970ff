// The plain text table every human-facing report prints: a header row, a rule, and rows
// with left-aligned text and right-aligned numbers. Numbers themselves go through
// fomcast/format.hpp, so units and rounding are the same in text, HTML and notes.
#pragma once

#include <string>
#include <vector>

#include "fomcast/format.hpp"

namespace fomcast {

struct TextTable {
  std::vector<std::string> header;
  std::vector<bool> right_align;  // per column; missing entries mean left
  std::vector<std::vector<std::string>> rows;
  std::string render() const;
};

}  // namespace fomcast
