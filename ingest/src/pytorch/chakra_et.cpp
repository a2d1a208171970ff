// Chakra execution traces in protobuf form (.et, MLCommons' et_def.proto): a varint-
// delimited GlobalMetadata message, then one Node message per operation. CPU nodes carry
// the PyTorch op with its inputs (values, shapes and types as Python-literal strings);
// GPU nodes (attr is_cpu_op false) carry a kernel with its measured duration.
//
// Two generations of converter write it:
//   - chakra_converter (2024 on): one node per op call, ctrl_deps = [the enclosing op],
//     a GPU node's ctrl_deps = [the op that launched it], duration = exclusive time;
//   - pytorch2chakra (2023): top-level ops only, each split into pieces named "op(0)",
//     "op(1)", ... around its kernel launches, ctrl_deps chaining nodes in order, a GPU
//     node's first data dependency = the piece that launched it.
// Either way an op's time is the summed duration of the kernels it launched (ops that
// launched none are host time, left to the pass's overhead line), or, in a trace without
// GPU nodes, its own CPU time. Shapes go through the same rules as the JSON execution
// traces (EtIndex, torch_ops).
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "common/ops.hpp"
#include "common/readers.hpp"
#include "common/steps.hpp"
#include "decode/protobuf_wire.hpp"
#include "fomcast/error.hpp"
#include "pytorch/execution_trace.hpp"

namespace fomcast::ingest {
namespace {

namespace pb = protobuf;

// et_def.proto: Node's fields, NodeType values, AttributeProto's value fields we read.
constexpr uint32_t kNodeId = 1, kNodeName = 2, kNodeType = 3, kCtrlDeps = 4, kDataDeps = 5, kStart = 6, kDuration = 7,
                   kInputs = 8, kOutputs = 9, kAttr = 10;
constexpr uint32_t kSint32Val = 15, kSint64Val = 17, kBoolVal = 27, kStringVal = 29;

struct ChakraNode {
  uint64_t id = 0;
  std::string name;
  uint64_t type = 0;
  std::vector<uint64_t> ctrl_deps, data_deps;
  uint64_t duration_us = 0;
  std::optional<uint64_t> start_us;  // the current converter writes it, the 2023 one does not
  std::string values = "[]", shapes = "[]", types = "[]", output_shapes = "[]";  // JSON texts
  bool cpu = true;
  int64_t rf_id = -1, tid = 0;
  int64_t offset = 0;  // of the message in the file
};

struct Attr {
  std::string_view name;
  bool has_int = false;
  int64_t integer = 0;
  std::string_view text;
};

// Python literals as the converters write them (str() of lists: 'quoted', True, None,
// tuples) -> JSON. Quoted text is re-escaped; bare words other than the literals become
// null rather than invalid JSON.
std::string python_to_json(std::string_view in) {
  std::string out;
  out.reserve(in.size() + 8);
  for (std::size_t i = 0; i < in.size();) {
    const char c = in[i];
    if (c == '\'' || c == '"') {
      out.push_back('"');
      for (++i; i < in.size() && in[i] != c; ++i) {
        char d = in[i];
        if (d == '\\' && i + 1 < in.size()) {
          d = in[++i];
          if (d == 'n')
            d = '\n';
          else if (d == 't')
            d = '\t';
        }
        if (d == '"' || d == '\\') {
          out.push_back('\\');
          out.push_back(d);
        } else if (static_cast<unsigned char>(d) < 0x20) {
          out += ' ';
        } else {
          out.push_back(d);
        }
      }
      out.push_back('"');
      ++i;  // the closing quote (or the end)
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < in.size() && (std::isalnum(static_cast<unsigned char>(in[j])) || in[j] == '_' || in[j] == '.')) ++j;
      const std::string_view word = in.substr(i, j - i);
      out += word == "True" ? "true" : word == "False" ? "false" : "null";
      i = j;
    } else if (c == '-' && in.substr(i, 4) == "-inf") {
      out += "null";
      i += 4;
    } else {
      out.push_back(c == '(' ? '[' : c == ')' ? ']' : c);
      ++i;
    }
  }
  return out;
}

int64_t zigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

Attr read_attr(std::string_view message, const std::string& file, int64_t base) {
  Attr a;
  pb::Reader r(message, file, base);
  pb::Field f;
  while (r.next(f)) {
    if (f.number == 1 && f.wire == pb::Wire::bytes) {
      a.name = f.bytes;
    } else if (f.number == kStringVal && f.wire == pb::Wire::bytes) {
      a.text = f.bytes;
    } else if (f.wire == pb::Wire::varint && f.number >= 7 && f.number <= kBoolVal) {
      a.has_int = true;
      a.integer = f.number == kSint32Val || f.number == kSint64Val ? zigzag(f.value) : static_cast<int64_t>(f.value);
    }
  }
  return a;
}

// IOInfo {values = 1, shapes = 2, types = 3}, each a Python-literal string.
void read_io(const pb::Field& io, const std::string& file, std::string* values, std::string* shapes,
             std::string* types) {
  pb::Reader r(io.bytes, file, io.offset);
  pb::Field f;
  while (r.next(f)) {
    if (f.wire != pb::Wire::bytes) continue;
    std::string* into = f.number == 1 ? values : f.number == 2 ? shapes : f.number == 3 ? types : nullptr;
    if (into) *into = python_to_json(f.bytes);
  }
}

ChakraNode read_node(std::string_view message, const std::string& file, int64_t base) {
  ChakraNode n;
  n.offset = base;
  bool has_id = false;
  pb::Reader r(message, file, base);
  pb::Field f;
  while (r.next(f)) {
    switch (f.number) {
      case kNodeId:
        has_id = f.wire == pb::Wire::varint;
        n.id = f.value;
        break;
      case kNodeName: n.name.assign(f.bytes); break;
      case kNodeType: n.type = f.value; break;
      case kCtrlDeps: pb::append_varints(f, n.ctrl_deps, file); break;
      case kDataDeps: pb::append_varints(f, n.data_deps, file); break;
      case kStart:
        if (f.wire == pb::Wire::varint) n.start_us = f.value;
        break;
      case kDuration: n.duration_us = f.value; break;
      case kInputs: read_io(f, file, &n.values, &n.shapes, &n.types); break;
      case kOutputs: read_io(f, file, nullptr, &n.output_shapes, nullptr); break;
      case kAttr: {
        if (f.wire != pb::Wire::bytes) break;
        const Attr a = read_attr(f.bytes, file, f.offset);
        if (a.name == "is_cpu_op" && a.has_int)
          n.cpu = a.integer != 0;
        else if (a.name == "rf_id" && a.has_int)
          n.rf_id = a.integer;
        else if (a.name == "tid" && a.has_int)
          n.tid = a.integer;
        break;
      }
      default: break;  // fields this reader does not need
    }
  }
  if (!has_id) throw InputError(file, "a Chakra node without an id (not an et_def.proto Node)", 0, base);
  // Start times are microseconds since the epoch: past the year 5000 (1e17 us) a start is
  // corrupt, and near 2^64 it loses its microseconds in the double the spans are taken in.
  if (n.start_us && *n.start_us > 100'000'000'000'000'000ull)
    throw InputError(file,
                     "node " + std::to_string(n.id) + " starts at " + std::to_string(*n.start_us) +
                         " us, past the year 5000: a corrupt start time",
                     0, base);
  // Kernel durations are microseconds as integers: a day is already implausible.
  if (n.duration_us > 86'400'000'000ull)
    throw InputError(file, "node " + std::to_string(n.id) + " lasts " + std::to_string(n.duration_us) + " us", 0, base);
  return n;
}

// GlobalMetadata {version = 1 (string), attr = 2 (AttributeProto)}: its schema, or the
// empty string when the first message is not metadata (a Node has a varint id).
bool read_metadata(std::string_view message, const std::string& file, int64_t base, std::string& schema) {
  pb::Reader r(message, file, base);
  pb::Field f;
  bool any = false;
  while (r.next(f)) {
    if (f.wire != pb::Wire::bytes || (f.number != 1 && f.number != 2)) return false;
    any = true;
    if (f.number == 1 && schema.empty()) schema.assign(f.bytes);
    if (f.number == 2) {
      const Attr a = read_attr(f.bytes, file, f.offset);
      if (a.name == "schema" && !a.text.empty()) schema.assign(a.text);
    }
  }
  return any;
}

// "aten::conv2d(3)" -> "aten::conv2d", 3; a name without a piece number -> -1.
int64_t piece_of(std::string& name) {
  if (name.empty() || name.back() != ')') return -1;
  const auto open = name.rfind('(');
  if (open == std::string::npos || open + 2 >= name.size()) return -1;
  int64_t k = 0;
  for (std::size_t i = open + 1; i + 1 < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i])) || k > 1'000'000) return -1;
    k = k * 10 + (name[i] - '0');
  }
  name.resize(open);
  return k;
}

// One op call: a CPU node, or (split traces) the pieces of one.
struct Call {
  std::size_t node = 0;  // the (first) CPU node
  int64_t parent = -1;   // index into calls, -1 none
  double cpu_us = 0, gpu_us = 0, data_us = 0, filter_us = 0;
  int kernels = 0;
  Phase phase = Phase::forward;
};

int detect_chakra_et(std::string_view head, std::string_view path) {
  try {
    static const std::string kName = "<head>";
    pb::DelimitedStream s(head, kName);
    std::string_view message;
    int64_t offset = 0;
    if (!s.next(message, offset) || message.empty()) return 0;
    std::string schema;
    if (!read_metadata(message, kName, offset, schema)) return 0;
    const bool et_name = path.ends_with(".et");
    // The next message must be a Node (a varint id and a name) when the head holds it.
    if (s.next(message, offset)) {
      const ChakraNode n = read_node(message, kName, offset);
      return n.name.empty() ? 0 : 96;
    }
    return et_name && !schema.empty() ? 90 : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------
// The stages of read_chakra_et, in the order it runs them. Each fills in more of the trace.

struct Orphan {
  double us = 0;
  int count = 0;
  DType dtype = DType::unknown;
};

struct ChakraTrace {
  std::string path;
  std::string schema;
  int64_t messages = 0;
  std::vector<ChakraNode> nodes;
  std::unordered_map<uint64_t, std::size_t> at;  // node id -> index
  bool split = false;                            // written by pytorch2chakra (ops in numbered pieces)
  std::size_t gpu_nodes = 0;
  std::vector<Call> calls;
  std::vector<int64_t> call_of;           // per node: its call, -1 for GPU nodes
  std::vector<int64_t> launcher_of;       // per GPU node: the call that launched it, -1 none
  std::map<std::string, Orphan> orphans;  // short kernel name -> kernels with no launching call
  int64_t steps = 0;                      // ProfilerStep calls (with ops under them, once measured)
  int64_t empty_steps = 0;                // ProfilerStep calls with nothing under them
  StepStats step_stats;
  std::optional<double> pass_s;

  // The call a node id belongs to, -1 when none.
  int64_t cpu_call(uint64_t id) const {
    auto it = at.find(id);
    return it == at.end() ? -1 : call_of[it->second];
  }
};

// The messages: the GlobalMetadata (its schema) and the nodes, with unique ids.
ChakraTrace read_nodes(const InputFile& file, const IngestOptions& options) {
  ChakraTrace t;
  t.path = file.path();
  const std::string& path = t.path;
  const std::string& data = file.bytes();
  pb::DelimitedStream stream(data, path);
  std::string_view message;
  int64_t offset = 0;
  bool first = true;
  while (stream.next(message, offset)) {
    ++t.messages;
    if (first && read_metadata(message, path, offset, t.schema)) {
      first = false;
      continue;
    }
    first = false;
    ChakraNode n = read_node(message, path, offset);
    if (!t.at.emplace(n.id, t.nodes.size()).second)
      throw InputError(path, "node id " + std::to_string(n.id) + " appears twice", 0, offset);
    t.nodes.push_back(std::move(n));
    if (options.progress && t.nodes.size() % 4096 == 0)
      options.progress(static_cast<double>(offset), static_cast<double>(data.size()), "Chakra nodes");
  }
  if (t.nodes.empty()) throw InputError(path, "no Chakra nodes: not a Chakra execution trace", 0, 0);
  return t;
}

// Which converter wrote it: piece-numbered CPU op names mean the 2023 one. Returns each
// node's piece number (names lose their "(k)"), -1 where there is none.
std::vector<int64_t> find_converter(ChakraTrace& t) {
  std::vector<int64_t> piece(t.nodes.size(), -1);
  std::size_t cpu_nodes = 0, pieces = 0;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    if (!t.nodes[i].cpu) {
      ++t.gpu_nodes;
      continue;
    }
    ++cpu_nodes;
    piece[i] = piece_of(t.nodes[i].name);
    if (piece[i] >= 0) ++pieces;
  }
  t.split = pieces * 2 > cpu_nodes;
  return piece;
}

// CPU nodes -> calls (pieces of one op merged: "op(0)" starts a call, "op(k)" joins the
// latest call of that name), each with its enclosing call (current converter: ctrl_deps).
void group_calls(ChakraTrace& t, const std::vector<int64_t>& piece) {
  const auto& nodes = t.nodes;
  t.call_of.assign(nodes.size(), -1);
  std::unordered_map<std::string, std::size_t> open_call;  // name and thread -> latest call
  auto call_key = [&](std::size_t i) { return nodes[i].name + '\x1f' + std::to_string(nodes[i].tid); };
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].cpu) continue;
    if (t.split && piece[i] > 0) {
      if (auto it = open_call.find(call_key(i)); it != open_call.end()) {
        t.call_of[i] = static_cast<int64_t>(it->second);
        t.calls[it->second].cpu_us += static_cast<double>(nodes[i].duration_us);
        continue;
      }
    }
    t.call_of[i] = static_cast<int64_t>(t.calls.size());
    if (t.split) open_call[call_key(i)] = t.calls.size();
    Call c;
    c.node = i;
    c.cpu_us = static_cast<double>(nodes[i].duration_us);
    t.calls.push_back(c);
  }
  if (t.calls.empty()) throw InputError(t.path, "no CPU op nodes: nothing to name the kernels by", 0, 0);
  if (!t.split)
    for (std::size_t i = 0; i < t.calls.size(); ++i) {
      const auto& deps = nodes[t.calls[i].node].ctrl_deps;
      const int64_t p = deps.empty() ? -1 : t.cpu_call(deps.front());
      if (p >= 0 && static_cast<std::size_t>(p) != i) t.calls[i].parent = p;
    }
}

// Kernels to the calls that launched them (their time, and per conv direction); kernels
// no call launched are kept by short kernel name.
void attribute_kernels(ChakraTrace& t) {
  t.launcher_of.assign(t.nodes.size(), -1);
  for (std::size_t ni = 0; ni < t.nodes.size(); ++ni) {
    const ChakraNode& n = t.nodes[ni];
    if (n.cpu) continue;
    int64_t launcher = -1;
    const auto& first_deps = t.split ? n.data_deps : n.ctrl_deps;
    const auto& then_deps = t.split ? n.ctrl_deps : n.data_deps;
    for (const auto* deps : {&first_deps, &then_deps})
      for (uint64_t d : *deps)
        if (launcher < 0) launcher = t.cpu_call(d);
    const auto us = static_cast<double>(n.duration_us);
    if (launcher < 0) {
      auto& o = t.orphans[short_kernel_name(n.name)];
      o.us += us;
      o.count += 1;
      if (o.dtype == DType::unknown) o.dtype = dtype_from_kernel_name(n.name);
      continue;
    }
    t.launcher_of[ni] = launcher;
    Call& c = t.calls[static_cast<std::size_t>(launcher)];
    c.gpu_us += us;
    ++c.kernels;
    const KernelDirection dir = kernel_direction(n.name);
    if (dir == KernelDirection::backward_data) c.data_us += us;
    if (dir == KernelDirection::backward_filter) c.filter_us += us;
  }
}

// Phases: by name, inherited from the enclosing op, and backward for the autograd
// thread (the thread other than the first op's that runs *_backward ops). Steps counted.
void assign_phases(ChakraTrace& t) {
  const auto& nodes = t.nodes;
  const int64_t main_tid = nodes[t.calls.front().node].tid;
  std::set<int64_t> backward_threads;
  for (const auto& c : t.calls) {
    const ChakraNode& n = nodes[c.node];
    if (n.tid != main_tid && phase_from_name(n.name) == Phase::backward) backward_threads.insert(n.tid);
  }
  for (auto& c : t.calls) {  // parents come first: ids grow as ops start
    const ChakraNode& n = nodes[c.node];
    Phase ph = phase_from_name(n.name);
    if (ph == Phase::forward && c.parent >= 0) ph = t.calls[static_cast<std::size_t>(c.parent)].phase;
    if (ph == Phase::forward && backward_threads.count(n.tid)) ph = Phase::backward;
    c.phase = ph;
    if (n.name.starts_with("ProfilerStep#")) ++t.steps;
  }
}

// The pass time, where the trace has steps and start times: each ProfilerStep node's span
// from its start to the end of the last op or kernel under it, the median over the steps.
// A step with no op or kernel under it (the profiler's last, empty step) is not a pass.
void measure_pass(ChakraTrace& t) {
  if (t.steps == 0) return;
  const auto& nodes = t.nodes;
  const auto& calls = t.calls;
  std::vector<int64_t> step_of(calls.size(), -1);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (nodes[calls[i].node].name.starts_with("ProfilerStep#"))
      step_of[i] = static_cast<int64_t>(i);
    else if (calls[i].parent >= 0 && static_cast<std::size_t>(calls[i].parent) < i)
      step_of[i] = step_of[static_cast<std::size_t>(calls[i].parent)];
  }
  std::map<int64_t, uint64_t> step_end;
  bool timed = true;
  auto reach = [&](int64_t step, const ChakraNode& n) {
    if (step < 0) return;
    if (!n.start_us)
      timed = false;
    else
      step_end[step] = std::max(step_end[step], *n.start_us + n.duration_us);
  };
  std::set<int64_t> holding;  // steps with an op or kernel under them
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (step_of[i] >= 0 && step_of[i] != static_cast<int64_t>(i)) holding.insert(step_of[i]);
  for (std::size_t i = 0; i < calls.size(); ++i)
    if (holding.count(step_of[i])) reach(step_of[i], nodes[calls[i].node]);
  for (std::size_t ni = 0; ni < nodes.size(); ++ni)
    if (t.launcher_of[ni] >= 0) reach(step_of[static_cast<std::size_t>(t.launcher_of[ni])], nodes[ni]);
  if (!holding.empty() && static_cast<int64_t>(holding.size()) < t.steps) {
    t.empty_steps = t.steps - static_cast<int64_t>(holding.size());
    t.steps = static_cast<int64_t>(holding.size());
  }
  std::vector<double> spans;
  for (const auto& [step, end] : step_end) {
    if (!holding.count(step)) continue;
    const ChakraNode& n = nodes[calls[static_cast<std::size_t>(step)].node];
    if (!n.start_us || end <= *n.start_us)
      timed = false;
    else
      spans.push_back(static_cast<double>(end - *n.start_us) * 1e-6);
  }
  if (timed && static_cast<int64_t>(spans.size()) == t.steps) {
    t.step_stats = step_stats(spans);
    t.pass_s = t.step_stats.median_s;
  }
}

// The calls that count, as nodes of an ET index (which gives them prototypes and shapes).
struct Counted {
  EtIndex et;
  std::vector<std::size_t> calls;  // the counted calls, in the index's node order
  int64_t host_only = 0;           // calls doing work that launched no kernel
};

// What counts: with kernels, the calls that launched some; without, the innermost calls
// doing work (a wrapper's time is its own host time).
Counted count_calls(const ChakraTrace& t) {
  const auto& nodes = t.nodes;
  const auto& calls = t.calls;
  std::vector<uint8_t> work_below(calls.size(), 0);
  auto does_work = [&](const Call& c) {
    const std::string& name = nodes[c.node].name;
    return !is_et_annotation(name) && !is_free_op_name(name) && !name.starts_with("autograd::engine");
  };
  for (std::size_t i = calls.size(); i-- > 0;)
    if (calls[i].parent >= 0 && (does_work(calls[i]) || work_below[i]))
      work_below[static_cast<std::size_t>(calls[i].parent)] = 1;
  Counted out;
  out.et.set_schema(t.schema);
  out.et.set_elements(t.messages);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    const bool counts = t.gpu_nodes ? c.kernels > 0 : does_work(c) && !work_below[i];
    if (!counts) {
      if (t.gpu_nodes && does_work(c)) ++out.host_only;
      continue;
    }
    const ChakraNode& n = nodes[c.node];
    EtRawNode raw;
    raw.name = n.name;
    raw.values = n.values;
    raw.shapes = n.shapes;
    raw.types = n.types;
    raw.output_shapes = n.output_shapes;
    raw.id = static_cast<int64_t>(n.id);
    raw.rf_id = n.rf_id;
    raw.tid = n.tid;
    out.et.add(raw);
    out.calls.push_back(i);
  }
  if (out.calls.empty() && t.orphans.empty()) throw InputError(t.path, "no op in the trace did any work", 0, 0);
  return out;
}

using ProtoPhase = std::pair<uint32_t, Phase>;
using Identities = std::map<ProtoPhase, std::vector<std::string>>;  // the ops one call becomes

// Counted calls summed per (prototype, phase), shaped by the torch rules; orphan kernels
// by name. Largest first.
std::vector<Op> aggregate_ops(const ChakraTrace& t, const Counted& counted, double passes, ConvNotes& conv_notes,
                              Identities& identities) {
  struct Sum {
    double calls = 0, us = 0, data_us = 0, filter_us = 0;
  };
  const EtIndex& et = counted.et;
  std::map<ProtoPhase, Sum> by_proto;
  for (std::size_t k = 0; k < counted.calls.size(); ++k) {
    const Call& c = t.calls[counted.calls[k]];
    Sum& s = by_proto[{et.nodes()[k].proto, c.phase}];
    s.calls += 1;
    s.us += t.gpu_nodes ? c.gpu_us : c.cpu_us;
    s.data_us += c.data_us;
    s.filter_us += c.filter_us;
  }
  ConvHints hints;
  for (uint32_t p = 0; p < et.protos(); ++p) hints.learn(et.call(p));
  OpAggregator agg;
  for (const auto& [key, s] : by_proto) {
    const TorchCall call = et.call(key.first);
    const ShapedCall sc = shape_torch_call(call, hints);
    conv_notes.count(sc, s.us * 1e-6, s.data_us * 1e-6, s.filter_us * 1e-6);
    for (const auto& share :
         ops_of_call(call.name, sc, key.second, s.us * 1e-6, s.data_us * 1e-6, s.filter_us * 1e-6)) {
      agg.add(share.op, s.calls, share.time_s);
      identities[key].push_back(op_identity(share.op));
    }
  }
  for (const auto& [name, o] : t.orphans) {
    Op op;
    op.name = name;
    op.kind = classify_name(name);
    op.dtype = o.dtype;
    agg.add(op, o.count, o.us * 1e-6);
  }
  std::vector<Op> ops = agg.finish(passes);
  std::stable_sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) {
    return a.count * a.self_time_s.value_or(0) > b.count * b.self_time_s.value_or(0);
  });
  return ops;
}

// The first pass's calls (the calls from the first ProfilerStep holding a counted call to
// the next ProfilerStep, in start order; every call when the trace has no steps).
std::pair<std::size_t, std::size_t> first_pass(const ChakraTrace& t, const Counted& counted) {
  std::vector<std::size_t> step_calls;
  for (std::size_t i = 0; i < t.calls.size(); ++i)
    if (t.nodes[t.calls[i].node].name.starts_with("ProfilerStep#")) step_calls.push_back(i);
  if (step_calls.empty()) return {0, t.calls.size()};
  for (std::size_t s = 0; s < step_calls.size(); ++s) {
    const std::size_t to = s + 1 < step_calls.size() ? step_calls[s + 1] : t.calls.size();
    if (std::any_of(counted.calls.begin(), counted.calls.end(),
                    [&](std::size_t c) { return c > step_calls[s] && c < to; }))
      return {step_calls[s], to};
  }
  return {0, t.calls.size()};
}

// Chakra's data dependencies as the pass's calls (Workload::calls): a call waits for the
// calls that made what its nodes read, its own CPU nodes' data_deps and those of the kernels
// it launched (a dependency on a kernel is one on the call that launched it). A dependency
// on a call that is not an op (host-only, a wrapper) is followed through it to the ops it
// waits for. Dependencies on later nodes cannot be honoured in start order: counted in
// `later`, left out.
std::vector<OpCall> pass_calls(const ChakraTrace& t, const Counted& counted, const Identities& identities,
                               const std::vector<Op>& ops, int64_t& later) {
  const auto& nodes = t.nodes;
  auto owner = [&](std::size_t ni) { return nodes[ni].cpu ? t.call_of[ni] : t.launcher_of[ni]; };
  std::vector<std::vector<std::size_t>> reads(t.calls.size());
  for (std::size_t ni = 0; ni < nodes.size(); ++ni) {
    const int64_t c = owner(ni);
    if (c < 0) continue;
    for (uint64_t d : nodes[ni].data_deps) {
      auto it = t.at.find(d);
      const int64_t p = it == t.at.end() ? -1 : owner(it->second);
      if (p < 0 || p == c) continue;
      if (p > c) {
        ++later;
        continue;
      }
      reads[static_cast<std::size_t>(c)].push_back(static_cast<std::size_t>(p));
    }
  }
  const OpsByIdentity op_at = ops_by_identity(ops);
  std::vector<int64_t> counted_as(t.calls.size(), -1);  // call -> k in counted.calls
  for (std::size_t k = 0; k < counted.calls.size(); ++k) counted_as[counted.calls[k]] = static_cast<int64_t>(k);

  const auto [from, to] = first_pass(t, counted);
  std::vector<OpCall> out;
  // Per call of the pass: the OpCalls a call reading its output waits for (its last op, or,
  // for a call that is no op, what it waits for itself).
  std::vector<std::vector<std::size_t>> frontier(t.calls.size());
  for (std::size_t c = from; c < to; ++c) {
    std::vector<std::size_t> after;
    for (std::size_t p : reads[c])
      if (p >= from) after.insert(after.end(), frontier[p].begin(), frontier[p].end());
    std::sort(after.begin(), after.end());
    after.erase(std::unique(after.begin(), after.end()), after.end());
    std::optional<std::size_t> last;
    if (counted_as[c] >= 0) {
      const uint32_t proto = counted.et.nodes()[static_cast<std::size_t>(counted_as[c])].proto;
      if (auto ids = identities.find({proto, t.calls[c].phase}); ids != identities.end())
        last = append_call_ops(ids->second, op_at, after, out);
    }
    frontier[c] = last ? std::vector<std::size_t>{*last} : std::move(after);
  }
  return out;
}

void add_notes(Workload& w, const ChakraTrace& t, const Counted& counted, const ConvNotes& conv_notes) {
  const std::string schema = t.schema.empty() ? std::string("not given") : t.schema;
  w.notes.push_back("Chakra protobuf execution trace (schema " + schema + ", " + std::to_string(t.nodes.size()) +
                    " nodes, " +
                    (t.split ? "ops split into numbered pieces (pytorch2chakra, 2023)"
                             : "one node per op call, nested by ctrl_deps") +
                    ")");
  if (t.gpu_nodes) {
    w.notes.push_back("an op's time is the summed duration of the " + std::to_string(t.gpu_nodes) +
                      " GPU kernel nodes it launched (joined by " + (t.split ? "data_deps" : "ctrl_deps") + ")");
    if (counted.host_only > 0)
      w.notes.push_back(std::to_string(counted.host_only) +
                        " CPU op calls launched no kernel: host time, left to the pass's overhead line");
  } else {
    w.notes.push_back(
        "no GPU nodes: an op's time is its own CPU duration; wrappers are represented by the ops "
        "inside them");
  }
  if (!t.orphans.empty())
    w.notes.push_back(std::to_string(t.orphans.size()) +
                      " kernel name(s) with no launching CPU op in the trace: listed by kernel name");
  if (t.steps == 0) w.notes.push_back("no ProfilerStep#N nodes: the trace counts as one pass");
  if (t.empty_steps > 0)
    w.notes.push_back(std::to_string(t.empty_steps) + " ProfilerStep node(s) with no ops under them are not passes");
  if (t.pass_s)
    w.notes.push_back(
        "pass time: the span of the ProfilerStep nodes, from each one's start to the end of the last op "
        "or kernel under it, " +
        describe_steps(t.step_stats));
  else if (t.steps > 0)
    w.notes.push_back("no pass time: the steps' nodes carry no start times");
  conv_notes.add_to(w.notes);
}

// ---------------------------------------------------------------------------------------

Workload read_chakra_et(const InputFile& file, const IngestOptions& options) {
  ChakraTrace t = read_nodes(file, options);
  const std::vector<int64_t> piece = find_converter(t);
  group_calls(t, piece);
  attribute_kernels(t);
  assign_phases(t);
  measure_pass(t);
  const Counted counted = count_calls(t);

  Workload w;
  w.origin = "chakra-et";
  w.events = t.messages;
  w.passes = t.steps > 0 ? t.steps : 1;
  w.pass_s = t.pass_s;
  ConvNotes conv_notes;
  Identities identities;
  w.ops = aggregate_ops(t, counted, static_cast<double>(w.passes), conv_notes, identities);
  add_notes(w, t, counted, conv_notes);
  int64_t later = 0;
  w.calls = pass_calls(t, counted, identities, w.ops, later);
  const std::size_t edges = dependency_count(w.calls);
  w.notes.push_back("data dependencies: " + std::to_string(w.calls.size()) + " op calls of " +
                    (t.steps > 0 ? std::string("the first step") : std::string("the trace")) + " with " +
                    std::to_string(edges) +
                    " dependencies between them, from the nodes' data_deps (through calls that are no op)" +
                    (later > 0 ? "; " + std::to_string(later) + " data_deps naming a later node left out" : ""));
  if (options.progress) options.progress(1, 1, "Chakra trace read");
  return w;
}

}  // namespace

const FormatReader kChakraEtFormat{"chakra-et", detect_chakra_et, read_chakra_et};

}  // namespace fomcast::ingest
