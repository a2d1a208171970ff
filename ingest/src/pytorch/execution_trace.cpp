// The execution trace model behind formats `pytorch-et` and `chakra-json` (their reader
// files name them), the Chakra protobuf reader and the ET side of the Kineto + ET join.
//
// Alone, an ET gives shapes and counts but no times: every op node that does work and has
// no nested op doing work is counted once (aten::linear is represented by the aten::addmm
// inside it, aten::conv2d by the cudnn/miopen convolution at the bottom of its chain);
// views, allocations and other ops that move no data are left out. Phases come from the
// enclosing autograd / optimizer nodes, passes from ProfilerStep#N nodes when the ET has
// them (else the ET is one pass).
#include "pytorch/execution_trace.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/ops.hpp"
#include "decode/json_fields.hpp"
#include "decode/json_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/text.hpp"
#include "pytorch/trace_event.hpp"

namespace fomcast::ingest {

namespace {

// The top-level elements of a JSON array's text ("[a, [b, c], \"d\"]" -> a, [b, c], "d").
std::vector<std::string_view> split_array(std::string_view raw) {
  std::vector<std::string_view> out;
  std::size_t i = raw.find('[');
  if (i == std::string_view::npos) return out;
  ++i;
  int depth = 0;
  bool in_string = false, escape = false;
  std::size_t start = i;
  for (; i < raw.size(); ++i) {
    const char c = raw[i];
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{')
      ++depth;
    else if ((c == ']' || c == '}') && depth > 0)
      --depth;
    else if ((c == ',' || c == ']') && depth == 0) {
      std::string_view e = raw.substr(start, i - start);
      while (!e.empty() && (e.front() == ' ' || e.front() == '\n')) e.remove_prefix(1);
      while (!e.empty() && (e.back() == ' ' || e.back() == '\n')) e.remove_suffix(1);
      if (!e.empty()) out.push_back(e);
      start = i + 1;
      if (c == ']') break;
    }
  }
  return out;
}

bool is_tensor_type(std::string_view t) { return contains(t, "Tensor"); }

bool is_integer_text(std::string_view t) {
  if (!t.empty() && t.front() == '-') t.remove_prefix(1);
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The storage ids of one tensor value ([id, storage, offset, numel, itemsize, device]) or of
// a list of them (GenericList[Tensor]).
void storages_of(std::string_view value, std::vector<int64_t>& out, int depth = 0) {
  const auto parts = split_array(value);
  if (parts.size() >= 2 && is_integer_text(parts[0]) && is_integer_text(parts[1])) {
    try {
      out.push_back(std::stoll(std::string(parts[1])));
    } catch (const std::exception&) {}
    return;
  }
  if (depth < 4)
    for (auto p : parts)
      if (!p.empty() && p.front() == '[') storages_of(p, out, depth + 1);
}

// The storages of the tensor-typed values of an inputs or outputs list.
std::vector<int64_t> tensor_storages(std::string_view values, std::string_view types) {
  std::vector<int64_t> out;
  const auto v = split_array(values);
  const auto t = split_array(types);
  for (std::size_t i = 0; i < v.size() && i < t.size(); ++i)
    if (is_tensor_type(t[i])) storages_of(v[i], out);
  return out;
}

bool is_annotation(std::string_view n) { return is_et_annotation(n); }

using RawNode = EtRawNode;

class NodeParser {
 public:
  explicit NodeParser(std::string file) : r_(std::move(file), "nodes", "node") {}

  const RawNode& parse(const JsonElement& e) {
    n_ = RawNode{};
    bool has_id = false;
    // A key the reader decodes, given twice in one node: JSON keeps one of the two, and which
    // is not known (the Kineto reader refuses the same).
    uint32_t seen = 0;
    auto once = [&](uint32_t bit, const char* field) {
      if (seen & bit) r_.fail(field, "`" + std::string(field) + "` given twice in one node");
      seen |= bit;
    };
    for (auto result : r_.parse(e)) {
      od::field f = r_.field(std::move(result), "");
      const char* k = f.key().raw();
      od::value v = f.value();
      if (key_is(k, "name"))
        once(1, "name"), n_.name = r_.string_of(v, "name");
      else if (key_is(k, "id"))
        once(2, "id"), n_.id = r_.integer_of(v, "id"), has_id = true;
      else if (key_is(k, "parent"))
        once(4, "parent"), n_.parent = r_.integer_of(v, "parent");
      else if (key_is(k, "ctrl_deps"))
        once(4096, "ctrl_deps"), n_.parent = r_.integer_of(v, "ctrl_deps");
      else if (key_is(k, "rf_id"))
        once(8, "rf_id"), n_.rf_id = r_.integer_of(v, "rf_id");
      else if (key_is(k, "tid"))
        once(16, "tid"), n_.tid = r_.integer_of(v, "tid");
      else if (key_is(k, "inputs"))
        once(32, "inputs"), inputs(v);
      else if (key_is(k, "input_shapes"))
        once(64, "input_shapes"), n_.shapes = r_.array_text(v, "input_shapes");
      else if (key_is(k, "input_types"))
        once(128, "input_types"), n_.types = r_.array_text(v, "input_types");
      else if (key_is(k, "outputs"))
        once(256, "outputs"), outputs(v);
      else if (key_is(k, "output_shapes"))
        once(512, "output_shapes"), n_.output_shapes = r_.array_text(v, "output_shapes");
      else if (key_is(k, "output_types"))
        once(1024, "output_types"), n_.output_types = r_.array_text(v, "output_types");
      else if (key_is(k, "attrs"))
        once(2048, "attrs"), attrs(v);
    }
    if (!has_id) r_.fail("id", "node without an `id`");
    // Every writer gives both: a node without a name cannot be matched to an op, and one
    // without a parent would count as an op of its own what its parent's time already holds.
    if (!(seen & 1)) r_.fail("name", "node without a `name`");
    if (!(seen & (4 | 4096))) r_.fail("parent", "node without a `parent` (or `ctrl_deps`)");
    if (n_.id < 0) r_.fail("id", "a negative id (" + std::to_string(n_.id) + ")");
    // The sizes Kineto's `Input Dims` must have: a size of 1e9 made a 96-day add.
    for (const auto& [text, field] : {std::pair{std::string_view(n_.shapes), "input_shapes"},
                                      std::pair{std::string_view(n_.output_shapes), "output_shapes"}})
      if (const std::string why = dims_problem(text); !why.empty()) r_.fail(field, why);
    return n_;
  }

 private:
  FieldReader r_;
  RawNode n_;

  od::object object_of(od::value v, std::string_view field) const {
    od::object o;
    if (v.get_object().get(o)) r_.fail(field, "`" + std::string(field) + "` is not an object");
    return o;
  }
  void inputs(od::value v) {
    if (r_.type_of(v, "inputs") == od::json_type::array) {  // 1.0.1: the values; shapes and types beside
      n_.values = r_.array_text(v, "inputs");
      return;
    }
    for (auto result : object_of(v, "inputs")) {
      od::field f = r_.field(std::move(result), "inputs");
      const char* k = f.key().raw();
      od::value x = f.value();
      if (key_is(k, "values"))
        n_.values = r_.array_text(x, "inputs.values");
      else if (key_is(k, "shapes"))
        n_.shapes = r_.array_text(x, "inputs.shapes");
      else if (key_is(k, "types"))
        n_.types = r_.array_text(x, "inputs.types");
    }
  }
  void outputs(od::value v) {
    if (r_.type_of(v, "outputs") == od::json_type::array) {  // 1.0.1: the values; shapes and types beside
      n_.output_values = r_.array_text(v, "outputs");
      return;
    }
    if (r_.type_of(v, "outputs") != od::json_type::object) return;
    for (auto result : object_of(v, "outputs")) {
      od::field f = r_.field(std::move(result), "outputs");
      const char* k = f.key().raw();
      if (key_is(k, "shapes"))
        n_.output_shapes = r_.array_text(f.value(), "outputs.shapes");
      else if (key_is(k, "values"))
        n_.output_values = r_.array_text(f.value(), "outputs.values");
      else if (key_is(k, "types"))
        n_.output_types = r_.array_text(f.value(), "outputs.types");
    }
  }
  void attrs(od::value v) {
    od::array a;
    if (v.get_array().get(a)) r_.fail("attrs", "`attrs` is not an array");
    for (auto entry : a) {
      od::object o;
      if (entry.get_object().get(o)) r_.fail("attrs", "an `attrs` entry is not an object");
      std::string_view name;
      for (auto result : o) {
        od::field f = r_.field(std::move(result), "attrs");
        const char* k = f.key().raw();
        od::value x = f.value();
        if (key_is(k, "name")) {
          name = r_.string_of(x, "attrs.name");
        } else if (key_is(k, "value")) {
          // The schema's counts and ids are unsigned: -1 had read as "no rf_id" and dropped the
          // node's join to its Kineto event, or a negative message size, without a word.
          auto count = [&](const char* field) {
            const int64_t n = r_.integer_of(x, field);
            if (n < 0) r_.fail(field, "a negative value (" + std::to_string(n) + ") where the schema's is unsigned");
            return n;
          };
          // "name" comes first in every ET writer; a value before it is skipped.
          if (name == "rf_id")
            n_.rf_id = count("attrs.rf_id");
          else if (name == "tid")
            n_.tid = r_.integer_of(x, "attrs.tid");
          else if (name == "collective_name")
            n_.comm.collective = r_.string_of(x, "attrs.collective_name");
          else if (name == "dtype")
            n_.comm.dtype = r_.string_of(x, "attrs.dtype");
          else if (name == "in_msg_nelems")
            n_.comm.in_nelems = count("attrs.in_msg_nelems");
          else if (name == "out_msg_nelems")
            n_.comm.out_nelems = count("attrs.out_msg_nelems");
          else if (name == "pg_size")
            n_.comm.group_size = count("attrs.pg_size");
        }
      }
    }
  }
};

}  // namespace

bool is_et_annotation(std::string_view n) {
  return n.starts_with("[") || n.starts_with("##") || n.starts_with("ProfilerStep#") || n.starts_with("Optimizer.") ||
         n.starts_with("<");
}

void EtIndex::add(const EtRawNode& n) {
  // The prototype: name and recorded inputs, with tensor values (ids and storage offsets,
  // different for every call) left out.
  const auto types = split_array(n.types);
  const auto values = split_array(n.values);
  std::string kept_values = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) kept_values += ',';
    const bool tensor = i < types.size() ? is_tensor_type(types[i]) : values[i].find('[') != std::string_view::npos;
    kept_values += tensor ? std::string_view("null") : values[i];
  }
  kept_values += ']';
  key_.assign(n.name);
  for (std::string_view part :
       {std::string_view(n.shapes), std::string_view(n.types), std::string_view(kept_values), n.output_shapes}) {
    key_.push_back('\x1f');
    key_.append(part);
  }
  n.comm.append_key(key_);
  auto [it, inserted] = proto_index_.try_emplace(key_, static_cast<uint32_t>(protos_.size()));
  if (inserted) {
    Proto p;
    p.name.assign(n.name);
    p.shapes.assign(n.shapes);
    p.types.assign(n.types);
    p.values = std::move(kept_values);
    p.output_shapes.assign(n.output_shapes);
    p.comm = n.comm.owned();
    protos_.push_back(std::move(p));
  }
  Node node;
  node.id = n.id;
  node.parent = n.parent;
  node.rf_id = n.rf_id;
  node.tid = n.tid;
  node.proto = it->second;
  node.reads = tensor_storages(n.values, n.types);
  node.writes = tensor_storages(n.output_values, n.output_types);
  if (n.rf_id >= 0 && !is_annotation(n.name)) by_rf_.emplace(n.rf_id, nodes_.size());
  nodes_.push_back(node);
}

std::string EtIndex::graph_problem(std::size_t& at) const {
  std::unordered_map<int64_t, std::size_t> index;
  index.reserve(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (auto [it, fresh] = index.emplace(nodes_[i].id, i); !fresh) {
      at = i;
      return "id " + std::to_string(nodes_[i].id) + " given twice (also node " + std::to_string(it->second) + ")";
    }
  // The root names itself as its parent, or none (a negative parent); a second such node
  // would make its subtree's ops count beside the ops they call.
  std::optional<std::size_t> root;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.parent == n.id || n.parent < 0) {
      if (root) {
        at = i;
        return "node id " + std::to_string(n.id) + " has no parent but itself, a second root (node id " +
               std::to_string(nodes_[*root].id) + " is the trace's)";
      }
      root = i;
      continue;
    }
    at = i;
    if (!index.contains(n.parent))
      return "parent " + std::to_string(n.parent) + " of node id " + std::to_string(n.id) + " is no node of the trace";
    if (n.parent > n.id)
      return "parent " + std::to_string(n.parent) + " of node id " + std::to_string(n.id) +
             " is a later node (a parent starts before its children: a cycle or a corrupt id)";
  }
  return "";
}

EtIndex EtIndex::read(const InputFile& file, const ProgressFn& progress) {
  EtIndex index;
  NodeParser parser(file.path());
  JsonStreamSpec spec;
  spec.array_keys = {"nodes"};
  spec.capture_keys = {"schema"};
  std::vector<int64_t> offsets;  // each node's byte offset, for an error about the tree
  const JsonStreamInfo info = stream_json_array(
      file, spec,
      [&](const JsonElement& e) {
        index.add(parser.parse(e));
        offsets.push_back(e.offset);
      },
      progress);
  if (!info.found_array) throw InputError(file.path(), "no `nodes` array: not a PyTorch execution trace", 0, 0);
  std::size_t at = 0;
  if (const std::string why = index.graph_problem(at); !why.empty())
    throw InputError(file.path(), why, line_at_offset(file, offsets[at]), offsets[at],
                     "nodes[" + std::to_string(at) + "]");
  if (auto it = info.captured.find("schema"); it != info.captured.end()) {
    index.schema_ = it->second;
    std::string& s = index.schema_;
    if (s.size() >= 2 && s.front() == '"') s = s.substr(1, s.size() - 2);
  }
  index.elements_ = info.elements;
  return index;
}

namespace {

// record_param_comms's own arguments, in PyTorch's orders: (tensors..., seq, pg, rank, name,
// in_splits, out_splits) until 2.0; later (..., name, in_nelems, out_nelems, dtype, in_splits,
// out_splits, [global rank start, stride,] world_size). The collective's name is its one
// String; the Int just before it is this rank; an Int after it, last, is the world size.
// Where none follows (the older order), a non-empty split list has one entry per rank of
// the group, and its sum is the message's elements.
void fill_comm_from_args(TorchCall& c) {
  std::size_t name_at = c.args.size();
  for (std::size_t i = 0; i < c.args.size(); ++i)
    if (c.args[i].type == "String" && c.args[i].value.is_string()) {
      name_at = i;
      break;
    }
  if (name_at == c.args.size()) return;
  if (c.comm.collective.empty()) c.comm.collective = c.args[name_at].value.get<std::string>();
  if (name_at > 0 && c.args[name_at - 1].type == "Int" && c.args[name_at - 1].value.is_number_integer())
    c.comm.rank = c.args[name_at - 1].value.get<int64_t>();
  const TorchArg& last = c.args.back();
  if (c.comm.group_size < 0 && c.args.size() - 1 > name_at && last.type == "Int" && last.value.is_number_integer()) {
    c.comm.group_size = last.value.get<int64_t>();
    return;
  }
  // The older order: in_splits and out_splits right after the name.
  auto split_sum = [&](std::size_t i, int64_t& nelems) {
    if (i >= c.args.size() || !c.args[i].value.is_array() || c.args[i].value.empty()) return;
    int64_t sum = 0;
    for (const auto& v : c.args[i].value)
      if (v.is_number_integer()) sum += v.get<int64_t>();
    if (c.comm.group_size < 0) c.comm.group_size = static_cast<int64_t>(c.args[i].value.size());
    if (nelems < 0) nelems = sum;
  };
  split_sum(name_at + 1, c.comm.in_nelems);
  split_sum(name_at + 2, c.comm.out_nelems);
}

}  // namespace

TorchCall EtIndex::call(uint32_t proto) const {
  using nlohmann::json;
  const Proto& p = protos_[proto];
  TorchCall c;
  c.name = p.name;
  const json shapes = json::parse(p.shapes.empty() ? "[]" : p.shapes, nullptr, false);
  const json types = json::parse(p.types.empty() ? "[]" : p.types, nullptr, false);
  const json values = json::parse(p.values.empty() ? "[]" : p.values, nullptr, false);
  const json outs = json::parse(p.output_shapes.empty() ? "[]" : p.output_shapes, nullptr, false);
  std::size_t n = 0;
  for (const json* j : {&shapes, &types, &values})
    if (j->is_array()) n = std::max(n, j->size());
  c.args.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    TorchArg& a = c.args[i];
    if (types.is_array() && i < types.size() && types[i].is_string()) a.type = types[i].get<std::string>();
    const bool tensor = is_tensor_type(a.type);
    if (shapes.is_array() && i < shapes.size() && shapes[i].is_array() && tensor) {
      const json& s = shapes[i];
      a.has_dims = true;
      if (std::all_of(s.begin(), s.end(), [](const json& e) { return e.is_number_integer(); })) {
        for (const auto& e : s) a.dims.push_back(e.get<int64_t>());
      } else {
        a.is_list = true;
        std::function<void(const json&)> collect = [&](const json& j) {
          if (!j.is_array()) return;
          if (std::all_of(j.begin(), j.end(), [](const json& e) { return e.is_number_integer(); })) {
            Dims d;
            for (const auto& e : j) d.push_back(e.get<int64_t>());
            a.list.push_back(std::move(d));
            return;
          }
          for (const auto& e : j) collect(e);
        };
        collect(s);
      }
    }
    if (values.is_array() && i < values.size() && !tensor) a.value = values[i];
  }
  if (outs.is_array()) {
    for (const auto& o : outs) {
      if (o.is_array() && std::all_of(o.begin(), o.end(), [](const json& e) { return e.is_number_integer(); }))
        c.outputs.push_back(o.get<Dims>());
      else
        c.outputs.emplace_back();
    }
  }
  c.comm = p.comm;
  if (c.name == "record_param_comms") fill_comm_from_args(c);
  return c;
}

std::optional<int64_t> EtIndex::rank() const {
  std::optional<int64_t> found;
  for (uint32_t i = 0; i < protos_.size(); ++i) {
    if (protos_[i].name != "record_param_comms") continue;
    const int64_t r = call(i).comm.rank;
    if (r < 0) continue;
    if (found && *found != r) return std::nullopt;
    found = r;
  }
  return found;
}

const EtIndex::Node* EtIndex::by_rf_id(int64_t rf_id) const {
  auto it = by_rf_.find(rf_id);
  return it == by_rf_.end() ? nullptr : &nodes_[it->second];
}

std::optional<uint32_t> EtIndex::unique_shaped_proto(const std::string& name) const {
  std::optional<uint32_t> found;
  for (uint32_t i = 0; i < protos_.size(); ++i) {
    const Proto& p = protos_[i];
    if (p.name != name || p.shapes.empty() || p.shapes == "[]") continue;
    if (found) return std::nullopt;
    found = i;
  }
  return found;
}

bool is_et_json_head(std::string_view head) { return contains(head, "\"schema\"") && contains(head, "\"nodes\""); }

namespace {

// The calls of the first pass in execution order (node ids grow as ops start), each waiting
// for the last earlier call that wrote a storage it reads: the ET's data dependencies. The
// first pass: the nodes under the first ProfilerStep, and those of other threads (the
// autograd thread, which has no step nodes) that started between it and the next step.
template <class Key>
std::vector<OpCall> first_pass_calls(const std::vector<EtIndex::Node>& nodes,
                                     const std::vector<std::pair<std::size_t, Key>>& counted,
                                     const std::map<Key, std::vector<std::string>>& identities,
                                     const std::vector<Op>& ops, const std::map<int64_t, int64_t>& steps,
                                     const std::map<int64_t, int64_t>& step_node_id, const std::vector<int64_t>& step,
                                     const std::unordered_set<int64_t>* pass_rf_ids) {
  const OpsByIdentity op_at = ops_by_identity(ops);
  int64_t first = -1, lo = INT64_MIN, hi = INT64_MAX;
  if (!steps.empty()) {
    first = steps.begin()->first;
    if (auto it = step_node_id.find(first); it != step_node_id.end()) lo = it->second;
    if (auto next = step_node_id.upper_bound(first); next != step_node_id.end()) hi = next->second;
  }
  std::vector<std::pair<std::size_t, const Key*>> in_pass;
  for (const auto& [i, key] : counted) {
    const bool ours = pass_rf_ids
                          ? pass_rf_ids->contains(nodes[i].rf_id)
                          : steps.empty() || step[i] == first || (step[i] < 0 && nodes[i].id > lo && nodes[i].id < hi);
    if (ours) in_pass.emplace_back(i, &key);
  }
  std::sort(in_pass.begin(), in_pass.end(),
            [&](const auto& a, const auto& b) { return nodes[a.first].id < nodes[b.first].id; });
  std::vector<OpCall> calls;
  std::unordered_map<int64_t, std::size_t> writer;  // storage -> the last call that wrote it
  for (const auto& [i, key] : in_pass) {
    auto ids = identities.find(*key);
    if (ids == identities.end()) continue;
    std::vector<std::size_t> after;
    for (int64_t s : nodes[i].reads)
      if (auto w = writer.find(s); w != writer.end() && std::find(after.begin(), after.end(), w->second) == after.end())
        after.push_back(w->second);
    std::sort(after.begin(), after.end());
    if (const auto last = append_call_ops(ids->second, op_at, after, calls))
      for (int64_t s : nodes[i].writes) writer[s] = *last;
  }
  return calls;
}

}  // namespace

Workload read_execution_trace(const InputFile& file, const IngestOptions& options, std::string_view format) {
  const EtIndex et = EtIndex::read(file, options.progress);
  return execution_trace_workload(et, format);
}

Workload execution_trace_workload(const EtIndex& et, std::string_view format,
                                  const std::unordered_set<int64_t>* pass_rf_ids) {
  const auto& nodes = et.nodes();
  // Parents first (ids grow as ops start, so a parent's id is smaller than its children's).
  std::vector<std::size_t> order(nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return nodes[a].id < nodes[b].id; });
  std::unordered_map<int64_t, std::size_t> at;
  at.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) at.emplace(nodes[i].id, i);
  auto parent_of = [&](std::size_t i) -> std::optional<std::size_t> {
    auto it = at.find(nodes[i].parent);
    if (it == at.end() || it->second == i) return std::nullopt;
    return it->second;
  };
  // Per node: does work; is a collective / a GEMM-conv op; has such ops nested below.
  std::vector<uint8_t> work(nodes.size(), 0), work_below(nodes.size(), 0), collective(nodes.size(), 0),
      collective_below(nodes.size(), 0), compute(nodes.size(), 0), compute_below(nodes.size(), 0);
  std::vector<Phase> phase(nodes.size(), Phase::forward);
  std::vector<int64_t> step(nodes.size(), -1);
  std::map<int64_t, int64_t> steps;  // ProfilerStep number -> op nodes counted under it
  int64_t optimizer_steps = 0;
  std::set<int64_t> step_threads;           // threads whose nodes sit under ProfilerStep nodes
  std::map<int64_t, int64_t> step_node_id;  // ProfilerStep number -> its node's id
  for (std::size_t i : order) {
    const std::string& name = et.name(nodes[i].proto);
    work[i] = !is_annotation(name) && !is_free_op_name(name) && !name.starts_with("autograd::engine") ? 1 : 0;
    collective[i] = work[i] && classify_name(name) == OpKind::collective;
    compute[i] = work[i] && is_compute_op_name(name);
    Phase ph = phase_from_name(name);
    int64_t st = -1;
    if (auto p = parent_of(i)) {
      if (phase[*p] != Phase::forward) ph = phase[*p];
      st = step[*p];
    }
    if (name.starts_with("ProfilerStep#")) {
      try {
        st = std::stoll(name.substr(13));
        steps.try_emplace(st, 0);
        step_node_id.try_emplace(st, nodes[i].id);
        step_threads.insert(nodes[i].tid);
      } catch (const std::exception&) {}
    }
    if (name.starts_with("Optimizer.step#")) ++optimizer_steps;
    phase[i] = ph;
    step[i] = st;
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const auto p = parent_of(*it);
    if (!p) continue;
    if (work[*it] || work_below[*it]) work_below[*p] = 1;
    if (collective[*it] || collective_below[*it]) collective_below[*p] = 1;
    if (compute[*it] || compute_below[*it]) compute_below[*p] = 1;
  }

  // Count leaves of work per (prototype, phase); a collective without metadata borrows its
  // parent's (nccl:all_gather under record_param_comms).
  using CallKey = std::tuple<uint32_t, Phase, int64_t>;
  std::map<CallKey, double> counts;
  std::vector<std::pair<std::size_t, CallKey>> counted;  // node, its key
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    // A collective is the innermost collective of its chain (c10d::allgather_ >
    // record_param_comms > nccl:all_gather), a GEMM/conv the innermost of its (conv2d >
    // convolution > _convolution > cudnn_convolution), even when copies run nested in them.
    const bool nested = collective[i] ? collective_below[i] : compute[i] ? compute_below[i] : work_below[i];
    if (!work[i] || nested) continue;
    // Outside the steps on the stepping thread: set-up, not a pass. Other threads (the
    // autograd thread) have no step nodes; the ET was recorded over the steps, so all of
    // their work belongs to them.
    if (!steps.empty() && step[i] < 0 && step_threads.count(nodes[i].tid)) continue;
    int64_t qualifier = -1;
    const std::string& name = et.name(nodes[i].proto);
    if (name.starts_with("nccl:") || name.starts_with("gloo:"))
      if (auto p = parent_of(i)) qualifier = nodes[*p].proto;
    counts[{nodes[i].proto, phase[i], qualifier}] += 1;
    counted.emplace_back(i, CallKey{nodes[i].proto, phase[i], qualifier});
    if (step[i] >= 0) ++steps[step[i]];
  }
  // A ProfilerStep with no op in it (the profiler's last, empty step) is not a pass.
  std::vector<int64_t> empty_steps;
  for (const auto& [number, n] : steps)
    if (n == 0) empty_steps.push_back(number);
  if (empty_steps.size() < steps.size())
    for (int64_t number : empty_steps) steps.erase(number);
  else
    empty_steps.clear();  // none holds an op: keep them all rather than none
  ConvHints hints;
  for (uint32_t p = 0; p < et.protos(); ++p) hints.learn(et.call(p));
  OpAggregator agg;
  ConvNotes conv_notes;
  std::map<CallKey, std::vector<std::string>> identities;  // the ops one call becomes
  for (const auto& [key, n] : counts) {
    const auto& [proto, ph, qualifier] = key;
    TorchCall call = et.call(proto);
    if (qualifier >= 0) call.comm.fill_from(et.call(static_cast<uint32_t>(qualifier)).comm);
    const ShapedCall sc = shape_torch_call(call, hints);
    conv_notes.count(sc);
    for (const auto& share : ops_of_call(call.name, sc, ph, std::nullopt)) {
      agg.add(share.op, n, std::nullopt);
      identities[key].push_back(op_identity(share.op));
    }
  }
  Workload w;
  w.origin = std::string(format);
  w.events = et.elements();
  // No ProfilerStep nodes but several optimizer steps: each is a pass.
  const bool by_optimizer = steps.empty() && optimizer_steps >= 2;
  w.passes = !steps.empty() ? static_cast<int64_t>(steps.size()) : by_optimizer ? optimizer_steps : 1;
  w.ops = agg.finish(static_cast<double>(w.passes));
  std::stable_sort(w.ops.begin(), w.ops.end(),
                   [](const Op& a, const Op& b) { return a.count * a.flops > b.count * b.flops; });
  if (!by_optimizer || pass_rf_ids)
    w.calls = first_pass_calls(nodes, counted, identities, w.ops, steps, step_node_id, step, pass_rf_ids);
  w.notes.push_back("execution trace (schema " + et.schema() + "): shapes and counts, no times (self_time_s empty)");
  // The readers follow PyTorch's 1.x schemas (1.0.1 to 1.1.x, with or without Chakra's
  // suffix); a later major version may mean its fields differently, and that is said.
  if (!et.schema().empty() && !et.schema().starts_with("1."))
    w.notes.push_back("schema '" + et.schema() +
                      "' is not one this reader was built on (1.0.1 to 1.1.x): read by their fields' meanings");
  if (by_optimizer)
    w.notes.push_back("no ProfilerStep#N nodes: its " + std::to_string(optimizer_steps) +
                      " Optimizer.step nodes make as many passes; counts are per pass");
  else if (steps.empty())
    w.notes.push_back("no ProfilerStep#N nodes: the trace counts as one pass");
  else
    w.notes.push_back(std::to_string(steps.size()) + (steps.size() == 1 ? " step" : " steps") + " (ProfilerStep#" +
                      std::to_string(steps.begin()->first) + " to #" + std::to_string(steps.rbegin()->first) +
                      "): counts are per step");
  if (!empty_steps.empty()) {
    std::string which;
    for (std::size_t k = 0; k < empty_steps.size() && k < 5; ++k)
      which += (k ? ", #" : "#") + std::to_string(empty_steps[k]);
    if (empty_steps.size() > 5) which += ", ...";
    w.notes.push_back(std::to_string(empty_steps.size()) + " ProfilerStep node(s) with no ops in them (" + which +
                      ") are not passes");
  }
  w.notes.push_back(
      "counted: op nodes doing work with no nested op doing work (wrappers such as aten::linear are "
      "represented by the op inside them); views and allocations left out");
  conv_notes.add_to(w.notes);
  return w;
}

}  // namespace fomcast::ingest
