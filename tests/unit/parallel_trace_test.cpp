// Parallel layouts on traces (issue 15): the layer list derived from a trace's forward GEMMs,
// convolutions and embeddings (parallel.hpp's trace_layers). Expectations by hand from the
// shapes the shared traces record (show --json; see each case):
//   param_hf_GPT2_et (HF GPT-2 large, 36 blocks, hidden 1280, seq 512): wte 50257 x 1280 =
//   64,328,960; wpe 1024 x 1280 = 1,310,720; per block addmm qkv 1280 x 3840 + 3840 =
//   4,919,040, proj 1280 x 1280 + 1280 = 1,639,680, fc 1280 x 5120 + 5120 = 6,558,720, proj2
//   5120 x 1280 + 1280 = 6,554,880 (19,672,320 a block, 708,203,520 for 36); lm_head mm
//   K=1280 N=50257 is wte's shape, tied: 0. Total 773,843,200 (GPT-2 large's published
//   774,030,080 less its 186,880 layer-norm parameters). fp32: 3,095,372,800 gradient bytes.
//   DDP buckets of 25 MiB = 26,214,400 B in backward order: proj2 26,219,520 B closes one
//   alone, fc 26,234,880 B alone, proj + qkv 6,558,720 + 19,676,160 = 26,234,880 B one, so 3
//   buckets a block (108) and a last one of wpe + wte = 262,558,720 B: 109 buckets.
//   param_resnet_1gpu_et_1.0.3 (ResNet-50, batch 32): 53 forward convs with 23,454,912 weights
//   (K x C/groups x filter, summed over the counts) and the fc addmm 2048 x 1000 + 1000 =
//   2,049,000: 25,503,912 (ResNet-50's 25,557,032 less 53,120 batch-norm parameters).
#include <doctest/doctest.h>

#include <utility>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "fomcast/error.hpp"
#include "fomcast/parallel.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::any_note_contains;
using fomcast::test::run_fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;

namespace fomcast {
namespace {

double bucket_bytes(const json& est, int* buckets) {
  double sum = 0;
  *buckets = 0;
  for (const auto& c : est["parallel"]["collectives"])
    if (c["what"].get<std::string>().rfind("dp all-reduce bucket", 0) == 0) sum += c["bytes"].get<double>(), ++*buckets;
  return sum;
}

Op op(const std::string& name, OpKind kind, OpShape shape, double count) {
  Op o;
  o.name = name;
  o.kind = kind;
  o.shape = std::move(shape);
  o.count = count;
  return o;
}

}  // namespace

TEST_CASE("trace_layers: weight shapes, tied output projection, repeated blocks interleaved") {
  Workload w;
  w.name = "t";
  w.origin = "pytorch-et";
  w.batch_size = 2;
  w.ops = {op("aten::embedding", OpKind::embedding, EmbeddingShape{100, 8, 6}, 1),
           op("aten::addmm", OpKind::gemm, GemmShape{6, 24, 8}, 2),
           op("aten::bmm", OpKind::batched_gemm, GemmShape{3, 3, 4, 2}, 2),
           op("aten::gelu", OpKind::elementwise, TensorShape{{{6, 24}}}, 2),
           op("aten::mm", OpKind::gemm, GemmShape{6, 100, 8}, 1),
           op("aten::mm", OpKind::gemm, GemmShape{8, 24, 6}, 2)};
  w.ops.back().phase = Phase::backward;
  const DerivedLayers d = trace_layers(w);
  REQUIRE(d.layers.size() == 6);  // embedding, (addmm, bmm) x 2, lm_head; the backward mm is none
  const char* names[] = {"aten::embedding", "aten::addmm #0", "aten::bmm #0",
                         "aten::addmm #1",  "aten::bmm #1",   "aten::mm"};
  for (std::size_t i = 0; i < 6; ++i) CHECK(d.layers[i].name == names[i]);
  CHECK(d.layers[0].params == 800);                // 100 x 8
  CHECK(d.layers[0].output_elems == 6 * 8 / 2.0);  // per sample of 2
  CHECK(d.layers[1].params == 8 * 24 + 24);        // K x N + bias
  CHECK(d.layers[1].forward_macs == 6 * 24 * 8 / 2.0);
  CHECK(d.layers[2].params == 0);  // attention: no weight
  CHECK(d.layers[2].forward_macs == 2 * 3 * 3 * 4 / 2.0);
  CHECK(d.layers[5].params == 0);  // K=8 N=100: the embedding's table, tied
  CHECK(d.layers[5].tied_to_embedding);
  CHECK_FALSE(d.layers[1].tied_to_embedding);
  CHECK(any_note_contains(json(d.notes), "tied"));

  // Kept calls in run order give the layers' order, but only when they hold every layer call
  // of a pass (6 here: the embedding, addmm and bmm twice each, the lm_head mm); calls that
  // lost some (not carried onto the ops) leave the interleaving above, said in a note.
  Workload partial = w;
  partial.calls = {OpCall{0, {}}, OpCall{1, {0}}, OpCall{2, {1}}, OpCall{4, {2}}};  // one addmm, one bmm
  const DerivedLayers p = trace_layers(partial);
  REQUIRE(p.layers.size() == 6);
  CHECK(p.layers[1].name == "aten::addmm #0");
  CHECK(any_note_contains(json(p.notes), "hold 4 of the 6 layer op calls"));
  Workload whole = w;
  whole.calls = {OpCall{0, {}}, OpCall{1, {0}}, OpCall{2, {1}}, OpCall{1, {2}}, OpCall{2, {3}}, OpCall{4, {4}}};
  const DerivedLayers r = trace_layers(whole);
  REQUIRE(r.layers.size() == 6);
  CHECK(r.layers[1].name == "aten::addmm");  // in run order: no block numbering
  CHECK(any_note_contains(json(r.notes), "in the order the trace ran them"));

  w.batch_size = 0;
  CHECK_THROWS_AS(trace_layers(w), UsageError);
  w.batch_size = 2;
  w.ops = {op("aten::addmm", OpKind::gemm, std::monostate{}, 1)};
  try {
    (void)trace_layers(w);
    FAIL("a trace without shapes was accepted");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("1 such ops without shapes") != std::string::npos);
  }
}

TEST_CASE("estimate --parallel on the GPT-2 large execution trace: DDP buckets from its weight shapes") {
  ScratchDir dir;
  const std::string db = (dir.path / "t.db").string();
  const std::string et = shared_path("traces-external/param_hf_GPT2_et.json.gz");
  REQUIRE(run_fomcast("ingest '" + et + "' --workload gpt2et", db).status == 0);

  const json est = run_json("estimate --workload gpt2et --platform A100 --parallel dp=4 --batch-per-gpu 1", db);
  int buckets = 0;
  CHECK(bucket_bytes(est, &buckets) == 3'095'372'800.0);
  CHECK(buckets == 109);
  const auto& coll = est["parallel"]["collectives"];
  CHECK(coll[0]["bytes"].get<double>() == 26'219'520.0);
  CHECK(coll[1]["bytes"].get<double>() == 26'234'880.0);
  CHECK(coll[2]["bytes"].get<double>() == 26'234'880.0);
  CHECK(coll[108]["bytes"].get<double>() == 262'558'720.0);
  CHECK(est["memory"]["weights_bytes"].get<double>() == 3'095'372'800.0);
  CHECK(any_note_contains(est["parallel"]["notes"], "219 forward GEMM"));
  CHECK(est["exposed_comm_s"].get<double>() > 0);
  CHECK(est["compute_s"].get<double>() > 0);

  // What a trace cannot give: its batch.
  auto r = run_fomcast("estimate --workload gpt2et --platform A100 --parallel dp=4", db);
  CHECK(r.status == 2);
  CHECK(r.err.find("--batch-per-gpu") != std::string::npos);
}

TEST_CASE("estimate --parallel tp on the GPT-2 large execution trace: Megatron's blocks found by their GEMM shapes") {
  ScratchDir dir;
  const std::string db = (dir.path / "t.db").string();
  const std::string et = shared_path("traces-external/param_hf_GPT2_et.json.gz");
  REQUIRE(run_fomcast("ingest '" + et + "' --workload gpt2et", db).status == 0);
  const json est = run_json("estimate --workload gpt2et --platform A100 --parallel tp=4 --batch-per-gpu 1", db);
  CHECK(any_note_contains(est["parallel"]["notes"], "36 transformer blocks found"));
  CHECK(any_note_contains(est["parallel"]["notes"], "hidden 1280, MLP 5120"));
  CHECK(any_note_contains(est["parallel"]["notes"], "tied to the token embedding split over the vocabulary"));
  // By hand: each block's two all-reduces forward and two backward carry its output, 512
  // tokens x 1280 x 4 B = 2,621,440 B, over the 4 ranks; on A100's NVLink ring (300 GB/s,
  // 0.47 us a step, 3.6 us a call): 2 x 3/4 x 2,621,440 / 300e9 + 6 x 0.47 us + 3.6 us =
  // 19.527 us each. Per block and micro-batch one device sends 4 x 2 x 3/4 x 2,621,440 =
  // 15,728,640 B (tp_block_volume_bytes).
  // The vocabulary-parallel lookup's output forward and the LM head's input backward are the
  // same 512 x 1280 tensor, once each; the cross-entropy sums 3 x 512 fp32 values forward.
  int tp_reduces = 0, around = 0;
  for (const auto& c : est["parallel"]["collectives"]) {
    const auto what = c["what"].get<std::string>();
    if (what.rfind("tp all-reduce", 0) != 0) continue;
    if (what.find("cross-entropy") != std::string::npos) {
      CHECK(c["bytes"].get<double>() == 512.0 * 4);
      CHECK(c["calls_per_step"] == 3);
      continue;
    }
    const bool block = what.find(", ") == std::string::npos;
    ++(block ? tp_reduces : around);
    CHECK(c["bytes"].get<double>() == 2'621'440.0);
    CHECK(c["ranks"] == 4);
    CHECK(c["calls_per_step"] == (block ? 4 : 1));
    CHECK(c["time_s"].get<double>() == doctest::Approx(19.527e-6).epsilon(1e-4));
  }
  CHECK(tp_reduces == 36);
  CHECK(around == 2);
  CHECK(tp_block_volume_bytes(2'621'440.0, 4) == 15'728'640.0);
  // The blocks' and the word embedding's weights split 4 ways (the tied lm_head has none of
  // its own); the position embedding's 1024 x 1280 stay whole on every rank:
  // (773,843,200 - 1,310,720) x 4 B / 4 + 1,310,720 x 4 B.
  CHECK(est["memory"]["weights_bytes"].get<double>() == 772'532'480.0 + 5'242'880.0);
  // Split, the step is shorter than one device's: part of the work (the layer norms, the
  // residual adds, the optimizer) stays replicated.
  CHECK(est["scaling_efficiency"].get<double>() > 0.25);
  CHECK(est["scaling_efficiency"].get<double>() < 1);
}

TEST_CASE("megatron_blocks: Q, K and V apart; refused without a block or when the widths do not divide") {
  // Per sample of 1: tokens 4, hidden 8, MLP 32; Q, K, V three 8 -> 8 linears, two attention
  // batched GEMMs, the output projection, the MLP; then an unrelated 8 -> 2 classifier.
  auto lin = [](double k, double n) {
    LayerCost l;
    l.name = "aten::addmm";
    l.type = "linear";
    l.in_features = k;
    l.out_features = n;
    l.params = k * n + n;
    l.forward_macs = 4 * k * n;
    l.output_elems = 4 * n;
    return l;
  };
  LayerCost att;
  att.name = "aten::bmm";
  att.type = "attention";
  att.forward_macs = 2 * 4 * 4 * 4;
  att.output_elems = 2 * 4 * 4;
  DerivedLayers d;
  d.layers = {lin(8, 8), lin(8, 8), lin(8, 8), att, att, lin(8, 8), lin(8, 32), lin(32, 8), lin(8, 2)};
  const DerivedLayers m = megatron_blocks(d, "t", 2);
  REQUIRE(m.layers.size() == 2);
  CHECK(m.layers[0].type == "transformer_block");
  CHECK(m.layers[0].params == 4 * 72 + 288 + 264);                     // 4 x (8 x 8 + 8), 8 x 32 + 32, 32 x 8 + 8
  CHECK(m.layers[0].forward_macs == 4 * 256 + 2 * 128 + 1024 + 1024);  // Q, K, V, proj; attention; MLP
  CHECK(m.layers[0].output_elems == 32);                               // the MLP's output: 4 tokens x 8
  CHECK(m.layers[1].type == "linear");                                 // the classifier stays replicated
  CHECK(any_note_contains(json(m.notes), "1 other linear layers with weights replicated"));
  // tp=3 does not divide hidden 8.
  CHECK_THROWS_WITH_AS(megatron_blocks(d, "t", 3), doctest::Contains("hidden size 8"), UsageError);
  // Without the MLP's second linear there is no block: refused, with the reason.
  d.layers.erase(d.layers.begin() + 7);
  CHECK_THROWS_WITH_AS(megatron_blocks(d, "t", 2), doctest::Contains("none of its 8 layers form a transformer block"),
                       UsageError);
}

TEST_CASE("estimate --parallel on the ResNet-50 execution trace and the Kineto trace without shapes") {
  ScratchDir dir;
  const std::string db = (dir.path / "t.db").string();
  REQUIRE(run_fomcast(
              "ingest '" + shared_path("traces-external/param_resnet_1gpu_et_1.0.3.json.gz") + "' --workload rn", db)
              .status == 0);
  const json est = run_json("estimate --workload rn --platform A100 --parallel dp=2 --batch-per-gpu 32", db);
  int buckets = 0;
  CHECK(bucket_bytes(est, &buckets) == 25'503'912.0 * 4);
  // Every bucket but the last (which takes what is left) holds at least 25 MiB.
  const auto& coll = est["parallel"]["collectives"];
  for (int i = 0; i + 1 < buckets; ++i) CHECK(coll[static_cast<std::size_t>(i)]["bytes"].get<double>() >= 26'214'400.0);
  // Two stages of about equal time: the second holds most of the parameters (ResNet-50's
  // last stage of wide convolutions and the classifier), and memory is that stage's, not half.
  const json pp =
      run_json("estimate --workload rn --platform A100 --parallel pp=2 --micro-batches 4 --batch-per-gpu 32", db);
  CHECK(pp["bubble_s"].get<double>() > 0);
  CHECK(pp["memory"]["weights_bytes"].get<double>() > 25'503'912.0 * 4 * 0.75);
  CHECK(pp["memory"]["weights_bytes"].get<double>() < 25'503'912.0 * 4);
  CHECK(pp["memory"]["stage"] == 1);
  // The trace records no batch: an epoch of ImageNet's 1,281,167 images is sized by the
  // layout's global batch (8 x 32: 5,005 steps; 4 x 32 or --global-batch 128: 10,010). It was
  // refused for want of a batch, and --batch is refused beside --parallel.
  for (const auto& c : {std::pair{std::string("dp=8 --batch-per-gpu 32"), 5005},
                        std::pair{std::string("dp=4 --batch-per-gpu 32"), 10010},
                        std::pair{std::string("dp=4 --global-batch 128"), 10010}}) {
    const std::string& flags = c.first;
    const int steps = c.second;
    CAPTURE(flags);
    const json e =
        run_json("estimate --workload rn --platform A100 --parallel " + flags + " --samples-per-epoch 1281167", db);
    CHECK(e["passes_per_epoch"] == steps);
  }

  REQUIRE(run_fomcast("ingest '" + shared_path("traces-external/param_resnet_kineto.json.gz") + "' --workload rk", db)
              .status == 0);
  auto r = run_fomcast("estimate --workload rk --platform A100 --parallel dp=2 --batch-per-gpu 32", db);
  CHECK(r.status == 2);
  CHECK(r.err.find("without shapes") != std::string::npos);
  // A CNN has no transformer block for tensor parallel: refused, naming the shapes it looked for.
  r = run_fomcast("estimate --workload rn --platform A100 --parallel tp=2 --batch-per-gpu 32", db);
  CHECK(r.status == 2);
  CHECK(r.err.find("none of its 54 layers form a transformer block") != std::string::npos);
}

}  // namespace fomcast
