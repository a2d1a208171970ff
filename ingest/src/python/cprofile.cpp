// cprofile: Python cProfile statistics as pstats prints them. Three layouts:
//   print_stats():   ncalls  tottime  percall  cumtime  percall filename:lineno(function)
//   print_callers(): FUNCTION <- ncalls tottime cumtime CALLER   (one line per caller)
//   print_callees(): FUNCTION -> ncalls tottime cumtime CALLEE   (one line per callee)
// tottime is the self time. In the caller/callee layouts the numbers are per call site, so
// a function's totals are the sums of its lines. ncalls "101202000/1002000" is total calls
// over primitive (non-recursive) calls. The binary .pstats (Python marshal) is decoded by
// pstats_marshal.cpp into the same statistics.
#include <cctype>
#include <cmath>
#include <map>

#include "common/ops.hpp"
#include "common/readers.hpp"
#include "decode/text_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/text.hpp"
#include "python/pstats_marshal.hpp"

namespace fomcast::ingest {
namespace {

struct Stats {
  double calls = 0, primitive = 0, tottime_s = 0;
  int64_t first_line = 0;
};

enum class Layout { none, stats, callers, callees };

// "102000" or "101202000/1002000" (total/primitive).
bool parse_ncalls(std::string_view v, double& calls, double& primitive) {
  const std::size_t slash = v.find('/');
  const auto a = text::parse_count(v.substr(0, slash));
  const auto b = slash == std::string_view::npos ? a : text::parse_count(v.substr(slash + 1));
  if (!a || !b || *a > 1e15 || *b > *a || *a != std::floor(*a) || *b != std::floor(*b)) return false;  // counted
  calls = *a;
  primitive = *b;
  return true;
}

// "variable.py:968(_backward_main)" -> "_backward_main"; "{method 'dot' ...}" stays whole.
std::string_view function_part(std::string_view name) {
  if (name.empty() || name.front() == '{' || name.back() != ')') return name;
  const std::size_t open = name.rfind('(');
  return open == std::string_view::npos ? name : name.substr(open + 1, name.size() - open - 2);
}

int detect_cprofile(std::string_view head, std::string_view path) {
  if (pstats::looks_like_marshal(head)) return 60;
  for (const auto& line : text::head_lines(head)) {
    const auto t = text::trim(line.text);
    if (t.starts_with("ncalls") && contains(t, "tottime") && contains(t, "cumtime")) return 95;
    if (t.starts_with("Function") && (contains(t, "was called by...") || contains(t, "called..."))) return 90;
    if (contains(t, "function calls") && contains(t, " in ") && contains(t, "seconds")) return 80;
  }
  (void)path;
  return 0;
}

// The functions' statistics however the profile came, before passes are counted.
struct Listing {
  std::map<std::string, Stats> by_name;
  std::vector<std::string> order;  // as listed
  std::optional<double> total_s;
  int64_t rows = 0;
  std::vector<std::string> notes;
};

Listing read_binary(const InputFile& file) {
  Listing l;
  double total = 0;
  for (auto& e : pstats::read_marshal(file.bytes(), file.path())) {
    Stats& s = l.by_name[e.name];
    if (s.calls == 0 && s.primitive == 0 && s.tottime_s == 0) l.order.push_back(e.name);
    s.calls += e.calls;
    s.primitive += e.primitive_calls;
    s.tottime_s += e.tottime_s;
    total += e.tottime_s;
    ++l.rows;
  }
  // pstats' "in N seconds" is the sum of tottime.
  if (total > 0) l.total_s = total;
  l.notes.push_back("self time = tottime; binary .pstats (Python marshal) decoded");
  return l;
}

Listing read_text(const InputFile& file) {
  const std::string& path = file.path();
  Listing listing;
  auto& by_name = listing.by_name;
  auto& order = listing.order;
  auto& total_s = listing.total_s;
  auto& rows = listing.rows;
  Layout layout = Layout::none;
  std::string current;  // callers/callees: the function the block is about
  int64_t tables = 0;
  bool more_tables = false, reduced = false;
  std::string reduced_line;   // "List reduced from 438 to 100 due to restriction <100>"
  double listed_s = 0;        // the stats rows' tottime, summed
  int64_t last_row_line = 0;  // the line of the last row read, for an error about the rows
  std::string_view last_row_name;
  // A listing printed into a program's log: its output before the listing, and after the
  // blank line that ends the table, is not the profile's.
  int64_t before = 0, after = 0, elisions = 0;
  bool table_ended = false;
  std::vector<std::string_view> f;
  std::string_view name;

  auto add = [&](std::string_view fn, std::string_view ncalls, std::string_view tottime, int64_t line) {
    double calls = 0, primitive = 0;
    if (!parse_ncalls(ncalls, calls, primitive)) text::fail(path, line, "bad ncalls " + text::quote(ncalls));
    const auto tt = text::parse_number(tottime);
    if (!tt || *tt < 0 || *tt > 1e9) text::fail(path, line, "bad tottime " + text::quote(tottime));
    // A function never called has no time: left out, 84% of a profile's time vanished.
    if (calls == 0 && *tt > 0) text::fail(path, line, "ncalls 0 with a tottime of " + text::quote(tottime));
    auto [it, inserted] = by_name.try_emplace(std::string(fn));
    if (inserted) {
      order.push_back(it->first);
      it->second.first_line = line;
    }
    it->second.calls += calls;
    it->second.primitive += primitive;
    it->second.tottime_s += *tt;
    ++rows;
  };

  const auto lines = text::split_lines(file.bytes(), path);
  for (const auto& line : lines) {
    const auto t = text::trim(line.text);
    // A listing pasted into Markdown: its closing code fence ends the table as a blank line
    // does, and a "..." where rows were cut out is skipped (said below).
    const bool in_table = layout == Layout::stats && rows > 0;
    if (t.empty() || (in_table && t.starts_with("```"))) {
      if (in_table) table_ended = true;
      continue;
    }
    if (in_table && !table_ended && (t == "..." || t == "\u2026")) {
      ++elisions;
      continue;
    }
    const bool section = (contains(t, "function calls") && contains(t, "seconds")) ||
                         (t.starts_with("ncalls") && contains(t, "tottime")) || t.starts_with("Function");
    if (table_ended && !section) {
      ++after;
      continue;
    }
    table_ended = false;
    if (layout == Layout::none && !total_s && !section && !contains(t, "Ordered by:")) {
      ++before;  // the program's output ahead of the listing ("Tue Sep  1 19:52:04 2020  x.pstats" too)
      continue;
    }
    if (contains(t, "function calls") && contains(t, "seconds")) {
      // "101204007 function calls (1004007 primitive calls) in 23.045 seconds"
      const std::size_t in = t.rfind(" in ");
      const auto after_in =
          in == std::string_view::npos ? std::vector<std::string_view>{} : text::fields(t.substr(in + 4));
      const auto secs = after_in.empty() ? std::nullopt : text::parse_number(after_in.front());
      if (!secs || *secs < 0) text::fail(path, line.number, "bad total time in " + text::quote(t));
      if (!total_s) total_s = *secs;
      continue;
    }
    if (t.starts_with("List reduced from")) reduced = true, reduced_line = std::string(t);
    // "##    Ordered by: cumulative time": a listing pasted into Markdown keeps its words.
    if (contains(t, "Ordered by:") || t.starts_with("List reduced from") || t.starts_with("Random listing order"))
      continue;
    if (t.starts_with("ncalls") && contains(t, "tottime")) {
      if (layout == Layout::none) layout = Layout::stats;  // callers/callees keep their own layout
      if (layout == Layout::stats && ++tables > 1) {
        more_tables = true;
        break;
      }
      continue;
    }
    if (t.starts_with("Function") && contains(t, "was called by...")) {
      layout = Layout::callers;
      continue;
    }
    if (t.starts_with("Function") && contains(t, "called...")) {
      layout = Layout::callees;
      continue;
    }
    switch (layout) {
      case Layout::none:
        text::fail(path, line.number,
                   "expected the pstats header ('ncalls  tottime  percall  cumtime  percall "
                   "filename:lineno(function)'), got " +
                       text::quote(t));
      case Layout::stats:
        if (!text::take_fields(t, 5, f, name) || name.empty())
          text::fail(path, line.number,
                     "expected 'ncalls tottime percall cumtime percall function', got " + text::quote(t));
        for (int k : {2, 3, 4})
          if (!text::parse_number(f[static_cast<std::size_t>(k)]) ||
              *text::parse_number(f[static_cast<std::size_t>(k)]) < 0)
            text::fail(path, line.number, "bad number " + text::quote(f[static_cast<std::size_t>(k)]));
        // print_stats lists each function once; a second row of it is not the run's.
        if (auto seen = by_name.find(std::string(name)); seen != by_name.end())
          text::fail(path, line.number,
                     "function listed twice (first on line " + std::to_string(seen->second.first_line) + ")");
        add(name, f[0], f[1], line.number);
        listed_s += *text::parse_number(f[1]);
        last_row_line = line.number;
        last_row_name = name;
        break;
      case Layout::callers:
      case Layout::callees: {
        const std::string_view arrow = layout == Layout::callers ? "<-" : "->";
        std::string_view entry = t;
        if (const std::size_t a = line.text.find(arrow);
            a != std::string_view::npos && !std::isspace(static_cast<unsigned char>(line.text.front()))) {
          current = std::string(text::trim(line.text.substr(0, a)));
          if (current.empty()) text::fail(path, line.number, "no function name before '" + std::string(arrow) + "'");
          entry = text::trim(line.text.substr(a + 2));
          if (entry.empty()) continue;  // never called (callers) / calls nothing (callees)
        } else if (current.empty()) {
          text::fail(path, line.number, "a call-site line before any function line: " + text::quote(t));
        }
        if (!text::take_fields(entry, 3, f, name) || name.empty())
          text::fail(path, line.number, "expected 'ncalls tottime cumtime function', got " + text::quote(entry));
        const auto cum = text::parse_number(f[2]);
        if (!cum || *cum < 0) text::fail(path, line.number, "bad cumtime " + text::quote(f[2]));
        // Callers: the numbers are the block's function's; callees: the listed callee's.
        add(layout == Layout::callers ? std::string_view(current) : name, f[0], f[1], line.number);
        break;
      }
    }
  }
  if (layout == Layout::none)
    text::fail_at_end(path, lines, "not a pstats listing: no 'ncalls  tottime ...' header found");
  if (by_name.empty()) text::fail_at_end(path, lines, "the pstats listing has no function rows");
  // pstats ends every row's name with "(function)" or "}" and the listing with a newline: a
  // file that stops mid-name was cut (head -c stored "optimizers/adam.py:53(adam_kro" as an
  // op, classed an optimizer by the word).
  if (layout == Layout::stats && last_row_line == lines.back().number && !file.bytes().ends_with('\n') &&
      !last_row_name.ends_with(')') && !last_row_name.ends_with('}'))
    text::fail(path, last_row_line,
               "the file ends inside a row, its function name cut short at " + text::quote(last_row_name) +
                   " (a truncated file?)");
  // The header's "in N seconds" is the sum of every function's tottime, each row printed to
  // the millisecond: rows that sum to more are not that run's, and a full listing (no "List
  // reduced from") that sums to less has lost rows. head -c cuts were read as 1 to 8 of 9
  // functions, the last one's name cut short.
  if (layout == Layout::stats && total_s && !more_tables) {
    const double slack = 0.0005 * static_cast<double>(rows) + 1e-3 * *total_s;
    if (listed_s > *total_s + slack)
      text::fail(path, last_row_line,
                 "the rows' tottime sums to " + format_significant(listed_s) + " s, more than the " +
                     format_significant(*total_s) + " s the header says the run took");
    if (!reduced && elisions == 0 && listed_s < *total_s - slack)
      text::fail_at_end(path, lines,
                        "the rows' tottime sums to " + format_significant(listed_s) + " s of the " +
                            format_significant(*total_s) +
                            " s the header gives, and no 'List reduced from' line says "
                            "rows were left out (a truncated file?)");
  }
  listing.notes.push_back(
      std::string("self time = tottime; ") +
      (layout == Layout::stats     ? "print_stats listing"
       : layout == Layout::callers ? "print_callers listing: totals summed over callers"
                                   : "print_callees listing: totals summed over callers") +
      (layout == Layout::callers ? "; functions never called from a listed caller are left out" : ""));
  if (more_tables) listing.notes.push_back("only the first pstats table was read");
  // A restricted listing holds the top rows only: what the rest took is in the header's
  // total, so in the pass, and in no op: said, or the missing share reads as residual.
  if (reduced && layout == Layout::stats && total_s && *total_s > 0)
    listing.notes.push_back("'" + reduced_line + "': the listed functions' self time is " + format_duration(listed_s) +
                            " of the " + format_duration(*total_s) + " the header gives; the other " +
                            format_share(1 - listed_s / *total_s) + " is in the pass time, not in any op");
  if (before > 3)  // pstats itself prints a date and a file name first
    listing.notes.push_back(std::to_string(before) +
                            " lines before the pstats listing (the program's own output) skipped");
  if (after > 0)
    listing.notes.push_back(std::to_string(after) + " lines after the listing's table (past its blank line) ignored");
  if (elisions > 0)
    listing.notes.push_back(
        std::to_string(elisions) + " '...' line(s) in the table, where rows were cut out: the functions left out" +
        (total_s && *total_s > 0 ? " (" + format_share(1 - listed_s / *total_s) + " of the header's total)"
                                 : std::string()) +
        " are in the pass time and in no op");
  return listing;
}

Workload read_cprofile(const InputFile& file, const IngestOptions&) {
  Listing listing = pstats::looks_like_marshal(file.head()) ? read_binary(file) : read_text(file);
  if (listing.by_name.empty()) throw InputError(file.path(), "the profile lists no functions", 0, 0);
  const auto& order = listing.order;
  auto& by_name = listing.by_name;
  const auto& total_s = listing.total_s;
  Workload w;
  w.origin = "cprofile";
  w.events = listing.rows;
  // Passes: the optimizer's step (one per training step by what it is), else a function
  // named as a training step, else the backward pass's entry point, else TF1's session run
  // (a feed_dict loop runs its train op once per step: a DeepCoNN job's 825 TF_Run calls had
  // been one pass of 17.4 s), else a bare "step" or "iteration" of another module. Bare
  // names come last: a reinforcement-learning job's environment steps (interop.py:274(step),
  // 53.7 million calls) had made 20 passes of each of its 2.7 million Adam steps.
  auto rule_of = [](std::string_view name, std::string_view fn) {
    if (fn == "step" && classify_name(name) == OpKind::optimizer) return 0;
    if (is_step_name(fn)) {
      const std::string f = lowercase(fn);
      return f.starts_with("step") || f.starts_with("iter") ? 4 : 1;
    }
    // Autograd's engine is a builtin: "{method 'run_backward' of 'torch._C._EngineBase' objects}".
    if (fn == "backward" || fn == "_backward_main" || fn == "run_backward" || contains(name, "'run_backward'"))
      return 2;
    // "{built-in method _pywrap_tensorflow_internal.TF_Run}", TF_SessionRun_wrapper (TF 1.5+).
    if (contains(name, "TF_Run}") || contains(name, "TF_SessionRun")) return 3;
    return -1;
  };
  std::string step_fn;
  double passes = 0;
  int step_rule = -1;
  for (int rule = 0; rule < 5 && step_fn.empty(); ++rule)
    for (const auto& n : order)
      if (rule_of(n, function_part(n)) == rule && by_name[n].primitive > passes) {
        passes = by_name[n].primitive;
        step_fn = n;
        step_rule = rule;
      }
  OpAggregator agg;
  for (const auto& n : order) {
    const Stats& s = by_name[n];
    if (s.calls <= 0) continue;
    const std::string_view fn = function_part(n);
    Op op;
    op.name = n;
    op.kind = classify_name(fn);
    op.phase = phase_from_name(fn);
    // "torch/optim/adam.py:49(step)": the function says "step", its module the optimizer.
    if (op.kind == OpKind::other && classify_name(n) == OpKind::optimizer) {
      op.kind = OpKind::optimizer;
      op.phase = Phase::optimizer;
    }
    agg.add(op, s.calls, s.tottime_s);
  }
  if (passes >= 1) {
    w.passes = std::llround(passes);
    w.notes.push_back("passes = calls of '" + step_fn + "' (" + std::to_string(w.passes) + "), one per training step" +
                      (step_rule == 3
                           ? std::string(" (each TF1 session run is one; evaluation runs count as steps too)")
                           : std::string()));
    if (total_s) w.pass_s = *total_s / passes;
  } else {
    passes = 1;
    w.passes = 1;
    w.notes.push_back("one pass: no step or backward function found, so counts are whole-run totals");
    if (total_s && *total_s > 0) w.pass_s = *total_s;
  }
  w.ops = agg.finish(passes);
  if (w.pass_s && *w.pass_s <= 0) w.pass_s.reset();
  w.notes.insert(w.notes.end(), listing.notes.begin(), listing.notes.end());
  if (total_s && w.pass_s)
    w.notes.push_back("pass time = the profile's total time / passes (it includes any setup outside the steps)");
  return w;
}

}  // namespace

const FormatReader kCprofileFormat{"cprofile", detect_cprofile, read_cprofile};

}  // namespace fomcast::ingest
