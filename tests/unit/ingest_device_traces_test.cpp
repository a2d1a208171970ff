// Device traces the Kineto reader must not mistake for CPU-only ones: CUPTI range-profiler
// ranges (tied to their launches in order, FLOPs from the counters), device activity of
// categories without a rule of their own (MTIA, HPU, TPU, XPU), and GPU-only traces (no CPU
// ops: names and phases from the kernels). Each trace here is written by the test, a few
// events long, so every expected number follows from the events by hand.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/ops.hpp"
#include "fomcast/error.hpp"
#include "fomcast/ingest.hpp"
#include "fomcast/platform_match.hpp"
#include "shipped_catalog.hpp"
#include "test_support.hpp"
#include "workload_queries.hpp"

using namespace fomcast;
using fomcast::test::find_all;
using fomcast::test::find_one;
using fomcast::test::has_note;
using fomcast::test::ScratchDir;

namespace {

std::string trace(const std::vector<std::string>& events) {
  std::string out = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Test GPU"}], "traceEvents": [)";
  for (std::size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "\n") + events[i];
  return out + "]}";
}

std::string op(const std::string& name, double ts, double dur, int tid = 1) {
  return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "pid": 1, "tid": )" + std::to_string(tid) +
         R"(, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + "}";
}
std::string annotation(const std::string& name, double ts, double dur) {
  return R"({"ph": "X", "cat": "user_annotation", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + "}";
}
std::string launch(const std::string& cat, const std::string& name, double ts, int correlation) {
  return R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(ts) + R"(, "dur": 1, "args": {"correlation": )" + std::to_string(correlation) + "}}";
}
// A device event of category `cat`; correlation < 0: none.
std::string device(const std::string& cat, const std::string& name, double ts, double dur, int correlation = -1,
                   const std::string& more_args = "") {
  std::string args = R"("device": 0)";
  if (correlation >= 0) args += R"(, "correlation": )" + std::to_string(correlation);
  if (!more_args.empty()) args += ", " + more_args;
  return R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name + R"(", "pid": 0, "tid": 7, "ts": )" +
         std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {)" + args + "}}";
}
// A CUPTI range: no correlation, counters in args, pid 0 tid 0 as Kineto writes them.
std::string range(const std::string& name, double ts, double dur, const std::string& counters) {
  return R"({"ph": "X", "cat": "cuda_profiler_range", "name": ")" + name + R"(", "pid": 0, "tid": 0, "ts": )" +
         std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {)" + counters + "}}";
}
std::string counter(const std::string& op, double n) {
  return R"("smsp__sass_thread_inst_executed_op_)" + op + R"(_pred_on.sum": )" + std::to_string(n);
}

Workload read_trace(const ScratchDir& dir, const std::string& name, const std::string& text) {
  IngestOptions o;
  o.workload = "t";
  return ingest_files({dir.write(name, text)}, o);
}

double per_pass_us(const Op& o) { return test::per_pass_us(o); }

}  // namespace

TEST_CASE("device traces: CUPTI ranges are tied to the kernel launches in order, FLOPs from the counters") {
  ScratchDir dir;
  // Two ops launch one kernel each; the ranges carry no correlation and sit at times of
  // their own (the session's span split evenly), in launch order.
  const std::string text = trace({
      op("aten::mm", 100, 50),
      launch("cuda_runtime", "cudaLaunchKernel", 110, 11),
      op("aten::relu_", 200, 30),
      launch("cuda_runtime", "cudaLaunchKernel", 210, 12),
      launch("cuda_runtime", "cudaMemcpyAsync", 240, 13),  // a copy launch: not a kernel
      range("ampere_sgemm_128x64_nn", 1000, 500,
            counter("ffma", 1000) + ", " + counter("fadd", 10) + ", " + counter("fmul", 5)),
      range("void at::native::vectorized_elementwise_kernel<4, at::native::relu>(int)", 1500, 500,
            counter("hfma", 3) + ", " + counter("dadd", 4) + ", " + counter("iadd3", 99)),
  });
  const Workload w = read_trace(dir, "cupti.json", text);
  CHECK_FALSE(has_note(w, "CPU-only"));
  CHECK(has_note(w, "CUPTI range-profiler trace: 2 kernel ranges with hardware counters, 2 tied to the op"));
  const Op& mm = find_one(w, "aten::mm");
  CHECK(*mm.self_time_s == doctest::Approx(500e-6));      // the range's time, not the CPU op's 50 us
  CHECK(mm.flops == doctest::Approx(2 * 1000 + 10 + 5));  // fma counts 2
  const Op& relu = find_one(w, "aten::relu_");
  CHECK(relu.flops == doctest::Approx(2 * 3 + 4));  // integer instructions are not FLOPs
  CHECK(*relu.self_time_s == doctest::Approx(500e-6));

  // Three ranges for two kernel launches: they cannot be tied in order, so each is listed
  // by its kernel name, still device time with its FLOPs.
  const std::string untied = trace({
      op("aten::mm", 100, 50),
      launch("cuda_runtime", "cudaLaunchKernel", 110, 11),
      op("aten::relu_", 200, 30),
      launch("cuda_runtime", "cudaLaunchKernel", 210, 12),
      range("ampere_sgemm_128x64_nn", 1000, 500, counter("ffma", 1000)),
      range("ampere_sgemm_128x64_nn", 1500, 500, counter("ffma", 1000)),
      range("__missing__", 2000, 500, counter("fadd", 7)),
  });
  const Workload u = read_trace(dir, "untied.json", untied);
  CHECK(has_note(u, "listed by kernel name"));
  const Op& k = find_one(u, "ampere_sgemm_128x64_nn");
  CHECK(k.count == 2);
  CHECK(k.flops == doctest::Approx(2000));
  CHECK(k.kind == OpKind::gemm);
  CHECK(find_one(u, "(unnamed kernel range)").flops == doctest::Approx(7));
  CHECK(find_all(u, "aten::mm").empty());  // it launched nothing the trace ties to it
}

TEST_CASE("device traces: device activity of other kinds is device time under its own name") {
  ScratchDir dir;
  // One minimal trace per backend's device category; the second activity of each has no
  // launching op and is listed by its own name. The last has a category naming no device
  // but says which device it ran on.
  struct Case {
    const char* category;
    const char* runtime;
  };
  for (const Case c :
       {Case{"mtia_ccp_events", "mtia_runtime"}, Case{"hpu_kernel", "hpu_runtime"}, Case{"tpu_op", "cuda_runtime"},
        Case{"xpu_scope_profiler", "xpu_runtime"}, Case{"compute", "privateuse1_runtime"}}) {
    INFO(c.category);
    const std::string text = trace({
        op("aten::matmul", 100, 40),
        launch(c.runtime, "LaunchKernel", 110, 21),
        device(c.category, "fused_matmul_kernel", 150, 25, 21),
        device(c.category, "device_copy_engine_job", 300, 8),
    });
    const Workload w = read_trace(dir, std::string(c.category) + ".json", text);
    CHECK_FALSE(has_note(w, "CPU-only"));
    CHECK(has_note(w, "events of device activity '" + std::string(c.category) + "'"));
    CHECK(*find_one(w, "aten::matmul").self_time_s == doctest::Approx(25e-6));  // its device time
    CHECK(per_pass_us(find_one(w, "device_copy_engine_job")) == doctest::Approx(8));
  }
  // Host-side categories are not device time: MTIA's runtime calls, the HPU's host ops,
  // synchronisation, counters.
  const std::string host = trace({
      op("aten::matmul", 100, 40),
      device("mtia_runtime", "mtiaStreamSync", 110, 5),
      device("hpu_op", "synLaunch", 120, 5),
      device("cuda_sync", "Stream Sync", 130, 5),
      device("mtia_counters", "hbm_bytes", 140, 5),
  });
  const Workload h = read_trace(dir, "host.json", host);
  CHECK(has_note(h, "CPU-only"));
  CHECK(h.ops.size() == 1);
}

TEST_CASE("device traces: a GPU-only trace takes names and phases from its kernels") {
  ScratchDir dir;
  // MI210-like: HIP launches without CPU ops around them, kernels named with namespaces,
  // templates and parameter lists.
  const std::string text = trace({
      launch("cuda_runtime", "hipLaunchKernel", 10, 1),
      launch("cuda_runtime", "hipLaunchKernel", 20, 2),
      launch("cuda_runtime", "hipExtModuleLaunchKernel", 30, 3),
      launch("cuda_runtime", "hipExtModuleLaunchKernel", 40, 4),
      launch("cuda_runtime", "hipLaunchKernel", 50, 5),
      device("kernel",
             "void at::native::(anonymous namespace)::max_pool_forward_nchw<c10::BFloat16>(int, c10::BFloat16 "
             "const*, long, int)",
             100, 10, 1),
      device("kernel",
             "void at::native::(anonymous namespace)::max_pool_backward_nchw<c10::BFloat16, float>(c10::BFloat16 "
             "const*, long const*, int)",
             120, 20, 2),
      device("kernel", "igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1_bt32x128x32", 150, 30, 3),
      device("kernel", "igemm_wrw_gtcx2_nhwc_bf16_bx0_ex1_bt256x128x16", 190, 40, 4),
      device("kernel",
             "void at::native::batch_norm_backward_kernel<c10::BFloat16, float, int>(at::GenericPackedTensorAccessor<"
             "c10::BFloat16 const, 3ul, at::DefaultPtrTraits, int>)",
             240, 50, 5),
  });
  const Workload w = read_trace(dir, "gpu_only.json", text);
  CHECK(has_note(w, "GPU-only trace"));
  CHECK_FALSE(has_note(w, "CPU-only"));
  const Op& fwd = find_one(w, "at::native::max_pool_forward_nchw");
  CHECK(fwd.phase == Phase::forward);
  CHECK(fwd.kind == OpKind::pooling);
  CHECK(find_one(w, "at::native::max_pool_backward_nchw").phase == Phase::backward);
  CHECK(find_one(w, "igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1_bt32x128x32").phase == Phase::backward);
  CHECK(find_one(w, "igemm_wrw_gtcx2_nhwc_bf16_bx0_ex1_bt256x128x16").phase == Phase::backward);
  CHECK(find_one(w, "at::native::batch_norm_backward_kernel").phase == Phase::backward);
  CHECK(w.measured_op_time_s() == doctest::Approx(150e-6));
}

TEST_CASE("device traces: kernel names keep their qualified name, without templates or parameters") {
  using ingest::short_kernel_name;
  CHECK(short_kernel_name("void at::native::(anonymous namespace)::max_pool_backward_nchw<c10::BFloat16, float>("
                          "c10::BFloat16 const*, long const*, int)") == "at::native::max_pool_backward_nchw");
  CHECK(short_kernel_name("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
                          "namespace)::launch_clamp_scalar(at::TensorIteratorBase&)::{lambda()#1}, "
                          "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<long>)") ==
        "at::native::vectorized_elementwise_kernel");
  CHECK(short_kernel_name("ampere_sgemm_32x32_sliced1x4_tn") == "ampere_sgemm_32x32_sliced1x4_tn");
  CHECK(short_kernel_name("void fft2d_r2c_32x32<float, false, 5u, true>(float2*, float const*, int)") ==
        "fft2d_r2c_32x32");
  CHECK(ingest::phase_from_kernel_name("igemm_wrw_gtcx2_nhwc_bf16") == Phase::backward);
  CHECK(ingest::phase_from_kernel_name("sm80_xmma_dgrad_implicit_gemm_f16") == Phase::backward);
  CHECK(ingest::phase_from_kernel_name("igemm_fwd_gtcx2_nhwc_bf16") == Phase::forward);
}

TEST_CASE("steps: empty leading and trailing ProfilerSteps are not passes; the pass is the median step") {
  ScratchDir dir;
  // #1 (10 us) and #5 (5 us) hold no op; #2, #3, #4 last 100, 300 and 120 us: median 120.
  std::vector<std::string> events = {annotation("ProfilerStep#1", 0, 10), annotation("ProfilerStep#2", 10, 100),
                                     annotation("ProfilerStep#3", 110, 300), annotation("ProfilerStep#4", 410, 120),
                                     annotation("ProfilerStep#5", 530, 5)};
  for (double t : {20.0, 120.0, 420.0}) events.push_back(op("aten::add", t, 8));
  const Workload w = read_trace(dir, "steps.json", trace(events));
  CHECK(w.passes == 3);
  CHECK(*w.pass_s == doctest::Approx(120e-6));
  CHECK(has_note(w, "2 ProfilerStep(s) with no ops in them (#1, #5) are not passes"));
  CHECK(has_note(w, "median 120 us (min 100 us, max 300 us, mean 173 us over 3 steps)"));
  CHECK(find_one(w, "aten::add").count == doctest::Approx(1));
}

TEST_CASE("steps: Optimizer.step annotations mark steps from one to the next, start-up excluded") {
  ScratchDir dir;
  // Start-up (a data loader) until 5000 us; annotations start at 5000, 5200, 5500, 5700:
  // three steps of 200, 300 and 200 us. Each step runs one aten::mm; the one before the
  // first annotation is start-up, the one after the last an unfinished step.
  std::vector<std::string> events = {op("aten::copy_", 0, 4000)};
  for (double t : {5000.0, 5200.0, 5500.0, 5700.0}) events.push_back(annotation("Optimizer.step#SGD.step", t, 20));
  for (double t : {4500.0, 5050.0, 5250.0, 5550.0, 5750.0}) events.push_back(op("aten::mm", t, 10));
  const Workload w = read_trace(dir, "optimizer.json", trace(events));
  CHECK(w.passes == 3);
  CHECK(*w.pass_s == doctest::Approx(200e-6));
  CHECK(has_note(w, "the 5 ms before the first annotation (start-up) belongs to no step"));
  CHECK(find_one(w, "aten::mm").count == doctest::Approx(1));
  CHECK(find_all(w, "aten::copy_").empty());
}

TEST_CASE("steps: a trace without markers that repeats its first op's sequence N times is N passes") {
  ScratchDir dir;
  // conv, relu, linear three times, 100 us apart, the last ending at 280 us.
  std::vector<std::string> events;
  for (double t : {0.0, 100.0, 200.0}) {
    events.push_back(op("aten::conv2d", t, 40));
    events.push_back(op("aten::relu", t + 45, 10));
    events.push_back(op("aten::linear", t + 60, 20));
  }
  const Workload w = read_trace(dir, "loop.json", trace(events));
  CHECK(w.passes == 3);
  CHECK(*w.pass_s == doctest::Approx(100e-6));
  CHECK(has_note(w, "repeat one sequence 3 times (starting with aten::conv2d)"));
  CHECK(find_one(w, "aten::relu").count == doctest::Approx(1));

  // The same loop on a GPU with no synchronisation in it: each mm launches a 10 ms kernel
  // and returns in 20 us, so the CPU spans are 30 us while the kernels queue. A pass is the
  // repeats' share of the span to the end of the device's work: (30,020 - 0) / 3 us.
  std::vector<std::string> gpu;
  for (int i = 0; i < 3; ++i) {
    gpu.push_back(op("aten::mm", 30.0 * i, 20));
    gpu.push_back(launch("cuda_runtime", "cudaLaunchKernel", 30.0 * i + 5, i + 1));
    gpu.push_back(device("kernel", "ampere_sgemm_128x128_nn", 20 + 10000.0 * i, 10000, i + 1));
  }
  const Workload queued = read_trace(dir, "queued.json", trace(gpu));
  CHECK(queued.passes == 3);
  CHECK(*queued.pass_s == doctest::Approx(30020e-6 / 3));
  CHECK(has_note(queued, "the GPU ran behind the CPU"));
  CHECK(*find_one(queued, "aten::mm").self_time_s == doctest::Approx(10e-3));
  // Kernels that finish within the CPU's loop leave the pass time as the CPU spans give it.
  std::vector<std::string> synced;
  for (int i = 0; i < 3; ++i) {
    synced.push_back(op("aten::mm", 30.0 * i, 20));
    synced.push_back(launch("cuda_runtime", "cudaLaunchKernel", 30.0 * i + 5, i + 1));
    synced.push_back(device("kernel", "ampere_sgemm_128x128_nn", 30.0 * i + 8, 10, i + 1));
  }
  const Workload kept = read_trace(dir, "synced.json", trace(synced));
  CHECK(*kept.pass_s == doctest::Approx(30e-6));
  CHECK_FALSE(has_note(kept, "the GPU ran behind the CPU"));

  // The same ops, but the loop body differs once: no repeats, one pass.
  events.push_back(op("aten::conv2d", 300, 40));
  const Workload one = read_trace(dir, "not_a_loop.json", trace(events));
  CHECK(one.passes == 1);
  CHECK(find_one(one, "aten::relu").count == doctest::Approx(3));
}

namespace {

std::vector<Platform> shipped_platforms() {
  std::vector<Platform> out;
  for (const auto& [name, p] : test::catalog().platforms) out.push_back(p);
  return out;
}

}  // namespace

TEST_CASE("devices: nsys exports and XPlane profiles name the device they ran on") {
  IngestOptions o;
  o.workload = "t";
  CHECK(
      ingest_files({test::shared_path("traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite")}, o).device ==
      "NVIDIA A100-SXM4-40GB");  // TARGET_INFO_GPU.name of the one GPU
  // The MI300X profile's device planes state the vendor, compute capability, cores and
  // memory (memory_size), and no model name.
  const Workload xp =
      ingest_files({test::shared_path("traces/tensorflow/xplane/tracelens_mi300x_jax_conv_minimal_08.xplane.pb")}, o);
  CHECK(xp.device == "AMD GPU, compute capability 9.4, 304 cores, 192 GiB");
  CHECK(xp.device_figures.vendor == "AMD");
  CHECK(xp.device_figures.compute_units == 304);
  // Recognised by its figures: MI325X has the same die and 304 CUs, and 256 GB.
  Workload w = xp;
  CHECK(set_recording_platform(w, "", shipped_platforms()).name == "MI300X");
  CHECK(has_note(w, "recorded on MI300X: the trace names AMD GPU, compute capability 9.4, 304 cores, 192 GiB"));
}

TEST_CASE("Kineto: the device named in computeProperties (before 1.9) or deviceProperties; a bad rank refused") {
  ScratchDir dir;
  IngestOptions o;
  o.workload = "t";
  const std::string events = "[" + op("aten::mm", 10, 5) + "]";
  const std::string old_schema =
      dir.write("old.json", R"({"schemaVersion": 1, "computeProperties": [{"id": 0, "name": "Tesla V100-DGXS-32GB"}], )"
                            R"("traceEvents": )" +
                                events + "}");
  const Workload w = ingest_files({old_schema}, o);
  CHECK(w.device == "Tesla V100-DGXS-32GB");
  CHECK(has_note(w, "device: Tesla V100-DGXS-32GB (1 listed in computeProperties)"));
  // A rank that is no rank of the job, in one trace read alone, as in several ranks' traces.
  for (const std::string& info :
       {std::string(R"({"rank": -1, "world_size": 2})"), std::string(R"({"rank": 0, "world_size": 0})"),
        std::string(R"({"rank": "a", "world_size": 2})")}) {
    CAPTURE(info);
    const std::string bad = dir.write(
        "rank.json", R"({"schemaVersion": 1, "distributedInfo": )" + info + R"(, "traceEvents": )" + events + "}");
    try {
      (void)ingest_files({bad}, o);
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.file == bad);
      CHECK(e.field.starts_with("distributedInfo."));
    }
  }
}

TEST_CASE("a device known by its figures alone: one platform of that vendor, CUs and memory, or none") {
  const auto known = shipped_platforms();
  DeviceFigures mi300x{"AMD", 304, 192.0 * 1073741824.0};
  CHECK(match_device_figures(mi300x, known) == std::optional<std::string>("MI300X"));
  DeviceFigures mi325x{"amd", 304, 256.0 * 1073741824.0};
  CHECK(match_device_figures(mi325x, known) == std::optional<std::string>("MI325X"));
  // Memory between the two: neither is within 5%.
  CHECK_FALSE(match_device_figures(DeviceFigures{"AMD", 304, 224.0 * 1073741824.0}, known));
  // Another vendor's part with those figures, or a figure missing: no guess.
  CHECK_FALSE(match_device_figures(DeviceFigures{"NVIDIA", 304, 192.0 * 1073741824.0}, known));
  CHECK_FALSE(match_device_figures(DeviceFigures{"AMD", 0, 192.0 * 1073741824.0}, known));
  CHECK_FALSE(match_device_figures(DeviceFigures{"", 304, 192.0 * 1073741824.0}, known));
}

TEST_CASE("a device name that matches a spec whose figures it does not share says so") {
  const auto known = shipped_platforms();
  // An H100 NVL (94 GiB, 132 SMs) is named "NVIDIA H100 NVL": the H100 SXM5 spec matches.
  Workload nvl;
  nvl.device = "NVIDIA H100 NVL";
  nvl.device_figures = DeviceFigures{"NVIDIA", 132, 94.0 * 1073741824.0};
  const RecordingPlatform r = set_recording_platform(nvl, "", known);
  REQUIRE(r.name == "H100");
  CHECK(r.note.find("94 GiB of memory (the spec's 80)") != std::string::npos);
  CHECK(r.note.find("compute units") == std::string::npos);  // 132 SMs are the spec's
  REQUIRE(!nvl.notes.empty());
  CHECK(nvl.notes.back() == r.note);
  // The 80 GB board reports 79.2 GiB (85,031,714,816 bytes): within 5%, nothing to say.
  Workload sxm;
  sxm.device = "NVIDIA H100 80GB HBM3";
  sxm.device_figures = DeviceFigures{"NVIDIA", 132, 85031714816.0};
  const RecordingPlatform same = set_recording_platform(sxm, "", known);
  CHECK(same.name == "H100");
  CHECK(same.note == "recorded on H100: the trace names NVIDIA H100 80GB HBM3");
}

TEST_CASE("Kineto: autograd's thread runs backward only, its ops between nodes too; the main thread is unaffected") {
  // PyTorch 1.9 runs the bias gradient's aten::sum on the engine thread after AddBackward1,
  // not inside it: it had been read as forward.
  ScratchDir dir;
  const Workload w =
      read_trace(dir, "autograd.json",
                 trace({op("aten::add", 10, 5, 1), op("aten::sum", 20, 5, 1),  // main: forward
                        op("AddBackward1", 100, 10, 2), op("aten::sum", 115, 4, 2), op("MulBackward0", 130, 10, 2)}));
  int forward_sums = 0, backward_sums = 0;
  for (const auto& o : w.ops)
    if (o.name == "aten::sum") (o.phase == Phase::backward ? backward_sums : forward_sums) += 1;
  CHECK(forward_sums == 1);
  CHECK(backward_sums == 1);
}
