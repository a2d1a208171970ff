// Execution traces (alone, and joined with the Kineto trace of the same run), the Chakra
// JSON flavour and TF1 timelines, on the shared files. Expected numbers were read from
// the files with python3 (json.load), as each comment says.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>

#include "fomcast/error.hpp"
#include "fomcast/ingest.hpp"
#include "test_support.hpp"
#include "workload_queries.hpp"

using namespace fomcast;
using fomcast::test::shared_path;

namespace {

Workload ingest(const std::vector<std::string>& rels) { return test::ingest_shared(rels); }
double count_of(const Workload& w, const std::string& name, const std::function<bool(const Op&)>& pred = {}) {
  return test::total(w, name, pred).calls;
}
using test::find_all;
using test::has_note;
bool gemm(const Op& op, int64_t m, int64_t n, int64_t k) { return test::is_gemm(op, m, n, k); }

}  // namespace

TEST_CASE("pytorch-et alone: shapes and counts, no times") {
  // PARAM torch.add benchmark, schema 1.0.1: two aten::add nodes (warmup and measure) with
  // input_shapes [[256, 256], [256, 256], []].
  const Workload add = ingest({"pytorch_et/hta_benchmark_simple_add_et.json.gz"});
  CHECK(add.origin == "pytorch-et");
  CHECK(add.events == 38);  // len(nodes)
  CHECK(add.passes == 1);
  CHECK(!add.pass_s);
  const auto adds = find_all(add, "aten::add");
  REQUIRE(adds.size() == 1);
  CHECK(adds[0]->count == 2);
  CHECK(!adds[0]->self_time_s);
  CHECK(std::get<TensorShape>(adds[0]->shape).inputs == std::vector<std::vector<int64_t>>{{256, 256}, {256, 256}});
  CHECK(has_note(add, "no times"));

  // Stacked Linear training, 1.0.1: 21 aten::addmm [[1024], [512, 1024], [1024, 1024]]
  // (each inside an aten::linear, which is not counted again); 41 aten::mm under
  // AddmmBackward0, 21 of [[1024, 512], [512, 1024]] and 20 of [[512, 1024], [1024, 1024]].
  const Workload lin = ingest({"pytorch_et/param_linear_et.json.gz"});
  CHECK(count_of(lin, "aten::addmm", [](const Op& op) { return gemm(op, 512, 1024, 1024); }) == 21);
  CHECK(find_all(lin, "aten::linear").empty());
  CHECK(count_of(lin, "aten::mm",
                 [](const Op& op) { return gemm(op, 1024, 1024, 512) && op.phase == Phase::backward; }) == 21);
  CHECK(count_of(lin, "aten::mm",
                 [](const Op& op) { return gemm(op, 512, 1024, 1024) && op.phase == Phase::backward; }) == 20);
  // Views (aten::t, aten::transpose, aten::as_strided) move no data: left out.
  CHECK(find_all(lin, "aten::t").empty());

  // ResNet, schema 1.1.0-chakra.0.0.4 with ProfilerStep#6..#8 nodes: 159 cudnn_convolution
  // nodes = 53 per step; the first one's values give padding [3, 3] and stride [2, 2].
  const Workload rn = ingest({"pytorch_et/param_resnet_et_1.1.0-chakra.0.0.4.json.gz"});
  CHECK(rn.passes == 3);
  CHECK(count_of(rn, "aten::cudnn_convolution") == doctest::Approx(53));
  const auto first = find_all(rn, "aten::cudnn_convolution", [](const Op& op) {
    const auto* c = std::get_if<ConvShape>(&op.shape);
    return c && c->c == 3;
  });
  REQUIRE(first.size() == 1);
  const auto& c = std::get<ConvShape>(first[0]->shape);
  CHECK(c.n == 32);
  CHECK(c.input[2] == 224);
  CHECK(c.k == 64);
  CHECK(c.stride[2] == 2);
  CHECK(c.pad[2] == 3);
  // 159 aten::convolution_backward = 53 per step, each a filter gradient; their
  // output_mask is [true, true, false] but for the first conv's 3 nodes, [false, true,
  // false] (no gradient for the input image): 52 data gradients per step.
  CHECK(count_of(rn, "aten::convolution_backward", [](const Op& op) {
          return std::get<ConvShape>(op.shape).direction == ConvDirection::backward_data;
        }) == doctest::Approx(52));
  CHECK(count_of(rn, "aten::convolution_backward", [](const Op& op) {
          return std::get<ConvShape>(op.shape).direction == ConvDirection::backward_filter;
        }) == doctest::Approx(53));
  // The fully connected layer: addmm [[1000], [32, 2048], [2048, 1000]], once per step.
  CHECK(count_of(rn, "aten::addmm", [](const Op& op) { return gemm(op, 32, 1000, 2048); }) == doctest::Approx(1));
}

TEST_CASE("chakra-json: the 2-rank all_gather trace") {
  // schema 1.0.2-chakra.0.0.4; 10 nccl:all_gather nodes, each inside a record_param_comms
  // whose values name "all_gather" and world size 2; the tensor is one float (4 bytes).
  const Workload w = ingest({"chakra/chakra_1.0.2-chakra.0.0.4_allgather_et.json"});
  CHECK(w.origin == "chakra-json");
  CHECK(w.events == 263);
  const auto ag = find_all(w, "nccl:all_gather");
  REQUIRE(ag.size() == 1);
  CHECK(ag[0]->count == 10);
  const auto& s = std::get<CollectiveShape>(ag[0]->shape);
  CHECK(s.op == CollectiveKind::allgather);
  CHECK(s.bytes == 4);
  CHECK(s.ranks == 2);
}

TEST_CASE("ET + Kineto of one run: shapes from the ET, times from Kineto") {
  // simple_add: ET rf_id = Kineto External id, names agree. Kineto alone has no shapes;
  // joined, aten::add carries [256, 256]. The trace is PARAM's benchmark: a warm-up
  // iteration, then a measured one (`[param|torch.add|0|0|0|measure|forward]`, 6.25 ms), so
  // the pass is the measured iteration: one add, its kernel 3 us.
  const Workload w =
      ingest({"pytorch_et/hta_benchmark_simple_add_et.json.gz", "pytorch_et/hta_benchmark_simple_add_trace.json.gz"});
  CHECK(w.origin == "kineto");  // a contract format name; the note says the ET was joined
  CHECK(has_note(w, "shapes from the execution trace: 28 Kineto op calls joined by External id = rf_id"));
  CHECK(has_note(w, "`measure` annotations mark 1 measured iteration"));
  CHECK(w.passes == 1);
  CHECK(*w.pass_s == doctest::Approx(6.247e-3).epsilon(1e-3));
  const auto adds = find_all(w, "aten::add");
  REQUIRE(adds.size() == 1);
  CHECK(std::get<TensorShape>(adds[0]->shape).inputs == std::vector<std::vector<int64_t>>{{256, 256}, {256, 256}});
  CHECK(adds[0]->count == 1);
  CHECK(adds[0]->count * *adds[0]->self_time_s == doctest::Approx(3e-6));
  CHECK(find_all(w, "aten::uniform_").empty());  // the inputs were made before the measured iteration
  // The ET's dependencies carried onto the joined ops are those of the measured iteration:
  // its one add (rf_id of node 58), whose inputs the uniform_ calls wrote before the pass.
  REQUIRE(w.calls.size() == 1);
  CHECK(w.ops[w.calls[0].op].name == "aten::add");
  CHECK(w.calls[0].after.empty());
  CHECK(has_note(w, "1 of its 1 op calls in the first pass are ops here"));

  // The ET alone has no iteration labels: one pass, every call, and the data dependencies
  // by hand from its nodes: uniform_ (id 8) writes storage 7, uniform_ (13) writes 12,
  // fill_ (22), copy_ (32), add (36) reads 7 and 12, fill_ (45), copy_ (55), add (58) reads
  // 7 and 12: each add waits for both uniform_ calls.
  const Workload et = ingest({"pytorch_et/hta_benchmark_simple_add_et.json.gz"});
  REQUIRE(et.calls.size() == 8);
  CHECK(et.ops[et.calls[0].op].name == "aten::uniform_");
  CHECK(et.ops[et.calls[1].op].name == "aten::uniform_");
  CHECK(et.calls[0].after.empty());
  CHECK(et.calls[1].after.empty());
  for (std::size_t i : {4, 7}) {
    CHECK(et.ops[et.calls[i].op].name == "aten::add");
    CHECK(et.calls[i].after == std::vector<std::size_t>{0, 1});
  }
  // The order of the two files does not matter.
  const Workload r =
      ingest({"pytorch_et/hta_benchmark_simple_add_trace.json.gz", "pytorch_et/hta_benchmark_simple_add_et.json.gz"});
  CHECK(r.ops.size() == w.ops.size());

  // param linear: the ET's rf_ids count from 0 and do not name Kineto's ops (checked, and
  // said); shapes then come by op name where the ET has one set of inputs (aten::addmm).
  // Their ids agree once the shift is allowed for: the same run, joined.
  // No ProfilerStep: the 40 Optimizer.step#SGD.step annotations mark 39 steps, each from one
  // annotation's start to the next (median 24477 us); Kineto has 819 addmm calls starting
  // in them with 107585 us of kernels = 21 calls, 2758.59 us per pass.
  const Workload lin = ingest({"pytorch_et/param_linear_et.json.gz", "pytorch_et/param_linear_kineto.json.gz"});
  CHECK(lin.passes == 39);
  CHECK(*lin.pass_s == doctest::Approx(0.024477));
  CHECK(has_note(lin, "Kineto's External ids are not the execution trace's rf_ids one for one"));
  CHECK(has_note(lin, "94% of the execution trace's 926 op ids agree with the Kineto trace's"));
  const auto addmm = find_all(lin, "aten::addmm", [](const Op& op) { return gemm(op, 512, 1024, 1024); });
  REQUIRE(addmm.size() == 1);
  CHECK(addmm[0]->count == doctest::Approx(21));
  CHECK(addmm[0]->count * *addmm[0]->self_time_s == doctest::Approx(2758.59e-6));
}

TEST_CASE("tf-timeline: CPU and GPU step timelines") {
  // One 2000x5000 . 5000x1000 MatMul on CPU: its event lasts 504781 us; the step's events
  // span 782329 us.
  const Workload cpu = ingest({"tensorflow/tf1_timeline/ikhlestov_CPU_timeline_01.json"});
  CHECK(cpu.origin == "tf-timeline");
  CHECK(cpu.passes == 1);
  CHECK(*cpu.pass_s == doctest::Approx(0.782329));
  const auto mm = find_all(cpu, "MatMul (MatMul)");
  REQUIRE(mm.size() == 1);
  CHECK(mm[0]->kind == OpKind::gemm);
  CHECK(*mm[0]->self_time_s == doctest::Approx(0.504781));
  // The executor's _SOURCE node (18 us here; 1.17 ms, 59% of the op time, atop a small MNIST
  // step's MatMuls elsewhere) is no op: its time stays in the pass span.
  for (const auto& op : cpu.ops) CHECK(op.name.rfind("_SOURCE", 0) != 0);
  CHECK(has_note(cpu, "the executor's _SOURCE and _SINK nodes (18 us) are not ops"));

  // MLP training step on GPU: op times come from "/gpu:0/stream:all Compute" (pid 5); the
  // layer_1 MatMul's kernels there last 86 us.
  const Workload gpu = ingest({"tensorflow/tf1_timeline/ikhlestov_GPU_timeline_02_step_0.json"});
  const auto l1 = find_all(gpu, "layer_1/fully_connected/MatMul (MatMul)");
  REQUIRE(l1.size() == 1);
  CHECK(*l1[0]->self_time_s == doctest::Approx(86e-6));
  CHECK(l1[0]->phase == Phase::forward);
  // Gradient nodes are backward, ApplyGradientDescent the optimizer.
  for (const auto& op : gpu.ops) {
    if (op.name.rfind("gradients/", 0) == 0) CHECK(op.phase == Phase::backward);
    if (op.name.find("(ApplyGradientDescent)") != std::string::npos) CHECK(op.phase == Phase::optimizer);
  }
  CHECK(has_note(gpu, "stream:all"));
}
