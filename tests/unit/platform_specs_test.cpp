// The shipped platform specs as a whole: every key is one fomcast reads (a misspelt key would
// be a figure silently lost), every figure has a source, and every GPU gives the figures the
// estimator, the transfer model and the collectives model use, or names each one it leaves
// out in its description's "Left out:" sentence. MI250X is one GCD, half the module.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "fomcast/embedded.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/platform_spec.hpp"
#include "test_support.hpp"

using namespace fomcast;
using json = nlohmann::json;

namespace {

std::vector<std::pair<std::string, json>> shipped_specs() {
  std::vector<std::pair<std::string, json>> out;
  for (const auto& [path, text] : embedded_files("platforms/"))
    if (path.ends_with(".json")) out.emplace_back(std::string(path), json::parse(text));
  return out;
}

std::vector<Platform> shipped_platforms() {
  std::vector<Platform> out;
  for (const auto& [path, j] : shipped_specs()) out.push_back(platform_from_json(j, path));
  return out;
}

// The GPU figures issue 13 asks of every card, by file key.
const char* const kGpuFields[] = {
    "mem_bw_gb_per_s", "mem_gib",         "host_link_bw_gb_per_s", "compute_units",          "boost_clock_mhz",
    "l2_cache_mib",    "power_w",         "devices_per_node",      "intra_node_bw_gb_per_s", "intra_node_latency_us",
    "nics_per_node",   "nic_bw_gb_per_s", "inter_node_latency_us",
};

}  // namespace

TEST_CASE("shipped platform specs: known keys only, every figure sourced") {
  const auto& keys = platform_spec_keys();
  for (const auto& spec : shipped_specs()) {
    const std::string& path = spec.first;  // not structured bindings: INFO captures them
    const json& j = spec.second;
    INFO(path);
    for (const auto& item : j.items()) {
      const std::string& key = item.key();
      const json& value = item.value();
      INFO(key);
      CHECK(std::find(keys.begin(), keys.end(), key) != keys.end());
      auto sourced = [&](const json& f) {
        REQUIRE(f.is_object());
        CHECK(f.at("value").is_number());
        CHECK(f.at("value").get<double>() > 0);
        CHECK(!f.at("source").get<std::string>().empty());
      };
      if (key == "peak_tflop_per_s")
        for (const auto& [d, f] : value.items()) sourced(f);
      else if (value.is_object() && key != "environment")
        sourced(value);
    }
  }
}

TEST_CASE("every shipped GPU spec gives each figure or names it in its 'Left out:' sentence") {
  int gpus = 0;
  for (const auto& spec : shipped_specs()) {
    const std::string& path = spec.first;
    const json& j = spec.second;
    if (j.value("device_kind", "") != "gpu") continue;
    ++gpus;
    INFO(path);
    const std::string description = j.at("description").get<std::string>();
    const auto left_out = description.find("Left out:");
    const std::string reasons = left_out == std::string::npos ? std::string() : description.substr(left_out);
    REQUIRE(j.contains("peak_tflop_per_s"));
    CHECK(j.at("peak_tflop_per_s").contains("fp32"));
    for (const std::string field : kGpuFields) {
      INFO(field);
      CHECK((j.contains(field) || reasons.find(field) != std::string::npos));
      // A figure given is not also said to be left out.
      if (j.contains(field)) CHECK(reasons.find(field + " ") == std::string::npos);
    }
  }
  CHECK(gpus >= 25);
}

TEST_CASE("MI250X is one GCD: half the module's datasheet figures, eight per Frontier node") {
  const auto ps = shipped_platforms();
  const auto it = std::find_if(ps.begin(), ps.end(), [](const Platform& p) { return p.name == "MI250X"; });
  REQUIRE(it != ps.end());
  // AMD MI250X datasheet (2021), module: 95.7 TFLOP/s FP32 matrix, 383 FP16, 3.2768 TB/s,
  // 128 GB, 220 CUs.
  CHECK(it->peak_flop_per_s.at(DType::fp32).value == doctest::Approx(95.7e12 / 2));
  CHECK(it->peak_flop_per_s.at(DType::fp16).value == doctest::Approx(383e12 / 2));
  CHECK(it->mem_bw_bytes_per_s->value == doctest::Approx(3276.8e9 / 2));
  CHECK(it->mem_bytes->value == doctest::Approx(64.0 * 1024 * 1024 * 1024));
  CHECK(it->compute_units->value == 110);
  CHECK(it->devices_per_node->value == 8);
  CHECK(it->description.find("GCD") != std::string::npos);
  CHECK(it->peak_flop_per_s.at(DType::fp32).source.find("half") != std::string::npos);
}

TEST_CASE("device names of every card map to its own spec, the PCIe boards to more specific patterns") {
  std::vector<Platform> ps = shipped_platforms();
  auto matched = [&](const std::string& device) {
    const auto m = match_device(device, ps);
    return m ? m->platform : std::string("(none)");
  };
  // nvidia-smi / rocm-smi names of each card.
  CHECK(matched("Tesla V100-SXM2-16GB") == "NV_V100");
  CHECK(matched("Tesla V100-SXM2-32GB") == "V100_SXM2_32GB");
  CHECK(matched("NVIDIA A100-SXM4-40GB") == "A100");
  CHECK(matched("NVIDIA A100-SXM4-80GB") == "A100_SXM4_80GB");
  CHECK(matched("NVIDIA H100 80GB HBM3") == "H100");
  CHECK(matched("NVIDIA H100 PCIe") == "H100_PCIe");
  CHECK(matched("NVIDIA H200") == "H200");
  CHECK(matched("NVIDIA GH200 480GB") == "GH200");
  CHECK(matched("NVIDIA B200") == "B200");
  CHECK(matched("NVIDIA L4") == "L4");
  CHECK(matched("NVIDIA L40S") == "L40S");
  CHECK(matched("NVIDIA L40") == "(none)");  // not L40S, not L4
  CHECK(matched("AMD Instinct MI100") == "MI100");
  CHECK(matched("AMD Instinct MI210") == "MI210");
  CHECK(matched("AMD Instinct MI250X") == "MI250X");
  CHECK(matched("AMD Instinct MI250X/MI250") == "MI250X");
  CHECK(matched("AMD Instinct MI300X") == "MI300X");
  CHECK(matched("AMD Instinct MI325X") == "MI325X");
  CHECK(matched("NVIDIA GB200") == "(none)");  // not B200: a word, not a substring

  // The PCIe boards of another lane's specs: with them in the catalog, their names go to
  // them and not to the SXM specs' shorter patterns.
  auto board = [](const char* name, const char* pattern) {
    Platform p;
    p.name = name;
    p.device_kind = "gpu";
    p.device_names = {pattern};
    return p;
  };
  ps.push_back(board("A100_PCIe_40GB", "A100 PCIe 40GB"));
  ps.push_back(board("A100_PCIe_80GB", "A100 80GB PCIe"));
  ps.push_back(board("V100_PCIe_32GB", "V100 PCIe 32GB"));
  ps.push_back(board("P100_PCIe_16GB", "P100 PCIe 16GB"));
  CHECK(matched("NVIDIA A100-PCIE-40GB") == "A100_PCIe_40GB");
  CHECK(matched("NVIDIA A100 80GB PCIe") == "A100_PCIe_80GB");
  CHECK(matched("Tesla V100-PCIE-32GB") == "V100_PCIe_32GB");
  CHECK(matched("Tesla P100-PCIE-16GB") == "P100_PCIe_16GB");
  CHECK(matched("NVIDIA A100-SXM4-80GB") == "A100_SXM4_80GB");
  CHECK(matched("Tesla V100-SXM2-32GB") == "V100_SXM2_32GB");
  CHECK(matched("NVIDIA A100-PG509-200") == "A100");  // an A100 that says no more: the fallback
}

TEST_CASE("platforms --json: every entry has the contract's fields, null where a figure is unpublished") {
  test::ScratchDir dir;
  const auto r = test::run_fomcast("platforms --json", dir.file("p.db"));
  REQUIRE(r.status == 0);
  const json list = json::parse(r.out);
  REQUIRE(list.size() > 30);
  bool some_null = false;
  for (const auto& p : list) {
    CAPTURE(p.dump().substr(0, 200));
    CHECK(p.at("name").is_string());
    CHECK(p.at("peak_tflop_per_s").is_object());
    REQUIRE(p.contains("mem_bw_gb_per_s"));
    const json& bw = p.at("mem_bw_gb_per_s");
    CHECK((bw.is_null() || bw.at("value").get<double>() > 0));
    some_null = some_null || bw.is_null();
  }
  CHECK(some_null);  // the phones publish no bandwidth
  // An entry with a null bandwidth does not go back in as a spec: the field is named.
  json phone;
  for (const auto& p : list)
    if (p.at("mem_bw_gb_per_s").is_null()) phone = p;
  phone["name"] = "MyPhone";
  phone["peak_tflop_per_s"] = {{"fp32", {{"value", 0.1}, {"source", "a guess"}}}};
  const auto added =
      test::run_fomcast("platforms add '" + dir.write("phone.json", phone.dump()) + "'", dir.file("p.db"));
  CHECK(added.status == 2);
  CHECK_MESSAGE(added.err.find("mem_bw_gb_per_s") != std::string::npos, added.err);
}
