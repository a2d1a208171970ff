// Pieces the text-format readers share: lines with their numbers, strict number parsing
// (no NaN, no infinity, no trailing junk), durations and byte sizes with units, and one
// way to report a bad line. Profiler text is written by printf; these undo its formats.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fomcast::ingest::text {

struct Line {
  std::string_view text;  // without the line break (and without a trailing '\r')
  int64_t number = 0;     // 1-based
};

// All lines of a text; throws InputError (file, line) when it holds a NUL byte, which
// no profiler text does: the file is binary and was given to a text reader.
std::vector<Line> split_lines(std::string_view all, const std::string& file);
// For detection: the complete lines within the first `max_bytes` of a head; none when the
// head holds a NUL byte (binary). Never throws.
std::vector<Line> head_lines(std::string_view head, std::size_t max_bytes = 8192);

std::string_view trim(std::string_view);
// Whitespace-separated fields.
std::vector<std::string_view> fields(std::string_view);
// The first n whitespace-separated fields, and the trimmed rest of the line after them (a
// name with spaces, in pprof and pstats rows); false when there are fewer than n fields.
bool take_fields(std::string_view s, std::size_t n, std::vector<std::string_view>& out, std::string_view& rest);
// Splits at `sep` where no bracket ( [ { is open, so "1.2ms (3%, 4%), 5B" splits in two.
std::vector<std::string_view> split_top_level(std::string_view, char sep);

// A finite number in decimal or E-notation ("1.5", "3.451E+05", "+2"); nullopt for
// anything else, including "nan", "inf" and values that overflow a double.
std::optional<double> parse_number(std::string_view);
// The value as an integer when it is one and fits int64 (converting a double outside
// that range is undefined behaviour, so every integer field goes through here).
std::optional<int64_t> to_integer(double);

// As parse_number, but also "1,081" (printf-grouped digits) and never negative.
std::optional<double> parse_count(std::string_view);

// "241us", "708.14ms", "1.37sec", "2s", "15ns", "3min", "1.5 ms" -> seconds; nullopt for a
// negative or absurd (over 30 years) value as for a malformed one.
std::optional<double> parse_duration_s(std::string_view);
// "121.67MB", "0B", "660.00KB", "1.2GB" (decimal units, as TensorFlow prints them) -> bytes;
// nullopt beyond an exabyte.
std::optional<double> parse_bytes(std::string_view);

// Throws InputError for `file` at `line` (1-based; 0 = unknown).
[[noreturn]] void fail(const std::string& file, int64_t line, const std::string& message);
// For what is missing at the end: the last line, or byte 0 of a file with no text at all.
[[noreturn]] void fail_at_end(const std::string& file, const std::vector<Line>& lines, const std::string& message);

// At most `max` characters of a line, for quoting it in an error message.
std::string quote(std::string_view line, std::size_t max = 60);

}  // namespace fomcast::ingest::text
