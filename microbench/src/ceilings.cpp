// Ceilings: the rates a platform's spec needs (peak GEMM, memory bandwidth, host speed),
// measured rather than taken from a datasheet.
#include "ceilings.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace fomcast::bench::detail {
namespace {

RunnerOptions ceiling_runner(double max_s) {
  RunnerOptions o;
  o.warmup_calls = 2;
  o.warmup_s = 0;  // one warm-up call: these kernels are large
  o.min_reps = 3;
  o.stable_reps = 2;
  o.max_reps = 50;
  o.max_s = max_s;
  return o;
}

Timing timed(const Prepared& p, const RunnerOptions& o) {
  return measure([&] { return time_call(p.run); }, o);
}

}  // namespace

double time_call(const std::function<void()>& run) {
  const auto t0 = std::chrono::steady_clock::now();
  run();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

int64_t choose_gemm_size(const Backend& b, DType d, double target_s) {
  const double e = d == DType::fp64 ? 8 : 4;
  const double fit = b.memory_limit_bytes > 0 ? std::sqrt(b.memory_limit_bytes / (3 * e)) : 16384;
  const int64_t n_max = std::max<int64_t>(256, std::min<int64_t>(16384, static_cast<int64_t>(fit) / 64 * 64));
  int64_t n = 256;
  for (;;) {
    const Prepared p = b.prepare(OpKind::gemm, GemmShape{n, n, n}, d);
    p.run();  // warm-up
    const double t = time_call(p.run);
    if (n >= n_max) return n_max;
    if (t >= target_s / 2) {
      // Close enough for the cube law to be accurate: one step to the target.
      const double scaled = static_cast<double>(n) * std::cbrt(target_s / std::max(t, 1e-9));
      return std::clamp<int64_t>(static_cast<int64_t>(std::llround(scaled / 64)) * 64, 256, n_max);
    }
    n = std::min(n_max, n * 2);
  }
}

Ceilings measure_ceilings(const Backend& b, double seconds, const std::function<void(const std::string&)>& step) {
  Ceilings c;
  const double gemm_share = 0.3 * seconds, stream_share = 0.1 * seconds, host_share = 0.1 * seconds;
  for (DType d : {DType::fp32, DType::fp64}) {
    step(std::string("ceiling: ") + std::string(to_string(d)) + " GEMM");
    try {
      // Calls of about a sixth of the share: several repetitions fit under the cap.
      const int64_t n = choose_gemm_size(b, d, gemm_share / 6);
      const Prepared p = b.prepare(OpKind::gemm, GemmShape{n, n, n}, d);
      const Timing t = timed(p, ceiling_runner(gemm_share));
      const double rate = p.flops / t.median_s;
      if (d == DType::fp32)
        c.gemm_fp32_flop_per_s = rate, c.gemm_fp32_n = n, c.gemm_fp32 = t;
      else
        c.gemm_fp64_flop_per_s = rate, c.gemm_fp64_n = n, c.gemm_fp64 = t;
    } catch (const Unsupported&) {
      // A backend without this element type has no ceiling for it: left at 0.
    }
  }
  c.stream_elements = b.stream_elements;
  const TensorShape one{{{c.stream_elements}}}, two{{{c.stream_elements}, {c.stream_elements}}};
  // A kernel the backend cannot run here (memory, element type) leaves its ceiling at 0:
  // the platform then keeps whatever figure it had, and the output says 0.
  auto bandwidth = [&](const char* name, OpKind kind, const TensorShape& shape, DType d, Timing& t, double& rate) {
    step(name);
    try {
      const Prepared p = b.prepare(kind, shape, d);
      t = timed(p, ceiling_runner(stream_share));
      rate = p.bytes / t.median_s;
    } catch (const Unsupported&) {}
  };
  bandwidth("ceiling: STREAM copy", OpKind::memcpy, one, DType::fp64, c.copy, c.copy_bytes_per_s);
  bandwidth("ceiling: STREAM triad", OpKind::elementwise, two, DType::fp64, c.triad, c.triad_bytes_per_s);
  bandwidth("ceiling: Adam update", OpKind::optimizer, one, DType::fp32, c.adam, c.adam_bytes_per_s);
  step("ceiling: host speed");
  RunnerOptions host = ceiling_runner(host_share);
  host.min_reps = 5;
  c.host = measure(&host_benchmark_once, host);
  c.host_speed = host_reference_s() / c.host.median_s;
  return c;
}

}  // namespace fomcast::bench::detail
