// CPU-side readings of a Kineto trace: on the CPU an op's self time is its own, so an op that
// only wraps the ops that move the data keeps its time but not their bytes; a trace whose
// model ran on a GPU the profiler did not record keeps no op time as measured; and a CPU
// target takes nothing from a GPU's tables.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fomcast/estimate.hpp"
#include "fomcast/ingest.hpp"
#include "shipped_catalog.hpp"
#include "test_support.hpp"
#include "workload_queries.hpp"

using namespace fomcast;
using fomcast::test::has_note;
using fomcast::test::ScratchDir;

namespace {

std::string op(const std::string& name, double ts, double dur, const std::string& dims = "") {
  std::string args = dims.empty() ? "" : R"(, "args": {"Input Dims": )" + dims + R"(, "Input type": ["float"]})";
  return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) +
         R"(, "dur": )" + std::to_string(dur) + args + "}";
}

Workload read(ScratchDir& dir, const std::vector<std::string>& events) {
  std::string text = R"({"schemaVersion": 1, "traceEvents": [)";
  for (std::size_t i = 0; i < events.size(); ++i) text += (i ? ",\n" : "\n") + events[i];
  IngestOptions o;
  o.workload = "cpu";
  return ingest_files({dir.write("cpu.json", text + "]}")}, o);
}

const Op* find(const Workload& w, const std::string& name) {
  for (const auto& o : w.ops)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace

TEST_CASE("CPU trace: a wrapper keeps its own time as kind 'other'; an op that does its own work stays itself") {
  ScratchDir dir;
  const std::string x = "[[128, 256, 7, 64], [256], [256], [256], [256]]";
  const Workload w =
      read(dir, {// aten::batch_norm (9 us of its own) around native_batch_norm (400 us): a wrapper.
                 op("aten::batch_norm", 0, 409, x), op("aten::native_batch_norm", 5, 400, x),
                 // aten::div_ (2.5 ms of its own) with a scalar copied in (aten::to, 4 us): its own work.
                 op("aten::div_", 1000, 2504, "[[128, 49152], []]"), op("aten::to", 1001, 4, "[[]]")});
  const Op* bn = find(w, "aten::batch_norm");
  REQUIRE(bn);
  CHECK(bn->kind == OpKind::other);
  CHECK(bn->bytes == 0);
  CHECK(*bn->self_time_s == doctest::Approx(9e-6));
  const Op* native = find(w, "aten::native_batch_norm");
  REQUIRE(native);
  CHECK(native->kind == OpKind::normalization);
  CHECK(native->bytes > 0);
  const Op* div = find(w, "aten::div_");
  REQUIRE(div);
  CHECK(div->kind == OpKind::elementwise);
  CHECK(*div->self_time_s == doctest::Approx(2500e-6));
  CHECK(has_note(w, "CPU ops that only wrap nested ops"));
}

TEST_CASE("a GPU's ops in a trace without device activity: no op time kept as measured, the pass kept") {
  ScratchDir dir;
  const Workload w = read(dir, {op("aten::conv2d", 0, 200), op("aten::cudnn_convolution", 10, 169, ""),
                                op("aten::relu", 300, 20, "[[32, 64, 55, 55]]")});
  CHECK(has_note(w, "a GPU ran this model (aten::cudnn_convolution), but the trace holds no device activity"));
  CHECK_FALSE(has_note(w, "CPU-only trace"));
  for (const auto& o : w.ops) CHECK_FALSE(o.self_time_s);
  REQUIRE(w.pass_s);
  CHECK(*w.pass_s == doctest::Approx(320e-6));
}

TEST_CASE("kernel launches with no kernel in the trace: the same, not a CPU-only trace") {
  // Half an MI250 trace, or one whose kernel events were cut away, had read as "CPU-only":
  // its ops' host times kept as measurements of the device's work.
  ScratchDir dir;
  const std::string launch =
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 5, )"
      R"("args": {"correlation": 7, "External id": 3}})";
  const Workload w = read(dir, {op("aten::mm", 10, 30, "[[64, 64], [64, 64]]"), launch});
  CHECK(has_note(w, "a GPU ran this model (1 kernel launch call(s), cudaLaunchKernel the first)"));
  CHECK_FALSE(has_note(w, "CPU-only trace"));
  for (const auto& o : w.ops) CHECK_FALSE(o.self_time_s);
}

TEST_CASE("a CPU target takes no timing or launch gap from a GPU's tables") {
  ScratchDir dir;
  const Workload w = read(dir, {op("aten::_log_softmax", 0, 186, "[[16, 2048], [], []]"),
                                op("aten::mm", 200, 1162, "[[16, 2048], [2048, 4]]")});
  const PassEstimate pe = estimate_pass(w, "Xeon_8480p", test::catalog());
  for (const auto& e : pe.ops) {
    INFO(e.detail);
    const Platform* source = test::catalog().platform(e.source_platform);
    if (source) CHECK(source->device_kind != "gpu");
    CHECK(e.detail.find("NV_") == std::string::npos);
    CHECK(e.launch_gap_s == 0);
  }
  CHECK(pe.launch_gap_s == 0);
}

TEST_CASE("a CPU-only trace estimated on a GPU says its times are a CPU's; on a CPU it does not") {
  // HTA's rank 34 of a 300-rank gloo job, no GPU: its 210 ms of CPU all-reduces came out 554
  // us on a V100 cluster's network, and nothing said the trace had measured a CPU.
  ScratchDir dir;
  const std::string db = dir.file("gloo.db");
  REQUIRE(test::run_fomcast("ingest --workload gloo " +
                                test::shared_path("traces/pytorch_kineto/hta_cpu_only_rank-34.pt.trace.json.gz"),
                            db)
              .status == 0);
  const auto gpu = test::run_fomcast("estimate --workload gloo --platform NV_V100", db);
  REQUIRE_MESSAGE(gpu.status == 0, gpu.err);
  CHECK_MESSAGE(gpu.out.find("WARNING projected from a CPU-only trace to a GPU: its measured times are a CPU's, "
                             "not a GPU's") != std::string::npos,
                gpu.out);
  const auto cpu = test::run_fomcast("estimate --workload gloo --platform Xeon_8480p", db);
  REQUIRE_MESSAGE(cpu.status == 0, cpu.err);
  CHECK(cpu.out.find("CPU-only trace") == std::string::npos);
  // A GPU trace on a GPU: nothing to say.
  IngestOptions o;
  o.workload = "rn50";
  const Workload v100 = ingest_files(
      {test::shared_path("traces/pytorch_kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz")}, o);
  for (const auto& n : estimate_pass(v100, "A100", test::catalog()).notes)
    CHECK(n.find(kCpuOnlyProjectedNote) == std::string::npos);
}

TEST_CASE("measured times from a trace that names no machine are said to be carried as measured, not projected") {
  ScratchDir dir;
  const std::string db = dir.file("np.db");
  const std::string trace =
      dir.write("t.json", std::string(R"({"schemaVersion": 1, "traceEvents": [)") + op("my_op", 0, 20) + "]}");
  // An op without shape, costs or a machine to carry its time from.
  REQUIRE(test::run_fomcast("ingest '" + trace + "' --workload np", db).status == 0);
  const auto r = test::run_fomcast("estimate --workload np --platform A100", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("WARNING not projected: the trace does not say which machine it was recorded on, so its 1 "
                   "measured op(s) are carried to A100 as measured") != std::string::npos);
  // Named, it is a projection, and nothing is said.
  REQUIRE(test::run_fomcast("ingest '" + trace + "' --workload named --platform NV_V100", db).status == 0);
  CHECK(test::run_fomcast("estimate --workload named --platform A100", db).out.find("not projected") ==
        std::string::npos);
}
