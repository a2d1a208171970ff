// estimate / whatif / scaling --parallel through the binary: the contract's fields, the
// single-device path untouched without the flag, the memory refusal, scaling points.
#include <doctest/doctest.h>

#include <algorithm>

#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "test_support.hpp"

using fomcast::test::any_note_contains;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using nlohmann::json;

TEST_CASE("estimate --parallel adds compute, exposed communication, bubble and efficiency") {
  ScratchDir dir;
  const auto db = dir.file("p.db");
  const auto one = run_fomcast("estimate --workload gpt2-small --platform H100 --json", db);
  REQUIRE(one.status == 0);
  const json j1 = json::parse(one.out);
  CHECK_FALSE(j1.contains("compute_s"));
  const auto r = run_fomcast(
      "estimate --workload gpt2-small --platform H100 --parallel dp=2,tp=2,pp=2 --micro-batches 4 --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const json j = json::parse(r.out);
  for (const char* k : {"compute_s", "exposed_comm_s", "bubble_s", "scaling_efficiency"}) {
    INFO(k);
    REQUIRE(j.contains(k));
    CHECK(j[k].get<double>() >= 0);
  }
  CHECK(j["bubble_s"].get<double>() > 0);        // pp=2
  CHECK(j["exposed_comm_s"].get<double>() > 0);  // tp all-reduces block the compute
  CHECK(j["scaling_efficiency"].get<double>() < 1);
  CHECK(j["global_batch"] == 2 * 4 * 12);
  // The step is its parts (the residual is 0 for a model without a measured time).
  CHECK(j["pass_s"].get<double>() == doctest::Approx(j["compute_s"].get<double>() + j["exposed_comm_s"].get<double>() +
                                                     j["bubble_s"].get<double>()));
  // The headline split is the step's, not the one-device pass's (which read "modelled 292 ms
  // (151%)" of a 194 ms step).
  CHECK(j["modelled_s"].get<double>() + j["residual_s"].get<double>() == doctest::Approx(j["pass_s"].get<double>()));
  CHECK(j["modelled_share"].get<double>() <= 1.0);
  CHECK(j["pass_bounds"]["high_s"].get<double>() == doctest::Approx(j["pass_s"].get<double>()));
  // Data parallel alone divides the work: more samples per second than one device.
  const auto dp = run_fomcast("estimate --workload gpt2-small --platform H100 --parallel dp=4 --json", db);
  REQUIRE(dp.status == 0);
  const json jd = json::parse(dp.out);
  CHECK(jd["pass_s"].get<double>() >= j1["pass_s"].get<double>());
  CHECK(jd["scaling_efficiency"].get<double>() > 0.9);
}

TEST_CASE("estimate --parallel refuses a layout that does not fit, and bad flags") {
  ScratchDir dir;
  const auto db = dir.file("p.db");
  const auto big = run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=2 --batch-per-gpu 64", db);
  CHECK(big.status == 2);
  CHECK(big.err.find("does not fit on A100") != std::string::npos);
  CHECK(big.err.find("--parallel") != std::string::npos);
  // A request the model cannot answer is not a mistyped command: said as what it is.
  CHECK_MESSAGE(big.err.rfind("fomcast: cannot estimate: --parallel: workload 'gpt2-small' does not fit", 0) == 0,
                big.err);
  const auto bad = run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=2,qq=3", db);
  CHECK(bad.status == 2);
  CHECK(bad.err.find("qq") != std::string::npos);
  CHECK(bad.err.rfind("fomcast: usage error: ", 0) == 0);
  // Megatron splits attention by heads: gpt2-small's 12 do not split 8 ways.
  const auto heads = run_fomcast("estimate --workload gpt2-small --platform A100 --parallel tp=8", db);
  CHECK(heads.status == 2);
  CHECK(heads.err.find("tp=8 does not divide layer 'h.0' (12 attention heads, MLP width 3072)") != std::string::npos);
  for (const char* flags : {"--parallel ''", "--parallel dp=2,dp=4", "--parallel dp=2 --batch-per-gpu 1000000000"}) {
    const auto r = run_fomcast(std::string("estimate --workload gpt2-small --platform A100 ") + flags, db);
    CHECK_MESSAGE(r.status == 2, flags);
    CHECK_MESSAGE((r.err.find("--parallel") != std::string::npos || r.err.find("--batch-per-gpu") != std::string::npos),
                  r.err);
  }
  const auto lonely = run_fomcast("estimate --workload gpt2-small --platform A100 --zero 2", db);
  CHECK(lonely.status == 2);
  CHECK(lonely.err.find("need --parallel") != std::string::npos);
  const auto uneven =
      run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=4 --global-batch 10", db);
  CHECK(uneven.status == 2);
  CHECK(uneven.err.find("not a multiple") != std::string::npos);
}

TEST_CASE("--recompute: Megatron's 4.2B fits 4-way on 32 GB V100s as it ran; the recomputed forward's all-reduces") {
  ScratchDir dir;
  const auto db = dir.file("p.db");
  const std::string run =
      "estimate --workload megatron-gpt2-4.2b --platform V100_SXM2_32GB --precision fp16 "
      "--parallel tp=4";
  // Without recomputation the kept activations of a batch of 8 do not fit.
  const auto plain = run_fomcast(run, db);
  CHECK(plain.status == 2);
  CHECK(plain.err.find("does not fit on V100_SXM2_32GB") != std::string::npos);
  CHECK(plain.err.find("--recompute") != std::string::npos);  // what to change: it was not set
  // With it (the paper's runs) they do. Each of the 64 blocks keeps its fp16 input of 8 x 1024
  // x 2304 values, replicated over the tensor group: 2,415,919,104 B, plus one block live and
  // the layers around the blocks. Before, the LM head's logits counted as 43% of every kept
  // activation and the layout was refused at 76 GiB.
  const auto r = run_fomcast(run + " --recompute --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const json j = json::parse(r.out);
  const double inputs = 64.0 * 8 * 1024 * 2304 * 2;
  CHECK(j["memory"]["activations_bytes"].get<double>() > inputs);
  CHECK(j["memory"]["activations_bytes"].get<double>() < 1.5 * inputs);
  CHECK(j["memory"]["total_bytes"].get<double>() < 32.0 * (1 << 30));
  // Each block's all-reduce carries its fp16 output, six times a step: two forward, two in
  // the recomputed forward, two backward. The word embedding's lookup and the LM head's
  // input carry the same tensor once a step each (neither is recomputed).
  int tp_reduces = 0, around = 0;
  for (const auto& c : j["parallel"]["collectives"]) {
    const auto what = c["what"].get<std::string>();
    if (what.rfind("tp all-reduce", 0) != 0 || what.find("cross-entropy") != std::string::npos) continue;
    const bool block = what.find(", ") == std::string::npos;
    ++(block ? tp_reduces : around);
    CHECK(c["bytes"].get<double>() == 8.0 * 1024 * 2304 * 2);
    CHECK(c["calls_per_step"] == (block ? 6 : 1));
  }
  CHECK(tp_reduces == 64);
  CHECK(around == 2);
  // Too big even recomputed: the advice no longer names what is already set.
  const auto two = run_fomcast(
      "estimate --workload megatron-gpt2-4.2b --platform V100_SXM2_32GB --precision fp16 --parallel tp=2 --recompute",
      db);
  CHECK(two.status == 2);
  CHECK(two.err.find("does not fit") != std::string::npos);
  CHECK(two.err.find("--recompute,") == std::string::npos);
  CHECK(two.err.find("--zero") == std::string::npos);  // dp=1: ZeRO has nothing to shard over
  // One device recomputing is the reference: dp=1 is 100% efficient.
  const auto one = run_fomcast(
      "estimate --workload megatron-gpt2-1.2b --platform V100_SXM2_32GB --precision fp16 --parallel dp=1 "
      "--recompute --json",
      db);
  REQUIRE_MESSAGE(one.status == 0, one.err);
  CHECK(json::parse(one.out)["scaling_efficiency"].get<double>() == doctest::Approx(1.0));
}

TEST_CASE(
    "Hugging Face Accelerate's Megatron-LM example: GPT-2 large tp=2 pp=2, selective recomputation, sequence "
    "parallel") {
  ScratchDir dir;
  const auto db = dir.file("p.db");
  const std::string run =
      "estimate --workload gpt2-large --platform A100_PCIe_80GB --precision bf16 --parallel "
      "tp=2,pp=2 --micro-batches 2 --batch-per-gpu 24 --json";
  auto step = [&](const std::string& extra) {
    const auto r = run_fomcast(run + extra, db);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    return json::parse(r.out);
  };
  // Without recomputation stage 0, the fullest, holds two micro-batches of its blocks'
  // activations (the stages are cut at about equal time: the LM head's stage takes fewer
  // blocks). Korthikanti et al. (2022, eq. 2) give a block's as s b h (10 + 24 / t) +
  // 5 a s^2 b / t bytes in half precision: s = 1024, b = 24, h = 1280, a = 20, t = 2. The
  // embeddings add a little; it fits in 80 GB, without the margin the run took.
  const json plain = step("");
  CHECK(plain["memory"]["stage"] == 0);
  const auto& first = plain["parallel"]["stages"][0];
  CHECK(first["first_layer"] == "wte");
  const std::string last = first["last_layer"];
  REQUIRE(last.rfind("h.", 0) == 0);
  const double n_blocks = std::stod(last.substr(2)) + 1;
  CHECK(n_blocks > 18);
  const double s = 1024, b = 24, h = 1280, a = 20, t = 2;
  const double blocks = 2 * n_blocks * (s * b * h * (10 + 24 / t) + 5 * a * s * s * b / t);
  CHECK(plain["memory"]["activations_bytes"].get<double>() > blocks);
  CHECK(plain["memory"]["activations_bytes"].get<double>() < 1.05 * blocks);
  const json sp = step(" --sequence-parallel"), selective = step(" --recompute-attention"), full = step(" --recompute"),
             both = step(" --recompute-attention --sequence-parallel");
  // A PCIe card: its devices exchange data over PCIe (its 31.5 GB/s host link), said so.
  CHECK(any_note_contains(selective["parallel"]["notes"], "peer-to-peer over PCIe"));
  // Selective recomputation drops attention's tensors, most of the activations; full
  // recomputation drops more and runs more again. Sequence parallel splits the norms',
  // dropouts' and residuals' share that tensor parallel leaves whole.
  auto acts = [](const json& j) { return j["memory"]["activations_bytes"].get<double>(); };
  CHECK(acts(both) < acts(sp) / 2);
  CHECK(acts(both) < acts(selective));
  CHECK(acts(full) < acts(selective));
  CHECK(sp["compute_s"].get<double>() < both["compute_s"].get<double>());
  CHECK(selective["compute_s"].get<double>() < full["compute_s"].get<double>());
  CHECK(both["compute_s"].get<double>() < selective["compute_s"].get<double>());
  int rs = 0, ar = 0;
  for (const auto& c : both["parallel"]["collectives"]) {
    rs += c["what"].get<std::string>().rfind("tp reduce-scatter", 0) == 0;
    ar += c["what"].get<std::string>().rfind("tp all-reduce", 0) == 0;
  }
  // The 36 blocks', the word embedding's and the LM head input's; the cross-entropy's three
  // per token stay all-reduces.
  CHECK(rs == 38);
  CHECK(ar == 1);
  CHECK(both["parallel"]["sequence_parallel"] == true);
  CHECK(both["parallel"]["recompute_attention"] == true);
  // The two recomputations are one choice.
  const auto twice = run_fomcast(run + " --recompute --recompute-attention", db);
  CHECK(twice.status == 2);
  CHECK(twice.err.find("--recompute") != std::string::npos);
}

TEST_CASE("scaling: strong and weak curves, efficiency per point") {
  ScratchDir dir;
  const auto db = dir.file("p.db");
  // Strong: 96 samples per step in 4 micro-batches of 24, 12, 6, 3 per device.
  const auto s = run_fomcast(
      "scaling --workload gpt2-small --platform H100 --parallel dp=1,2,...,8 --micro-batches 4 --global-batch 96 "
      "--json",
      db);
  REQUIRE_MESSAGE(s.status == 0, s.err);
  const json j = json::parse(s.out);
  REQUIRE(j["points"].size() == 4);
  for (std::size_t i = 0; i < 4; ++i) REQUIRE_MESSAGE(!j["points"][i].contains("error"), j["points"][i].dump());
  CHECK(j["points"][0]["efficiency"].get<double>() == doctest::Approx(1));
  CHECK(j["points"][3]["devices"] == 8);
  CHECK(j["points"][3]["micro_batch"] == 3);
  // Strong scaling: the step shrinks as devices grow.
  CHECK(j["points"][3]["step_s"].get<double>() < j["points"][0]["step_s"].get<double>());
  // A global batch given, nothing else: reached at the workload's micro-batch of 12 by
  // accumulating, 16 micro-batches on one device and 2 on eight (it had been one micro-batch
  // of 192 on one device, refused, where the same sweep without it reached every point).
  const auto given =
      run_fomcast("scaling --workload gpt2-small --platform H100 --parallel dp=1,8 --global-batch 192 --json", db);
  REQUIRE_MESSAGE(given.status == 0, given.err);
  const json jg = json::parse(given.out);
  for (const auto& p : jg["points"]) {
    REQUIRE_MESSAGE(!p.contains("error"), p.dump());
    CHECK(p["micro_batch"] == 12);
    CHECK(p["global_batch"] == 192);
  }
  CHECK(jg["points"][0]["micro_batches"] == 16);
  CHECK(jg["points"][1]["micro_batches"] == 2);
  // With the micro-batch count fixed too, 192 samples at dp=1 need 192 per device: too big
  // for 80 GB, said per point.
  const auto big = run_fomcast(
      "scaling --workload gpt2-small --platform H100 --parallel dp=1,8 --global-batch 192 --micro-batches 1", db);
  REQUIRE(big.status == 0);
  CHECK(big.out.find("does not fit") != std::string::npos);
  // Weak scaling keeps the batch per device: a global batch with it is refused.
  const auto weak_global =
      run_fomcast("scaling --workload gpt2-small --platform H100 --parallel dp=1,8 --global-batch 192 --weak", db);
  CHECK(weak_global.status == 2);
  CHECK(weak_global.err.find("--global-batch with --weak") != std::string::npos);
  // Strong with nothing given: the largest point's global batch (4 x 12), the smaller points
  // accumulating micro-batches of 12; efficiency against one device at most 100%.
  const auto acc = run_fomcast("scaling --workload gpt2-small --platform H100 --parallel dp=1,2,4 --json", db);
  REQUIRE(acc.status == 0);
  const json ja = json::parse(acc.out);
  REQUIRE(ja["points"].size() == 3);
  for (const auto& p : ja["points"]) {
    REQUIRE_MESSAGE(!p.contains("error"), p.dump());
    CHECK(p["global_batch"] == 48);
    CHECK(p["micro_batch"] == 12);
    CHECK(p["scaling_efficiency"].get<double>() <= 1 + 1e-12);
  }
  CHECK(ja["points"][0]["scaling_efficiency"].get<double>() == doctest::Approx(1));
  // A point whose devices do not divide the global batch at the workload's micro-batch takes
  // the largest micro-batch below it that does: 48 on dp=3 is 2 micro-batches of 8.
  const auto odd = run_fomcast("scaling --workload gpt2-small --platform H100 --parallel dp=1,3,4 --json", db);
  REQUIRE(odd.status == 0);
  const json jo = json::parse(odd.out);
  REQUIRE(jo["points"].size() == 3);
  REQUIRE_MESSAGE(!jo["points"][1].contains("error"), jo["points"][1].dump());
  CHECK(jo["points"][1]["micro_batch"] == 8);
  CHECK(jo["points"][1]["micro_batches"] == 2);
  CHECK(jo["points"][2]["global_batch"] == 48);
  // One that no whole micro-batch reaches (96 over dp=5) says so.
  const auto five = run_fomcast("scaling --workload gpt2-small --platform H100 --parallel dp=1,5,8 --json", db);
  REQUIRE(five.status == 0);
  const json jf = json::parse(five.out);
  CHECK(jf["points"][1]["error"].get<std::string>().find("keeps the global batch of 96") != std::string::npos);
  const auto w = run_fomcast("scaling --workload gpt2-small --platform H100 --parallel dp=1,4 --weak", db);
  REQUIRE(w.status == 0);
  CHECK(w.out.find("weak scaling over dp") != std::string::npos);
  const auto two = run_fomcast("scaling --workload gpt2-small --platform H100 --parallel dp=1,2,tp=1,2", db);
  CHECK(two.status == 2);
  // --precision as on estimate: each point is estimate --parallel's step at that precision.
  const auto bf =
      run_fomcast("scaling --workload gpt2-small --platform H100 --parallel tp=1,2 --precision amp-bf16 --json", db);
  REQUIRE_MESSAGE(bf.status == 0, bf.err);
  const auto one =
      run_fomcast("estimate --workload gpt2-small --platform H100 --parallel tp=2 --precision amp-bf16 --json", db);
  REQUIRE_MESSAGE(one.status == 0, one.err);
  const json jb = json::parse(bf.out);
  REQUIRE(jb["points"].size() == 2);
  CHECK(jb["points"][1]["step_s"].get<double>() == doctest::Approx(json::parse(one.out)["pass_s"].get<double>()));
  const auto fp32 = run_fomcast("scaling --workload gpt2-small --platform H100 --parallel tp=1,2 --json", db);
  REQUIRE(fp32.status == 0);
  CHECK(jb["points"][1]["step_s"].get<double>() < json::parse(fp32.out)["points"][1]["step_s"].get<double>());
  const auto badp = run_fomcast("scaling --workload gpt2-small --platform H100 --parallel tp=1,2 --precision fp8", db);
  CHECK(badp.status == 2);
  CHECK(badp.err.find("--precision") != std::string::npos);
}

TEST_CASE("whatif --parallel: a faster network shrinks only the exposed communication") {
  ScratchDir dir;
  const auto db = dir.file("p.db");
  const auto r =
      run_fomcast("whatif --workload gpt2-small --platform A100 --scale net_bw=0.01 --parallel dp=2,tp=2 --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const json j = json::parse(r.out);
  CHECK(j["speedup"].get<double>() < 1);  // a network 100x slower
  CHECK(j["compute_s"].get<double>() == doctest::Approx(j["reference"]["compute_s"].get<double>()));
  CHECK(j["exposed_comm_s"].get<double>() > j["reference"]["exposed_comm_s"].get<double>());
  // kind:collective speeds up the layout's collectives as well (before, it changed nothing).
  const auto c =
      run_fomcast("whatif --workload gpt2-small --platform H100 --scale kind:collective=2 --parallel tp=4 --json", db);
  REQUIRE_MESSAGE(c.status == 0, c.err);
  const json jc = json::parse(c.out);
  CHECK(jc["speedup"].get<double>() > 1);
  CHECK(jc["exposed_comm_s"].get<double>() < jc["reference"]["exposed_comm_s"].get<double>());
}

TEST_CASE("a study problem with a parallel layout is estimated as estimate --parallel, bad layouts named") {
  ScratchDir dir;
  const auto db = dir.file("p.db");
  auto study = [&](const std::string& problem) {
    auto path = dir.file("study.json");
    std::ofstream(path) << R"({"name": "s", "baseline": {"platform": "A100", "nodes": 1, "devices_per_unit": 8},
      "target": {"platform": "H100", "nodes": 1, "devices_per_unit": 8}, "problems": [)" +
                               problem + "]}";
    return path;
  };
  const auto ok = run_fomcast(
      "fom " + study(R"({"name": "p", "workload": "gpt2-small", "parallel": "dp=4,tp=2", "epochs": 1})") + " --json",
      db);
  REQUIRE_MESSAGE(ok.status == 0, ok.err);
  const double ratio = json::parse(ok.out)["problems"][0]["ratio"].get<double>();
  // The same ratio as the two estimates' steps, global batch 48 on each side.
  const auto a = run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=4,tp=2 --json", db);
  const auto h = run_fomcast("estimate --workload gpt2-small --platform H100 --parallel dp=4,tp=2 --json", db);
  REQUIRE(a.status == 0);
  REQUIRE(h.status == 0);
  CHECK(ratio ==
        doctest::Approx(json::parse(a.out)["pass_s"].get<double>() / json::parse(h.out)["pass_s"].get<double>())
            .epsilon(1e-6));
  // The report plots the problem's weak scaling over dp on both platforms.
  const auto html = dir.file("r.html");
  const auto rep = run_fomcast(
      "report " + study(R"({"name": "p", "workload": "gpt2-small", "parallel": "dp=4,tp=2", "epochs": 1})") +
          " --out " + html,
      db);
  REQUIRE_MESSAGE(rep.status == 0, rep.err);
  const std::string page = fomcast::test::slurp(html);
  CHECK(page.find("<section id=\"scaling\">") != std::string::npos);
  CHECK(page.find("<li><a href=\"#scaling\">Scaling</a></li>") != std::string::npos);  // in the contents too
  CHECK(page.find("Weak scaling of gpt2-small on A100") != std::string::npos);
  CHECK(page.find("Weak scaling of gpt2-small on H100") != std::string::npos);
  // Its value axis labels each tick with a number of its own (efficiencies of 99.9-100% once
  // printed "100" on every tick of a stretched axis).
  const auto chart_start = page.find("Weak scaling of gpt2-small on A100");
  const std::string svg = page.substr(chart_start, page.find("</svg>", chart_start) - chart_start);
  const std::regex tick(R"(class="tick" text-anchor="end">([^<]*)</text>)");
  std::vector<std::string> labels;
  for (std::sregex_iterator it(svg.begin(), svg.end(), tick), end; it != end; ++it) labels.push_back((*it)[1]);
  CHECK(labels.size() >= 3);
  CHECK(std::set<std::string>(labels.begin(), labels.end()).size() == labels.size());
  const auto bad = run_fomcast(
      "fom " + study(R"({"name": "p", "workload": "gpt2-small", "parallel": "dp=4,zz=2", "epochs": 1})"), db);
  CHECK(bad.status == 2);
  CHECK(bad.err.find("problems[0].parallel") != std::string::npos);
  CHECK(bad.err.find("problems[0].parallel", bad.err.find("problems[0].parallel") + 1) == std::string::npos);
  // Named once, not once by the layout's parser and again by the study's error.
  const auto huge = run_fomcast(
      "fom " + study(R"({"name": "p", "workload": "gpt2-small", "parallel": "dp=2", "batch_size": 4096, "epochs": 1})"),
      db);
  CHECK(huge.status == 2);
  CHECK(huge.err.find("does not fit") != std::string::npos);
  const auto first = huge.err.find("problems[0].parallel");
  REQUIRE(first != std::string::npos);
  CHECK(huge.err.find("problems[0].parallel", first + 1) == std::string::npos);
  // A unit of work on dp=4,tp=2 occupies 8 devices: one 8-GPU node runs one at a time (not
  // eight, one per device), whatever the study counts as a node.
  {
    auto path = dir.file("dgx.json");
    std::ofstream(path) << R"({"name": "s", "baseline": {"platform": "A100", "nodes": 2, "devices_per_unit": 8},
      "target": {"platform": "H100", "nodes": 2, "devices_per_unit": 8}, "problems": [
      {"name": "p", "workload": "gpt2-small", "parallel": "dp=4,tp=2", "epochs": 1}]})";
    const auto r = run_fomcast("fom " + path + " --json", db);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const json b = json::parse(r.out)["problems"][0]["baseline"];
    CHECK(b["nodes_per_unit"].get<double>() == 8);
    CHECK(b["units_per_day"].get<double>() * b["seconds_per_unit"].get<double>() == doctest::Approx(86400.0 * 2));
    std::ofstream(path) << R"({"name": "s", "baseline": {"platform": "A100", "nodes": 2, "devices_per_unit": 8},
      "target": {"platform": "H100", "nodes": 2, "devices_per_unit": 8}, "problems": [
      {"name": "p", "workload": "gpt2-small", "parallel": "dp=4,tp=2", "epochs": 1, "nodes_per_unit": 1}]})";
    const auto wrong = run_fomcast("fom " + path, db);
    CHECK(wrong.status == 2);
    CHECK(wrong.err.find("problems[0].nodes_per_unit") != std::string::npos);
  }
  const auto lonely =
      run_fomcast("fom " + study(R"({"name": "p", "workload": "gpt2-small", "micro_batches": 2, "epochs": 1})"), db);
  CHECK(lonely.status == 2);
  CHECK(lonely.err.find("problems[0].micro_batches") != std::string::npos);
  // Recomputation and sequence parallel as the flags give them: a batch that does not fit
  // whole fits recomputed, and the problem's step is estimate's with the same flags.
  const std::string big = R"({"name": "p", "workload": "gpt2-small", "parallel": "dp=2,tp=2", "batch_size": 96,
                             "epochs": 1)";
  CHECK(run_fomcast("fom " + study(big + "}"), db).status == 2);
  const auto fits =
      run_fomcast("fom " + study(big + R"(, "recompute": true, "sequence_parallel": true})") + " --json", db);
  REQUIRE_MESSAGE(fits.status == 0, fits.err);
  const auto ea = run_fomcast(
      "estimate --workload gpt2-small --platform A100 --parallel dp=2,tp=2 --batch-per-gpu 96 "
      "--recompute --sequence-parallel --json",
      db);
  const auto eh = run_fomcast(
      "estimate --workload gpt2-small --platform H100 --parallel dp=2,tp=2 --batch-per-gpu 96 "
      "--recompute --sequence-parallel --json",
      db);
  REQUIRE(ea.status == 0);
  REQUIRE(eh.status == 0);
  CHECK(json::parse(fits.out)["problems"][0]["ratio"].get<double>() ==
        doctest::Approx(json::parse(ea.out)["pass_s"].get<double>() / json::parse(eh.out)["pass_s"].get<double>())
            .epsilon(1e-6));
  for (const auto& [field, want] :
       {std::pair{R"("recompute": 1)", "problems[0].recompute: must be true or false"},
        std::pair{R"("recompute": true, "recompute_attention": true)",
                  "problems[0].recompute_attention: one or the other"},
        std::pair{R"("sequence_parallel": "yes")", "problems[0].sequence_parallel: must be true or false"}}) {
    const auto r = run_fomcast("fom " + study(big + ", " + field + "}"), db);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find(want) != std::string::npos, r.err);
  }
  // The report's weak-scaling sweep keeps the problem's layout flags and precision: this
  // problem fits only recomputed, and every point of its sweep is estimated.
  const auto html2 = dir.file("r2.html");
  const auto rep2 =
      run_fomcast("report " + study(big + R"(, "recompute": true, "precision": "bf16"})") + " --out " + html2, db);
  REQUIRE_MESSAGE(rep2.status == 0, rep2.err);
  const std::string page2 = fomcast::test::slurp(html2);
  CHECK(page2.find("Weak scaling of gpt2-small on A100") != std::string::npos);
  CHECK(page2.find("does not fit") == std::string::npos);
  const auto alone =
      run_fomcast("fom " + study(R"({"name": "p", "workload": "gpt2-small", "recompute": true, "epochs": 1})"), db);
  CHECK(alone.status == 2);
  CHECK(alone.err.find("problems[0].recompute") != std::string::npos);
}

TEST_CASE("the shipped gpt2-dgx study: each problem takes a whole 8-GPU node, the FOM within the two chips' limits") {
  ScratchDir dir;
  const auto r =
      run_fomcast("fom '" + fomcast::test::source_path("data/studies/gpt2-dgx.json") + "' --json", dir.file("p.db"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const json j = json::parse(r.out);
  REQUIRE(j["problems"].size() == 3);
  for (const auto& p : j["problems"])
    for (const char* side : {"baseline", "target"}) {
      CAPTURE(p["name"]);
      CHECK(p[side]["nodes_per_unit"].get<double>() == 8);
      // One node of 8 devices runs one unit at a time.
      CHECK(p[side]["units_per_day"].get<double>() * p[side]["seconds_per_unit"].get<double>() ==
            doctest::Approx(86400.0));
    }
  // H100 against A100 SXM4 80 GB: bandwidth 3350 / 2039 = 1.64x, bf16 peak 989.4 / 312 = 3.17x;
  // the same launch gaps on both sides pull the ratio toward 1. Nothing faster than the peak ratio.
  CHECK(j["fom"].get<double>() > 1.0);
  CHECK(j["fom"].get<double>() < 989.4 / 312.0);
}

TEST_CASE("data parallel: only trained parameters' gradients are reduced") {
  ScratchDir dir;
  const auto db = dir.file("p.db");
  // The same two dense layers (64 x 128 + 128, 128 x 10 + 10 fp32 parameters), trained or
  // frozen: a frozen layer has no gradient for the all-reduce.
  auto model = [&](const std::string& name, bool first_trained) {
    const auto path = dir.file(name + ".json");
    std::ofstream(path) << R"({"name": ")" << name << R"(", "batch_size": 8, "input_shape": [64], "loss": "mse",
        "layers": [{"type": "dense", "units": 128, "activation": "relu", "trainable": )"
                        << (first_trained ? "true" : "false") << R"(},
                   {"type": "dense", "units": 10, "trainable": false}]})";
    REQUIRE(run_fomcast("ingest " + path + " --workload " + name, db).status == 0);
    return fomcast::test::run_json("estimate --workload " + name + " --platform A100 --parallel dp=2 --json", db);
  };
  double reduced = 0;
  const json half = model("half", true);
  for (const auto& c : half["parallel"]["collectives"]) reduced += c["bytes"].get<double>();
  CHECK(reduced == (64.0 * 128 + 128) * 4);
  const json frozen = model("frozen", false);
  CHECK(frozen["parallel"]["collectives"].empty());
  CHECK(frozen["memory"]["gradients_bytes"].get<double>() == 0);
  // The layer list is read again for the layout: a file changed since it was ingested is refused.
  std::ofstream(dir.file("half.json")) << R"({"name": "half", "batch_size": 8, "input_shape": [64], "loss": "mse",
      "layers": [{"type": "dense", "units": 4096}]})";
  const auto changed = run_fomcast("estimate --workload half --platform A100 --parallel dp=2", db);
  CHECK(changed.status == 2);
  CHECK(changed.err.find("changed since it was ingested") != std::string::npos);
}

TEST_CASE("one device must hold what it trains, as a layout's devices must: estimate and study refuse, naming it") {
  // megatron-gpt2-8.3b at its batch of 8 on a 16 GiB V100: 31 GiB of fp32 weights alone. It
  // was estimated (33.8 s a pass) and entered a FOM, while --parallel dp=1 refused it.
  ScratchDir dir;
  const auto db = dir.file("m.db");
  const auto one = run_fomcast("estimate --workload megatron-gpt2-8.3b --platform NV_V100", db);
  CHECK(one.status == 2);
  CHECK_MESSAGE(one.err.find("does not fit on one NV_V100 at a batch of 8") != std::string::npos, one.err);
  CHECK(one.err.find("> 16 GiB") != std::string::npos);
  CHECK(one.out.empty());
  // The same as the layout of one device says.
  const auto layout = run_fomcast("estimate --workload megatron-gpt2-8.3b --platform NV_V100 --parallel dp=1", db);
  CHECK(layout.status == 2);
  CHECK(layout.err.find("does not fit") != std::string::npos);
  // What fits is estimated as before: gpt2-small at a batch of 4, not its 12 (26.4 GiB, of which
  // 24.5 GiB activations: fp32 attention scores of 12 heads x 1024^2 per layer and sample).
  const auto small = run_fomcast("estimate --workload gpt2-small --platform NV_V100", db);
  CHECK(small.status == 2);
  CHECK_MESSAGE(small.err.find("26.4 GiB") != std::string::npos, small.err);
  CHECK(run_fomcast("estimate --workload gpt2-small --platform NV_V100 --batch 4", db).status == 0);
  // In a study, the problem's workload is named.
  const std::string study = dir.write("s.json", R"({"name": "big", "baseline": {"platform": "H100", "nodes": 1},
    "target": {"platform": "NV_V100", "nodes": 1},
    "problems": [{"name": "small", "workload": "gpt2-small", "batch_size": 4},
                 {"name": "8.3b", "workload": "megatron-gpt2-8.3b"}]})");
  const auto fom = run_fomcast("fom '" + study + "'", db);
  CHECK(fom.status == 2);
  CHECK_MESSAGE(fom.err.find("problems[1].workload") != std::string::npos, fom.err);
  CHECK(fom.err.find("does not fit on one H100") != std::string::npos);
  // whatif's reference is an estimate too.
  const auto whatif = run_fomcast("whatif --workload megatron-gpt2-8.3b --platform NV_V100 --scale peak_flops=2", db);
  CHECK(whatif.status == 2);
  CHECK(whatif.err.find("does not fit on one NV_V100") != std::string::npos);
  // A side the user measured ran, with whatever the model does not say (fused attention,
  // recomputation): its time stands. gpt2-small at 12 on the 16 GiB V100, measured there.
  const std::string measured = dir.write("m.json", R"({"name": "m", "baseline": {"platform": "NV_V100", "nodes": 1},
    "target": {"platform": "H100", "nodes": 1},
    "problems": [{"name": "both", "workload": "gpt2-small", "baseline_hours": 100, "target_hours": 20},
                 {"name": "base", "workload": "gpt2-small", "baseline_pass_s": 1.0}]})");
  const auto m = run_fomcast("fom '" + measured + "'", db);
  CHECK_MESSAGE(m.status == 0, m.err);
  REQUIRE(run_fomcast("calibrate --workload gpt2-small --platform NV_V100 --pass-s 1", db).status == 0);
  CHECK(run_fomcast("estimate --workload gpt2-small --platform NV_V100", db).status == 0);
}

TEST_CASE(
    "a layout the machine cannot hold is refused: past one server without a node size, across nodes without a "
    "network, uneven nodes, a study's machine too small") {
  ScratchDir dir;
  const auto db = dir.file("n.db");
  auto refused = [&](const std::string& args, const std::string& says) {
    const auto r = run_fomcast(args, db);
    CHECK_MESSAGE(r.status == 2, args);
    CHECK_MESSAGE(r.err.find(says) != std::string::npos, args << ": " << r.err);
    CHECK(r.out.empty());
  };
  // A100_PCIe_40GB's spec gives no devices_per_node: 8 cards are one server (said in the
  // notes); 1,024 were taken as one node and scaled at 98.4%.
  CHECK(run_fomcast("estimate --workload gpt2-small --platform A100_PCIe_40GB --parallel dp=8", db).status == 0);
  refused("estimate --workload gpt2-small --platform A100_PCIe_40GB --parallel dp=1024",
          "gives no devices_per_node, and 1024 devices are more than one server holds");
  // Nodes of 4 PCIe cards: 16 devices cross nodes, and the spec has no network between them.
  refused("estimate --workload gpt2-small --platform A100_PCIe_40GB --parallel dp=16 --gpus-per-node 4",
          "span 4 nodes of 4, and A100_PCIe_40GB's spec gives no network between nodes");
  // Nodes of 3 do not hold 8 ranks evenly.
  refused("estimate --workload gpt2-small --platform A100 --parallel dp=8 --gpus-per-node 3",
          "nodes of 3 devices do not hold the layout's 8 evenly");
  // A DGX A100 (8 per node, its NICs given) across 8 nodes is estimated.
  CHECK(run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=64", db).status == 0);

  // A study whose machine has fewer devices than one unit's layout: 8 devices, dp=16.
  auto study = [&](const std::string& problem) {
    return dir.write("s.json", R"({"name": "s", "baseline": {"platform": "A100", "nodes": 1, "devices_per_unit": 8},
      "target": {"platform": "H100", "nodes": 1, "devices_per_unit": 8}, "problems": [)" +
                                   problem + "]}");
  };
  refused("fom '" + study(R"({"name": "p", "workload": "gpt2-small", "parallel": "dp=16"})") + "'",
          "problems[0].parallel: the layout dp=16 of one unit of work occupies 16 platform devices, and the baseline "
          "machine has 8");
  CHECK(
      run_fomcast("fom '" + study(R"({"name": "p", "workload": "gpt2-small", "parallel": "dp=8"})") + "'", db).status ==
      0);
  // batch_size and global_batch both: which is meant is not known (global_batch won silently).
  refused("fom '" + study(R"({"name": "p", "workload": "gpt2-small", "parallel": "dp=4", "batch_size": 12,
                           "global_batch": 100})") +
              "'",
          "problems[0].global_batch: one or the other");
}

TEST_CASE(
    "estimate --parallel: the rate counts runs of the layout's devices, and a batch the model refuses names the flag") {
  ScratchDir dir;
  const auto db = dir.file("r.db");
  // dp=64 on the 8-GPU A100 nodes is 8 nodes: "runs/day on 1 node(s)" read as one node.
  const auto text = run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=64 --nodes 2", db);
  REQUIRE_MESSAGE(text.status == 0, text.err);
  CHECK_MESSAGE(
      text.out.find("runs/day with 2 run(s) side by side, each on 64 devices (128 in all)") != std::string::npos,
      text.out);
  const json j = json::parse(
      run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=64 --nodes 2 --json", db).out);
  CHECK(j["devices_per_run"] == 64);
  CHECK(j["nodes"] == 2);
  // One device, half a node: said as given, not rounded to "0 node(s)".
  const auto half = run_fomcast("estimate --workload gpt2-small --platform A100 --nodes 0.5", db);
  CHECK(half.out.find("runs/day on 0.5 node(s) of one A100 device each") != std::string::npos);
  // A global batch the model cannot be expanded at: the flag, not the shipped model file.
  const auto big =
      run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=4 --global-batch 1000000000", db);
  CHECK(big.status == 2);
  CHECK_MESSAGE(big.err.find("--global-batch 1000000000: a micro-batch of 250000000 per device") != std::string::npos,
                big.err);
  CHECK(big.err.find("error: data/models/gpt2-small.json") == std::string::npos);
}

TEST_CASE("--bucket-mb below a layer's gradients says that layers are not split") {
  ScratchDir dir;
  const auto db = dir.file("b.db");
  const json tiny = json::parse(
      run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=8 --bucket-mb 0.001 --json", db).out);
  const std::string note = "--bucket-mb 0.001: layers whose gradients alone exceed twice the bucket are a bucket each";
  auto has = [&](const json& j) {
    return std::any_of(j["parallel"]["notes"].begin(), j["parallel"]["notes"].end(),
                       [&](const json& n) { return n.get<std::string>().rfind(note, 0) == 0; });
  };
  CHECK(has(tiny));
  int buckets = 0;
  for (const auto& c : tiny["parallel"]["collectives"])
    buckets += c["what"].get<std::string>().find("bucket") != std::string::npos;
  CHECK(buckets == 15);  // one per layer with gradients, not thousands of 1 KiB calls
  const json plain =
      json::parse(run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=8 --json", db).out);
  CHECK_FALSE(has(plain));
}

TEST_CASE("the scaling efficiency is said with what it divides, and the JSON gives it") {
  ScratchDir dir;
  const auto db = dir.file("e.db");
  const json j = json::parse(
      run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=4 --batch-per-gpu 4 --json", db).out);
  const json& p = j["parallel"];
  CHECK(j["scaling_efficiency"].get<double>() ==
        doctest::Approx(p["single_device_step_s"].get<double>() / (4 * p["step_s"].get<double>())));
  // One device: its 4 micro-batches one after another, the optimizer and residual once.
  CHECK(p["single_device_step_s"].get<double>() < 4 * p["single_device_pass_s"].get<double>());
  const auto text = run_fomcast("estimate --workload gpt2-small --platform A100 --parallel dp=4 --batch-per-gpu 4", db);
  CHECK(text.out.find("= one device's ") != std::string::npos);
  CHECK(text.out.find(" for the global batch (") != std::string::npos);
  CHECK(text.out.find("/ (4 devices x the ") != std::string::npos);
}

TEST_CASE("tp over attention and dense layers written outside transformer blocks says they run whole") {
  ScratchDir dir;
  const auto db = dir.file("t.db");
  // A decoder written layer by layer (as a user writes LLaMA): an embedding, then per block a
  // layer norm, attention, an add, a layer norm, two dense layers and an add.
  json layers = json::array();
  layers.push_back(
      {{"type", "embedding"}, {"name", "tok"}, {"input_dim", 1000}, {"output_dim", 256}, {"inputs", {"ids"}}});
  std::string prev = "tok";
  for (int b = 0; b < 2; ++b) {
    const std::string p = "l" + std::to_string(b) + ".";
    layers.push_back({{"type", "layernorm"}, {"name", p + "ln1"}, {"inputs", {prev}}});
    layers.push_back({{"type", "multi_head_attention"}, {"name", p + "attn"}, {"heads", 4}, {"causal", true}});
    layers.push_back({{"type", "add"}, {"name", p + "r1"}, {"inputs", {prev, p + "attn"}}});
    layers.push_back({{"type", "layernorm"}, {"name", p + "ln2"}});
    layers.push_back({{"type", "dense"}, {"name", p + "up"}, {"units", 1024}, {"activation", "relu"}});
    layers.push_back({{"type", "dense"}, {"name", p + "down"}, {"units", 256}});
    layers.push_back({{"type", "add"}, {"name", p + "r2"}, {"inputs", {p + "r1", p + "down"}}});
    prev = p + "r2";
  }
  const json model = {{"batch_size", 2},
                      {"inputs", {{{"name", "ids"}, {"shape", {64}}, {"dtype", "int64"}}}},
                      {"loss", "sparse_categorical_crossentropy"},
                      {"layers", layers}};
  const auto in = run_fomcast("ingest '" + dir.write("dec.json", model.dump()) + "' --workload dec", db);
  REQUIRE_MESSAGE(in.status == 0, in.err);
  const auto r = run_fomcast("estimate --workload dec --platform A100 --parallel tp=2 --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const json j = json::parse(r.out);
  bool said = false;
  for (const auto& n : j["parallel"]["notes"])
    said = said || n.get<std::string>().find("run whole on every rank") != std::string::npos;
  CHECK(said);
}

TEST_CASE("a pipeline send across nodes gets the device's share of its node's NICs, every device sending at once") {
  // GPT-2 medium, dp=8 x pp=2 on H100 nodes of 8: each stage is one node, and its 8 devices
  // send their micro-batch's activations (1 x 1024 x 1024 x 4 B x 8 = 33,554,432 B) to the
  // next node at the same time over 8 x 50 GB/s of NICs: 33,554,432 / 50e9 + 2.7 us = 673.8
  // us. It had been given the node's whole 400 GB/s: 86.6 us.
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  const json j = fomcast::test::run_json(
      "estimate --workload gpt2-medium --platform H100 --parallel dp=8,pp=2 --micro-batches 4 --json", db);
  bool found = false;
  for (const auto& c : j.at("parallel").at("collectives")) {
    if (c.at("what") != "pp send/recv (stage 0)") continue;
    found = true;
    CHECK(c.at("bytes").get<double>() == 33554432.0);
    CHECK(c.at("time_s").get<double>() == doctest::Approx(33554432.0 / 50e9 + 2.7e-6).epsilon(1e-6));
  }
  CHECK(found);
}
