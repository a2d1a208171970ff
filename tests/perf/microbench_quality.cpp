// Quality of fomcast bench's fp32 GEMM ceiling (issue 5): with one thread, the blas
// backend must come within 10% of OpenBLAS called directly on the same machine in the
// same run, and the eigen backend within 30%. Each round measures the backends' ceilings
// exactly as `fomcast bench` does (measure_ceilings), then OpenBLAS through its own
// cblas_sgemm, linked into this program, on the same square sizes with a plain loop
// (one warm-up call, median of seven). Rounds interleave the two, so drift and other
// load on the machine hit both sides alike.
//
//   perf_microbench_quality [ROUNDS=3] [--workload NAME]   (the second times `bench
//   --suite workload:NAME` with every core, no budget, in a scratch database)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "backend.hpp"
#include "ceilings.hpp"
#include "fomcast/microbench.hpp"
#include "fomcast/seed.hpp"
#include "fomcast/store.hpp"
#include "sysinfo.hpp"

extern "C" {
void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                 int ldb, float beta, float* c, int ldc);
void openblas_set_num_threads(int);
char* openblas_get_config();
}

namespace {

using namespace fomcast;
using namespace fomcast::bench;

double direct_openblas_gflops(int64_t n) {
  const auto count = static_cast<std::size_t>(n * n);
  std::vector<float> a(count), b(count), c(count, 0.f);
  for (std::size_t i = 0; i < count; ++i) {
    a[i] = static_cast<float>((i * 7919) % 2001) / 1000.f - 1.f;
    b[i] = static_cast<float>((i * 104729) % 2001) / 1000.f - 1.f;
  }
  const int m = static_cast<int>(n);
  auto call = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    cblas_sgemm(102, 111, 111, m, m, m, 1.f, a.data(), m, b.data(), m, 1.f, c.data(), m);  // col-major, NN, beta 1
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  call();
  std::vector<double> t;
  for (int i = 0; i < 7; ++i) t.push_back(call());
  return 2.0 * double(n) * double(n) * double(n) / median(t) / 1e9;
}

struct Ceiling {
  double gflops;
  int64_t n;
};

Ceiling backend_ceiling(const char* name) {
  const detail::Backend b = detail::open_backend(name, 1);
  const Ceilings c = detail::measure_ceilings(b, 4.0, [](const std::string&) {});
  return {c.gemm_fp32_flop_per_s / 1e9, c.gemm_fp32_n};
}

void time_workload(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("fomcast-perf-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    Store store = Store::open((dir / "db").string());
    seed_if_needed(store);
    const auto w = store.workload(name);
    if (!w) {
      std::printf("no workload %s\n", name.c_str());
      return;
    }
    const BenchSuite suite = workload_suite(*w);
    BenchOptions o;
    o.max_seconds = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const BenchResult r = run_bench(suite, o);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "bench --suite workload:%s (%s, no budget): %zu kernels measured, %zu skipped, %.1f s wall "
        "(target: under 120 s)\n",
        name.c_str(), describe(r.backend).c_str(), r.measured.size(), r.skipped.size(), wall);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 3;
  std::string workload;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--workload" && i + 1 < argc)
      workload = argv[++i];
    else
      rounds = std::max(1, std::atoi(argv[i]));
  }
  openblas_set_num_threads(1);
  const detail::HostInfo host = detail::host_info();
  std::printf("fomcast bench quality: fp32 GEMM ceiling with 1 thread on %s\n", host.cpu_model.c_str());
  std::printf("direct reference: %s\n", openblas_get_config());
  std::printf("blas backend: %s\n\n", describe(probe_backend("blas", 1)).c_str());
  std::printf("%-6s %7s %10s %10s %7s   %7s %10s %10s %7s\n", "round", "n", "OpenBLAS", "blas", "ratio", "n",
              "OpenBLAS", "eigen", "ratio");
  std::vector<double> blas_ratios, eigen_ratios;
  for (int r = 1; r <= rounds; ++r) {
    const Ceiling blas = backend_ceiling("blas");
    const double direct_b = direct_openblas_gflops(blas.n);
    const Ceiling eigen = backend_ceiling("eigen");
    const double direct_e = direct_openblas_gflops(eigen.n);
    blas_ratios.push_back(blas.gflops / direct_b);
    eigen_ratios.push_back(eigen.gflops / direct_e);
    std::printf("%-6d %7lld %10.1f %10.1f %7.3f   %7lld %10.1f %10.1f %7.3f\n", r, static_cast<long long>(blas.n),
                direct_b, blas.gflops, blas_ratios.back(), static_cast<long long>(eigen.n), direct_e, eigen.gflops,
                eigen_ratios.back());
  }
  auto summary = [](const char* what, const std::vector<double>& v, double target) {
    const double m = median(v);
    std::printf("%s / direct OpenBLAS: median %.3f (min %.3f, max %.3f); target >= %.2f: %s\n", what, m,
                *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()), target,
                m >= target ? "met" : "MISSED");
  };
  std::printf("\n");
  summary("blas ", blas_ratios, 0.90);
  summary("eigen", eigen_ratios, 0.70);
  if (!workload.empty()) time_workload(workload);
  return 0;
}
