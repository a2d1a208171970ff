// XPlane profiles (.xplane.pb) from the JAX / TensorFlow profilers: the shared JAX 3-D
// convolution on eight MI300X GPUs, and bad input.
#include <doctest/doctest.h>

#include <fstream>

#include "fomcast/ingest.hpp"
#include "ingest_text_support.hpp"
#include "protobuf_encode.hpp"
#include "test_support.hpp"
#include "workload_queries.hpp"

using namespace fomcast;
using fomcast::test::ingest_one;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
namespace pb = fomcast::test::pb;

namespace {

const std::string kShared = "traces/tensorflow/xplane/tracelens_mi300x_jax_conv_minimal_08.xplane.pb";

using pb::bytes;
using pb::num;
using pb::packed;

std::string shape(uint64_t type, const std::vector<uint64_t>& dims) { return num(2, type) + packed(3, dims); }
constexpr uint64_t kF32 = 11, kTuple = 13;

std::string instruction(const std::string& name, const std::string& opcode, const std::string& shape_bytes, uint64_t id,
                        const std::vector<uint64_t>& operands = {}, const std::string& extra = "") {
  std::string m = bytes(1, name) + bytes(2, opcode) + bytes(3, shape_bytes) + num(35, id);
  if (!operands.empty()) m += packed(36, operands);
  return bytes(2, m + extra);  // HloComputationProto.instructions
}

// A module with a dot and a cuBLAS batched-GEMM custom call, and one GPU that ran both.
std::string gemm_profile() {
  const std::string computation =
      bytes(1, "main") + instruction("p0", "parameter", shape(kF32, {64, 128}), 1) +
      instruction("p1", "parameter", shape(kF32, {128, 32}), 2) +
      instruction("dot.1", "dot", shape(kF32, {64, 32}), 3, {1, 2}, bytes(30, packed(1, {1}) + packed(2, {0}))) +
      instruction("p3", "parameter", shape(kF32, {8, 64, 128}), 4) +
      instruction("p4", "parameter", shape(kF32, {8, 128, 32}), 5) +
      instruction(
          "cublas-gemm.2", "custom-call", shape(kTuple, {}) + bytes(4, shape(kF32, {8, 64, 32})), 6, {4, 5},
          bytes(28, "__cublas$gemm") +
              bytes(43, R"({"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["2"],)"
                        R"("rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":["0"],)"
                        R"("rhs_batch_dimensions":["0"]}}})")) +
      instruction("all-reduce.3", "all-reduce", shape(kF32, {64, 128}), 7, {1},
                  bytes(49, packed(1, {0, 1, 2, 3, 4, 5, 6, 7})));  // one replica group of eight
  const std::string hlo_proto = bytes(1, bytes(3, computation));    // HloProto.hlo_module.computations
  auto entry = [](uint64_t key, const std::string& value) { return num(1, key) + bytes(2, value); };
  const std::string metadata =
      bytes(2, "/host:metadata") + bytes(5, entry(1, num(1, 1) + bytes(2, "Hlo Proto"))) +
      bytes(4, entry(1, num(1, 1) + bytes(2, "jit_f(7)") + bytes(5, num(1, 1) + bytes(6, hlo_proto))));
  auto stat_str = [](uint64_t id, const std::string& v) { return bytes(4, num(1, id) + bytes(5, v)); };
  auto event = [&](uint64_t kernel, uint64_t ps, const std::string& hlo_op) {
    return bytes(
        4, num(1, kernel) + num(3, ps) + stat_str(2, hlo_op) + stat_str(3, "jit_f") + bytes(4, num(1, 4) + num(4, 7)));
  };
  const std::string device = bytes(2, "/device:GPU:0") + bytes(5, entry(2, num(1, 2) + bytes(2, "hlo_op"))) +
                             bytes(5, entry(3, num(1, 3) + bytes(2, "hlo_module"))) +
                             bytes(5, entry(4, num(1, 4) + bytes(2, "program_id"))) +
                             bytes(4, entry(10, num(1, 10) + bytes(2, "ampere_sgemm_64x32_nn"))) +
                             bytes(4, entry(11, num(1, 11) + bytes(2, "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n"))) +
                             bytes(4, entry(12, num(1, 12) + bytes(2, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"))) +
                             bytes(3, bytes(2, "Stream #7(Kernel)") + event(10, 1'000'000, "dot.1") +
                                          event(11, 2'000'000, "cublas-gemm.2") + event(12, 3'000'000, "all-reduce.3"));
  return bytes(1, metadata) + bytes(1, device);
}

}  // namespace

TEST_CASE("xplane: the shared JAX conv profile gives HLO ops with their kernels' time per device") {
  const std::string p = shared_path(kShared);
  CHECK(detect_format(p) == "xplane");
  const Workload w = ingest_one(p);
  CHECK(w.origin == "xplane");
  CHECK(w.events == 235);  // kernel events on the eight /device:GPU planes' stream lines
  // Five runs of the module: each /host:CPU line holds 5 ExecuteHelper events, and each HLO
  // op ran 5 times on each device, but one fusion 4 times on one of them (the gcd of the
  // counts had been 1: one pass with every op x5).
  CHECK(w.passes == 5);
  CHECK(test::has_note(w, "the XLA module ran 5 times (what most of its HLO ops ran on each device"));
  // 28,137,077,000 ps of kernels in all (duration_ps summed by a separate decoder), over
  // eight devices and five runs.
  double total = 0;
  for (const auto& op : w.ops) total += test::per_pass_s(op);
  CHECK(total == doctest::Approx(28137077e-9 / 8 / 5).epsilon(1e-9));
  // The convolution: 79 kernels for hlo_op cudnn-conv.1, 1.566 ms; an im2col and a GEMM
  // kernel per execution, five executions on each device, one a run.
  const Op& conv = test::op_named(w, "cudnn-conv.1");
  CHECK(conv.kind == OpKind::conv);
  CHECK(conv.dtype == DType::bf16);  // the HLO's operand type (and Tensile's Cijk_..._BBS_ kernel)
  CHECK(conv.count == 1);
  CHECK(test::per_pass_s(conv) == doctest::Approx(0.001566452 / 5).epsilon(1e-9));
  // Its shape from the module's HloProto in /host:metadata: the 3-D patch embedding of 16
  // channels into 5,120 (MANIFEST), kernel and stride 1x2x2, padding 1.
  const auto& c = std::get<ConvShape>(conv.shape);
  CHECK(c.dims == 3);
  CHECK(c.n == 1);
  CHECK(c.c == 16);
  CHECK(c.k == 5120);
  CHECK(c.input == std::array<int64_t, 3>{32, 60, 104});
  CHECK(c.filter == std::array<int64_t, 3>{1, 2, 2});
  CHECK(c.stride == std::array<int64_t, 3>{1, 2, 2});
  CHECK(c.pad == std::array<int64_t, 3>{1, 1, 1});
  // The transpose after it moves the convolution's output: the two shapes agree.
  const Op& transpose = test::op_named(w, "input_transpose_fusion");
  CHECK(transpose.kind == OpKind::elementwise);
  const auto& t = std::get<TensorShape>(transpose.shape);
  REQUIRE(t.inputs.size() == 1);
  CHECK(t.inputs[0] == std::vector<int64_t>{1, 5120, 34, 31, 53});
  CHECK(c.output() == std::array<int64_t, 3>{34, 31, 53});
  CHECK(transpose.bytes == doctest::Approx(2.0 * 2 * 5120 * 34 * 31 * 53));  // read and written, bf16
  bool noted = false;
  for (const auto& n : w.notes) noted = noted || n.find("4 of 7 ops shaped from the HLO") != std::string::npos;
  CHECK(noted);
  CHECK(test::op_named(w, "__amd_rocclr_copyBuffer.kd").kind == OpKind::memcpy);
}

TEST_CASE("xplane: dots, cuBLAS GEMM custom calls and all-reduces get their shapes from the module's HLO") {
  ScratchDir dir;
  const std::string p = dir.file("gemm.xplane.pb");
  std::ofstream(p, std::ios::binary) << gemm_profile();
  CHECK(detect_format(p) == "xplane");
  const Workload w = ingest_one(p);
  const Op& dot = test::op_named(w, "dot.1");
  CHECK(dot.kind == OpKind::gemm);
  CHECK(std::get<GemmShape>(dot.shape) == GemmShape{64, 32, 128});
  CHECK(dot.dtype == DType::fp32);
  CHECK(*dot.self_time_s == doctest::Approx(1e-6));
  const Op& gemm = test::op_named(w, "cublas-gemm.2");
  CHECK(gemm.kind == OpKind::batched_gemm);
  CHECK(std::get<GemmShape>(gemm.shape) == GemmShape{64, 32, 128, 8});
  CHECK(*gemm.self_time_s == doctest::Approx(2e-6));
  const Op& allreduce = test::op_named(w, "all-reduce.3");
  CHECK(allreduce.kind == OpKind::collective);
  CHECK(std::get<CollectiveShape>(allreduce.shape) == CollectiveShape{CollectiveKind::allreduce, 64 * 128 * 4, 8});
}

TEST_CASE("xplane: bad input names the file and byte offset and stores nothing") {
  ScratchDir dir;
  const std::string whole = test::slurp(shared_path(kShared));
  const std::string db = dir.file("f.db");
  REQUIRE(test::run_fomcast("platforms", db).status == 0);
  const std::string before = test::file_fingerprint(db);
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::string p = dir.file(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cut.xplane.pb", whole.substr(0, 200000)},
      {"cut-early.xplane.pb", whole.substr(0, 40)},
  };
  for (const auto& entry : cases) {
    const auto& name = entry.first;
    const auto& bytes = entry.second;
    const std::string p = write(name, bytes);
    const auto r = test::run_fomcast("ingest '" + p + "' --workload bad --format xplane", db);
    CHECK_MESSAGE(r.status == 2, name);
    CHECK_MESSAGE(r.err.find(p + ": byte ") != std::string::npos, r.err);
    CHECK_MESSAGE(r.err.find("truncated protobuf") != std::string::npos, r.err);
    CHECK(test::file_fingerprint(db) == before);
  }
  // Named .xplane.pb but not one: auto-detection says what it expected.
  const std::string junk = write("junk.xplane.pb", std::string("\x01\x02\x03 not a profile\0", 18));
  const auto r = test::run_fomcast("ingest '" + junk + "' --workload bad", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("--format xplane") != std::string::npos, r.err);
  // A protobuf with planes but none named like a profiler's: not an XPlane profile.
  const std::string other = write("other.pb", std::string("\x0a\x05\x12\x03"
                                                          "abc",
                                                          7));
  const auto o = test::run_fomcast("ingest '" + other + "' --workload bad --format xplane", db);
  CHECK(o.status == 2);
  CHECK_MESSAGE(o.err.find("not an XPlane profile") != std::string::npos, o.err);
  CHECK(test::file_fingerprint(db) == before);
}

TEST_CASE("xplane: a TensorFlow 2 trace-viewer export with host events only says the kernels are in its .xplane.pb") {
  // awslabs/sagemaker-debugger's test resource (tests/data/README.md): eight /device:GPU
  // processes with no events, 256 host events. It had said only "no operations found".
  ScratchDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::run_fomcast("platforms", db).status == 0);
  const std::string before = test::file_fingerprint(db);
  const std::string trace = test::source_path("tests/data/profiles/sagemaker_tf2_trace_viewer.trace.json");
  const auto r = test::run_fomcast("ingest '" + trace + "' --workload tf2", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find(trace + ": a TensorFlow 2 trace-viewer export (processes /device:GPU:0, /device:GPU:1") !=
                    std::string::npos,
                r.err);
  CHECK_MESSAGE(r.err.find("none of its 367 events is an op") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find(".xplane.pb") != std::string::npos, r.err);
  CHECK(test::file_fingerprint(db) == before);
}

TEST_CASE("xplane: an estimate of the profile says its ops are measured and its pass is not") {
  // The profile times its kernels but holds no step: "not calibrated: no measured time on any
  // platform" had stood beside ops measured on the MI300X.
  ScratchDir dir;
  const std::string db = dir.file("x.db");
  REQUIRE(test::run_fomcast("ingest --workload xp " + shared_path(kShared), db).status == 0);
  for (const std::string platform : {"MI300X", "H100"}) {
    CAPTURE(platform);
    const auto e = test::run_fomcast("estimate --workload xp --platform " + platform, db);
    REQUIRE(e.status == 0);
    CHECK(e.out.find("not calibrated: the profile times its operations but not a pass") != std::string::npos);
    CHECK(e.out.find("no measured time on any platform") == std::string::npos);
  }
  // A layer list measures nothing: the plain wording stays.
  const auto model = test::run_fomcast("estimate --workload resnet50 --platform H100", db);
  REQUIRE(model.status == 0);
  CHECK(model.out.find("not calibrated: no measured time on any platform") != std::string::npos);
}
