// Parallel layouts (parallel.hpp) and the op graph (op_graph.hpp) on a toy model whose
// times are set by hand: the 1F1B bubble, Megatron TP and ZeRO volumes, overlap of the
// gradient all-reduce with the backward pass, and a DAG whose critical path overlap changes.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "fomcast/collectives.hpp"
#include "fomcast/error.hpp"
#include "fomcast/op_graph.hpp"
#include "fomcast/parallel.hpp"
#include "shipped_catalog.hpp"

namespace fomcast::test {
namespace {

Sourced fig(double v) { return Sourced{v, "test figure"}; }

Platform toy_platform(double intra_bw) {
  Platform p;
  p.name = "TOY";
  p.device_kind = "gpu";
  p.devices_per_node = fig(8);
  p.intra_node_bw_bytes_per_s = fig(intra_bw);
  p.intra_node_latency_s = fig(0);
  return p;
}

// A pass whose i-th op takes seconds[i] (one call each, roofline), and its totals.
PassEstimate pass_of(const std::vector<double>& seconds) {
  PassEstimate pass;
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    OpEstimate e;
    e.op_index = i;
    e.predicted_s = seconds[i];
    e.method = Method::roofline;
    pass.ops.push_back(e);
  }
  pass.ops_s = pass.modelled_s = pass.pass_s = std::accumulate(seconds.begin(), seconds.end(), 0.0);
  return pass;
}

// One forward GEMM, one backward GEMM, one optimizer op, with the times given (one pass).
struct Toy {
  Workload w;
  PassEstimate pass;
};
Toy toy(double fwd_s, double bwd_s, double opt_s) {
  Toy t;
  t.w.name = "toy";
  t.w.origin = "model";
  t.w.batch_size = 1;
  t.w.model = ModelStats{4'000'000, 1, 16e6, 16e6, 32e6, 1e6};
  Op f, b, o;
  f.kind = b.kind = OpKind::gemm;
  f.phase = Phase::forward, b.phase = Phase::backward;
  o.kind = OpKind::optimizer, o.phase = Phase::optimizer;
  t.w.ops = {f, b, o};
  t.pass = pass_of({fwd_s, bwd_s, opt_s});
  return t;
}

LayerCost layer(const std::string& name, double params, double macs, double out = 0,
                const std::string& type = "dense") {
  return LayerCost{name, type, params, macs, out};
}

}  // namespace

TEST_CASE("parse_parallel: keys in any order, bad parts named") {
  const auto l = parse_parallel("tp=2,dp=8,pp=4");
  CHECK(l.dp == 8);
  CHECK(l.tp == 2);
  CHECK(l.pp == 4);
  CHECK(l.devices() == 64);
  CHECK(l.micro() == 4);
  CHECK_THROWS_WITH_AS(parse_parallel("dp=0"), doctest::Contains("--parallel"), UsageError);
  CHECK_THROWS_WITH_AS(parse_parallel("dp=2,xp=2"), doctest::Contains("xp"), UsageError);
  CHECK_THROWS_AS(parse_parallel("dp=2,"), UsageError);
  CHECK_THROWS_AS(parse_parallel("dp=two"), UsageError);
  CHECK_THROWS_WITH_AS(parse_parallel("dp=2,dp=4"), doctest::Contains("dp is given twice"), UsageError);
}

TEST_CASE("volumes by hand: ZeRO, Megatron TP, the 1F1B bubble fraction") {
  // DDP all-reduce 2(D-1)/D n; ZeRO-1/2 reduce-scatter + all-gather the same; ZeRO-3 1.5x.
  CHECK(dp_volume_bytes(1e9, 8, 0) == doctest::Approx(1.75e9));
  CHECK(dp_volume_bytes(1e9, 8, 2) == doctest::Approx(1.75e9));
  CHECK(dp_volume_bytes(1e9, 8, 3) == doctest::Approx(2.625e9));
  CHECK(dp_volume_bytes(1e9, 1, 3) == 0);
  // Megatron: 4 all-reduces per block (2 forward, 2 backward) of b*s*h: T=4 -> 4*2*3/4 = 6x.
  CHECK(tp_block_volume_bytes(1e6, 4) == doctest::Approx(6e6));
  CHECK(tp_block_volume_bytes(1e6, 1) == 0);
  CHECK(bubble_fraction(4, 8) == doctest::Approx(3.0 / 11));
  CHECK(bubble_fraction(1, 8) == 0);
}

TEST_CASE("1F1B: the op graph's bubble is (P-1)/(M+P-1) of the pipeline with equal stages") {
  // 4 equal layers, forward 4 ms, backward 8 ms: 1 + 2 ms per stage and micro-batch.
  const Toy t = toy(4e-3, 8e-3, 0);
  const std::vector<LayerCost> layers{layer("a", 1e6, 1), layer("b", 1e6, 1), layer("c", 1e6, 1), layer("d", 1e6, 1)};
  ParallelLayout l;
  l.pp = 4;
  l.micro_batches = 8;
  const auto e = estimate_parallel(t.w, t.pass, layers, toy_platform(100e9), catalog(), l);
  CHECK(e.compute_s == doctest::Approx(8 * 3e-3));
  CHECK(e.step_s == doctest::Approx((8 + 4 - 1) * 3e-3));
  CHECK(e.bubble_s == doctest::Approx(3 * 3e-3));
  CHECK(e.bubble_s / e.step_s == doctest::Approx(bubble_fraction(4, 8)));
  CHECK(e.exposed_comm_s == doctest::Approx(0));
  CHECK(e.global_batch == 8);
  // One device does the 8 micro-batches in 8 x 12 ms; 4 devices in 33 ms: 96 / (4 x 33).
  CHECK(e.scaling_efficiency == doctest::Approx(96.0 / (4 * 33)));
}

namespace {
// A first layer without parameters (2 of 6 MACs), then four of 1 M parameters: with 1 MiB
// buckets, four 4 MB buckets in backward order.
std::vector<LayerCost> four_buckets() {
  return {layer("in", 0, 2), layer("a", 1e6, 1), layer("b", 1e6, 1), layer("c", 1e6, 1), layer("d", 1e6, 1)};
}
}  // namespace

TEST_CASE("data parallel: exposed communication is 0 under the backward pass and grows as bandwidth shrinks") {
  // The first layer has no parameters and runs last in the backward (4 of 12 ms): the four
  // 4 MB buckets are ready at 2, 4, 6, 8 ms into the backward.
  const Toy t = toy(6e-3, 12e-3, 0);
  const std::vector<LayerCost> layers = four_buckets();
  ParallelLayout l;
  l.dp = 4;
  l.bucket_bytes = 1024 * 1024;
  auto exposed = [&](double bw) {
    return estimate_parallel(t.w, t.pass, layers, toy_platform(bw), catalog(), l).exposed_comm_s;
  };
  // 100 GB/s: 2*3/4 * 4 MB / 100 GB/s = 60 us per bucket, all done before the backward ends.
  CHECK(exposed(100e9) == doctest::Approx(0));
  // 1 GB/s: 6 ms per bucket, back to back from 2 ms: the last ends at 26 ms, backward at 12.
  CHECK(exposed(1e9) == doctest::Approx(14e-3));
  CHECK(exposed(0.5e9) > exposed(1e9));
  const auto e = estimate_parallel(t.w, t.pass, layers, toy_platform(1e9), catalog(), l);
  REQUIRE(e.collectives.size() == 4);
  CHECK(e.collectives[0].bytes == doctest::Approx(4e6));
  CHECK(e.collectives[0].time.seconds == doctest::Approx(ring_allreduce_s(4e6, 4, 1e9, 0)));
}

TEST_CASE("ZeRO-2 and -3 reduce-scatter every micro-batch's gradients; DDP and ZeRO-1 only the last's") {
  // Two micro-batches of the four 4 MB layers above; at 1 GB/s a bucket's reduce-scatter over
  // 4 ranks is 3/4 x 4 MB = 3 ms, the parameters' all-gather after the optimizer 3/4 x 16 MB
  // = 12 ms.
  const Toy t = toy(6e-3, 12e-3, 0);
  const std::vector<LayerCost> layers = four_buckets();
  ParallelLayout l;
  l.dp = 4;
  l.micro_batches = 2;
  l.bucket_bytes = 1024 * 1024;
  const double rs = ring_reduce_scatter_s(4e6, 4, 1e9, 0);
  CHECK(rs == doctest::Approx(3e-3));
  auto run = [&](int zero) {
    l.zero_stage = zero;
    return estimate_parallel(t.w, t.pass, layers, toy_platform(1e9), catalog(), l);
  };
  // ZeRO-1: whole gradients accumulate in place, the last micro-batch's are reduced.
  const auto one = run(1);
  CHECK(one.collectives[0].calls_per_step == 1);
  CHECK(one.comm_total_s == doctest::Approx(4 * rs + 12e-3));
  // ZeRO-2: a rank keeps only its shard, so each micro-batch's gradients are reduced into it.
  const auto two = run(2);
  CHECK(two.collectives[0].calls_per_step == 2);
  CHECK(two.comm_total_s == doctest::Approx(2 * 4 * rs + 12e-3));
  // The first micro-batch's reduce-scatters run under the second's compute: the step ends
  // as ZeRO-1's (the last buckets from 26 ms, then the all-gather: 50 ms).
  CHECK(two.step_s == doctest::Approx(one.step_s));
  CHECK(two.step_s == doctest::Approx(50e-3));
}

TEST_CASE("tensor parallel: two all-reduces of b x s x h per block each way, GEMMs split") {
  const Toy t = toy(4e-3, 8e-3, 0);
  const double sh = 1024.0 * 768;
  const std::vector<LayerCost> layers{layer("h.0", 1e6, 1, sh, "transformer_block"),
                                      layer("h.1", 1e6, 1, sh, "transformer_block")};
  ParallelLayout l;
  l.tp = 2;
  const auto e = estimate_parallel(t.w, t.pass, layers, toy_platform(100e9), catalog(), l);
  REQUIRE(e.collectives.size() == 2);
  const double bytes = sh * 4;  // fp32 activations of one sample
  CHECK(e.collectives[0].bytes == doctest::Approx(bytes));
  CHECK(e.collectives[0].calls_per_step == 4);
  CHECK(e.collectives[0].time.seconds == doctest::Approx(ring_allreduce_s(bytes, 2, 100e9, 0)));
  // All GEMM: compute halves; the all-reduces are on the critical path, all exposed.
  CHECK(e.compute_s == doctest::Approx(6e-3));
  CHECK(e.exposed_comm_s == doctest::Approx(2 * 4 * ring_allreduce_s(bytes, 2, 100e9, 0)));
  // Per block 4 all-reduces: what tp_block_volume_bytes counts.
  CHECK(4 * 2 * 0.5 * bytes == doctest::Approx(tp_block_volume_bytes(bytes, 2)));
}

TEST_CASE("tensor parallel: attention and the per-head / 4h elementwise ops split, layer norm and b x s x h ops not") {
  // One block of b x s x h = 1 x 4 x 2 = 8 elements. Forward ops of 1 ms each: a GEMM, a
  // batched GEMM (attention scores), a softmax on 1 x 2 heads x 4 x 4 = 32 elements, a GeLU
  // on the 4h intermediate (1 x 4 x 8 = 32), a layer norm and a dropout on b x s x h (8).
  Toy t = toy(1e-3, 0, 0);
  Op bmm = t.w.ops[0], soft, gelu, norm, drop;
  bmm.kind = OpKind::batched_gemm;
  soft.kind = gelu.kind = drop.kind = OpKind::elementwise;
  norm.kind = OpKind::normalization;
  soft.shape = TensorShape{{{1, 2, 4, 4}}};
  gelu.shape = TensorShape{{{1, 4, 8}}};
  norm.shape = drop.shape = TensorShape{{{1, 4, 2}}};
  for (const Op& o : {bmm, soft, gelu, norm, drop}) {
    t.w.ops.push_back(o);
    OpEstimate e = t.pass.ops[0];
    e.op_index = t.w.ops.size() - 1;
    t.pass.ops.push_back(e);
  }
  t.pass.ops_s = t.pass.modelled_s = t.pass.pass_s = 6e-3;
  const std::vector<LayerCost> layers{layer("h.0", 1e6, 1, 8, "transformer_block")};
  ParallelLayout l;
  l.tp = 4;
  const auto e = estimate_parallel(t.w, t.pass, layers, toy_platform(100e9), catalog(), l);
  // Split 4 ways: GEMM, batched GEMM, softmax, GeLU (4 ms -> 1 ms); replicated: layer norm
  // and dropout (2 ms). GEMMs alone split would give 2 x 0.25 + 4 = 4.5 ms.
  CHECK(e.compute_s == doctest::Approx(1e-3 + 2e-3));
}

TEST_CASE("data parallel across nodes with tensor parallel: the TP ranks share the node's NICs") {
  const Toy t = toy(4e-3, 8e-3, 0);
  // Blocks, so that tensor parallel has something to split (two of 2 M parameters: each
  // rank's gradients are 1 M of 4 B, a 4 MB bucket).
  const std::vector<LayerCost> layers{layer("a", 2e6, 1, 1000, "transformer_block"),
                                      layer("b", 2e6, 1, 1000, "transformer_block")};
  Platform p = toy_platform(300e9);
  p.nics_per_node = fig(4);
  p.nic_bw_bytes_per_s = fig(25e9);
  ParallelLayout l;
  l.dp = 8;
  l.tp = 2;  // 16 devices on 2 nodes of 8: each DP group has 4 ranks per node
  l.bucket_bytes = 1024 * 1024;
  const auto e = estimate_parallel(t.w, t.pass, layers, p, catalog(), l);
  REQUIRE_FALSE(e.collectives.empty());
  const auto& bucket = e.collectives.back();
  Platform shared = p;
  shared.nic_bw_bytes_per_s = fig(12.5e9);  // two concurrent groups per node
  const auto want = collective_model(shared, CollectiveKind::allreduce, 4e6, 8, 4);
  const auto alone = collective_model(p, CollectiveKind::allreduce, 4e6, 8, 4);
  REQUIRE(want);
  REQUIRE(alone);
  CHECK(bucket.time.seconds == doctest::Approx(want->seconds));
  CHECK(bucket.time.seconds > alone->seconds);
}

TEST_CASE("memory per device by ZeRO stage") {
  const Toy t = toy(4e-3, 8e-3, 1e-3);
  const std::vector<LayerCost> layers{layer("a", 2e6, 1), layer("b", 2e6, 1)};
  ParallelLayout l;
  l.dp = 4;
  Platform p = toy_platform(100e9);
  auto at = [&](int zero) {
    l.zero_stage = zero;
    return device_memory(t.w, layers, p, l);
  };
  CHECK(at(0).weights_bytes == doctest::Approx(16e6));
  CHECK(at(0).optimizer_bytes == doctest::Approx(32e6));
  CHECK(at(1).optimizer_bytes == doctest::Approx(8e6));
  CHECK(at(1).gradients_bytes == doctest::Approx(16e6));
  CHECK(at(2).gradients_bytes == doctest::Approx(4e6));
  CHECK(at(3).weights_bytes == doctest::Approx(4e6));
  CHECK(at(0).total_bytes == doctest::Approx(16e6 + 16e6 + 32e6 + 1e6));
  CHECK(at(0).fits);
  p.mem_bytes = fig(50e6);
  l.zero_stage = 0;
  CHECK_FALSE(device_memory(t.w, layers, p, l).fits);
  l.zero_stage = 3;
  CHECK(device_memory(t.w, layers, p, l).fits);
}

TEST_CASE("memory: activations of the micro-batches in flight, fewer with recomputation") {
  Toy t = toy(4e-3, 8e-3, 0);
  t.w.batch_size = 2;
  // Two layers of 1000 output elements per sample; the model keeps 1e6 B of activations.
  const std::vector<LayerCost> layers{layer("a", 2e6, 1, 1000), layer("b", 2e6, 1, 1000)};
  ParallelLayout l;
  l.pp = 2;
  l.micro_batches = 8;
  const Platform p = toy_platform(100e9);
  // 1F1B: the first stage holds P = 2 micro-batches of its half of the activations.
  CHECK(device_memory(t.w, layers, p, l).activations_bytes == doctest::Approx(1e6 / 2 * 2));
  // Recomputed: each layer's input (b x 1000 x 4 B) of the stage x 2 in flight, plus the
  // largest layer's full activations (half of 1e6 B).
  l.recompute = true;
  CHECK(device_memory(t.w, layers, p, l).activations_bytes == doctest::Approx(2 * 1000 * 4 * 2 + 0.5e6));
}

TEST_CASE("memory: each pipeline stage holds its own layers; the fullest is the one reported") {
  Toy t = toy(4e-3, 8e-3, 0);
  t.w.batch_size = 2;
  // An embedding table of 3.6M parameters, then two layers of 0.2M (the toy model's 4 B of
  // weights, 4 of gradients and 8 of optimizer state per parameter).
  auto kept = [](LayerCost l, double k) {
    l.kept_elems = k;
    return l;
  };
  const std::vector<LayerCost> layers{kept(layer("table", 3.6e6, 1, 1000, "embedding"), 1000),
                                      kept(layer("a", 0.2e6, 1, 1000), 1000), kept(layer("b", 0.2e6, 1, 1000), 3000)};
  ParallelLayout l;
  l.pp = 2;
  l.micro_batches = 4;
  const Platform p = toy_platform(100e9);
  // Cut after the table: stage 0 holds 3.6M parameters and 2 micro-batches of its 1000 kept
  // elements (4 B, 2 samples); stage 1 holds 0.4M and 1 micro-batch of 4000.
  const DeviceMemory m = device_memory(t.w, layers, p, l, {0, 1, 3});
  CHECK(m.stage == 0);
  CHECK(m.weights_bytes == doctest::Approx(3.6e6 * 4));
  CHECK(m.optimizer_bytes == doctest::Approx(3.6e6 * 8));
  CHECK(m.in_flight == 2);
  CHECK(m.activations_bytes == doctest::Approx(1000 * 4 * 2 * 2));
  CHECK(m.detail.find("stage, 0 of 0-1") != std::string::npos);
  // Without the cut every stage is half of the model: 2M parameters, a stage no cut makes.
  CHECK(device_memory(t.w, layers, p, l).weights_bytes == doctest::Approx(2e6 * 4));
  // A model without transformer blocks checkpoints every layer; a checkpoint is no more than
  // the layer keeps anyway (a layer keeping its 1000-element input, its output 4000), and
  // one layer is live at a time: more than without recomputation, and said so.
  const std::vector<LayerCost> cnn{kept(layer("c1", 1e6, 1, 4000, "conv2d"), 1000),
                                   kept(layer("c2", 1e6, 1, 4000, "conv2d"), 1000)};
  ParallelLayout r;
  r.recompute = true;
  const DeviceMemory rm = device_memory(t.w, cnn, p, r);
  CHECK(rm.activations_bytes == doctest::Approx((1000 + 1000 + 1000) * 4 * 2));
  CHECK_FALSE(rm.recompute_helped);
  CHECK(rm.detail.find("no transformer block to checkpoint") != std::string::npos);
}

TEST_CASE("memory: a model's layers say what each keeps; recomputation keeps the block inputs and one block") {
  Toy t = toy(4e-3, 8e-3, 0);
  t.w.batch_size = 2;
  // Two blocks keeping 5000 elements per sample (output 1000) and a head tied to the token
  // embedding keeping 3000 (output 2000); fp32 GEMMs: 4 B an element, 2 samples.
  auto with_kept = [](LayerCost l, double kept, bool tied = false) {
    l.kept_elems = kept;
    l.tied_to_embedding = tied;
    return l;
  };
  const std::vector<LayerCost> layers{with_kept(layer("a", 1e6, 1, 1000, "transformer_block"), 5000),
                                      with_kept(layer("b", 1e6, 1, 1000, "transformer_block"), 5000),
                                      with_kept(layer("head", 0, 1, 2000), 3000, true)};
  ParallelLayout l;
  const Platform p = toy_platform(100e9);
  auto acts = [&] { return device_memory(t.w, layers, p, l).activations_bytes; };
  CHECK(acts() == doctest::Approx((5000 + 5000 + 3000) * 2 * 4));
  // Recomputed: each block keeps its input (1000) and one block's 5000 at a time; the head,
  // not checkpointed, keeps its 3000.
  l.recompute = true;
  CHECK(acts() == doctest::Approx((1000 + 1000 + 3000 + 5000) * 2 * 4));
  // tp=2: the blocks' and the tied head's activations split, the block inputs replicated.
  l.tp = 2;
  CHECK(acts() == doctest::Approx((1000 + 1000 + 1500 + 2500) * 2 * 4));
  l.recompute = false;
  CHECK(acts() == doctest::Approx((2500 + 2500 + 1500) * 2 * 4));
  // pp=2, one micro-batch in flight: stage 0 holds half of the kept inputs, one block whole.
  l.tp = 1;
  l.pp = 2;
  l.micro_batches = 1;
  l.recompute = true;
  CHECK(acts() == doctest::Approx(((1000 + 1000 + 3000) / 2.0 + 5000) * 2 * 4));
  // Half-precision GEMMs keep half-precision activations.
  for (auto& op : t.w.ops) op.dtype = DType::fp16;
  CHECK(acts() == doctest::Approx(((1000 + 1000 + 3000) / 2.0 + 5000) * 2 * 2));
}

TEST_CASE("tensor parallel: an LM head tied to the token embedding splits over the vocabulary") {
  const Toy t = toy(4e-3, 8e-3, 0);
  const double sh = 1024.0 * 768;
  LayerCost head = layer("lm_head", 0, 1, 50000);
  std::vector<LayerCost> layers{layer("h.0", 1e6, 1, sh, "transformer_block"), head};
  ParallelLayout l;
  l.tp = 2;
  // Half the MACs each; all GEMM. The block halves; an untied head stays whole: forward
  // 1 + 2 ms, backward 2 + 4 ms.
  CHECK(estimate_parallel(t.w, t.pass, layers, toy_platform(100e9), catalog(), l).compute_s == doctest::Approx(9e-3));
  // Tied (Megatron's vocabulary-parallel logits): it halves too.
  layers[1].tied_to_embedding = true;
  CHECK(estimate_parallel(t.w, t.pass, layers, toy_platform(100e9), catalog(), l).compute_s == doctest::Approx(6e-3));
}

TEST_CASE("tensor parallel: the word embedding's and the tied LM head's collectives; a pipeline's copy of the table") {
  const Toy t = toy(4e-3, 8e-3, 0);
  const double sh = 16.0 * 64;  // a sample: 16 tokens of 64
  LayerCost wte = layer("wte", 1000.0 * 64, 0, sh, "embedding");
  LayerCost wpe = layer("wpe", 16.0 * 64, 0, sh, "embedding");  // positions: whole on every rank
  LayerCost head = layer("lm_head", 0, 1, 16.0 * 1000);
  head.tied_to_embedding = true;
  head.out_features = 1000;
  const std::vector<LayerCost> layers{wte, wpe, layer("h.0", 1e6, 1, sh, "transformer_block"),
                                      layer("ln_f", 128, 0, sh), head};
  const Platform p = toy_platform(100e9);
  ParallelLayout l;
  l.tp = 2;
  const auto e = estimate_parallel(t.w, t.pass, layers, p, catalog(), l);
  auto find = [&](const ParallelEstimate& est, const std::string& what) {
    const auto it = std::find_if(est.collectives.begin(), est.collectives.end(),
                                 [&](const CollectiveLine& c) { return c.what == what; });
    REQUIRE(it != est.collectives.end());
    return *it;
  };
  // The vocabulary-parallel lookup sums its output forward; the head's input gradient is
  // summed backward; the cross-entropy sums three fp32 values per token forward.
  CHECK(find(e, "tp all-reduce (wte, word embedding)").bytes == doctest::Approx(sh * 4));
  CHECK(find(e, "tp all-reduce (lm_head, LM head input)").bytes == doctest::Approx(sh * 4));
  const auto ce = find(e, "tp all-reduce (lm_head, cross-entropy)");
  CHECK(ce.bytes == doctest::Approx(16 * 4));
  CHECK(ce.calls_per_step == 3);
  CHECK(std::none_of(e.collectives.begin(), e.collectives.end(),
                     [](const CollectiveLine& c) { return c.what.find("wpe") != std::string::npos; }));
  // All on the compute stream: the block's four, the lookup's, the head's input and the
  // cross-entropy's three are exposed.
  const double ar = ring_allreduce_s(sh * 4, 2, 100e9, 0);
  CHECK(e.exposed_comm_s == doctest::Approx(6 * ar + 3 * ring_allreduce_s(16 * 4, 2, 100e9, 0)));
  // The table and the block split, the position embedding and the norm do not.
  ParallelLayout one;
  const double total = 64000 + 1024 + 1e6 + 128;
  CHECK(device_memory(t.w, layers, p, l).weights_bytes / device_memory(t.w, layers, p, one).weights_bytes ==
        doctest::Approx((32000 + 1024 + 5e5 + 128) / total));
  // Two stages, the head's without the table: it holds a copy of its half (32,000
  // parameters), and the copies' gradients are all-reduced once a step.
  l.pp = 2;
  const DeviceMemory m = device_memory(t.w, layers, p, l, {0, 2, 5});
  CHECK(m.stage == 1);
  CHECK(m.weights_bytes == doctest::Approx((5e5 + 128 + 32000) * 16e6 / total));
  const auto piped = estimate_parallel(t.w, t.pass, layers, p, catalog(), l);
  const auto emb = find(piped, "embedding all-reduce (stages 0 and 1)");
  CHECK(emb.bytes == doctest::Approx(32000 * 4));
  CHECK(emb.calls_per_step == 1);
  // One stage holding both: no copy, no such all-reduce.
  CHECK(std::none_of(e.collectives.begin(), e.collectives.end(),
                     [](const CollectiveLine& c) { return c.what.find("embedding all-reduce") != std::string::npos; }));
}

TEST_CASE(
    "recomputation: the blocks' forward runs again, with its all-reduces; efficiency against a device that "
    "recomputes") {
  const Toy t = toy(4e-3, 8e-3, 0);
  const double sh = 1024.0 * 768;
  const std::vector<LayerCost> layers{layer("h.0", 1e6, 1, sh, "transformer_block"), layer("lm_head", 1e6, 1, 50000)};
  ParallelLayout l;
  l.recompute = true;
  // The block (half the MACs) runs its 2 ms forward again in the backward; the head does not.
  auto one = estimate_parallel(t.w, t.pass, layers, toy_platform(100e9), catalog(), l);
  CHECK(one.compute_s == doctest::Approx(14e-3));
  CHECK(one.single_device_pass_s == doctest::Approx(14e-3));
  CHECK(one.scaling_efficiency == doctest::Approx(1.0));
  // tp=2: the block's forward all-reduces run again too: 6 a step, 4 of them in the backward.
  l.tp = 2;
  const auto two = estimate_parallel(t.w, t.pass, layers, toy_platform(100e9), catalog(), l);
  REQUIRE(two.collectives.size() == 1);
  CHECK(two.collectives[0].calls_per_step == 6);
  const double ar = ring_allreduce_s(sh * 4, 2, 100e9, 0);
  CHECK(two.exposed_comm_s == doctest::Approx(6 * ar));
  // Block halved, head whole: forward 1 + 2, backward 2 + 1 (recomputed) + 4.
  CHECK(two.compute_s == doctest::Approx(10e-3));
}

namespace {

// A transformer block's micro-batch by hand: forward a GEMM, attention's scores (a batched
// GEMM of 2 x 4 x 4 = 32 outputs) and an op on them, and an op on the block's 8-element
// output, 1 ms each; backward one 4 ms GEMM. One block keeping 100 elements, 60 of them
// attention's core and 20 what tensor parallel leaves whole.
struct Block {
  Workload w;
  PassEstimate pass;
  std::vector<LayerCost> layers;
};
Block attention_block() {
  Block t;
  t.w.name = "block";
  t.w.origin = "model";
  t.w.batch_size = 1;
  t.w.model = ModelStats{1'000, 1, 4e3, 4e3, 8e3, 400};
  auto op = [](OpKind k, Phase ph, OpShape shape) {
    Op o;
    o.kind = k;
    o.phase = ph;
    o.shape = std::move(shape);
    return o;
  };
  t.w.ops = {op(OpKind::gemm, Phase::forward, GemmShape{8, 8, 8}),
             op(OpKind::batched_gemm, Phase::forward, GemmShape{4, 4, 2, 2}),
             op(OpKind::elementwise, Phase::forward, TensorShape{{{2, 4, 4}}}),
             op(OpKind::elementwise, Phase::forward, TensorShape{{{8}}}),
             op(OpKind::gemm, Phase::backward, GemmShape{8, 8, 8})};
  t.pass = pass_of({1e-3, 1e-3, 1e-3, 1e-3, 4e-3});
  LayerCost l = layer("h.0", 1e3, 1, 8, "transformer_block");
  l.kept_elems = 100;
  l.kept_attention_elems = 60;
  l.kept_replicated_elems = 20;  // its norms', dropouts' and residuals': whole on every TP rank
  t.layers = {l};
  return t;
}

}  // namespace

TEST_CASE("selective recomputation and sequence parallel: time, collectives and memory by hand") {
  const Block t = attention_block();
  const Platform p = toy_platform(100e9);
  ParallelLayout l;
  auto run = [&] { return estimate_parallel(t.w, t.pass, t.layers, p, catalog(), l); };
  // tp=2: 3 of the 4 forward ms are in the tensor-parallel region (the GEMMs and the op on
  // the 32 scores), the 8-element op is not: forward 4 x (0.75 / 2 + 0.25) = 2.5 ms,
  // backward 2 ms.
  l.tp = 2;
  CHECK(run().compute_s == doctest::Approx(4.5e-3));
  // Sequence parallel splits the rest too: 2 + 2 ms; each all-reduce becomes a
  // reduce-scatter and an all-gather of the same 8 fp32 values (alpha 0: the same time).
  l.sequence_parallel = true;
  const auto sp = run();
  CHECK(sp.compute_s == doctest::Approx(4e-3));
  REQUIRE(sp.collectives.size() == 2);
  CHECK(sp.collectives[0].what.find("tp reduce-scatter") == 0);
  CHECK(sp.collectives[1].what.find("tp all-gather") == 0);
  CHECK(sp.exposed_comm_s == doctest::Approx(4 * ring_allreduce_s(8 * 4, 2, 100e9, 0)));
  // Selective recomputation runs attention's core forward (the batched GEMM and the op on
  // the scores, 2 ms) again in the backward, split over the heads: + 1 ms.
  l.sequence_parallel = false;
  l.recompute_attention = true;
  CHECK(run().compute_s == doctest::Approx(5.5e-3));
  // On one device: 4 + 4 + 2 ms, against a device that recomputes too.
  l.tp = 1;
  const auto one = run();
  CHECK(one.compute_s == doctest::Approx(10e-3));
  CHECK(one.scaling_efficiency == doctest::Approx(1.0));
  // Memory: the block keeps 100 elements of 4 B, 40 once attention's core is dropped.
  l.recompute_attention = false;
  CHECK(device_memory(t.w, t.layers, p, l).activations_bytes == doctest::Approx(400));
  l.recompute_attention = true;
  CHECK(device_memory(t.w, t.layers, p, l).activations_bytes == doctest::Approx(160));
  // tp=2 splits the 20 others, not the 20 replicated: 10 + 20.
  l.tp = 2;
  CHECK(device_memory(t.w, t.layers, p, l).activations_bytes == doctest::Approx((10 + 20) * 4));
  // Full recomputation keeps the block's input (8) and one block (80 / 2 + 20); sequence
  // parallel splits the input and the replicated part too (80 / 2 + 20 / 2).
  l.recompute_attention = false;
  l.recompute = true;
  CHECK(device_memory(t.w, t.layers, p, l).activations_bytes == doctest::Approx((8 + 60) * 4));
  l.sequence_parallel = true;
  CHECK(device_memory(t.w, t.layers, p, l).activations_bytes == doctest::Approx((4 + 50) * 4));
}

TEST_CASE("op graph: overlap changes the critical path") {
  // A (3) then B (3) on the compute stream; C (4), a collective after A, on another; D (1)
  // needs B and C. Without C the path is A-B-D = 7; with it A-C-D = 8: 1 s exposed.
  OpGraph g;
  const auto a = g.add({"A", 0, false, 3});
  const auto b = g.add({"B", 0, false, 3});
  const auto c = g.add({"C", 1, true, 4});
  const auto d = g.add({"D", 0, false, 1});
  g.depend(a, c);
  g.depend(c, d);
  const auto cp = critical_path(g);
  CHECK(cp.seconds == doctest::Approx(8));
  CHECK(cp.without_comm_s == doctest::Approx(7));
  CHECK(cp.exposed_comm_s == doctest::Approx(1));
  CHECK(cp.path == std::vector<std::size_t>{a, c, d});
  // A shorter collective hides under B: the path is A-B-D again, nothing exposed.
  g.ops[c].seconds = 2;
  const auto hidden = critical_path(g);
  CHECK(hidden.seconds == doctest::Approx(7));
  CHECK(hidden.exposed_comm_s == doctest::Approx(0));
  CHECK(hidden.path == std::vector<std::size_t>{a, b, d});
  (void)b;
}

}  // namespace fomcast::test
