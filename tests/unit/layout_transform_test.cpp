// cuDNN's NCHW<->NHWC transforms around tensor-core convs (estimator/src/layout_transform.hpp):
// charged to a conv whose math is tf32 or half on a channels-first workload, nothing else.
#include <doctest/doctest.h>

#include <string>

#include "fomcast/estimate.hpp"
#include "fomcast/store.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ScratchDir;

namespace {

// One 3x3 conv over [64, 256, 56, 56] to 256 channels (ResNet-50's stage-1 shape, batch 64).
Op conv_op() {
  Op op;
  op.name = "conv2d";
  op.kind = OpKind::conv;
  ConvShape c;
  c.n = 64, c.c = 256, c.k = 256;
  c.input = {56, 56, 1};
  c.filter = {3, 3, 1};
  c.pad = {1, 1, 0};
  op.shape = c;
  op.dtype = DType::fp32;
  op.phase = Phase::forward;
  fill_costs(op);
  return op;
}

Workload one(Op op, const std::string& memory_format) {
  Workload w;
  w.name = "one";
  w.origin = "model";
  w.memory_format = memory_format;
  w.ops = {std::move(op)};
  return w;
}

double pass(const Catalog& c, const Workload& w, PrecisionMode m) { return estimate_pass(w, "H100", c, {}, m).ops_s; }

}  // namespace

TEST_CASE("layout transforms: a tensor-core conv on NCHW pays its activations' transposes, nothing else does") {
  ScratchDir dir;
  const Catalog c = load_catalog(test::open_seeded(dir.file("l.db")));
  const Workload first = one(conv_op(), "channels_first"), last = one(conv_op(), "channels_last"),
                 unknown = one(conv_op(), "");
  // fp32 math: cuDNN's NCHW kernels, no transform.
  CHECK(pass(c, first, PrecisionMode::fp32) == doctest::Approx(pass(c, last, PrecisionMode::fp32)));
  for (const auto mode : {PrecisionMode::tf32, PrecisionMode::amp_fp16}) {
    const double extra = pass(c, first, mode) - pass(c, last, mode);
    // The same traffic as an elementwise op: x [64,256,56,56] and y (same size) each read and
    // written once, by hand 2 x 2 x 51,380,224 elements x the storage width.
    const double width = mode == PrecisionMode::tf32 ? 4 : 2;
    Op t;
    t.name = "conv2d.layout_transform";
    t.kind = OpKind::elementwise;
    t.phase = Phase::forward;
    t.dtype = mode == PrecisionMode::tf32 ? DType::fp32 : DType::fp16;
    t.shape = TensorShape{{{64, 256, 56, 56}, {64, 256, 56, 56}}};
    t.bytes = 2.0 * 2 * 51380224 * width;
    CHECK(extra == doctest::Approx(pass(c, one(t, ""), PrecisionMode::recorded)));
    // Never faster than the H100's bandwidth allows.
    CHECK(extra >= t.bytes / (c.platform("H100")->mem_bw_bytes_per_s->value * 1.0001));
    // A layout nobody stated is not charged.
    CHECK(pass(c, unknown, mode) == doctest::Approx(pass(c, last, mode)));
  }
  // The conv says so.
  const PassEstimate p = estimate_pass(first, "H100", c, {}, PrecisionMode::tf32);
  bool noted = false;
  for (const auto& n : p.ops[0].notes) noted = noted || n.find("layout transforms") != std::string::npos;
  CHECK(noted);
}
