// cuDNN's NCHW<->NHWC transforms around tensor-core convs (estimator/src/layout_transform.hpp):
// charged to a conv whose math is tf32 or half on a channels-first workload, nothing else.
#include <doctest/doctest.h>

#include <string>
#include <vector>

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
  c.input = {1, 56, 56};  // {depth, height, width}: a 2-D conv's depth is 1, as every reader writes it
  c.filter = {1, 3, 3};
  c.pad = {0, 1, 1};
  op.shape = c;
  op.dtype = DType::fp32;
  op.phase = Phase::forward;
  fill_costs(op);
  return op;
}

Workload one(Op op, const std::string& memory_format) { return test::one_op_model(std::move(op), memory_format); }

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
    // The same traffic as a device-to-device copy: a forward conv transposes x [64,256,56,56]
    // and its filter [256,256,3,3], each read and written once: by hand 51,380,224 + 589,824
    // elements x the storage width copied. Its output is written NCHW by the conv kernel itself.
    const double width = mode == PrecisionMode::tf32 ? 4 : 2;
    Op t;
    t.name = "conv2d.layout_transform (DtoD)";
    t.kind = OpKind::memcpy;
    t.phase = Phase::forward;
    t.dtype = mode == PrecisionMode::tf32 ? DType::fp32 : DType::fp16;
    t.shape = TensorShape{{{64, 256, 56, 56}, {256, 256, 3, 3}}};
    t.bytes = (51380224.0 + 589824.0) * width;
    CHECK(extra == doctest::Approx(pass(c, one(t, ""), PrecisionMode::recorded)));
    // Never faster than the H100's bandwidth allows for reading and writing them.
    CHECK(extra >= 2 * t.bytes / (c.platform("H100")->mem_bw_bytes_per_s->value * 1.0001));
    // A layout nobody stated is not charged.
    CHECK(pass(c, unknown, mode) == doctest::Approx(pass(c, last, mode)));
  }
  // The conv says so.
  const PassEstimate p = estimate_pass(first, "H100", c, {}, PrecisionMode::tf32);
  bool noted = false;
  for (const auto& n : p.ops[0].notes) noted = noted || n.find("layout transforms") != std::string::npos;
  CHECK(noted);
}

TEST_CASE(
    "layout transforms: each direction transposes its own inputs (forward x, data gradient dy, filter gradient both)") {
  ScratchDir dir;
  const Catalog c = load_catalog(test::open_seeded(dir.file("l.db")));
  // A 1x1 expansion, [64, 64, 56, 56] to 256 channels: dy is four times x, so the directions differ.
  Op base = conv_op();
  auto& shape = std::get<ConvShape>(base.shape);
  shape.c = 64;
  shape.filter = {1, 1, 1};
  shape.pad = {0, 0, 0};
  const double x = 64.0 * 64 * 56 * 56, dy = 64.0 * 256 * 56 * 56, filter = 256.0 * 64;
  const std::vector<int64_t> x_dims{64, 64, 56, 56}, dy_dims{64, 256, 56, 56}, filter_dims{256, 64, 1, 1};
  struct Case {
    ConvDirection direction;
    double elements;
    std::vector<std::vector<int64_t>> tensors;
  };
  for (const Case& k : {Case{ConvDirection::forward, x + filter, {x_dims, filter_dims}},
                        Case{ConvDirection::backward_data, dy + filter, {dy_dims, filter_dims}},
                        Case{ConvDirection::backward_filter, x + dy, {x_dims, dy_dims}}}) {
    CAPTURE(to_string(k.direction));
    Op op = base;
    std::get<ConvShape>(op.shape).direction = k.direction;
    op.flops = 0, op.bytes = 0;
    fill_costs(op);
    const double extra = pass(c, one(op, "channels_first"), PrecisionMode::amp_fp16) -
                         pass(c, one(op, "channels_last"), PrecisionMode::amp_fp16);
    Op t;
    t.name = "conv2d.layout_transform (DtoD)";
    t.kind = OpKind::memcpy;
    t.phase = Phase::forward;
    t.dtype = DType::fp16;
    t.shape = TensorShape{k.tensors};
    t.bytes = k.elements * 2;  // copied once, 2 bytes each
    CHECK(extra == doctest::Approx(pass(c, one(t, ""), PrecisionMode::recorded)));
    CHECK(extra >= 2 * t.bytes / (c.platform("H100")->mem_bw_bytes_per_s->value * 1.0001));
  }
}
