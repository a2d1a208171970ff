// Suites: the DeepBench kernel lists shipped under data/deepbench/, a workload's own
// GEMM/convolution/optimizer shapes, and a user's CSV of shapes -> BenchKernels.
#include <map>
#include <set>

#include "fomcast/bench_import.hpp"
#include "fomcast/embedded.hpp"
#include "fomcast/error.hpp"
#include "fomcast/microbench.hpp"

namespace fomcast::bench {
namespace {

constexpr ConvDirection kDirections[] = {ConvDirection::forward, ConvDirection::backward_data,
                                         ConvDirection::backward_filter};

std::string embedded_text(const std::string& path) {
  auto text = embedded_file(path);
  if (!text) throw InputError("data/" + path, "shipped kernel list missing from this build");
  return std::string(*text);
}

// Adds a kernel unless an identical one (kind, shape, dtype, mode) is already listed.
struct Collector {
  BenchSuite& suite;
  std::map<std::string, std::size_t> seen;
  void add(BenchKernel k) {
    const std::string key = std::string(to_string(k.kind)) + "|" + shape_key(k.shape) + "|" +
                            std::string(to_string(k.dtype)) + "|" + std::string(to_string(k.mode));
    if (auto it = seen.find(key); it != seen.end()) {
      suite.kernels[it->second].calls += k.calls;
      return;
    }
    seen.emplace(key, suite.kernels.size());
    suite.kernels.push_back(std::move(k));
  }
};

}  // namespace

BenchSuite deepbench_suite(std::string_view set) {
  const auto known = parse_kernel_mode(set);
  if (!known) throw UsageError("unknown DeepBench set '" + std::string(set) + "' (train or inference)");
  const KernelMode mode = *known;
  const bool train = mode == KernelMode::train;
  // The list's own `set` column: train, inference_server, inference_device.
  auto in_set = [&](const std::string& s) {
    return train ? s == "train" : s == "inference_server" || s == "inference_device";
  };
  BenchSuite suite;
  suite.name = "deepbench-" + std::string(set);
  suite.sampling = BenchSuite::Sampling::spread;
  Collector out{suite, {}};

  const CsvTable gemm(embedded_text("deepbench/gemm_problems.csv"), "data/deepbench/gemm_problems.csv");
  gemm.require({"set", "m", "n", "k", "a_t", "b_t"});
  for (std::size_t r = 0; r < gemm.rows(); ++r) {
    if (!in_set(gemm.text(r, "set"))) continue;
    out.add({OpKind::gemm, read_gemm_shape(gemm, r), DType::fp32, mode, 0,
             "gemm_problems.csv line " + std::to_string(gemm.line(r))});
  }
  const CsvTable conv(embedded_text("deepbench/conv_problems.csv"), "data/deepbench/conv_problems.csv");
  conv.require({"set", "index", "w", "h", "c", "n", "k", "s", "r", "pad_w", "pad_h", "wstride", "hstride"});
  int commented = 0;
  for (std::size_t r = 0; r < conv.rows(); ++r) {
    if (!in_set(conv.text(r, "set"))) continue;
    if (conv.text(r, "index").empty()) {  // listed in DeepBench's header but commented out there
      ++commented;
      continue;
    }
    const ConvShape base = read_conv_shape(conv, r);
    for (ConvDirection d : kDirections) {
      if (!train && d != ConvDirection::forward) continue;  // inference: forward only
      ConvShape s = base;
      s.direction = d;
      out.add({OpKind::conv, s, DType::fp32, mode, 0, "conv_problems.csv line " + std::to_string(conv.line(r))});
    }
  }
  if (commented)
    suite.not_measured.push_back(std::to_string(commented) +
                                 " convolution(s) that DeepBench's own header comments out (conv_problems.csv)");
  const CsvTable rnn(embedded_text("deepbench/rnn_problems.csv"), "data/deepbench/rnn_problems.csv");
  int rnns = 0;
  for (std::size_t r = 0; r < rnn.rows(); ++r) rnns += in_set(rnn.text(r, "set")) ? 1 : 0;
  if (rnns)
    suite.not_measured.push_back(std::to_string(rnns) +
                                 " RNN problem(s) (rnn_problems.csv): fomcast bench has no RNN kernel; the estimator "
                                 "times RNN layers through GEMM tables");
  return suite;
}

BenchSuite workload_suite(const Workload& w) {
  BenchSuite suite;
  suite.name = "workload:" + w.name;
  suite.sampling = BenchSuite::Sampling::by_time;
  Collector out{suite, {}};
  std::map<std::string, int> others;
  int64_t onednn_convs = 0;
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    const Op& op = w.ops[i];
    if (op.kind == OpKind::conv && op.implementation == Implementation::onednn) {
      // fomcast's convolution kernel is im2col + GEMM; timing it would measure another
      // implementation than the one that ran. Its own measured time carries it.
      ++onednn_convs;
      continue;
    }
    const bool gemm =
        (op.kind == OpKind::gemm || op.kind == OpKind::batched_gemm) && std::holds_alternative<GemmShape>(op.shape);
    const bool conv = op.kind == OpKind::conv && std::holds_alternative<ConvShape>(op.shape);
    const bool optimizer = op.kind == OpKind::optimizer && std::holds_alternative<TensorShape>(op.shape) &&
                           std::get<TensorShape>(op.shape).elements() > 0;
    if (!gemm && !conv && !optimizer) {
      const bool shapeless = op.kind == OpKind::gemm || op.kind == OpKind::batched_gemm || op.kind == OpKind::conv ||
                             op.kind == OpKind::optimizer;
      ++others[std::string(to_string(op.kind)) + (shapeless ? " (no usable shape)" : "")];
      continue;
    }
    // A trace that does not say the element type is read as fp32 elsewhere too (dtype_bytes).
    const DType dtype = op.dtype == DType::unknown ? DType::fp32 : op.dtype;
    out.add({op.kind, op.shape, dtype, KernelMode::train, op.count,
             w.name + " op " + std::to_string(i + 1) + (op.name.empty() ? "" : " (" + op.name + ")")});
  }
  std::string rest;
  for (const auto& [kind, n] : others) rest += (rest.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
  if (!rest.empty())
    suite.not_measured.push_back(rest +
                                 " op(s): no kernel here measures them; the estimator scales memory-bound ops "
                                 "with the platform's measured bandwidth");
  if (onednn_convs)
    suite.not_measured.push_back(std::to_string(onednn_convs) +
                                 " oneDNN convolution op(s) (aten::mkldnn_convolution*): not benched, fomcast's "
                                 "convolution kernel is im2col + GEMM, another implementation; each is carried "
                                 "by its own measured time");
  if (suite.kernels.empty())
    throw UsageError("workload '" + w.name + "' has no GEMM, convolution or optimizer op with a shape to measure");
  return suite;
}

BenchSuite csv_suite(std::string_view text, std::string_view file) {
  const CsvTable t(text, file);
  t.require({"kind"});
  BenchSuite suite;
  suite.name = "csv:" + std::string(file);
  suite.sampling = BenchSuite::Sampling::in_order;
  Collector out{suite, {}};
  for (std::size_t r = 0; r < t.rows(); ++r) {
    BenchKernel k;
    k.origin = std::string(file) + " line " + std::to_string(t.line(r));
    const std::string& dtype = t.text(r, "dtype");
    if (!dtype.empty()) {
      auto d = parse_dtype(dtype);
      if (!d || *d == DType::unknown) t.fail(r, "dtype", "unknown element type '" + dtype + "'");
      k.dtype = *d;
    }
    const std::string& mode = t.text(r, "mode").empty() ? "train" : t.text(r, "mode");
    const auto known_mode = parse_kernel_mode(mode);
    if (!known_mode) t.fail(r, "mode", "expected train or inference, got '" + mode + "'");
    k.mode = *known_mode;
    const std::string& kind = t.text(r, "kind");
    if (kind == "gemm" || kind == "batched_gemm") {
      k.kind = kind == "gemm" ? OpKind::gemm : OpKind::batched_gemm;
      k.shape = read_gemm_shape(t, r);
      out.add(k);
    } else if (kind == "conv") {
      k.kind = OpKind::conv;
      const ConvShape base = read_conv_shape(t, r);
      const std::string& dir = t.text(r, "direction");
      if (dir.empty()) {
        // No direction: what DeepBench times for the mode (all three in training).
        for (ConvDirection d : kDirections) {
          if (k.mode == KernelMode::inference && d != ConvDirection::forward) continue;
          ConvShape s = base;
          s.direction = d;
          k.shape = s;
          out.add(k);
        }
      } else {
        auto d = parse_conv_direction(dir);
        if (!d) t.fail(r, "direction", "expected forward, backward_data or backward_filter, got '" + dir + "'");
        ConvShape s = base;
        s.direction = *d;
        k.shape = s;
        out.add(k);
      }
    } else if (kind == "optimizer") {
      k.kind = OpKind::optimizer;
      k.shape = TensorShape{{{t.integer(r, "elements", 1)}}};
      out.add(k);
    } else {
      t.fail(r, "kind", "expected gemm, batched_gemm, conv or optimizer, got '" + kind + "'");
    }
  }
  return suite;
}

}  // namespace fomcast::bench
