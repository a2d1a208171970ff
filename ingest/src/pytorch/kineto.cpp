// Format `kineto`: PyTorch profiler / Kineto Chrome-trace JSON, every schema seen in the
// wild (PyTorch 1.9 `Operator`/`Runtime`/`Kernel` categories with lowercase `external
// id`; current `cpu_op`/`cuda_runtime`/`kernel`; ROCm `hip*` calls; CPU-only traces; the
// legacy autograd profiler's bare array with "CPU functions"/"CUDA functions" pids).
//
// The rules (docs/ingest.md has them in full):
// - Ops are the CPU op events; annotations (ProfilerStep#N, Optimizer.step#..., ## x ##)
//   only give scope. Nesting per thread (common/self_time.hpp) gives each op its phase:
//   under autograd::engine / *Backward* -> backward, under an optimizer step -> optimizer.
// - GPU traces: an op's time is the summed duration of the GPU kernels it launched. A
//   kernel carries the correlation id of the runtime call that launched it; that call sits
//   inside its launching op on the CPU thread. Kernels without such an op are listed by
//   kernel name (classify_name); copies and memsets are listed by their own name.
// - CPU-only traces: an op's time is its exclusive CPU time.
// - Steps from ProfilerStep#N: counts per pass = calls within steps / steps, pass time =
//   mean step span. No markers: one pass (or the Optimizer.step markers), said in a note.
//
// Memory: events are reduced to 32-byte records while streaming (common/self_time.hpp
// bounds how many are kept); ops are aggregated per distinct (name, recorded inputs).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "common/ops.hpp"
#include "common/readers.hpp"
#include "common/self_time.hpp"
#include "decode/json_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/text.hpp"
#include "pytorch/execution_trace.hpp"
#include "pytorch/trace_event.hpp"

namespace fomcast::ingest {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
// CPU and GPU records kept at once before the oldest are processed early (32 and 10 MiB).
constexpr std::size_t kMaxBufferedCpu = 1 << 20;
constexpr std::size_t kMaxBufferedGpu = 1 << 18;

enum class EventKind : uint8_t { ignore, op, annotation, step, launch, kernel, memcpy, memset, legacy_gpu };

struct Proto {
  std::string name;
  std::string dims, types, concrete, strides;
  CommMeta comm;
  Phase name_phase = Phase::forward;
  bool compute = false;
  bool needs_parent = false;  // record_param_comms without metadata: the enclosing c10d op says which
  bool gpu = false;           // a GPU activity name (kernel, copy)
  EventKind gpu_kind = EventKind::kernel;
  int64_t et_proto = -1;                            // shapes lent by the execution trace
  std::optional<KernelDirection> kernel_direction;  // GPU kernels: set when first attributed
};

struct Slot {
  uint32_t proto = 0;
  Phase phase = Phase::forward;
  uint32_t qualifier = 0;  // the enclosing op's proto + 1, for ops that borrow from it; else 0
  // [0] the whole trace, [1] within steps.
  double calls[2] = {0, 0}, cpu_us[2] = {0, 0}, gpu_calls[2] = {0, 0}, gpu_us[2] = {0, 0};
  double data_us[2] = {0, 0}, filter_us[2] = {0, 0};  // conv backward kernels by direction
  double wrapper_calls = 0;
  double bytes = 0;  // copies: summed bytes
};

struct LaunchInfo {
  uint32_t slot = kNone;
  Phase phase = Phase::forward;
  bool in_step = false;
  bool graph = false;  // a graph launch: many kernels share its correlation id
};

struct GpuRecord {
  double start = 0, dur = 0;
  int64_t correlation = -1;
  int64_t bytes = -1;
  uint32_t proto = 0;
  EventKind kind = EventKind::kernel;
};

struct StepSpan {
  int64_t number = 0;
  double start = 0, end = 0;
  double dur = 0;  // as recorded (end - start loses digits on large timestamps)
};

bool is_launch_name(std::string_view n) {
  return contains(n, "Launch") || contains(n, "Memcpy") || contains(n, "Memset") || contains(n, "memcpy") ||
         contains(n, "memset");
}

class KinetoReader {
 public:
  KinetoReader(const InputFile& file, const IngestOptions& options, const EtIndex* et)
      : file_(file), options_(options), et_(et), parser_(file.path()), builder_(callbacks(), kMaxBufferedCpu) {}

  Workload read() {
    JsonStreamSpec spec;
    spec.array_keys = {"traceEvents"};
    spec.accept_bare_array = true;
    spec.capture_keys = {"deviceProperties", "schemaVersion", "distributedInfo"};
    const JsonStreamInfo info = stream_json_array(
        file_, spec, [this](const JsonElement& e) { on_element(e); }, options_.progress);
    if (!info.found_array) throw InputError(file_.path(), "no `traceEvents` array: not a Kineto / Chrome trace", 0, 0);
    legacy_ = info.array_key.empty();
    builder_.finish();
    resolve_gpu(true);
    return build(info);
  }

 private:
  const InputFile& file_;
  const IngestOptions& options_;
  const EtIndex* et_;
  TraceEventParser parser_;
  SelfTimeBuilder builder_;

  std::vector<Proto> protos_;
  std::unordered_map<std::string, uint32_t> proto_index_;
  std::string key_;
  std::vector<Slot> slots_;
  std::unordered_map<uint64_t, uint32_t> slot_index_;
  std::unordered_map<std::string, uint32_t> threads_;
  std::string thread_key_, last_thread_key_;
  uint32_t last_thread_ = kNone;
  std::vector<StepSpan> steps_;
  std::set<int64_t> step_numbers_;
  bool steps_sorted_ = true;
  std::vector<double> optimizer_step_ends_;
  std::unordered_map<int64_t, LaunchInfo> launches_;
  std::vector<GpuRecord> gpu_;
  std::size_t gpu_limit_ = kMaxBufferedGpu;
  bool legacy_ = false;
  double t0_ = 0;
  bool have_t0_ = false;

  // Statistics for the notes.
  int64_t gpu_events_ = 0, unattributed_kernels_ = 0, kernels_ = 0;
  double first_us_ = std::numeric_limits<double>::infinity(), last_us_ = -std::numeric_limits<double>::infinity();
  int64_t et_name_matches_ = 0, et_name_mismatches_ = 0;

  // -------------------------------------------------------------------------------------
  // Streaming

  EventKind kind_of(const TraceEvent& e) const {
    if (e.ph != 'X') return EventKind::ignore;
    const std::string_view cat = e.cat;
    if (e.name.starts_with("ProfilerStep#") && cat != "gpu_user_annotation") return EventKind::step;
    if (cat == "cpu_op" || cat == "Operator" || cat == "operator") return EventKind::op;
    if (cat == "user_annotation") {
      // Libraries' own record_function ranges that are operations (gloo:all_reduce).
      return classify_name(e.name) == OpKind::collective ? EventKind::op : EventKind::annotation;
    }
    if (cat == "kernel" || cat == "Kernel") return EventKind::kernel;
    if (cat == "gpu_memcpy" || cat == "Memcpy") return EventKind::memcpy;
    if (cat == "gpu_memset" || cat == "Memset") return EventKind::memset;
    if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "Driver")
      return is_launch_name(e.name) && e.correlation >= 0 ? EventKind::launch : EventKind::ignore;
    if (cat.empty()) {
      // The legacy autograd profiler: no categories, the device in the pid.
      if (e.pid == "CPU functions" || e.pid == "CPU Functions") return EventKind::op;
      if (e.pid == "CUDA functions" || e.pid == "CUDA Functions") return EventKind::legacy_gpu;
    }
    return EventKind::ignore;
  }

  uint32_t thread_of(const TraceEvent& e) {
    thread_key_.assign(e.pid);
    thread_key_.push_back('/');
    thread_key_.append(e.tid);
    if (last_thread_ != kNone && thread_key_ == last_thread_key_) return last_thread_;
    auto [it, inserted] = threads_.try_emplace(thread_key_, static_cast<uint32_t>(threads_.size()));
    last_thread_key_ = thread_key_;
    last_thread_ = it->second;
    return it->second;
  }

  uint32_t intern_op(const TraceEvent& e) {
    // The ET lends its record of the call when Kineto's External id is its rf_id and the
    // names agree; the key keeps the two apart until the join is judged at the end.
    int64_t et_proto = -1;
    if (et_ && e.external_id >= 0) {
      if (const EtIndex::Node* n = et_->by_rf_id(e.external_id)) {
        if (et_->name(n->proto) == e.name) {
          ++et_name_matches_;
          et_proto = n->proto;
        } else {
          ++et_name_mismatches_;
        }
      }
    }
    key_.assign(e.name);
    for (std::string_view part : {e.input_dims, e.input_types, e.concrete_inputs, e.input_strides}) {
      key_.push_back('\x1f');
      key_.append(part);
    }
    e.comm.append_key(key_);
    if (et_proto >= 0) key_.append(reinterpret_cast<const char*>(&et_proto), sizeof et_proto);
    auto it = proto_index_.find(key_);
    if (it != proto_index_.end()) return it->second;
    Proto p;
    p.name.assign(e.name);
    p.dims.assign(e.input_dims);
    p.types.assign(e.input_types);
    p.concrete.assign(e.concrete_inputs);
    p.strides.assign(e.input_strides);
    p.comm = e.comm.owned();
    p.name_phase = phase_from_name(p.name);
    p.compute = is_compute_op_name(p.name);
    p.needs_parent = (p.name == "record_param_comms" && p.comm.collective.empty()) || p.name.starts_with("nccl:") ||
                     p.name.starts_with("gloo:");
    p.et_proto = et_proto;
    return add_proto(std::move(p));
  }

  uint32_t intern_gpu(std::string_view name, EventKind kind) {
    key_.assign(kind == EventKind::kernel || kind == EventKind::legacy_gpu ? "\x01k" : "\x01m");
    key_.append(name);
    auto it = proto_index_.find(key_);
    if (it != proto_index_.end()) return it->second;
    Proto p;
    p.name.assign(name);
    p.gpu = true;
    p.gpu_kind = kind;
    p.name_phase = phase_from_name(p.name);
    return add_proto(std::move(p));
  }

  uint32_t add_proto(Proto p) {
    const auto id = static_cast<uint32_t>(protos_.size());
    protos_.push_back(std::move(p));
    proto_index_.emplace(key_, id);
    return id;
  }

  void on_element(const JsonElement& element) {
    // Flows ('s', 'f', 't') and instants ('i') carry nothing fomcast uses; Kineto writes
    // "ph" first, so they are passed over after the scan's structural check, unparsed.
    // So are complete events of categories fomcast ignores (Python frames are often most
    // of a with_stack trace), when "cat" comes second as Kineto writes it.
    const std::string_view t = element.text;
    if (t.size() > 10 && t.starts_with("{\"ph\": \"") && t[9] == '"') {
      if (t[8] == 's' || t[8] == 'f' || t[8] == 't' || t[8] == 'i') return;
      constexpr std::string_view kCat = "{\"ph\": \"X\", \"cat\": \"";
      if (t[8] == 'X' && t.starts_with(kCat)) {
        const std::string_view rest = t.substr(kCat.size());
        for (std::string_view ignored :
             {"python_function\"", "gpu_user_annotation\"", "Trace\"", "overhead\"", "cuda_sync\""})
          if (rest.starts_with(ignored)) return;
      }
    }
    const TraceEvent& e = parser_.parse(element);
    const EventKind kind = kind_of(e);
    if (kind == EventKind::ignore) return;
    // Times relative to the first event: absolute microsecond timestamps with fractions
    // (ns-resolution traces) have more digits than a double keeps, differences do not.
    if (!have_t0_) {
      t0_ = e.ts;
      have_t0_ = true;
    }
    const double ts = e.ts - t0_, end = ts + e.dur;
    first_us_ = std::min(first_us_, ts);
    last_us_ = std::max(last_us_, end);
    switch (kind) {
      case EventKind::op: {
        CpuEvent c{ts, end, intern_op(e), CpuEventType::op, -1};
        builder_.add(thread_of(e), c);
        return;
      }
      case EventKind::step:
      case EventKind::annotation: {
        if (kind == EventKind::step) add_step(e, ts);
        if (contains(e.name, "Optimizer.step#")) optimizer_step_ends_.push_back(end);
        key_.assign(
            "\x01"
            "a");
        key_.append(e.name);
        uint32_t proto;
        if (auto it = proto_index_.find(key_); it != proto_index_.end()) {
          proto = it->second;
        } else {
          Proto p;
          p.name.assign(e.name);
          p.name_phase = phase_from_name(p.name);
          proto = add_proto(std::move(p));
        }
        builder_.add(thread_of(e), CpuEvent{ts, end, proto, CpuEventType::annotation, -1});
        return;
      }
      case EventKind::launch:
        // proto 1 marks a graph launch: all the graph's kernels share its correlation id.
        builder_.add(thread_of(e),
                     CpuEvent{ts, end, contains(e.name, "Graph") ? 1u : 0u, CpuEventType::launch, e.correlation});
        return;
      default: {
        ++gpu_events_;
        GpuRecord g;
        g.start = ts;
        g.dur = e.dur;
        g.correlation = e.correlation;
        g.bytes = e.bytes;
        g.kind = kind;
        g.proto = intern_gpu(e.name, kind);
        gpu_.push_back(g);
        if (gpu_.size() > gpu_limit_) {
          // Too many kernels wait for their launch: walk older CPU events to learn more
          // launches, attribute what can be, and wait for twice as many before trying again.
          builder_.walk_oldest_half();
          resolve_gpu(false);
          gpu_limit_ = std::max(kMaxBufferedGpu, 2 * gpu_.size());
        }
        return;
      }
    }
  }

  void add_step(const TraceEvent& e, double ts) {
    const std::string_view digits = std::string_view(e.name).substr(13);
    int64_t number = 0;
    bool ok = !digits.empty();
    for (char c : digits) {
      if (c < '0' || c > '9' || number > 1'000'000'000'000LL) {
        ok = false;
        break;
      }
      number = number * 10 + (c - '0');
    }
    if (!ok || !step_numbers_.insert(number).second) return;
    steps_.push_back({number, ts, ts + e.dur, e.dur});
    steps_sorted_ = false;
  }

  bool in_step(double t) {
    if (steps_.empty()) return false;
    if (!steps_sorted_) {
      std::sort(steps_.begin(), steps_.end(), [](const StepSpan& a, const StepSpan& b) { return a.start < b.start; });
      steps_sorted_ = true;
    }
    auto it =
        std::upper_bound(steps_.begin(), steps_.end(), t, [](double v, const StepSpan& s) { return v < s.start; });
    if (it == steps_.begin()) return false;
    --it;
    return t < it->end;
  }

  // -------------------------------------------------------------------------------------
  // Nesting (common/self_time.hpp callbacks)

  uint32_t slot_for(uint32_t proto, Phase phase, uint32_t qualifier) {
    const uint64_t key =
        static_cast<uint64_t>(proto) | static_cast<uint64_t>(phase) << 32 | static_cast<uint64_t>(qualifier) << 34;
    auto [it, inserted] = slot_index_.try_emplace(key, static_cast<uint32_t>(slots_.size()));
    if (inserted) {
      Slot s;
      s.proto = proto;
      s.phase = phase;
      s.qualifier = qualifier;
      slots_.push_back(s);
    }
    return it->second;
  }

  SelfTimeCallbacks callbacks() {
    SelfTimeCallbacks cb;
    cb.on_push = [this](Frame& f, const Frame* parent_op, const Frame* parent) {
      const Proto& p = protos_[f.proto];
      Phase phase = p.name_phase;
      if (parent && static_cast<Phase>(parent->scope) != Phase::forward) phase = static_cast<Phase>(parent->scope);
      f.scope = static_cast<uint8_t>(phase);
      if (f.is_op) {
        const uint32_t qualifier = p.needs_parent && parent_op ? parent_op->proto + 1 : 0;
        f.slot = slot_for(f.proto, phase, qualifier);
      }
    };
    cb.on_pop = [this](const Frame& f) {
      Slot& s = slots_[f.slot];
      const double excl = std::max(0.0, (f.end - f.start) - f.child_us);
      const int upto = in_step(f.start) ? 2 : 1;
      for (int i = 0; i < upto; ++i) {
        s.calls[i] += 1;
        s.cpu_us[i] += excl;
        if (f.launched) s.gpu_calls[i] += 1;
      }
      if (f.compute_below) s.wrapper_calls += 1;
    };
    cb.on_launch = [this](const CpuEvent& launch, Frame* op, const Frame* top) {
      LaunchInfo li;
      li.slot = op ? op->slot : kNone;
      li.phase = top ? static_cast<Phase>(top->scope) : Phase::forward;
      li.in_step = in_step(launch.start);
      li.graph = launch.proto == 1;
      if (op) op->launched = true;
      launches_[launch.correlation] = li;
    };
    cb.is_compute = [this](uint32_t proto) { return protos_[proto].compute; };
    return cb;
  }

  // -------------------------------------------------------------------------------------
  // GPU activities -> the op that launched them

  void resolve_gpu(bool final) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < gpu_.size(); ++i) {
      const GpuRecord& g = gpu_[i];
      auto it = g.correlation >= 0 ? launches_.find(g.correlation) : launches_.end();
      if (it == launches_.end() && !final && builder_.buffered() > 0) {
        gpu_[kept++] = g;  // its launch may still be buffered
        continue;
      }
      const LaunchInfo* li = it == launches_.end() ? nullptr : &it->second;
      attribute(g, li);
      if (li && !li->graph && g.kind != EventKind::legacy_gpu) launches_.erase(it);
    }
    gpu_.resize(kept);
  }

  void attribute(const GpuRecord& g, const LaunchInfo* li) {
    const bool kernel = g.kind == EventKind::kernel || g.kind == EventKind::legacy_gpu;
    if (kernel) ++kernels_;
    const int upto = (li ? li->in_step : in_step(g.start)) ? 2 : 1;
    if (kernel && li && li->slot != kNone) {
      Slot& s = slots_[li->slot];
      Proto& gp = protos_[g.proto];
      if (!gp.kernel_direction) gp.kernel_direction = kernel_direction(gp.name);
      for (int i = 0; i < upto; ++i) {
        s.gpu_us[i] += g.dur;
        if (gp.kernel_direction == KernelDirection::backward_data) s.data_us[i] += g.dur;
        if (gp.kernel_direction == KernelDirection::backward_filter) s.filter_us[i] += g.dur;
      }
      return;
    }
    if (kernel) ++unattributed_kernels_;
    const Phase phase = li ? li->phase : protos_[g.proto].name_phase;
    Slot& s = slots_[slot_for(g.proto, phase, 0)];
    for (int i = 0; i < upto; ++i) {
      s.calls[i] += 1;
      s.gpu_calls[i] += 1;
      s.gpu_us[i] += g.dur;
    }
    if (g.bytes > 0) s.bytes += static_cast<double>(g.bytes);
  }

  // -------------------------------------------------------------------------------------
  // Slots -> operations: build() runs the stages below in order.

  Workload build(const JsonStreamInfo& info) {
    Workload w;
    w.origin = et_ ? "kineto+pytorch-et" : "kineto";
    w.events = info.elements;
    const double passes = count_passes(w);
    const bool et_join_ok = judge_et_join(w);
    const ShapedCalls calls = learn_calls(et_join_ok);
    const OpTally tally = aggregate_ops(w, passes, calls);
    add_trace_notes(w, tally, info);
    return w;
  }

  // Passes and the pass time: ProfilerStep spans, else Optimizer.step annotations, else
  // the whole trace as one pass.
  double count_passes(Workload& w) {
    double passes = 1;
    if (!steps_.empty()) {
      in_step(0);  // sorts
      passes = static_cast<double>(steps_.size());
      double sum = 0;
      for (const auto& s : steps_) sum += s.dur;
      w.pass_s = sum / passes * 1e-6;
      w.notes.push_back(std::to_string(steps_.size()) + (steps_.size() == 1 ? " step" : " steps") + " (ProfilerStep#" +
                        std::to_string(steps_.front().number) + " to #" + std::to_string(steps_.back().number) +
                        "): counts are per step and times are measured within the steps; pass time is the mean "
                        "ProfilerStep span");
    } else if (optimizer_step_ends_.size() >= 2 && std::isfinite(first_us_)) {
      std::sort(optimizer_step_ends_.begin(), optimizer_step_ends_.end());
      passes = static_cast<double>(optimizer_step_ends_.size());
      w.pass_s = (optimizer_step_ends_.back() - first_us_) / passes * 1e-6;
      w.notes.push_back("no ProfilerStep markers: the " + std::to_string(optimizer_step_ends_.size()) +
                        " Optimizer.step annotations mark the passes; pass time is the trace span up to the last "
                        "one divided by their number");
    } else {
      if (std::isfinite(first_us_) && last_us_ > first_us_) w.pass_s = (last_us_ - first_us_) * 1e-6;
      w.notes.push_back(
          "no step markers (ProfilerStep#N): the whole trace counts as one pass; pass time is the "
          "trace's span");
    }
    w.passes = static_cast<int64_t>(passes);
    return passes;
  }

  // Whether the execution trace's rf_ids may be trusted: its names agree with Kineto's
  // for at least 90% of the op calls joined by External id.
  bool judge_et_join(Workload& w) const {
    const bool et_join_ok = et_ && et_name_matches_ > 0 && et_name_matches_ >= 9 * et_name_mismatches_;
    if (et_) {
      if (et_join_ok)
        w.notes.push_back("shapes from the execution trace: " + std::to_string(et_name_matches_) +
                          " Kineto op calls joined by External id = rf_id");
      else
        w.notes.push_back("the execution trace's rf_ids do not name the same ops as Kineto's External ids (" +
                          std::to_string(et_name_matches_) + " agree, " + std::to_string(et_name_mismatches_) +
                          " differ): shapes taken from the ET by op name only where it shows one set of inputs");
    }
    return et_join_ok;
  }

  TorchCall call_of(const Proto& p, bool et_join_ok) const {
    if (et_ && p.et_proto >= 0 && et_join_ok) return et_->call(static_cast<uint32_t>(p.et_proto));
    TorchCall c = torch_call_from_kineto(p.name, p.dims, p.types, p.concrete, p.strides);
    if (et_ && p.dims.empty()) {
      // No shapes in Kineto and no trusted rf_id: the ET's record of this op name, when
      // the ET shows it with one set of inputs only.
      if (auto u = et_->unique_shaped_proto(p.name)) return et_->call(*u);
    }
    c.comm = p.comm;
    return c;
  }

  struct ShapedCalls {
    ConvHints hints;
    std::vector<std::optional<TorchCall>> calls;  // per prototype; empty for GPU ones
  };

  // Calls -> shaped calls, once per prototype; convolution geometry first learned from
  // every call that shows input, weight and output together.
  ShapedCalls learn_calls(bool et_join_ok) const {
    ShapedCalls out;
    out.calls.resize(protos_.size());
    for (const auto& s : slots_) {
      const Proto& p = protos_[s.proto];
      if (p.gpu || out.calls[s.proto]) continue;
      out.calls[s.proto] = call_of(p, et_join_ok);
      out.hints.learn(*out.calls[s.proto]);
    }
    return out;
  }

  // What the slots' aggregation tells the notes.
  struct OpTally {
    int64_t no_gpu_calls = 0, wrappers = 0;
    ConvNotes conv_notes;
  };

  // One op (or two: a conv backward's gradients) per slot, folded into distinct
  // operations per pass, largest first.
  OpTally aggregate_ops(Workload& w, double passes, const ShapedCalls& calls) const {
    const bool has_gpu = gpu_events_ > 0;
    const int idx = steps_.empty() ? 0 : 1;
    OpAggregator agg;
    OpTally tally;
    for (const Slot& s : slots_) {
      const Proto& p = protos_[s.proto];
      if (p.gpu) {
        if (s.calls[idx] <= 0) continue;
        Op op;
        op.phase = s.phase;
        if (p.gpu_kind == EventKind::memcpy || p.gpu_kind == EventKind::memset) {
          op.name = p.name;
          op.kind = OpKind::memcpy;
          op.dtype = DType::unknown;
          if (s.bytes > 0) op.bytes = s.bytes / s.calls[0];
        } else {
          op.name = p.gpu_kind == EventKind::legacy_gpu ? p.name : short_kernel_name(p.name);
          op.kind = classify_name(p.name);
          op.dtype = DType::unknown;
        }
        agg.add(op, s.calls[idx], s.gpu_us[idx] * 1e-6);
        continue;
      }
      const double calls_n = has_gpu ? s.gpu_calls[idx] : s.calls[idx];
      if (has_gpu) tally.no_gpu_calls += static_cast<int64_t>(s.calls[idx] - s.gpu_calls[idx]);
      if (calls_n <= 0) continue;
      const double time_us = has_gpu ? s.gpu_us[idx] : s.cpu_us[idx];
      TorchCall call = *calls.calls[s.proto];
      if (p.needs_parent) {
        // The enclosing op says what this one does not: record_param_comms's metadata for
        // nccl:all_gather, c10d::allreduce_'s name for a bare record_param_comms.
        if (s.qualifier > 0) {
          const Proto& parent = protos_[s.qualifier - 1];
          call.parent = parent.name;
          if (call.comm.collective.empty()) call.comm.fill_from(parent.comm);
        }
      }
      const ShapedCall sc = shape_torch_call(call, calls.hints);
      const double data = has_gpu ? s.data_us[idx] * 1e-6 : 0, filter = has_gpu ? s.filter_us[idx] * 1e-6 : 0;
      if (sc.compute && s.wrapper_calls * 2 > s.calls[0]) {
        // It only wraps nested GEMM/conv ops, which carry the work themselves.
        ++tally.wrappers;
        Op op;
        op.name = p.name;
        op.dtype = sc.dtype;
        op.phase = s.phase;
        agg.add(op, calls_n, time_us * 1e-6);
        continue;
      }
      tally.conv_notes.count(sc, time_us * 1e-6, data, filter);
      for (const auto& share : ops_of_call(p.name, sc, s.phase, time_us * 1e-6, data, filter))
        agg.add(share.op, calls_n, share.time_s);
    }
    w.ops = agg.finish(passes);
    // Largest first, so the stored order reads like the trace's top list.
    std::stable_sort(w.ops.begin(), w.ops.end(), [](const Op& a, const Op& b) {
      return a.count * a.self_time_s.value_or(0) > b.count * b.self_time_s.value_or(0);
    });
    return tally;
  }

  // What the trace was and how its times were read; the device and the distributed job
  // where the trace names them.
  void add_trace_notes(Workload& w, const OpTally& tally, const JsonStreamInfo& info) const {
    if (legacy_) w.notes.push_back("legacy autograd-profiler trace (a bare event array): ops have no input shapes");
    if (gpu_events_ > 0) {
      w.notes.push_back("GPU trace: an op's time is the summed duration of the GPU kernels it launched (" +
                        std::to_string(kernels_) +
                        " kernels, joined to the launching runtime call by correlation id "
                        "and to the innermost CPU op around that call); copies and memsets are listed by name");
      if (tally.no_gpu_calls > 0)
        w.notes.push_back(std::to_string(tally.no_gpu_calls) +
                          " CPU op calls launched no GPU work: host time, left to the pass's overhead line");
      if (unattributed_kernels_ > 0)
        w.notes.push_back(std::to_string(unattributed_kernels_) +
                          " kernels had no launching CPU op in the trace and are listed by kernel name");
    } else {
      w.notes.push_back(
          "CPU-only trace: an op's time is its exclusive (self) CPU time, its duration minus the ops "
          "nested in it");
    }
    if (tally.wrappers > 0)
      w.notes.push_back(std::to_string(tally.wrappers) +
                        " GEMM/conv ops that only wrap nested GEMM/conv ops (aten::linear, aten::conv2d, ...) are kept "
                        "as kind 'other' so their work is not counted twice");
    tally.conv_notes.add_to(w.notes);
    if (builder_.partial_walks() > 0 || builder_.stragglers() > 0)
      w.notes.push_back("the trace was walked in " + std::to_string(builder_.partial_walks() + 1) +
                        " windows to bound memory; " + std::to_string(builder_.stragglers()) +
                        " events arrived after their window and were counted without nesting");
    if (auto it = info.captured.find("distributedInfo"); it != info.captured.end()) {
      const auto j = nlohmann::json::parse(it->second, nullptr, false);
      if (j.is_object() && j.contains("rank") && j.contains("world_size") && j["rank"].is_number_integer() &&
          j["world_size"].is_number_integer())
        w.notes.push_back("distributed job: this trace is rank " + std::to_string(j["rank"].get<int64_t>()) + " of " +
                          std::to_string(j["world_size"].get<int64_t>()) +
                          (j.contains("backend") && j["backend"].is_string()
                               ? " (" + j["backend"].get<std::string>() + ")"
                               : std::string()));
    }
    if (auto it = info.captured.find("deviceProperties"); it != info.captured.end()) {
      const auto j = nlohmann::json::parse(it->second, nullptr, false);
      if (j.is_array() && !j.empty() && j[0].is_object() && j[0].contains("name") && j[0]["name"].is_string()) {
        w.device = j[0]["name"].get<std::string>();
        w.notes.push_back("device: " + w.device + " (" + std::to_string(j.size()) + " listed)");
      }
    }
  }
};

Workload read_kineto(const InputFile& file, const IngestOptions& options, const EtIndex* et) {
  KinetoReader r(file, options, et);
  return r.read();
}

int detect_kineto(std::string_view head, std::string_view) {
  const bool events = contains(head, "\"traceEvents\"");
  if (events && (contains(head, "\"cpu_op\"") || contains(head, "\"Operator\"") || contains(head, "ProfilerStep#") ||
                 contains(head, "\"deviceProperties\"") || contains(head, "\"schemaVersion\"") ||
                 contains(head, "\"External id\"") || contains(head, "PyTorch Profiler") ||
                 contains(head, "\"cuda_runtime\"") || contains(head, "\"kernel\"")))
    return 90;
  // The legacy autograd profiler writes a bare array.
  std::size_t i = 0;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  if (i < head.size() && head[i] == '[' && (contains(head, "\"CPU functions\"") || contains(head, "\"CPU Functions\"")))
    return 80;
  if (events && contains(head, "\"ph\"")) return 30;  // some Chrome trace: try it as Kineto
  return 0;
}

Workload read_kineto_alone(const InputFile& file, const IngestOptions& options) {
  return read_kineto(file, options, nullptr);
}

// Kineto + ET of one run: times from Kineto, shapes from the ET (Kineto `External id` =
// ET `rf_id`, checked by name before it is trusted).
Workload read_kineto_with_et(const InputFile& kineto, const InputFile& et_file, const IngestOptions& options) {
  const EtIndex et = EtIndex::read(et_file, options.progress);
  Workload w = read_kineto(kineto, options, &et);
  w.source = kineto.path() + " + " + et_file.path();
  w.events += et.elements();  // events read from both files
  return w;
}

}  // namespace

const FormatReader kKinetoFormat{"kineto", detect_kineto, read_kineto_alone};
const FormatJoin kKinetoEtJoin{"kineto", {"pytorch-et", "chakra-json"}, read_kineto_with_et};

}  // namespace fomcast::ingest
