// The number formats every report and note uses (fomcast/format.hpp).
#include "fomcast/format.hpp"

#include <cmath>
#include <cstdio>

namespace fomcast {

std::string format_number(double value, int decimals) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(value));
  std::string digits(buf);
  const auto dot = digits.find('.');
  std::string integer = digits.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : digits.substr(dot);
  std::string grouped;
  for (std::size_t i = 0; i < integer.size(); ++i) {
    if (i > 0 && (integer.size() - i) % 3 == 0) grouped += ',';
    grouped += integer[i];
  }
  const bool negative = value < 0 && std::stod(digits) != 0.0;
  return (negative ? "-" : "") + grouped + fraction;
}

std::string format_gib(double bytes) { return format_significant(bytes / (1024.0 * 1024.0 * 1024.0)) + " GiB"; }

std::string format_significant(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, value);
  return buf;
}

std::string format_duration(double s) {
  char buf[64];
  if (!std::isfinite(s)) return "n/a";
  // Three significant figures in a unit that keeps the number under 1,000 (%.3g would
  // print 1800 s as "1.8e+03").
  struct Unit {
    double seconds;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1e-12, "ps"}, {1e-6, "us"}, {1e-3, "ms"}, {1, "s"},
                                    {60, "min"},   {3600, "h"},  {86400, "d"}};
  const double a = std::fabs(s);
  std::size_t u = 1;
  if (a > 0 && a < 1e-9) u = 0;  // a 2-element optimizer update: "8.75 ps", not "8.75e-06 us"
  if (a >= 1e-3) u = 2;
  if (a >= 1) u = 3;
  if (a >= 100) u = 4;          // 100 s and up: minutes
  if (a >= 100 * 60) u = 5;     // 100 min and up: hours
  if (a >= 1000 * 3600) u = 6;  // 1,000 h and up: days
  const double v = s / kUnits[u].seconds;
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1000 ? "%.0f %s" : "%.3g %s", v, kUnits[u].name);
  return buf;
}

std::string format_count(double value) {
  return value == std::floor(value) ? format_number(value, 0) : format_significant(value, 3);
}

std::string format_ratio(double value, int decimals) {
  return value == 0 || std::fabs(value) >= 10 * std::pow(10.0, -decimals) ? format_number(value, decimals)
                                                                          : format_significant(value, 3);
}

std::string format_percent(double fraction, int decimals) { return format_number(100 * fraction, decimals) + "%"; }

std::string format_share(double fraction) { return format_percent(fraction, std::fabs(fraction) < 0.1 ? 1 : 0); }

std::string format_percent_significant(double fraction, int digits) {
  return format_significant(100 * fraction, digits) + "%";
}

std::string format_whole_percent(double fraction) {
  return std::to_string(static_cast<int>(std::lround(100 * fraction))) + "%";
}

}  // namespace fomcast
