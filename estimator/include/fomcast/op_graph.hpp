// A training pass as a DAG of operations (issue 15): compute and communication ops on
// streams, data dependencies between them, and its critical path. The op graph is a
// Boost.Graph adjacency list; the pass time is the longest path through it.
//
// Ops on one stream run one after another in the order they were added (a CUDA stream:
// each op also depends on the op before it on its stream); ops on different streams
// overlap unless a dependency says otherwise. The exposed communication is what the
// communication ops add to the critical path: the path with them minus the path with
// their durations set to zero.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "fomcast/workload.hpp"

namespace fomcast {

struct GraphOp {
  std::string name;
  int stream = 0;     // ops on one stream are serialised in the order added
  bool comm = false;  // a communication op (its time is exposed only where it is on the path)
  double seconds = 0;
};

struct OpGraph {
  std::vector<GraphOp> ops;
  std::vector<std::pair<std::size_t, std::size_t>> deps;  // (before, after)

  std::size_t add(GraphOp op) {
    ops.push_back(std::move(op));
    return ops.size() - 1;
  }
  void depend(std::size_t before, std::size_t after) { deps.emplace_back(before, after); }
};

struct CriticalPath {
  double seconds = 0;             // the longest path: the pass time
  double without_comm_s = 0;      // the same graph with every communication op taking 0
  double exposed_comm_s = 0;      // seconds - without_comm_s
  std::vector<std::size_t> path;  // op indices along the longest path, first to last
  std::vector<double> finish_s;   // each op's earliest finish
};

// Throws std::logic_error when the dependencies make a cycle (a bug of the graph's builder).
CriticalPath critical_path(const OpGraph&);

// A trace's pass as its calls ran (Workload::calls, from an execution trace's tensor data
// dependencies): computation on the compute stream in the recorded order, collectives on the
// communication stream (NCCL's own), each call also after the calls whose outputs it reads.
// `op_seconds[i]` is one call of ops[i]. Empty when the workload has no calls.
OpGraph pass_graph(const Workload&, const std::vector<double>& op_seconds);

}  // namespace fomcast
