// validate's end_to_end (issue 13): published single-GPU training steps (data/e2e/) against
// the predicted pass. The medians asserted are what the estimator reaches on these held-out
// rows; a change that makes them worse fails here.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "fomcast/error.hpp"
#include "fomcast/validate_e2e.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;

namespace {

const std::string kHeader = "id,workload,batch,precision,platform,gpus,samples_per_s,source,quote\n";

std::string parse_error(const std::string& csv) {
  try {
    parse_e2e_rows(csv, "rows.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("end_to_end rows: a good row parses, each bad field is named with its line") {
  const auto rows =
      parse_e2e_rows(kHeader + "a,resnet50,112,amp-fp16,NV_V100,1,367,r@c:p,\"| 1 | 367 img/s |\"\n", "rows.csv");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].batch == 112);
  CHECK(rows[0].precision == PrecisionMode::amp_fp16);
  CHECK(rows[0].samples_per_s == 367);
  CHECK(rows[0].line == 2);

  const std::string bad_precision = parse_error(kHeader + "a,resnet50,112,fp8,NV_V100,1,367,r@c:p,q\n");
  CHECK(bad_precision.find("rows.csv") != std::string::npos);
  CHECK(bad_precision.find("precision") != std::string::npos);
  CHECK(bad_precision.find("fp8") != std::string::npos);
  CHECK(parse_error(kHeader + "a,resnet50,0,fp32,NV_V100,1,367,r@c:p,q\n").find("batch") != std::string::npos);
  CHECK(parse_error(kHeader + "a,resnet50,8,fp32,NV_V100,1,-3,r@c:p,q\n").find("samples_per_s") != std::string::npos);
  CHECK(parse_error(kHeader + "a,resnet50,8,fp32,NV_V100,1,3,,q\n").find("source") != std::string::npos);
  const std::string twice =
      parse_error(kHeader + "a,resnet50,8,fp32,NV_V100,1,3,r@c:p,q\na,resnet50,8,fp32,NV_V100,1,3,r@c:p,q\n");
  CHECK(twice.find("twice") != std::string::npos);
  CHECK(twice.find(":3") != std::string::npos);
  CHECK(parse_error("id,workload\na,b\n").find("batch") != std::string::npos);
  const std::string layout = "id,workload,batch,precision,platform,gpus,memory_format,samples_per_s,source,quote\n";
  CHECK(parse_e2e_rows(layout + "a,resnet50,8,amp-fp16,NV_V100,1,channels_last,3,r@c:p,q\n", "rows.csv")[0]
            .memory_format == "channels_last");
  CHECK(parse_error(layout + "a,resnet50,8,fp32,NV_V100,1,nhwc,3,r@c:p,q\n").find("memory_format") !=
        std::string::npos);
}

TEST_CASE("validate --json end_to_end: every shipped published row predicted, medians held") {
  ScratchDir dir;
  const auto j = run_json("validate", dir.file("v.db"))["end_to_end"];
  const auto& rows = j["rows"];
  // 30 published one-GPU rows and 14 steps timed on the lent H200 and H100
  // (data/e2e/measured_here.csv).
  REQUIRE(rows.size() == 44);
  std::set<std::string> platforms;
  for (const auto& r : rows) {
    INFO(r["id"].get<std::string>());
    const double published = r["published_step_s"], predicted = r["predicted_step_s"];
    // The published step is batch / throughput, as the row states them.
    CHECK(published == doctest::Approx(r["batch"].get<double>() / r["published_samples_per_s"].get<double>()));
    CHECK(predicted > 0);
    CHECK(r["error"].get<double>() == doctest::Approx(predicted / published - 1));
    double by_kind = 0;
    for (const auto& [kind, s] : r["by_kind_s"].items()) by_kind += s.get<double>();
    CHECK(by_kind == doctest::Approx(predicted).epsilon(1e-6));  // a model workload's pass is its ops
    platforms.insert(r["platform"].get<std::string>());
  }
  // V100, A100 and H100 class GPUs.
  CHECK(platforms.count("NV_V100"));
  CHECK(platforms.count("A100_SXM4_80GB"));
  CHECK(platforms.count("H100"));
  CHECK(platforms.count("H200"));
  // The first row, by hand: DeepLearningExamples' DGX-1 16GB FP32 row, 367 img/s at 112.
  CHECK(rows[0]["published_step_s"].get<double>() == doctest::Approx(112.0 / 367.0));
  // Speedups pair rows of one source, workload and storage class only: 6 DeepLearningExamples
  // pairs (3 GPUs, fp32 and amp apart) and 4 x 15 of Lambda's (6 GPUs: resnet50 tf32/fp32,
  // resnet50 amp, bert-base, bert-large), and 9 between the H200 and H100 timed here (ResNet-50
  // fp32/tf32 2 x 2 and amp, BERT-base fp32/tf32 2 x 2).
  CHECK(j["speedups"].size() == 75);
  // Held at what is reached now (docs/accuracy.md): the transfer changes of issue 13's
  // leave-platform-out (section 5) moved the step median 8.8% -> 9.1% and the speedups'
  // 10.3% -> 9.5%; autocast's weight casts (a rule, not a fit) 9.1% -> 8.9% and 9.5% -> 9.8%.
  // Lambda's six BERT-large SQuAD rows (30 rows, 66 pairs): 8.9% and 9.1%, both within the
  // issue's 10%; the normalised curves for memory-bound ops within the NeuSight tensors: 8.9%
  // and 8.9%; a sibling card's conv table and the transfer anchored on a source that can
  // answer (no tf32 backward conv left to the roofline): 7.8% and 7.6%; the NeuSight seeding
  // that keeps the same shapes on every GPU: 7.7% and 7.7%; a card of the target's chip whose
  // only route is its GEMM table, uncorrected, taken last in the transfer (as the target's own
  // tables are): 7.5% and 7.5%; no memory-bound call below half the launch gap its curve is
  // read against (a 7.2 KB op had read 2.8 us on H100): 7.5% and 7.5%; a table of another
  // precision scaling an op's work but not its calls' launch floor (a rule: a PTB LSTM's bf16
  // GEMMs had come out at 3.6 us a call from the A100 PCIe's fp32 table): 7.9% and 7.6% (the
  // tf32 BERT-base rows, too slow already, slower; the BERT-large rows, too fast, closer).
  // NCHW layout transforms at their true size (they had been counted over one row of each
  // image: N x C x H, not N x C x H x W) and timed as the copies they are: 8.3% and 7.3% (the
  // NCHW amp rows, 7-23% too fast, now -14.5% to +5.7%; the NCHW tf32 ResNet rows on A100 and
  // H100, +4% to +11%, now +8% to +22%). A bug's numbers are not a bar to hold. A GPU's
  // launch gap the median of GPU tables' alone (the KNL's GEMM floor had been in it): 7.8% and
  // 7.3%. The memory curves read monotone in size (a faster memory had made 70 of 710 ops
  // slower): 7.8% and 7.3%. GEMMs beyond their table held at its edge's rate (the fitted
  // surface fell far below it there): 7.6% and 7.3%. A 16-bit GEMM or conv no slower than in
  // fp32 on the same target (ResNet-50's C=3 conv had come out 33x its bf16 roofline): 7.6%
  // and 7.4% (the V100 amp rows 6 points closer, the A100 and H100 amp rows, too fast, 0.5-1.9
  // points faster). The H200 steps timed here (ResNet-50 fp32 -15.9%, tf32 +5.9%, amp NHWC
  // +35.1%; BERT-base SQuAD fp32 +2.5%, tf32 +3.8%): 7.4% and 7.4% (one source, one GPU: no pair).
  // Between cards of one architecture only the time an op's bytes explain moves with bandwidth
  // (an H200 trace's batch norms had come out 43% slower on an H100): 7.4% and 7.5%, the A100
  // 80 GB cards' tf32 BERT rows, carried from the A100 PCIe 40GB's GEMMs, 1.3-2.2 points
  // slower (their 300-400 W against the 40 GB card's 250 W is no spec figure here). The H100
  // steps timed here the same day (ResNet-50 fp32 -11.9%, tf32 +20.7%, amp NHWC +44.0%;
  // BERT-base fp32 +4.6%, tf32 +19.4%): 9.0% and 7.7%. The model puts the H100 1.21-1.36x
  // slower than the H200 in tf32 where the two ran 1.06-1.19x apart (docs/accuracy.md section
  // 7, "An H200 and an H100 timed here"): a bar held, not a goal met. Elementwise ops read
  // by element count, not by rows of the tables' at most 16,372 (ResNet-50's activations had
  // taken the rate of small launch-bound tensors: an H200 trace's 19.5 ms read 33.8): 7.9% and
  // 7.2% (the ResNet-50 rows 5-20 points faster, the BERT rows 2-9 points faster).
  // cuDNN's NCHW batch norm bounded by its one block per channel (Lambda's NCHW amp ResNet-50
  // rows, -6% to -25%, now -5.5% to +5.9%; the tf32 rows, whose convs are too slow, +7% to
  // +19%): 7.9% and 5.5% on those 40 rows. A fourth H200 lease's ResNet-50 amp steps, NCHW at
  // batch 256 and 1280 and NHWC at 1280 (+12.4%, -0.9%, +9.4%): 9.2% and 5.5% over the 43
  // rows, of which the 30 published 6.5% (7.8% before the batch-norm rule). PyTorch's max pool
  // bound by its SMs (ResNet-50's stem pool had read 0.4 ms of the H200's 3.1): 9.2% and 5.3%,
  // the 30 published 8.2%, every ResNet-50 row 0.3-5.7 points slower: the tf32 and amp rows'
  // tensor-core convs, too slow, had been hiding behind the missing pool time. The H200 rows
  // timed on several leases as the mean of their steps (the first lease's machine had run the
  // NHWC amp step in 49.5 ms, two later ones in 44.5 and 44.6; BERT tf32 68.6 and 61.6), and
  // BERT-base's amp step, timed on two leases and not a row until now (-25.7%): 10.3% over
  // the 44 rows, over issue 13's 10% on this check, the 30 published unchanged at 8.2%.
  CHECK(j["median_abs_step_error"].get<double>() <= 0.104);
  CHECK(j["median_abs_speedup_error"].get<double>() <= 0.054);
  std::vector<double> published_errors;
  for (const auto& r : rows)
    if (r["id"].get<std::string>().rfind("here-", 0) != 0)
      published_errors.push_back(std::fabs(r["error"].get<double>()));
  REQUIRE(published_errors.size() == 30);
  std::sort(published_errors.begin(), published_errors.end());
  CHECK((published_errors[14] + published_errors[15]) / 2 <= 0.082);
}

TEST_CASE("validate --json end_to_end: Lambda's 2, 4 and 8 GPU rows against the data-parallel estimate") {
  ScratchDir dir;
  const auto j = run_json("validate", dir.file("v.db"))["end_to_end"];
  const auto& multi = j["multi_gpu"];
  // ResNet-50, BERT-base and BERT-large on 2 V100 16GB, 4 and 8; 2 A100 80GB PCIe; 2, 4 and 8
  // A100 80GB SXM4, H100 PCIe and H100 SXM5: 13 machines x 3 workloads.
  REQUIRE(multi.size() == 39);
  for (const auto& r : multi) {
    INFO(r["id"].get<std::string>());
    const double gpus = r["gpus"], batch = r["batch_per_gpu"], samples = r["published_samples_per_s"];
    CHECK(gpus > 1);
    // Weak scaling: each device's step at the row's batch per device.
    CHECK(r["published_step_s"].get<double>() == doctest::Approx(batch * gpus / samples));
    CHECK(r["error"].get<double>() ==
          doctest::Approx(r["predicted_step_s"].get<double>() / r["published_step_s"].get<double>() - 1));
    // Every row has the same source's one-GPU row; data parallel never beats one device.
    REQUIRE(r.contains("predicted_efficiency"));
    CHECK(r["predicted_efficiency"].get<double>() <= 1.0);
    CHECK(r["predicted_efficiency"].get<double>() > 0.9);  // the all-reduce hides under the backward
  }
  // By hand: 4 H100 SXM5 train BERT-large at 520 sequences/s, 64 per GPU; one does 141/s.
  const auto h100 = std::find_if(multi.begin(), multi.end(),
                                 [](const auto& r) { return r["id"] == "lambda-bertl-h100-sxm-tf32-4gpu"; });
  REQUIRE(h100 != multi.end());
  CHECK((*h100)["published_step_s"].get<double>() == doctest::Approx(64.0 * 4 / 520));
  CHECK((*h100)["published_efficiency"].get<double>() == doctest::Approx(520.0 / (4 * 141)));
  // Held at what is reached now (docs/accuracy.md, "Several GPUs"): the published runs lose
  // 1-30% per GPU, BERT most; the estimate hides DDP's all-reduce under the backward pass.
  // 10.5% -> 9.2% with the launch floor kept out of precision scaling (above); 9.2% -> 11.2%
  // with the NCHW transforms at their true size (above: the tf32 ResNet rows are 12 of the 39);
  // 11.2% -> 10.8% with the GPUs' launch gap from GPU tables alone; 10.8% -> 10.9% with GEMMs
  // beyond their table held at its edge's rate (the tf32 BERT rows, too fast, faster);
  // 10.9% -> 16.0% with elementwise ops read by element count (above): the one-GPU step those
  // rows build on came out 5-20% faster, and the too-slow elementwise time had stood in for
  // the time the published runs lose per GPU (the efficiency's error, 7.0%, is unchanged).
  CHECK(j["median_abs_multi_gpu_step_error"].get<double>() <= 0.161);
  // The efficiency 7.0% -> 6.5% once H100 PCIe's NVLink bridge joined pairs only (larger
  // groups' all-reduce over PCIe).
  CHECK(j["median_abs_efficiency_error"].get<double>() <= 0.066);
}
