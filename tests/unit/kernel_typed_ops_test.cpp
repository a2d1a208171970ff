// A Kineto trace without record_shapes (pytorch/kineto's tb_plugin test trace: one step of a
// two-layer MLP on a V100): ops the names do not list are typed by the kernels they launched,
// the notes cite kernels the trace holds, and a kernel's fixed latency is not scaled away on a
// faster GPU. tests/README.md gives the file's provenance.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "cli_json.hpp"
#include "test_support.hpp"

using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::source_path;

namespace {

const std::string kTrace = "tests/data/profiles/kineto_tb_plugin_v100_mlp_step.json";

}  // namespace

TEST_CASE("Kineto: an op its name does not list takes its kind from its kernel; notes cite the trace's kernels") {
  ScratchDir dir;
  const std::string db = dir.file("k.db");
  const std::string trace = source_path(kTrace);
  run_json("ingest '" + trace + "' --workload mlp", db);
  const auto w = run_json("show mlp --all", db);
  // aten::_s_where launches at::native's where_kernel_impl and aten::ge CompareGEFunctor, both
  // elementwise kernels; read as `other`, they kept their V100 time on every target.
  for (const char* name : {"aten::_s_where", "aten::ge"}) {
    const auto it = std::find_if(w["ops"].begin(), w["ops"].end(), [&](const auto& o) { return o["name"] == name; });
    REQUIRE_MESSAGE(it != w["ops"].end(), name);
    CHECK_MESSAGE((*it)["kind"] == "elementwise", name);
  }
  // The element type note names the first kernel it read, one the trace holds.
  const std::string text = fomcast::test::slurp(trace);
  bool cited = false;
  for (const auto& n : w["notes"]) {
    const std::string note = n.get<std::string>();
    const auto at = note.find("longest kernel's name states (");
    if (at == std::string::npos) continue;
    const auto from = at + std::string("longest kernel's name states (").size();
    const std::string kernel = note.substr(from, note.find(", the first of them)") - from);
    CAPTURE(note);
    CHECK(!kernel.empty());
    CHECK(text.find(kernel) != std::string::npos);
    cited = true;
  }
  CHECK(cited);
}

TEST_CASE("Kineto: a shape-less kernel keeps the trace's fastest call unscaled on a faster GPU") {
  ScratchDir dir;
  const std::string db = dir.file("l.db");
  run_json("ingest '" + source_path(kTrace) + "' --workload mlp", db);
  const auto e = run_json("estimate --workload mlp --platform H100", db);
  // The step's fastest kernels take 1 us a call on the V100 (fills, adds): a kernel's fixed
  // latency.
  double fastest_s = 1;
  for (const auto& o : e["ops"])
    if (o["baseline_s"].is_number() && o["baseline_s"].get<double>() > 0 && o["kind"] != "memcpy")
      fastest_s = std::min(fastest_s, o["baseline_s"].get<double>());
  CHECK(fastest_s == doctest::Approx(1e-6));
  // On an H100 (3.35 / 0.9 TB/s, 67 / 15.7 TFLOP/s fp32) no kernel comes out below the least of
  // its own V100 time and that latency; by the bandwidth ratio alone a fill took 0.27 us.
  int kernels = 0;
  for (const auto& o : e["ops"]) {
    if (o["kind"] == "memcpy" || !o["baseline_s"].is_number()) continue;
    const double baseline = o["baseline_s"].get<double>();
    CAPTURE(o["name"].get<std::string>());
    CHECK(o["predicted_s"].get<double>() >= std::min(baseline, fastest_s) * (1 - 1e-9));
    CHECK(o["predicted_s"].get<double>() <= baseline * (1 + 1e-9));  // and no slower than measured
    ++kernels;
  }
  CHECK(kernels > 10);
}

TEST_CASE("a --platform the trace's own device contradicts is a warning at every estimate, not a note at ingest") {
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  run_json("ingest '" + source_path(kTrace) + "' --workload mlp --platform H100", db);
  const auto e = fomcast::test::run_fomcast("estimate --workload mlp --platform A100", db);
  REQUIRE(e.status == 0);
  CHECK_MESSAGE(e.out.find("WARNING recorded on H100 (--platform), though the trace names Tesla V100-DGXS-32GB, "
                           "which is V100_SXM2_32GB's: its measured times are read as H100's") != std::string::npos,
                e.out);
  // Ingested as the trace says: nothing to warn of.
  run_json("ingest '" + source_path(kTrace) + "' --workload mlp2", db);
  CHECK(fomcast::test::run_fomcast("estimate --workload mlp2 --platform A100", db).out.find("(--platform)") ==
        std::string::npos);
}
