// DeepBench result CSVs (data/deepbench/README.md documents every column) -> kernel
// entries. A training conv row is three kernels (forward, backward-data, backward-filter),
// an RNN row two (forward, backward); every entry keeps the workbook, sheet and row it
// came from.
#include <algorithm>

#include "bench_rows.hpp"
#include "fomcast/error.hpp"

namespace fomcast::detail {
namespace {

// The precisions DeepBench publishes results for.
constexpr KernelPrecision kPrecisions[] = {KernelPrecision::fp32, KernelPrecision::fp16_mixed,
                                           KernelPrecision::fp16_io_fp32_math, KernelPrecision::int8};

struct Common {
  std::string platform, provenance, method;
  KernelMode mode = KernelMode::train;
  KernelPrecision precision = KernelPrecision::fp32;
};

Common common(const CsvTable& t, std::size_t row, BenchRows& out) {
  Common c;
  c.platform = t.text(row, "platform");
  if (c.platform.empty()) t.fail(row, "platform", "missing value");
  const std::string& mode = t.text(row, "mode");
  const auto known_mode = parse_kernel_mode(mode);
  if (!known_mode) t.fail(row, "mode", "expected train or inference, got '" + mode + "'");
  c.mode = *known_mode;
  const std::string& precision = t.text(row, "precision");
  const auto known_precision = parse_kernel_precision(precision);
  if (!known_precision ||
      std::find(std::begin(kPrecisions), std::end(kPrecisions), *known_precision) == std::end(kPrecisions))
    t.fail(row, "precision", "expected fp32, fp16_mixed, fp16_io_fp32_math or int8, got '" + precision + "'");
  c.precision = *known_precision;
  c.provenance = t.file() + " line " + std::to_string(t.line(row));
  if (!t.empty(row, "source_file")) {
    c.provenance += "; " + t.text(row, "source_file");
    if (!t.empty(row, "sheet")) c.provenance += " sheet '" + t.text(row, "sheet") + "'";
    if (!t.empty(row, "sheet_row")) c.provenance += " row " + t.text(row, "sheet_row");
  }
  c.method = "DeepBench published result (" + mode +
             (t.empty(row, "deployment") ? "" : " " + t.text(row, "deployment")) + ", " + precision + ")";
  if (!out.described.count(c.platform)) {
    Platform p;
    p.name = c.platform;
    p.vendor = t.text(row, "vendor");
    p.device_kind = t.text(row, "device_kind");
    p.description = t.text(row, "device");
    out.described.emplace(c.platform, std::move(p));
  }
  return c;
}

KernelEntry entry(const Common& c, OpKind kind, OpShape shape, double time_us) {
  KernelEntry e;
  e.kind = kind;
  e.shape = std::move(shape);
  e.dtype = precision_dtype(c.precision);
  e.precision = c.precision;
  e.mode = c.mode;
  e.time_us = time_us;
  e.method = c.method;
  e.provenance = c.provenance;
  return e;
}

// One entry per timed column of a row (a conv's three passes, an RNN's two); a row with
// none of them timed is an error.
void add_timed(const CsvTable& t, std::size_t r, const Common& c, OpKind kind,
               const std::vector<std::pair<OpShape, const char*>>& columns, BenchRows& out) {
  int found = 0;
  for (const auto& [shape, column] : columns)
    if (auto time = t.optional_positive(r, column)) {
      out.rows.push_back({c.platform, entry(c, kind, shape, *time)});
      check_plausible(t, r, column, out.rows.back().entry);
      ++found;
    }
  if (!found) {
    std::string names;
    for (const auto& [shape, column] : columns) names += (names.empty() ? "" : ", ") + std::string(column);
    t.fail(r, columns.front().second, "no time in this row (" + names + ")");
  }
}

bool flag(const CsvTable& t, std::size_t row, const char* column) {
  const int64_t v = t.integer(row, column, 0);
  if (v > 1) t.fail(row, column, "expected 0 or 1");
  return v == 1;
}

void gemm_rows(const CsvTable& t, BenchRows& out) {
  t.require({"platform", "mode", "precision", "m", "n", "k", "a_t", "b_t", "time_us"});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const Common c = common(t, r, out);
    GemmShape g;
    g.m = t.integer(r, "m", 1);
    g.n = t.integer(r, "n", 1);
    g.k = t.integer(r, "k", 1);
    g.trans_a = flag(t, r, "a_t");
    g.trans_b = flag(t, r, "b_t");
    out.rows.push_back({c.platform, entry(c, OpKind::gemm, g, t.positive(r, "time_us"))});
    check_plausible(t, r, "time_us", out.rows.back().entry);
  }
}

void conv_rows(const CsvTable& t, BenchRows& out) {
  t.require({"platform", "mode", "precision", "w", "h", "c", "n", "k", "s", "r", "pad_w", "pad_h", "wstride", "hstride",
             "fwd_time_us"});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    Common c = common(t, r, out);
    const ConvShape s = read_conv_shape(t, r);
    const auto o = s.output();
    // The CSV's recomputed output size must agree with ours, or the columns are mixed up.
    for (const auto& [column, value] : {std::pair{"out_w", o[2]}, std::pair{"out_h", o[1]}})
      if (auto given = t.optional_integer(r, column, 1); given && *given != value)
        t.fail(r, column, std::to_string(*given) + " does not match the shape's output size " + std::to_string(value));
    if (!t.empty(r, "fwd_algo")) c.method += ", forward algorithm " + t.text(r, "fwd_algo");
    ConvShape data = s, filter = s;
    data.direction = ConvDirection::backward_data;
    filter.direction = ConvDirection::backward_filter;
    add_timed(t, r, c, OpKind::conv, {{s, "fwd_time_us"}, {data, "bwd_data_time_us"}, {filter, "bwd_filter_time_us"}},
              out);
  }
}

void rnn_rows(const CsvTable& t, BenchRows& out) {
  t.require({"platform", "mode", "precision", "cell", "hidden", "batch", "timesteps", "fwd_time_us"});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const Common c = common(t, r, out);
    RnnShape s;
    s.cell = read_rnn_cell(t, r);
    s.hidden = t.integer(r, "hidden", 1);
    s.input = s.hidden;  // DeepBench layers take input = hidden
    s.batch = t.integer(r, "batch", 1);
    s.timesteps = t.integer(r, "timesteps", 1);
    RnnShape backward = s;
    backward.backward = true;
    add_timed(t, r, c, OpKind::rnn, {{s, "fwd_time_us"}, {backward, "bwd_time_us"}}, out);
  }
}

void allreduce_rows(const CsvTable& t, BenchRows& out) {
  t.require({"platform", "mode", "precision", "size_bytes", "ranks", "time_us"});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    Common c = common(t, r, out);
    CollectiveShape s;
    s.op = CollectiveKind::allreduce;
    s.bytes = t.integer(r, "size_bytes", 1);
    s.ranks = t.integer(r, "ranks", 2);
    if (!t.empty(r, "algorithm")) c.method += ", " + t.text(r, "algorithm");
    if (!t.empty(r, "nodes")) c.method += ", " + t.text(r, "nodes") + " node(s)";
    KernelEntry e = entry(c, OpKind::collective, s, t.positive(r, "time_us"));
    if (auto sd = t.optional_positive(r, "std_us", true)) e.spread = *sd / e.time_us;
    check_plausible(t, r, "time_us", e);
    out.rows.push_back({c.platform, std::move(e)});
  }
}

}  // namespace

BenchRows read_deepbench_rows(const CsvTable& t, BenchFormat format) {
  BenchRows out;
  switch (format) {
    case BenchFormat::deepbench_gemm: gemm_rows(t, out); break;
    case BenchFormat::deepbench_conv: conv_rows(t, out); break;
    case BenchFormat::deepbench_rnn: rnn_rows(t, out); break;
    case BenchFormat::deepbench_allreduce: allreduce_rows(t, out); break;
    case BenchFormat::csv:
    case BenchFormat::neusight:
      throw InputError(t.file(), "internal: " + std::string(to_string(format)) + " is not a DeepBench format");
  }
  return out;
}

}  // namespace fomcast::detail
