// Strict parsing of the numbers profilers print. std::from_chars rather than strtod: it
// ignores the locale, never reads past the view, and tells overflow apart.
#include "decode/text_scan.hpp"

#include <charconv>
#include <cmath>

#include "fomcast/error.hpp"
#include "fomcast/text.hpp"

namespace fomcast::ingest::text {
namespace {

// Beyond these a value is corrupt input, not a measurement: 30 years, an exabyte.
constexpr double kMaxSeconds = 1e9;
constexpr double kMaxBytes = 1e18;

}  // namespace

std::vector<Line> split_lines(std::string_view all, const std::string& file) {
  std::vector<Line> out;
  int64_t number = 1;
  // A byte-order mark is no part of the first line: TAU's header read as
  // "\xEF\xBB\xBF23 templated_functions" and was refused.
  std::size_t begin = utf8_bom_length(all);
  while (begin < all.size()) {
    std::size_t end = all.find('\n', begin);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('\0') != std::string_view::npos) fail(file, number, "binary data (a NUL byte) in a text profile");
    out.push_back({line, number});
    ++number;
    begin = end + 1;
  }
  return out;
}

std::vector<Line> head_lines(std::string_view head, std::size_t max_bytes) {
  if (head.find('\0') != std::string_view::npos) return {};
  if (head.size() > max_bytes) {
    // Only whole lines: a cut line would look malformed.
    const std::size_t last = head.rfind('\n', max_bytes);
    head = head.substr(0, last == std::string_view::npos ? max_bytes : last);
  }
  return split_lines(head, "");
}

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

bool take_fields(std::string_view s, std::size_t n, std::vector<std::string_view>& out, std::string_view& rest) {
  out.clear();
  std::size_t i = 0;
  while (out.size() < n) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i == start) return false;
    out.push_back(s.substr(start, i - start));
  }
  rest = trim(s.substr(i));
  return true;
}

std::vector<std::string_view> split_top_level(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
    else if (c == sep && depth == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

std::optional<double> parse_number(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  // from_chars accepts "nan" and "inf"; profilers print neither as a measurement.
  const char c = s.front() == '-' && s.size() > 1 ? s[1] : s.front();
  if (!(c >= '0' && c <= '9') && c != '.') return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> to_integer(double v) {
  // 2^63 is exactly representable; anything at or beyond it does not fit.
  if (!std::isfinite(v) || v >= 9223372036854775808.0 || v < -9223372036854775808.0 || std::floor(v) != v)
    return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<double> parse_count(std::string_view s) {
  s = trim(s);
  std::string digits;
  if (contains(s, ",")) {
    // printf-grouped ("1,081"): every group after the first has three digits.
    const auto parts = split_top_level(s, ',');
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i > 0 && parts[i].size() < 3) return std::nullopt;
      digits += parts[i];
    }
    s = digits;
  }
  const auto v = parse_number(s);
  if (!v || *v < 0) return std::nullopt;
  return v;
}

namespace {

// Splits "708.14ms" into 708.14 and "ms" (the unit may follow a space).
std::optional<std::pair<double, std::string_view>> number_and_unit(std::string_view s) {
  s = trim(s);
  std::size_t i = 0;
  while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '+' || s[i] == '-' ||
                          ((s[i] == 'e' || s[i] == 'E') && i > 0 && i + 1 < s.size() &&
                           ((s[i + 1] >= '0' && s[i + 1] <= '9') || s[i + 1] == '+' || s[i + 1] == '-'))))
    ++i;
  const auto v = parse_number(s.substr(0, i));
  if (!v) return std::nullopt;
  return std::make_pair(*v, trim(s.substr(i)));
}

}  // namespace

std::optional<double> parse_duration_s(std::string_view s) {
  const auto nu = number_and_unit(s);
  if (!nu || nu->first < 0) return std::nullopt;
  const auto [v, unit] = *nu;
  double scale = 0;
  if (unit == "ns")
    scale = 1e-9;
  else if (unit == "us" || unit == "\xc2\xb5s")
    scale = 1e-6;  // also "µs"
  else if (unit == "ms")
    scale = 1e-3;
  else if (unit == "s" || unit == "sec" || unit == "secs")
    scale = 1;
  else if (unit == "min")
    scale = 60;
  else
    return std::nullopt;
  if (v * scale > kMaxSeconds) return std::nullopt;
  return v * scale;
}

std::optional<double> parse_bytes(std::string_view s) {
  const auto nu = number_and_unit(s);
  if (!nu || nu->first < 0) return std::nullopt;
  const auto [v, unit] = *nu;
  double scale = 0;
  if (unit == "B")
    scale = 1;
  else if (unit == "KB" || unit == "kB")
    scale = 1e3;
  else if (unit == "MB")
    scale = 1e6;
  else if (unit == "GB")
    scale = 1e9;
  else if (unit == "TB")
    scale = 1e12;
  else
    return std::nullopt;
  if (v * scale > kMaxBytes) return std::nullopt;
  return v * scale;
}

void fail(const std::string& file, int64_t line, const std::string& message) { throw InputError(file, message, line); }

void fail_at_end(const std::string& file, const std::vector<Line>& lines, const std::string& message) {
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!trim(it->text).empty()) throw InputError(file, message, it->number);
  throw InputError(file, "empty file: " + message, 0, 0);
}

std::string quote(std::string_view line, std::size_t max) {
  line = trim(line);
  std::string out = "'";
  for (char c : line.substr(0, max)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (line.size() > max) out += "...";
  return out + "'";
}

}  // namespace fomcast::ingest::text
