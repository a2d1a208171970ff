// What users sizing machines were told, after a round of new users (2026-11-27): a sweep with
// no estimate fails, a refusal suggests the half type the part has units for, a fit within
// 10% of the memory says what the count leaves out, a spec's unlikely peaks are warned of.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::slurp;
using fomcast::test::source_path;

TEST_CASE("scaling: a sweep where no point fits prints why and exits non-zero") {
  ScratchDir dir;
  const std::string db = dir.file("s.db");
  // gpt2-medium at its batch of 8 needs 46.3 GiB a device in fp32; an A100 has 40.
  const auto r = run_fomcast("scaling --workload gpt2-medium --platform A100 --parallel dp=1,2,4,8", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.out.find("does not fit on A100 with dp=8") != std::string::npos, r.out);
  CHECK_MESSAGE(r.err.find("no point of the sweep has an estimate (the first: --parallel: workload 'gpt2-medium' "
                           "does not fit on A100 with dp=1") != std::string::npos,
                r.err);
  // One point that fits is a curve: exit 0.
  CHECK(run_fomcast("scaling --workload gpt2-medium --platform A100 --precision bf16 --parallel dp=1,2", db).status ==
        0);
}

TEST_CASE("memory: a refusal names the half type the part computes; a near-full fit says what is not counted") {
  ScratchDir dir;
  const std::string db = dir.file("m.db");
  // A V100 has fp16 units and no bf16 ones: its remedy is fp16.
  const auto v = run_fomcast(
      "estimate --workload gpt2-medium --platform NV_V100 --precision fp32 --parallel dp=1 --batch-per-gpu 4", db);
  CHECK(v.status == 2);
  CHECK_MESSAGE(v.err.find("half precision (--precision fp16 or amp-fp16") != std::string::npos, v.err);
  const auto a = run_fomcast(
      "estimate --workload gpt2-medium --platform A100 --precision fp32 --parallel dp=1 --batch-per-gpu 8", db);
  CHECK_MESSAGE(a.err.find("half precision (--precision bf16 or amp-bf16") != std::string::npos, a.err);
  // Batch 2 on the 16 GiB V100: 15.5 GiB of tensors (97.1%), which a real run may not fit.
  const json j = fomcast::test::run_json(
      "estimate --workload gpt2-medium --platform NV_V100 --precision fp32 --parallel dp=1 --batch-per-gpu 2 --json",
      db);
  CHECK(j["memory"]["fits"] == true);
  const double full = j["memory"]["total_bytes"].get<double>() / j["memory"]["capacity_bytes"].get<double>();
  CHECK(full > 0.9);
  bool said = false;
  for (const auto& n : j["parallel"]["notes"])
    said = said || n.get<std::string>().find("counts the model's tensors only") != std::string::npos;
  CHECK(said);
  const auto t = run_fomcast(
      "estimate --workload gpt2-medium --platform NV_V100 --precision fp32 --parallel dp=1 --batch-per-gpu 2", db);
  CHECK_MESSAGE(t.out.find("97.1% full: the CUDA context") != std::string::npos, t.out);
  // Batch 1 leaves room: nothing said.
  const auto roomy = run_fomcast(
      "estimate --workload gpt2-medium --platform NV_V100 --precision fp32 --parallel dp=1 --batch-per-gpu 1", db);
  CHECK(roomy.out.find("% full") == std::string::npos);
}

TEST_CASE("platforms add: a 16-bit peak below fp32 is taken with a warning naming the field") {
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  json spec = json::parse(slurp(source_path("data/platforms/H100.json")));
  spec["name"] = "Typo_X";
  spec.erase("device_names");
  spec["peak_tflop_per_s"]["bf16"]["value"] = 10;  // 1000 meant
  const auto r = run_fomcast("platforms add '" + dir.write("typo.json", spec.dump()) + "'", db);
  CHECK(r.status == 0);
  CHECK_MESSAGE(r.err.find("warning: ") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("peak_tflop_per_s.bf16 (10) is below peak_tflop_per_s.fp32 (67)") != std::string::npos,
                r.err);
  // Figures in another unit: TB/s typed as GB/s, MiB typed as GiB.
  spec = json::parse(slurp(source_path("data/platforms/H100.json")));
  spec["name"] = "Units_X";
  spec.erase("device_names");
  spec["mem_bw_gb_per_s"]["value"] = 3.35;  // 3,350 GB/s meant: 67 TFLOP/s / 3.35 GB/s = 20,000 FLOP/B
  spec["mem_gib"]["value"] = 81920;         // 80 GiB meant
  const auto units = run_fomcast("platforms add '" + dir.write("units.json", spec.dump()) + "'", db);
  CHECK(units.status == 0);
  CHECK_MESSAGE(
      units.err.find("is 20,000 FLOP per byte, where the shipped parts' run from 2 to 106") != std::string::npos,
      units.err);
  CHECK_MESSAGE(units.err.find("mem_gib is 81,920 GiB, more than any device's memory") != std::string::npos, units.err);
  // The shipped spec as it is: no warning.
  spec = json::parse(slurp(source_path("data/platforms/H100.json")));
  spec["name"] = "Copy_X";
  spec.erase("device_names");
  const auto ok = run_fomcast("platforms add '" + dir.write("ok.json", spec.dump()) + "'", db);
  CHECK(ok.status == 0);
  CHECK(ok.err.find("warning") == std::string::npos);
}
