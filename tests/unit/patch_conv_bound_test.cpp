// A conv whose windows tile its input (filter = stride, no padding, no dilation: a ViT's
// 16x16 stride-16 patch embedding) is a GEMM over the patches plus a permute of its two
// activation tensors, and is never predicted slower than that pair (predict.cpp,
// bound_by_patch_gemm). No conv table holds a 16x16 filter: ViT-B/16's patch conv at batch
// 64 came out at 3.5 ms on an A100 SXM4, 25x its 14.8 GFLOP GEMM.
#include <doctest/doctest.h>

#include <string>

#include "fomcast/estimate.hpp"
#include "shipped_catalog.hpp"
#include "workload_queries.hpp"

using namespace fomcast;
using fomcast::test::catalog;
using fomcast::test::has_note;

namespace {

Op patch_conv(ConvDirection direction, int64_t filter, DType dtype) {
  Op op;
  op.name = "aten::convolution";
  op.kind = OpKind::conv;
  op.dtype = dtype;
  op.phase = direction == ConvDirection::forward ? Phase::forward : Phase::backward;
  ConvShape c;
  c.n = 64, c.c = 3, c.k = 768;
  c.input = {1, 224, 224};
  c.filter = {1, filter, filter};
  c.stride = {1, filter, filter};
  c.direction = direction;
  op.shape = c;
  fill_costs(op);
  return op;
}

Op gemm(int64_t m, int64_t n, int64_t k, bool ta, bool tb, DType dtype) {
  Op op;
  op.name = "aten::mm";
  op.kind = OpKind::gemm;
  op.dtype = dtype;
  op.shape = GemmShape{m, n, k, 1, ta, tb};
  fill_costs(op);
  return op;
}

// Timed as the layout transforms are: a device-to-device copy of both tensors.
Op permute(DType storage) {
  Op op;
  op.name = "patches (DtoD)";
  op.kind = OpKind::memcpy;
  op.dtype = storage;
  op.shape = TensorShape{{{64, 3, 224, 224}, {64, 768, 14, 14}}};
  // What is copied: x is 64 x 3 x 224^2 = 9,633,792 elements, y is 64 x 768 x 14^2 =
  // 9,633,792 too.
  op.bytes = (9633792.0 + 9633792.0) * dtype_bytes(storage);
  return op;
}

}  // namespace

TEST_CASE("a ViT's 16x16 stride-16 patch conv is no slower than the GEMM it is and the permute into patches") {
  for (const DType dtype : {DType::fp32, DType::tf32, DType::fp16}) {
    CAPTURE(to_string(dtype));
    // By hand: 64 x 14 x 14 = 12,544 patches of 3 x 16 x 16 = 768 values, 768 filters.
    Workload w;
    w.name = "vit-patch";
    w.ops = {patch_conv(ConvDirection::forward, 16, dtype),
             patch_conv(ConvDirection::backward_data, 16, dtype),
             patch_conv(ConvDirection::backward_filter, 16, dtype),
             gemm(12544, 768, 768, false, true, dtype),
             gemm(12544, 768, 768, false, false, dtype),
             gemm(768, 768, 12544, true, false, dtype),
             permute(dtype == DType::tf32 ? DType::fp32 : dtype)};
    const PassEstimate pe = estimate_pass(w, "A100_SXM4_80GB", catalog());
    REQUIRE(pe.ops.size() == 7);
    const double permute_s = pe.ops[6].predicted_s;
    // A copy reads and writes its bytes at the A100 SXM4 80 GB's 2,039 GB/s, taken at 0.8
    // of peak (the elementwise tables' transfer had put 77 MB at about 0.73 TB/s).
    const double moved_bytes = 2 * 2 * 9633792.0 * dtype_bytes(dtype == DType::tf32 ? DType::fp32 : dtype);
    INFO(pe.ops[6].detail);
    CHECK(permute_s == doctest::Approx(moved_bytes / (0.8 * 2039e9)).epsilon(0.01));
    for (std::size_t i = 0; i < 3; ++i) {
      CAPTURE(i);
      INFO(pe.ops[i].detail);
      // Never above its GEMM and permute (each the chain's own time for that op).
      CHECK(pe.ops[i].predicted_s <= (pe.ops[3 + i].predicted_s + permute_s) * (1 + 1e-9));
      // Never faster than the A100's limits for its flops.
      CHECK(pe.ops[i].predicted_s >= 2.0 * 12544 * 768 * 768 / 312e12);
    }
    // The forward conv is where the extrapolation was furthest off: the bound binds and says so.
    CHECK(has_note(pe.ops[0].notes, "the GEMM this conv is"));
    CHECK(pe.ops[0].predicted_s == doctest::Approx(pe.ops[3].predicted_s + permute_s).epsilon(1e-9));
  }
}

TEST_CASE("overlapping or padded windows are not a GEMM over patches: no bound") {
  Workload w;
  w.name = "not-patch";
  Op overlapping = patch_conv(ConvDirection::forward, 16, DType::fp32);
  std::get<ConvShape>(overlapping.shape).stride = {1, 8, 8};
  fill_costs(overlapping);
  Op padded = patch_conv(ConvDirection::forward, 16, DType::fp32);
  std::get<ConvShape>(padded.shape).pad = {0, 1, 1};
  fill_costs(padded);
  w.ops = {overlapping, padded};
  const PassEstimate pe = estimate_pass(w, "A100_SXM4_80GB", catalog());
  REQUIRE(pe.ops.size() == 2);
  for (const auto& e : pe.ops) CHECK_FALSE(has_note(e.notes, "the GEMM this conv is"));
}
