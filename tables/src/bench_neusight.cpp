// NeuSight's kernel tables (data/neusight/README.md): PyTorch 2.1 fp32 kernel latencies,
// one file per op and GPU, the op in the OPName column. Each row becomes one kernel entry
// of the kind fomcast predicts it as: bmm -> batched_gemm, linear -> gemm (weight
// transposed, bias added in the GEMM's epilogue), conv -> forward conv, add/mul/relu/gelu
// -> elementwise, ln -> normalization (layer norm), softmax -> reduction. The platform is
// the Device column (resolve_devices maps it to a spec) unless the caller names one.
#include <cmath>

#include "bench_rows.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"

namespace fomcast::detail {
namespace {

struct Rule {
  const char* op;
  OpKind kind;
};
// What each OPName is timed as.
constexpr Rule kRules[] = {
    {"bmm", OpKind::batched_gemm}, {"linear", OpKind::gemm},      {"conv", OpKind::conv},
    {"add", OpKind::elementwise},  {"mul", OpKind::elementwise},  {"relu", OpKind::elementwise},
    {"gelu", OpKind::elementwise}, {"ln", OpKind::normalization}, {"softmax", OpKind::reduction},
};

OpShape shape_of(const CsvTable& t, std::size_t r, const std::string& op) {
  if (op == "bmm") {
    // bmm([B,M,N], [B,N,K]): N is the reduction, the output [B,M,K].
    GemmShape g;
    g.batch = t.integer(r, "B", 1);
    g.m = t.integer(r, "M", 1);
    g.k = t.integer(r, "N", 1);
    g.n = t.integer(r, "K", 1);
    return g;
  }
  if (op == "linear") {
    // Linear(N, K) on [B,M,N]: (B*M) x N times the transposed [K,N] weight.
    GemmShape g;
    g.m = t.integer(r, "B", 1) * t.integer(r, "M", 1);
    g.k = t.integer(r, "N", 1);
    g.n = t.integer(r, "K", 1);
    g.trans_b = true;
    return g;
  }
  if (op == "conv") {
    ConvShape c;
    c.dims = 2;
    c.n = t.integer(r, "B", 1);
    c.c = t.integer(r, "Input_Channel", 1);
    c.k = t.integer(r, "Output_Channel", 1);
    const int64_t f = t.integer(r, "Kernel_Szie", 1), s = t.integer(r, "Input_Size", 1);
    const int64_t stride = t.integer(r, "Stride", 1), pad = t.integer(r, "Padding", 0);
    c.input = {1, s, s};
    c.filter = {1, f, f};
    c.stride = {1, stride, stride};
    c.pad = {0, pad, pad};
    if (s + 2 * pad < f) t.fail(r, "Kernel_Szie", "filter larger than the padded input");
    return c;
  }
  const int64_t b = t.integer(r, "B", 1), h = t.integer(r, "H", 1);
  TensorShape ts;
  ts.inputs.push_back({b, h});
  if (op == "add" || op == "mul") ts.inputs.push_back({b, h});
  if (op == "ln") ts.inputs.push_back({h}), ts.inputs.push_back({h});  // weight and bias
  return ts;
}

}  // namespace

BenchRows read_neusight_rows(const CsvTable& t, std::string_view platform) {
  t.require({"OPName", "Latency", "Device"});
  BenchRows out;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const std::string& op = t.text(r, "OPName");
    const Rule* rule = nullptr;
    for (const auto& k : kRules)
      if (op == k.op) rule = &k;
    if (!rule) t.fail(r, "OPName", "expected bmm, linear, conv, add, mul, relu, gelu, ln or softmax, got '" + op + "'");
    const std::string& device = t.text(r, "Device");
    if (device.empty() && platform.empty()) t.fail(r, "Device", "missing value (or give --platform)");
    BenchRow row;
    row.platform = platform.empty() ? device : std::string(platform);
    KernelEntry& e = row.entry;
    e.kind = rule->kind;
    e.shape = shape_of(t, r, op);
    e.dtype = DType::fp32;
    e.precision = KernelPrecision::fp32;
    e.mode = KernelMode::train;
    const double latency_ms = t.positive(r, "Latency");  // milliseconds in the file
    e.time_us = latency_ms * 1e3;
    // 1e308 ms is no number of microseconds: say it in the file's unit, not as "inf us".
    if (!std::isfinite(e.time_us))
      t.fail(r, "Latency", "a kernel of " + format_significant(latency_ms) + " ms is beyond any measurement");
    // CUDA events around one call, the mean of the fastest runs (README): a tiny op's time
    // holds its launch gap.
    e.method = "neusight " + op + " (PyTorch " + t.text(r, "Torch Version") + ")";
    e.provenance = t.file() + " line " + std::to_string(t.line(r));
    check_plausible(t, r, "Latency", e);
    if (!out.described.count(row.platform)) {
      Platform p;
      p.name = row.platform;
      p.vendor = "NVIDIA";
      p.device_kind = "gpu";
      p.description = device;
      out.described.emplace(row.platform, std::move(p));
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace fomcast::detail
