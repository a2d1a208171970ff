// fomcast bench kernels against naive references on small shapes: GEMM in every
// transpose combination, convolution forward / backward-data / backward-filter (stride,
// padding, dilation, groups, 1-d, 2-d, 3-d, 1x1), the Adam update and the bandwidth
// kernels, through both CPU backends' GEMM. The references are the textbook loops,
// written here independently of the im2col code they check.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "backend.hpp"
#include "backend_cpu.hpp"
#include "conv_cpu.hpp"
#include "fomcast/error.hpp"
#include "stream_cpu.hpp"

using namespace fomcast;
using namespace fomcast::bench::detail;

namespace {

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(n);
  for (auto& x : v) x = T(u(rng));
  return v;
}

template <class T>
double tolerance() {
  return sizeof(T) == 4 ? 2e-4 : 1e-11;
}

template <class T>
void check_close(const std::vector<T>& got, const std::vector<double>& want, const char* what) {
  REQUIRE(got.size() == want.size());
  double scale = 1e-30, worst = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(double(got[i]) - want[i]) / scale);
  INFO(what << ": worst error relative to the largest value " << worst);
  CHECK(worst < tolerance<T>());
}

std::vector<std::pair<std::string, CpuGemm>> gemm_tables() {
  return {{"eigen", eigen_gemm_table()}, {"blas", blas_gemm_table()}};
}

// Column-major C = alpha op(A) op(B) + beta C, accumulated in double.
template <class T>
std::vector<double> naive_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const std::vector<T>& a,
                               int64_t lda, const std::vector<T>& b, int64_t ldb, double beta, const std::vector<T>& c,
                               int64_t ldc) {
  std::vector<double> out(c.begin(), c.end());
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double av = ta ? a[std::size_t(p + i * lda)] : a[std::size_t(i + p * lda)];
        const double bv = tb ? b[std::size_t(j + p * ldb)] : b[std::size_t(p + j * ldb)];
        s += av * bv;
      }
      out[std::size_t(i + j * ldc)] = alpha * s + beta * double(c[std::size_t(i + j * ldc)]);
    }
  return out;
}

template <class T>
void gemm_case(const CpuGemm& g, bool ta, bool tb) {
  const int64_t m = 13, n = 7, k = 9;
  // Leading dimensions larger than the matrices: strides must be honoured.
  const int64_t lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 2, ldc = m + 1;
  auto a = random_values<T>(std::size_t(lda * (ta ? m : k)), 1);
  auto b = random_values<T>(std::size_t(ldb * (tb ? k : n)), 2);
  auto c = random_values<T>(std::size_t(ldc * n), 3);
  for (const double beta : {0.0, 1.0, 0.5}) {
    const auto want = naive_gemm(ta, tb, m, n, k, 1.5, a, lda, b, ldb, beta, c, ldc);
    auto got = c;
    g.get<T>()(ta, tb, m, n, k, T(1.5), a.data(), lda, b.data(), ldb, T(beta), got.data(), ldc);
    // Padding rows of C (beyond m) must be left alone.
    for (int64_t j = 0; j < n; ++j) CHECK(got[std::size_t(m + j * ldc)] == c[std::size_t(m + j * ldc)]);
    check_close(got, want, "gemm");
  }
}

// Every multiply-accumulate of a direct convolution: f(x index, w index, y index).
void for_each_mac(const ConvShape& s, const std::function<void(std::size_t, std::size_t, std::size_t)>& f) {
  const auto o = s.output();
  const int64_t g = s.groups, cg = s.c / g, kg = s.k / g;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t k = 0; k < s.k; ++k)
      for (int64_t od = 0; od < o[0]; ++od)
        for (int64_t oh = 0; oh < o[1]; ++oh)
          for (int64_t ow = 0; ow < o[2]; ++ow)
            for (int64_t c = 0; c < cg; ++c)
              for (int64_t fd = 0; fd < s.filter[0]; ++fd)
                for (int64_t fh = 0; fh < s.filter[1]; ++fh)
                  for (int64_t fw = 0; fw < s.filter[2]; ++fw) {
                    const int64_t id = od * s.stride[0] - s.pad[0] + fd * s.dilation[0];
                    const int64_t ih = oh * s.stride[1] - s.pad[1] + fh * s.dilation[1];
                    const int64_t iw = ow * s.stride[2] - s.pad[2] + fw * s.dilation[2];
                    if (id < 0 || id >= s.input[0] || ih < 0 || ih >= s.input[1] || iw < 0 || iw >= s.input[2])
                      continue;
                    const int64_t channel = (k / kg) * cg + c;
                    const auto x =
                        std::size_t((((n * s.c + channel) * s.input[0] + id) * s.input[1] + ih) * s.input[2] + iw);
                    const auto w =
                        std::size_t((((k * cg + c) * s.filter[0] + fd) * s.filter[1] + fh) * s.filter[2] + fw);
                    const auto y = std::size_t((((n * s.k + k) * o[0] + od) * o[1] + oh) * o[2] + ow);
                    f(x, w, y);
                  }
}

template <class T>
void conv_case(const CpuGemm& g, const ConvShape& s) {
  const auto nx = std::size_t(conv_input_elements(s)), nw = std::size_t(conv_filter_elements(s)),
             ny = std::size_t(conv_output_elements(s));
  const auto x = random_values<T>(nx, 11), w = random_values<T>(nw, 12), dy = random_values<T>(ny, 13);
  std::vector<T> col(std::size_t(std::max<int64_t>(conv_col_elements(s), 1)));

  std::vector<double> y_ref(ny, 0), dx_ref(nx, 0), dw_ref(nw, 0);
  for_each_mac(s, [&](std::size_t xi, std::size_t wi, std::size_t yi) {
    y_ref[yi] += double(x[xi]) * double(w[wi]);
    dx_ref[xi] += double(dy[yi]) * double(w[wi]);
    dw_ref[wi] += double(x[xi]) * double(dy[yi]);
  });

  std::vector<T> y(ny, T(7)), dx(nx, T(7)), dw(nw, T(7));  // stale values must be overwritten
  conv_forward(g, s, x.data(), w.data(), y.data(), col.data());
  check_close(y, y_ref, "forward");
  conv_backward_data(g, s, dy.data(), w.data(), dx.data(), col.data());
  check_close(dx, dx_ref, "backward-data");
  conv_backward_filter(g, s, x.data(), dy.data(), dw.data(), col.data());
  check_close(dw, dw_ref, "backward-filter");
}

ConvShape conv2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r, int64_t s) {
  ConvShape x;
  x.dims = 2;
  x.n = n, x.c = c, x.k = k;
  x.input = {1, h, w};
  x.filter = {1, r, s};
  return x;
}

std::vector<std::pair<std::string, ConvShape>> conv_cases() {
  std::vector<std::pair<std::string, ConvShape>> out;
  ConvShape a = conv2d(2, 3, 7, 6, 4, 3, 3);
  a.pad = {0, 1, 1};
  out.emplace_back("3x3 same padding", a);
  ConvShape b = conv2d(2, 3, 9, 11, 5, 3, 2);
  b.stride = {1, 2, 3};
  b.pad = {0, 1, 0};
  out.emplace_back("strided, asymmetric filter and padding", b);
  ConvShape c = conv2d(1, 2, 10, 9, 3, 3, 3);
  c.dilation = {1, 2, 2};
  c.pad = {0, 2, 1};
  out.emplace_back("dilated", c);
  ConvShape d = conv2d(2, 4, 6, 6, 6, 3, 3);
  d.groups = 2;
  d.pad = {0, 1, 1};
  out.emplace_back("two groups", d);
  ConvShape e = conv2d(2, 3, 5, 5, 3, 3, 3);
  e.groups = 3;
  e.stride = {1, 2, 2};
  out.emplace_back("depthwise, strided", e);
  ConvShape f = conv2d(2, 5, 4, 4, 3, 1, 1);
  out.emplace_back("1x1 (no im2col)", f);
  ConvShape h = conv2d(2, 5, 5, 5, 3, 1, 1);
  h.stride = {1, 2, 2};
  out.emplace_back("1x1 strided", h);
  ConvShape i;
  i.dims = 1;
  i.n = 3, i.c = 2, i.k = 4;
  i.input = {1, 1, 20};
  i.filter = {1, 1, 5};
  i.stride = {1, 1, 2};
  i.pad = {0, 0, 1};
  out.emplace_back("conv1d", i);
  ConvShape j;
  j.dims = 3;
  j.n = 1, j.c = 2, j.k = 3;
  j.input = {4, 5, 6};
  j.filter = {2, 3, 2};
  j.stride = {1, 2, 1};
  j.pad = {1, 0, 1};
  out.emplace_back("conv3d", j);
  return out;
}

}  // namespace

TEST_CASE("bench GEMM: every transpose combination, fp32 and fp64, eigen and blas, against a naive product") {
  for (const auto& table : gemm_tables())
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        const auto& [name, g] = table;
        CAPTURE(table.first);
        CAPTURE(ta);
        CAPTURE(tb);
        gemm_case<float>(g, ta, tb);
        gemm_case<double>(g, ta, tb);
      }
}

TEST_CASE("bench convolution: forward, backward-data and backward-filter against direct loops") {
  for (const auto& table : gemm_tables())
    for (const auto& entry : conv_cases()) {
      const auto& backend = table.first;
      const auto& g = table.second;
      const auto& what = entry.first;
      const auto& shape = entry.second;
      CAPTURE(backend);
      CAPTURE(what);
      conv_case<float>(g, shape);
      conv_case<double>(g, shape);
    }
}

TEST_CASE("bench Adam update and bandwidth kernels against the formulas") {
  const int64_t n = 1000;
  auto p = random_values<float>(n, 1), m = random_values<float>(n, 2), v = random_values<float>(n, 3);
  const auto g = random_values<float>(n, 4);
  for (auto& x : v) x = std::abs(x);
  const AdamParams a;
  const auto count = static_cast<std::size_t>(n);
  std::vector<double> want_p(count), want_m(count), want_v(count);
  for (std::size_t i = 0; i < count; ++i) {
    want_m[i] = a.beta1 * m[i] + (1 - a.beta1) * g[i];
    want_v[i] = a.beta2 * v[i] + (1 - a.beta2) * double(g[i]) * g[i];
    const double mhat = want_m[i] / (1 - std::pow(a.beta1, a.step)), vhat = want_v[i] / (1 - std::pow(a.beta2, a.step));
    want_p[i] = p[i] - a.lr * mhat / (std::sqrt(vhat) + a.eps);
  }
  adam_update(p.data(), m.data(), v.data(), g.data(), n, a);
  check_close(m, want_m, "first moment");
  check_close(v, want_v, "second moment");
  check_close(p, want_p, "parameters");

  auto b = random_values<double>(n, 5), c = random_values<double>(n, 6);
  std::vector<double> out(count);
  stream_copy(out.data(), b.data(), n);
  CHECK(out == b);
  stream_triad(out.data(), b.data(), c.data(), 3.0, n);
  for (std::size_t i = 0; i < count; ++i) CHECK(out[i] == b[i] + 3.0 * c[i]);
}

TEST_CASE("bench fill_uniform: values from -1 up to 1, the same on every call") {
  std::vector<double> a(200000), b(200000);
  fill_uniform(a.data(), int64_t(a.size()), 9);
  fill_uniform(b.data(), int64_t(b.size()), 9);
  CHECK(a == b);
  double lo = 1, hi = -1, mean = 0;
  for (double x : a) lo = std::min(lo, x), hi = std::max(hi, x), mean += x / double(a.size());
  CHECK(lo >= -1);
  CHECK(hi < 1);
  CHECK(std::abs(mean) < 0.01);  // uniform: mean 0, standard error 0.0013 here
}

TEST_CASE("bench backends refuse what they cannot run instead of faking it") {
  for (const std::string name : {"eigen", "blas"}) {
    CAPTURE(name);
    const Backend b = open_backend(name, 1);
    CHECK_THROWS_AS(b.prepare(OpKind::gemm, GemmShape{8, 8, 8}, DType::fp16), Unsupported);
    CHECK_THROWS_AS(b.prepare(OpKind::gemm, GemmShape{0, 8, 8}, DType::fp32), Unsupported);
    // Far more memory than any machine has: refused before allocating.
    CHECK_THROWS_AS(b.prepare(OpKind::gemm, GemmShape{1 << 20, 1 << 20, 8}, DType::fp32), Unsupported);
    ConvShape bad = conv2d(1, 3, 4, 4, 4, 3, 3);
    bad.groups = 2;  // divides K but not C
    CHECK_THROWS_AS(b.prepare(OpKind::conv, bad, DType::fp32), Unsupported);
    CHECK_THROWS_AS(b.prepare(OpKind::rnn, RnnShape{}, DType::fp32), Unsupported);
    const Prepared p = b.prepare(OpKind::gemm, GemmShape{16, 8, 4}, DType::fp32);
    CHECK(p.flops == 2.0 * 16 * 8 * 4);
    p.run();
  }
  CHECK_THROWS_AS(open_backend("mkl", 1), UsageError);
}
