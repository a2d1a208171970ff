// Format `tf-timeline`: the Chrome trace TF1's timeline.Timeline(step_stats) writes for one
// session.run. Each op node is an 'X' event with args.name (the node) and args.op (its
// type) on a "process" per device: "/job:.../cpu:0 Compute" (CPU ops, their real time),
// "/job:.../gpu:0 Compute" (the host side of GPU ops: enqueue time), "/gpu:0/stream:all
// Compute" (the GPU kernels of all streams), "/gpu:0/stream:N Compute" (the same kernels
// per stream), "/gpu:0/memcpy Compute" (copies); "... Tensors" and "Allocators" hold no
// ops, and DataFlow flows are ignored.
//
// Time of an op: its kernels on stream:all when the timeline has them (else the per-stream
// processes, else the device's Compute process), its CPU time for CPU-device ops; the
// host side of GPU ops is not counted (it would count every GPU op twice). A timeline is
// one step: one pass, each node counted once, its time the sum of its events. No shapes:
// kinds come from the op type (classify_name).
#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "common/ops.hpp"
#include "common/readers.hpp"
#include "decode/json_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/text.hpp"
#include "pytorch/trace_event.hpp"

namespace fomcast::ingest {
namespace {

enum class Lane { ignore, cpu, gpu_host, gpu_all, gpu_stream, memcpy };

Lane lane_of(const std::string& process) {
  if (!contains(process, "Compute")) return Lane::ignore;
  if (contains(process, "stream:all")) return Lane::gpu_all;
  if (contains(process, "/stream:")) return Lane::gpu_stream;
  if (contains(process, "/memcpy")) return Lane::memcpy;
  if (contains(process, "gpu:") || contains(process, "GPU:")) return Lane::gpu_host;
  return Lane::cpu;
}

struct Record {
  std::string pid;
  uint32_t node = 0;
  double start = 0, end = 0;
};

Phase tf_phase(std::string_view node, std::string_view type) {
  if (classify_name(type) == OpKind::optimizer || type.starts_with("Apply") || type.starts_with("ResourceApply"))
    return Phase::optimizer;
  if (node.starts_with("gradients") || contains(node, "/gradients/") || (type.size() > 4 && type.ends_with("Grad")))
    return Phase::backward;
  return Phase::forward;
}

int detect_tf_timeline(std::string_view head, std::string_view) {
  if (!contains(head, "\"traceEvents\"")) return 0;
  const bool devices = contains(head, "/job:") || contains(head, "/device:") || contains(head, "stream:all") ||
                       contains(head, "/gpu:") || contains(head, "/cpu:");
  const bool op_cat = contains(head, "\"Op\"");
  return devices && op_cat ? 85 : 0;
}

Workload read_tf_timeline(const InputFile& file, const IngestOptions& options) {
  TraceEventParser parser(file.path());
  std::unordered_map<std::string, std::string> process_names;          // pid -> name
  std::map<std::pair<std::string, std::string>, uint32_t> node_index;  // (node, type)
  std::vector<std::pair<std::string, std::string>> node_names;
  std::vector<Record> records;
  // Every op node of a TF1 timeline carries its type in args.op; a trace whose 'X' events
  // never do is another Chrome trace (Kineto's, forced with --format tf-timeline), which
  // read here would keep the few events on unnamed processes: one op of 1,408 events.
  bool any_op_type = false;
  int64_t first_op_offset = -1;
  JsonStreamSpec spec;
  spec.array_keys = {"traceEvents"};
  const JsonStreamInfo info = stream_json_array(
      file, spec,
      [&](const JsonElement& element) {
        const TraceEvent& e = parser.parse(element);
        if (e.ph == 'M' && e.name == "process_name") {
          process_names[std::string(e.pid)] = std::string(e.arg_name);
          return;
        }
        if (e.ph != 'X') return;
        any_op_type = any_op_type || !e.arg_op.empty();
        if (first_op_offset < 0) first_op_offset = element.offset;
        const std::string node(e.arg_name.empty() ? e.name : e.arg_name);
        const std::string type(e.arg_op.empty() ? e.name : e.arg_op);
        auto [it, inserted] = node_index.try_emplace({node, type}, static_cast<uint32_t>(node_names.size()));
        if (inserted) node_names.emplace_back(node, type);
        records.push_back({std::string(e.pid), it->second, e.ts, e.ts + e.dur});
      },
      options.progress);
  if (!info.found_array) throw InputError(file.path(), "no `traceEvents` array: not a TF timeline", 0, 0);
  if (records.empty()) throw InputError(file.path(), "the timeline has no op events ('X')", 0, 0);
  if (!any_op_type)
    throw InputError(file.path(),
                     "no op event carries args.op, the op type TF1's timeline gives every node: not a TF1 timeline "
                     "(a Kineto or other Chrome trace reads with --format auto)",
                     0, first_op_offset);

  bool has_all = false, has_stream = false;
  for (const auto& [pid, name] : process_names) {
    has_all |= lane_of(name) == Lane::gpu_all;
    has_stream |= lane_of(name) == Lane::gpu_stream;
  }
  auto counted = [&](const std::string& pid) {
    auto it = process_names.find(pid);
    const Lane lane = it == process_names.end() ? Lane::cpu : lane_of(it->second);
    switch (lane) {
      case Lane::cpu:
      case Lane::memcpy: return true;
      case Lane::gpu_all: return true;
      case Lane::gpu_stream: return !has_all;
      case Lane::gpu_host: return !has_all && !has_stream;
      case Lane::ignore: return false;
    }
    return false;
  };

  std::vector<double> time_us(node_names.size(), 0);
  std::vector<uint8_t> seen(node_names.size(), 0);
  double first = std::numeric_limits<double>::infinity(), last = -std::numeric_limits<double>::infinity();
  for (const auto& r : records) {
    first = std::min(first, r.start);
    last = std::max(last, r.end);
    if (!counted(r.pid)) continue;
    // The copy lane also shows ops whose copies it ran (a MatMul moving its operand): only
    // the copies are its own; the op's kernels are counted on the compute streams.
    if (auto it = process_names.find(r.pid); it != process_names.end() && lane_of(it->second) == Lane::memcpy &&
                                             classify_name(node_names[r.node].second) != OpKind::memcpy)
      continue;
    time_us[r.node] += r.end - r.start;
    seen[r.node] = 1;
  }
  OpAggregator agg;
  // The graph's _SOURCE and _SINK nodes are the executor's, not ops: _SOURCE's event spans
  // its start-up (59% of the op time of a small CPU MNIST step, ranked above its MatMuls).
  // Their time stays in the pass (its span), in no op.
  double executor_us = 0;
  for (std::size_t i = 0; i < node_names.size(); ++i) {
    if (!seen[i]) continue;
    const auto& [node, type] = node_names[i];
    if (node == "_SOURCE" || node == "_SINK") {
      executor_us += time_us[i];
      continue;
    }
    Op op;
    op.name = node + " (" + type + ")";
    op.kind = classify_name(type);
    op.dtype = DType::unknown;
    op.phase = tf_phase(node, type);
    agg.add(op, 1, time_us[i] * 1e-6);
  }
  Workload w;
  w.origin = "tf-timeline";
  w.events = info.elements;
  w.passes = 1;
  if (last > first) w.pass_s = (last - first) * 1e-6;
  w.ops = agg.finish(1);
  std::stable_sort(w.ops.begin(), w.ops.end(),
                   [](const Op& a, const Op& b) { return a.self_time_s.value_or(0) > b.self_time_s.value_or(0); });
  w.notes.push_back(
      "TF timeline of one session.run step: one pass (pass time = the span of its op events); each "
      "node counted once; op types give the kinds, the timeline records no shapes");
  if (has_all || has_stream)
    w.notes.push_back(std::string("GPU op times from the ") + (has_all ? "stream:all" : "per-stream") +
                      " kernel events; the host-side enqueue events of GPU ops are not counted");
  if (executor_us > 0)
    w.notes.push_back("the executor's _SOURCE and _SINK nodes (" + format_duration(executor_us * 1e-6) +
                      ") are not ops: their time is in the pass, in no op");
  return w;
}

}  // namespace

const FormatReader kTfTimelineFormat{"tf-timeline", detect_tf_timeline, read_tf_timeline};

}  // namespace fomcast::ingest
