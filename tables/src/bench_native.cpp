// The native kernel-table CSV: one row per timed kernel, for results of any tool.
//
//   kind,m,n,k,w,h,c,r,s,pad_w,pad_h,wstride,hstride,direction,dtype,time_us
//   gemm,1760,128,1760,,,,,,,,,,,fp32,88
//   conv,,8,128,112,112,64,3,3,1,1,1,1,forward,fp32,624
//
// Required: kind, dtype, time_us, and the shape fields of the kind (DeepBench's names):
//   gemm / batched_gemm: m, n, k [a_t, b_t, batch]
//   conv: w, h, c, n, k, s (filter width), r (filter height) [pad_w, pad_h, wstride,
//         hstride, dilation_w, dilation_h, groups, direction=forward|backward_data|backward_filter]
//   rnn: cell, hidden, batch, timesteps [input, direction=forward|backward]
//   allreduce, allgather, reduce_scatter, broadcast, ...: bytes, ranks
// Optional everywhere: platform, precision (a dtype's name or a DeepBench label; default: the
// dtype's name), mode (default train), spread (relative), note.
#include <set>
#include <string>

#include "bench_rows.hpp"
#include "fomcast/error.hpp"

namespace fomcast::detail {
namespace {

int64_t optional_or(const CsvTable& t, std::size_t r, const char* column, int64_t minimum, int64_t fallback) {
  return t.optional_integer(r, column, minimum).value_or(fallback);
}

OpShape conv_shape(const CsvTable& t, std::size_t r) {
  ConvShape s = read_conv_shape(t, r);
  const std::string& dir = t.text(r, "direction");
  if (!dir.empty()) {
    auto d = parse_conv_direction(dir);
    if (!d) t.fail(r, "direction", "expected forward, backward_data or backward_filter, got '" + dir + "'");
    s.direction = *d;
  }
  return s;
}

OpShape rnn_shape(const CsvTable& t, std::size_t r) {
  RnnShape s;
  s.cell = read_rnn_cell(t, r);
  s.hidden = t.integer(r, "hidden", 1);
  s.input = optional_or(t, r, "input", 1, s.hidden);
  s.batch = t.integer(r, "batch", 1);
  s.timesteps = t.integer(r, "timesteps", 1);
  const std::string& dir = t.text(r, "direction");
  if (!dir.empty() && dir != "forward" && dir != "backward")
    t.fail(r, "direction", "expected forward or backward, got '" + dir + "'");
  s.backward = dir == "backward";
  return s;
}

}  // namespace

RnnCell read_rnn_cell(const CsvTable& t, std::size_t r) {
  auto cell = parse_rnn_cell(t.text(r, "cell"));
  if (!cell) t.fail(r, "cell", "expected vanilla, lstm or gru, got '" + t.text(r, "cell") + "'");
  return *cell;
}

BenchRows read_native_rows(const CsvTable& t, std::string_view default_platform) {
  t.require({"kind", "dtype", "time_us"});
  // A column this format does not know is a mistake to name: a misspelt `padding_w` or
  // `transA` was ignored and every row took the default (no padding, no transpose).
  static const std::set<std::string, std::less<>> kColumns = {
      "kind",  "m",       "n",         "k",     "a_t",        "b_t",        "batch",   "w",      "h",
      "c",     "r",       "s",         "pad_w", "pad_h",      "wstride",    "hstride", "groups", "direction",
      "cell",  "hidden",  "timesteps", "input", "dilation_w", "dilation_h", "bytes",   "ranks",  "platform",
      "dtype", "time_us", "precision", "mode",  "spread",     "note"};
  for (const std::string& column : t.column_names())
    if (!kColumns.count(column)) {
      std::string known;
      for (const auto& k : kColumns) known += (known.empty() ? "" : ", ") + k;
      throw InputError(t.file(), "unknown column '" + column + "' (the native format's columns: " + known + ")", 1, -1,
                       column);
    }
  if (!t.has("platform") && default_platform.empty())
    throw InputError(t.file(), "no platform column: name the platform with --platform", 1, -1, "platform");
  BenchRows out;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    std::string platform = t.text(r, "platform");
    if (platform.empty()) platform = std::string(default_platform);
    if (platform.empty()) t.fail(r, "platform", "missing value (or give --platform)");

    KernelEntry e;
    const std::string& kind = t.text(r, "kind");
    if (kind == "gemm" || kind == "batched_gemm") {
      e.kind = kind == "gemm" ? OpKind::gemm : OpKind::batched_gemm;
      e.shape = read_gemm_shape(t, r);
    } else if (kind == "conv") {
      e.kind = OpKind::conv;
      e.shape = conv_shape(t, r);
    } else if (kind == "rnn") {
      e.kind = OpKind::rnn;
      e.shape = rnn_shape(t, r);
    } else if (auto collective = parse_collective_kind(kind)) {
      e.kind = OpKind::collective;
      e.shape = CollectiveShape{*collective, t.integer(r, "bytes", 1), t.integer(r, "ranks", 1)};
    } else {
      t.fail(r, "kind", "expected gemm, batched_gemm, conv, rnn or a collective (allreduce, ...), got '" + kind + "'");
    }

    const std::string& dtype = t.text(r, "dtype");
    auto d = parse_dtype(dtype);
    if (!d || *d == DType::unknown) t.fail(r, "dtype", "unknown element type '" + dtype + "'");
    e.dtype = *d;
    // A DeepBench precision label given as the dtype stays the label (fp16_mixed says
    // tensor cores, fp16_io_fp32_math says fp32 math).
    const auto label = parse_kernel_precision(dtype);
    if (!t.empty(r, "precision")) {
      const std::string& precision = t.text(r, "precision");
      const auto known = parse_kernel_precision(precision);
      if (!known) t.fail(r, "precision", "unknown precision '" + precision + "' (" + kernel_precision_names() + ")");
      e.precision = *known;
    } else if (label == KernelPrecision::fp16_mixed || label == KernelPrecision::fp16_io_fp32_math) {
      e.precision = *label;
    } else {
      e.precision = *precision_of(*d);
    }
    const std::string mode = t.empty(r, "mode") ? "train" : t.text(r, "mode");
    const auto known_mode = parse_kernel_mode(mode);
    if (!known_mode) t.fail(r, "mode", "expected train or inference, got '" + mode + "'");
    e.mode = *known_mode;
    e.time_us = t.positive(r, "time_us");
    e.spread = t.optional_positive(r, "spread", true).value_or(0);
    e.method = "imported";
    if (!t.empty(r, "note")) e.method += " (" + t.text(r, "note") + ")";
    e.provenance = t.file() + " line " + std::to_string(t.line(r));
    check_plausible(t, r, "time_us", e);
    out.rows.push_back({platform, std::move(e)});
  }
  return out;
}

}  // namespace fomcast::detail

namespace fomcast {

GemmShape read_gemm_shape(const CsvTable& t, std::size_t r) {
  GemmShape g;
  g.m = t.integer(r, "m", 1);
  g.n = t.integer(r, "n", 1);
  g.k = t.integer(r, "k", 1);
  g.batch = t.optional_integer(r, "batch", 1).value_or(1);
  for (const auto& [column, member] : {std::pair{"a_t", &GemmShape::trans_a}, std::pair{"b_t", &GemmShape::trans_b}}) {
    const int64_t v = t.optional_integer(r, column, 0).value_or(0);
    if (v > 1) t.fail(r, column, "expected 0 or 1");
    g.*member = v == 1;
  }
  return g;
}

ConvShape read_conv_shape(const CsvTable& t, std::size_t r) {
  auto optional_or = [&](const char* column, int64_t minimum, int64_t fallback) {
    return t.optional_integer(r, column, minimum).value_or(fallback);
  };
  ConvShape s;
  s.dims = 2;
  s.input = {1, t.integer(r, "h", 1), t.integer(r, "w", 1)};
  s.c = t.integer(r, "c", 1);
  s.n = t.integer(r, "n", 1);
  s.k = t.integer(r, "k", 1);
  s.filter = {1, t.integer(r, "r", 1), t.integer(r, "s", 1)};
  s.pad = {0, optional_or("pad_h", 0, 0), optional_or("pad_w", 0, 0)};
  s.stride = {1, optional_or("hstride", 1, 1), optional_or("wstride", 1, 1)};
  s.dilation = {1, optional_or("dilation_h", 1, 1), optional_or("dilation_w", 1, 1)};
  s.groups = optional_or("groups", 1, 1);
  if (s.c % s.groups || s.k % s.groups) t.fail(r, "groups", "must divide both c and k");
  const auto o = s.output();
  if (o[1] < 1 || o[2] < 1) t.fail(r, "w", "the filter does not fit the padded input");
  return s;
}

}  // namespace fomcast
