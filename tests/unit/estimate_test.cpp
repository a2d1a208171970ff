// The prediction chain, one method at a time, on the shipped DeepBench rows and platform
// specs. Expected numbers come from the CSV rows and spec files themselves (cited in each
// test), or from the same formula written out independently here.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "fomcast/error.hpp"
#include "fomcast/estimate.hpp"
#include "fomcast/store.hpp"
#include "shipped_catalog.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ScratchDir;

namespace {

using test::catalog;
using test::spec;

double peak(const std::string& platform, DType d) { return spec(platform).peak_flop_per_s.at(d).value; }
double bw(const std::string& platform) { return spec(platform).mem_bw_bytes_per_s->value; }

Op gemm(int64_t m, int64_t n, int64_t k, DType d = DType::fp32, bool ta = false, bool tb = false) {
  Op op;
  op.name = "mm";
  op.kind = OpKind::gemm;
  op.shape = GemmShape{m, n, k, 1, ta, tb};
  op.dtype = d;
  fill_costs(op);
  return op;
}

ConvShape v100_readme_conv(ConvDirection d = ConvDirection::forward) {
  // data/deepbench/README.md: V100 train fp32, W=H=112, C=64, N=8, K=128, 3x3, pad 1, stride 1.
  ConvShape c;
  c.n = 8, c.c = 64, c.k = 128, c.input = {1, 112, 112}, c.filter = {1, 3, 3}, c.pad = {0, 1, 1};
  c.direction = d;
  return c;
}

Op conv(const ConvShape& c, Phase phase = Phase::forward) {
  Op op;
  op.name = "conv";
  op.kind = OpKind::conv;
  op.shape = c;
  op.phase = phase;
  fill_costs(op);
  return op;
}

Workload workload(std::vector<Op> ops, const std::string& recorded_on = "") {
  Workload w;
  w.name = "w";
  w.recorded_on = recorded_on;
  w.ops = std::move(ops);
  return w;
}

OpEstimate only(const Workload& w, const std::string& platform) {
  const PassEstimate p = estimate_pass(w, platform, catalog());
  REQUIRE(p.ops.size() == 1);
  return p.ops[0];
}

// max(F / peak, B / bw) of a GEMM in fp32, the roofline the test derives on its own.
double roof(double m, double n, double k, double peak_flops, double bw_bytes) {
  return std::max(2 * m * n * k / peak_flops, 4 * (m * k + k * n + m * n) / bw_bytes);
}

}  // namespace

TEST_CASE("table: an exact DeepBench row, also with operands exchanged") {
  // results_gemm.csv: NV_V100 train fp32 1760x128x1760 NN = 88 us.
  auto e = only(workload({gemm(1760, 128, 1760)}), "NV_V100");
  CHECK(e.method == Method::table);
  CHECK(e.predicted_s == doctest::Approx(88e-6));
  CHECK(e.source_platform == "NV_V100");
  CHECK(e.uncertainty > 0);
  CHECK(e.detail.find("DeepBench_NV_V100.xlsx") != std::string::npos);
  // A row-major framework's 128x1760 @ 1760x1760 is cuBLAS's 1760x128x1760 with the
  // operands exchanged (C^T = B^T A^T): the same kernel.
  e = only(workload({gemm(128, 1760, 1760, DType::fp32, true, true)}), "NV_V100");
  CHECK(e.method == Method::table);
  CHECK(e.predicted_s == doctest::Approx(88e-6));
}

TEST_CASE("dtype: an fp16 op uses the fp16_mixed table and says so; a bf16 one on Volta its fp32 table") {
  // results_gemm.csv: NV_V100 train fp16_mixed 1760x128x1760 = 31 us.
  const auto e = only(workload({gemm(1760, 128, 1760, DType::fp16)}), "NV_V100");
  CHECK(e.method == Method::table);
  CHECK(e.predicted_s == doctest::Approx(31e-6));
  CHECK(std::any_of(e.notes.begin(), e.notes.end(),
                    [](const std::string& n) { return n.find("fp16_mixed table") != std::string::npos; }));
  // Volta's tensor cores take fp16, not bf16 (the spec states an fp16 rate only): a bf16
  // GEMM runs at the fp32 rate, from the fp32 table, not 4-8x faster from the fp16 one.
  const auto b = only(workload({gemm(1760, 128, 1760, DType::bf16)}), "NV_V100");
  const auto f = only(workload({gemm(1760, 128, 1760)}), "NV_V100");
  CHECK(b.method == f.method);
  CHECK(b.predicted_s == doctest::Approx(f.predicted_s));
  CHECK(b.predicted_s > 2 * e.predicted_s);
  CHECK(std::any_of(b.notes.begin(), b.notes.end(), [](const std::string& n) {
    return n.find("no bf16 rate in NV_V100's spec") != std::string::npos;
  }));
}

TEST_CASE("dtype: a bf16 op on a platform with no 16-bit rate runs at its fp32 rate, and says so") {
  // NV_K20X's spec has fp32 and fp64 rates only; Kepler computes bf16 in fp32.
  const auto h = only(workload({gemm(1760, 128, 1760, DType::bf16)}), "NV_K20X");
  const auto f = only(workload({gemm(1760, 128, 1760)}), "NV_K20X");
  CHECK(h.method == Method::scaled_table);
  CHECK(std::any_of(h.notes.begin(), h.notes.end(),
                    [](const std::string& n) { return n.find("fp32 rate stands in") != std::string::npos; }));
  // Same source table (M40's fp32: M40 has no 16-bit rate either), same rates, half the
  // bytes: no slower than the fp32 op.
  INFO(h.detail);
  INFO(f.detail);
  CHECK(h.source_platform == f.source_platform);
  CHECK(h.predicted_s <= f.predicted_s);
  CHECK(h.predicted_s > 0.5 * f.predicted_s);
}

TEST_CASE("dtype: a tensor-core GEMM with a dimension off 16 bytes says its time is optimistic") {
  auto noted = [](const OpEstimate& e) {
    return std::any_of(e.notes.begin(), e.notes.end(),
                       [](const std::string& n) { return n.find("likely optimistic") != std::string::npos; });
  };
  // GPT-2's LM head at 12 x 1024 tokens: N = 50257 is no multiple of 8 halves or 4 tf32s.
  const auto bf = only(workload({gemm(12288, 50257, 768, DType::bf16)}), "A100");
  CHECK(noted(bf));
  CHECK(std::any_of(bf.notes.begin(), bf.notes.end(),
                    [](const std::string& n) { return n.starts_with("N=50257 not a multiple of 8"); }));
  CHECK(noted(only(workload({gemm(12288, 50257, 768, DType::tf32)}), "A100")));
  // Padded to 50304 (a multiple of 64), or in fp32 (no tensor cores): nothing to say.
  CHECK_FALSE(noted(only(workload({gemm(12288, 50304, 768, DType::bf16)}), "A100")));
  CHECK_FALSE(noted(only(workload({gemm(12288, 50257, 768)}), "A100")));
  // 50260 is a multiple of 4 (tf32's 16 bytes) but not of 8 (bf16's).
  CHECK_FALSE(noted(only(workload({gemm(12288, 50260, 768, DType::tf32)}), "A100")));
  CHECK(noted(only(workload({gemm(12288, 50260, 768, DType::bf16)}), "A100")));
}

TEST_CASE("interpolated: between the measured neighbours, with a band from leave-one-out") {
  // results_gemm.csv: NV_V100 train fp32 1760 x N x 1760: N=64 56 us, N=128 88 us.
  const auto e = only(workload({gemm(1760, 96, 1760)}), "NV_V100");
  CHECK(e.method == Method::interpolated);
  CHECK(e.predicted_s > 56e-6);
  CHECK(e.predicted_s < 88e-6);
  CHECK(e.uncertainty >= 0.03);
  CHECK(e.uncertainty < 0.5);
  CHECK(e.detail.find("leave-one-out band") != std::string::npos);
}

TEST_CASE("a GEMM beyond every measured shape runs at no lower rate than the table's edge") {
  // NT3's dense layer (M=20 N=200 K=773,760) on the A100 PCIe 40GB, whose NeuSight table stops
  // near K = 65,500: the fitted surface fell to 1.1 TFLOP/s out there (5.4 ms). The edge is
  // the same M and N at the table's largest K; beyond it the time grows with the work at most.
  int64_t max_k = 0;
  for (const auto& e : catalog().tables.at("A100_PCIe_40GB").entries)
    if (e.kind == OpKind::gemm && e.precision == KernelPrecision::fp32)
      if (const auto* g = std::get_if<GemmShape>(&e.shape)) max_k = std::max(max_k, g->k);
  REQUIRE(max_k > 60000);
  REQUIRE(max_k < 773760);
  const auto far = only(workload({gemm(20, 200, 773760)}), "A100_PCIe_40GB");
  const auto edge = only(workload({gemm(20, 200, max_k)}), "A100_PCIe_40GB");
  INFO(far.detail);
  CHECK(far.method == Method::interpolated);
  CHECK(edge.method == Method::interpolated);
  CHECK(far.predicted_s <= edge.predicted_s * 773760.0 / static_cast<double>(max_k) * (1 + 1e-9));
  CHECK(far.predicted_s > edge.predicted_s);
  CHECK(std::any_of(far.notes.begin(), far.notes.end(), [](const std::string& n) {
    return n.find("clamped to the table's largest") != std::string::npos;
  }));
  // Within the measured shapes nothing is said.
  CHECK(std::none_of(edge.notes.begin(), edge.notes.end(),
                     [](const std::string& n) { return n.find("clamped") != std::string::npos; }));
}

TEST_CASE("a 16-bit conv is no slower than the same conv in fp32 on the same target") {
  // ResNet-50's first weight-gradient conv (N=256, C=3, 224x224, K=64, 7x7 stride 2, pad 3):
  // NV_V100's fp16 conv table reads it far from anything it measured.
  ConvShape c;
  c.n = 256, c.c = 3, c.k = 64, c.input = {1, 224, 224}, c.filter = {1, 7, 7}, c.pad = {0, 3, 3};
  c.stride = {1, 2, 2};
  c.direction = ConvDirection::backward_filter;
  Op wide = conv(c, Phase::backward), half = wide;
  half.dtype = DType::bf16;
  half.bytes = 0;
  fill_costs(half);
  const auto w32 = only(workload({wide}), "H100");
  const auto w16 = only(workload({half}), "H100");
  INFO(w16.detail);
  CHECK(w16.predicted_s <= w32.predicted_s * (1 + 1e-9));
  CHECK(std::any_of(w16.notes.begin(), w16.notes.end(), [](const std::string& n) {
    return n.find("no slower than fp32, which the library can always run it in") != std::string::npos;
  }));
  // A GEMM its bf16 tables time faster than fp32 keeps its own time, and says nothing.
  const auto g16 = only(workload({gemm(4096, 4096, 4096, DType::bf16)}), "H100");
  const auto g32 = only(workload({gemm(4096, 4096, 4096)}), "H100");
  CHECK(g16.predicted_s < g32.predicted_s);
  CHECK(std::none_of(g16.notes.begin(), g16.notes.end(),
                     [](const std::string& n) { return n.find("no slower than fp32") != std::string::npos; }));
}

TEST_CASE("conv: exact directions, and a backward op without direction is data + filter") {
  // README: forward 624 us, backward-data 602 us, backward-filter 997 us.
  auto e = only(workload({conv(v100_readme_conv())}), "NV_V100");
  CHECK(e.method == Method::table);
  CHECK(e.predicted_s == doctest::Approx(624e-6));
  e = only(workload({conv(v100_readme_conv(), Phase::backward)}), "NV_V100");
  CHECK(e.method == Method::table);
  CHECK(e.predicted_s == doctest::Approx((602 + 997) * 1e-6));
  CHECK(std::any_of(e.notes.begin(), e.notes.end(), [](const std::string& n) {
    return n.find("backward-data + backward-filter") != std::string::npos;
  }));
}

TEST_CASE("implicit-gemm: a conv with no conv table is its GEMM on the GEMM table") {
  // A catalog holding only V100's GEMM rows: the conv must go through them, uncorrected,
  // so it equals the GEMM M = N*P*Q = 8*112*112, N = K = 128, K = C*R*S = 64*9.
  KernelTable v100 = catalog().tables.at("NV_V100"), gemms;
  gemms.platform = "NV_V100";
  for (const auto& e : v100.entries)
    if (e.kind == OpKind::gemm) gemms.entries.push_back(e);
  const Catalog only_gemm = make_catalog({spec("NV_V100")}, {gemms});
  const auto c = estimate_pass(workload({conv(v100_readme_conv())}), "NV_V100", only_gemm).ops[0];
  const auto g = estimate_pass(workload({gemm(8 * 112 * 112, 128, 64 * 9)}), "NV_V100", only_gemm).ops[0];
  CHECK(c.method == Method::implicit_gemm);
  CHECK(c.predicted_s == doctest::Approx(g.predicted_s));
  CHECK(c.uncertainty > g.uncertainty);
  // With the full tables, a dilated conv (not in any DeepBench table) is implicit GEMM too,
  // corrected by V100's median conv/GEMM ratio.
  ConvShape dilated = v100_readme_conv();
  dilated.dilation = {1, 2, 2};
  dilated.pad = {0, 2, 2};
  const auto d = only(workload({conv(dilated)}), "NV_V100");
  CHECK(d.method == Method::implicit_gemm);
  CHECK(d.detail.find("median conv/GEMM time ratio") != std::string::npos);
}

TEST_CASE("a conv on a card with no conv table reads the table of another card of its chip") {
  // NeuSight measured the A100's convs on the 80 GB PCIe card and its GEMMs on the 40 GB one
  // (data/neusight/README.md): a 40 GB card's conv is the same kernel on the same 108 SMs, so
  // the 80 GB card's table answers it, not the 40 GB card's GEMM table (implicit GEMM).
  ConvShape c;
  c.n = 32, c.c = 128, c.k = 128, c.input = {1, 28, 28}, c.filter = {1, 3, 3}, c.pad = {0, 1, 1};
  const auto fwd = only(workload({conv(c)}), "A100_PCIe_40GB");
  INFO(fwd.detail);
  CHECK(fwd.method == Method::scaled_table);
  CHECK(fwd.source_platform == "A100_PCIe_80GB");
  CHECK(fwd.detail.find("A100_PCIe_80GB's table read as A100_PCIe_40GB's own (the same chip: 108 compute units)") !=
        std::string::npos);
  // The same time as the 80 GB card gives itself (the same peaks; a compute-bound conv), in
  // a wider band (another card).
  const auto own = only(workload({conv(c)}), "A100_PCIe_80GB");
  CHECK((own.method == Method::table || own.method == Method::interpolated));
  CHECK(fwd.predicted_s == doctest::Approx(own.predicted_s));
  CHECK(fwd.uncertainty > own.uncertainty);
  // A direction the 80 GB card did not measure (NeuSight's convs are forward only) comes from
  // the platforms that measured it, still not from the 40 GB card's GEMMs.
  ConvShape bd = c;
  bd.direction = ConvDirection::backward_data;
  const auto bwd = only(workload({conv(bd, Phase::backward)}), "A100_PCIe_40GB");
  INFO(bwd.detail);
  CHECK(bwd.method == Method::scaled_table);
  CHECK(bwd.source_platform != "A100_PCIe_40GB");
  // Without the 80 GB card's table, the platforms that measured convs answer before the 40 GB
  // card's own GEMM route (uncorrected: no conv table of its own to correct it by)...
  Catalog without = catalog();
  std::vector<Platform> specs;
  std::vector<KernelTable> tables, gemm_only;
  for (const auto& [name, p] : without.platforms) specs.push_back(p);
  for (const auto& [name, t] : without.tables)
    if (name != "A100_PCIe_80GB") tables.push_back(t);
  const Catalog no_sibling = make_catalog(specs, tables);
  const auto transferred = estimate_pass(workload({conv(c)}), "A100_PCIe_40GB", no_sibling).ops[0];
  CHECK(transferred.method == Method::scaled_table);
  CHECK(transferred.source_platform != "A100_PCIe_40GB");
  // ...and with no conv table anywhere, the GEMM route is what is left.
  for (const auto& [name, t] : without.tables)
    if (name == "A100_PCIe_40GB") gemm_only.push_back(t);
  const auto gemm_route = estimate_pass(workload({conv(c)}), "A100_PCIe_40GB", make_catalog(specs, gemm_only)).ops[0];
  CHECK(gemm_route.method == Method::implicit_gemm);
}

TEST_CASE("rnn-as-gemm: a recurrent layer with no RNN table is its GEMMs") {
  // T4 has no RNN results. An LSTM H=512, B=16, T=25 forward is the input GEMM over all
  // timesteps (M = 4H, N = B*T, K = H) plus 25 recurrent GEMMs (M = 4H, N = B, K = H). Where
  // other GPUs measured RNNs, their tables answer first (the GEMM route, which leaves out the
  // gates' elementwise work, is the last resort): with the T4's tables alone it is the route.
  Op lstm;
  lstm.name = "lstm";
  lstm.kind = OpKind::rnn;
  lstm.shape = RnnShape{RnnCell::lstm, 512, 512, 16, 25};
  fill_costs(lstm);
  CHECK(only(workload({lstm}), "NV_T4").method == Method::scaled_table);
  std::vector<Platform> specs;
  std::vector<KernelTable> t4;
  for (const auto& [name, p] : catalog().platforms) specs.push_back(p);
  for (const auto& [name, t] : catalog().tables)
    if (name == "NV_T4") t4.push_back(t);
  const Catalog alone = make_catalog(specs, t4);
  auto on_t4 = [&](const Op& op) { return estimate_pass(workload({op}), "NV_T4", alone).ops[0]; };
  const auto e = on_t4(lstm);
  const auto in = on_t4(gemm(2048, 400, 512));
  const auto step = on_t4(gemm(2048, 16, 512));
  CHECK(e.method == Method::rnn_as_gemm);
  CHECK(e.predicted_s == doctest::Approx(in.predicted_s + 25 * step.predicted_s));
}

TEST_CASE("scaled-table: a platform without tables carries an alike one's efficiency, its launch floor kept") {
  // NV_K20X has no table; with NV_M40's the only one, it is the source (an ensemble of one).
  // results_gemm.csv: NV_M40 train fp32 1760x128x1760 NN = 336 us. The fastest GEMM of the
  // M40's tables is its launch floor, kept; the rest is carried by the roofline ratio (no
  // compute units in either spec: no waves; no memory-bound tables of their architectures:
  // peak bandwidth).
  const KernelTable& m40 = catalog().tables.at("NV_M40");
  double floor = INFINITY;
  for (const auto& e : m40.entries)
    if (e.kind == OpKind::gemm) floor = std::min(floor, e.time_us * 1e-6);
  const Catalog two = make_catalog({spec("NV_K20X"), spec("NV_M40")}, {m40});
  Workload w = workload({gemm(1760, 128, 1760)});
  const auto e = estimate_pass(w, "NV_K20X", two).ops.at(0);
  CHECK(e.method == Method::scaled_table);
  CHECK(e.source_platform == "NV_M40");
  const double ratio = roof(1760, 128, 1760, peak("NV_K20X", DType::fp32), bw("NV_K20X")) /
                       roof(1760, 128, 1760, peak("NV_M40", DType::fp32), bw("NV_M40"));
  CHECK(e.predicted_s == doctest::Approx(floor + (336e-6 - floor) * ratio));
  CHECK(e.uncertainty >= 0.3);  // another architecture of the same vendor
  // With every table, the nearest platforms' transfers are combined and each is named.
  const auto all = only(workload({gemm(1760, 128, 1760)}), "NV_K20X");
  CHECK(all.method == Method::scaled_table);
  CHECK(all.detail.find("weighted geometric mean") != std::string::npos);
}

TEST_CASE("scaled-table from the workload's own measurement when its platform is the most alike") {
  // A bf16 GEMM timed at 1 ms on an H100 trace, estimated on MI300X: the H100 measurement
  // is nearer than any DeepBench table (V100's fp16 rate is 10x below MI300X's).
  Op op = gemm(4096, 4096, 4096, DType::bf16);
  op.self_time_s = 1e-3;
  const auto e = only(workload({op}, "H100"), "MI300X");
  CHECK(e.method == Method::scaled_table);
  CHECK(e.source_platform == "H100");
  // Efficiency transfer: a plain GEMM keeps its fraction of the roofline, no wave factor
  // (docs/accuracy.md section 5: plain GEMMs were better without); no memory-bound table of
  // either architecture, so both sides take the same pooled achievable fraction, which
  // cancels: peak bandwidth.
  const double f = op.flops, b = op.bytes;
  const double ratio = std::max(f / peak("MI300X", DType::bf16), b / bw("MI300X")) /
                       std::max(f / peak("H100", DType::bf16), b / bw("H100"));
  CHECK(e.predicted_s == doctest::Approx(1e-3 * ratio));

  // A batched GEMM keeps wave quantization: 4 x (2048 x 2048 x 2048) is 4 x 16 x 16 = 1,024
  // output tiles of 128 (enough for every SM and CU), so each side's compute time runs
  // ceil(waves) / waves longer: H100's 132 SMs 1024 / 132 = 7.76 waves -> 8, MI300X's 304
  // CUs 3.37 -> 4. At 683 flop/B it is compute-bound on both, at any achievable fraction
  // over a half.
  Op bmm = gemm(2048, 2048, 2048, DType::bf16);
  bmm.kind = OpKind::batched_gemm;
  std::get<GemmShape>(bmm.shape).batch = 4;
  fill_costs(bmm);
  bmm.self_time_s = 1e-3;
  const auto eb = only(workload({bmm}, "H100"), "MI300X");
  INFO(eb.detail);
  CHECK(eb.method == Method::scaled_table);
  auto wave = [](double units) { return std::ceil(1024 / units) / (1024 / units); };
  const double h100 = spec("H100").compute_units->value, mi300x = spec("MI300X").compute_units->value;
  CHECK(h100 == 132);
  CHECK(mi300x == 304);
  const double fb = bmm.flops, bb = bmm.bytes;
  CHECK(fb / bb > 2 * peak("H100", DType::bf16) / bw("H100"));
  const double ratio_b =
      (fb / peak("MI300X", DType::bf16) * wave(mi300x)) / (fb / peak("H100", DType::bf16) * wave(h100));
  CHECK(eb.predicted_s == doctest::Approx(1e-3 * ratio_b));
  CHECK(eb.detail.find("waves") != std::string::npos);
}

TEST_CASE("a measured op keeps its trace's fixed kernel latency unscaled, the rest carried by the ratio") {
  // The BERT-small H100 trace's shapes and times (docs/accuracy.md section 3): an add of
  // [141, 512] bf16 at 1.64 us a call (433 KB: 0.13 us at H100's bandwidth, under a tenth of
  // its time, so latency-bound: the floor) and a 141 x 512 x 512 GEMM at 5.81 us.
  Op add;
  add.name = "aten::add";
  add.kind = OpKind::elementwise;
  add.shape = TensorShape{{{1, 141, 512}, {1, 141, 512}}};
  add.dtype = DType::bf16;
  fill_costs(add);
  add.self_time_s = 1.64e-6;
  REQUIRE(add.bytes / bw("H100") < 0.1 * 1.64e-6);
  Op mm = gemm(141, 512, 512, DType::bf16, false, true);
  mm.self_time_s = 5.81e-6;
  const PassEstimate p = estimate_pass(workload({add, mm}, "H100"), "MI300X", catalog());
  REQUIRE(p.ops.size() == 2);
  const OpEstimate& ea = p.ops[0];
  const OpEstimate& eg = p.ops[1];
  INFO(ea.detail);
  INFO(eg.detail);
  // The add is all latency: unscaled, where the bandwidth ratio had made it 1.04 us.
  CHECK(ea.method == Method::bandwidth);
  CHECK(ea.predicted_s == doctest::Approx(1.64e-6));
  CHECK(ea.detail.find("1.64 us unscaled") != std::string::npos);
  // The GEMM: 1.64 us kept, the other 4.17 us x the efficiency-transfer ratio (peak
  // bandwidth on both sides, as in the test above): 4.27 us, not 5.81 x 0.632 = 3.67.
  const double f = mm.flops, b = mm.bytes;
  const double ratio = std::max(f / peak("MI300X", DType::bf16), b / bw("MI300X")) /
                       std::max(f / peak("H100", DType::bf16), b / bw("H100"));
  CHECK(eg.method == Method::scaled_table);
  CHECK(eg.predicted_s == doctest::Approx(1.64e-6 + (5.81e-6 - 1.64e-6) * ratio));
  CHECK(eg.detail.find("1.64 us of it unscaled") != std::string::npos);
  // On its own the GEMM is latency-bound too (0.2 us of roofline in 5.81 us): its own floor,
  // kept whole. The 1 ms GEMM of the test above is not (its roofline is 14% of its time):
  // carried whole by the ratio there.
  const auto alone = only(workload({mm}, "H100"), "MI300X");
  CHECK(alone.predicted_s == doctest::Approx(5.81e-6));
}

TEST_CASE("bandwidth: bytes over bandwidth, or the baseline time by the bandwidth ratio") {
  // A max pool: no platform tabulates pooling, so bandwidth decides.
  Op pool;
  pool.name = "aten::max_pool2d";
  pool.kind = OpKind::pooling;
  pool.shape = TensorShape{{{4096, 4096}}};
  fill_costs(pool);  // 64 MiB read, 64 MiB written: 186 us, past any call's floor
  const double bytes = 2 * 64.0 * 1024 * 1024;
  auto e = only(workload({pool}), "NV_V100");
  CHECK(e.method == Method::bandwidth);
  CHECK(e.predicted_s == doctest::Approx(bytes / (bw("NV_V100") * 0.8)));
  CHECK(e.launch_gap_s == 0);

  // 4 MiB each way would take 11.7 us; one call on a GPU takes no less than the per-call gap
  // the measured tables hold (NeuSight's elementwise calls: 25-41 us), host time that
  // what-if leaves to the host.
  pool.shape = TensorShape{{{1024, 1024}}};
  pool.bytes = pool.flops = 0;
  fill_costs(pool);
  CHECK(pool.bytes == 2 * 4.0 * 1024 * 1024);
  CHECK(2 * 4.0 * 1024 * 1024 / (bw("NV_V100") * 0.8) < 12e-6);
  e = only(workload({pool}), "NV_V100");
  CHECK(e.method == Method::bandwidth);
  CHECK(e.predicted_s > 25e-6);
  CHECK(e.predicted_s < 41e-6);
  CHECK(e.launch_gap_s == e.predicted_s);
  CHECK(e.detail.find("raised to") != std::string::npos);
  // Not on a CPU: no kernel launch there.
  CHECK(only(workload({pool}), "Xeon_8480p").predicted_s == doctest::Approx(pool.bytes / (bw("Xeon_8480p") * 0.8)));
  pool.self_time_s = 20e-6;
  e = only(workload({pool}, "NV_V100"), "NV_P100");
  CHECK(e.method == Method::bandwidth);
  CHECK(e.predicted_s == doctest::Approx(20e-6 * bw("NV_V100") / bw("NV_P100")));
}

TEST_CASE("a tiny elementwise op on a GPU without a table takes at least one call's gap") {
  // sigmoid's gradient over [60x10] (7.2 KB): the curves' median of the 16 nearest points,
  // most of them larger ops, had read 2.8 us on H100 (then raised to half the sources' gap),
  // while the same chip with twice the bandwidth, below the curves' smallest op, had read 34
  // us by the transfer. Read as the launch-bound call it is, it takes about the sources'
  // median gap (25-41 us over the NeuSight GPUs' hosts) on both, the faster memory no slower.
  Op grad;
  grad.name = "sigmoid.grad";
  grad.kind = OpKind::elementwise;
  grad.shape = TensorShape{{{60, 10}, {60, 10}}};
  fill_costs(grad);
  const auto e = only(workload({grad}), "H100");
  CHECK(e.method == Method::scaled_table);
  CHECK(e.predicted_s > 20e-6);
  CHECK(e.predicted_s < 41e-6);
  CHECK_MESSAGE(e.detail.find("against the sources' median gap") != std::string::npos, e.detail);
  Catalog c = catalog();
  Platform fast = *c.platform("H100");
  fast.name = "H100_2x_bandwidth";
  fast.device_names.clear();
  fast.mem_bw_bytes_per_s->value *= 2;
  c.platforms[fast.name] = fast;
  const PassEstimate f = estimate_pass(workload({grad}), fast.name, c);
  REQUIRE(f.ops.size() == 1);
  CHECK(f.ops[0].method == Method::scaled_table);
  CHECK(f.ops[0].predicted_s <= e.predicted_s * (1 + 1e-9));
  CHECK(f.ops[0].predicted_s == doctest::Approx(e.predicted_s).epsilon(0.05));  // launch-bound: the same call
}

TEST_CASE("bandwidth on a device with no published bandwidth: the most its own GEMMs moved") {
  // iPhone7 publishes no bandwidth. python3 over results_gemm.csv: the most bytes per second
  // any iPhone7 GEMM moved is the int8 GEMV 3072 x 1 x 1024 in 3709.87 us:
  // (3072*1024 + 1024*1 + 3072*1) bytes / 3709.87 us = 0.849 GB/s.
  Op add;
  add.name = "aten::add";
  add.kind = OpKind::elementwise;
  add.shape = TensorShape{{{1024, 1024}, {1024, 1024}}};
  fill_costs(add);
  const auto e = only(workload({add}), "iPhone7");
  CHECK(e.method == Method::bandwidth);
  const double achieved = (3072.0 * 1024 + 1024 + 3072) / 3709.87e-6;
  CHECK(e.predicted_s == doctest::Approx(add.bytes / achieved));
  CHECK(e.uncertainty == 1.0);
  CHECK(!e.notes.empty());
}

TEST_CASE("collectives: the DeepBench all-reduce table, else the ring model") {
  Op ar;
  ar.name = "allreduce";
  ar.kind = OpKind::collective;
  ar.shape = CollectiveShape{CollectiveKind::allreduce, 400000, 2};
  fill_costs(ar);
  // results_allreduce.csv: NV_M40, 400000 B over 2 GPUs = 109.7827 us.
  auto e = only(workload({ar}), "NV_M40");
  CHECK(e.method == Method::table);
  CHECK(e.predicted_s == doctest::Approx(109.7827e-6));
  // H100 has no table: ring all-reduce moves 2 (p-1)/p of the bytes over NVLink, one
  // direction per GPU (the spec's intra-node level; collectives.hpp), 8 GPUs in a node.
  ar.shape = CollectiveShape{CollectiveKind::allreduce, 64 << 20, 8};
  e = only(workload({ar}), "H100");
  CHECK(e.method == Method::network);
  const auto& h100 = spec("H100");
  REQUIRE(h100.intra_node_bw_bytes_per_s);
  const double alpha = h100.intra_node_latency_s ? h100.intra_node_latency_s->value : 0;
  CHECK(e.predicted_s ==
        doctest::Approx(2.0 * 7 / 8 * (64 << 20) / h100.intra_node_bw_bytes_per_s->value + 2 * 7 * alpha));
}

TEST_CASE("roofline and scaled: what no table reaches") {
  // An `other` op with a known cost on V100: a roofline with V100's own median GEMM
  // efficiency (the detail names it).
  Op other;
  other.name = "custom_kernel";
  other.kind = OpKind::other;
  other.flops = 1e12;
  auto e = only(workload({other}), "NV_V100");
  CHECK(e.method == Method::roofline);
  CHECK(e.detail.find("median efficiency") != std::string::npos);
  CHECK(e.predicted_s > 1e12 / peak("NV_V100", DType::fp32));

  // An op with only a measured time is carried by its own kind's capability ratio
  // (estimate_carry_test.cpp), not by the ratio another op got.
}

TEST_CASE("measured on its own platform, and what nothing can time is not counted but said") {
  Op g = gemm(1760, 128, 1760);
  g.self_time_s = 90e-6;
  Op blank;
  blank.name = "mystery";
  blank.kind = OpKind::other;
  Workload w = workload({g, blank}, "NV_V100");
  w.pass_s = 100e-6;
  const auto p = estimate_pass(w, "NV_V100", catalog());
  CHECK(p.ops[0].method == Method::measured);
  CHECK(p.ops[0].predicted_s == 90e-6);
  CHECK(p.ops[1].method == Method::unestimated);
  CHECK(p.pass_s == doctest::Approx(100e-6));  // 90 us of ops + the 10 us overhead line
  CHECK(p.residual_s == doctest::Approx(10e-6));
  CHECK(!p.notes.empty());
  // Usage errors: no file is at fault ("platform: platform: platform 'A' ..." had read as one).
  CHECK_THROWS_AS(estimate_pass(w, "NoSuchPlatform", catalog()), UsageError);
  // The worked example's machine A has no figures at all: an error that says so.
  try {
    estimate_pass(w, "A", catalog());
    FAIL("no error for A");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("platform 'A' has no figures to estimate with") == 0);
  }
}

TEST_CASE("every shipped platform can estimate a CANDLE-like workload") {
  // P1B1's first dense layer (60483 -> 2000, batch 100; data/candle/workloads.json), its
  // backward GEMMs, a ReLU and an Adam update: something on every platform, mobile ones
  // included (they time the GEMMs with their int8 tables and say how little that is worth).
  Op relu;
  relu.name = "relu";
  relu.kind = OpKind::elementwise;
  relu.shape = TensorShape{{{100, 2000}}};
  Op adam;
  adam.name = "adam";
  adam.kind = OpKind::optimizer;
  adam.phase = Phase::optimizer;
  adam.shape = TensorShape{{{2000, 60483}, {2000, 60483}, {2000, 60483}, {2000, 60483}}};
  Workload w = workload({gemm(100, 2000, 60483), gemm(100, 60483, 2000), gemm(60483, 2000, 100), relu, adam});
  w.ops[1].phase = w.ops[2].phase = Phase::backward;
  for (auto& op : w.ops) fill_costs(op);
  w.batch_size = 100, w.samples_per_epoch = 2700, w.epochs = 100;
  for (const auto& entry : catalog().platforms) {
    const auto& name = entry.first;
    if (name == "A") continue;  // the worked example's machine: hours only, no figures
    const auto r = estimate_run(w, name, catalog());
    CHECK_MESSAGE(r.run_s > 0, name);
    CHECK_MESSAGE(r.pass.pass_s > 0, name);
    for (const auto& e : r.pass.ops)
      if (e.op_index < 3) CHECK_MESSAGE(e.method != Method::unestimated, name);
  }
}

TEST_CASE("every kind of op on every platform: a method or a said reason, never a crash") {
  std::vector<Op> ops;
  auto add = [&](OpKind kind, OpShape shape, DType d = DType::fp32, Phase phase = Phase::forward) {
    Op op;
    op.name = std::string(to_string(kind));
    op.kind = kind;
    op.shape = std::move(shape);
    op.dtype = d;
    op.phase = phase;
    fill_costs(op);
    ops.push_back(op);
  };
  ConvShape conv1d;  // NT3's second layer: Conv1D(128, 10) over 60,474 positions, batch 20
  conv1d.dims = 1, conv1d.n = 20, conv1d.c = 128, conv1d.k = 128, conv1d.input = {1, 1, 60474},
  conv1d.filter = {1, 1, 10};
  ConvShape grouped = v100_readme_conv();
  grouped.groups = 64, grouped.c = 64, grouped.k = 64;
  add(OpKind::conv, conv1d, DType::fp32, Phase::backward);
  add(OpKind::conv, grouped, DType::fp16);
  add(OpKind::rnn, RnnShape{RnnCell::lstm, 64, 99, 100, 20}, DType::fp32, Phase::backward);
  add(OpKind::batched_gemm, GemmShape{141, 141, 64, 8}, DType::bf16);
  add(OpKind::gemm, GemmShape{512, 512, 512}, DType::fp64);
  add(OpKind::gemm, GemmShape{512, 512, 512}, DType::int8);
  add(OpKind::gemm, GemmShape{512, 512, 512}, DType::fp8);
  add(OpKind::embedding, EmbeddingShape{4654, 300, 15000});
  add(OpKind::collective, CollectiveShape{CollectiveKind::allgather, 1 << 24, 0});
  add(OpKind::memcpy, TensorShape{{{1 << 20}}});
  add(OpKind::pooling, TensorShape{{{20, 128, 6047}}});
  add(OpKind::other, std::monostate{});
  const Workload w = workload(ops);
  Workload without_fp64 = w;
  std::erase_if(without_fp64.ops, [](const Op& op) { return op.dtype == DType::fp64; });
  for (const auto& entry : catalog().platforms) {
    const auto& name = entry.first;
    if (name == "A") continue;  // no figures at all: an error, tested above
    PassEstimate pe;
    // A matrix op whose type the spec gives no rate for is refused, never counted as 0 s:
    // the consumer parts state no fp64 peak.
    bool refused = false;
    try {
      pe = estimate_pass(w, name, catalog());
    } catch (const UsageError& e) {
      refused = true;
      CHECK_MESSAGE(std::string(e.what()).find("states no rate for fp64 math") != std::string::npos, e.what());
      CHECK_MESSAGE(!catalog().platform(name)->peak_flop_per_s.contains(DType::fp64), name);
    }
    if (refused) CHECK_NOTHROW(pe = estimate_pass(without_fp64, name, catalog()));
    for (const auto& e : pe.ops) {
      CHECK_MESSAGE(std::isfinite(e.predicted_s), name);
      CHECK_MESSAGE(e.predicted_s >= 0, name);
      if (e.method == Method::unestimated)
        CHECK_MESSAGE(!e.detail.empty(), name);
      else
        CHECK_MESSAGE(e.predicted_s > 0, name << " op " << e.op_index << " " << to_string(e.method));
    }
  }
}
