// Bandwidth kernels, the Adam update and operand filling on host threads.
#include "stream_cpu.hpp"

#include <algorithm>
#include <cmath>

#include "parallel.hpp"

namespace fomcast::bench::detail {

namespace {

// The loops themselves, on one thread's range. __restrict: the operands never overlap,
// which lets the compiler vectorise without a run-time overlap check.
void copy_range(double* __restrict a, const double* __restrict b, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; ++i) a[i] = b[i];
}

void triad_range(double* __restrict a, const double* __restrict b, const double* __restrict c, double scalar,
                 int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; ++i) a[i] = b[i] + scalar * c[i];
}

template <class T>
void adam_range(T* __restrict p, T* __restrict m, T* __restrict v, const T* __restrict g, T b1, T b2, T eps, T lr, T c1,
                T c2, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; ++i) {
    const T gi = g[i];
    const T mi = b1 * m[i] + (T(1) - b1) * gi;
    const T vi = b2 * v[i] + (T(1) - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] -= lr * (mi * c1) / (std::sqrt(vi * c2) + eps);
  }
}

}  // namespace

void stream_copy(double* a, const double* b, int64_t n) {
  for_range(n, n, [=](int64_t lo, int64_t hi) { copy_range(a, b, lo, hi); });
}

void stream_triad(double* a, const double* b, const double* c, double scalar, int64_t n) {
  for_range(n, n, [=](int64_t lo, int64_t hi) { triad_range(a, b, c, scalar, lo, hi); });
}

template <class T>
void adam_update(T* p, T* m, T* v, const T* g, int64_t n, const AdamParams& a) {
  // Bias corrections 1 / (1 - beta^step), by repeated multiplication (cheaper than pow,
  // which would dominate an update of a few parameters).
  double b1t = 1, b2t = 1;
  for (int s = 0; s < a.step; ++s) b1t *= a.beta1, b2t *= a.beta2;
  const T b1 = T(a.beta1), b2 = T(a.beta2), eps = T(a.eps), lr = T(a.lr);
  const T c1 = T(1 / (1 - b1t)), c2 = T(1 / (1 - b2t));
  for_range(n, n, [=](int64_t lo, int64_t hi) { adam_range(p, m, v, g, b1, b2, eps, lr, c1, c2, lo, hi); });
}

template <class T>
void fill_uniform(T* x, int64_t n, uint64_t seed) {
  // Blocks of 64 Ki values, each from its own splitmix64 stream: the same values whatever
  // the thread count, and cheap enough that gigabyte operands fill in a fraction of a second.
  constexpr int64_t kBlock = 1 << 16;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  for_range(blocks, n, [=](int64_t first, int64_t last) {
    for (int64_t block = first; block < last; ++block) {
      const int64_t start = block * kBlock, end = std::min(n, start + kBlock);
      uint64_t state = seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(start);
      for (int64_t i = start; i < end; ++i) {
        state += 0x9E3779B97F4A7C15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x[i] = T(static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0);
      }
    }
  });
}

template void adam_update<float>(float*, float*, float*, const float*, int64_t, const AdamParams&);
template void adam_update<double>(double*, double*, double*, const double*, int64_t, const AdamParams&);
template void fill_uniform<float>(float*, int64_t, uint64_t);
template void fill_uniform<double>(double*, int64_t, uint64_t);

}  // namespace fomcast::bench::detail
