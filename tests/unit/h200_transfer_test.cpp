// An out-of-sample check of the transfer to a GPU with no table: NeuSight's shapes timed on
// an H200 (tests/data/measured/, scripts/measure_neusight_kernels.py), imported as that
// card's table, and predicted by `validate`'s leave-platform-out from the five shipped
// NeuSight GPUs. Nothing was fitted to these rows; the medians are held where they are now
// (docs/accuracy.md section 5, "An H200 nobody's tables measured") so a change that moves
// them is seen.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::run_fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::source_path;

TEST_CASE("H200 measured outside the shipped tables: leave-platform-out per kind, held") {
  ScratchDir dir;
  const std::string db = dir.file("h.db");
  const auto imported = run_fomcast("import-bench '" + source_path("tests/data/measured/h200_neusight_fp32.csv") +
                                        "' --format neusight --platform H200",
                                    db);
  REQUIRE_MESSAGE(imported.status == 0, imported.err);
  const json rows = run_json("validate", db)["leave_platform_out"];
  // Measured now (2026-11-26): the transfer's median per kind, rounded up plus two points.
  const std::map<std::string, double> bound{{"gemm", 0.22},        {"batched_gemm", 0.37}, {"conv", 0.47},
                                            {"elementwise", 0.33}, {"reduction", 0.49},    {"normalization", 0.33}};
  std::map<std::string, double> seen;
  for (const auto& r : rows)
    if (r["held_out"] == "H200") {
      const std::string kind = r["kind"].get<std::string>();
      INFO(kind << ": " << r["median_abs_error"].get<double>());
      CHECK(r["n"].get<int>() >= 70);
      REQUIRE(bound.count(kind));
      CHECK(r["median_abs_error"].get<double>() <= bound.at(kind));
      seen[kind] = r["median_abs_error"].get<double>();
    }
  CHECK(seen.size() == bound.size());
}
