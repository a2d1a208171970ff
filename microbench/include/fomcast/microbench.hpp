// fomcast bench: measures this machine DeepBench-style (CANDLE step 5). A suite of kernels
// (GEMM, convolution, optimizer updates) runs on one backend (Eigen, the system CBLAS, or
// cuBLAS/cuDNN); every run also measures the platform's ceilings (large square GEMM rate,
// streaming bandwidth, host speed) and the environment that produced them.
//
// This is the library's one public header. It never speaks SQL: the CLI stores what
// run_bench() returns. The runner (warm-up, repetitions, when to stop), the kernels and
// the printing (report/'s bench reports) are separate, as in Google Benchmark;
// docs/microbench.md gives the methods.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fomcast/model.hpp"

namespace fomcast::bench {

// ---------------------------------------------------------------------------------------
// Statistics: small pure functions over repeated timings (seconds).

double median(std::vector<double> values);
// The p-quantile (0..1), linearly interpolated between order statistics; 0 for none.
double quantile(std::vector<double> values, double p);
// (p90 - p10) / median: the relative spread of repeats; 0 for fewer than two.
double relative_spread(const std::vector<double>& values);

// ---------------------------------------------------------------------------------------
// The runner: warm-up, then repetitions until the median is stable or a cap is reached.

struct RunnerOptions {
  int warmup_calls = 3;    // at most this many warm-up calls ...
  double warmup_s = 0.05;  // ... stopping early once they took this long (always at least one)
  int min_reps = 5;        // the median is not called stable before this many repetitions
  int max_reps = 100;
  double max_s = 1.0;       // time cap on one kernel's timed repetitions
  double tolerance = 0.01;  // stable: the median moved by less than this (relative) ...
  int stable_reps = 3;      // ... for this many repetitions in a row
};

// Why the timed repetitions ended.
enum class StopReason {
  stable,    // the median moved by less than the tolerance for stable_reps repetitions
  time_cap,  // the repetitions took max_s
  max_reps,  // max_reps repetitions
};
std::string_view to_string(StopReason);  // "stable", "time cap", "max reps"

struct Timing {
  double median_s = 0, min_s = 0, p10_s = 0, p90_s = 0;
  double spread = 0;   // relative_spread of the repetitions
  double total_s = 0;  // summed time of the timed repetitions
  int reps = 0, warmup = 0;
  int calls_per_rep = 1;  // kernels too short for the clock run several calls per repetition
  StopReason stopped = StopReason::stable;
};

// `call` runs the kernel once and returns the seconds it took (the runner never reads a
// clock itself, so the stopping rule can be tested on synthetic timings).
Timing measure(const std::function<double()>& call, const RunnerOptions& options);

// "median of 25 (warm-up 3, stable)", "median of 25 x 40 calls (warm-up 3, stable)"
std::string describe(const Timing&);

// The same timing per call when each repetition made `calls` calls: times divided, the
// relative spread unchanged.
Timing per_call(Timing, int calls);

// ---------------------------------------------------------------------------------------
// Suites: what to measure.

struct BenchKernel {
  OpKind kind = OpKind::gemm;  // gemm, batched_gemm, conv, optimizer (an Adam update)
  OpShape shape;               // GemmShape, ConvShape, TensorShape (optimizer)
  DType dtype = DType::fp32;
  KernelMode mode = KernelMode::train;  // as DeepBench tables say
  double calls = 0;                     // calls per pass (workload suites): ranks kernels when a budget forces sampling
  std::string origin;                   // "gemm_problems.csv line 12", "P1B1 op 3", "shapes.csv line 4"
};

struct BenchSuite {
  std::string name;  // deepbench-train, deepbench-inference, workload:P1B1, csv:FILE
  // Which kernels a time budget keeps first: an even spread over a list (DeepBench), the
  // most time per pass (a workload: calls x estimated time), or the file's order.
  enum class Sampling { spread, by_time, in_order } sampling = Sampling::in_order;
  std::vector<BenchKernel> kernels;       // distinct (kind, shape, dtype, mode), in list order
  std::vector<std::string> not_measured;  // what the suite holds that no kernel here measures, and why
};

// The DeepBench GEMM and convolution lists shipped under data/deepbench/ (set "train" or
// "inference": inference_server and inference_device). Training convolutions are timed
// forward, backward-data and backward-filter, like DeepBench.
BenchSuite deepbench_suite(std::string_view set);
// Exactly the GEMM, convolution and optimizer shapes a workload's ops have (deduplicated
// by shape key and dtype), weighted by their share of the pass so that a budget keeps
// the ops that matter most.
BenchSuite workload_suite(const Workload&);
// A CSV of shapes in the columns of `import-bench --format csv` without the time:
//   kind,m,n,k,a_t,b_t,batch,w,h,c,s,r,pad_w,pad_h,wstride,hstride,dilation_w,dilation_h,groups,direction,elements,dtype,mode
// Throws InputError naming the file, line and column of the first bad value.
BenchSuite csv_suite(std::string_view text, std::string_view file);

// ---------------------------------------------------------------------------------------
// Backends.

std::vector<std::string> backend_names();  // eigen, blas, cuda (cuda only when built with it)
bool backend_known(std::string_view name);
// "blas" when libblas.so.3 loads here, else "eigen". Trying it loads the library, so it
// takes the thread count the run will use (read by the library as it loads).
std::string default_backend(int threads);
// Every online CPU: the thread count when none is given.
int default_threads();

// What a backend resolved to at run time, written into every result.
struct BackendInfo {
  std::string name;     // eigen, blas, cuda
  std::string library;  // "OpenBLAS 0.3.21", "Eigen 3.4.0", "reference BLAS", "cuBLAS 13.0"
  std::string version;
  std::string path;    // the shared library that answered (blas: the resolved libblas.so.3)
  std::string config;  // the library's own description (openblas_get_config, ...)
  int threads = 1;
  std::string threads_how;          // which call or variable set the thread count, and what the library reports
  std::vector<std::string> dtypes;  // GEMM element types it runs
  std::string device;               // "cpu" or the GPU's name
};

// ---------------------------------------------------------------------------------------
// Running a suite.

struct BenchOptions {
  std::string backend;         // "" = default_backend(threads)
  int threads = 0;             // 0 = every online CPU
  double max_seconds = 0;      // 0 = no limit: otherwise the suite is sampled to fit
  double ceiling_seconds = 4;  // time given to the ceilings (large GEMM, bandwidth, host speed)
  RunnerOptions runner;
};

struct Ceilings {
  double gemm_fp32_flop_per_s = 0, gemm_fp64_flop_per_s = 0;
  int64_t gemm_fp32_n = 0, gemm_fp64_n = 0;
  Timing gemm_fp32, gemm_fp64;
  // STREAM conventions: copy moves 2 words per element, triad 3 (write-allocate traffic
  // not counted); the Adam update 7 (reads parameter, gradient and both moments, writes
  // parameter and both moments).
  double copy_bytes_per_s = 0, triad_bytes_per_s = 0, adam_bytes_per_s = 0;
  int64_t stream_elements = 0;  // per array, fp64 (copy, triad) / fp32 (Adam)
  Timing copy, triad, adam;
  double host_speed = 0;  // reference time / measured time of the host benchmark
  Timing host;
};

struct MeasuredKernel {
  BenchKernel kernel;
  KernelEntry entry;
  double flops = 0, bytes = 0;  // per call, by the conventions of docs/microbench.md
  Timing timing;
};

struct SkippedKernel {
  BenchKernel kernel;
  std::string reason;
};

struct BenchResult {
  std::string suite;
  BackendInfo backend;
  Ceilings ceilings;
  std::vector<MeasuredKernel> measured;  // in suite order
  std::vector<SkippedKernel> skipped;
  std::vector<std::string> not_measured;
  nlohmann::json environment;  // sysinfo + backend + how it was measured
  std::string date;            // UTC, YYYY-MM-DD
  double elapsed_s = 0;

  std::vector<KernelEntry> entries() const;
};

// Opens a backend to see that it can run here (and what it resolved to); throws UsageError
// when it cannot ("no CUDA device", "libblas.so.3 not found").
BackendInfo probe_backend(std::string_view name, int threads);

// Measures the ceilings and the suite. Throws UsageError for an unknown backend or one
// that cannot run here ("no CUDA device", "libblas.so.3 not found").
BenchResult run_bench(const BenchSuite&, const BenchOptions&, const ProgressFn& progress = {});

// `base` (the stored platform of that name, or an empty one) with every measured figure
// filled in and sourced: peak fp32/fp64 from the GEMM ceilings, bandwidth from the triad,
// host speed, device kind, description and environment. Other figures are kept.
Platform measured_platform(const BenchResult&, Platform base);

// "blas: OpenBLAS 0.3.21, 1 thread"
std::string describe(const BackendInfo&);

// ---------------------------------------------------------------------------------------
// Host speed: a short single-thread scalar benchmark (branchy integer work, small
// allocations, hashing, sorting) typical of framework overhead. host_speed = 1 on the
// reference host (docs/microbench.md); 2 means twice as fast.
double host_benchmark_once();  // seconds for one run of the fixed work
double host_reference_s();     // its time on the reference host

}  // namespace fomcast::bench
