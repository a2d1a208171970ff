// Chakra protobuf execution traces (.et): the shared trace written by the 2023 converter
// (a ResNet-50 training step on GPUs, ops split into pieces), a trace in the current
// converter's layout encoded here field by field from et_def.proto, and bad input.
#include <doctest/doctest.h>

#include <fstream>
#include <map>

#include "fomcast/error.hpp"
#include "fomcast/ingest.hpp"
#include "fomcast/op_graph.hpp"
#include "ingest_text_support.hpp"
#include "protobuf_encode.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ingest_one;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
namespace pb = fomcast::test::pb;

namespace {

const std::string kSharedEt = "traces/chakra/chakra_feeder_tests_chakra.0.et";

using pb::delimited;
using pb::varint;

std::string attr_int(const std::string& name, int64_t v) {
  return pb::bytes(10, pb::bytes(1, name) + pb::num(9, static_cast<uint64_t>(v)));
}
std::string attr_bool(const std::string& name, bool v) { return pb::bytes(10, pb::bytes(1, name) + pb::num(27, v)); }

// One Node: id, name, ctrl_deps, duration, CPU or GPU, and inputs as Python literals (as
// the converter writes them).
std::string node(uint64_t id, const std::string& name, const std::vector<uint64_t>& ctrl_deps, uint64_t duration_us,
                 bool cpu = true, const std::string& values = "", const std::string& shapes = "",
                 const std::string& types = "", uint64_t start_us = 0) {
  std::string m = pb::num(1, id) + pb::bytes(2, name) + pb::num(3, 4);
  for (uint64_t d : ctrl_deps) m += pb::num(4, d);
  if (start_us) m += pb::num(6, start_us);
  m += pb::num(7, duration_us);
  if (!shapes.empty()) m += pb::bytes(8, pb::bytes(1, values) + pb::bytes(2, shapes) + pb::bytes(3, types));
  m += attr_bool("is_cpu_op", cpu) + attr_int("tid", 1);
  return delimited(m);
}

std::string metadata(const std::string& schema) {
  return delimited(pb::bytes(2, pb::bytes(1, "schema") + pb::bytes(29, schema)));
}

// Two ProfilerStep nodes, each holding aten::linear > aten::addmm (one GEMM kernel) and
// aten::relu (one kernel) and a view that launches nothing, as chakra_converter nests them;
// with start times (microseconds) where `timed`: each step spans 101 us, from its start to
// the end of its view.
std::string current_layout_trace(bool timed = false) {
  std::string t = metadata("1.1.0-chakra.0.0.4");
  const std::string addmm_values =
      "[[1, 2, 0, 64, 4, 'cuda:0'], [3, 4, 0, 4096, 4, 'cuda:0'], [5, 6, 0, 8192, 4, 'cuda:0'], 1, 1]";
  const std::string addmm_shapes = "[[64], [32, 128], [128, 64], [], []]";
  const std::string addmm_types = "['Tensor(float)', 'Tensor(float)', 'Tensor(float)', 'Int', 'Int']";
  for (uint64_t step = 0; step < 2; ++step) {
    const uint64_t b = 100 * (step + 1);
    auto at = [&](uint64_t us) { return timed ? 1000 * (step + 1) + us : 0; };
    t += node(b, "ProfilerStep#" + std::to_string(step + 1), {}, 5, true, "", "", "", at(0));  // exclusive time
    t += node(b + 1, "aten::linear", {b}, 3, true, "", "", "", at(10));
    t += node(b + 2, "aten::addmm", {b + 1}, 6, true, addmm_values, addmm_shapes, addmm_types, at(20));
    t += node(b + 3, "ampere_sgemm_32x32_sliced1x4_tn", {b + 2}, 40 + step * 20, false, "", "", "", at(30));
    t += node(b + 4, "aten::relu", {b}, 4, true, "[[7, 8, 0, 2048, 4, 'cuda:0']]", "[[32, 64]]", "['Tensor(float)']",
              at(80 + step * 10));
    t += node(
        b + 5,
        "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar>",
        {b + 4}, 5, false, "", "", "", at(90 + step * 2));
    t += node(b + 6, "aten::view", {b}, 1, true, "[[7, 8, 0, 2048, 4, 'cuda:0'], [-1]]", "[[32, 64], [[1]]]",
              "['Tensor(float)', 'GenericList[Int]']", at(100));
  }
  return t;
}

std::string write(const ScratchDir& dir, const std::string& name, const std::string& bytes) {
  std::string p = dir.file(name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

double op_time_sum_s(const Workload& w) {
  double s = 0;
  for (const auto& op : w.ops) s += test::per_pass_s(op);
  return s;
}

}  // namespace

TEST_CASE("chakra-et: the shared 2023 trace is a ResNet-50 step with its kernels' times and conv shapes") {
  const std::string p = shared_path(kSharedEt);
  CHECK(detect_format(p) == "chakra-et");
  const Workload w = ingest_one(p);
  CHECK(w.origin == "chakra-et");
  CHECK(w.passes == 1);
  CHECK(w.events == 3665);  // messages: GlobalMetadata and 3,664 nodes (MANIFEST: 3,665 msgs)
  // Every GPU node's duration reaches an op: 329,543 us in all (the sum of duration_micros
  // over the 1,216 nodes with is_cpu_op false, read with a separate decoder).
  CHECK(op_time_sum_s(w) == doctest::Approx(0.329543).epsilon(1e-9));
  // ResNet-50: 53 convolutions (49 in the bottlenecks, 4 downsample projections) forward and
  // weight gradient; the first has no data gradient. Shapes with stride and padding.
  std::map<ConvDirection, double> convs;
  bool saw_stem = false;
  for (const auto& op : w.ops) {
    if (op.kind != OpKind::conv) continue;
    const auto& c = std::get<ConvShape>(op.shape);
    convs[c.direction] += op.count;
    if (c.c == 3 && c.k == 64 && c.filter == std::array<int64_t, 3>{1, 7, 7}) {
      saw_stem = true;
      CHECK(c.stride == std::array<int64_t, 3>{1, 2, 2});
      CHECK(c.pad == std::array<int64_t, 3>{0, 3, 3});
      CHECK(c.n == 32);
      CHECK(c.input == std::array<int64_t, 3>{1, 224, 224});
    }
    CHECK(op.self_time_s.has_value());
  }
  CHECK(saw_stem);
  CHECK(convs[ConvDirection::forward] == 53);
  CHECK(convs[ConvDirection::backward_filter] == 53);
  CHECK(convs[ConvDirection::backward_data] == 52);
  CHECK(test::total_count(w, OpKind::normalization) == 106);  // 53 batch norms, forward and backward
  // The data-parallel gradient all-reduces: five NCCL kernels under c10d::allreduce_.
  CHECK(test::total_count(w, OpKind::collective) >= 5);
  double allreduce_bytes = 0;
  for (const auto& op : w.ops)
    if (op.kind == OpKind::collective && op.phase == Phase::backward) allreduce_bytes += op.count * op.bytes;
  CHECK(allreduce_bytes > 90e6);  // ResNet-50's 25.6 M fp32 gradients: 102 MB
  CHECK(allreduce_bytes < 110e6);
}

TEST_CASE("chakra-et: the shared trace's data_deps are the pass's calls, and the op graph overlaps its all-reduces") {
  // Counted with a separate decoder (a Python reading of et_def.proto): the 2023 converter's
  // CPU pieces merged into calls, each kernel given to the call of its first data dep; the
  // 951 op calls that launched kernels (a convolution backward with both gradients is two
  // ops, one after the other) and 17,778 dependencies between them, from the pieces' and
  // their kernels' data_deps, followed through the calls that launched nothing. 7 of the
  // calls are collectives (2 broadcasts, 5 gradient all-reduces).
  const Workload w = ingest_one(shared_path(kSharedEt));
  REQUIRE(w.calls.size() == 951);
  std::size_t edges = 0, collectives = 0;
  std::vector<double> secs(w.ops.size(), 1);  // every computation 1 s, every collective 100 s
  for (std::size_t i = 0; i < w.calls.size(); ++i) {
    edges += w.calls[i].after.size();
    for (std::size_t a : w.calls[i].after) CHECK(a < i);
    if (w.ops[w.calls[i].op].kind == OpKind::collective) ++collectives;
  }
  for (std::size_t i = 0; i < w.ops.size(); ++i)
    if (w.ops[i].kind == OpKind::collective) secs[i] = 100;
  CHECK(edges == 17778);
  CHECK(collectives == 7);
  // In sequence: 944 x 1 + 7 x 100 = 1,644 s. By the dependencies, with the computation on
  // one stream and the collectives on another: 1,444 s (the same separate reading's longest
  // path), the all-reduces partly hidden under the backward computations that do not read them.
  const CriticalPath dag = critical_path(pass_graph(w, secs));
  CHECK(dag.seconds == doctest::Approx(1444));
  CHECK(dag.without_comm_s == doctest::Approx(944));
  Workload seq = w;
  for (std::size_t i = 1; i < seq.calls.size(); ++i) seq.calls[i].after = {i - 1};
  CHECK(critical_path(pass_graph(seq, secs)).seconds == doctest::Approx(1644));
}

TEST_CASE("chakra-et: the current converter's layout (nested ops, kernels under their launcher, steps)") {
  ScratchDir dir;
  const std::string p = write(dir, "step.et", current_layout_trace());
  CHECK(detect_format(p) == "chakra-et");
  const Workload w = ingest_one(p);
  CHECK(w.passes == 2);
  const Op& gemm = test::op_named(w, "aten::addmm");
  CHECK(gemm.kind == OpKind::gemm);
  CHECK(std::get<GemmShape>(gemm.shape) == GemmShape{32, 64, 128});
  CHECK(gemm.count == 1);                              // one call per step
  CHECK(*gemm.self_time_s == doctest::Approx(50e-6));  // kernels of 40 and 60 us
  const Op& relu = test::op_named(w, "aten::relu");
  CHECK(relu.kind == OpKind::elementwise);
  CHECK(*relu.self_time_s == doctest::Approx(5e-6));
  CHECK(w.ops.size() == 2);  // the wrapper aten::linear, the view and the steps launch no kernel
  bool noted = false;
  for (const auto& n : w.notes) noted = noted || n.find("launched no kernel") != std::string::npos;
  CHECK(noted);
  CHECK(!w.pass_s);  // no start times: no span to measure

  // With start times each step spans 101 us: its pass time, which calibrates estimates.
  const std::string timed = write(dir, "timed.et", current_layout_trace(true));
  const Workload t = ingest_one(timed);
  REQUIRE(t.pass_s);
  CHECK(*t.pass_s == doctest::Approx(101e-6));
  CHECK(op_time_sum_s(t) == doctest::Approx(50e-6 + 5e-6));
}

TEST_CASE("chakra-et: bad input names the file and byte offset and stores nothing") {
  ScratchDir dir;
  const std::string good = current_layout_trace();
  const std::string whole = test::slurp(shared_path(kSharedEt));
  struct Case {
    std::string name, bytes, message;
  };
  const std::vector<Case> cases = {
      {"cut.et", whole.substr(0, 1'000'000), "truncated protobuf"},
      {"cut-short.et", good.substr(0, good.size() - 3), "truncated protobuf"},
      {"huge-length.et", metadata("1.0.1") + varint(uint64_t{1} << 40), "truncated protobuf stream"},
      {"group.et", metadata("1.0.1") + delimited(pb::num(1, 5) + varint((2u << 3) | 3)), "wire type 3"},
      {"no-id.et", metadata("1.0.1") + delimited(pb::bytes(2, "aten::mm")), "without an id"},
      {"twice.et", metadata("1.0.1") + node(1, "aten::mm", {}, 1) + node(1, "aten::mm", {}, 1), "appears twice"},
      {"metadata-only.et", metadata("1.0.1"), "no Chakra nodes"},
      {"long-varint.et", metadata("1.0.1") + std::string(12, '\xff'), "longer than ten bytes"},
      // A start near 2^64 us: corrupt, and its microseconds lost in the double spans use.
      {"far-start.et", metadata("1.0.1") + node(1, "aten::mm", {}, 1, true, "", "", "", 18446744073709521616ull),
       "past the year 5000"},
  };
  const std::string db = dir.file("f.db");
  REQUIRE(test::run_fomcast("platforms", db).status == 0);
  const std::string before = test::file_fingerprint(db);
  for (const auto& c : cases) {
    const std::string p = write(dir, c.name, c.bytes);
    const auto r = test::run_fomcast("ingest '" + p + "' --workload bad --format chakra-et", db);
    CHECK_MESSAGE(r.status == 2, c.name);
    CHECK_MESSAGE(r.err.find(p + ": byte ") != std::string::npos, c.name << ": " << r.err);
    CHECK_MESSAGE(r.err.find(c.message) != std::string::npos, c.name << ": " << r.err);
    CHECK(test::file_fingerprint(db) == before);
  }
  // Named .et but not Chakra: auto-detection says what it expected.
  const std::string junk = write(dir, "junk.et", std::string("\x01\x02\x03 not protobuf at all\0", 24));
  const auto r = test::run_fomcast("ingest '" + junk + "' --workload bad", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("--format chakra-et") != std::string::npos, r.err);
  CHECK(test::file_fingerprint(db) == before);
}
