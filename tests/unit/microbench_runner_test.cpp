// The bench runner's statistics and stopping rule on synthetic timings (the runner never
// reads a clock, so these are exact), the budget's sampling order and estimates, and the
// suites built from the shipped DeepBench lists, a shipped workload and a user's CSV.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "fomcast/error.hpp"
#include "fomcast/microbench.hpp"
#include "fomcast/store.hpp"
#include "sampling.hpp"
#include "test_support.hpp"

using namespace fomcast;
using namespace fomcast::bench;

namespace {

// A call that reports the next value of `times` (repeating the last one).
std::function<double()> sequence(std::vector<double> times, int& calls) {
  return [times = std::move(times), &calls] {
    const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(calls), times.size() - 1);
    ++calls;
    return times[i];
  };
}

}  // namespace

TEST_CASE("bench statistics: median, quantiles and spread by hand") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({}) == 0);
  // 0.1-quantile of 1..11: position 1.0 -> 2; 0.9 -> position 9 -> 10.
  const std::vector<double> v{11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  CHECK(quantile(v, 0.1) == doctest::Approx(2));
  CHECK(quantile(v, 0.9) == doctest::Approx(10));
  CHECK(quantile({1, 2}, 0.25) == doctest::Approx(1.25));
  CHECK(relative_spread(v) == doctest::Approx((10.0 - 2.0) / 6.0));
  CHECK(relative_spread({5}) == 0);
  CHECK(relative_spread({2, 2, 2}) == 0);
}

TEST_CASE("bench runner: steady timings stop as stable after the minimum repetitions") {
  RunnerOptions o;  // warm-up 3 calls or 0.05 s, min 5 reps, 3 stable in a row within 1%
  int calls = 0;
  const Timing t = measure(sequence({0.001}, calls), o);
  CHECK(t.warmup == 3);
  // Rep 1 sets the median; reps 2..4 are stable (3 in a row) but fewer than 5 reps; rep 5 stops.
  CHECK(t.reps == 5);
  CHECK(to_string(t.stopped) == "stable");
  CHECK(calls == 8);
  CHECK(t.median_s == 0.001);
  CHECK(t.spread == 0);
  CHECK(describe(t) == "median of 5 (warm-up 3, stable)");
}

TEST_CASE("bench runner: expensive warm-up stops after one call, and is never timed") {
  RunnerOptions o;
  int calls = 0;
  // The first call is slow (cold), the rest fast: it must land in the warm-up only.
  const Timing t = measure(sequence({0.2, 0.01}, calls), o);
  CHECK(t.warmup == 1);
  CHECK(t.median_s == 0.01);
  CHECK(t.min_s == 0.01);
}

TEST_CASE("bench runner: a drifting median runs until the time cap, a long call stops after one") {
  RunnerOptions o;
  o.max_s = 1.0;
  o.max_reps = 1000;
  int calls = 0;
  // Each repetition 10% slower than the last: the median keeps moving by more than 1%.
  std::vector<double> drift;
  for (int i = 0; i < 100; ++i) drift.push_back(0.01 * std::pow(1.1, i));
  const Timing t = measure(sequence(drift, calls), o);
  CHECK(to_string(t.stopped) == "time cap");
  CHECK(t.total_s >= 1.0);
  CHECK(t.total_s - drift[static_cast<std::size_t>(t.warmup + t.reps - 1)] <
        1.0);  // the cap stops at the first rep past it
  CHECK(t.spread > 0.1);

  calls = 0;
  const Timing one = measure(sequence({3.0}, calls), o);
  CHECK(one.warmup == 1);
  CHECK(one.reps == 1);
  CHECK(to_string(one.stopped) == "time cap");

  RunnerOptions few = o;
  few.max_reps = 4;
  calls = 0;
  CHECK(to_string(measure(sequence(drift, calls), few).stopped) == "max reps");
  CHECK(calls == 3 + 4);  // warm-up: 0.01 + 0.011 + 0.0121 < 0.05, so three calls
}

TEST_CASE("bench runner: noisy but centred timings report min, quantiles and spread of the timed reps") {
  RunnerOptions o;
  o.warmup_calls = 1;
  o.min_reps = 10;
  o.max_reps = 10;
  o.max_s = 100;
  int calls = 0;
  const std::vector<double> noisy{9, 1.0, 1.2, 0.9, 1.1, 1.0, 1.3, 0.8, 1.0, 1.1, 0.95};
  const Timing t = measure(sequence(noisy, calls), o);
  const std::vector<double> timed(noisy.begin() + 1, noisy.end());
  CHECK(t.reps == 10);
  CHECK(t.median_s == doctest::Approx(median(timed)));
  CHECK(t.min_s == 0.8);
  CHECK(t.spread == doctest::Approx(relative_spread(timed)));
}

TEST_CASE("bench sampling: spread order is a permutation whose prefixes cover the list") {
  CHECK(detail::spread_order(8) == std::vector<std::size_t>{0, 4, 2, 6, 1, 5, 3, 7});
  for (std::size_t n : {1u, 5u, 37u, 430u}) {
    auto order = detail::spread_order(n);
    REQUIRE(order.size() == n);
    std::set<std::size_t> unique(order.begin(), order.end());
    CHECK(unique.size() == n);
    CHECK(*unique.rbegin() == n - 1);
  }
  // The first quarter of 430 samples every quarter of the list.
  const auto order = detail::spread_order(430);
  int per_quarter[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < 430 / 4; ++i) ++per_quarter[order[i] * 4 / 430];
  for (int q : per_quarter) CHECK(q > 20);
}

TEST_CASE("bench sampling: estimates follow the roofline and the runner's caps") {
  // 1 GFLOP on a 100 GFLOP/s ceiling at 70%: 14.3 ms (+5 us of call overhead).
  CHECK(detail::estimate_call_s(1e9, 0, 100e9, 10e9) == doctest::Approx(1e9 / 70e9 + 5e-6));
  // Memory-bound: 1 GB at 80% of 10 GB/s.
  CHECK(detail::estimate_call_s(1e6, 1e9, 100e9, 10e9) == doctest::Approx(0.125 + 5e-6));
  RunnerOptions o;
  // A 2 s call: one warm-up call and one repetition.
  CHECK(detail::estimate_kernel_s(2.0, o) == doctest::Approx(4.0));
  // A 1 us call: three warm-up calls and at most max_reps repetitions.
  CHECK(detail::estimate_kernel_s(1e-6, o) == doctest::Approx(3e-6 + 100e-6));
}

TEST_CASE("bench suites: the shipped DeepBench lists") {
  // Counts derived from data/deepbench/*_problems.csv with python's csv module: the train
  // set has 160 distinct GEMMs and 90 distinct conv tuples (94 rows) timed in three
  // directions, 53 RNN rows; inference (server + device) has 84 distinct GEMMs (88 rows),
  // 103 distinct forward convs plus one row DeepBench comments out, 72 RNN rows.
  const BenchSuite train = deepbench_suite("train");
  CHECK(train.name == "deepbench-train");
  CHECK(train.kernels.size() == 160 + 270);
  CHECK(std::count_if(train.kernels.begin(), train.kernels.end(),
                      [](const BenchKernel& k) { return k.kind == OpKind::gemm; }) == 160);
  REQUIRE(!train.not_measured.empty());
  CHECK(train.not_measured.back().find("53 RNN") != std::string::npos);
  // The first list entry: 1760 x 16 x 1760, no transposes (gemm_problems.csv line 2).
  const auto& g0 = std::get<GemmShape>(train.kernels[0].shape);
  CHECK(g0 == GemmShape{1760, 16, 1760});
  CHECK(train.kernels[0].origin == "gemm_problems.csv line 2");
  // Conv keys match the form import-bench gives DeepBench results: 2-d, {1, h, w}.
  const auto conv = std::find_if(train.kernels.begin(), train.kernels.end(),
                                 [](const BenchKernel& k) { return k.kind == OpKind::conv; });
  REQUIRE(conv != train.kernels.end());
  const auto& c0 =
      std::get<ConvShape>(conv->shape);  // conv_problems.csv line 2: 700x161, c=1, n=4, k=32, 20x5, stride 2
  CHECK(c0.input == std::array<int64_t, 3>{1, 161, 700});
  CHECK(c0.filter == std::array<int64_t, 3>{1, 5, 20});
  CHECK(c0.stride == std::array<int64_t, 3>{1, 2, 2});
  CHECK(c0.n == 4);

  const BenchSuite inference = deepbench_suite("inference");
  CHECK(inference.kernels.size() == 84 + 103);
  for (const auto& k : inference.kernels) {
    CHECK(to_string(k.mode) == "inference");
    if (k.kind == OpKind::conv) CHECK(std::get<ConvShape>(k.shape).direction == ConvDirection::forward);
  }
  CHECK(inference.not_measured.front().find("1 convolution") != std::string::npos);
  CHECK_THROWS_AS(deepbench_suite("device"), UsageError);
}

TEST_CASE("bench suites: a workload's own GEMM, conv and optimizer shapes, deduplicated") {
  test::ScratchDir dir;
  Store store = test::open_seeded(dir.file("s.db"));
  for (const char* name : {"P1B2", "P3B3"}) {
    CAPTURE(name);
    const auto w = store.workload(name);
    REQUIRE(w);
    const BenchSuite suite = workload_suite(*w);
    std::set<std::string> keys, suite_keys;
    double calls = 0;
    for (const auto& op : w->ops)
      if (op.kind == OpKind::gemm || op.kind == OpKind::batched_gemm || op.kind == OpKind::conv ||
          op.kind == OpKind::optimizer) {
        keys.insert(std::string(to_string(op.kind)) + shape_key(op.shape) + std::string(to_string(op.dtype)));
        calls += op.count;
      }
    double suite_calls = 0;
    for (const auto& k : suite.kernels) {
      suite_keys.insert(std::string(to_string(k.kind)) + shape_key(k.shape) + std::string(to_string(k.dtype)));
      suite_calls += k.calls;
    }
    CHECK(suite_keys == keys);
    CHECK(suite.kernels.size() == keys.size());
    CHECK(suite_calls == doctest::Approx(calls));
    CHECK(suite.sampling == BenchSuite::Sampling::by_time);
  }
}

TEST_CASE("bench suites: a user's CSV of shapes, and its errors by line and column") {
  const BenchSuite s = csv_suite(
      "kind,m,n,k,a_t,b_t,w,h,c,s,r,pad_w,pad_h,wstride,hstride,groups,direction,elements,dtype,mode,note\n"
      "gemm,64,32,16,1,0,,,,,,,,,,,,,fp64,,\"a note, with a comma\"\n"
      "conv,,2,8,,,9,9,4,3,3,1,1,2,2,2,,,,,\n"
      "conv,,2,8,,,9,9,4,3,3,1,1,2,2,2,backward_data,,,,\n"
      "conv,,1,8,,,9,9,4,3,3,,,,,,,,,inference,\n"
      "optimizer,,,,,,,,,,,,,,,,,4096,,,\n",
      "shapes.csv");
  // gemm + 3 directions (train, no direction) + backward_data again (deduplicated) + 1 forward + optimizer.
  REQUIRE(s.kernels.size() == 6);
  CHECK(s.kernels[0].dtype == DType::fp64);
  CHECK(std::get<GemmShape>(s.kernels[0].shape) == GemmShape{64, 32, 16, 1, true, false});
  const auto& c = std::get<ConvShape>(s.kernels[1].shape);
  CHECK(c.groups == 2);
  CHECK(c.output() == std::array<int64_t, 3>{1, 5, 5});  // (9 + 2 - 3) / 2 + 1
  CHECK(to_string(s.kernels[4].mode) == "inference");
  CHECK(std::get<TensorShape>(s.kernels[5].shape).elements() == 4096);
  CHECK(s.kernels[5].origin == "shapes.csv line 6");

  auto error = [](const std::string& text) -> std::string {
    try {
      csv_suite(text, "bad.csv");
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error("kind,m,n,k\ngemm,1,2,3\nfoo,1,2,3\n") ==
        "bad.csv:3: kind: expected gemm, batched_gemm, conv or optimizer, got 'foo'");
  CHECK(error("kind,m,n,k\ngemm,1,x,3\n") == "bad.csv:2: n: expected a whole number, got 'x'");
  CHECK(error("kind,m,n,k\ngemm,1,-2,3\n") == "bad.csv:2: n: must be at least 1, got -2");
  CHECK(error("kind,m,n,k\ngemm,1,99999999999,3\n").find("bad.csv:2: n: '99999999999' is too large") == 0);
  CHECK(error("kind,m,n\ngemm,1,2\n") == "bad.csv:2: k: missing value");
  CHECK(error("m,n,k\n1,2,3\n") == "bad.csv:1: kind: missing column 'kind'");
  CHECK(error("kind,m,n,k\ngemm,1,2,3,4\n") == "bad.csv:2: has 5 fields, the header has 4");
  CHECK(error("kind,m,n,k\n\"gemm,1,2,3\n") == "bad.csv:2: unterminated quoted field");
  CHECK(error("") == "bad.csv:1: empty: expected a header line");
  CHECK(error("kind,m,n,k\n") == "bad.csv:1: no data rows after the header");
  CHECK(error("kind,w,h,c,n,k,s,r\nconv,4,4,3,1,8,5,5\n") == "bad.csv:2: w: the filter does not fit the padded input");
  CHECK(error("kind,w,h,c,n,k,s,r,groups\nconv,8,8,3,1,8,3,3,2\n") == "bad.csv:2: groups: must divide both c and k");
  CHECK(error("kind,m,n,k,dtype\ngemm,1,2,3,float128\n") == "bad.csv:2: dtype: unknown element type 'float128'");
  CHECK(error(std::string("kind,m,n,k\ngemm,1,2\0,3\n", 23)).find("NUL byte") != std::string::npos);
}
