// The op graph's critical path (op_graph.hpp) with Boost.Graph: the ops as vertices, data
// dependencies and stream order as edges, a topological sort, then the longest path.
#include "fomcast/op_graph.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/exception.hpp>
#include <boost/graph/topological_sort.hpp>

namespace fomcast {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

Graph build(const OpGraph& g) {
  Graph out(g.ops.size());
  std::map<int, std::size_t> last_on_stream;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    if (auto it = last_on_stream.find(g.ops[i].stream); it != last_on_stream.end()) boost::add_edge(it->second, i, out);
    last_on_stream[g.ops[i].stream] = i;
  }
  for (const auto& [a, b] : g.deps) boost::add_edge(a, b, out);
  return out;
}

// Earliest finish of every op with the durations given; the predecessor on the longest path.
void longest(const Graph& graph, const std::vector<Vertex>& order, const std::vector<double>& dur,
             std::vector<double>& finish, std::vector<std::size_t>& pred) {
  finish.assign(dur.size(), 0);
  pred.assign(dur.size(), dur.size());
  for (const Vertex v : order) {
    double start = 0;
    for (auto [e, end] = boost::in_edges(v, graph); e != end; ++e) {
      const auto u = boost::source(*e, graph);
      if (finish[u] > start || (pred[v] == dur.size() && finish[u] >= start)) start = finish[u], pred[v] = u;
    }
    finish[v] = start + dur[v];
  }
}

}  // namespace

CriticalPath critical_path(const OpGraph& g) {
  CriticalPath out;
  if (g.ops.empty()) return out;
  const Graph graph = build(g);
  std::vector<Vertex> order;
  try {
    boost::topological_sort(graph, std::back_inserter(order));
  } catch (const boost::not_a_dag&) {
    throw std::logic_error("op graph: the dependencies make a cycle");
  }
  std::reverse(order.begin(), order.end());
  std::vector<double> dur(g.ops.size()), no_comm(g.ops.size());
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    dur[i] = g.ops[i].seconds;
    no_comm[i] = g.ops[i].comm ? 0 : g.ops[i].seconds;
  }
  std::vector<std::size_t> pred, pred0;
  std::vector<double> finish0;
  longest(graph, order, dur, out.finish_s, pred);
  longest(graph, order, no_comm, finish0, pred0);
  const auto last = static_cast<std::size_t>(
      std::distance(out.finish_s.begin(), std::max_element(out.finish_s.begin(), out.finish_s.end())));
  out.seconds = out.finish_s[last];
  out.without_comm_s = *std::max_element(finish0.begin(), finish0.end());
  out.exposed_comm_s = std::max(0.0, out.seconds - out.without_comm_s);
  for (std::size_t v = last; v < g.ops.size(); v = pred[v]) out.path.push_back(v);
  std::reverse(out.path.begin(), out.path.end());
  return out;
}

OpGraph pass_graph(const Workload& w, const std::vector<double>& op_seconds) {
  OpGraph g;
  constexpr int kCompute = 0, kComm = 1;
  for (std::size_t i = 0; i < w.calls.size(); ++i) {
    const OpCall& c = w.calls[i];
    if (c.op >= w.ops.size() || c.op >= op_seconds.size())
      throw std::logic_error("op graph: call " + std::to_string(i) + " names no op");
    const Op& op = w.ops[c.op];
    const bool comm = op.kind == OpKind::collective;
    g.add({op.name, comm ? kComm : kCompute, comm, op_seconds[c.op]});
    for (const std::size_t a : c.after)
      if (a < i) g.depend(a, i);
  }
  return g;
}

}  // namespace fomcast
