// Units of work named right: a study's node count is what it counts (side.unit), a unit of
// work runs on one platform device, and devices_per_unit says how many devices one counted
// node holds (an MI250X module is two GCDs). Output says which.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/fom.hpp"
#include "fomcast/study.hpp"
#include "shipped_catalog.hpp"
#include "test_support.hpp"

using namespace fomcast;
using nlohmann::json;

namespace {

Study study(double devices_per_unit) {
  json s = {{"name", "u"},
            {"baseline", {{"platform", "NV_K20X"}, {"nodes", 10}}},
            {"target", {{"platform", "MI250X"}, {"nodes", 10}, {"unit", "MI250X module"}}},
            {"problems", {{{"name", "P1B2"}, {"workload", "P1B2"}}}}};
  if (devices_per_unit != 1) s["target"]["devices_per_unit"] = devices_per_unit;
  return parse_study(s.dump(), "u.json");
}

FomResult evaluate(const Study& s, const Catalog& cat, Store& store) {
  StudyInputs in;
  in.catalog = &cat;
  in.workload = [&store](std::string_view n) { return store.workload(n); };
  return evaluate_study(s, in);
}

}  // namespace

TEST_CASE("devices_per_unit multiplies the runs a machine holds at once; unit and the spec's devices are said") {
  test::ScratchDir dir;
  Store store = test::open_seeded(dir.file("u.db"));
  Catalog cat = test::catalog();
  const Study one = study(1), two = study(2);
  CHECK(one.target.unit == "MI250X module");
  CHECK(two.target.devices_per_unit == 2);
  const FomResult a = evaluate(one, cat, store), b = evaluate(two, cat, store);
  // Same time per run, twice the runs at once on the target: twice its units/day.
  CHECK(b.problems[0].target.seconds_per_unit == doctest::Approx(a.problems[0].target.seconds_per_unit));
  CHECK(b.problems[0].target.units_per_day == doctest::Approx(2 * a.problems[0].target.units_per_day));
  CHECK(b.problems[0].baseline.units_per_day == doctest::Approx(a.problems[0].baseline.units_per_day));
  CHECK(b.problems[0].target.unit == "MI250X module");
  CHECK(b.problems[0].target.devices_per_unit == 2);
  // Where the spec gives devices per node, the study says how it counts.
  cat.platforms["MI250X"].devices_per_node = Sourced{8, "a test figure"};
  const FomResult c = evaluate(one, cat, store);
  REQUIRE(!c.notes.empty());
  const std::string& n = c.notes.back();
  CHECK(n.find("target: MI250X's spec gives 8 devices per machine node (a test figure)") == 0);
  CHECK(n.find("the study counts 10 nodes (MI250X module) of 1 device(s) each") != std::string::npos);
  CHECK(n.find("target.devices_per_unit not given: 1") != std::string::npos);
  // A bad count is named by its field.
  json bad = json::parse(R"({"name":"u","baseline":{"platform":"NV_K20X","nodes":1},
      "target":{"platform":"MI250X","nodes":1,"devices_per_unit":0},"problems":[{"name":"h","baseline_hours":1,"target_hours":1}]})");
  CHECK_THROWS_WITH_AS(parse_study(bad.dump(), "u.json"), doctest::Contains("target.devices_per_unit"), InputError);
}

TEST_CASE("fom prints what the node counts count") {
  test::ScratchDir dir;
  const auto r =
      test::run_fomcast("fom '" + test::source_path("data/studies/candle-exascale.json") + "'", dir.file("f.db"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("target MI250X x 9,408 nodes (a node here: one Frontier node, four MI250X modules of two GCDs, 8 "
                   "devices, one run per device)") != std::string::npos);
  const auto j = json::parse(
      test::run_fomcast("fom --json '" + test::source_path("data/studies/candle-exascale.json") + "'", dir.file("f.db"))
          .out);
  CHECK(j["problems"][0]["target"]["unit"] == "Frontier node, four MI250X modules of two GCDs");
  CHECK(j["problems"][0]["target"]["devices_per_unit"] == 8);
  // MI250X's spec gives 8 GCDs per Frontier node; the study's count agrees and says so.
  bool said = false;
  for (const auto& n : j["notes"])
    said = said || (n.get<std::string>().find("target: MI250X's spec gives 8 devices per machine node") == 0 &&
                    n.get<std::string>().find("of 8 device(s) each") != std::string::npos);
  CHECK(said);
}
