// `fomcast calibrate`, `fomcast whatif` and calibrated studies through the real binary: the
// Chainer-on-K tuning stages, a real shape-less cProfile, a stored calibration changing
// later estimates, bad input that must leave the database as it was, studies mixing
// calibrated and uncalibrated problems, and the shipped CANDLE study.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fomcast/estimate.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
using fomcast::test::slurp;
using fomcast::test::source_path;

namespace {

json run_json(const std::string& args, const std::string& db) {
  const auto r = run_fomcast(args, db);
  REQUIRE_MESSAGE(r.status == 0, args << "\n" << r.err);
  return json::parse(r.out);
}

// The Chainer-on-K table of ../shared/fixtures/seed-formats/README.md: stage -> GEMM, Adam,
// other, total (seconds).
std::map<std::string, std::array<double, 4>> chainer_stages() {
  const std::string readme = fomcast::test::slurp(shared_path("fixtures/seed-formats/README.md"));
  std::map<std::string, std::array<double, 4>> out;
  const std::regex row(
      R"(\|\s*(original|all)\s*\|\s*([0-9,.]+)\s*\|\s*([0-9,.]+)\s*\|\s*([0-9,.]+)\s*\|\s*([0-9,.]+)\s*\|)");
  auto num = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    return std::stod(s);
  };
  for (std::sregex_iterator it(readme.begin(), readme.end(), row), end; it != end; ++it)
    out[(*it)[1]] = {num((*it)[2]), num((*it)[3]), num((*it)[4]), num((*it)[5])};
  return out;
}

}  // namespace

TEST_CASE("whatif by class on the Chainer-on-K profile reproduces the tuning table's stages") {
  // tests/data/profiles/chainer_k_original.txt is a print_stats listing of the original
  // stage as the README's table gives it: GEMM (numpy dot) 1,189.1 s, Adam (adam_kro2)
  // 8,657.4 s, other 465.2 s split over two functions (300.0 + 165.2), total 10,311.7 s.
  const auto stages = chainer_stages();
  REQUIRE(stages.count("original"));
  REQUIRE(stages.count("all"));
  const auto& o = stages.at("original");
  const auto& all = stages.at("all");
  CHECK(o[0] == 1189.1);
  CHECK(o[3] == 10311.7);

  ScratchDir dir;
  const std::string db = dir.file("k.db");
  run_json("ingest '" + source_path("tests/data/profiles/chainer_k_original.txt") +
               "' --workload chainer-k --platform SPARC64_VIIIfx --json",
           db);
  // GEMM alone 6.101x faster (1,189.1 / 194.9, the 'all' stage's GEMM): the issue's 9,317.5 s.
  json j = run_json("whatif --workload chainer-k --platform SPARC64_VIIIfx --scale kind:gemm=6.101 --json", db);
  CHECK(j["workload"] == "chainer-k");
  CHECK(j["platform"] == "SPARC64_VIIIfx");
  CHECK(j["reference_pass_s"].get<double>() == doctest::Approx(o[3]).epsilon(1e-9));
  CHECK(std::round(j["pass_s"].get<double>() * 10) / 10 == doctest::Approx(9317.5));
  CHECK(j["pass_s"].get<double>() == doctest::Approx(o[0] / 6.101 + o[1] + o[2]));
  CHECK(j["speedup"].get<double>() == doctest::Approx(o[3] / j["pass_s"].get<double>()));
  // Measured on the platform and scaled by the user's own factor: nothing in it is modelled.
  CHECK(j["reference_uncertainty"] == 0.0);
  CHECK(j["uncertainty"] == 0.0);
  CHECK(j["speedup_uncertainty"] == 0.0);

  // peak_flops=2 moves the shape-less GEMM by the roofline rule (half its 1,189.1 s), a model
  // of what a faster chip does: the change carries the same-architecture band, 0.13.
  const json peak = run_json("whatif --workload chainer-k --platform SPARC64_VIIIfx --scale peak_flops=2 --json", db);
  const double after = peak["pass_s"].get<double>();
  CHECK(after == doctest::Approx(o[3] - o[0] / 2));
  CHECK(peak["speedup_uncertainty"].get<double>() == doctest::Approx(0.13 * (o[0] / 2) / after));
  CHECK(peak["uncertainty"].get<double>() == doctest::Approx(0.13 * (o[0] / 2) / after));

  // GEMM 6.101x, Adam 209.6x, other 1.166x: the 'all' stage, 635.2 s.
  j = run_json(
      "whatif --workload chainer-k --platform SPARC64_VIIIfx --scale "
      "kind:gemm=6.101,kind:optimizer=209.6,kind:other=1.166 "
      "--json",
      db);
  CHECK(std::round(j["pass_s"].get<double>() * 10) / 10 == doctest::Approx(all[3]));
  CHECK(std::round(j["pass_s"].get<double>() * 10) / 10 == doctest::Approx(635.2));
  CHECK(j["speedup"].get<double>() == doctest::Approx(o[3] / 635.2).epsilon(1e-4));
  std::map<std::string, double> scaled;
  for (const auto& c : j["classes"]) scaled[c["name"]] = c["scaled_s"].get<double>();
  CHECK(std::round(scaled["gemm"] * 10) / 10 == doctest::Approx(all[0]));
  CHECK(std::round(scaled["optimizer"] * 10) / 10 == doctest::Approx(all[1]));
  CHECK(std::round(scaled["other"] * 10) / 10 == doctest::Approx(all[2]));

  // The text prints the same numbers.
  const auto t = run_fomcast("whatif --workload chainer-k --platform SPARC64_VIIIfx --scale kind:gemm=6.101", db);
  REQUIRE(t.status == 0);
  CHECK_MESSAGE(t.out.find("9,317.5 s") != std::string::npos, t.out);
  CHECK(t.out.find("10,311.7 s") != std::string::npos);
}

TEST_CASE("whatif: the Amdahl limit is what a very large factor reaches, never below the speedup") {
  // An op's launch gap does not move with peak_flops or mem_bw: the limit counts only what
  // the scaling moves (it claimed 12,775x for ResNet-50 on V100, where 115x is the most).
  // (At its batch of 256 in fp32 ResNet-50 needs 20.6 GiB: the 32 GB V100.)
  ScratchDir dir;
  const std::string db = dir.file("w.db");
  const json big =
      run_json("whatif --workload resnet50 --platform V100_SXM2_32GB --scale peak_flops=1e6,mem_bw=1e6 --json", db);
  CHECK(big["speedup"].get<double>() == doctest::Approx(big["amdahl_limit"].get<double>()).epsilon(0.01));
  for (const char* scale : {"peak_flops=2,mem_bw=1.5", "host=1000", "overhead=2", "kind:conv=3"}) {
    CAPTURE(scale);
    const json j =
        run_json(std::string("whatif --workload resnet50 --platform V100_SXM2_32GB --scale ") + scale + " --json", db);
    CHECK(j["speedup"].get<double>() <= j["amdahl_limit"].get<double>() * (1 + 1e-9));
  }
}

TEST_CASE("whatif on a real shape-less cProfile: Amdahl over its measured times") {
  // cprofile_chainer_tuned.txt: tottime of {method 'dot'} (the only GEMM) and of every row.
  const std::string path = shared_path("fixtures/seed-formats/cprofile_chainer_tuned.txt");
  std::ifstream in(path);
  std::string line;
  double total = 0, gemm = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string ncalls, tottime;
    if (!(ls >> ncalls >> tottime) || ncalls == "ncalls") continue;
    total += std::stod(tottime);
    if (line.find("'dot'") != std::string::npos) gemm += std::stod(tottime);
  }
  REQUIRE(gemm > 0);
  ScratchDir dir;
  const std::string db = dir.file("c.db");
  run_json("ingest '" + path + "' --workload tuned --platform SPARC64_VIIIfx --json", db);
  const json j = run_json("whatif --workload tuned --platform SPARC64_VIIIfx --scale kind:gemm=2 --json", db);
  CHECK(j["speedup"].get<double>() == doctest::Approx(total / (total - gemm / 2)));
  CHECK(j["touched_share"].get<double>() == doctest::Approx(gemm / total));
  CHECK(j["amdahl_limit"].get<double>() == doctest::Approx(total / (total - gemm)));
  // Peak rates do not reach ops with no costs of kind other, and it says so.
  const json p = run_json("whatif --workload tuned --platform SPARC64_VIIIfx --scale peak_flops=2 --json", db);
  bool said = false;
  for (const auto& n : p["notes"]) said = said || n.get<std::string>().find("no flops or bytes") != std::string::npos;
  CHECK(said);
  // A shape-less GEMM is compute-bound: twice the peak halves it, as kind:gemm=2 does.
  CHECK(p["pass_s"].get<double>() == doctest::Approx(j["pass_s"].get<double>()));
}

TEST_CASE("fomcast calibrate stores a measured time that later estimates project from") {
  ScratchDir dir;
  const std::string db = dir.file("cal.db");
  // P1B2 (shipped model: batch 60, 2,700 samples -> 45 passes per epoch, 1 epoch).
  const json before = run_json("estimate --workload P1B2 --platform MI250X --json", db);
  const json k20x_model = run_json("estimate --workload P1B2 --platform NV_K20X --json", db);
  CHECK(before["calibration"]["calibrated"] == false);
  CHECK(before["residual_s"].get<double>() == 0);
  const json c = run_json("calibrate --workload P1B2 --platform NV_K20X --epoch-s 4.5 --note 'a test' --json", db);
  CHECK(c["workload"] == "P1B2");
  CHECK(c["platform"] == "NV_K20X");
  CHECK(c["epoch_s"].get<double>() == 4.5);
  CHECK(c["measured_pass_s"].get<double>() == doctest::Approx(4.5 / 45));
  CHECK(c["modelled_s"].get<double>() + c["residual_s"].get<double>() == doctest::Approx(4.5 / 45));
  const double residual = c["residual_s"].get<double>();
  // A model workload has no per-op evidence: the residual is the framework's dispatch cost
  // (Keras on TF1, 5.5 us) x the op calls of a pass; the rest of the gap is op-model error.
  double calls = 0;
  const json shown = run_json("show P1B2 --json", db);
  for (const auto& op : shown["ops"]) calls += op["count"].get<double>();
  CHECK(residual == doctest::Approx(5.5e-6 * calls));
  const double ops_scale = c["ops_scale"].get<double>();
  CHECK(ops_scale == doctest::Approx((0.1 - residual) / c["modelled_ops_s"].get<double>()));

  // On the measured platform the pass is the measurement.
  const json k = run_json("estimate --workload P1B2 --platform NV_K20X --json", db);
  CHECK(k["pass_s"].get<double>() == doctest::Approx(0.1));
  CHECK(k["calibration"]["platform"] == "NV_K20X");
  // Elsewhere: its own modelled ops x the part of the op-model error that recurs: of log
  // ops_scale, up to log(1 + the modelled ops' band on NV_K20X) is kernel error, carried by
  // kSharedOpErrorShare, and the rest is the workload's, carried whole; plus the residual,
  // carried unscaled (no host figures).
  const double band = k20x_model["uncertainty"].get<double>();  // uncalibrated: the ops' band
  CHECK(c["ops_band"].get<double>() == doctest::Approx(band));
  const double log_error = std::log(ops_scale);
  const double kernel = std::clamp(log_error, -std::log1p(band), std::log1p(band));
  CHECK(c["kernel_log_error"].get<double>() == doctest::Approx(kernel));
  CHECK(c["workload_log_error"].get<double>() == doctest::Approx(log_error - kernel));
  const double carried = std::exp(log_error - kernel + fomcast::kSharedOpErrorShare * kernel);
  CHECK(c["ops_carry_elsewhere"].get<double>() == doctest::Approx(carried));
  const json m = run_json("estimate --workload P1B2 --platform MI250X --json", db);
  CHECK(m["calibration"]["calibrated"] == true);
  CHECK(m["calibration"]["platform"] == "NV_K20X");
  CHECK(m["calibration"]["ops_carry"].get<double>() == doctest::Approx(carried));
  CHECK(m["residual_s"].get<double>() == doctest::Approx(residual));
  CHECK(m["modelled_s"].get<double>() == doctest::Approx(before["modelled_s"].get<double>() * carried));
  CHECK(m["pass_s"].get<double>() == doctest::Approx(before["pass_s"].get<double>() * carried + residual));
  CHECK(m["host_bound"] == false);
  // The bounds: the whole gap carried unscaled, or scaled with the ops.
  const double gap = 0.1 - c["modelled_ops_s"].get<double>();
  CHECK(m["pass_bounds"]["carried_unscaled_s"].get<double>() == doctest::Approx(before["pass_s"].get<double>() + gap));
  CHECK(m["pass_bounds"]["scaled_with_ops_s"].get<double>() ==
        doctest::Approx(before["pass_s"].get<double>() * 0.1 / c["modelled_ops_s"].get<double>()));
  const auto text = run_fomcast("estimate --workload P1B2 --platform MI250X", db);
  // NV_K20X ships a host_speed (the Opteron 6274's PassMark rating), MI250X does not.
  CHECK(text.out.find("carried unscaled: no host_speed figure for MI250X") != std::string::npos);

  // A run time replaces it (one calibration per workload and platform): 1 epoch of 45 passes.
  const json r = run_json("calibrate --workload P1B2 --platform NV_K20X --run-hours 0.001 --json", db);
  CHECK(r["measured_pass_s"].get<double>() == doctest::Approx(3.6 / 45));
  CHECK(run_json("estimate --workload P1B2 --platform NV_K20X --json", db)["pass_s"].get<double>() ==
        doctest::Approx(3.6 / 45));
  // whatif starts from the calibrated pass: host=2 halves the residual.
  const json w = run_json("whatif --workload P1B2 --platform NV_K20X --scale host=2 --json", db);
  CHECK(w["reference_pass_s"].get<double>() == doctest::Approx(3.6 / 45));
  CHECK(w["residual_s"].get<double>() == doctest::Approx(w["reference_residual_s"].get<double>() / 2));
}

TEST_CASE("calibrate and whatif: bad input exits 2, names the flag and leaves the database unchanged") {
  ScratchDir dir;
  const std::string db = dir.file("bad.db");
  run_json("calibrate --workload P1B2 --platform NV_K20X --pass-s 0.1 --json", db);  // a database with a calibration
  const std::string before = fomcast::test::file_fingerprint(db);
  struct Bad {
    const char* args;
    const char* says;
  };
  const Bad bad[] = {
      {"calibrate --workload nope --platform NV_K20X --pass-s 1", "--workload"},
      {"calibrate --workload P1B2 --platform nope --pass-s 1",
       "--platform: unknown platform 'nope' (see `fomcast platforms`)"},
      {"calibrate --workload P1B2 --platform NV_K20X", "--pass-s"},
      {"calibrate --workload P1B2 --platform NV_K20X --pass-s 1 --epoch-s 2", "only one"},
      {"calibrate --workload P1B2 --platform NV_K20X --pass-s 0", "--pass-s: must be > 0 (got 0)"},
      {"calibrate --workload P1B2 --platform NV_K20X --epoch-s -3", "--epoch-s: must be > 0 (got -3)"},
      {"calibrate --workload P1B2 --platform NV_K20X --run-hours nan",
       "--run-hours: must be a finite number (got nan)"},
      {"calibrate --workload P1B2 --platform NV_K20X --run-hours 1e-308", "--run-hours: must be >= 1e-09 (got 1e-308)"},
      {"calibrate --workload P1B2 --platform NV_K20X --pass-s inf", "--pass-s: must be a finite number (got inf)"},
      {"calibrate --workload P1B2 --platform NV_K20X --pass-s 1e400", "--pass-s: must be <= 1,000,000,000 (got 1e400)"},
      {"calibrate --workload P1B2 --platform NV_K20X --pass-s abc", "--pass-s: must be a number (got 'abc')"},
      {"calibrate --workload P1B2 --platform NV_K20X --pass-s 1 --clear", "only one"},
      {"calibrate --workload P1B2 --platform A --pass-s 1", "no figures"},
      // Stored, a byte 0xFF broke every JSON output that read the calibration.
      {"calibrate --workload P1B2 --platform NV_K20X --pass-s 1 --note \"$(printf 'lab \\377')\" --json",
       "--note: must be valid UTF-8 (byte 4 is not)"},
      {"calibrate --workload P1B2 --platform NV_K20X --pass-s 1 --note \"$(printf 'a\\nb')\"",
       "--note: must be printable"},
      {"whatif --workload P1B2 --platform NV_K20X --scale nope=2", "--scale"},
      {"whatif --workload P1B2 --platform NV_K20X --scale kind:nope=2", "kind"},
      {"whatif --workload P1B2 --platform NV_K20X --scale gemm=4", "kind:gemm"},
      {"whatif --workload P1B2 --platform NV_K20X --scale kind:gemm=0",
       "factor of 'kind:gemm' (how many times better) must be > 0 (got 0)"},
      {"whatif --workload P1B2 --platform NV_K20X --scale kind:gemm=-2", "must be > 0 (got -2)"},
      {"whatif --workload P1B2 --platform NV_K20X --scale kind:gemm=nan", "must be a finite number (got nan)"},
      {"whatif --workload P1B2 --platform NV_K20X --scale kind:gemm=1e308", "must be <= 1,000,000 (got 1e+308)"},
      {"whatif --workload P1B2 --platform NV_K20X --scale peak_flops", "KEY=FACTOR"},
      {"whatif --workload P1B2 --platform NV_K20X --scale ''", "--scale"},
      {"whatif --workload P1B2 --platform NV_K20X --scale mem_bw=2,,host=2", "empty item"},
      {"whatif --workload P1B2 --platform NV_K20X --scale host=2,host=3", "twice"},
      {"whatif --workload P1B2 --platform NV_K20X", "--scale"},
      {"whatif --workload nope --platform NV_K20X --scale host=2", "--workload"},
      {"whatif --workload P1B2 --platform nope --scale host=2", "--platform: unknown platform 'nope'"},
  };
  for (const auto& b : bad) {
    CAPTURE(b.args);
    const auto r = run_fomcast(b.args, db);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find(b.says) != std::string::npos, r.err);
    CHECK(r.out.empty());
    CHECK(fomcast::test::file_fingerprint(db) == before);
  }
}

TEST_CASE("a study mixing calibrated and uncalibrated problems says which is which") {
  ScratchDir dir;
  const std::string db = dir.file("mixed.db");
  const json study = {
      {"name", "mixed"},
      {"baseline", {{"platform", "NV_K20X"}, {"nodes", 18688}}},
      {"target", {{"platform", "MI250X"}, {"nodes", 37632}}},
      {"problems",
       {{{"name", "P1B2"}, {"workload", "P1B2"}, {"baseline_epoch_s", 4.5}, {"baseline_source", "a made-up run"}},
        {{"name", "P1B1"}, {"workload", "P1B1"}, {"note", "none known"}},
        {{"name", "P3B1"}, {"workload", "P3B1"}},
        {{"name", "hours"}, {"baseline_hours", 6}, {"target_hours", 0.5}},
        {{"name", "P1B2-run"}, {"workload", "P1B2"}, {"epochs", 2}, {"baseline_hours", 0.01}},
        {{"name", "P1B2-pass"}, {"workload", "P1B2"}, {"baseline_pass_s", 0.08}}}}};
  const std::string file = dir.write("mixed.json", study.dump());
  // A source without a measured time is a mistake in the study, named by field.
  json orphan = study;
  orphan["problems"][2]["baseline_source"] = "somewhere";
  const std::string bad = dir.write("orphan.json", orphan.dump());
  const auto o = run_fomcast("fom '" + bad + "'", db);
  CHECK(o.status == 2);
  CHECK_MESSAGE(o.err.find("problems[2].baseline_source") != std::string::npos, o.err);
  json j = run_json("fom --json '" + file + "'", db);
  const auto& p = j["problems"];
  CHECK(p[0]["calibrated"] == true);
  CHECK(p[0]["calibration"].get<std::string>().find("a made-up run") != std::string::npos);
  CHECK(p[0]["baseline"]["method"] == "measured");
  CHECK(p[0]["target"]["method"] == "calibrated");
  CHECK(p[0]["baseline"]["seconds_per_unit"].get<double>() == doctest::Approx(4.5));  // 1 epoch
  // The gap is mostly the op model's error (a layer-list model's residual is its dispatch
  // time), and the ratio under the residual rule's bounds brackets the central one.
  CHECK(p[0]["target"]["residual_share"].get<double>() < 0.5);
  CHECK(p[0]["target"]["host_bound"] == false);
  CHECK(p[0]["ratio_bounds"]["low"].get<double>() < p[0]["ratio"].get<double>());
  CHECK(p[0]["ratio_bounds"]["high"].get<double>() >= p[0]["ratio"].get<double>());
  CHECK(p[1]["ratio_bounds"]["low"].get<double>() == doctest::Approx(p[1]["ratio"].get<double>()));
  CHECK(j["fom_bounds"]["low"].get<double>() <= j["fom"].get<double>());
  CHECK(j["fom_bounds"]["high"].get<double>() >= j["fom"].get<double>());
  CHECK(p[1]["calibrated"] == false);
  CHECK(p[1]["calibration"] == "none known");
  CHECK(p[1]["baseline"]["method"] == "estimated");
  CHECK(p[1]["target"]["residual_share"].get<double>() == 0);
  CHECK(p[2]["calibrated"] == false);
  CHECK(p[2]["calibration"].get<std::string>().find("no measured time of P3B1") != std::string::npos);
  CHECK(p[3]["baseline"]["method"] == "measured");
  // baseline_hours is per unit of work (a run of the problem's 2 epochs); baseline_pass_s
  // one pass (45 per epoch, 1 epoch).
  CHECK(p[4]["calibrated"] == true);
  CHECK(p[4]["baseline"]["method"] == "measured");
  CHECK(p[4]["baseline"]["seconds_per_unit"].get<double>() == doctest::Approx(36));
  CHECK(p[4]["calibration"].get<std::string>().find("baseline_hours") != std::string::npos);
  CHECK(p[5]["baseline"]["seconds_per_unit"].get<double>() == doctest::Approx(0.08 * 45));
  CHECK(p[5]["calibration"].get<std::string>().find("baseline_pass_s") != std::string::npos);
  const auto text = run_fomcast("fom '" + file + "' --verbose", db);
  REQUIRE(text.status == 0);
  CHECK(text.out.find("P1B2: calibrated by the study's baseline_epoch_s (a made-up run)") != std::string::npos);
  CHECK(text.out.find("P1B1: NOT calibrated: none known") != std::string::npos);
  // P1B2's gap on Titan is the op model's error, not host time: no side is host-bound, and
  // the FOM under the residual rule's bounds is printed beside the central one.
  CHECK(text.out.find("WARNING host-bound") == std::string::npos);
  CHECK(text.out.find("FOM under the residual rule's bounds: ") != std::string::npos);
  // Without --verbose: the warnings alone, one line each.
  const auto brief = run_fomcast("fom '" + file + "'", db);
  CHECK(brief.out.find("FOM under the residual rule's bounds: ") != std::string::npos);
  CHECK(brief.out.find("WARNING 2 of 5 workload problems not calibrated") != std::string::npos);
  CHECK(brief.out.find("P1B1: NOT calibrated: none known") == std::string::npos);

  // A stored calibration on the target calibrates a problem the study gives no time for:
  // the target side is then the measurement and the baseline is projected from it.
  run_json("calibrate --workload P1B1 --platform MI250X --pass-s 0.05 --json", db);
  j = run_json("fom --json '" + file + "'", db);
  const auto& q = j["problems"][1];
  CHECK(q["calibrated"] == true);
  CHECK(q["target"]["method"] == "measured");
  CHECK(q["baseline"]["method"] == "calibrated");
  CHECK(q["target"]["seconds_per_unit"].get<double>() == doctest::Approx(0.05 * 27 * 100));  // 27 passes x 100 epochs
}

TEST_CASE("the shipped CANDLE study: measured Titan times where the repository records them, and why not elsewhere") {
  const std::string path = source_path("data/studies/candle-exascale.json");
  const json study = json::parse(slurp(path));
  std::map<std::string, json> given;
  for (const auto& p : study["problems"]) {
    CAPTURE(p["name"]);
    const bool timed = p.contains("baseline_epoch_s") || p.contains("baseline_pass_s") || p.contains("baseline_hours");
    // Every measured time names its source; every problem without one says why.
    if (timed) CHECK(!p.value("baseline_source", std::string()).empty());
    CHECK(!p.value("note", std::string()).empty());
    given[p["name"]] = p;
  }
  // The two measurements data/candle/README.md records for Titan in the configuration
  // they ran: NT3 99 s/epoch and TC1 395 s/epoch, both perf-bench (batch 5).
  CHECK(given.at("NT3-perf")["baseline_epoch_s"] == 99);
  CHECK(given.at("TC1-perf")["baseline_epoch_s"] == 395);

  ScratchDir dir;
  const std::string db = dir.file("candle.db");
  const json j = run_json("fom --json '" + path + "'", db);
  int calibrated = 0;
  for (const auto& p : j["problems"]) {
    CAPTURE(p["name"]);
    const json& g = given.at(p["name"]);
    const bool timed = g.contains("baseline_epoch_s");
    CHECK(p["calibrated"] == timed);
    if (timed) {
      ++calibrated;
      CHECK(p["baseline"]["method"] == "measured");
      CHECK(p["target"]["method"] == "calibrated");
      CHECK(p["calibration"].get<std::string>().find(g["baseline_source"].get<std::string>()) != std::string::npos);
    } else {
      CHECK(p["calibration"] == g["note"]);
      CHECK(p["baseline"]["method"] == "estimated");
    }
  }
  CHECK(calibrated == 2);
  // The perf-bench workloads: batch 5 -> 224 passes per epoch for NT3 (1,120 samples) and
  // 864 for TC1 (4,320), 50 and 20 epochs: the measured run is epoch time x epochs.
  for (const auto& p : j["problems"]) {
    if (p["name"] == "NT3-perf") CHECK(p["baseline"]["seconds_per_unit"].get<double>() == doctest::Approx(99.0 * 50));
    if (p["name"] == "TC1-perf") CHECK(p["baseline"]["seconds_per_unit"].get<double>() == doctest::Approx(395.0 * 20));
  }
  // The bounds of the FOM are the least and most of the two rules' FOMs and the FOM itself: a
  // bound neither rule gives is said to be the FOM itself, not left unexplained.
  const json& b = j["fom_bounds"];
  const double fom = j["fom"], unscaled = b["carried_unscaled"], scaled = b["scaled_with_ops"];
  CHECK(b["low"].get<double>() == doctest::Approx(std::min({fom, unscaled, scaled})));
  CHECK(b["high"].get<double>() == doctest::Approx(std::max({fom, unscaled, scaled})));
  const bool outside = fom < std::min(unscaled, scaled) || fom > std::max(unscaled, scaled);
  const auto text = run_fomcast("fom '" + path + "'", db);
  REQUIRE(text.status == 0);
  CHECK_MESSAGE((text.out.find("; the FOM itself, outside both: ") != std::string::npos) == outside, text.out);
}

TEST_CASE("a band of 100% or more is printed as the range it spans, not as +/- over 100%") {
  ScratchDir dir;
  const std::string db = dir.file("b.db");
  REQUIRE(run_fomcast("calibrate --workload NT3-perf --platform NV_K20X --epoch-s 99", db).status == 0);
  const auto text = run_fomcast("estimate --workload NT3-perf --platform MI250X", db);
  REQUIRE_MESSAGE(text.status == 0, text.err);
  const json j = json::parse(run_fomcast("estimate --workload NT3-perf --platform MI250X --json", db).out);
  REQUIRE(j["uncertainty"].get<double>() >= 1);  // the residual rule's bounds are far apart here
  CHECK(text.out.find("the residual rule's bounds)") != std::string::npos);
  CHECK_FALSE(std::regex_search(text.out, std::regex(R"(pass .*\+/- [0-9]{3,}%)")));
}
