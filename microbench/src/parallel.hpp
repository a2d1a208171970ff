// Host threads for the kernels fomcast writes itself (im2col, col2im, bandwidth, Adam,
// filling): OpenMP when the build has it, one thread otherwise. Private to microbench/.
#pragma once

#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace fomcast::bench::detail {

// Work (elements, element copies) below which a loop runs on the calling thread without
// entering OpenMP at all: PyTorch's grain size (at::internal::GRAIN_SIZE). A tiny
// optimizer step split over threads times thread wake-up (milliseconds when the cores are
// busy), and even a one-thread OpenMP region costs more than a short kernel.
constexpr int64_t kGrain = 32768;

// body(begin, end) over [0, n), in one contiguous chunk per thread when work >= kGrain.
template <class Body>
void for_range(int64_t n, int64_t work, const Body& body) {
#ifdef _OPENMP
  if (work >= kGrain && n > 1 && omp_get_max_threads() > 1) {
#pragma omp parallel
    {
      const int64_t t = omp_get_thread_num(), threads = omp_get_num_threads();
      body(n * t / threads, n * (t + 1) / threads);
    }
    return;
  }
#endif
  (void)work;
  body(int64_t{0}, n);
}

inline void set_host_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n);
#else
  (void)n;
#endif
}

inline bool have_openmp() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

}  // namespace fomcast::bench::detail
