// The report's charts as inline SVG. Sizes are in CSS pixels of a 12 px sans-serif font;
// the page scales each chart to its column (viewBox), so they print at any width. Label
// widths are estimated from character counts: no font metrics are available, so long
// labels are clipped (the full text stays in a <title> tooltip).
#include "charts.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "fomcast/format.hpp"

namespace fomcast::chart {

namespace {

constexpr double kWidth = 880;
constexpr std::size_t kMaxLabelChars = 32;

std::string n(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Characters, not bytes: a UTF-8 continuation byte starts no character.
std::size_t chars(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string text(double x, double y, std::string_view content, std::string_view attrs = {}) {
  std::string out = "<text x=\"" + n(x) + "\" y=\"" + n(y) + "\"";
  if (!attrs.empty()) out += " " + std::string(attrs);
  return out + ">" + html_escape(content) + "</text>";
}

// A label that may have been clipped keeps its full text as a tooltip.
std::string label_text(double x, double y, std::string_view full, std::string_view attrs) {
  const std::string shown = clip(full, kMaxLabelChars);
  if (shown == full) return text(x, y, full, attrs);
  return "<g><title>" + html_escape(full) + "</title>" + text(x, y, shown, attrs) + "</g>";
}

std::string open_svg(double w, double h, std::string_view title) {
  return "<svg class=\"chart\" viewBox=\"0 0 " + n(w) + " " + n(h) + "\" width=\"" + n(w) + "\" height=\"" + n(h) +
         "\" role=\"img\" aria-label=\"" + html_escape(title) + "\"><title>" + html_escape(title) + "</title>";
}

// Width of a 12 px sans-serif label, erring wide: lower case by DejaVu Sans's advance widths
// (the common fallback; units of 1/2048 em, x 12 px, + 5%), since one width for all of them
// (6.9 px) had clipped labels of many m's ("gpt2-medium dp8 amp" lost its first letter);
// capitals (up to 0.86 em; M and W wider) are wider than digits.
double text_width(std::string_view s) {
  static constexpr int kLowerUnits[26] = {1255, 1300, 1126, 1300, 1260, 721,  1300, 1298, 569,  569,  1186, 569,  1995,
                                          1298, 1253, 1300, 1300, 842,  1067, 803,  1298, 1212, 1675, 1212, 1212, 1075};
  double w = 0;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u & 0xC0) == 0x80) continue;
    w += u >= 0x80              ? 9.5
         : u == 'M' || u == 'W' ? 12.5
         : std::isupper(u)      ? 9.0
         : std::isdigit(u)      ? 7.7
         : std::islower(u)      ? kLowerUnits[u - 'a'] * 12.0 / 2048 * 1.05
                                : 5.0;
  }
  return w;
}

template <class Row>
double label_area(const std::vector<Row>& rows) {
  double widest = 0;
  for (const auto& r : rows) widest = std::max(widest, text_width(clip(r.label, kMaxLabelChars)));
  return std::clamp(widest + 16, 48.0, 280.0);
}

// Room right of the plot for the labels written after each bar.
template <class Row, class Label>
double value_area(const std::vector<Row>& rows, Label label) {
  double widest = 0;
  for (const auto& r : rows) widest = std::max(widest, text_width(label(r)));
  return std::clamp(widest * 0.92 + 18, 40.0, 220.0);  // values are 11 px
}

// 1, 2, 5 x 10^k written short: 0.01, 200, 1e6.
std::string decade_label(double mantissa, int exponent) {
  char buf[32];
  if (exponent >= -3 && exponent <= 4)
    std::snprintf(buf, sizeof buf, "%g", mantissa * std::pow(10.0, exponent));
  else
    std::snprintf(buf, sizeof buf, "%ge%d", mantissa, exponent);
  return buf;
}

std::string legend(const std::vector<Series>& series, const std::vector<bool>& shown, double x0, double y0,
                   double right, double* height) {
  std::string out;
  double x = x0, y = y0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (!shown[i]) continue;
    const double w = 18 + text_width(series[i].name) + 16;
    if (x + w > right && x > x0) x = x0, y += 18;
    out += "<rect x=\"" + n(x) + "\" y=\"" + n(y - 10) + "\" width=\"12\" height=\"12\" fill=\"" + series[i].color +
           "\"/>" + text(x + 17, y, series[i].name, "class=\"legend\"");
    x += w;
  }
  *height = y - y0 + 18;
  return out;
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
          out += "\uFFFD";
        else
          out += c;
    }
  }
  return out;
}

std::string clip(std::string_view s, std::size_t max_chars) {
  if (chars(s) <= max_chars) return std::string(s);
  std::size_t seen = 0;  // keep max_chars - 1 characters and an ellipsis
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((s[i] & 0xC0) != 0x80 && seen++ == max_chars - 1) return std::string(s.substr(0, i)) + "\u2026";
  return std::string(s);
}

std::vector<Tick> log_ticks(double lo, double hi) {
  std::vector<Tick> ticks;
  if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  if (hi < lo) std::swap(lo, hi);
  const int first = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int last = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (last <= first) last = first + 1;
  if (last - first >= 3) {
    for (int d = first; d <= last; ++d) ticks.push_back({std::pow(10.0, d), decade_label(1, d)});
    return ticks;
  }
  // Short spans end at the 1-2-5 stops around the data instead of whole decades.
  std::vector<Tick> stops;
  for (int d = first - 1; d <= last; ++d)
    for (double m : {1.0, 2.0, 5.0}) stops.push_back({m * std::pow(10.0, d), decade_label(m, d)});
  std::size_t from = 0, to = stops.size() - 1;
  for (std::size_t i = 0; i < stops.size(); ++i)
    if (stops[i].value <= lo * (1 + 1e-9)) from = i;
  for (std::size_t i = stops.size(); i-- > 0;)
    if (stops[i].value >= hi * (1 - 1e-9)) to = i;
  if (to <= from) to = from + 1;  // one value: an axis still needs two ends
  return std::vector<Tick>(stops.begin() + static_cast<std::ptrdiff_t>(from),
                           stops.begin() + static_cast<std::ptrdiff_t>(to) + 1);
}

std::vector<Tick> linear_ticks(double lo, double hi, const std::function<std::string(double)>& label) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
  if (hi < lo) std::swap(lo, hi);
  double span = hi - lo;
  if (!(span > 0)) span = lo != 0 ? std::fabs(lo) : 1;
  const double raw = span / 5;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * magnitude;
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  const double start = std::floor(lo / step + 1e-9) * step;
  double end = std::ceil(hi / step - 1e-9) * step;
  if (end <= start) end = start + step;
  std::vector<Tick> ticks;
  for (int i = 0; start + i * step <= end + step * 1e-6; ++i) {
    double v = start + i * step;
    if (std::fabs(v) < step * 1e-9) v = 0;
    ticks.push_back({v, label(v)});
  }
  return ticks;
}

std::string log_bars(const std::vector<Bar>& bars, const std::vector<Marker>& markers, std::string_view title,
                     std::string_view axis_label) {
  double lo = INFINITY, hi = 0;
  auto take = [&](double v) {
    if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  };
  take(1.0);  // parity, where every bar starts
  for (const auto& b : bars) take(b.value), take(b.low), take(b.high);
  for (const auto& m : markers) take(m.value);
  if (!(hi > lo)) lo = std::min(lo, 1.0), hi = std::max(hi, 10.0);
  const auto ticks = log_ticks(lo, hi);
  const double l0 = std::log10(ticks.front().value), l1 = std::log10(ticks.back().value);

  const double x0 = label_area(bars), x1 = kWidth - value_area(bars, [](const Bar&b) { return b.value_label; });
  const double top = 30, row = 26, bar = 16;
  const double plot_bottom = top + row * static_cast<double>(bars.size());
  const double height = plot_bottom + 46;
  auto x = [&](double v) { return x0 + (std::log10(std::max(v, ticks.front().value)) - l0) / (l1 - l0) * (x1 - x0); };

  std::string out = open_svg(kWidth, height, title);
  for (const auto& t : ticks) {
    const bool decade = std::fabs(std::log10(t.value) - std::round(std::log10(t.value))) < 1e-9;
    out += "<line x1=\"" + n(x(t.value)) + "\" y1=\"" + n(top - 4) + "\" x2=\"" + n(x(t.value)) + "\" y2=\"" +
           n(plot_bottom) + "\" class=\"" + (decade ? "grid" : "grid minor") + "\"/>";
    out += text(x(t.value), plot_bottom + 15, t.label, "class=\"tick\" text-anchor=\"middle\"");
  }
  out += "<line x1=\"" + n(x0) + "\" y1=\"" + n(plot_bottom) + "\" x2=\"" + n(x1) + "\" y2=\"" + n(plot_bottom) +
         "\" class=\"axis\"/>";
  out += text((x0 + x1) / 2, plot_bottom + 36, axis_label, "class=\"axis-label\" text-anchor=\"middle\"");
  const double parity = x(1.0);
  out += "<line x1=\"" + n(parity) + "\" y1=\"" + n(top - 4) + "\" x2=\"" + n(parity) + "\" y2=\"" + n(plot_bottom) +
         "\" class=\"parity\"><title>1: as fast as the baseline</title></line>";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double cy = top + row * (static_cast<double>(i) + 0.5);
    out += label_text(x0 - 8, cy + 4, b.label, "class=\"label\" text-anchor=\"end\"");
    double right = parity;
    if (b.value > 0 && std::isfinite(b.value)) {
      const double end = x(b.value), left = std::min(parity, end);
      right = std::max(parity, end);
      out += "<rect x=\"" + n(left) + "\" y=\"" + n(cy - bar / 2) + "\" width=\"" + n(std::max(1.0, right - left)) +
             "\" height=\"" + n(bar) + "\" class=\"" + (b.value < 1 ? "bar slower" : "bar") + "\"><title>" +
             html_escape(b.label + ": " + b.value_label + (b.value < 1 ? " (slower than the baseline)" : "")) +
             "</title></rect>";
    }
    if (b.low > 0 && b.high > b.low) {
      const double a = x(b.low), c = x(b.high);
      out += "<path d=\"M" + n(a) + " " + n(cy) + "H" + n(c) + "M" + n(a) + " " + n(cy - 5) + "V" + n(cy + 5) + "M" +
             n(c) + " " + n(cy - 5) + "V" + n(cy + 5) + "\" class=\"whisker\"/>";
      right = std::max(right, c);
    }
    out += text(right + 6, cy + 4, b.value_label, "class=\"value\"");
  }
  for (const auto& m : markers) {
    if (!(m.value > 0)) continue;
    const double mx = x(m.value);
    out += "<line x1=\"" + n(mx) + "\" y1=\"" + n(top - 10) + "\" x2=\"" + n(mx) + "\" y2=\"" + n(plot_bottom) +
           "\" class=\"marker\"/>";
    out += text(mx, top - 14, m.label, "class=\"marker-label\" text-anchor=\"middle\"");
  }
  return out + "</svg>";
}

std::string stacked_bars(const std::vector<Series>& series, const std::vector<StackedRow>& rows, std::string_view title,
                         std::string_view axis_label, const std::function<std::string(double)>& tick_label) {
  double hi = 0;
  std::vector<bool> used(series.size(), false);
  for (const auto& r : rows) {
    double total = 0;
    for (std::size_t i = 0; i < r.values.size() && i < series.size(); ++i)
      if (r.values[i] > 0 && std::isfinite(r.values[i])) total += r.values[i], used[i] = true;
    hi = std::max(hi, total);
  }
  const auto ticks = linear_ticks(0, hi > 0 ? hi : 1, tick_label);
  const double axis_max = ticks.back().value;
  const double x0 = label_area(rows);
  const double x1 = kWidth - value_area(rows, [](const StackedRow& r) { return r.total_label; });
  const double top = 12, row = 32, bar = 20;
  const double plot_bottom = top + row * static_cast<double>(rows.size());
  auto x = [&](double v) { return x0 + v / axis_max * (x1 - x0); };

  std::string body;
  for (const auto& t : ticks) {
    body += "<line x1=\"" + n(x(t.value)) + "\" y1=\"" + n(top - 4) + "\" x2=\"" + n(x(t.value)) + "\" y2=\"" +
            n(plot_bottom) + "\" class=\"grid\"/>";
    body += text(x(t.value), plot_bottom + 15, t.label, "class=\"tick\" text-anchor=\"middle\"");
  }
  body += "<line x1=\"" + n(x0) + "\" y1=\"" + n(plot_bottom) + "\" x2=\"" + n(x1) + "\" y2=\"" + n(plot_bottom) +
          "\" class=\"axis\"/>";
  body += text((x0 + x1) / 2, plot_bottom + 34, axis_label, "class=\"axis-label\" text-anchor=\"middle\"");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double cy = top + row * (static_cast<double>(r) + 0.5);
    body += label_text(x0 - 8, cy + 4, rows[r].label, "class=\"label\" text-anchor=\"end\"");
    double at = 0;
    for (std::size_t i = 0; i < rows[r].values.size() && i < series.size(); ++i) {
      const double v = rows[r].values[i];
      if (!(v > 0) || !std::isfinite(v)) continue;
      body += "<rect x=\"" + n(x(at)) + "\" y=\"" + n(cy - bar / 2) + "\" width=\"" +
              n(std::max(0.5, x(at + v) - x(at))) + "\" height=\"" + n(bar) + "\" fill=\"" + series[i].color +
              "\"><title>" + html_escape(rows[r].label + ", " + series[i].name + ": " + tick_label(v)) +
              "</title></rect>";
      at += v;
    }
    body += text(x(at) + 6, cy + 4, rows[r].total_label, "class=\"value\"");
  }
  double legend_height = 0;
  const std::string key = legend(series, used, x0, plot_bottom + 56, kWidth - 10, &legend_height);
  return open_svg(kWidth, plot_bottom + 50 + legend_height, title) + body + key + "</svg>";
}

std::string line_chart(const std::vector<Point>& points, std::string_view title, std::string_view axis_label,
                       const std::function<std::string(double)>& tick_label, double min_span) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& p : points)
    if (std::isfinite(p.value)) lo = std::min(lo, p.value), hi = std::max(hi, p.value);
  if (!(hi >= lo)) lo = 0, hi = 1;
  // Values that differ by less than the chart's span of interest are drawn as the flat line
  // they are, not stretched over the whole height.
  if (hi - lo < min_span) lo = hi - min_span;
  const double pad = hi > lo ? (hi - lo) * 0.15 : std::max(std::fabs(hi) * 0.05, 1e-9);
  auto ticks = linear_ticks(std::max(0.0, lo - pad), hi + pad, tick_label);
  // Ticks closer than the label's precision would print the same number twice: label them
  // with as many decimals as their step needs.
  bool repeated = false;
  for (std::size_t i = 1; i < ticks.size(); ++i) repeated = repeated || ticks[i].label == ticks[i - 1].label;
  if (repeated && ticks.size() >= 2) {
    const double step = ticks[1].value - ticks[0].value;
    const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
    for (auto& t : ticks) t.label = format_number(t.value, decimals);
  }
  const double y_lo = ticks.front().value, y_hi = ticks.back().value;
  const double x0 = 70, x1 = kWidth - 20, top = 14, bottom = 194, height = 246;
  auto y = [&](double v) { return bottom - (v - y_lo) / (y_hi - y_lo) * (bottom - top); };
  const double slot = (x1 - x0) / static_cast<double>(std::max<std::size_t>(points.size(), 1));
  auto x = [&](std::size_t i) { return x0 + slot * (static_cast<double>(i) + 0.5); };

  std::string out = open_svg(kWidth, height, title);
  for (const auto& t : ticks) {
    out += "<line x1=\"" + n(x0) + "\" y1=\"" + n(y(t.value)) + "\" x2=\"" + n(x1) + "\" y2=\"" + n(y(t.value)) +
           "\" class=\"grid\"/>";
    out += text(x0 - 6, y(t.value) + 4, t.label, "class=\"tick\" text-anchor=\"end\"");
  }
  out += "<line x1=\"" + n(x0) + "\" y1=\"" + n(bottom) + "\" x2=\"" + n(x1) + "\" y2=\"" + n(bottom) +
         "\" class=\"axis\"/>";
  out += text(14, (top + bottom) / 2, axis_label,
              "class=\"axis-label\" text-anchor=\"middle\" transform=\"rotate(-90 14 " + n((top + bottom) / 2) + ")\"");
  std::string path;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (std::isfinite(points[i].value)) path += (path.empty() ? "M" : "L") + n(x(i)) + " " + n(y(points[i].value));
  if (!path.empty()) out += "<path d=\"" + path + "\" class=\"line\"/>";
  const std::size_t every = (points.size() + 11) / 12;  // at most about 12 labels under the axis
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!std::isfinite(points[i].value)) continue;
    out += "<circle cx=\"" + n(x(i)) + "\" cy=\"" + n(y(points[i].value)) + "\" r=\"3.5\" class=\"point\"><title>" +
           html_escape(points[i].tooltip) + "</title></circle>";
    if (i % std::max<std::size_t>(every, 1) == 0 || i + 1 == points.size())
      out += text(x(i), bottom + 16, clip(points[i].label, 14), "class=\"tick\" text-anchor=\"middle\"");
  }
  return out + "</svg>";
}

}  // namespace fomcast::chart
