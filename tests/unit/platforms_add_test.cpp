// `fomcast platforms add SPEC.json`: a user's machine stored from a spec in the schema of
// data/platforms/*.json. A good spec round-trips through `platforms --json` with every figure
// and source as written and estimates; every malformed field is an error naming the file and
// that field (exit 2) with the database left byte for byte as it was; a shipped name needs
// --replace.
#include <doctest/doctest.h>

#include <cmath>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/platform_spec.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::file_fingerprint;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;

namespace {

// A co-design point: every figure with a source, the network fields included.
json good_spec() {
  auto fig = [](double v) { return json{{"value", v}, {"source", "co-design study 7, table 2"}}; };
  return json{{"name", "CoDesign_X"},
              {"description", "a future GPU for a co-design study"},
              {"device_kind", "gpu"},
              {"vendor", "Example"},
              {"architecture", "Future1"},
              {"device_names", {"CoDesign X1"}},
              {"peak_tflop_per_s", {{"fp32", fig(100)}, {"bf16", fig(800)}, {"fp16", fig(800)}}},
              {"mem_bw_gb_per_s", fig(5000)},
              {"mem_gib", fig(96)},
              {"host_link_bw_gb_per_s", fig(63)},
              {"compute_units", fig(144)},
              {"boost_clock_mhz", fig(1900)},
              {"l2_cache_mib", fig(60)},
              {"devices_per_node", fig(8)},
              {"intra_node_bw_gb_per_s", fig(900)},
              {"nics_per_node", fig(8)},
              {"nic_bw_gb_per_s", fig(50)},
              {"power_w", fig(1000)}};
}

json platform_named(const std::string& db, const std::string& name) {
  const auto r = run_fomcast("platforms --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  for (const auto& p : json::parse(r.out))
    if (p["name"] == name) return p;
  return json();
}

}  // namespace

TEST_CASE("platforms add: a good spec round-trips through platforms --json and estimates") {
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  const json spec = good_spec();
  const std::string file = dir.write("x.json", spec.dump(2));

  const auto added = run_fomcast("platforms add '" + file + "' --json", db);
  REQUIRE_MESSAGE(added.status == 0, added.err);
  CHECK(json::parse(added.out)["replaced"].is_null());

  const json listed = platform_named(db, "CoDesign_X");
  REQUIRE(listed.is_object());
  CHECK(listed["origin"] == "user");
  for (const auto& item : spec.items()) {
    const std::string& key = item.key();  // not a structured binding: INFO captures it
    const json& value = item.value();
    INFO(key);
    if (value.is_object() && value.contains("value")) {
      CHECK(listed[key]["value"].get<double>() == doctest::Approx(value["value"].get<double>()));
      CHECK(listed[key]["source"] == value["source"]);
    } else if (key == "peak_tflop_per_s") {
      for (const auto& [d, f] : value.items()) {
        CHECK(listed[key][d]["value"].get<double>() == doctest::Approx(f["value"].get<double>()));
        CHECK(listed[key][d]["source"] == f["source"]);
      }
    } else {
      CHECK(listed[key] == value);
    }
  }

  // It estimates: one shipped model on it, every op predicted, the pass positive and no
  // faster than its largest op at the spec's fp32 peak allows (a bound from the figures given).
  const auto e = run_fomcast("estimate --workload P1B1 --platform CoDesign_X --json", db);
  REQUIRE_MESSAGE(e.status == 0, e.err);
  const json ej = json::parse(e.out);
  CHECK(ej["platform"] == "CoDesign_X");
  CHECK(ej["pass_s"].get<double>() > 0);
  double flops = 0;
  for (const auto& op : ej["ops"]) flops += op["flops"].get<double>() * op["count"].get<double>();
  CHECK(ej["ops_s"].get<double>() >= flops / 100e12 * 0.999);
  CHECK(run_fomcast("platforms", db).out.find("CoDesign_X") != std::string::npos);

  // A listed entry, edited, goes back in: a shipped platform's entry (origin shipped, its
  // table's size) under a new name is a user platform with no table and the same figures.
  json listed_a100 = platform_named(db, "A100_PCIe_40GB");
  REQUIRE(listed_a100["kernel_entries"].get<int64_t>() > 0);
  listed_a100["name"] = "A100_next";
  listed_a100["mem_bw_gb_per_s"]["value"] = 3000;
  const auto again = run_fomcast("platforms add '" + dir.write("next.json", listed_a100.dump(2)) + "'", db);
  REQUIRE_MESSAGE(again.status == 0, again.err);
  const json next = platform_named(db, "A100_next");
  CHECK(next["origin"] == "user");
  CHECK(next["kernel_entries"] == 0);
  CHECK(next["mem_bw_gb_per_s"]["value"].get<double>() == doctest::Approx(3000));
  CHECK(next["peak_tflop_per_s"] == listed_a100["peak_tflop_per_s"]);

  // A spec with a 16-bit peak only: it was infinitely far from every source, and the
  // sources' weights came out NaN ("+/- nan%", elementwise ops at 0.001 us).
  json half = good_spec();
  half["name"] = "HalfOnly_X";
  half["peak_tflop_per_s"].erase("fp32");
  half["peak_tflop_per_s"]["fp16"] = {{"value", 400}, {"source", "co-design point"}};
  REQUIRE(run_fomcast("platforms add '" + dir.write("half.json", half.dump(2)) + "'", db).status == 0);
  // Its fp32 GEMMs have no rate to be timed at: refused, not counted as 0 s (a chip stating
  // only bf16 and fp8 had come out 3x faster than an H100 in fp32).
  const auto fp32 = run_fomcast("estimate --workload P1B2 --platform HalfOnly_X --json", db);
  CHECK(fp32.status == 2);
  CHECK(fp32.err.find("platform 'HalfOnly_X' states no rate for fp32 math (its spec gives fp16, bf16), and 11 "
                      "matrix op(s) of workload 'P1B2' compute in it") != std::string::npos);
  const auto h = run_fomcast("estimate --workload P1B2 --platform HalfOnly_X --precision fp16 --json", db);
  REQUIRE_MESSAGE(h.status == 0, h.err);
  CHECK(h.out.find(": nan") == std::string::npos);  // not "nanoGPT", which a note names
  const json hj = json::parse(h.out);
  CHECK(std::isfinite(hj["uncertainty"].get<double>()));
  for (const auto& op : hj["ops"]) {
    CHECK(std::isfinite(op["uncertainty"].get<double>()));
    if (op["kind"] == "elementwise") CHECK(op["predicted_s"].get<double>() > 1e-6);
  }
}

TEST_CASE("platforms add: each malformed field is an error naming it, the database untouched") {
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);  // a seeded database to leave alone

  // (what is changed in the good spec, the field the error must name, a word of the message)
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    std::string field, says;
  };
  const std::vector<Case> cases = {
      {"peak not a figure", [](json& j) { j["peak_tflop_per_s"]["fp32"] = "fast"; }, "peak_tflop_per_s.fp32",
       "must be"},
      {"bare number", [](json& j) { j["mem_bw_gb_per_s"] = 5000; }, "mem_bw_gb_per_s", "source"},
      {"wrong value type", [](json& j) { j["mem_gib"]["value"] = "96"; }, "mem_gib.value", "must be a number"},
      {"NaN-like value", [](json& j) { j["mem_gib"]["value"] = "NaN"; }, "mem_gib.value", "must be a number"},
      {"negative", [](json& j) { j["boost_clock_mhz"]["value"] = -1900; }, "boost_clock_mhz.value", "> 0"},
      {"zero", [](json& j) { j["power_w"]["value"] = 0; }, "power_w.value", "> 0"},
      // Infinite once converted to B/s: it was stored as null and no command could read the
      // database again.
      {"huge", [](json& j) { j["mem_bw_gb_per_s"]["value"] = 1e308; }, "mem_bw_gb_per_s.value", "beyond any machine"},
      {"huge peak", [](json& j) { j["peak_tflop_per_s"]["fp32"]["value"] = 1.7e299; }, "peak_tflop_per_s.fp32.value",
       "beyond any machine"},
      // A pass of 4e299 s and an uncertainty of inf% followed.
      {"tiny", [](json& j) { j["mem_bw_gb_per_s"]["value"] = 1e-300; }, "mem_bw_gb_per_s.value", "below any machine"},
      {"tiny peak", [](json& j) { j["peak_tflop_per_s"]["fp32"]["value"] = 1e-7; }, "peak_tflop_per_s.fp32.value",
       "below any machine"},
      {"fractional count", [](json& j) { j["compute_units"]["value"] = 144.5; }, "compute_units.value", "whole number"},
      {"fractional links",
       [](json& j) {
         j["intra_node_links"] = {{"value", 1.5}, {"source", "a bridge"}};
       },
       "intra_node_links.value", "whole number"},
      {"more links than peers",
       [](json& j) {
         j["intra_node_links"] = {{"value", 8}, {"source", "a mesh"}};
       },
       "intra_node_links.value", "at most devices_per_node - 1 (7)"},
      {"missing source", [](json& j) { j["l2_cache_mib"].erase("source"); }, "l2_cache_mib.source", "missing"},
      {"empty source", [](json& j) { j["nic_bw_gb_per_s"]["source"] = "  "; }, "nic_bw_gb_per_s.source", "empty"},
      {"source not text", [](json& j) { j["nics_per_node"]["source"] = 3; }, "nics_per_node.source", "text"},
      {"extra key in a figure", [](json& j) { j["mem_gib"]["unit"] = "GB"; }, "mem_gib.unit", "unknown field"},
      {"unknown dtype", [](json& j) { j["peak_tflop_per_s"]["float32"] = j["peak_tflop_per_s"]["fp32"]; },
       "peak_tflop_per_s.float32", "unknown precision"},
      {"no peaks", [](json& j) { j["peak_tflop_per_s"] = json::object(); }, "peak_tflop_per_s", "at least one"},
      // A kind it does not know took away a GPU's per-call floor without a word.
      {"device kind in capitals", [](json& j) { j["device_kind"] = "GPU"; }, "device_kind", "must be gpu, cpu"},
      {"device kind with a space", [](json& j) { j["device_kind"] = "gpu "; }, "device_kind", "got \"gpu \""},
      {"no device kind", [](json& j) { j.erase("device_kind"); }, "device_kind", "missing"},
      {"missing peaks", [](json& j) { j.erase("peak_tflop_per_s"); }, "peak_tflop_per_s", "missing"},
      {"missing bandwidth", [](json& j) { j.erase("mem_bw_gb_per_s"); }, "mem_bw_gb_per_s", "missing"},
      {"misspelt key", [](json& j) { j["mem_bw_gbps"] = j["mem_bw_gb_per_s"]; }, "mem_bw_gbps",
       "did you mean \"mem_bw_gb_per_s\""},
      {"unknown key", [](json& j) { j["favourite_colour"] = "red"; }, "favourite_colour", "unknown field"},
      {"missing name", [](json& j) { j.erase("name"); }, "name", "missing"},
      {"name not a string", [](json& j) { j["name"] = 7; }, "name", "must be a string"},
      {"name a flag", [](json& j) { j["name"] = "-x"; }, "name", "must not start with '-'"},
      {"vendor not a string", [](json& j) { j["vendor"] = json::array(); }, "vendor", "must be a string"},
      {"device_names not an array", [](json& j) { j["device_names"] = "X1"; }, "device_names", "array"},
      {"unknown origin", [](json& j) { j["origin"] = "borrowed"; }, "origin", "user"},
      {"table size not a count", [](json& j) { j["kernel_entries"] = -3; }, "kernel_entries", "whole number"},
  };
  const std::string before = file_fingerprint(db);
  for (const auto& c : cases) {
    INFO(c.what);
    json spec = good_spec();
    c.edit(spec);
    const std::string file = dir.write("bad.json", spec.dump(2));
    const auto r = run_fomcast("platforms add '" + file + "'", db);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find(file + ": " + c.field + ": ") != std::string::npos, r.err);
    CHECK_MESSAGE(r.err.find(c.says) != std::string::npos, r.err);
    CHECK(r.out.empty());
    CHECK(file_fingerprint(db) == before);
  }
  CHECK(platform_named(db, "CoDesign_X").is_null());

  // Not JSON at all: the line and byte of the problem.
  const std::string broken = dir.write("broken.json", "{\n  \"name\": \"X\",\n  \"mem_gib\": {\"value\": NaN}\n}");
  const auto r = run_fomcast("platforms add '" + broken + "'", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find(broken + ":3: byte ") != std::string::npos, r.err);
  CHECK(file_fingerprint(db) == before);

  // A figure given twice: JSON keeps the last, so the spec would silently say something else.
  std::string twice = good_spec().dump(2);
  twice.insert(twice.rfind('}'), R"(, "mem_gib": {"value": 1, "source": "typo"})");
  const auto t = run_fomcast("platforms add '" + dir.write("twice.json", twice) + "'", db);
  CHECK(t.status == 2);
  CHECK_MESSAGE(t.err.find("twice.json: mem_gib: given twice") != std::string::npos, t.err);
  CHECK(file_fingerprint(db) == before);
}

TEST_CASE("platforms add: a shipped platform's name needs --replace; a user's own spec is replaced") {
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  json spec = good_spec();
  spec["name"] = "A100";
  const std::string file = dir.write("a100.json", spec.dump());
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const std::string before = file_fingerprint(db);

  const auto refused = run_fomcast("platforms add '" + file + "'", db);
  CHECK(refused.status == 2);
  CHECK_MESSAGE(refused.err.find("name: 'A100' is a shipped platform; give --replace") != std::string::npos,
                refused.err);
  CHECK(file_fingerprint(db) == before);
  CHECK(platform_named(db, "A100")["origin"] == "shipped");

  // A near miss of a shipped name is refused whatever the flags: it would read as that one.
  spec["name"] = "a-100";
  const auto near = run_fomcast("platforms add '" + dir.write("near.json", spec.dump()) + "' --replace", db);
  CHECK(near.status == 2);
  CHECK_MESSAGE(near.err.find("reads as the platform A100") != std::string::npos, near.err);

  const auto replaced = run_fomcast("platforms add '" + file + "' --replace --json", db);
  REQUIRE_MESSAGE(replaced.status == 0, replaced.err);
  CHECK(json::parse(replaced.out)["replaced"] == "shipped");
  const json mine = platform_named(db, "A100");
  CHECK(mine["origin"] == "user");
  CHECK(mine["mem_bw_gb_per_s"]["value"].get<double>() == doctest::Approx(5000));

  // Adding it again (a corrected spec) replaces the user's own, with a note.
  const auto again = run_fomcast("platforms add '" + file + "'", db);
  CHECK(again.status == 0);
  CHECK_MESSAGE(again.err.find("replacing the user platform 'A100'") != std::string::npos, again.err);
}

TEST_CASE("platform spec keys: a misspelt key finds its field, a stranger none") {
  CHECK(fomcast::nearest_platform_spec_key("mem_bw_gbps") == "mem_bw_gb_per_s");
  CHECK(fomcast::nearest_platform_spec_key("peak_tflops") == "peak_tflop_per_s");
  CHECK(fomcast::nearest_platform_spec_key("memory_gib") == "mem_gib");
  CHECK(fomcast::nearest_platform_spec_key("devices_per_nod") == "devices_per_node");
  CHECK(fomcast::nearest_platform_spec_key("favourite_colour").empty());
  for (const auto& key : fomcast::platform_spec_keys()) CHECK(fomcast::nearest_platform_spec_key(key) == key);
}

TEST_CASE(
    "platforms rm: a platform of yours goes with its calibrations; a shipped one, a near name or none is refused") {
  ScratchDir dir;
  const std::string db = dir.file("rm.db");
  REQUIRE(run_fomcast("platforms add '" + dir.write("x.json", good_spec().dump(2)) + "'", db).status == 0);
  // A placeholder made by an ingest, with a workload recorded on it and a calibration there.
  const auto in = run_fomcast("ingest '" + fomcast::test::source_path("tests/data/profiles/chainer_k_original.txt") +
                                  "' --workload k --platform Lab_X",
                              db);
  REQUIRE_MESSAGE(in.status == 0, in.err);
  REQUIRE(run_fomcast("calibrate --workload k --platform Lab_X --pass-s 2000", db).status == 0);
  const auto listed_before = run_fomcast("platforms --json", db).out;

  // Refusals leave the database as it was.
  const auto shipped = run_fomcast("platforms rm H100", db);
  CHECK(shipped.status == 2);
  CHECK(shipped.err.find("is shipped with fomcast and cannot be removed") != std::string::npos);
  const auto near = run_fomcast("platforms rm codesign_x", db);
  CHECK(near.status == 2);
  CHECK(near.err.find("did you mean CoDesign_X?") != std::string::npos);
  CHECK(run_fomcast("platforms rm Nothing_Here", db).status == 2);
  CHECK(run_fomcast("platforms --json", db).out == listed_before);

  const auto gone = run_fomcast("platforms rm CoDesign_X --json", db);
  REQUIRE_MESSAGE(gone.status == 0, gone.err);
  const json g = json::parse(gone.out);
  CHECK(g["origin"] == "user");
  CHECK(g["calibrations"] == 0);
  const auto lab = run_fomcast("platforms rm Lab_X", db);
  REQUIRE_MESSAGE(lab.status == 0, lab.err);
  CHECK(lab.out.find("Removed platform 'Lab_X' (placeholder), with 0 kernel entries and 1 calibration(s)") !=
        std::string::npos);
  CHECK(lab.out.find("1 workload(s) recorded on it keep the name (k)") != std::string::npos);
  for (const auto& p : json::parse(run_fomcast("platforms --json", db).out))
    CHECK((p["name"] != "CoDesign_X" && p["name"] != "Lab_X"));
  CHECK(run_fomcast("platforms rm Lab_X", db).status == 2);  // gone: nothing to remove twice
}

TEST_CASE("platforms rm of your replacement of a shipped spec puts the shipped one back, with its tables") {
  ScratchDir dir;
  const std::string db = dir.file("rs.db");
  auto entries_of = [&](const std::string& name) {
    for (const auto& p : json::parse(run_fomcast("platforms --json", db).out))
      if (p["name"] == name) return std::make_pair(p["origin"].get<std::string>(), p["kernel_entries"].get<int64_t>());
    return std::make_pair(std::string("none"), int64_t{-1});
  };
  REQUIRE(run_fomcast("workloads", db).status == 0);
  const auto listed = entries_of("NV_V100");
  const int64_t shipped_entries = listed.second;
  REQUIRE(listed.first == "shipped");
  REQUIRE(shipped_entries > 1000);  // DeepBench's V100 rows
  // The user's spec of NV_V100 (the shipped file itself, as a user would copy it), then removed.
  const std::string spec = fomcast::test::source_path("data/platforms/NV_V100.json");
  REQUIRE(run_fomcast("platforms add '" + spec + "' --replace", db).status == 0);
  CHECK(entries_of("NV_V100").first == "user");
  const auto rm = run_fomcast("platforms rm NV_V100 --json", db);
  REQUIRE_MESSAGE(rm.status == 0, rm.err);
  CHECK(json::parse(rm.out)["shipped_restored"] == true);
  CHECK(json::parse(rm.out)["kernel_entries"] == 0);
  CHECK(entries_of("NV_V100") == std::make_pair(std::string("shipped"), shipped_entries));
  // Shipped again: removing it is refused as before.
  CHECK(run_fomcast("platforms rm NV_V100", db).status == 2);
}

TEST_CASE("platforms add: a device name another platform has is warned of: it takes that platform's traces") {
  ScratchDir dir;
  const std::string db = dir.file("dn.db");
  // A co-design chip written from H100.json, its device_names left in.
  json chip = json::parse(fomcast::test::slurp(fomcast::test::source_path("data/platforms/H100.json")));
  chip["name"] = "Chip_X";
  const auto r = run_fomcast("platforms add '" + dir.write("x.json", chip.dump()) + "'", db);
  CHECK(r.status == 0);
  CHECK_MESSAGE(r.err.find("warning: ") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("device_names: 'H100' is a device name of the platform H100 too") != std::string::npos,
                r.err);
  // Its own names: nothing said.
  chip["device_names"] = json::array({"Chip X1"});
  const auto own = run_fomcast("platforms add '" + dir.write("x.json", chip.dump()) + "'", db);
  CHECK(own.status == 0);
  CHECK(own.err.find("device_names") == std::string::npos);
}

TEST_CASE("platforms add: a value nested past 256 levels is refused by field, not a crash") {
  ScratchDir dir;
  const std::string db = dir.file("d.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const std::string before = file_fingerprint(db);
  // 100,000 levels in `environment` crashed the serialiser that stores it (exit 139).
  std::string text = good_spec().dump();
  text.pop_back();
  const int depth = 100000;
  text += ", \"environment\": ";
  for (int i = 0; i < depth; ++i) text += "{\"a\":";
  text += "1";
  text += std::string(depth, '}');
  text += "}";
  const auto r = run_fomcast("platforms add '" + dir.write("deep.json", text) + "'", db);
  CHECK(r.status == 2);
  CHECK(r.err.find("deep.json") != std::string::npos);
  CHECK(r.err.find("nested more than 256 levels deep") != std::string::npos);
  CHECK(r.err.find("environment.a.a") != std::string::npos);
  CHECK(file_fingerprint(db) == before);
}
