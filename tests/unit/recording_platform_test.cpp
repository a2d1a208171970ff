// The recording platform: the device a trace names matched to the shipped platforms'
// device-name patterns, a placeholder for a device with no spec, and a platform name that
// is a typo of a known one refused with "did you mean". Device names are the ones real
// traces carry (their deviceProperties, read with a few lines of Python).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fomcast/embedded.hpp"
#include "fomcast/error.hpp"
#include "fomcast/platform_match.hpp"
#include "test_support.hpp"

using namespace fomcast;
using json = nlohmann::json;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;

namespace {

// The shipped specs, read from the data compiled in, as seeding reads them.
const std::vector<Platform>& shipped() {
  static const std::vector<Platform> all = [] {
    std::vector<Platform> out;
    for (const auto& [path, text] : embedded_files("platforms/"))
      out.push_back(platform_from_json(json::parse(text), path));
    return out;
  }();
  return all;
}

std::string matched(const std::string& device) {
  const auto m = match_device(device, shipped());
  return m ? m->platform : std::string("(none)");
}

}  // namespace

TEST_CASE("device names of real traces map to the shipped platforms, whole words, most specific first") {
  // external and shared traces' deviceProperties
  CHECK(matched("Tesla V100-SXM2-32GB") == "V100_SXM2_32GB");
  CHECK(matched("Tesla V100-DGXS-32GB") == "V100_SXM2_32GB");  // the DGX Station's board
  CHECK(matched("Tesla V100-DGXS-16GB") == "NV_V100");
  CHECK(matched("NVIDIA A100-PG509-200") == "A100");
  CHECK(matched("NVIDIA A100-SXM4-80GB") == "A100_SXM4_80GB");
  CHECK(matched("NVIDIA H100 80GB HBM3") == "H100");
  CHECK(matched("AMD Instinct MI300X") == "MI300X");
  CHECK(matched("AMD Instinct MI300X VF") == "MI300X");
  CHECK(matched("AMD Instinct MI250X") == "MI250X");
  // No spec shipped for these: nothing, never the nearest model number.
  CHECK(matched("AMD Instinct MI210") == "MI210");
  CHECK(matched("NVIDIA GeForce RTX 2080 Ti") == "RTX_2080_Ti");  // PARAM's traces
  CHECK(matched("NVIDIA GeForce RTX 2080") == "(none)");          // not the Ti
  CHECK(matched("NVIDIA GeForce RTX 3090") == "RTX_3090");
  CHECK(matched("NVIDIA GeForce RTX 4090") == "RTX_4090");
  // Another card of a nearby name is not that card: no spec, no match.
  CHECK(matched("NVIDIA GeForce RTX 3090 Ti") == "(none)");
  CHECK(matched("NVIDIA GeForce RTX 4090 Laptop GPU") == "(none)");
  CHECK(matched("NVIDIA GeForce RTX 4090 D") == "(none)");
  CHECK(matched("NVIDIA B200") == "B200");
  CHECK(matched("AMD Radeon Graphics") == "(none)");
  CHECK(matched("NVIDIA GH200 480GB") == "GH200");  // not H200: a word, not a substring
  CHECK(matched("AMD Instinct MI250") == "MI250");  // not MI250X, not MI25
  CHECK(matched("AMD Instinct MI250X") == "MI250X");
  // The three TITAN X boards: the most specific pattern wins.
  CHECK(matched("NVIDIA GeForce GTX TITAN X") == "NV_TitanX_Maxwell");
  CHECK(matched("NVIDIA TITAN X (Pascal)") == "NV_TitanX_Pascal");
  CHECK(matched("NVIDIA TITAN Xp") == "NV_TitanXp");
  CHECK(matched("NVIDIA GeForce GTX 1080 Ti") == "NV_1080Ti");
  CHECK(matched("NVIDIA GeForce GTX 1080") == "(none)");
  CHECK(matched("Tesla K20Xm") == "NV_K20X");
  CHECK(matched("Radeon Instinct MI25") == "AMD_MI25");
  CHECK(matched("Intel(R) Xeon(R) Platinum 8480+") == "Xeon_8480p");
  CHECK(matched("Intel(R) Xeon Phi(TM) CPU 7250 @ 1.40GHz") == "IA_KNL7250");
  CHECK(matched("") == "(none)");
}

TEST_CASE("every shipped platform but the hypothetical one says how traces name it; every GPU its host link") {
  for (const auto& p : shipped()) {
    INFO(p.name);
    if (p.device_kind == "hypothetical") continue;
    CHECK(!p.device_names.empty());
    // Its own patterns find it: no pattern is shadowed by another platform's.
    for (const auto& pattern : p.device_names) CHECK(matched(pattern) == p.name);
    if (p.device_kind == "gpu") {
      REQUIRE(p.host_link_bw_bytes_per_s);
      CHECK(p.host_link_bw_bytes_per_s->value >= 8e9);
      CHECK(p.host_link_bw_bytes_per_s->value < p.mem_bw_bytes_per_s->value);
      CHECK(!p.host_link_bw_bytes_per_s->source.empty());
    }
  }
}

TEST_CASE("device_names and host_link_bw_gb_per_s round-trip through the spec JSON; bad ones name the field") {
  const json spec = json::parse(R"({"name": "box", "device_names": ["Box 9000", "BX9K"],
      "host_link_bw_gb_per_s": {"value": 31.5, "source": "PCIe 4.0 x16"}})");
  const Platform p = platform_from_json(spec, "box.json");
  CHECK(p.device_names == std::vector<std::string>{"Box 9000", "BX9K"});
  REQUIRE(p.host_link_bw_bytes_per_s);
  CHECK(p.host_link_bw_bytes_per_s->value == doctest::Approx(31.5e9));
  const Platform back = platform_from_json(platform_to_json(p), "again");
  CHECK(back.device_names == p.device_names);
  CHECK(back.host_link_bw_bytes_per_s->value == doctest::Approx(31.5e9));
  for (const char* bad : {R"({"name": "b", "device_names": "Box"})", R"({"name": "b", "device_names": ["--"]})"}) {
    try {
      (void)platform_from_json(json::parse(bad), "b.json");
      FAIL("accepted " << bad);
    } catch (const InputError& e) {
      CHECK(e.field.rfind("device_names", 0) == 0);
    }
  }
}

TEST_CASE("placeholder names and the near misses of a platform's name") {
  CHECK(placeholder_platform_name("NVIDIA GeForce RTX 2080 Ti") == "NVIDIA_GeForce_RTX_2080_Ti");
  CHECK(placeholder_platform_name("AMD Instinct MI210") == "AMD_Instinct_MI210");
  CHECK(placeholder_platform_name("Intel(R) Xeon(R) Gold 6248") == "Intel_Xeon_Gold_6248");
  CHECK(placeholder_platform_name(" -- ") == "");
  CHECK(near_platform_name("nv_v100", shipped()) == "NV_V100");
  CHECK(near_platform_name("NV-V100", shipped()) == "NV_V100");
  CHECK(near_platform_name("nv v100", shipped()) == "NV_V100");
  CHECK(near_platform_name("v100", shipped()) == "NV_V100");  // a device-name pattern of one platform
  CHECK(near_platform_name("mi250x", shipped()) == "MI250X");
  CHECK(near_platform_name("xeon-8480P", shipped()) == "Xeon_8480p");
  CHECK(!near_platform_name("NV_V100", shipped()));  // itself
  CHECK(!near_platform_name("mybox", shipped()));
  CHECK(!near_platform_name("NV_V100S", shipped()));
  CHECK_THROWS_WITH_AS(check_platform_name("nv_v100", shipped()),
                       doctest::Contains("--platform: no platform named 'nv_v100': did you mean NV_V100?"), UsageError);
  CHECK_NOTHROW(check_platform_name("my_new_box", shipped()));
}

TEST_CASE("ingest: the recording platform from the device the trace names, or a placeholder named after it") {
  ScratchDir dir;
  const std::string db = dir.file("r.db");
  // Tesla V100-SXM2-32GB: V100_SXM2_32GB, said in the notes.
  auto r = run_fomcast("ingest '" +
                           shared_path("traces/pytorch_kineto/hta_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace."
                                       "json.gz") +
                           "' --workload v100 --json",
                       db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  json j = json::parse(r.out);
  CHECK(j["recorded_on"] == "V100_SXM2_32GB");
  CHECK(j["device"] == "Tesla V100-SXM2-32GB");
  bool said = false;
  for (const auto& n : j["notes"]) said |= n == "recorded on V100_SXM2_32GB: the trace names Tesla V100-SXM2-32GB";
  CHECK(said);

  // NVIDIA GeForce RTX 2080 Ti: its spec.
  r = run_fomcast("ingest '" + shared_path("traces/pytorch_et/param_linear_kineto.json.gz") + "' --workload ti --json",
                  db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(json::parse(r.out)["recorded_on"] == "RTX_2080_Ti");

  // "AMD Radeon Graphics" (an MI250 GCD as ROCm 6.2 names it): the name is no model, its
  // deviceProperties' 104 CUs (numSms), 64 GiB and 64-wide wavefront (AMD) are an MI210's and
  // an MI250 GCD's, one set of figures: recorded on the first, both named.
  r = run_fomcast("ingest '" + shared_path("traces/pytorch_kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz") +
                      "' --workload radeon --json",
                  db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  j = json::parse(r.out);
  CHECK(j["recorded_on"] == "MI210");
  said = false;
  for (const auto& n : j["notes"])
    said |= n.get<std::string>().find("that platform's and MI250's, specs of the same peaks and bandwidth") !=
            std::string::npos;
  CHECK(said);

  // A device no spec describes, by name or figures: a placeholder of its name, stored like one
  // `--platform NEWNAME` makes.
  r = run_fomcast(
      "ingest '" +
          dir.write(
              "acme.json",
              R"({"deviceProperties": [{"id": 0, "name": "Acme Tensor X1", "numSms": 77, "warpSize": 32, )"
              R"("totalGlobalMem": 1000000000}], "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", )"
              R"("pid": 1, "tid": 1, "ts": 10, "dur": 5}]})") +
          "' --workload acme --json",
      db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  j = json::parse(r.out);
  CHECK(j["recorded_on"] == "Acme_Tensor_X1");
  said = false;
  for (const auto& n : j["notes"])
    said |= n.get<std::string>().find("which no platform spec describes; a placeholder platform") != std::string::npos;
  CHECK(said);
  const json platforms = json::parse(run_fomcast("platforms --json", db).out);
  bool found = false;
  for (const auto& p : platforms)
    if (p["name"] == "Acme_Tensor_X1") found = p["origin"] == "placeholder";
  CHECK(found);

  // --platform stays the override, and the note says what the trace named.
  r = run_fomcast("ingest '" +
                      shared_path("traces/pytorch_kineto/hta_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace."
                                  "json.gz") +
                      "' --workload v100b --platform H100 --json",
                  db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  j = json::parse(r.out);
  CHECK(j["recorded_on"] == "H100");
}

TEST_CASE("a platform name that is a typo of a known one: did you mean, exit 2, database unchanged") {
  ScratchDir dir;
  const std::string db = dir.file("t.db");
  const std::string trace =
      shared_path("traces/pytorch_kineto/hta_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  REQUIRE(run_fomcast("ingest '" + trace + "' --workload v100", db).status == 0);
  const std::string before = test::file_fingerprint(db);
  const std::string commands[] = {
      "ingest '" + trace + "' --workload typo --platform nv_v100",
      "estimate --workload v100 --platform NV-V100",
      "calibrate --workload v100 --platform v100 --pass-s 1",
      "whatif --workload v100 --platform Nv_V100 --scale mem_bw=2",
      "bench --platform nv_v100 --suite deepbench-train --max-seconds 1",
      "import-bench '" + dir.write("mine.csv", "kind,m,n,k,dtype,time_us\ngemm,1024,1024,1024,fp32,160\n") +
          "' --format csv --platform nv_v100",
  };
  for (const auto& c : commands) {
    INFO(c);
    const auto r = run_fomcast(c, db);
    CHECK(r.status == 2);
    CHECK(r.err.find("did you mean NV_V100?") != std::string::npos);
  }
  CHECK(test::file_fingerprint(db) == before);
  CHECK(run_fomcast("show typo", db).status != 0);
}

TEST_CASE("ingest --platform NEWNAME on a trace of a known device: refused, database unchanged") {
  ScratchDir dir;
  const std::string db = dir.file("n.db");
  const std::string trace =
      shared_path("traces/pytorch_kineto/hta_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  REQUIRE(run_fomcast("ingest '" + trace + "' --workload v100", db).status == 0);
  const std::string before = test::file_fingerprint(db);
  // A new name for the device the trace names (Tesla V100-SXM2-32GB) is a slip: no placeholder.
  auto r = run_fomcast("ingest '" + trace + "' --workload slip --platform V100SXM2", db);
  CHECK(r.status == 2);
  CHECK(r.err.find("no platform named 'V100SXM2', and the trace names Tesla V100-SXM2-32GB, which is "
                   "V100_SXM2_32GB's: give --platform V100_SXM2_32GB") != std::string::npos);
  CHECK(test::file_fingerprint(db) == before);

  // A trace that names no device (TAU) may be given a new machine's name: a placeholder, said
  // with the near name of a known platform.
  r = run_fomcast("ingest '" + shared_path("fixtures/seed-formats/tau_pprof_neon_alexnet.txt") +
                      "' --workload lab --platform NV_V10 --json",
                  db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const json j = json::parse(r.out);
  CHECK(j["recorded_on"] == "NV_V10");
  bool said = false;
  for (const auto& n : j["notes"]) {
    const auto text = n.get<std::string>();
    said |= text.find("a placeholder platform of that name was created, with no figures") != std::string::npos &&
            text.find("(did you mean NV_V100?)") != std::string::npos;
  }
  CHECK(said);
}
