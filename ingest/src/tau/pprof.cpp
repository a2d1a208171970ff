// pprof: the text TAU's `pprof` prints from profile.* files, one table per thread
// ("NODE 0;CONTEXT 0;THREAD 1:") or summary ("FUNCTION SUMMARY (total):"):
//   %Time    Exclusive    Inclusive       #Call      #Subrs  Inclusive Name
//                 msec   total msec                          usec/call
//   100.0        0.085        1,081           1           1    1081808 .TAU application
// Times print as msec ("0.085", "6,000" for 6 s, "1:10.733" for min:sec, "1:02:03.456");
// with counters (header "Count/Call") as plain numbers, which TAU's time metric counts in
// microseconds. Names are the rest of the line and may hold spaces.
#include <cctype>
#include <cmath>

#include "common/readers.hpp"
#include "decode/text_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/text.hpp"
#include "tau/tau_common.hpp"

namespace fomcast::ingest {
namespace {

enum class Section { none, thread, summary_total, summary_mean, user_events };

struct Table {
  Section kind = Section::none;
  tau::ThreadProfile profile;
};

bool is_rule(std::string_view t) { return t.size() >= 10 && t.find_first_not_of('-') == std::string_view::npos; }

// pprof's ToTimeStr, undone: milliseconds.
std::optional<double> parse_msec(std::string_view v) {
  if (v.find(':') == std::string_view::npos) return text::parse_count(v);
  const auto parts = text::split_top_level(v, ':');
  if (parts.size() > 3) return std::nullopt;
  double seconds = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const auto x = text::parse_number(parts[k]);
    if (!x || *x < 0) return std::nullopt;
    if (k + 1 < parts.size()) {
      // Hours and minutes are whole numbers.
      if (!text::to_integer(*x)) return std::nullopt;
      seconds = (seconds + *x) * 60;
    } else {
      seconds += *x;
    }
  }
  return seconds * 1000;
}

std::optional<int64_t> after(std::string_view t, std::string_view key) {
  const std::size_t p = t.find(key);
  if (p == std::string_view::npos) return std::nullopt;
  std::size_t i = p + key.size();
  int64_t n = 0;
  const std::size_t start = i;
  for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && n < 1000000000; ++i)
    n = n * 10 + (t[i] - '0');
  if (i == start) return std::nullopt;
  return n;
}

int detect_pprof(std::string_view head, std::string_view) {
  int score = 0;
  for (const auto& line : text::head_lines(head)) {
    const auto t = text::trim(line.text);
    if (t.starts_with("%Time") && contains(t, "Exclusive") && contains(t, "Inclusive")) return 95;
    if (t.starts_with("NODE ") && contains(t, ";CONTEXT ") && contains(t, ";THREAD ")) score = 80;
    if (t.starts_with("FUNCTION SUMMARY (")) score = 80;
  }
  return score;
}

Workload read_pprof(const InputFile& file, const IngestOptions&) {
  const std::string& path = file.path();
  std::vector<Table> tables;
  tau::MessageSizes sizes;
  bool counters = false, stddev = false, in_rows = false;
  int64_t rows = 0;
  std::vector<std::string_view> f;
  std::string_view name;
  const auto lines = text::split_lines(file.bytes(), path);
  for (const auto& line : lines) {
    const auto t = text::trim(line.text);
    if (t.empty() || t.starts_with("Reading Profile files")) continue;
    if (is_rule(t)) continue;
    // Section headings.
    if (t.starts_with("NODE ") && contains(t, ";THREAD ")) {
      const auto node = after(t, "NODE ");
      if (!node) text::fail(path, line.number, "malformed section heading " + text::quote(t));
      tables.push_back({Section::thread, {*node, {}}});
      in_rows = false;
      continue;
    }
    if (t.starts_with("FUNCTION SUMMARY (")) {
      tables.push_back({contains(t, "(mean)") ? Section::summary_mean : Section::summary_total, {}});
      in_rows = false;
      continue;
    }
    if (t.starts_with("USER EVENTS Profile")) {
      tables.push_back({Section::user_events, {}});
      in_rows = false;
      continue;
    }
    if (t.starts_with("profile.") && t.find(' ') == std::string_view::npos) {  // pprof -f FILE
      tables.push_back({Section::thread, {after(t, "profile.").value_or(0), {}}});
      in_rows = false;
      continue;
    }
    if (tables.empty()) {
      // A bare table (a pasted excerpt): one thread of node 0.
      if (!t.starts_with("%Time"))
        text::fail(path, line.number,
                   "expected a pprof section ('NODE 0;CONTEXT 0;THREAD 0:') or the "
                   "'%Time Exclusive Inclusive ...' header, got " +
                       text::quote(t));
      tables.push_back({Section::thread, {}});
    }
    Table& table = tables.back();
    if (t.starts_with("%Time")) {
      if (!contains(t, "Exclusive") || !contains(t, "Inclusive") || !contains(t, "#Call"))
        text::fail(path, line.number, "unexpected column header " + text::quote(t));
      counters = contains(t, "Count/Call");
      stddev = contains(t, "Standard");
      in_rows = true;
      continue;
    }
    if (table.kind == Section::user_events) {
      if (t.starts_with("NumSamples")) {
        in_rows = true;
        continue;
      }
      if (!in_rows || !text::take_fields(t, 5, f, name) || name.empty())
        text::fail(path, line.number,
                   "expected a user event row ('NumSamples MaxValue MinValue MeanValue "
                   "Std. Dev. Event Name'), got " +
                       text::quote(t));
      const auto mean = text::parse_number(f[3]);
      if (!mean) text::fail(path, line.number, "bad mean value " + text::quote(f[3]));
      tau::add_message_size(sizes, name, *mean);
      continue;
    }
    if (t.starts_with("msec") || t.starts_with("counts")) {  // the units line
      if (t.starts_with("counts")) counters = true;
      continue;
    }
    const std::size_t n = stddev ? 7 : 6;
    if (!in_rows || !text::take_fields(t, n, f, name) || name.empty())
      text::fail(path, line.number,
                 "expected a pprof row ('%Time Exclusive Inclusive #Call #Subrs Inclusive/call "
                 "Name'), got " +
                     text::quote(t));
    const auto pct = text::parse_number(f[0]);
    if (!pct || *pct < 0 || *pct > 100.5) text::fail(path, line.number, "bad %Time " + text::quote(f[0]));
    const auto excl = counters ? text::parse_count(f[1]) : parse_msec(f[1]);
    const auto incl = counters ? text::parse_count(f[2]) : parse_msec(f[2]);
    const auto calls = text::parse_count(f[3]);
    const auto subrs = text::parse_count(f[4]);
    if (!excl || !incl) text::fail(path, line.number, "bad time in " + text::quote(t) + " (negative or not a number?)");
    if (!calls || !subrs || *calls > 1e15) text::fail(path, line.number, "bad call count in " + text::quote(t));
    // Calls are counted: whole in a thread's table and a total; the mean table averages
    // over threads (0.75 calls of a function three of four threads entered).
    const bool mean_table = !tables.empty() && tables.back().kind == Section::summary_mean;
    if (!mean_table && (*calls != std::floor(*calls) || *subrs != std::floor(*subrs)))
      text::fail(path, line.number, "a call count that is not a whole number in " + text::quote(t));
    // Time in a timer never entered is no measurement of anything; left out, it vanished.
    if (*calls == 0 && (*excl > 0 || *incl > 0))
      text::fail(path, line.number, "a timer with 0 calls and a time in " + text::quote(t));
    const double scale = counters ? 1e-6 : 1e-3;
    if (*excl * scale > 1e9 || *incl * scale > 1e9)
      text::fail(path, line.number, "implausibly long time in " + text::quote(t));
    // As the TAU reader: a timer's own time is part of its inclusive time (the columns are
    // rounded to the printed digits, hence the slack).
    if (*excl > *incl * (1 + 1e-3) + 0.0015)
      text::fail(path, line.number, "exclusive time exceeds inclusive time in " + text::quote(t));
    tau::Timer timer;
    timer.name = tau::clean_name(name);
    timer.calls = *calls;
    timer.exclusive_s = *excl * scale;
    timer.inclusive_s = *incl * scale;
    table.profile.timers.push_back(std::move(timer));
    ++rows;
    // pprof ends every line with a newline: a last row without one was cut, its name with it
    // (head -c stored update_image_3x3_4x4 as "update_image_3").
    if (line.number == lines.back().number && !file.bytes().ends_with('\n'))
      text::fail(path, line.number,
                 "the file ends inside a row, its name cut short at " + text::quote(name) + " (a truncated file?)");
  }

  // Per-thread tables when there are any; else a summary (total over threads, or mean).
  std::vector<tau::ThreadProfile> chosen;
  std::string source;
  for (Section want : {Section::thread, Section::summary_total, Section::summary_mean}) {
    for (const auto& tb : tables)
      if (tb.kind == want && !tb.profile.timers.empty()) chosen.push_back(tb.profile);
    if (!chosen.empty()) {
      source = want == Section::thread          ? std::to_string(chosen.size()) + " thread table(s)"
               : want == Section::summary_total ? "the FUNCTION SUMMARY (total) table"
                                                : "the FUNCTION SUMMARY (mean) table (mean over threads)";
      break;
    }
  }
  if (chosen.empty())
    text::fail_at_end(path, lines, "no pprof rows found (expected '%Time Exclusive Inclusive #Call ...' tables)");

  Workload w;
  w.origin = "pprof";
  w.events = rows;
  tau::build_workload(chosen, sizes, w);
  w.notes.insert(w.notes.begin(), "pprof text, read from " + source + "; " +
                                      (counters ? "values printed as counts, taken as microseconds (TAU's TIME metric)"
                                                : "times in msec as pprof prints them"));
  return w;
}

}  // namespace

const FormatReader kPprofFormat{"pprof", detect_pprof, read_pprof};

}  // namespace fomcast::ingest
