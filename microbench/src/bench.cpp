// run_bench: the ceilings, then the suite's kernels in budget order, each through the
// runner; and the measured platform built from what came out. What a kernel is lives in
// the backends, how it is timed in runner.cpp, how it is printed in the reports.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include <unistd.h>

#include "backend.hpp"
#include "ceilings.hpp"
#include "fomcast/error.hpp"
#include "sampling.hpp"
#include "sysinfo.hpp"

namespace fomcast::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kMinRepSeconds = 20e-6;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string fixed(double v, int decimals) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(decimals);
  s << v;
  return s.str();
}

// 300 -> "300", 0.1 -> "0.1": as the user wrote it.
std::string plain(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string threads_text(int n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); }

// DeepBench's label for 16-bit inputs with 32-bit accumulation on tensor cores.
KernelPrecision precision_label(const BackendInfo& b, DType d) {
  if (b.name == "cuda" && d == DType::fp16) return KernelPrecision::fp16_mixed;
  // A suite never holds a kernel of unknown type (it reads those as fp32).
  return precision_of(d).value_or(KernelPrecision::fp32);
}

std::vector<std::size_t> budget_order(const BenchSuite& suite, const std::vector<double>& est_call_s) {
  std::vector<std::size_t> order(suite.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  switch (suite.sampling) {
    case BenchSuite::Sampling::spread: return detail::spread_order(order.size());
    case BenchSuite::Sampling::by_time:
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return suite.kernels[a].calls * est_call_s[a] > suite.kernels[b].calls * est_call_s[b];
      });
      return order;
    case BenchSuite::Sampling::in_order: return order;
  }
  return order;
}

// One kernel prepared and timed. A call shorter than the clock can time well (a clock
// read and the call itself cost tens of nanoseconds) is repeated within each repetition.
MeasuredKernel time_kernel(const detail::Backend& b, const BenchKernel& k, const RunnerOptions& runner) {
  const detail::Prepared p = b.prepare(k.kind, k.shape, k.dtype);
  const double first = detail::time_call(p.run);
  const int calls = first >= kMinRepSeconds
                        ? 1
                        : static_cast<int>(std::min(1000.0, std::ceil(kMinRepSeconds / std::max(first, 1e-8))));
  auto repetition = [&] {
    return detail::time_call([&] {
      for (int c = 0; c < calls; ++c) p.run();
    });
  };
  MeasuredKernel m;
  m.kernel = k;
  m.flops = p.flops;
  m.bytes = p.bytes;
  m.timing = per_call(measure(repetition, runner), calls);
  return m;
}

// The table row: median time, spread, how it was measured and where it came from.
KernelEntry table_entry(const MeasuredKernel& m, const BackendInfo& b, const std::string& suite, const std::string& cpu,
                        const std::string& stamp) {
  const Timing& t = m.timing;
  KernelEntry e;
  e.kind = m.kernel.kind;
  e.shape = m.kernel.shape;
  e.dtype = m.kernel.dtype;
  e.precision = precision_label(b, m.kernel.dtype);
  e.mode = m.kernel.mode;
  e.time_us = t.median_s * 1e6;
  e.spread = t.spread;
  e.method = "bench:" + b.name + " " + describe(t) + ", " + threads_text(b.threads);
  e.provenance = "fomcast bench " + suite + " (" + m.kernel.origin + ") on " + cpu + ", " + describe(b) + ", " + stamp +
                 "; min " + fixed(t.min_s * 1e6, 2) + " us, p10 " + fixed(t.p10_s * 1e6, 2) + " us, p90 " +
                 fixed(t.p90_s * 1e6, 2) + " us";
  return e;
}

nlohmann::json runner_json(const RunnerOptions& o) {
  return {{"warmup_calls", o.warmup_calls}, {"warmup_s", o.warmup_s}, {"min_reps", o.min_reps},
          {"max_reps", o.max_reps},         {"max_s", o.max_s},       {"tolerance", o.tolerance},
          {"stable_reps", o.stable_reps}};
}

}  // namespace

std::string describe(const BackendInfo& b) {
  std::string s = b.name + ": " + b.library;
  if (b.library.find(b.version) == std::string::npos && !b.version.empty()) s += " " + b.version;
  if (b.device != "cpu" && !b.device.empty()) s += " on " + b.device;
  return s + ", " + threads_text(b.threads);
}

std::string default_backend(int threads) {
  try {
    (void)detail::open_backend("blas", threads);
    return "blas";
  } catch (const UsageError&) {
    return "eigen";
  }
}

int default_threads() { return std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))); }

BackendInfo probe_backend(std::string_view name, int threads) { return detail::open_backend(name, threads).info; }

std::vector<KernelEntry> BenchResult::entries() const {
  std::vector<KernelEntry> out;
  for (const auto& m : measured) out.push_back(m.entry);
  return out;
}

BenchResult run_bench(const BenchSuite& suite, const BenchOptions& o, const ProgressFn& progress) {
  const auto t0 = Clock::now();
  const int threads = o.threads > 0 ? o.threads : default_threads();
  const std::string name = o.backend.empty() ? default_backend(threads) : o.backend;
  detail::Backend backend = detail::open_backend(name, threads);

  BenchResult r;
  r.suite = suite.name;
  r.backend = backend.info;
  r.not_measured = suite.not_measured;
  const std::string stamp = detail::utc_timestamp();
  r.date = stamp.substr(0, 10);
  const detail::HostInfo host = detail::host_info();
  const double total = 6 + static_cast<double>(suite.kernels.size());
  double done = 0;
  auto tick = [&](const std::string& what) {
    if (progress) progress(done, total, what);
    ++done;
  };

  r.ceilings = detail::measure_ceilings(backend, o.ceiling_seconds, tick);
  const Ceilings& c = r.ceilings;
  const double bw = c.triad_bytes_per_s;

  // Kernels in budget order; each is tried only when its estimate fits what is left.
  std::vector<double> est_call(suite.kernels.size());
  for (std::size_t i = 0; i < suite.kernels.size(); ++i) {
    const auto& k = suite.kernels[i];
    const double peak = k.dtype == DType::fp64 ? c.gemm_fp64_flop_per_s : c.gemm_fp32_flop_per_s;
    est_call[i] = detail::estimate_call_s(op_flops(k.kind, k.shape), op_bytes(k.kind, k.shape, k.dtype), peak, bw);
  }
  const auto order = budget_order(suite, est_call);
  const double budget = o.max_seconds > 0 ? o.max_seconds : std::numeric_limits<double>::infinity();
  std::vector<double> ratios;  // measured / estimated call time, to correct later estimates
  double correction = 1;
  std::vector<std::pair<std::size_t, MeasuredKernel>> measured;
  for (const std::size_t i : order) {
    const BenchKernel& k = suite.kernels[i];
    tick(std::string(to_string(k.kind)) + " " + fomcast::describe(k.shape));
    const double call = est_call[i] * correction;
    // Set-up (allocating and filling operands) at about 1 GB/s on top of the runner's time.
    const double estimate = detail::estimate_kernel_s(call, o.runner) + op_bytes(k.kind, k.shape, k.dtype) / 1e9;
    const double left = budget - since(t0);
    if (estimate > left) {
      r.skipped.push_back({k, "estimated " + fixed(estimate, 1) + " s, more than the " + fixed(std::max(left, 0.0), 1) +
                                  " s left of --max-seconds " + plain(o.max_seconds)});
      continue;
    }
    try {
      MeasuredKernel m = time_kernel(backend, k, o.runner);
      m.entry = table_entry(m, backend.info, suite.name, host.cpu_model, stamp);
      ratios.push_back(m.timing.median_s / est_call[i]);
      measured.emplace_back(i, std::move(m));
      correction = std::clamp(median(ratios), 0.5, 1000.0);
    } catch (const detail::Unsupported& e) {
      r.skipped.push_back({k, e.what()});
    } catch (const std::exception& e) {
      r.skipped.push_back({k, std::string("failed: ") + e.what()});
    }
  }
  std::sort(measured.begin(), measured.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [i, m] : measured) r.measured.push_back(std::move(m));
  if (progress) progress(total, total, "done");

  r.elapsed_s = since(t0);
  r.environment = {{"measured_at", stamp},
                   {"host", detail::to_json(host)},
                   {"backend",
                    {{"name", backend.info.name},
                     {"library", backend.info.library},
                     {"version", backend.info.version},
                     {"path", backend.info.path},
                     {"config", backend.info.config},
                     {"threads", backend.info.threads},
                     {"threads_how", backend.info.threads_how},
                     {"dtypes", backend.info.dtypes},
                     {"device", backend.info.device}}},
                   {"threads_requested", threads},
                   {"compiler", detail::compiler()},
                   {"kernel_flags", FOMCAST_MICROBENCH_FLAGS},
                   {"suite", suite.name},
                   {"max_seconds", o.max_seconds},
                   {"ceiling_seconds", o.ceiling_seconds},
                   {"runner", runner_json(o.runner)},
                   {"elapsed_s", r.elapsed_s}};
  return r;
}

Platform measured_platform(const BenchResult& r, Platform p) {
  const Ceilings& c = r.ceilings;
  const std::string src = "measured by fomcast bench (" + describe(r.backend) + ") on " + r.date;
  p.origin = PlatformOrigin::measured;
  const auto& host = r.environment.at("host");
  const std::string cpu = host.value("cpu_model", std::string());
  if (r.backend.device == "cpu" || r.backend.device.empty()) {
    p.device_kind = "cpu";
    p.description = cpu + " (" + std::to_string(host.value("physical_cores", 0)) + " cores), measured with " +
                    std::to_string(r.backend.threads) + (r.backend.threads == 1 ? " thread" : " threads");
    if (double mem = host.value("memory_bytes", 0.0); mem > 0)
      p.mem_bytes = Sourced{mem, "MemTotal in /proc/meminfo, read by fomcast bench on " + r.date};
  } else {
    p.device_kind = "gpu";
    p.description = r.backend.device + " (host: " + cpu + ")";
  }
  auto gemm = [&](int64_t n, const Timing& t, DType d) {
    return src + ": " + std::string(to_string(d)) + " GEMM " + std::to_string(n) + "^3, " + describe(t);
  };
  if (c.gemm_fp32_flop_per_s > 0)
    p.peak_flop_per_s[DType::fp32] = {c.gemm_fp32_flop_per_s, gemm(c.gemm_fp32_n, c.gemm_fp32, DType::fp32)};
  if (c.gemm_fp64_flop_per_s > 0)
    p.peak_flop_per_s[DType::fp64] = {c.gemm_fp64_flop_per_s, gemm(c.gemm_fp64_n, c.gemm_fp64, DType::fp64)};
  if (c.triad_bytes_per_s > 0)
    p.mem_bw_bytes_per_s =
        Sourced{c.triad_bytes_per_s, src + ": STREAM triad over 3 arrays of " + std::to_string(c.stream_elements) +
                                         " fp64, 24 bytes per element, " + describe(c.triad)};
  if (c.host_speed > 0)
    p.host_speed =
        Sourced{c.host_speed, src + ": host benchmark " + fixed(c.host.median_s * 1e3, 2) + " ms (" + describe(c.host) +
                                  ") against " + fixed(host_reference_s() * 1e3, 2) + " ms on the reference host"};
  p.environment_json = r.environment.dump();
  return p;
}

}  // namespace fomcast::bench
