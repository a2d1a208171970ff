// The eigen backend: Eigen's own GEMM, always built. This file alone is compiled for the
// machine it is built on (-march=native, see microbench/CMakeLists.txt and
// docs/microbench.md): Eigen picks its SIMD kernels at compile time, and a tool that
// measures the machine it runs on is built where it runs (scripts/setup.sh).
#include <Eigen/Core>

#include "backend_cpu.hpp"
#include "parallel.hpp"

namespace fomcast::bench::detail {
namespace {

template <class T>
void eigen_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                int64_t ldb, T beta, T* c, int64_t ldc) {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
  using In = Eigen::Map<const Mat, Eigen::Unaligned, Eigen::OuterStride<>>;
  using Out = Eigen::Map<Mat, Eigen::Unaligned, Eigen::OuterStride<>>;
  const In A(a, ta ? k : m, ta ? m : k, Eigen::OuterStride<>(lda));
  const In B(b, tb ? n : k, tb ? k : n, Eigen::OuterStride<>(ldb));
  Out C(c, m, n, Eigen::OuterStride<>(ldc));
  if (beta == T(0))
    C.setZero();
  else if (beta != T(1))
    C *= beta;
  if (!ta && !tb)
    C.noalias() += alpha * A * B;
  else if (ta && !tb)
    C.noalias() += alpha * A.transpose() * B;
  else if (!ta && tb)
    C.noalias() += alpha * A * B.transpose();
  else
    C.noalias() += alpha * A.transpose() * B.transpose();
}

std::string simd() {
  std::string s = Eigen::SimdInstructionSetsInUse();
  return s.empty() ? "none" : s;
}

}  // namespace

CpuGemm eigen_gemm_table() { return {&eigen_gemm<float>, &eigen_gemm<double>}; }

Backend open_eigen(int threads) {
  BackendInfo info;
  info.name = "eigen";
  info.version = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                 std::to_string(EIGEN_MINOR_VERSION);
  info.library = "Eigen " + info.version;
  info.config = "SIMD: " + simd() + (have_openmp() ? ", OpenMP" : ", no OpenMP");
  set_host_threads(threads);
  if (have_openmp()) {
    Eigen::setNbThreads(threads);
    info.threads = Eigen::nbThreads();
    info.threads_how = "Eigen::setNbThreads(" + std::to_string(threads) +
                       ") with OpenMP; Eigen::nbThreads() = " + std::to_string(info.threads);
  } else {
    info.threads = 1;
    info.threads_how = "built without OpenMP: Eigen runs one thread whatever --threads says";
  }
  return cpu_backend(std::move(info), eigen_gemm_table());
}

}  // namespace fomcast::bench::detail
