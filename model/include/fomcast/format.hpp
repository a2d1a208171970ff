// Numbers as people read them. Every printed number goes through these, so units and
// rounding are the same in text, HTML and notes.
#pragma once

#include <string>

namespace fomcast {

// 7475.2 -> "7,475.2" (decimals fixed, thousands separated).
std::string format_number(double value, int decimals);
// 0.000123 -> "0.000123", 1234.5 -> "1.23e+03": `digits` significant digits.
std::string format_significant(double value, int digits = 3);
// A ratio with `decimals` places ("82.597", "0.91"), or three significant figures where
// those places would show it as zero (a FOM of 4.24e-4 printed "0.000").
std::string format_ratio(double value, int decimals);
// A count as given: "18,688" for a whole one, "0.5" for a fraction (a study may count half a
// node, which "x 0 nodes" hid).
std::string format_count(double value);
// Bytes in GiB to 3 significant digits with the unit: "40 GiB".
std::string format_gib(double bytes);
// Seconds in the unit that reads best: "812 us", "4.21 ms", "3.50 s", "2.4 h".
std::string format_duration(double seconds);
// A fraction as a percentage: 0.123 -> "12.3%" with `decimals` places after the point.
std::string format_percent(double fraction, int decimals = 1);
// A share as people quote it: one decimal below 10% ("3.4%"), whole percents above ("12%").
std::string format_share(double fraction);
// A fraction as a percentage with `digits` significant digits: 0.1234 -> "12.3%", 0.005 -> "0.5%".
std::string format_percent_significant(double fraction, int digits = 3);
// A fraction as a whole percentage, halves rounded away from zero: 0.125 -> "13%".
std::string format_whole_percent(double fraction);

}  // namespace fomcast
