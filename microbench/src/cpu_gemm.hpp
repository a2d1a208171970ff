// The one thing a CPU backend supplies: column-major GEMM, C = alpha op(A) op(B) + beta C,
// in fp32 and fp64. Convolutions, batches and the ceilings are built on it by
// backend_cpu.cpp and conv_cpu.cpp. Private to microbench/.
#pragma once

#include <cstdint>

namespace fomcast::bench::detail {

template <class T>
using GemmFn = void (*)(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
                        const T* b, int64_t ldb, T beta, T* c, int64_t ldc);

struct CpuGemm {
  GemmFn<float> sgemm = nullptr;
  GemmFn<double> dgemm = nullptr;
  template <class T>
  GemmFn<T> get() const {
    if constexpr (sizeof(T) == 4)
      return sgemm;
    else
      return dgemm;
  }
};

}  // namespace fomcast::bench::detail
