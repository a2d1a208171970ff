// `fomcast whatif` keeps the per-call launch gap the estimate holds: faster compute or memory
// shrink the device part of a call, a faster host the gap. Checked through the real binary on
// a model whose elementwise ops are each a launch gap and tens of microseconds of streaming.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::any_note_contains;
using fomcast::test::run_fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;

namespace {

double class_after(const json& w, const std::string& name) {
  for (const auto& c : w.at("classes"))
    if (c.at("name") == name) return c.at("scaled_s").get<double>();
  FAIL("no class " << name);
  return 0;
}

double class_before(const json& w, const std::string& name) {
  for (const auto& c : w.at("classes"))
    if (c.at("name") == name) return c.at("reference_s").get<double>();
  FAIL("no class " << name);
  return 0;
}

// A batch of 2048 through two dense layers of 8192: each bias add and activation moves
// 64-128 MB (tens of microseconds of streaming on an H100) on top of what one call costs.
void ingest_small(const std::string& db, const std::string& model) {
  std::ofstream(model) << R"({"name": "small", "batch_size": 2048, "input_shape": [8192], "layers": [
      {"type": "dense", "units": 8192, "activation": "relu"}, {"type": "dense", "units": 8192}]})";
  REQUIRE(run_fomcast("ingest --workload small " + model, db).status == 0);
}

}  // namespace

TEST_CASE("whatif: mem_bw speeds up the device part of an op's time, not its launch gap; host does") {
  ScratchDir dir;
  const std::string db = dir.file("db"), model = dir.file("small.json");
  ingest_small(db, model);
  // H100 has no table: its elementwise ops are transferred, with the sources' median gap.
  const auto at = [&](const std::string& scale) {
    return run_json("whatif --workload small --platform H100 --scale " + scale, db);
  };
  const json ten = at("mem_bw=10"), hundred = at("mem_bw=100"), host = at("mem_bw=100,host=2");
  const double t = class_before(ten, "elementwise");
  const double t10 = class_after(ten, "elementwise"), t100 = class_after(hundred, "elementwise");
  // The class after = gap + device / F: two factors give both parts.
  const double device = (t10 - t100) / (0.1 - 0.01), gap = t - device;
  INFO("elementwise " << t << " s = gap " << gap << " s + device " << device << " s");
  CHECK(device > 0);
  CHECK(gap > 0);
  // The gap per call is the NeuSight hosts' (25-41 us for an empty add, docs/accuracy.md).
  int64_t calls = 0;
  const json est = run_json("estimate --workload small --platform H100", db);
  for (const auto& op : est.at("ops"))
    if (op.at("kind") == "elementwise") calls += static_cast<int64_t>(op.at("count").get<double>());
  REQUIRE(calls > 0);
  CHECK(gap / double(calls) > 20e-6);
  CHECK(gap / double(calls) < 45e-6);
  // host=2 halves the gap and leaves the device part as mem_bw made it.
  CHECK(class_after(host, "elementwise") == doctest::Approx(gap / 2 + device / 100).epsilon(1e-6));
  // Transferred ops: the what-if pass keeps the reference's band and adds the change's; the
  // speedup's band is the change's alone, so it is the narrower.
  const double u_ref = ten.at("reference_uncertainty").get<double>(), u = ten.at("uncertainty").get<double>();
  const double u_speedup = ten.at("speedup_uncertainty").get<double>();
  CHECK(u_ref > 0);
  CHECK(u_speedup > 0);
  CHECK(u == doctest::Approx(std::hypot(u_ref, u_speedup)));
  CHECK(u_speedup < u);
  // A hundred times the bandwidth cannot make the pass a hundred times faster; the note says why.
  CHECK(hundred.at("speedup").get<double>() < 2.0);
  CHECK(any_note_contains(hundred.at("notes"), "launch gap"));
}

TEST_CASE("estimate: launch_gap_s is the launch gaps its op times hold, none in measured times") {
  ScratchDir dir;
  const std::string db = dir.file("db"), model = dir.file("small.json");
  ingest_small(db, model);
  // What whatif holds back under mem_bw and peak_flops together is the estimate's launch_gap_s.
  const json est = run_json("estimate --workload small --platform H100", db);
  const json w = run_json("whatif --workload small --platform H100 --scale mem_bw=1e6,peak_flops=1e6", db);
  const double gap = est.at("launch_gap_s").get<double>();
  CHECK(gap > 0);
  CHECK(gap < est.at("modelled_s").get<double>());
  CHECK(w.at("modelled_s").get<double>() == doctest::Approx(gap).epsilon(1e-3));
  // Each op says its share: within its own time, and the ops' shares add up to the pass's.
  double ops_gap = 0;
  for (const auto& op : est.at("ops")) {
    const double g = op.at("launch_gap_s").get<double>();
    CHECK(g >= 0);
    CHECK(g <= op.at("predicted_s").get<double>());
    ops_gap += op.at("count").get<double>() * g;
  }
  CHECK(ops_gap == doctest::Approx(gap).epsilon(1e-9));
  // A trace estimated on the GPU it was recorded on keeps its measured kernel times: device
  // times, no gap in them.
  REQUIRE(run_fomcast("ingest --workload kineto " +
                          fomcast::test::shared_path("traces/pytorch_kineto/tracelens_h100_bert-small-uncased.json.gz"),
                      db)
              .status == 0);
  const json own = run_json("estimate --workload kineto --platform H100", db);
  double measured = 0;
  for (const auto& op : own.at("ops"))
    if (op.at("method") == "measured") {
      measured += op.at("predicted_per_pass_s").get<double>();
      CHECK(op.at("launch_gap_s").get<double>() == 0);
    }
  CHECK(measured > 0);
  CHECK(own.at("launch_gap_s").get<double>() <= own.at("modelled_s").get<double>() - measured + 1e-12);
}

TEST_CASE("whatif: host <-> device copies move with host_link, not with mem_bw") {
  // ResNet-50 on a V100 (Kineto): its input batch goes host -> device once a step.
  ScratchDir dir;
  const std::string db = dir.file("db");
  REQUIRE(run_fomcast("ingest --workload rn50 '" +
                          fomcast::test::shared_path(
                              "traces/pytorch_kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz") +
                          "'",
                      db)
              .status == 0);
  const json est = run_json("estimate --workload rn50 --platform H100", db);
  double h2d = 0, other = 0;
  for (const auto& op : est.at("ops"))
    if (op.at("kind") == "memcpy") {
      const std::string name = op.at("name").get<std::string>();
      (name.find("HtoD") != std::string::npos || name.find("DtoH") != std::string::npos ? h2d : other) +=
          op.at("predicted_per_pass_s").get<double>();
    }
  REQUIRE(h2d > 0);
  const json mem = run_json("whatif --workload rn50 --platform H100 --scale mem_bw=2", db);
  const json link = run_json("whatif --workload rn50 --platform H100 --scale host_link=2", db);
  // mem_bw leaves the host copies: the class keeps them and halves at most the rest.
  CHECK(class_after(mem, "memcpy") >= h2d);
  CHECK(class_after(link, "memcpy") == doctest::Approx(h2d / 2 + other).epsilon(1e-6));
}

TEST_CASE("whatif: a trace's measured kernels keep their fixed latency, as an estimate on another chip does") {
  // The H200's ResNet-50 step: x10 on every device figure had made each measured op x10
  // faster, its 5 us kernels 0.5 us, where an estimate on another chip carries the fastest
  // call's latency unscaled.
  ScratchDir dir;
  const std::string db = dir.file("w.db");
  REQUIRE(run_fomcast("ingest '" + fomcast::test::source_path("tests/data/profiles/h200_rn50_tf32_b256.json.gz") +
                          "' --workload rn",
                      db)
              .status == 0);
  const json w = run_json("whatif --workload rn --platform H200 --scale peak_flops=10,mem_bw=10 --json", db);
  CHECK(any_note_contains(w.at("notes"), "measured kernels' fixed latency"));
  // Each class moves less than 10x, the small-kernel classes least.
  for (const char* c : {"conv", "normalization", "elementwise", "gemm"}) {
    CAPTURE(c);
    CHECK(class_after(w, c) > class_before(w, c) / 10 * 1.001);
  }
  CHECK(class_before(w, "gemm") / class_after(w, "gemm") < 8);  // three tiny fc calls: mostly latency
  // On its own, no change moves nothing: the fixed part is held, not lost.
  const json same = run_json("whatif --workload rn --platform H200 --scale peak_flops=1 --json", db);
  CHECK(same.at("speedup").get<double>() == doctest::Approx(1.0));
}
