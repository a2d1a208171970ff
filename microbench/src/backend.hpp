// A backend: one way of running kernels (Eigen, the system CBLAS, cuBLAS/cuDNN). It is a
// plain struct of what it resolved to and one function that readies a kernel, not a
// class hierarchy; backends.cpp holds the table of them. Private to microbench/.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fomcast/microbench.hpp"

namespace fomcast::bench::detail {

// One kernel with its operands allocated and filled. run() makes one call and returns
// when it has finished (a device backend synchronises), so a host clock around it times it.
struct Prepared {
  std::function<void()> run;
  double flops = 0;         // per call
  double bytes = 0;         // per call
  double buffer_bytes = 0;  // what its operands occupy
};

// prepare() throws this when the backend cannot run a kernel here (element type, kind,
// memory): the kernel is skipped with this reason, never faked.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Kernels a backend prepares, by (kind, shape):
//   gemm, batched_gemm + GemmShape          C = op(A) op(B) + C, column-major, alpha = beta = 1
//   conv + ConvShape                          the shape's direction
//   optimizer + TensorShape                   an Adam update of elements() parameters
//   memcpy + TensorShape {{n}}                copy  a[i] = b[i]
//   elementwise + TensorShape {{n}, {n}}      triad a[i] = b[i] + s * c[i]
struct Backend {
  BackendInfo info;
  int64_t stream_elements = 0;    // per array for the bandwidth ceilings (>> last-level cache)
  double memory_limit_bytes = 0;  // operands larger than this are refused, not swapped
  std::function<Prepared(OpKind, const OpShape&, DType)> prepare;
};

// Throws UsageError for an unknown name or a backend that cannot run here.
Backend open_backend(std::string_view name, int threads);

// The factories, one per file; open_cuda (backend_cuda_loader.cpp, which loads the
// module backend_cuda.cpp) exists only in builds with a CUDA toolkit.
Backend open_eigen(int threads);
Backend open_blas(int threads);
Backend open_cuda(int threads);

// Half of MemAvailable (or of physical memory when /proc/meminfo is missing).
double host_memory_limit_bytes();

}  // namespace fomcast::bench::detail
