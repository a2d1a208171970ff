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

// The length of a UTF-8 byte-order mark at the start of `text` (3), else 0. Windows editors
// write one and RFC 8259 (8.1) lets a parser skip it; every reader skips it here, counting its
// bytes in the offsets it reports (a text profile's first line, a JSON byte offset).
inline std::size_t utf8_bom_length(std::string_view text) { return text.starts_with("\xEF\xBB\xBF") ? 3 : 0; }

// `text` safe to print on a terminal: control characters (C0, DEL, C1) and the Unicode
// bidirectional overrides and isolates, which a profile's op name or a path may hold, shown
// as escapes ("\x1b", "\u202e") rather than acted on (an op named "aten::mm\x1b[2J" cleared
// the screen). Everything else, other UTF-8 included, is kept.
std::string visible(std::string_view text);

// ASCII lower case; bytes outside A-Z are kept as they are.
std::string lowercase(std::string_view);

// Single-character edits (insert, delete, replace) from one string to the other.
std::size_t edit_distance(std::string_view, std::string_view);
// The candidate a misspelt key most likely meant ("precison" -> "precision"), or "" when
// none is near: at most max(2, a third of the longer) single-character edits away.
std::string nearest_key(std::string_view key, const std::vector<std::string>& candidates);

// The message for a field no reader knows: "unknown field (did you mean \"nodes\"?)" where a
// known one is near, else "unknown field (<where_listed>)".
std::string unknown_field_message(std::string_view key, const std::vector<std::string>& known,
                                  std::string_view where_listed);

}  // namespace fomcast
