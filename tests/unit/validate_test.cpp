// The accuracy claims of docs/accuracy.md, checked on every run: leave-one-out on every
// DeepBench platform's own tables, and leave-one-platform-out through the proxy the
// estimator picks.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <set>
#include <vector>

#include <algorithm>
#include <cmath>
#include <cstdio>

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
  // Every DeepBench platform has a table, and so do the five NeuSight cards (NV_T4 is both).
  CHECK(r.platforms.size() == 19);
  const std::set<std::string> neusight_only = {"A100_PCIe_40GB", "A100_PCIe_80GB", "V100_PCIe_32GB", "P100_PCIe_16GB",
                                               "P4"};
  for (const auto& p : r.platforms) {
    CHECK_MESSAGE(p.gemm_and_conv.n > 0, p.platform);
    // DeepBench's platforms within 15%; NeuSight's conv tables (Winograd and implicit-GEMM
    // kernels side by side, 3x3 filters only) within 20%.
    CHECK_MESSAGE(p.gemm_and_conv.median <= (neusight_only.count(p.platform) ? 0.20 : 0.15),
                  p.platform << " " << p.gemm_and_conv.median);
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
  CHECK(j["leave_one_platform_out"][0]["chosen"] == "V100_PCIe_32GB");  // the same chip, PCIe
  // Statistics of nothing are null, never a perfect 0: V100 has no RNN forward rows held out
  // by some methods, and a script must not read those as 0% error.
  int empty = 0;
  const std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& v) {
    if (v.is_object()) {
      if (v.contains("n") && v.contains("median") && v["n"] == 0) {
        ++empty;
        CHECK(v["median"].is_null());
        CHECK(v["p90"].is_null());
      }
      for (const auto& [key, child] : v.items()) walk(child);
    } else if (v.is_array()) {
      for (const auto& child : v) walk(child);
    }
  };
  walk(j);
  CHECK(empty > 0);  // the JSON holds such blocks (the check is not vacuous)
  r = run_fomcast("validate --platform NV_V100", db);
  CHECK(r.status == 0);
  CHECK(r.out.find("Leave-one-out") != std::string::npos);
  CHECK(run_fomcast("validate --no-tables --pair a,b", db).status == 2);
  CHECK(run_fomcast("validate --pair nocomma", db).status == 2);
}

TEST_CASE("leave-platform-out: each NeuSight GPU predicted from the others and its spec, per kind") {
  // Each row's median (docs/accuracy.md, section 5) is held at what the transfer reaches now,
  // rounded up to the next whole percent plus one point: a regression bound that fails when
  // the model gets worse on any held-out GPU and kind. Where it meets the targets (10%
  // bmm/linear/elementwise/norm/softmax, 15% conv) the bound is that or tighter; the rows
  // above their target are the open part of issue 13.
  const std::map<std::pair<std::string, std::string>, double> bound{
      {{"A100_PCIe_40GB", "gemm"}, 0.10},           // 8.3%
      {{"A100_PCIe_40GB", "batched_gemm"}, 0.23},   // 21.3%
      {{"A100_PCIe_40GB", "elementwise"}, 0.15},    // 13.0%
      {{"A100_PCIe_40GB", "reduction"}, 0.10},      // 9.9%
      {{"A100_PCIe_40GB", "normalization"}, 0.08},  // 6.3%
      {{"A100_PCIe_80GB", "conv"}, 0.15},           // 14.0%
      {{"NV_T4", "gemm"}, 0.18},                    // 16.9%
      {{"NV_T4", "batched_gemm"}, 0.28},            // 26.8%
      {{"NV_T4", "conv"}, 0.19},                    // 17.0%
      {{"NV_T4", "elementwise"}, 0.07},             // 5.0%
      {{"NV_T4", "reduction"}, 0.09},               // 7.5%
      {{"NV_T4", "normalization"}, 0.08},           // 6.3%
      {{"P100_PCIe_16GB", "gemm"}, 0.23},           // 21.9%
      {{"P100_PCIe_16GB", "batched_gemm"}, 0.25},   // 23.9%
      {{"P100_PCIe_16GB", "conv"}, 0.11},           // 9.2%
      {{"P100_PCIe_16GB", "elementwise"}, 0.29},    // 27.8%
      {{"P100_PCIe_16GB", "reduction"}, 0.42},      // 40.9%
      {{"P100_PCIe_16GB", "normalization"}, 0.12},  // 10.2%
      {{"P4", "gemm"}, 0.35},                       // 33.0%
      {{"P4", "batched_gemm"}, 0.22},               // 20.5%
      {{"P4", "conv"}, 0.15},                       // 13.9%
      {{"P4", "elementwise"}, 0.05},                // 3.5%
      {{"P4", "reduction"}, 0.08},                  // 6.7%
      {{"P4", "normalization"}, 0.10},              // 9.5%
      {{"V100_PCIe_32GB", "gemm"}, 0.23},           // 21.5%
      {{"V100_PCIe_32GB", "batched_gemm"}, 0.23},   // 21.8%
      {{"V100_PCIe_32GB", "conv"}, 0.13},           // 12.0%
      {{"V100_PCIe_32GB", "elementwise"}, 0.17},    // 16.0%
      {{"V100_PCIe_32GB", "reduction"}, 0.15},      // 14.4%
      {{"V100_PCIe_32GB", "normalization"}, 0.21},  // 19.8%
  };
  ScratchDir dir;
  const Catalog catalog = load_catalog(test::open_seeded(dir.file("lpo.db")));
  const auto rows = validate_leave_platform_out(catalog);
  std::set<std::string> held;
  for (const auto& r : rows) {
    INFO(r.held_out << " " << r.kind << " " << r.median_abs_error);
    held.insert(r.held_out);
    CHECK(r.n >= 100);
    CHECK(r.n <= kLeavePlatformOutRows);
    CHECK(r.median_abs_error == doctest::Approx(r.stats.median));
    const auto it = bound.find({r.held_out, r.kind});
    REQUIRE(it != bound.end());
    CHECK(r.median_abs_error <= it->second);
  }
  // Five GPUs (the A100's conv rows are the 80 GB card's), six kinds each but the A100s.
  CHECK(held ==
        std::set<std::string>{"A100_PCIe_40GB", "A100_PCIe_80GB", "NV_T4", "P100_PCIe_16GB", "P4", "V100_PCIe_32GB"});
  CHECK(rows.size() == bound.size());
  // Each row carries issue 13's goal for its kind; 13 of the 30 meet it now (docs/accuracy.md
  // section 5), held as a floor.
  std::size_t met = 0;
  for (const auto& r : rows) {
    CHECK(r.target_abs_error == doctest::Approx(r.kind == "conv" ? 0.15 : 0.10));
    met += r.median_abs_error <= r.target_abs_error ? 1 : 0;
  }
  CHECK(met >= 13);
  const LeavePlatformOutSummary summary = summarize(rows);
  CHECK(summary.rows == rows.size());
  CHECK(summary.met == met);

  // docs/accuracy.md's section 5 table prints these rows: "| held out | kind | n | before |
  // fomcast |", its fomcast column validate's median to 0.1%.
  const std::string doc = test::slurp(test::source_path("docs/accuracy.md"));
  for (const auto& r : rows) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", r.median_abs_error * 100);
    const std::string head = "| " + r.held_out + " | " + r.kind + " | " + std::to_string(r.n) + " | ";
    const auto at = doc.find(head);
    INFO(head << pct);
    REQUIRE(at != std::string::npos);
    const auto before_end = doc.find(" | ", at + head.size());
    CHECK(doc.compare(before_end + 3, std::string(pct).size() + 2, std::string(pct) + " |") == 0);
  }

  // The normalised curves for memory-bound ops alone (curve_rule_error; the estimator tries
  // them first), measured on the same rows: section 5's third-pass table prints "| held out |
  // kind | fomcast | curve rule alone |" as validate gives them, and the 15 rows' median is
  // held at what it is now (9.9%), rounded up plus one point.
  std::vector<double> curve;
  for (const auto& r : rows) {
    if (r.kind != "elementwise" && r.kind != "reduction" && r.kind != "normalization") {
      CHECK(r.curve_rule.n == 0);
      continue;
    }
    CHECK(r.curve_rule.n >= r.n - 2);
    curve.push_back(r.curve_rule.median);
    char line[160];
    std::snprintf(line, sizeof line, "| %s | %s | %.1f%% | %.1f%% |", r.held_out.c_str(), r.kind.c_str(),
                  r.median_abs_error * 100, r.curve_rule.median * 100);
    INFO(line);
    CHECK(doc.find(line) != std::string::npos);
  }
  REQUIRE(curve.size() == 15);
  std::nth_element(curve.begin(), curve.begin() + 7, curve.end());
  CHECK(curve[7] <= 0.11);
}
