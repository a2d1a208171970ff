// SVG charts for the HTML report, written as text with no script, font or file outside the
// page: bars on a log axis, stacked bars, a line chart, and the axis ticks they share.
// Pure functions from values to markup. Every string that can come from user data (study,
// workload and op names) goes through html_escape, here and in the report.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fomcast::chart {

// & < > " ' as entities; C0 control characters (not valid in HTML text) as U+FFFD.
std::string html_escape(std::string_view);
// At most max_chars characters (UTF-8 aware), the last an ellipsis when cut.
std::string clip(std::string_view, std::size_t max_chars);

struct Tick {
  double value = 0;
  std::string label;
};
// A log axis over [lo, hi] (both > 0): spanning three decades or more, widened to whole
// decades with a tick at each; shorter, from the 1-2-5 stop at or below lo to the one at
// or above hi, with a tick at every stop.
std::vector<Tick> log_ticks(double lo, double hi);
// A linear axis from lo to a round value >= hi, in 3 to 6 steps of 1, 2 or 5 x 10^k.
std::vector<Tick> linear_ticks(double lo, double hi, const std::function<std::string(double)>& label);

// One horizontal bar per row of ratios on a log axis, each growing from 1 (parity, a solid
// line): right for a gain, left (and in another colour) for a loss, so a 0.67 slowdown does
// not read as a bar pointing right; low/high (when > 0) draw an uncertainty whisker; markers
// are vertical lines across the plot (the FOM).
struct Bar {
  std::string label;
  double value = 0;
  double low = 0, high = 0;
  std::string value_label;
};
struct Marker {
  double value = 0;
  std::string label;
};
std::string log_bars(const std::vector<Bar>&, const std::vector<Marker>&, std::string_view title,
                     std::string_view axis_label);

// Horizontal bars made of one segment per series (values[i] belongs to series[i]), on a
// linear axis from 0, with a legend below.
struct Series {
  std::string name;
  std::string color;
};
struct StackedRow {
  std::string label;
  std::vector<double> values;
  std::string total_label;
};
std::string stacked_bars(const std::vector<Series>&, const std::vector<StackedRow>&, std::string_view title,
                         std::string_view axis_label, const std::function<std::string(double)>& tick_label);

// Values in order, joined by a line, on a linear axis fitted to them.
struct Point {
  std::string label;
  double value = 0;
  std::string tooltip;
};
// `min_span`: the least height of the value axis (a scaling efficiency of 99.9-100% is drawn
// flat on a 10-point axis, not as a fall).
std::string line_chart(const std::vector<Point>&, std::string_view title, std::string_view axis_label,
                       const std::function<std::string(double)>& tick_label, double min_span = 0);

}  // namespace fomcast::chart
