// A Python function profile (cProfile) of a run on a GPU times each call's dispatch and
// kernel launches on the host (and, in calls that wait on the GPU, the GPU's time): its ops are carried by host
// speed, and every estimate says so. The same listing recorded on a CPU keeps its kinds' models.
#include <doctest/doctest.h>

#include <string>

#include "cli_json.hpp"
#include "test_support.hpp"

using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::source_path;

namespace {

// The listing's `{method 'dot' of 'numpy.ndarray' objects}` row: a GEMM by its name.
nlohmann::json dot_row(const nlohmann::json& estimate) {
  for (const auto& o : estimate["ops"])
    if (o["name"].get<std::string>().find("method 'dot'") != std::string::npos) return o;
  FAIL("no dot row");
  return {};
}

double host_speed(const std::string& platform) {
  const auto spec = nlohmann::json::parse(fomcast::test::slurp(source_path("data/platforms/" + platform + ".json")));
  return spec["host_speed"]["value"].get<double>();
}

}  // namespace

TEST_CASE("a cProfile recorded on a GPU is carried by host speed, with a warning; on a CPU it is not") {
  ScratchDir dir;
  const std::string db = dir.file("h.db");
  const std::string listing = source_path("tests/data/profiles/chainer_k_original.txt");
  run_json("ingest '" + listing + "' --workload on_gpu --platform NV_V100", db);
  const auto e = run_json("estimate --workload on_gpu --platform A100", db);
  const auto dot = dot_row(e);
  CHECK(dot["kind"] == "gemm");
  // NV_V100's and A100's hosts (PassMark single-thread ratings in their specs): the call's
  // time moves by their ratio, not by the GPUs' fp32 peaks (15.7 and 19.5 TFLOP/s).
  CHECK(dot["predicted_s"].get<double>() ==
        doctest::Approx(dot["baseline_s"].get<double>() * host_speed("NV_V100") / host_speed("A100")));
  CHECK(dot["detail"].get<std::string>().find("timed on the host: a function profile of a GPU run") !=
        std::string::npos);
  CHECK(fomcast::test::any_note_contains(e["notes"], "a Python function profile of a run on NV_V100 times the host"));
  const auto text = fomcast::test::run_fomcast("estimate --workload on_gpu --platform A100", db);
  CHECK(text.out.find("WARNING a Python function profile of a run on NV_V100") != std::string::npos);

  // H100's spec has no host speed: the ops keep their measured time, and the methods line says
  // how many of the "scaled" were carried so.
  const auto h100 = fomcast::test::run_fomcast("estimate --workload on_gpu --platform H100", db);
  CHECK_MESSAGE(h100.out.find("carried at their measured time: no figure to scale them by") != std::string::npos,
                h100.out);
  CHECK(text.out.find("carried at their measured time") == std::string::npos);  // A100 states one

  // Recorded on the K computer's CPU (SPARC64 VIIIfx), the GEMM row is the CPU's compute.
  run_json("ingest '" + listing + "' --workload on_cpu --platform SPARC64_VIIIfx", db);
  const auto c = run_json("estimate --workload on_cpu --platform Xeon_8480p", db);
  CHECK(dot_row(c)["detail"].get<std::string>().find("timed on the host") == std::string::npos);
  CHECK_FALSE(fomcast::test::any_note_contains(c["notes"], "a Python function profile of a run on"));
}
