// What a new user's unseen profiles showed (2026-11-27): a reinforcement-learning job's
// cProfile whose environment steps outnumber its training steps, tfprof's own stdout around
// its op view and its totals that count a GPU op's host time too, a Kineto trace recorded
// without record_shapes whose GEMM kernels say fp16, and a Git LFS pointer in place of a
// trace. Each built here in the shape of the real file, the numbers of the real one.
#include <doctest/doctest.h>

#include <string>

#include "common/ops.hpp"
#include "fomcast/error.hpp"
#include "fomcast/ingest.hpp"
#include "ingest_text_support.hpp"
#include "test_support.hpp"
#include "workload_queries.hpp"

using namespace fomcast;
using fomcast::test::has_note;
using fomcast::test::ingest_one;
using fomcast::test::op_named;
using fomcast::test::ScratchDir;

TEST_CASE("cprofile: the optimizer's step counts the passes, not an environment's more frequent step") {
  // FredslundMagnus/DeepLearningProject's 24-hour DQN run on a V100, cut to its step rows: 20
  // environments step 53,692,400 times, Adam 2,684,120 times (one per training step).
  ScratchDir dir;
  const std::string listing =
      "         1234567890 function calls (1234000000 primitive calls) in 86113.000 seconds\n\n"
      "   Ordered by: internal time\n"
      "   List reduced from 2345 to 4 due to restriction <4>\n\n"
      "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
      "  2684120 4074.597    0.002 4074.597    0.002 {method 'run_backward' of 'torch._C._EngineBase' objects}\n"
      "  2684120 1049.515    0.000 4149.231    0.002 adam.py:51(step)\n"
      "  2684620   72.986    0.000 9508.034    0.004 environments.py:73(step)\n"
      " 53692400  198.723    0.000 3299.770    0.000 interop.py:274(step)\n";
  const Workload w = ingest_one(dir.write("dqn.txt", listing));
  CHECK(w.passes == 2684120);
  REQUIRE(w.pass_s);
  CHECK(*w.pass_s == doctest::Approx(86113.0 / 2684120));  // 32.08 ms, not 1.60
  CHECK(has_note(w, "passes = calls of 'adam.py:51(step)'"));
  // The listing holds 4 of 2345 functions: the rest is in the pass, in no op, and said.
  CHECK(has_note(w, "'List reduced from 2345 to 4 due to restriction <4>': the listed functions' self time is"));
  CHECK(has_note(w, "of the 23.9 h the header gives; the other 94% is in the pass time, not in any op"));
  // Without the optimizer, the backward entry point; a bare step name only when nothing else.
  const Workload b = ingest_one(dir.write(
      "b.txt",
      "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
      "  2684120 4074.597    0.002 4074.597    0.002 {method 'run_backward' of 'torch._C._EngineBase' objects}\n"
      " 53692400  198.723    0.000 3299.770    0.000 interop.py:274(step)\n"));
  CHECK(b.passes == 2684120);
  const Workload e = ingest_one(dir.write("e.txt",
                                          "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
                                          " 53692400  198.723    0.000 3299.770    0.000 interop.py:274(step)\n"));
  CHECK(e.passes == 53692400);
}

TEST_CASE(
    "tfprof op view as tfprof prints it: options, report banner and Doc passed over; GPU ops at accelerator time") {
  // The shape of MikalaiDrabovich/TFProf's AlexNet-on-GTX-1060 listing: prose, tfprof's
  // Options block, its report banner and Doc, then the view. Conv2D's total 138.63 ms is its
  // 56.67 ms on the accelerator plus 81.96 ms of host time (launch and wait).
  ScratchDir dir;
  const std::string text =
      "TFProf\n\nOutput of TFProf for training AlexNet on 1060\n\n"
      "=========================Options=============================\n"
      "-max_depth                  10000\n-min_bytes                  1\n-order_by                   micros\n"
      "-account_type_regexes       .*\n-select                     bytes,micros\n-output                     "
      "stdout:\n\n"
      "==================Model Analysis Report======================\n\nDoc:\n"
      "op: The nodes are operation kernel type, such as MatMul, Conv2D.\n"
      "total execution time: Sum of accelerator execution time and cpu execution time.\n\nProfile:\n"
      "node name | requested bytes | total execution time | accelerator execution time | cpu execution time\n"
      "Conv2D                      3243.07MB (100.00%, 29.36%),     138.63ms (100.00%, 32.18%),      56.67ms "
      "(100.00%, 19.63%),      81.96ms (100.00%, 57.65%)\n"
      "Conv2DBackpropFilter         2951.66MB (70.64%, 26.72%),       90.85ms (67.82%, 21.09%),       61.01ms "
      "(80.37%, 21.14%),       29.84ms (42.35%, 20.99%)\n"
      "pool1-0-TransposeNHWCToNCHW-LayoutOptimizer       102.76MB (8.91%, 0.93%),          1.37ms (2.64%, 0.32%),     "
      "     1.36ms (3.86%, 0.47%),            11us (0.17%, 0.01%)\n"
      "Assign                            0B (0.00%, 0.00%),          0.52ms (0.31%, 0.12%),              0us (0.00%, "
      "0.00%),          0.52ms (0.31%, 0.37%)\n";
  const Workload w = ingest_one(dir.write("alexnet.txt", text));
  CHECK(w.origin == "tfprof-op");
  CHECK(w.ops.size() == 4);
  CHECK(*op_named(w, "Conv2D").self_time_s == doctest::Approx(0.05667));
  const Op& wgrad = op_named(w, "Conv2DBackpropFilter");
  CHECK(*wgrad.self_time_s == doctest::Approx(0.06101));
  CHECK(wgrad.phase == Phase::backward);
  // Grappler's layout transpose named after a pooling layer moves data: elementwise.
  CHECK(op_named(w, "pool1-0-TransposeNHWCToNCHW-LayoutOptimizer").kind == OpKind::elementwise);
  // A host op (nothing on the accelerator) keeps its cpu time.
  CHECK(*op_named(w, "Assign").self_time_s == doctest::Approx(0.00052));
  CHECK(has_note(w, "3 op type(s) ran on the accelerator"));
  CHECK(has_note(w, "line(s) before the op view"));
}

TEST_CASE("kineto without record_shapes: an op's element type from its GEMM kernel's name") {
  // JeremyMorlier/GPUModel's A100 trace: aten::mm launching ampere_fp16_s16816gemm_fp16_...,
  // no Input type. Its fp16 had read as unknown and been carried by the fp32 peak ratio.
  ScratchDir dir;
  const std::string trace =
      R"({"traceEvents": [)"
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 50},)"
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, )"
      R"("args": {"correlation": 7}},)"
      R"({"ph": "X", "cat": "kernel", "name": "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", )"
      R"("pid": 0, "tid": 7, "ts": 20, "dur": 15717.7, "args": {"correlation": 7, "device": 0}}]})";
  const Workload w = ingest_one(dir.write("mm.json", trace));
  const Op& mm = op_named(w, "aten::mm");
  CHECK(mm.kind == OpKind::gemm);
  CHECK(mm.dtype == DType::fp16);
  CHECK(has_note(w, "take the element type their longest kernel's name states"));
}

TEST_CASE("a Git LFS pointer is said to be one, with the size of the file it stands for") {
  ScratchDir dir;
  const std::string p = dir.write("trace.json",
                                  "version https://git-lfs.github.com/spec/v1\n"
                                  "oid sha256:d7e7251d32f1e511e9fe67786e22ef385f16cd3c07f3591d7b74da434d21518e\n"
                                  "size 564133236\n");
  IngestOptions o;
  o.workload = "lfs";
  try {
    (void)ingest_files({p}, o);
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK_MESSAGE(what.find("a Git LFS pointer, not the profile") != std::string::npos, what);
    CHECK_MESSAGE(what.find("564133236 bytes") != std::string::npos, what);
  }
}

TEST_CASE("Kineto without correlation ids joins kernels to their op by the op's External id") {
  // TraceLens's MI300 trace: ten aten::mm of [256 x 131072] x [131072 x 512] in bf16, each
  // launching a Tensile GEMM and its split-K reduction (20 kernels, 10,890 us); neither the
  // launches nor the kernels carry "correlation". Joined by correlation only, the GEMM had
  // dropped out and its kernels were listed by name, the GEMM's as a normalization ("ELFLRn").
  IngestOptions o;
  o.workload = "tracelens-mm";
  const Workload w =
      ingest_files({test::source_path("tests/data/profiles/tracelens_mi300_bf16_mm_external_id.json")}, o);
  REQUIRE(w.ops.size() == 1);
  const Op& mm = w.ops[0];
  CHECK(mm.name == "aten::mm");
  CHECK(mm.kind == OpKind::gemm);
  CHECK(mm.dtype == DType::bf16);
  CHECK(mm.flops == doctest::Approx(2.0 * 256 * 512 * 131072));
  CHECK(w.passes == 10);
  CHECK(mm.count == doctest::Approx(1));
  // The kernels' time, 10,890 us over 10 calls.
  REQUIRE(mm.self_time_s);
  CHECK(*mm.self_time_s == doctest::Approx(1.089e-3).epsilon(0.01));
  CHECK(has_note(w, "joined to the launching runtime call by the External id of the op around it"));
  CHECK_FALSE(has_note(w, "launched no device work"));
}

TEST_CASE("Kineto: fp32 GEMMs whose kernels ran on TF32 tensor cores compute in tf32") {
  // HTA's A100 trace: aten::mm and addmm with Input type float whose longest kernels are
  // cutlass_80_tensorop_s1688gemm (TF32 in, fp32 out); one aten::mm ran ampere_sgemm (fp32).
  IngestOptions o;
  o.workload = "tf32";
  const Workload w = ingest_files({test::shared_path("traces/pytorch_kineto/hta_negative_queue_rank0.json.gz")}, o);
  int tf32 = 0, fp32 = 0;
  for (const auto& op : w.ops) {
    if (op.kind != OpKind::gemm || op.name.rfind("aten::", 0) != 0) continue;
    tf32 += op.dtype == DType::tf32 ? 1 : 0;
    fp32 += op.dtype == DType::fp32 ? 1 : 0;
  }
  CHECK(tf32 == 4);
  CHECK(fp32 == 1);
  CHECK(has_note(w, "4 fp32 GEMM or conv op(s) ran on TF32 tensor cores"));
  // The kernel names, one by one.
  CHECK(ingest::dtype_from_kernel_name("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_16x6_tn_align4>") ==
        DType::tf32);
  CHECK(ingest::dtype_from_kernel_name("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw") ==
        DType::tf32);
  CHECK(ingest::dtype_from_kernel_name("cutlass_75_tensorop_f16_s1688gemm_f16_256x128_32x2_tn_align8") == DType::fp16);
  CHECK(ingest::dtype_from_kernel_name("ampere_sgemm_128x64_tn") == DType::fp32);
}

TEST_CASE("a Kineto trace of no work says what it read") {
  // The shape of an A100 PCIe trace from a public repository: CUDA runtime calls, no op or
  // kernel ("Op count" 0). It had said only "no operations found".
  ScratchDir dir;
  const std::string p = dir.write("empty.pt.trace.json",
                                  R"({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaGetDeviceCount", "pid": 1, "tid": 1, "ts": 10, "dur": 3, "args": {}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {}}
]})");
  IngestOptions o;
  o.workload = "empty";
  try {
    (void)ingest_files({p}, o);
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK_MESSAGE(
        what.find("no operations found: 2 events read as kineto, none of them an operation, kernel or copy") !=
            std::string::npos,
        what);
  }
}
