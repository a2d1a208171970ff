// PyTorch execution traces (ET) as JSON: schema 1.0.1 (flat `inputs`, `input_shapes`,
// `input_types`, `parent`) and 1.0.2 / 1.1.0-chakra.0.0.4 (nested `inputs{values, shapes,
// types}`, `ctrl_deps`, `attrs[]`). An ET records every op of one iteration with its
// inputs and outputs, but no times.
//
// EtIndex reads one (streaming its `nodes`) and keeps, per distinct call (name and
// recorded inputs), a prototype, and per node its parent and prototype: enough to count
// ops alone (read_execution_trace) or to lend shapes to a Kineto trace of the same run,
// where Kineto's `External id` is the ET's `rf_id`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/input.hpp"
#include "fomcast/ingest.hpp"
#include "pytorch/torch_ops.hpp"

namespace fomcast::ingest {

// One node as a reader saw it (views into the reader's buffer), before it joins a
// prototype: the JSON readers here, the Chakra protobuf reader (pytorch/chakra_et.cpp).
struct EtRawNode {
  std::string_view name, values, shapes, types, output_shapes;  // JSON array texts
  std::string_view output_values, output_types;                 // JSON array texts
  CommMetaView comm;
  int64_t id = -1, parent = -1, rf_id = -1, tid = 0;
};

// ET nodes that are annotations or bookkeeping ("[pytorch|profiler|...]", "##...",
// ProfilerStep#N, Optimizer.*), not ops.
bool is_et_annotation(std::string_view name);

class EtIndex {
 public:
  static EtIndex read(const InputFile&, const ProgressFn& progress);
  // Building one node at a time (readers of other encodings of the same nodes).
  void add(const EtRawNode&);
  void set_schema(std::string schema) { schema_ = std::move(schema); }
  void set_elements(int64_t n) { elements_ = n; }

  struct Node {
    int64_t id = 0, parent = -1, rf_id = -1, tid = 0;
    uint32_t proto = 0;
    // The storages of its tensor inputs and outputs (the second of a tensor value's
    // [id, storage, offset, numel, itemsize, device]): who reads what another wrote.
    std::vector<int64_t> reads, writes;
  };
  const std::string& schema() const { return schema_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  int64_t elements() const { return elements_; }
  std::size_t protos() const { return protos_.size(); }

  const std::string& name(uint32_t proto) const { return protos_[proto].name; }
  TorchCall call(uint32_t proto) const;
  // The node whose rf_id is the given Kineto External id.
  const Node* by_rf_id(int64_t rf_id) const;
  // The rank of the process that recorded it, where its record_param_comms calls say
  // (every one the same); nullopt when none does or they disagree.
  std::optional<int64_t> rank() const;
  // What is wrong with the nodes as a tree, or "" when nothing is: an id given twice, a
  // parent that is no node, or one that is not an earlier node (ids grow as ops start; the
  // root names itself). `at` is the node's index in nodes(). A cycle or a dangling parent
  // made ops vanish or count twice.
  std::string graph_problem(std::size_t& at) const;
  // The one prototype carrying shapes that every node of this name has, if unique.
  std::optional<uint32_t> unique_shaped_proto(const std::string& name) const;

 private:
  struct Proto {
    std::string name, shapes, types, values, output_shapes;
    CommMeta comm;
  };
  std::string schema_;
  std::vector<Proto> protos_;
  std::unordered_map<std::string, uint32_t> proto_index_;
  std::vector<Node> nodes_;
  std::unordered_map<int64_t, std::size_t> by_rf_;
  int64_t elements_ = 0;
  std::string key_;  // scratch for add()
};

// An ET read alone (formats pytorch-et and chakra-json; `format` is the origin): every
// op node doing work with no nested op doing work counted once; shapes and counts, no times.
Workload read_execution_trace(const InputFile&, const IngestOptions&, std::string_view format);
// The same from an ET already read (a Kineto + ET join takes its calls' dependencies).
// `pass_rf_ids`, when given, are the rf_ids of the calls that make the first pass (the
// Kineto trace knew its passes from annotations the ET does not have).
Workload execution_trace_workload(const EtIndex&, std::string_view format,
                                  const std::unordered_set<int64_t>* pass_rf_ids = nullptr);
// Whether a file's head looks like an ET in JSON: a "schema" and a "nodes" key.
bool is_et_json_head(std::string_view head);

}  // namespace fomcast::ingest
