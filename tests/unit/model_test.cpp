// Cost formulas, shape keys, dtype spellings and the top-95% ranking.
#include <doctest/doctest.h>

#include "fomcast/model.hpp"

using namespace fomcast;

TEST_CASE("GEMM FLOPs and bytes") {
  // DeepBench's first V100 row: 1760x128x1760 in 88 us is 9.0112 TFLOP/s.
  const GemmShape g{1760, 128, 1760};
  CHECK(op_flops(OpKind::gemm, g) / 88e-6 / 1e12 == doctest::Approx(9.0112).epsilon(1e-4));
  CHECK(op_bytes(OpKind::gemm, g, DType::fp32) == doctest::Approx(4.0 * (1760 * 1760 + 1760 * 128 + 1760 * 128)));
  CHECK(op_flops(OpKind::batched_gemm, GemmShape{64, 64, 64, 8}) == doctest::Approx(8 * 2.0 * 64 * 64 * 64));
}

TEST_CASE("convolution output size and FLOPs match DeepBench's fwd_gflop") {
  // results_conv.csv: w=112 h=112 c=64 n=8 k=128 s=3 r=3 pad 1,1 stride 1,1.
  ConvShape c;
  c.n = 8;
  c.c = 64;
  c.k = 128;
  c.input = {1, 112, 112};
  c.filter = {1, 3, 3};
  c.pad = {0, 1, 1};
  CHECK(c.output() == std::array<int64_t, 3>{1, 112, 112});
  CHECK(op_flops(OpKind::conv, c) == doctest::Approx(2.0 * 8 * 128 * 64 * 9 * 112 * 112));
  // DeepSpeech layer: w=700 h=161 c=1 n=4 k=32 s=20 r=5 stride 2 -> 341 x 79, 0.689638 GFLOP.
  ConvShape d;
  d.n = 4;
  d.c = 1;
  d.k = 32;
  d.input = {1, 161, 700};
  d.filter = {1, 5, 20};
  d.stride = {1, 2, 2};
  CHECK(d.output() == std::array<int64_t, 3>{1, 79, 341});
  CHECK(op_flops(OpKind::conv, d) / 1e9 == doctest::Approx(0.689638).epsilon(1e-5));
  // Grouped and dilated.
  ConvShape g = c;
  g.groups = 64;
  g.k = 64;
  g.dilation = {1, 2, 2};
  g.pad = {0, 2, 2};
  CHECK(g.output() == std::array<int64_t, 3>{1, 112, 112});
  CHECK(op_flops(OpKind::conv, g) == doctest::Approx(2.0 * 8 * 64 * 1 * 9 * 112 * 112));
}

TEST_CASE("LSTM FLOPs: 4 gates x hidden x (input + hidden) x batch x 2 per step") {
  const RnnShape r{RnnCell::lstm, 512, 512, 16, 25};
  CHECK(op_flops(OpKind::rnn, r) == doctest::Approx(2.0 * 4 * 512 * 1024 * 16 * 25));
}

TEST_CASE("memory-bound ops count bytes from their tensors") {
  const TensorShape t{{{100, 2000}, {2000}}};
  CHECK(t.elements() == 200000);
  CHECK(op_bytes(OpKind::elementwise, t, DType::fp32) == doctest::Approx(4.0 * (200000 + 2000 + 200000)));
  CHECK(op_bytes(OpKind::reduction, t, DType::fp16) == doctest::Approx(2.0 * (200000 + 2000)));
  CHECK(op_bytes(OpKind::collective, CollectiveShape{CollectiveKind::allreduce, 4096, 8}, DType::fp32) == 4096);
}

TEST_CASE("dtype spellings from real traces") {
  CHECK(parse_dtype("float") == DType::fp32);
  CHECK(parse_dtype("c10::BFloat16") == DType::bf16);
  CHECK(parse_dtype("c10::Half") == DType::fp16);
  CHECK(parse_dtype("long int") == DType::int64);
  CHECK(parse_dtype("DT_FLOAT") == DType::fp32);
  CHECK(parse_dtype("fp16_mixed") == DType::fp16);
  CHECK(!parse_dtype("Scalar"));
  CHECK(dtype_bytes(DType::bf16) == 2);
}

TEST_CASE("shape keys tell shapes apart and describe() reads well") {
  CHECK(shape_key(GemmShape{1, 2, 3}) != shape_key(GemmShape{1, 2, 3, 1, true, false}));
  CHECK(describe(GemmShape{1760, 16, 1760}) == "M=1760 N=16 K=1760");
  CHECK(describe(GemmShape{64, 64, 64, 8, false, true}) == "M=64 N=64 K=64 B=8 NT");
  CHECK(describe(std::monostate{}).empty());
}

TEST_CASE("rank_ops marks the smallest set covering 95% of the time") {
  Workload w;
  auto add = [&](const char* name, double count, std::optional<double> t) {
    Op op;
    op.name = name;
    op.count = count;
    op.self_time_s = t;
    w.ops.push_back(op);
  };
  add("small", 1, 0.02);
  add("big", 2, 0.4);      // 0.8
  add("mid", 1, 0.15);     // 0.15
  add("tiny", 10, 0.003);  // 0.03
  add("untimed", 1, std::nullopt);
  const auto r = rank_ops(w);
  REQUIRE(r.size() == 5);
  CHECK(w.ops[r[0].index].name == "big");
  CHECK(r[0].share == doctest::Approx(0.8));
  CHECK(w.ops[r[1].index].name == "mid");
  CHECK(r[1].cumulative_share == doctest::Approx(0.95));
  CHECK(r[0].in_top);
  CHECK(r[1].in_top);
  CHECK(!r[2].in_top);
  CHECK(w.ops[r[4].index].name == "untimed");
  CHECK(!r[4].in_top);
}
