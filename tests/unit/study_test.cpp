// Malformed studies: each gets an error naming the file and the field, exit status 2, and
// writes nothing.
#include <doctest/doctest.h>

#include <utility>

#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/model.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;

namespace {

const char* kGood = R"({"name": "s", "baseline": {"platform": "NV_K20X", "nodes": 18688},
  "target": {"platform": "A", "nodes": 94000},
  "problems": [{"name": "P1", "baseline_hours": 60, "target_hours": 4}]})";

std::string field_error(const std::string& text) {
  try {
    parse_study(text, "study.json");
  } catch (const InputError& e) {
    CHECK(e.file == "study.json");
    return e.field.empty() ? e.message : e.field;
  }
  FAIL("no error for: " << text);
  return "";
}

std::string with(const std::string& pointer, const nlohmann::json& value) {
  auto j = nlohmann::json::parse(kGood);
  j[nlohmann::json::json_pointer(pointer)] = value;
  return j.dump();
}

std::string without(const std::string& pointer) {
  auto j = nlohmann::json::parse(kGood);
  const auto p = nlohmann::json::json_pointer(pointer);
  j[p.parent_pointer()].erase(p.back());
  return j.dump();
}

}  // namespace

TEST_CASE("a good study parses") {
  Study s = parse_study(kGood, "study.json");
  CHECK(s.baseline.platform == "NV_K20X");
  CHECK(s.target.nodes == 94000);
  REQUIRE(s.problems.size() == 1);
  CHECK(*s.problems[0].baseline_hours == 60);
}

TEST_CASE("a misspelt problem field says which it meant") {
  try {
    parse_study(with("/problems/0/precison", "bf16"), "study.json");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.field == "problems[0].precison");
    CHECK(std::string(e.what()).find("unknown field (did you mean \"precision\"?)") != std::string::npos);
  }
  for (const auto& c : {std::pair{std::string("/basline"), std::string("baseline")},
                        std::pair{std::string("/baseline/devices_per_unti"), std::string("devices_per_unit")}}) {
    const std::string& pointer = c.first;
    const std::string& meant = c.second;
    try {
      parse_study(with(pointer, 1), "study.json");
      FAIL("no error for " << pointer);
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("(did you mean \"" + meant + "\"?)") != std::string::npos);
    }
  }
  try {
    parse_study(with("/problems/0/zzzzzzzzzz", 1), "study.json");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("unknown field (docs/study-format.md lists them)") != std::string::npos);
  }
}

TEST_CASE("each malformed study names the field") {
  CHECK(field_error(without("/baseline")) == "baseline");
  CHECK(field_error(without("/target/nodes")) == "target.nodes");
  CHECK(field_error(with("/target/nodes", 0)) == "target.nodes");
  CHECK(field_error(with("/baseline/nodes", -5)) == "baseline.nodes");
  CHECK(field_error(with("/baseline/nodes", "many")) == "baseline.nodes");
  CHECK(field_error(with("/baseline/platform", 7)) == "baseline.platform");
  CHECK(field_error(with("/problems", nlohmann::json::array())) == "problems");
  CHECK(field_error(with("/problems", "P1")) == "problems");
  CHECK(field_error(with("/problems/0/baseline_hours", -1)) == "problems[0].baseline_hours");
  CHECK(field_error(with("/problems/0/target_hours", 0)) == "problems[0].target_hours");
  CHECK(field_error(with("/problems/0/target_hours", "4")) == "problems[0].target_hours");
  CHECK(field_error(without("/problems/0/target_hours")) == "problems[0].target_hours");
  CHECK(field_error(without("/problems/0/name")) == "problems[0].name");
  CHECK(field_error(with("/problems/0/baseline_hour", 3)) == "problems[0].baseline_hour");
  CHECK(field_error(with("/problems/0/epochs", 2.5)) == "problems[0].epochs");
  // A misspelt field outside the problems was ignored: "devices_per_units" left the target
  // at one device per node, the candle study's FOM 8x lower, without a word.
  CHECK(field_error(with("/target/devices_per_units", 8)) == "target.devices_per_units");
  CHECK(field_error(with("/baseline/node", 3)) == "baseline.node");
  CHECK(field_error(with("/problem", nlohmann::json::array())) == "problem");
  CHECK(field_error(with("/description", 5)) == "description");  // was an internal error
  // Two measured baseline times: one would be dropped.
  CHECK(field_error(with("/problems/0/baseline_epoch_s", 5)) == "problems[0].baseline_epoch_s");
}

TEST_CASE("not JSON: the error gives line and byte offset") {
  try {
    parse_study("{\n  \"name\": \"x\",\n  oops\n}", "bad.json");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.file == "bad.json");
    CHECK(e.line == 3);
    CHECK(e.byte_offset > 0);
  }
}

TEST_CASE("fomcast fom on bad studies: exit 2, message names file and field, database untouched") {
  ScratchDir dir;
  const std::string db = dir.file("s.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);  // create and seed
  const std::string before = test::file_fingerprint(db);

  struct Case {
    std::string text, expect;
  };
  const std::vector<Case> cases = {
      {with("/target/nodes", 0), "target.nodes"},
      {with("/target/platform", "NoSuchMachine"), "target.platform"},
      {with("/problems", nlohmann::json::array()), "problems"},
      {"this is not json", "not valid JSON"},
      {"", "not valid JSON"},
      {"[1,2,3]", "JSON object"},
      // Keys given twice: JSON keeps the last, so the first would vanish without a word.
      {R"({"name": "a", "name": "b"})", "name: given twice"},
      // Past a double: the line and byte of the number, not just the parser's words.
      {"{\n  \"name\": \"a\",\n  \"problems\": [{\"epochs\": 1e400}]}", ":3: byte 43: the number 1e400"},
      {R"({"problems": [{"name": "p"}, {"name": "q", "epochs": 1, "epochs": 2}]})", "problems[1].epochs: given twice"},
  };
  for (const auto& c : cases) {
    const std::string file = dir.write("bad.json", c.text);
    const auto r = run_fomcast("fom '" + file + "'", db);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find(file) != std::string::npos, r.err);
    CHECK_MESSAGE(r.err.find(c.expect) != std::string::npos, r.err);
    CHECK(r.out.empty());
  }
  CHECK(run_fomcast("fom '" + dir.file("missing.json") + "'", db).status == 2);
  CHECK(test::file_fingerprint(db) == before);
}

TEST_CASE("fomcast fom: a workload problem on a platform with nothing to estimate from names the file and field") {
  ScratchDir dir;
  const std::string db = dir.file("n.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const std::string before = test::file_fingerprint(db);
  // The worked example's machine A is measured hours only: no figures to estimate
  // a workload with. It had said "cannot estimate: platform 'A' ...", no file, no field.
  auto study = nlohmann::json::parse(test::slurp(test::source_path("data/studies/worked-example.json")));
  study["problems"][0] = {{"name", "P1"}, {"workload", "P1B2"}};
  const std::string file = dir.write("on_a.json", study.dump());
  const auto r = run_fomcast("fom '" + file + "'", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("fomcast: error: " + file) == 0, r.err);
  CHECK_MESSAGE(r.err.find("target.platform") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("problems[0] (P1): platform 'A' has no figures to estimate with") != std::string::npos,
                r.err);
  CHECK(test::file_fingerprint(db) == before);
}
