// Calibrations that cannot be true: a measured pass below the roofline of the workload's
// operations on the platform (every op's flops at peak, bytes at memory bandwidth), or more
// than 1000 times above it without --force, is refused naming the bound, exit 2, the
// database unchanged.
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "fomcast/calibrate.hpp"
#include "fomcast/store.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;

TEST_CASE("roofline_floor: each op's flops at peak and bytes at bandwidth, counted") {
  ScratchDir dir;
  const Catalog catalog = load_catalog(test::open_seeded(dir.file("c.db")));
  const Platform& v100 = *catalog.platform("NV_V100");
  Op g;
  g.name = "mm";
  g.kind = OpKind::gemm;
  g.shape = GemmShape{4096, 4096, 4096};
  g.count = 3;
  fill_costs(g);
  Op ew;
  ew.name = "add";
  ew.kind = OpKind::elementwise;
  ew.bytes = 9e8;
  Workload w;
  w.name = "w";
  w.ops = {g, ew};
  // NV_V100's spec: 15.7 TFLOP/s fp32, 900 GB/s.
  const double gemm_s = std::max(2.0 * 4096 * 4096 * 4096 / 15.7e12, 4.0 * 3 * 4096 * 4096 / 900e9);
  const PassFloor f = roofline_floor(w, v100);
  CHECK(f.seconds == doctest::Approx(3 * gemm_s + 9e8 / 900e9));
  CHECK(f.ops == 2);
  CHECK(f.complete);
  Op blank;
  blank.name = "host";
  blank.kind = OpKind::other;
  w.ops.push_back(blank);
  CHECK(!roofline_floor(w, v100).complete);
  // A placeholder has no figures: no floor.
  Platform box;
  box.name = "box";
  CHECK(roofline_floor(w, box).seconds == 0);
}

TEST_CASE("calibrate refuses a time below the roofline, or 1000x above it without --force") {
  ScratchDir dir;
  const std::string db = dir.file("c.db");
  REQUIRE(run_fomcast("workloads", db).status == 0);  // seeded
  const std::string before = test::file_fingerprint(db);
  auto r = run_fomcast("calibrate --workload alexnet --platform NV_V100 --pass-s 1e-9", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("--pass-s 1e-09 cannot be true") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("the roofline of 74 of its 74 operations on NV_V100") != std::string::npos, r.err);
  r = run_fomcast("calibrate --workload alexnet --platform NV_V100 --epoch-s 1", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("--epoch-s 1 cannot be true") != std::string::npos, r.err);
  r = run_fomcast("calibrate --workload alexnet --platform NV_V100 --pass-s 1000", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("give --force") != std::string::npos, r.err);
  CHECK(test::file_fingerprint(db) == before);

  r = run_fomcast("calibrate --workload alexnet --platform NV_V100 --pass-s 1000 --force", db);
  CHECK_MESSAGE(r.status == 0, r.err);
  r = run_fomcast("calibrate --workload alexnet --platform NV_V100 --pass-s 0.1", db);
  CHECK_MESSAGE(r.status == 0, r.err);
}

TEST_CASE("roofline_floor: a 3x3 fp32 conv may run as Winograd, a quarter of the direct flops") {
  ScratchDir dir;
  const Catalog catalog = load_catalog(test::open_seeded(dir.file("w.db")));
  const Platform& v100 = *catalog.platform("NV_V100");
  Op conv;
  conv.name = "conv";
  conv.kind = OpKind::conv;
  ConvShape c;
  c.n = 64, c.c = 256, c.k = 256, c.input = {1, 56, 56}, c.filter = {1, 3, 3}, c.pad = {0, 1, 1};
  conv.shape = c;
  fill_costs(conv);
  Workload w;
  w.name = "w";
  w.ops = {conv};
  // 2 x 64 x 56 x 56 x 256 x 256 x 9 = 236.8 GFLOP direct; Winograd F(4x4, 3x3) does a quarter.
  const double direct_s = 2.0 * 64 * 56 * 56 * 256 * 256 * 9 / 15.7e12;
  const PassFloor f = roofline_floor(w, v100);
  CHECK(f.seconds == doctest::Approx(std::max(direct_s / 4, conv.bytes / 900e9)));
  // A 1x1 conv has no Winograd form: its direct flops bound it.
  c.filter = {1, 1, 1}, c.pad = {0, 0, 0};
  w.ops[0].shape = c;
  w.ops[0].flops = 0, w.ops[0].bytes = 0;  // fill_costs keeps costs already given
  fill_costs(w.ops[0]);
  CHECK(roofline_floor(w, v100).seconds ==
        doctest::Approx(std::max(2.0 * 64 * 56 * 56 * 256 * 256 / 15.7e12, w.ops[0].bytes / 900e9)));
}

TEST_CASE("calibrate: VGG-16's own estimate on a V100 is a possible measurement (Winograd convs)") {
  ScratchDir dir;
  const std::string db = dir.file("v.db");
  const auto e = run_fomcast("estimate --workload vgg16 --platform V100_PCIe_32GB --json", db);
  REQUIRE(e.status == 0);
  const double pass_s = nlohmann::json::parse(e.out)["pass_s"].get<double>();
  const auto r =
      run_fomcast("calibrate --workload vgg16 --platform V100_PCIe_32GB --pass-s " + std::to_string(pass_s), db);
  CHECK_MESSAGE(r.status == 0, r.err);
}

TEST_CASE("a calibration at one batch is not a pass at another: said, and left out") {
  ScratchDir dir;
  const std::string db = dir.file("b.db");
  // NT3 (a model, batch 20) measured at 150 ms per pass on NV_V100.
  REQUIRE(run_fomcast("calibrate --workload NT3 --platform NV_V100 --pass-s 0.15", db).status == 0);
  auto pass_at = [&](const std::string& flags) {
    const auto r = run_fomcast("estimate --workload NT3 --platform NV_V100 --json " + flags, db);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    return std::make_pair(nlohmann::json::parse(r.out)["pass_s"].get<double>(), r.err);
  };
  const auto own = pass_at("");
  CHECK(own.first == doctest::Approx(0.15));
  CHECK(own.second.find("not used") == std::string::npos);
  const auto other = pass_at("--batch 5");
  CHECK(other.first < 0.15 / 2);  // the model at a quarter of the batch, not the measured 150 ms
  CHECK_MESSAGE(other.second.find("measured at batch 20, and this runs batch 5: not used") != std::string::npos,
                other.second);
  // Measured at batch 5 with --batch: that one is used at batch 5.
  REQUIRE(run_fomcast("calibrate --workload NT3 --platform NV_V100 --batch 5 --pass-s 0.05", db).status == 0);
  CHECK(pass_at("--batch 5").first == doctest::Approx(0.05));
  CHECK(pass_at("").second.find("measured at batch 5, and this runs batch 20: not used") != std::string::npos);
  // A trace's ops are its batch: --batch of another is refused, the database unchanged.
  // (tfprof's MatMul sizes of P1B3, whose -1 dimension --batch fills.)
  const std::string trace = test::shared_path("fixtures/seed-formats/tfprof_matrix_sizes_p1b3.txt");
  REQUIRE(run_fomcast("ingest '" + trace + "' --workload mm --platform NV_V100 --batch 8", db).status == 0);
  const std::string before = test::file_fingerprint(db);
  const auto refused = run_fomcast("calibrate --workload mm --platform NV_V100 --batch 16 --pass-s 0.5", db);
  CHECK(refused.status == 2);
  CHECK_MESSAGE(
      refused.err.find("is a trace recorded at batch 8, and its operations are that batch's") != std::string::npos,
      refused.err);
  CHECK(test::file_fingerprint(db) == before);
}
