// The accuracy claims of docs/accuracy.md, checked on every run: leave-one-out on every
// DeepBench platform's own tables, and leave-one-platform-out through the proxy the
// estimator picks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "fomcast/store.hpp"
#include "fomcast/validate.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;

TEST_CASE("error statistics") {
  const ErrorStats s = error_stats({1.1, 0.9, 2.0, 1.0}, {1.0, 1.0, 1.0, 1.0});
  CHECK(s.n == 4);
  CHECK(s.median == doctest::Approx(0.1));  // errors 0.1, 0.1, 1.0, 0
  CHECK(s.mean_log_ratio == doctest::Approx((std::log(1.1) + std::log(0.9) + std::log(2.0)) / 4));
}

TEST_CASE("leave-one-out: median error within 15% on every DeepBench platform") {
  ScratchDir dir;
  const Catalog catalog = load_catalog(test::open_seeded(dir.file("v.db")));
  const LooReport r = validate_leave_one_out(catalog);
  CHECK(r.platforms.size() == 14);  // every DeepBench platform has a table
  for (const auto& p : r.platforms) {
    CHECK_MESSAGE(p.gemm_and_conv.n > 0, p.platform);
    CHECK_MESSAGE(p.gemm_and_conv.median <= 0.15, p.platform << " " << p.gemm_and_conv.median);
  }
  // Every training GEMM was predicted by interpolation, its whole shape left out (no
  // answer from the same M, N, K with other transposes).
  for (const auto& g : r.groups)
    if (g.kind == "gemm") CHECK(g.exact_other_transposes == 0);

  // Leave-one-platform-out: a proxy of the same architecture transfers within 20%, and
  // over all targets the chosen proxy beats a source picked blindly. (KNL, the only CPU,
  // has no good proxy: docs/accuracy.md.)
  const auto transfers = validate_platform_transfer(catalog);
  CHECK(transfers.size() >= 11);
  std::vector<double> chosen, blind;
  for (const auto& t : transfers) {
    chosen.push_back(t.chosen_stats.median);
    blind.push_back(t.median_over_sources);
    const Platform* a = catalog.platform(t.target);
    const Platform* b = catalog.platform(t.chosen);
    REQUIRE(a);
    REQUIRE(b);
    if (a->architecture == b->architecture) CHECK_MESSAGE(t.chosen_stats.median <= 0.20, t.target);
  }
  std::sort(chosen.begin(), chosen.end());
  std::sort(blind.begin(), blind.end());
  CHECK(chosen[chosen.size() / 2] < blind[blind.size() / 2]);
}

TEST_CASE("fomcast validate prints and emits JSON, unknown names are usage errors") {
  ScratchDir dir;
  const std::string db = dir.file("v.db");
  auto r = run_fomcast("validate --platform NV_V100 --platform NV_K20X --json", db);
  // NV_K20X has no table to validate.
  CHECK(r.status == 2);
  r = run_fomcast("validate --platform NV_V100 --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["leave_one_out"]["platforms"].size() == 1);
  CHECK(j["leave_one_out"]["platforms"][0]["platform"] == "NV_V100");
  CHECK(j["leave_one_platform_out"][0]["chosen"] == "NV_P100");
  r = run_fomcast("validate --platform NV_V100", db);
  CHECK(r.status == 0);
  CHECK(r.out.find("Leave-one-out") != std::string::npos);
  CHECK(run_fomcast("validate --no-tables --pair a,b", db).status == 2);
  CHECK(run_fomcast("validate --pair nocomma", db).status == 2);
}
