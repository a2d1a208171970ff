// The memory-bound kernels fomcast writes itself, on host threads: STREAM copy and triad,
// an Adam optimizer update, and the filling of operands (in parallel, so that pages are
// first touched by the threads that later use them). Private to microbench/.
#pragma once

#include <cstdint>

namespace fomcast::bench::detail {

void stream_copy(double* a, const double* b, int64_t n);
void stream_triad(double* a, const double* b, const double* c, double scalar, int64_t n);

// Adam (Kingma & Ba) with PyTorch's defaults at step `step`:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  p -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
struct AdamParams {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  int step = 10;
};
template <class T>
void adam_update(T* p, T* m, T* v, const T* g, int64_t n, const AdamParams&);

// Deterministic values in [-1, 1) from `seed`, the same for any thread count.
template <class T>
void fill_uniform(T* x, int64_t n, uint64_t seed);

}  // namespace fomcast::bench::detail
