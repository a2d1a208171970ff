// `fomcast ingest model.json`: the real binary reads a layer-list model (format `model`,
// found by content), stores it, and refuses bad files with exit status 2, the file and the
// JSON path named, and the database left exactly as it was.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using fomcast::test::file_fingerprint;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::source_path;

TEST_CASE("ingest auto-detects a model description and show reports its figures") {
  ScratchDir dir;
  const std::string db = dir.file("db");
  const auto r =
      run_fomcast("ingest '" + source_path("tests/data/models/param_linear.json") + "' --workload stacked --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("format") == "model");
  CHECK(j.at("workload") == "stacked");
  CHECK(j.at("ops").get<int>() > 0);
  const auto show = run_fomcast("show stacked --json", db);
  REQUIRE(show.status == 0);
  const auto s = nlohmann::json::parse(show.out);
  // 21 layers of 1024*1024 + 1024 parameters; 21 * 1024 * 1024 MACs per sample.
  CHECK(s.at("params").get<int64_t>() == 21 * (1024 * 1024 + 1024));
  CHECK(s.at("forward_macs").get<double>() == 21.0 * 1024 * 1024);
  CHECK(s.at("weights_bytes").get<double>() == 4.0 * 21 * (1024 * 1024 + 1024));
  CHECK(s.at("batch_size") == 512);
}

TEST_CASE("bad model files: exit 2, file and JSON path named, database unchanged") {
  ScratchDir dir;
  const std::string db = dir.file("db");
  REQUIRE(run_fomcast("ingest '" + source_path("tests/data/models/minitoy.json") + "' --workload toy", db).status == 0);
  const std::string before = file_fingerprint(db);
  struct Case {
    std::string name, text, where;
  };
  const std::string ok_head = R"({"batch_size": 4, "input_shape": [10], "layers": [)";
  const Case cases[] = {
      {"missing.json", R"({"input_shape": [10], "layers": [{"type": "dense", "units": 2}]})", "batch_size"},
      {"wrong_type.json", ok_head + R"({"type": "dense", "units": "two"}]})", "layers[0].units"},
      {"negative.json", ok_head + R"({"type": "dense", "units": 2}, {"type": "dense", "units": -1}]})",
       "layers[1].units"},
      {"unknown_type.json", ok_head + R"({"type": "dense", "units": 2}, {"type": "capsule"}]})", "layers[1].type"},
      {"mismatch.json", ok_head + R"({"type": "dense", "units": 2, "name": "a"}, {"type": "dense", "units": 3,
          "name": "b", "inputs": ["input"]}, {"type": "concatenate", "axis": 0, "inputs": ["a", "b"]},
          {"type": "dense", "units": 4, "input_shape": [6]}]})",
       "layers[3].input_shape"},
      {"not_json.json", "{\"batch_size\": 4, \"layers\": [\n {\"type\": \"dense\",, }]}", ":2: byte"},
      {"nan.json", ok_head + R"({"type": "dropout", "rate": NaN}]})", ":1: byte"},
      {"empty.json", "{}", "batch_size"},
      // A misspelt field is named with the one it likely was; an unknown top-level one says
      // what it is a field of; fp8 is no precision a model trains in here.
      {"misspelt.json", ok_head + R"({"type": "dense", "unit": 2}]})",
       "layers[0].units: required field is missing (given: 'unit', misspelt?)"},
      {"misspelt_top.json", ok_head + R"({"type": "dense", "units": 2}], "epoch": 3})",
       "epoch: unknown field (did you mean 'epochs'?) (see docs/model-format.md for the fields of a model "
       "description)"},
      {"fp8.json", ok_head + R"({"type": "dense", "units": 2}], "dtype": "fp8"})",
       "dtype: 'fp8' is no training precision"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const std::string path = dir.write(c.name, c.text);
    const auto r = run_fomcast("ingest '" + path + "' --workload bad --format model", db);
    CHECK(r.status == 2);
    CHECK(r.err.find(path) != std::string::npos);
    CHECK_MESSAGE(r.err.find(c.where) != std::string::npos, r.err);
    CHECK(file_fingerprint(db) == before);
  }
  // Found by content too: the same bad file through --format auto.
  const auto r =
      run_fomcast("ingest '" + dir.write("auto.json", ok_head + R"({"type": "capsule"}]})") + "' --workload bad", db);
  CHECK(r.status == 2);
  CHECK(r.err.find("layers[0].type") != std::string::npos);
  CHECK(file_fingerprint(db) == before);
  CHECK(run_fomcast("show bad", db).status == 2);
}
