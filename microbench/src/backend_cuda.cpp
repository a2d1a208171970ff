// The cuda backend: cuBLAS GEMM (fp32, fp64, and fp16/bf16 with fp32 accumulation),
// cuDNN convolutions (when the build found cuDNN), device-to-device copy and a triad
// through cublasDgeam for the bandwidth ceilings. Built only when CMake finds a CUDA
// toolkit, and as a module (fomcast_cuda.so) that backend_cuda_loader.cpp opens when
// --backend cuda asks for it: every other fomcast run starts without loading the
// CUDA libraries (a quarter of a gigabyte mapped and 0.1 s per start). Operands live on device 0; each call is timed by
// the host clock around the call and cudaDeviceSynchronize, as DeepBench does. Run on an H200 (docs/microbench.md);
// without a device it refuses cleanly with "no CUDA device".
#include <cublas_v2.h>
#include <cuda_runtime.h>
#ifdef FOMCAST_HAVE_CUDNN
#include <cudnn.h>
#endif

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "backend.hpp"
#include "fomcast/error.hpp"
#include "parallel.hpp"
#include "stream_cpu.hpp"

namespace fomcast::bench::detail {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Unsupported(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Unsupported(std::string(what) + ": cuBLAS status " + std::to_string(int(s)));
}
#ifdef FOMCAST_HAVE_CUDNN
void check(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) throw Unsupported(std::string(what) + ": " + cudnnGetErrorString(s));
}
#endif

struct DeviceBuffer {
  void* p = nullptr;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
};
using Device = std::shared_ptr<DeviceBuffer>;

Device device_alloc(std::size_t bytes) {
  auto d = std::make_shared<DeviceBuffer>();
  check(cudaMalloc(&d->p, std::max<std::size_t>(bytes, 16)), "cudaMalloc");
  return d;
}

std::size_t element_bytes(DType d) { return d == DType::fp64 ? 8 : d == DType::fp32 ? 4 : 2; }

// IEEE binary16 and bfloat16 bits of a float in [-1, 1), rounded to nearest even;
// values too small for a normal half become zero (they never reach the timing).
uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = int((x >> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return uint16_t(sign);
  uint32_t mant = x & 0x7fffffu;
  uint32_t h = sign | (uint32_t(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return uint16_t(h);
}
uint16_t to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  x += 0x7fffu + ((x >> 16) & 1u);
  return uint16_t(x >> 16);
}

// Deterministic values in [-1, 1) written through a bounded host staging buffer.
void device_fill(void* dst, std::size_t elements, DType d, uint64_t seed) {
  constexpr std::size_t kChunk = 1 << 22;
  std::vector<float> f(std::min(elements, kChunk));
  std::vector<unsigned char> staged(f.size() * element_bytes(d));
  for (std::size_t done = 0; done < elements; done += kChunk) {
    const std::size_t n = std::min(kChunk, elements - done);
    fill_uniform(f.data(), static_cast<int64_t>(n), seed + done);
    for (std::size_t i = 0; i < n; ++i) {
      unsigned char* out = staged.data() + i * element_bytes(d);
      if (d == DType::fp64) {
        const double v = f[i];
        std::memcpy(out, &v, 8);
      } else if (d == DType::fp32) {
        std::memcpy(out, &f[i], 4);
      } else {
        const uint16_t h = d == DType::fp16 ? to_half(f[i]) : to_bf16(f[i]);
        std::memcpy(out, &h, 2);
      }
    }
    check(cudaMemcpy(static_cast<unsigned char*>(dst) + done * element_bytes(d), staged.data(), n * element_bytes(d),
                     cudaMemcpyHostToDevice),
          "cudaMemcpy to the device");
  }
}

Device device_filled(std::size_t elements, DType d, uint64_t seed) {
  auto buf = device_alloc(elements * element_bytes(d));
  device_fill(buf->p, elements, d, seed);
  return buf;
}

void sync() {
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) throw std::runtime_error(std::string("cudaDeviceSynchronize: ") + cudaGetErrorString(e));
}

struct Context {
  cublasHandle_t blas = nullptr;
#ifdef FOMCAST_HAVE_CUDNN
  cudnnHandle_t dnn = nullptr;
#endif
  double limit = 0;
  ~Context() {
    if (blas) cublasDestroy(blas);
#ifdef FOMCAST_HAVE_CUDNN
    if (dnn) cudnnDestroy(dnn);
#endif
  }
};

void check_memory(const Context& c, double bytes) {
  if (c.limit > 0 && bytes > c.limit)
    throw Unsupported("needs " + std::to_string(bytes / 1e9) + " GB of device memory, more than half of what is free");
}

Prepared gemm(const std::shared_ptr<Context>& ctx, const GemmShape& s, DType d) {
  cudaDataType_t type;
  cublasComputeType_t compute;
  switch (d) {
    case DType::fp32: type = CUDA_R_32F, compute = CUBLAS_COMPUTE_32F; break;
    case DType::fp64: type = CUDA_R_64F, compute = CUBLAS_COMPUTE_64F; break;
    case DType::fp16: type = CUDA_R_16F, compute = CUBLAS_COMPUTE_32F; break;
    case DType::bf16: type = CUDA_R_16BF, compute = CUBLAS_COMPUTE_32F; break;
    default: throw Unsupported("cuda has no " + std::string(to_string(d)) + " GEMM here (fp32, fp64, fp16, bf16)");
  }
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.batch < 1) throw Unsupported("GEMM dimensions must be positive");
  const int64_t b = s.batch, sa = s.m * s.k, sb = s.k * s.n, sc = s.m * s.n;
  Prepared p;
  p.buffer_bytes = double(b) * double(sa + sb + sc) * double(element_bytes(d));
  check_memory(*ctx, p.buffer_bytes);
  auto A = device_filled(std::size_t(b * sa), d, 1), B = device_filled(std::size_t(b * sb), d, 2),
       C = device_filled(std::size_t(b * sc), d, 3);
  const int lda = int(s.trans_a ? s.k : s.m), ldb = int(s.trans_b ? s.n : s.k), ldc = int(s.m);
  const cublasOperation_t ta = s.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = s.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  p.run = [=] {
    const double one_d = 1;
    const float one_f = 1;
    const void* one = d == DType::fp64 ? static_cast<const void*>(&one_d) : static_cast<const void*>(&one_f);
    cublasStatus_t st;
    if (b == 1)
      st = cublasGemmEx(ctx->blas, ta, tb, int(s.m), int(s.n), int(s.k), one, A->p, type, lda, B->p, type, ldb, one,
                        C->p, type, ldc, compute, CUBLAS_GEMM_DEFAULT);
    else
      st = cublasGemmStridedBatchedEx(ctx->blas, ta, tb, int(s.m), int(s.n), int(s.k), one, A->p, type, lda, sa, B->p,
                                      type, ldb, sb, one, C->p, type, ldc, sc, int(b), compute, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasGemmEx: status " + std::to_string(int(st)));
    sync();
  };
  return p;
}

#ifdef FOMCAST_HAVE_CUDNN
struct ConvDescriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  ~ConvDescriptors() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
  }
};

// The fastest algorithm of a cudnnFind* answer (they come sorted by time).
template <class Perf>
void take_fastest(const Perf* perf, int found, const char* what, int& algo, std::size_t& workspace,
                  cudnnMathType_t& math) {
  if (found < 1 || perf[0].status != CUDNN_STATUS_SUCCESS)
    throw Unsupported(std::string("cuDNN found no ") + what + " algorithm");
  algo = int(perf[0].algo), workspace = perf[0].memory, math = perf[0].mathType;
}

void tensor(cudnnTensorDescriptor_t t, cudnnDataType_t type, std::vector<int> dims) {
  std::vector<int> strides(dims.size(), 1);
  for (int i = int(dims.size()) - 2; i >= 0; --i)
    strides[std::size_t(i)] = strides[std::size_t(i) + 1] * dims[std::size_t(i) + 1];
  check(cudnnSetTensorNdDescriptor(t, type, int(dims.size()), dims.data(), strides.data()),
        "cudnnSetTensorNdDescriptor");
}

Prepared conv(const std::shared_ptr<Context>& ctx, const ConvShape& s, DType d) {
  cudnnDataType_t type, compute;
  switch (d) {
    case DType::fp32: type = compute = CUDNN_DATA_FLOAT; break;
    case DType::fp64: type = compute = CUDNN_DATA_DOUBLE; break;
    case DType::fp16: type = CUDNN_DATA_HALF, compute = CUDNN_DATA_FLOAT; break;
    default: throw Unsupported("cuda has no " + std::string(to_string(d)) + " convolution here (fp32, fp64, fp16)");
  }
  const int64_t groups = std::max<int64_t>(1, s.groups);
  const auto o = s.output();
  if (s.n < 1 || s.c < 1 || s.k < 1 || s.c % groups || s.k % groups || o[0] < 1 || o[1] < 1 || o[2] < 1)
    throw Unsupported("convolution shape does not fit (N, C, K, groups or filter vs padded input)");
  // Spatial dimensions: 2 for conv1d/conv2d (a 1-d input is 1 x W), 3 for conv3d.
  const int sp = s.dims == 3 ? 3 : 2, first = 3 - sp;
  auto spatial = [&](const std::array<int64_t, 3>& a) {
    std::vector<int> v;
    for (int i = first; i < 3; ++i) v.push_back(int(a[std::size_t(i)]));
    return v;
  };
  auto desc = std::make_shared<ConvDescriptors>();
  check(cudnnCreateTensorDescriptor(&desc->x), "cudnnCreateTensorDescriptor");
  check(cudnnCreateTensorDescriptor(&desc->y), "cudnnCreateTensorDescriptor");
  check(cudnnCreateFilterDescriptor(&desc->w), "cudnnCreateFilterDescriptor");
  check(cudnnCreateConvolutionDescriptor(&desc->conv), "cudnnCreateConvolutionDescriptor");
  std::vector<int> xd{int(s.n), int(s.c)}, yd{int(s.n), int(s.k)}, wd{int(s.k), int(s.c / groups)};
  for (int v : spatial(s.input)) xd.push_back(v);
  for (int v : spatial(o)) yd.push_back(v);
  for (int v : spatial(s.filter)) wd.push_back(v);
  tensor(desc->x, type, xd);
  tensor(desc->y, type, yd);
  check(cudnnSetFilterNdDescriptor(desc->w, type, CUDNN_TENSOR_NCHW, int(wd.size()), wd.data()),
        "cudnnSetFilterNdDescriptor");
  const auto pad = spatial(s.pad), stride = spatial(s.stride), dil = spatial(s.dilation);
  check(cudnnSetConvolutionNdDescriptor(desc->conv, sp, pad.data(), stride.data(), dil.data(), CUDNN_CROSS_CORRELATION,
                                        compute),
        "cudnnSetConvolutionNdDescriptor");
  check(cudnnSetConvolutionGroupCount(desc->conv, int(groups)), "cudnnSetConvolutionGroupCount");
  // fp32 and fp64 stay on the FMA units (no TF32): the table says fp32 and means it.
  check(cudnnSetConvolutionMathType(desc->conv, d == DType::fp16 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
        "cudnnSetConvolutionMathType");

  auto count = [](const std::vector<int>& v) {
    std::size_t n = 1;
    for (int x : v) n *= std::size_t(x);
    return n;
  };
  const std::size_t nx = count(xd), ny = count(yd), nw = count(wd), e = element_bytes(d);
  Prepared p;
  p.buffer_bytes = double((nx + ny + nw) * e);
  check_memory(*ctx, p.buffer_bytes);
  auto X = device_filled(nx, d, 1), Y = device_filled(ny, d, 2), W = device_filled(nw, d, 3);
  // The fastest algorithm by cuDNN's own trial (cudnnFind*), as DeepBench chooses it.
  std::size_t workspace = 0;
  int algo = 0, found = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  if (s.direction == ConvDirection::forward) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    check(cudnnFindConvolutionForwardAlgorithm(ctx->dnn, desc->x, desc->w, desc->conv, desc->y,
                                               CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
          "cudnnFindConvolutionForwardAlgorithm");
    take_fastest(perf, found, "forward", algo, workspace, math);
  } else if (s.direction == ConvDirection::backward_data) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    check(cudnnFindConvolutionBackwardDataAlgorithm(ctx->dnn, desc->w, desc->y, desc->conv, desc->x,
                                                    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, perf),
          "cudnnFindConvolutionBackwardDataAlgorithm");
    take_fastest(perf, found, "backward-data", algo, workspace, math);
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    check(cudnnFindConvolutionBackwardFilterAlgorithm(ctx->dnn, desc->x, desc->y, desc->conv, desc->w,
                                                      CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, perf),
          "cudnnFindConvolutionBackwardFilterAlgorithm");
    take_fastest(perf, found, "backward-filter", algo, workspace, math);
  }
  check(cudnnSetConvolutionMathType(desc->conv, math), "cudnnSetConvolutionMathType");
  auto ws = device_alloc(workspace);
  p.buffer_bytes += double(workspace);
  const ConvDirection dir = s.direction;
  p.run = [=] {
    const double one_d = 1, zero_d = 0;
    const float one_f = 1, zero_f = 0;
    const bool dbl = d == DType::fp64;
    const void* one = dbl ? static_cast<const void*>(&one_d) : static_cast<const void*>(&one_f);
    const void* zero = dbl ? static_cast<const void*>(&zero_d) : static_cast<const void*>(&zero_f);
    cudnnStatus_t st;
    if (dir == ConvDirection::forward)
      st = cudnnConvolutionForward(ctx->dnn, one, desc->x, X->p, desc->w, W->p, desc->conv,
                                   cudnnConvolutionFwdAlgo_t(algo), ws->p, workspace, zero, desc->y, Y->p);
    else if (dir == ConvDirection::backward_data)
      st = cudnnConvolutionBackwardData(ctx->dnn, one, desc->w, W->p, desc->y, Y->p, desc->conv,
                                        cudnnConvolutionBwdDataAlgo_t(algo), ws->p, workspace, zero, desc->x, X->p);
    else
      st = cudnnConvolutionBackwardFilter(ctx->dnn, one, desc->x, X->p, desc->y, Y->p, desc->conv,
                                          cudnnConvolutionBwdFilterAlgo_t(algo), ws->p, workspace, zero, desc->w, W->p);
    if (st != CUDNN_STATUS_SUCCESS)
      throw std::runtime_error(std::string("cuDNN convolution: ") + cudnnGetErrorString(st));
    sync();
  };
  return p;
}
#endif

Prepared stream(const std::shared_ptr<Context>& ctx, OpKind kind, int64_t n) {
  if (n < 1) throw Unsupported("a bandwidth kernel needs at least one element");
  const int arrays = kind == OpKind::memcpy ? 2 : 3;
  Prepared p;
  p.buffer_bytes = arrays * double(n) * 8;
  check_memory(*ctx, p.buffer_bytes);
  auto a = device_filled(std::size_t(n), DType::fp64, 1), b = device_filled(std::size_t(n), DType::fp64, 2);
  p.bytes = p.buffer_bytes;
  if (kind == OpKind::memcpy) {
    p.run = [=] {
      if (cudaMemcpy(a->p, b->p, std::size_t(n) * 8, cudaMemcpyDeviceToDevice) != cudaSuccess)
        throw std::runtime_error("cudaMemcpy device to device failed");
      sync();
    };
  } else {
    auto c = device_filled(std::size_t(n), DType::fp64, 3);
    // a = 1 * b + 3 * c as cuBLAS's matrix addition over a rows x cols matrix: over one
    // n x 1 column, as first written, an H200 ran it at 852 GB/s against 3,784 GB/s for the
    // device-to-device copy of the same arrays, and the platform's bandwidth came out a
    // fifth of the card's. The elements past rows * cols are not touched nor counted.
    const int64_t rows = std::min<int64_t>(n, 8192), cols = n / rows;
    p.bytes = 3 * double(rows) * double(cols) * 8;
    p.run = [=] {
      const double one = 1, scalar = 3;
      const cublasStatus_t st = cublasDgeam(
          ctx->blas, CUBLAS_OP_N, CUBLAS_OP_N, int(rows), int(cols), &one, static_cast<const double*>(b->p), int(rows),
          &scalar, static_cast<const double*>(c->p), int(rows), static_cast<double*>(a->p), int(rows));
      if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasDgeam: status " + std::to_string(int(st)));
      sync();
    };
  }
  return p;
}

}  // namespace

Backend open_cuda_module(int threads) {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices < 1)
    throw UsageError(std::string("cuda backend: no CUDA device (cudaGetDeviceCount: ") +
                     (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + "); use --backend blas or eigen");
  cudaDeviceProp prop{};
  if (cudaSetDevice(0) != cudaSuccess || cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
    throw UsageError("cuda backend: cannot open CUDA device 0");
  auto ctx = std::make_shared<Context>();
  if (cublasCreate(&ctx->blas) != CUBLAS_STATUS_SUCCESS) throw UsageError("cuda backend: cublasCreate failed");
  int blas_version = 0, runtime = 0, driver = 0;
  cublasGetVersion(ctx->blas, &blas_version);
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  std::size_t free_bytes = 0, total_bytes = 0;
  cudaMemGetInfo(&free_bytes, &total_bytes);
  ctx->limit = double(free_bytes) / 2;

  Backend b;
  b.info.name = "cuda";
  b.info.version = std::to_string(blas_version / 10000) + "." + std::to_string(blas_version / 100 % 100) + "." +
                   std::to_string(blas_version % 100);
  b.info.library = "cuBLAS " + b.info.version;
  b.info.dtypes = {"fp32", "fp64", "fp16", "bf16"};
#ifdef FOMCAST_HAVE_CUDNN
  if (cudnnCreate(&ctx->dnn) != CUDNN_STATUS_SUCCESS) throw UsageError("cuda backend: cudnnCreate failed");
  const auto dnn = cudnnGetVersion();
  b.info.library += ", cuDNN " + std::to_string(dnn / 10000) + "." + std::to_string(dnn / 100 % 100) + "." +
                    std::to_string(dnn % 100);
#endif
  b.info.device = prop.name;
  b.info.config = std::string(prop.name) + ", compute capability " + std::to_string(prop.major) + "." +
                  std::to_string(prop.minor) + ", " + std::to_string(prop.multiProcessorCount) + " SMs, " +
                  std::to_string(total_bytes >> 20) + " MiB, CUDA runtime " + std::to_string(runtime) + ", driver " +
                  std::to_string(driver);
  set_host_threads(threads);
  b.info.threads = threads;
  b.info.threads_how = "host threads only; the GPU does not use --threads";
  b.stream_elements = std::max<int64_t>(int64_t(1) << 25, 4 * int64_t(prop.l2CacheSize) / 8);
  b.memory_limit_bytes = ctx->limit;
  b.prepare = [ctx](OpKind kind, const OpShape& shape, DType dtype) {
    Prepared p;
    if (const auto* g = std::get_if<GemmShape>(&shape); g && (kind == OpKind::gemm || kind == OpKind::batched_gemm)) {
      p = gemm(ctx, *g, dtype);
    } else if (const auto* c = std::get_if<ConvShape>(&shape); c && kind == OpKind::conv) {
#ifdef FOMCAST_HAVE_CUDNN
      p = conv(ctx, *c, dtype);
#else
      throw Unsupported("this build of the cuda backend has no cuDNN: convolutions are not measured");
#endif
    } else if (const auto* t = std::get_if<TensorShape>(&shape);
               t && (kind == OpKind::memcpy || kind == OpKind::elementwise)) {
      p = stream(ctx, kind, t->elements());
    } else {
      throw Unsupported("the cuda backend does not measure " + std::string(to_string(kind)) +
                        " kernels (an optimizer update would need nvcc-compiled code)");
    }
    if (p.flops == 0) p.flops = op_flops(kind, shape);
    if (p.bytes == 0) p.bytes = op_bytes(kind, shape, dtype);
    return p;
  };
  return b;
}

}  // namespace fomcast::bench::detail

// The module's one entry point (backend_cuda_loader.cpp). Exceptions pass through it: the
// module and fomcast are one build with one C++ runtime.
extern "C" __attribute__((visibility("default"))) void fomcast_cuda_open(int threads,
                                                                         fomcast::bench::detail::Backend* out) {
  *out = fomcast::bench::detail::open_cuda_module(threads);
}
