// The CPU backends' shared preparation of kernels (see backend.hpp for what each kind
// and shape means). Private to microbench/.
#pragma once

#include <functional>
#include <string_view>

#include "backend.hpp"
#include "cpu_gemm.hpp"

namespace fomcast::bench::detail {

// Throws Unsupported for element types other than fp32/fp64, kinds it does not measure,
// shapes that do not fit, and operands larger than `memory_limit_bytes`.
// The GEMM tables themselves (tests check them against a naive product). blas throws
// UsageError when libblas.so.3 cannot be used.
CpuGemm eigen_gemm_table();
CpuGemm blas_gemm_table();

// A CPU backend around `gemm`: fp32 and fp64, operands limited to half the available
// memory, and `check` (a library's own limits) run on every shape before it is prepared.
Backend cpu_backend(BackendInfo info, const CpuGemm& gemm, std::function<void(const OpShape&)> check = {});

Prepared prepare_cpu(const CpuGemm&, std::string_view backend, double memory_limit_bytes, OpKind, const OpShape&,
                     DType);

}  // namespace fomcast::bench::detail
