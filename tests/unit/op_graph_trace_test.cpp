// The op graph on an execution trace's data dependencies (issue 15): ingest keeps one pass's
// calls with the calls whose outputs each reads (tensor storages), the store keeps them, and
// the graph lets a collective overlap the computation that does not need it.
//
// The trace, by hand: A = mm (4x8 by 8x4) writes storage 10; an all-reduce reads and writes
// 10; B = mm (8x8 by 8x8) reads 3 and 4, writes 11; D = mm reads 10 and 11. Recorded order A,
// all-reduce, B, D. With A 1 s, the all-reduce 3 s, B 2 s, D 1 s:
//   in sequence: 1 + 3 + 2 + 1 = 7 s;
//   by the dependencies: compute stream A [0, 1], B [1, 3]; the all-reduce on the
//   communication stream after A [1, 4]; D after both [4, 5]: 5 s, of which 1 s is exposed
//   communication (without it: A, B, D = 4 s).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fomcast/error.hpp"
#include "fomcast/op_graph.hpp"
#include "fomcast/store.hpp"
#include "test_support.hpp"

namespace fomcast {
namespace {

const char* kEt = R"et({"schema": "1.1.0-chakra.0.0.4", "pid": 1, "time": "x", "start_ts": 0, "finish_ts": 0, "nodes": [
{"id": 1, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1, "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": [{"name": "tid", "type": "uint64", "value": 1}]},
{"id": 2, "name": "ProfilerStep#1", "ctrl_deps": 1, "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": [{"name": "tid", "type": "uint64", "value": 1}]},
{"id": 3, "name": "aten::mm", "ctrl_deps": 2, "inputs": {"values": [[100, 1, 0, 32, 4, "cuda:0"], [101, 2, 0, 32, 4, "cuda:0"]], "shapes": [[4, 8], [8, 4]], "types": ["Tensor(float)", "Tensor(float)"]}, "outputs": {"values": [[102, 10, 0, 16, 4, "cuda:0"]], "shapes": [[4, 4]], "types": ["Tensor(float)"]}, "attrs": [{"name": "tid", "type": "uint64", "value": 1}]},
{"id": 4, "name": "record_param_comms", "ctrl_deps": 2, "inputs": {"values": [[[102, 10, 0, 16, 4, "cuda:0"]], 0, "0", 0, "allreduce", [], []], "shapes": [[[4, 4]], [], [], [], [], [], []], "types": ["GenericList[Tensor(float)]", "Int", "String", "Int", "String", "GenericList[]", "GenericList[]"]}, "outputs": {"values": [[[102, 10, 0, 16, 4, "cuda:0"]]], "shapes": [[[4, 4]]], "types": ["GenericList[Tensor(float)]"]}, "attrs": [{"name": "tid", "type": "uint64", "value": 1}]},
{"id": 5, "name": "nccl:all_reduce", "ctrl_deps": 4, "inputs": {"values": [[[102, 10, 0, 16, 4, "cuda:0"]]], "shapes": [[[4, 4]]], "types": ["GenericList[Tensor(float)]"]}, "outputs": {"values": [[[102, 10, 0, 16, 4, "cuda:0"]]], "shapes": [[[4, 4]]], "types": ["GenericList[Tensor(float)]"]}, "attrs": [{"name": "tid", "type": "uint64", "value": 1}]},
{"id": 6, "name": "aten::mm", "ctrl_deps": 2, "inputs": {"values": [[103, 3, 0, 64, 4, "cuda:0"], [104, 4, 0, 64, 4, "cuda:0"]], "shapes": [[8, 8], [8, 8]], "types": ["Tensor(float)", "Tensor(float)"]}, "outputs": {"values": [[105, 11, 0, 64, 4, "cuda:0"]], "shapes": [[8, 8]], "types": ["Tensor(float)"]}, "attrs": [{"name": "tid", "type": "uint64", "value": 1}]},
{"id": 7, "name": "aten::mm", "ctrl_deps": 2, "inputs": {"values": [[102, 10, 0, 16, 4, "cuda:0"], [105, 11, 0, 64, 4, "cuda:0"]], "shapes": [[4, 4], [4, 16]], "types": ["Tensor(float)", "Tensor(float)"]}, "outputs": {"values": [[106, 12, 0, 64, 4, "cuda:0"]], "shapes": [[4, 16]], "types": ["Tensor(float)"]}, "attrs": [{"name": "tid", "type": "uint64", "value": 1}]}
]}
)et";

}  // namespace

TEST_CASE("op graph from an execution trace's dependencies: the all-reduce overlaps the independent GEMM") {
  test::ScratchDir dir;
  const std::string db = dir.file("t.db");
  const std::string et = dir.write("et.json", kEt);
  const auto r = test::run_fomcast("ingest '" + et + "' --workload t", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const Store store = test::open_seeded(db);
  const auto w = store.workload("t");
  REQUIRE(w);
  REQUIRE(w->calls.size() == 4);
  // Seconds per op, by its shape: A (K=8, N=4) 1 s, B (N=8) 2 s, D (N=16) 1 s, all-reduce 3 s.
  std::vector<double> secs(w->ops.size(), 0);
  for (std::size_t i = 0; i < w->ops.size(); ++i) {
    const Op& op = w->ops[i];
    if (op.kind == OpKind::collective) {
      secs[i] = 3;
    } else {
      const auto& g = std::get<GemmShape>(op.shape);
      secs[i] = g.n == 8 ? 2 : 1;
    }
  }
  // The calls in the recorded order, each waiting for the writers of what it reads.
  CHECK(w->ops[w->calls[1].op].kind == OpKind::collective);
  CHECK(w->calls[1].after == std::vector<std::size_t>{0});
  CHECK(w->calls[2].after.empty());
  CHECK(w->calls[3].after == std::vector<std::size_t>{1, 2});
  const CriticalPath dag = critical_path(pass_graph(*w, secs));
  CHECK(dag.seconds == doctest::Approx(5));
  CHECK(dag.without_comm_s == doctest::Approx(4));
  CHECK(dag.exposed_comm_s == doctest::Approx(1));
  // The same calls in sequence (each after the one before): no overlap, 7 s.
  Workload seq = *w;
  for (std::size_t i = 1; i < seq.calls.size(); ++i) seq.calls[i].after = {i - 1};
  CHECK(critical_path(pass_graph(seq, secs)).seconds == doctest::Approx(7));
}

TEST_CASE("stored calls naming a missing op or a later call are refused") {
  test::ScratchDir dir;
  Store store = test::open_seeded(dir.file("t.db"));
  Workload w;
  w.name = "bad";
  w.origin = "pytorch-et";
  w.ops.resize(1);
  w.calls = {OpCall{0, {}}, OpCall{0, {1}}};
  CHECK_THROWS_AS(store.put_workload(w), InputError);
  w.calls = {OpCall{1, {}}};
  CHECK_THROWS_AS(store.put_workload(w), InputError);
  CHECK_FALSE(store.workload("bad"));
}

}  // namespace fomcast
