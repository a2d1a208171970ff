// The Kineto reader on the shared PyTorch profiler traces. Every expected number below
// was read from the trace itself with a few lines of python3 (json.load of the file), as
// each comment says; "reference" means the independent python walk of the same rules:
// per thread, CPU events sorted by start and stacked; a kernel belongs to the innermost
// cpu_op around the runtime call with its correlation id; calls and kernel time counted
// within ProfilerStep spans and divided by the number of steps.
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

Workload ingest(const std::string& rel) { return test::ingest_shared({rel}); }
const Op& find(const Workload& w, const std::string& name, const std::function<bool(const Op&)>& pred = {}) {
  return test::find_one(w, name, pred);
}
using test::find_all;
using test::has_note;
using test::per_pass_us;
using test::total;
using test::Total;
bool gemm(const Op& op, int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
  return test::is_gemm(op, m, n, k, batch);
}

}  // namespace

TEST_CASE("kineto: negative_queue (A100, integer-us) has steps 550-554 and its GEMMs") {
  const Workload w = ingest("pytorch_kineto/hta_negative_queue_rank0.json.gz");
  CHECK(w.origin == "kineto");
  CHECK(w.events == 108936);  // len(traceEvents)
  // ProfilerStep#550..#554: 5 steps, durs 209748, 215467, 216119, 216216, 216483 us: the
  // median 216119 us (the mean, 214806.6 us, would let one short step move it).
  CHECK(w.passes == 5);
  CHECK(*w.pass_s == doctest::Approx(0.216119));
  CHECK(has_note(w, "median 216 ms (min 210 ms, max 216 ms, mean 215 ms over 5 steps)"));
  CHECK(has_note(w, "ProfilerStep#550 to #554"));
  // aten::addmm Input Dims [[64], [4096, 100], [100, 64]]: M=4096, K=100, N=64. The
  // reference: 1 GPU-launching call per step, 13.6 us of kernels per step.
  const Op& a = find(w, "aten::addmm", [](const Op& op) { return gemm(op, 4096, 64, 100); });
  CHECK(a.kind == OpKind::gemm);
  CHECK(a.phase == Phase::forward);
  CHECK(a.count == doctest::Approx(1.0));
  CHECK(per_pass_us(a) == doctest::Approx(13.6));
  // aten::mm [[64, 4096], [4096, 2798]] runs under AddmmBackward0: backward, 137.0 us/step.
  const Op& b = find(w, "aten::mm", [](const Op& op) { return gemm(op, 64, 2798, 4096); });
  CHECK(b.phase == Phase::backward);
  CHECK(per_pass_us(b) == doctest::Approx(137.0));
  CHECK(has_note(w, "GPU trace"));
}

TEST_CASE("kineto: ns_resolution (V100, fractional-us) matches the reference op times") {
  const Workload w = ingest("pytorch_kineto/hta_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  CHECK(w.passes == 5);  // ProfilerStep#101..#105
  // ProfilerStep durs 35115.869, 72077.474, 95551.087, 95697.341, 95699.037 us: median
  // 95551.087 us (the mean, 78828.1616 us, is pulled down by the short first two).
  CHECK(*w.pass_s == doctest::Approx(0.095551087));
  CHECK(has_note(w, "ProfilerStep#101 to #105"));
  // No record_shapes in this trace: ops are kinds without shapes. Reference per step:
  // aten::cudnn_convolution 53 calls, 17955.7758 us; aten::convolution_backward 53 calls,
  // 42216.4316 us (split into data and filter gradients here).
  const Op& conv = find(w, "aten::cudnn_convolution");
  CHECK(conv.kind == OpKind::conv);
  CHECK(conv.count == doctest::Approx(53));
  CHECK(per_pass_us(conv) == doctest::Approx(17955.7758));
  double bwd = 0;
  for (const Op* op : find_all(w, "aten::convolution_backward")) {
    CHECK(op->phase == Phase::backward);
    bwd += per_pass_us(*op);
  }
  CHECK(bwd == doctest::Approx(42216.4316));
  // All kernel time attributed to CPU ops, reference: 93630.7204 us per step (every
  // kernel has its launching op here; copies and memsets are ops of their own).
  CHECK(!has_note(w, "had no launching CPU op"));
  double attributed = 0;
  for (const auto& op : w.ops)
    if (op.kind != OpKind::memcpy) attributed += per_pass_us(op);
  CHECK(attributed == doctest::Approx(93630.7204).epsilon(1e-6));
  // The loss runs inside the user's "## backward ##" annotation on the main thread, under
  // aten::cross_entropy_loss: forward work, whatever the region is called.
  for (const Op* op : find_all(w, "aten::_log_softmax")) CHECK(op->phase == Phase::forward);
  for (const Op* op : find_all(w, "aten::_log_softmax_backward_data")) CHECK(op->phase == Phase::backward);
}

TEST_CASE("kineto: trace_diff_control (DLRM) steps 1009-1014, batched GEMMs") {
  const Workload w = ingest("pytorch_kineto/hta_trace_diff_control.json.gz");
  CHECK(w.passes == 6);
  CHECK(*w.pass_s == doctest::Approx(0.0768335).epsilon(1e-6));  // median of the 6 durs, 76833.5 us
  // aten::bmm [[1024, 647, 96], [1024, 96, 30]]: batch 1024, M=647, K=96, N=30; reference
  // 2 calls and 941.3333 us per step.
  auto is_bmm = [](const Op& op) { return gemm(op, 647, 30, 96, 1024); };
  for (const Op* op : find_all(w, "aten::bmm", is_bmm)) CHECK(op->kind == OpKind::batched_gemm);
  const Total bmm = total(w, "aten::bmm", is_bmm);
  CHECK(bmm.calls == doctest::Approx(2));
  CHECK(bmm.us == doctest::Approx(941.3333).epsilon(1e-6));
  // aten::addmm [[512], [1024, 9375], [9375, 512]]: 2 calls, 458.3333 us per step.
  CHECK(total(w, "aten::addmm", [](const Op& op) { return gemm(op, 1024, 512, 9375); }).us ==
        doctest::Approx(458.3333).epsilon(1e-6));
  // FBGEMM's forward lookup, named after the optimizer its backward fuses: forward.
  const auto lookups = find_all(w, "fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function");
  CHECK(!lookups.empty());
  for (const Op* op : lookups) CHECK(op->phase == Phase::forward);
}

TEST_CASE("kineto: PyTorch 1.9 tbplugin ResNet-50 (old schema) steps 5-10, conv shapes") {
  const Workload w = ingest("pytorch_kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz");
  CHECK(w.events == 75718);
  CHECK(w.passes == 6);                                         // ProfilerStep#5..#10 ("Operator" events)
  CHECK(*w.pass_s == doctest::Approx(0.176273).epsilon(1e-6));  // median of the 6 durs, 176273 us
  // First conv: cudnn_convolution Input Dims [[32, 3, 224, 224], [64, 3, 7, 7], ...] with no
  // values recorded; cudnn_convolution_backward shows its output [32, 64, 112, 112], so
  // stride 2 and padding 3 follow ((224 + 2*3 - 7) / 2 + 1 = 112).
  const Op& first = find(w, "aten::cudnn_convolution", [](const Op& op) {
    const auto* c = std::get_if<ConvShape>(&op.shape);
    return c && c->c == 3;
  });
  const auto& c = std::get<ConvShape>(first.shape);
  CHECK(c.n == 32);
  CHECK(c.input[1] == 224);
  CHECK(c.input[2] == 224);
  CHECK(c.k == 64);
  CHECK(c.filter[2] == 7);
  CHECK(c.stride[2] == 2);
  CHECK(c.pad[2] == 3);
  CHECK(c.direction == ConvDirection::forward);
  CHECK(first.count == doctest::Approx(1));
  CHECK(has_note(w, "derived from the output shape"));
  // cudnn_convolution_backward_input [[], [32, 1024, 14, 14], [1024, 256, 1, 1]] (data
  // gradient of a 256 -> 1024 1x1 conv): reference 6 calls and 2574.6667 us per step.
  const Op& bd = find(w, "aten::cudnn_convolution_backward_input", [](const Op& op) {
    const auto* s = std::get_if<ConvShape>(&op.shape);
    return s && s->c == 256 && s->k == 1024 && s->filter[2] == 1 && s->input[2] == 14;
  });
  CHECK(std::get<ConvShape>(bd.shape).direction == ConvDirection::backward_data);
  CHECK(bd.phase == Phase::backward);
  CHECK(bd.count == doctest::Approx(6));
  CHECK(per_pass_us(bd) == doctest::Approx(2574.6667).epsilon(1e-6));
  // The classifier: addmm [[1000], [32, 2048], [2048, 1000]].
  CHECK(find_all(w, "aten::addmm", [](const Op& op) { return gemm(op, 32, 1000, 2048); }).size() == 1);
}

TEST_CASE("kineto: MI300X ResNet with activation checkpointing, steps 15-17") {
  const Workload w = ingest("pytorch_kineto/tracelens_mi300x_resnet_act_checkpoint.json.gz");
  CHECK(w.passes == 3);
  CHECK(*w.pass_s == doctest::Approx(0.015950958).epsilon(1e-6));  // median of the 3 durs, 15950.958 us
  // aten::miopen_convolution Concrete Inputs give padding then stride ("[1, 1]", "[2, 2]")
  // for the 3x3 256 -> 512 conv on 14x14.
  const auto strided = find_all(w, "aten::miopen_convolution", [](const Op& op) {
    const auto* c = std::get_if<ConvShape>(&op.shape);
    return c && c->c == 256 && c->k == 512 && c->input[2] == 14 && c->filter[2] == 3 && c->stride[2] == 2;
  });
  REQUIRE(!strided.empty());
  for (const Op* op : strided) CHECK(std::get<ConvShape>(op->shape).pad[2] == 1);
  CHECK(has_note(w, "recorded for"));
  // [[10, 64, 56, 56], [64, 64, 3, 3]]: 8 calls per step (forward + recompute), 335.7583 us.
  const Total convs = total(w, "aten::miopen_convolution", [](const Op& op) {
    const auto* c = std::get_if<ConvShape>(&op.shape);
    return c && c->c == 64 && c->k == 64 && c->filter[2] == 3;
  });
  CHECK(convs.calls == doctest::Approx(8));
  CHECK(convs.us == doctest::Approx(335.7583).epsilon(1e-6));
  // nccl:all_reduce under record_param_comms (In msg nelems 2873320, BFloat16, Group size 8):
  // 2873320 x 2 bytes; reference 6779.5993 us per step.
  const Op& ar = find(w, "nccl:all_reduce", [](const Op& op) {
    const auto* s = std::get_if<CollectiveShape>(&op.shape);
    return s && s->bytes == 2873320 * 2;
  });
  CHECK(std::get<CollectiveShape>(ar.shape).op == CollectiveKind::allreduce);
  CHECK(std::get<CollectiveShape>(ar.shape).ranks == 8);
  CHECK(per_pass_us(ar) == doctest::Approx(6779.5993).epsilon(1e-6));
}

TEST_CASE("kineto: the bert-small H100 / MI300X pair give the same GEMMs (hidden 512)") {
  const Workload h = ingest("pytorch_kineto/tracelens_h100_bert-small-uncased.json.gz");
  const Workload m = ingest("pytorch_kineto/tracelens_mi300x_bert-small-uncased.json.gz");
  CHECK(h.passes == 1);  // ProfilerStep#6 only
  CHECK(m.passes == 1);
  CHECK(*h.pass_s == doctest::Approx(0.004426114));  // its dur, 4426.114 us
  CHECK(*m.pass_s == doctest::Approx(0.004007334));  // 4007.334 us
  // aten::addmm [[512], [141, 512], [512, 512]]: 141 tokens x hidden 512, K = 512; 17 calls
  // in the step on both machines; the weight's strides [1, 512] show it transposed.
  for (const Workload* w : {&h, &m}) {
    const Op& qkv = find(*w, "aten::addmm", [](const Op& op) { return gemm(op, 141, 512, 512); });
    CHECK(qkv.count == doctest::Approx(17));
    CHECK(qkv.dtype == DType::bf16);
    CHECK(std::get<GemmShape>(qkv.shape).trans_b);
    // The FFN pair: [141, 512] x [512, 2048] and [141, 2048] x [2048, 512], 4 calls each.
    CHECK(find(*w, "aten::addmm", [](const Op& op) { return gemm(op, 141, 2048, 512); }).count == doctest::Approx(4));
    CHECK(find(*w, "aten::addmm", [](const Op& op) { return gemm(op, 141, 512, 2048); }).count == doctest::Approx(4));
  }
  // Reference kernel time of the [141, 512] x [512, 512] GEMMs: 98.718 us (H100), 85.736 us (MI300X).
  CHECK(per_pass_us(find(h, "aten::addmm", [](const Op& op) { return gemm(op, 141, 512, 512); })) ==
        doctest::Approx(98.718));
  CHECK(per_pass_us(find(m, "aten::addmm", [](const Op& op) { return gemm(op, 141, 512, 512); })) ==
        doctest::Approx(85.736));
}

TEST_CASE("kineto: ROCm minitoy, CPU-only, Triton, alexnet, vLLM and torch.compile traces") {
  const Workload toy = ingest("pytorch_kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  // ProfilerStep#1 (9288.291 us) holds all 70 cpu_ops; ProfilerStep#2 (49.073 us) holds
  // none: the profiler's trailing empty step, not a pass.
  CHECK(toy.passes == 1);
  CHECK(*toy.pass_s == doctest::Approx(0.009288291));
  CHECK(has_note(toy, "1 ProfilerStep(s) with no ops in them (#2) are not passes"));
  // aten::addmm [[128], [5, 128], [128, 128]] launches hipLaunchKernel-ed kernels: reference
  // 1 call and 24.48 us in the step.
  const Op& fc = find(toy, "aten::addmm", [](const Op& op) { return gemm(op, 5, 128, 128); });
  CHECK(fc.count == doctest::Approx(1));
  CHECK(per_pass_us(fc) == doctest::Approx(24.48));
  CHECK(find(toy, "aten::mm", [](const Op& op) { return gemm(op, 128, 128, 5); }).phase == Phase::backward);
  // The .json copy reads the same as the .json.gz.
  const Workload plain = ingest("pytorch_kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json");
  CHECK(plain.ops.size() == toy.ops.size());
  CHECK(*plain.pass_s == *toy.pass_s);

  // CPU-only gloo job: the work is in gloo:all_reduce ranges; one of each worker thread's
  // five starts inside ProfilerStep#551 (dur 210109.162 us): 173209.713 and 170471.258 us.
  const Workload cpu = ingest("pytorch_kineto/hta_cpu_only_rank-34.pt.trace.json.gz");
  CHECK(cpu.passes == 1);
  CHECK(*cpu.pass_s == doctest::Approx(0.210109162));
  CHECK(has_note(cpu, "CPU-only"));
  double gloo = 0;
  for (const Op* op : find_all(cpu, "gloo:all_reduce")) {
    CHECK(op->kind == OpKind::collective);
    gloo += per_pass_us(*op);
  }
  CHECK(gloo == doctest::Approx(173209.713 + 170471.258));

  // One Triton kernel launched by cuLaunchKernel inside its cpu_op (1.76 us).
  const Workload tri = ingest("pytorch_kineto/hta_triton_example.json.gz");
  const Op& k = find(tri, "triton_poi_fused_add_cos_sin_0");
  CHECK(k.kind == OpKind::elementwise);
  CHECK(per_pass_us(k) == doctest::Approx(1.76));

  // No ProfilerStep in the vLLM trace: one pass, said in a note.
  const Workload one = ingest("pytorch_kineto/tracelens_b200_vllm_eager_trace.json.gz");
  CHECK(one.passes == 1);
  CHECK(has_note(one, "no step markers"));
  CHECK(one.pass_s.has_value());
  // Nor in PARAM's AlexNet benchmark, whose 43.4 s are mostly start-up (29.9 s of CUDA
  // context creation) and a 12.7 s warm-up: the pass is its innermost
  // `[param|pytorch.model.alex_net|0|0|0|measure|forward]` range, 36.356 ms, holding one
  // forward: AlexNet's 5 convs, 3 linears and 7 ReLUs.
  const Workload alex = ingest("pytorch_kineto/hta_critical_path_alexnet_trace.json.gz");
  CHECK(alex.passes == 1);
  CHECK(*alex.pass_s == doctest::Approx(36.356e-3).epsilon(1e-3));
  CHECK(has_note(alex, "`measure` annotations mark 1 measured iteration"));
  CHECK(has_note(alex, "the 43.3 s before the first measured one (start-up) belong to no pass"));
  CHECK(find(alex, "aten::cudnn_convolution").count == 5);
  CHECK(find(alex, "aten::addmm").count == 3);
  CHECK(find(alex, "aten::clamp_min_").count == 7);
  CHECK(find_all(alex, "Memcpy HtoD (Pageable -> Device)").empty());  // the input copies are set-up
  // vLLM on B200: aten::addmm [[640], [888, 2880], [2880, 640]] in bf16.
  const Workload vllm = ingest("pytorch_kineto/tracelens_b200_vllm_eager_trace.json.gz");
  CHECK(find(vllm, "aten::addmm", [](const Op& op) { return gemm(op, 888, 640, 2880); }).dtype == DType::bf16);
  // torch.compile on MI300X: aten::mm [[32768, 2048], [2048, 2048], out].
  const Workload tc = ingest("pytorch_kineto/tracelens_mi300x_torch_compile_triton.json.gz");
  CHECK(find_all(tc, "aten::mm", [](const Op& op) { return gemm(op, 32768, 2048, 2048); }).size() == 1);
}

TEST_CASE("kineto: a benchmark's measured iterations are the passes, whatever its case and spelling") {
  // A harness that labels a warm-up and two measured iterations ("Warm-Up", "MEASURE"):
  // the measured ones are the passes (median 40 us), the warm-up's op is in none of them.
  // A "measurement" or "warmed" label is another word and marks nothing.
  fomcast::test::ScratchDir dir;
  const std::string trace = dir.write(
      "bench.json",
      R"({"traceEvents": [)"
      R"({"name": "[bench|Warm-Up]", "cat": "user_annotation", "ph": "X", "ts": 0, "dur": 100, "pid": 1, "tid": 1},)"
      R"({"name": "aten::mm", "cat": "cpu_op", "ph": "X", "ts": 10, "dur": 50, "pid": 1, "tid": 1},)"
      R"({"name": "[bench|MEASURE]", "cat": "user_annotation", "ph": "X", "ts": 200, "dur": 40, "pid": 1, "tid": 1},)"
      R"({"name": "aten::relu", "cat": "cpu_op", "ph": "X", "ts": 205, "dur": 20, "pid": 1, "tid": 1},)"
      R"({"name": "[bench|MEASURE]", "cat": "user_annotation", "ph": "X", "ts": 300, "dur": 40, "pid": 1, "tid": 1},)"
      R"({"name": "aten::relu", "cat": "cpu_op", "ph": "X", "ts": 305, "dur": 20, "pid": 1, "tid": 1}]})");
  IngestOptions o;
  o.workload = "bench";
  const Workload w = ingest_files({trace}, o);
  CHECK(w.passes == 2);
  CHECK(*w.pass_s == doctest::Approx(40e-6));
  CHECK(has_note(w, "`measure` annotations mark 2 measured iterations"));
  CHECK(find(w, "aten::relu").count == 1);
  CHECK(find_all(w, "aten::mm").empty());
  const std::string other = dir.write(
      "other.json",
      R"({"traceEvents": [)"
      R"({"name": "warmed", "cat": "user_annotation", "ph": "X", "ts": 0, "dur": 100, "pid": 1, "tid": 1},)"
      R"({"name": "aten::mm", "cat": "cpu_op", "ph": "X", "ts": 10, "dur": 50, "pid": 1, "tid": 1},)"
      R"({"name": "measurement", "cat": "user_annotation", "ph": "X", "ts": 200, "dur": 40, "pid": 1, "tid": 1},)"
      R"({"name": "aten::relu", "cat": "cpu_op", "ph": "X", "ts": 205, "dur": 20, "pid": 1, "tid": 1}]})");
  o.workload = "other";
  const Workload n = ingest_files({other}, o);
  CHECK(n.passes == 1);
  CHECK(has_note(n, "no step markers"));
  CHECK(find(n, "aten::mm").count == 1);
}

TEST_CASE("kineto: a step marker that holds no op is left out of the trace's span too") {
  // The ProfilerStep lies days before the ops (a corrupt or clock-shifted ts): it holds none
  // and is ignored, and the pass is the ops' span, 100 us, not the 394 h from the marker.
  fomcast::test::ScratchDir dir;
  const std::string trace = dir.write(
      "moved.json",
      R"({"traceEvents": [)"
      R"({"name": "ProfilerStep#1", "cat": "user_annotation", "ph": "X", "ts": 0, "dur": 50, "pid": 1, "tid": 1},)"
      R"({"name": "aten::mm", "cat": "cpu_op", "ph": "X", "ts": 1419247332000, "dur": 60, "pid": 1, "tid": 1},)"
      R"({"name": "aten::relu", "cat": "cpu_op", "ph": "X", "ts": 1419247332070, "dur": 30, "pid": 1, "tid": 1}]})");
  IngestOptions o;
  o.workload = "moved";
  const Workload w = ingest_files({trace}, o);
  CHECK(has_note(w, "the ProfilerStep markers hold no ops: they are ignored"));
  CHECK(w.passes == 1);
  CHECK(*w.pass_s == doctest::Approx(100e-6));
}

TEST_CASE("kineto: a step lasting far past the trace's last event says so") {
  // A ProfilerStep whose `dur` is 1e9 us over ops spanning 100 us had become a 16.7 min pass
  // without a word; a real one (Triton's compilation in hta_triton_example) runs 13.3 s
  // past 1.39 ms of events. The file cannot tell which: a note, the pass as measured.
  fomcast::test::ScratchDir dir;
  auto trace = [&](const std::string& dur) {
    return dir.write(
        "step" + dur + ".json",
        R"({"traceEvents": [)"
        R"({"name": "ProfilerStep#4", "cat": "user_annotation", "ph": "X", "ts": 1000, "dur": )" +
            dur +
            R"(, "pid": 1, "tid": 1},)"
            R"({"name": "aten::mm", "cat": "cpu_op", "ph": "X", "ts": 1010, "dur": 60, "pid": 1, "tid": 1},)"
            R"({"name": "aten::relu", "cat": "cpu_op", "ph": "X", "ts": 1080, "dur": 30, "pid": 1, "tid": 1}]})");
  };
  IngestOptions o;
  o.workload = "step";
  Workload w = ingest_files({trace("1000000000")}, o);
  CHECK(*w.pass_s == doctest::Approx(1000));
  CHECK(has_note(w,
                 "ProfilerStep#4 lasts 16.7 min, ending 16.7 min after the trace's last event (its events span "
                 "100 us): time no event accounts for"));
  // A tail of half a second past 100 us of ops (a data loader's wait) is no such step.
  w = ingest_files({trace("500000")}, o);
  CHECK(*w.pass_s == doctest::Approx(0.5));
  CHECK(!has_note(w, "after the trace's last event"));
}

TEST_CASE("kineto: the legacy autograd profiler's bare array is read") {
  // The format torch.autograd.profiler.profile().export_chrome_trace() writes (no
  // categories, "CPU functions" pid): a tiny example in that exact shape.
  fomcast::test::ScratchDir dir;
  const std::string path = dir.write(
      "legacy.json",
      R"([{"name": "aten::addmm", "ph": "X", "ts": 10.0, "dur": 30.0, "tid": 1, "pid": "CPU functions", "args": {}}, )"
      R"({"name": "aten::empty", "ph": "X", "ts": 12.0, "dur": 5.0, "tid": 1, "pid": "CPU functions", "args": {}}, )"
      R"({"name": "aten::relu", "ph": "X", "ts": 50.0, "dur": 8.0, "tid": 1, "pid": "CPU functions", "args": {}}])");
  IngestOptions o;
  o.workload = "legacy";
  const Workload w = ingest_files({path}, o);
  CHECK(w.origin == "kineto");
  CHECK(has_note(w, "legacy autograd-profiler"));
  // addmm's self time is its 30 us minus the 5 us aten::empty nested in it.
  const Op& addmm = find(w, "aten::addmm");
  CHECK(addmm.kind == OpKind::gemm);
  CHECK(*addmm.self_time_s == doctest::Approx(25e-6));
  CHECK(*find(w, "aten::empty").self_time_s == doctest::Approx(5e-6));
  CHECK(*w.pass_s == doctest::Approx(48e-6));  // one pass: the span 10 .. 58 us
}
