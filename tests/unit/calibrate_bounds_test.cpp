// Calibrations that cannot be true: a measured pass below the roofline of the workload's
// operations on the platform (every op's flops at peak, bytes at memory bandwidth), or more
// than 1000 times above it without --force, is refused naming the bound, exit 2, the
// database unchanged.
#include <doctest/doctest.h>

#include <algorithm>

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
