// TAU timers -> operations. TAU measures whole runs: each timer's calls and exclusive time
// are totals over the run, so the pass is the run unless a step timer divides it.
#include "tau/tau_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "common/ops.hpp"
#include "decode/text_scan.hpp"
#include "fomcast/model.hpp"

namespace fomcast::ingest::tau {
namespace {

constexpr std::string_view kRoot = ".TAU application";

std::string format_s(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g s", s);
  return buf;
}

}  // namespace

std::string clean_name(std::string_view raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    // Source locations "[{file.c} {12,0}]" (pprof strips them too).
    if (raw[i] == '[' && i + 1 < raw.size() && raw[i + 1] == '{') {
      const std::size_t end = raw.find("}]", i);
      if (end != std::string_view::npos) {
        i = end + 1;
        continue;
      }
    }
    if ((raw[i] == ' ' || raw[i] == '\t') && (out.empty() || out.back() == ' ')) continue;
    out += raw[i] == '\t' ? ' ' : raw[i];
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

void add_message_size(MessageSizes& sizes, std::string_view event, double mean_bytes) {
  event = text::trim(event);
  constexpr std::string_view kPrefix = "Message size for ";
  // Point-to-point sizes per destination, with the call path that sent them when TAU kept
  // it: "Message size sent to node 7 : .TAU application => main => MPI_Sendrecv()".
  constexpr std::string_view kSentTo = "Message size sent to node ";
  if (!std::isfinite(mean_bytes) || mean_bytes < 0) return;
  if (event.starts_with(kSentTo)) {
    const std::size_t colon = event.find(" : ");
    if (colon == std::string_view::npos) return;  // per node, no timer named
    std::string_view timer = event.substr(colon + 3);
    if (const std::size_t arrow = timer.rfind("=>"); arrow != std::string_view::npos) timer = timer.substr(arrow + 2);
    sizes.by_timer[clean_name(timer)] = mean_bytes;
    return;
  }
  if (!event.starts_with(kPrefix)) return;
  const std::size_t colon = event.rfind(" : ");
  if (colon == std::string_view::npos) {
    const CollectiveKind kind = collective_kind_from_name(event.substr(kPrefix.size()));
    if (kind != CollectiveKind::other) sizes.by_kind[kind] = mean_bytes;
    return;
  }
  std::string_view timer = event.substr(colon + 3);
  if (const std::size_t arrow = timer.rfind("=>"); arrow != std::string_view::npos) timer = timer.substr(arrow + 2);
  sizes.by_timer[clean_name(timer)] = mean_bytes;
}

void build_workload(const std::vector<ThreadProfile>& threads, const MessageSizes& sizes, Workload& w) {
  std::set<int64_t> nodes;
  std::map<int64_t, double> span_by_node;  // the run's length per process: its longest thread
  const Timer* step = nullptr;
  double step_calls = 0, step_inclusive = 0;
  int callpaths = 0, unmeasured = 0, sized = 0;
  double root_threads = 0;  // a summary's root call count: the threads it totals
  OpAggregator agg;
  for (const auto& t : threads) {
    nodes.insert(t.node);
    for (const auto& timer : t.timers) {
      if (timer.name.find("=>") != std::string::npos) {
        ++callpaths;
        continue;
      }
      if (timer.name == kRoot) {
        // Each thread enters the root once: a summary's total over threads counts it once a
        // thread (pprof -s of four pthreads: 11,900 ms over 4 calls for a 2,983 ms run).
        const double per_thread = timer.calls > 1 ? timer.inclusive_s / timer.calls : timer.inclusive_s;
        if (timer.calls > 1) root_threads = std::max(root_threads, timer.calls);
        span_by_node[t.node] = std::max(span_by_node[t.node], per_thread);
        continue;
      }
      if (timer.calls <= 0) continue;  // registered but never entered
      if (is_step_name(timer.name) && (!step || step->name == timer.name)) {
        step = &timer;
        step_calls += timer.calls;
        step_inclusive += timer.inclusive_s;
        continue;
      }
      Op op;
      op.name = timer.name;
      op.kind = classify_name(timer.name);
      op.phase = phase_from_name(timer.name);
      if (op.kind == OpKind::collective) {
        // A shape only with a known payload: "0 B" would claim an empty message.
        const CollectiveKind kind = collective_kind_from_name(timer.name);
        std::optional<double> bytes;
        if (auto it = sizes.by_timer.find(timer.name); it != sizes.by_timer.end())
          bytes = it->second;
        else if (auto k = sizes.by_kind.find(kind); k != sizes.by_kind.end())
          bytes = k->second;
        if (bytes) {
          op.shape = CollectiveShape{kind, std::llround(*bytes), 0};
          ++sized;
        }
      }
      const bool measured = timer.exclusive_s > 0 || timer.inclusive_s > 0;
      if (!measured) ++unmeasured;
      agg.add(op, timer.calls, measured ? std::optional<double>(timer.exclusive_s) : std::nullopt);
    }
  }
  const double ranks = static_cast<double>(std::max<std::size_t>(nodes.size(), 1));
  double passes = 1;
  if (step && step_calls > 0) {
    passes = step_calls / ranks;
    w.pass_s = step_inclusive / step_calls;
    w.notes.push_back("passes from the step timer '" + step->name + "' (" + std::to_string(std::llround(passes)) +
                      " calls per process); pass time = its inclusive time per call; ops outside it count too");
  } else {
    double span = 0;
    for (const auto& [node, s] : span_by_node) span += s;
    if (span > 0) w.pass_s = span / static_cast<double>(span_by_node.size());
    w.notes.push_back(
        std::string("one pass: TAU totals a whole run and no step timer was found") +
        (w.pass_s ? "; pass time = inclusive time of '.TAU application' (" + format_s(*w.pass_s) + ")" : "") +
        (root_threads > 1
             ? ", per thread: the summary totals it over the " + std::to_string(std::llround(root_threads)) +
                   " threads that entered it, which ran side by side"
             : ""));
  }
  w.passes = std::max<int64_t>(1, std::llround(passes));
  w.ops = agg.finish(passes * ranks);
  if (nodes.size() > 1)
    w.notes.push_back(std::to_string(nodes.size()) + " processes: counts and times are per process (averaged)");
  if (sized > 0)
    w.notes.push_back(std::to_string(sized) + " communication timer(s) sized from TAU's message-size events");
  if (callpaths > 0)
    w.notes.push_back(std::to_string(callpaths) + " call-path entries (A => B) skipped: they repeat the flat timers");
  if (unmeasured > 0)
    w.notes.push_back(std::to_string(unmeasured) +
                      " timer(s) report calls but no time at all: kept without a measured time");
}

}  // namespace fomcast::ingest::tau
