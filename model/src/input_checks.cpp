// The checks of what a person types (fomcast/input_checks.hpp): numbers against their
// ranges, workload names against the naming rule.
#include "fomcast/input_checks.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "fomcast/error.hpp"
#include "fomcast/format.hpp"

namespace fomcast {
namespace {

// A value as a message quotes it: whole numbers written out ("1,000,000", "-1"), others
// with six significant digits ("2.5", "1e-308"), never hundreds of digits.
std::string quote(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return format_number(v, 0);
  return format_significant(v, 6);
}

// Typed text quoted as it was typed, cut short when long.
std::string quote_text(std::string_view text) {
  constexpr std::size_t kMax = 24;
  return text.size() <= kMax ? std::string(text) : std::string(text.substr(0, kMax)) + "...";
}

std::string problem(double v, const NumberRange& r, const std::string& got) {
  if (!std::isfinite(v)) return "must be a finite number (got " + got + ")";
  if (r.positive && v <= 0) return "must be > 0 (got " + got + ")";
  if (v < r.min) return "must be >= " + quote(r.min) + " (got " + got + ")";
  if (v > r.max) return "must be <= " + quote(r.max) + " (got " + got + ")";
  if (r.integer && v != std::trunc(v)) return "must be a whole number (got " + got + ")";
  return "";
}

// Decodes one UTF-8 sequence at `i`; returns its code point and advances `i`, or -1 when
// the bytes are not valid UTF-8 (overlong forms and surrogates included).
long next_code_point(std::string_view s, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  int extra = 0;
  long cp = 0;
  if (b < 0x80) {
    ++i;
    return b;
  }
  if ((b & 0xE0) == 0xC0) {
    extra = 1, cp = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0) {
    extra = 2, cp = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0) {
    extra = 3, cp = b & 0x07;
  } else {
    return -1;
  }
  if (i + static_cast<std::size_t>(extra) >= s.size()) return -1;
  for (int k = 1; k <= extra; ++k) {
    const unsigned char c = byte(i + static_cast<std::size_t>(k));
    if ((c & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (c & 0x3F);
  }
  static constexpr long kSmallest[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kSmallest[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  i += static_cast<std::size_t>(extra) + 1;
  return cp;
}

}  // namespace

std::string range_problem(double value, const NumberRange& range) { return problem(value, range, quote(value)); }

std::string text_range_problem(std::string_view text, const NumberRange& range, std::string* normalised) {
  const std::string s(text);
  if (s.empty()) return "must be a number (got nothing)";
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || std::isspace(static_cast<unsigned char>(s.front())))
    return "must be a number (got '" + quote_text(text) + "')";
  // strtod reads C's hexadecimal forms too: "0x10" would run on 16 nodes, "0x1p4" likewise.
  if (s.find_first_of("xX") != std::string::npos) return "must be a decimal number (got '" + quote_text(text) + "')";
  if (errno == ERANGE) {
    // Past what a double holds (1e400, 1e-400): judged by its sign and size, and quoted as
    // typed rather than as inf or 0.
    const bool negative = s.find('-') < s.find_first_of("0123456789");
    const double tiny = v != 0 ? v : (negative ? -1 : 1) * std::numeric_limits<double>::denorm_min();
    const double stand_in = std::fabs(v) > 1 ? (v > 0 ? range.max * 2 + 1 : -range.max * 2 - 1) : tiny;
    std::string p = problem(stand_in, range, quote_text(text));
    return p.empty() ? "must be a number a double can hold (got " + quote_text(text) + ")" : p;
  }
  if (std::string p = problem(v, range, quote(v)); !p.empty()) return p;
  if (normalised) *normalised = range.integer ? std::to_string(static_cast<long long>(v)) : s;
  return "";
}

double check_range(double value, std::string_view name, const NumberRange& range) {
  if (std::string p = range_problem(value, range); !p.empty()) throw UsageError(std::string(name) + ": " + p);
  return value;
}

namespace {

// Valid UTF-8 without control characters: what a stored name or label must be for every
// table and JSON output that prints it.
std::string printable_problem(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t at = i;
    const long cp = next_code_point(text, i);
    if (cp < 0) return "must be valid UTF-8 (byte " + std::to_string(at) + " is not)";
    if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
      return "must be printable (character " + std::to_string(at) + " is a control character)";
  }
  return "";
}

}  // namespace

std::string workload_name_problem(std::string_view name) {
  if (name.empty()) return "must not be empty";
  if (name.size() > kMaxWorkloadNameBytes)
    return "must be at most " + std::to_string(kMaxWorkloadNameBytes) + " bytes (got " + std::to_string(name.size()) +
           ")";
  if (name.front() == '-') return "must not start with '-' (it would read as a flag)";
  if (name.front() == ' ' || name.back() == ' ') return "must not start or end with a space";
  return printable_problem(name);
}

std::string note_text_problem(std::string_view text) {
  if (text.size() > kMaxNoteBytes)
    return "must be at most " + std::to_string(kMaxNoteBytes) + " bytes (got " + std::to_string(text.size()) + ")";
  return printable_problem(text);
}

}  // namespace fomcast
