// tau: one TAU profile file (profile.N.C.T: node, context, thread), as TAU 2.x writes it:
//   23 templated_functions_MULTI_TIME
//   # Name Calls Subrs Excl Incl ProfileCalls # <metadata>...</metadata>
//   "MPI_Init()  " 1 0 17983 17983 0 GROUP="MPI"
//   ...
//   0 aggregates
//   2 userevents
//   # eventname numevents max min mean sumsqr
//   "Message size for broadcast" 1 4 4 4 16
// Times are microseconds of the TIME metric. Names are quoted and may hold spaces, commas,
// parentheses and even quotes, so a line is read from both ends.
#include <cctype>
#include <cmath>
#include <unordered_map>

#include "common/readers.hpp"
#include "decode/text_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/text.hpp"
#include "tau/tau_common.hpp"

namespace fomcast::ingest {
namespace {

constexpr double kMaxValue = 1e15;        // microseconds (31 years) or calls: beyond is corrupt
constexpr double kMaxEventValue = 1e300;  // user events hold sums of squares of byte counts

// `"name" v1 v2 ...` -> name and the values; the name ends at the last quote before the
// numbers (TAU does not escape quotes inside names).
struct QuotedLine {
  std::string name;
  std::string raw_name;  // as written, source location and all: what TAU keeps unique
  std::vector<double> values;
  std::string group;
};

QuotedLine parse_quoted(std::string_view t, std::size_t expected_min, std::size_t expected_max, double max_value,
                        int64_t line, const std::string& file) {
  QuotedLine q;
  if (t.empty() || t.front() != '"') text::fail(file, line, "expected a quoted name, got " + text::quote(t));
  std::string_view body = t;
  if (const std::size_t g = body.rfind(" GROUP=\""); g != std::string_view::npos) {
    std::string_view group = body.substr(g + 8);
    const std::size_t end = group.find('"');
    if (end == std::string_view::npos) text::fail(file, line, "unclosed GROUP=\"...\"");
    q.group = std::string(group.substr(0, end));
    body = body.substr(0, g);
  }
  const std::size_t close = body.rfind('"');
  if (close == 0) text::fail(file, line, "unclosed quoted name in " + text::quote(t));
  q.raw_name = std::string(body.substr(1, close - 1));
  q.name = tau::clean_name(q.raw_name);
  for (auto f : text::fields(body.substr(close + 1))) {
    const auto v = text::parse_number(f);
    if (!v) text::fail(file, line, "bad number " + text::quote(f) + " for '" + q.name + "'");
    if (*v < 0) text::fail(file, line, "negative value " + text::quote(f) + " for '" + q.name + "'");
    if (*v > max_value) text::fail(file, line, "implausibly large value " + text::quote(f) + " for '" + q.name + "'");
    q.values.push_back(*v);
  }
  if (q.values.size() < expected_min || q.values.size() > expected_max)
    text::fail(file, line,
               "expected " + std::to_string(expected_min) +
                   (expected_max > expected_min ? "-" + std::to_string(expected_max) : "") + " numbers after '" +
                   q.name + "', found " + std::to_string(q.values.size()));
  return q;
}

// "23 templated_functions_MULTI_TIME" -> 23 and the version word.
bool count_line(std::string_view t, std::string_view word, int64_t& count, std::string& rest) {
  const auto f = text::fields(t);
  if (f.size() != 2 || !f[1].starts_with(word)) return false;
  const auto v = text::parse_number(f[0]);
  if (!v || *v < 0 || *v > 1e8 || !text::to_integer(*v)) return false;
  count = *text::to_integer(*v);
  rest = std::string(f[1]);
  return true;
}

// The node number N of profile.N.C.T (0 when the name does not say).
int64_t node_from_path(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t p = base.find("profile.");
  if (p == std::string_view::npos) return 0;
  base = base.substr(p + 8);
  int64_t n = 0;
  std::size_t i = 0;
  for (; i < base.size() && std::isdigit(static_cast<unsigned char>(base[i])) && n < 1000000000; ++i)
    n = n * 10 + (base[i] - '0');
  return i > 0 ? n : 0;
}

int detect_tau(std::string_view head, std::string_view) {
  const auto lines = text::head_lines(head, 1 << 16);
  if (lines.empty()) return 0;
  int64_t n = 0;
  std::string version;
  return count_line(text::trim(lines.front().text), "templated_functions", n, version) ? 95 : 0;
}

Workload read_tau(const InputFile& file, const IngestOptions&) {
  const std::string& path = file.path();
  const auto lines = text::split_lines(file.bytes(), path);
  std::size_t i = 0;
  auto next = [&]() -> const text::Line* {
    while (i < lines.size() && text::trim(lines[i].text).empty()) ++i;
    return i < lines.size() ? &lines[i++] : nullptr;
  };
  const text::Line* first = next();
  if (!first) text::fail_at_end(path, lines, "not a TAU profile");
  int64_t count = 0;
  std::string version;
  if (!count_line(text::trim(first->text), "templated_functions", count, version))
    text::fail(
        path, first->number,
        "not a TAU profile: expected 'N templated_functions...' on the first line, got " + text::quote(first->text));
  // MULTI_<metric>: one metric per directory; only time metrics are times.
  if (contains(version, "hw_counters") || (contains(version, "MULTI_") && !contains(version, "TIME")))
    text::fail(path, first->number,
               "this profile counts '" +
                   (contains(version, "MULTI_") ? version.substr(version.find("MULTI_") + 6)
                                                : std::string("hardware counters")) +
                   "', not time: ingest the TIME metric's profile");

  const text::Line* header = next();
  bool stats_column = false;
  if (header && text::trim(header->text).starts_with("#")) {
    const auto h = text::trim(header->text);
    if (!h.starts_with("# Name Calls Subrs Excl Incl"))
      text::fail(path, header->number, "unexpected column header " + text::quote(h));
    stats_column = contains(h.substr(0, h.find('<')), "SumExclSqr");
  } else if (header) {
    --i;  // an old profile without the header: this is already the first timer
  }

  tau::ThreadProfile thread;
  thread.node = node_from_path(path);
  const std::size_t n_values = stats_column ? 6 : 5;
  // TAU writes each timer of a thread once; a second line of one name would be summed as
  // more calls, or (the root) taken as the run's length in place of the first.
  std::unordered_map<std::string, int64_t> line_of_timer;
  for (int64_t k = 0; k < count; ++k) {
    const text::Line* line = next();
    if (!line)
      throw InputError(
          path, "the file ends after " + std::to_string(k) + " of " + std::to_string(count) + " timers (truncated?)",
          lines.empty() ? 0 : lines.back().number);
    const auto q = parse_quoted(text::trim(line->text), n_values, n_values, kMaxValue, line->number, path);
    if (const auto [it, fresh] = line_of_timer.emplace(q.raw_name, line->number); !fresh)
      text::fail(path, line->number,
                 "timer '" + q.name + "' given twice (also on line " + std::to_string(it->second) + ")");
    tau::Timer t;
    t.name = q.name;
    t.group = q.group;
    t.calls = q.values[0];
    t.exclusive_s = q.values[2] * 1e-6;
    t.inclusive_s = q.values[3] * 1e-6;
    if (t.exclusive_s > t.inclusive_s * (1 + 1e-9) + 1e-6)
      text::fail(path, line->number, "exclusive time exceeds inclusive time for '" + t.name + "'");
    // One thread's counts are whole; a timer never entered has no time (left out, it vanished).
    if (t.calls != std::floor(t.calls) || q.values[1] != std::floor(q.values[1]))
      text::fail(path, line->number, "a call count that is not a whole number for '" + t.name + "'");
    if (t.calls == 0 && t.inclusive_s > 0)
      text::fail(path, line->number, "a timer with 0 calls and a time: '" + t.name + "'");
    thread.timers.push_back(std::move(t));
    // ProfileCalls: that many per-invocation lines follow; their detail is not needed.
    const auto profile_calls = static_cast<int64_t>(q.values.back());
    for (int64_t c = 0; c < profile_calls; ++c)
      if (!next())
        text::fail_at_end(path, lines, "the file ends inside the per-call lines of '" + q.name + "' (truncated?)");
  }

  const text::Line* aggregates = next();
  int64_t n_aggregates = 0;
  std::string word;
  if (!aggregates || !count_line(text::trim(aggregates->text), "aggregates", n_aggregates, word))
    throw InputError(path, "expected 'N aggregates' after the " + std::to_string(count) + " timers (truncated?)",
                     aggregates ? aggregates->number : (lines.empty() ? 0 : lines.back().number));
  // TAU writes "0 aggregates"; any it declares are lines of their own, none of which fomcast
  // uses, but a file that ends before them is truncated (it was read as whole).
  for (int64_t k = 0; k < n_aggregates; ++k)
    if (!next())
      throw InputError(path,
                       "the file ends after " + std::to_string(k) + " of " + std::to_string(n_aggregates) +
                           " aggregates (truncated?)",
                       lines.empty() ? 0 : lines.back().number);

  tau::MessageSizes sizes;
  int64_t n_events = 0;
  if (const text::Line* ue = next()) {
    if (!count_line(text::trim(ue->text), "userevents", n_events, word))
      text::fail(path, ue->number, "expected 'N userevents' or the end of the file, got " + text::quote(ue->text));
    const text::Line* legend = next();
    if (legend && !text::trim(legend->text).starts_with("#")) {
      --i;  // no legend (possible with no events): the line is whatever follows
      legend = nullptr;
    }
    if (n_events > 0 && (!legend || !text::trim(legend->text).starts_with("# eventname")))
      throw InputError(path, "expected '# eventname numevents max min mean sumsqr' before the user events",
                       legend ? legend->number : ue->number);
    for (int64_t k = 0; k < n_events; ++k) {
      const text::Line* line = next();
      if (!line)
        throw InputError(path, "the file ends after " + std::to_string(k) + " of " + std::to_string(n_events) +
                                   " user events (truncated?)");
      const auto q = parse_quoted(text::trim(line->text), 5, 5, kMaxEventValue, line->number, path);
      tau::add_message_size(sizes, q.name, q.values[3]);
    }
  }
  if (const text::Line* extra = next())
    text::fail(path, extra->number, "unexpected text after the profile: " + text::quote(extra->text));

  Workload w;
  w.origin = "tau";
  w.events = count + n_events;
  tau::build_workload({thread}, sizes, w);
  w.notes.insert(w.notes.begin(), "TAU profile of node " + std::to_string(thread.node) +
                                      ": exclusive time per timer (TIME metric, microseconds)");
  return w;
}

}  // namespace

const FormatReader kTauFormat{"tau", detect_tau, read_tau};

}  // namespace fomcast::ingest
