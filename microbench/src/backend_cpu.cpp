// Readying kernels for the CPU backends: operands allocated (64-byte aligned) and filled,
// and a run() that makes one call through the backend's GEMM or fomcast's own loops.
// Eigen and the system BLAS differ only in the CpuGemm they hand in.
#include "backend_cpu.hpp"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include <unistd.h>

#include "conv_cpu.hpp"
#include "stream_cpu.hpp"

namespace fomcast::bench::detail {
namespace {

// 64-byte aligned, and each allocation starts at a different offset from its page (a
// multiple of 1088 bytes, as STREAM's OFFSET does): large arrays of equal size otherwise
// sit at the same address modulo big powers of two and evict one another in the caches,
// which measures the allocator rather than the machine.
template <class T>
std::shared_ptr<T[]> allocate(int64_t n, const std::string& what) {
  static std::atomic<unsigned> counter{0};
  const std::size_t offset = 1088 * (counter++ % 16);
  const std::size_t bytes = (static_cast<std::size_t>(std::max<int64_t>(n, 1)) * sizeof(T) + offset + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes);
  if (!p) throw Unsupported("could not allocate " + std::to_string(bytes) + " bytes for " + what);
  auto* base = static_cast<unsigned char*>(p);
  return std::shared_ptr<T[]>(reinterpret_cast<T*>(base + offset), [base](T*) { std::free(base); });
}

template <class T>
std::shared_ptr<T[]> filled(int64_t n, uint64_t seed, const std::string& what) {
  auto p = allocate<T>(n, what);
  fill_uniform(p.get(), n, seed);
  return p;
}

std::string gb(double bytes) {
  std::ostringstream s;
  s.precision(3);
  s << bytes / 1e9 << " GB";
  return s.str();
}

void check_memory(double bytes, double limit, const std::string& what) {
  if (limit > 0 && bytes > limit)
    throw Unsupported(what + " needs " + gb(bytes) + " of operands, more than the " + gb(limit) +
                      " allowed (half the memory available)");
}

template <class T>
Prepared gemm(const CpuGemm& g, const GemmShape& s, double limit) {
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.batch < 1) throw Unsupported("GEMM dimensions must be positive");
  const int64_t b = s.batch, sa = s.m * s.k, sb = s.k * s.n, sc = s.m * s.n;
  Prepared p;
  p.buffer_bytes = static_cast<double>(b) * static_cast<double>(sa + sb + sc) * sizeof(T);
  check_memory(p.buffer_bytes, limit, "this GEMM");
  auto A = filled<T>(b * sa, 1, "A"), B = filled<T>(b * sb, 2, "B"), C = filled<T>(b * sc, 3, "C");
  const auto fn = g.get<T>();
  // Column-major: A is stored m x k (k x m when transposed), B k x n (n x k).
  const int64_t lda = s.trans_a ? s.k : s.m, ldb = s.trans_b ? s.n : s.k;
  p.run = [=] {
    for (int64_t i = 0; i < b; ++i)
      fn(s.trans_a, s.trans_b, s.m, s.n, s.k, T(1), A.get() + i * sa, lda, B.get() + i * sb, ldb, T(1),
         C.get() + i * sc, s.m);
  };
  return p;
}

template <class T>
Prepared conv(const CpuGemm& g, const ConvShape& s, double limit) {
  const int64_t groups = std::max<int64_t>(1, s.groups);
  if (s.n < 1 || s.c < 1 || s.k < 1 || s.c % groups || s.k % groups)
    throw Unsupported("convolution needs positive N, C, K with groups dividing C and K");
  const auto o = s.output();
  if (o[0] < 1 || o[1] < 1 || o[2] < 1) throw Unsupported("the filter does not fit the padded input");
  const int64_t nx = conv_input_elements(s), nw = conv_filter_elements(s), ny = conv_output_elements(s),
                ncol = conv_col_elements(s);
  Prepared p;
  p.buffer_bytes = static_cast<double>(nx + nw + ny + ncol) * sizeof(T);
  check_memory(p.buffer_bytes, limit, "this convolution");
  auto col = allocate<T>(ncol, "the column buffer");
  switch (s.direction) {
    case ConvDirection::forward: {
      auto x = filled<T>(nx, 1, "x"), w = filled<T>(nw, 2, "w"), y = allocate<T>(ny, "y");
      p.run = [=] { conv_forward(g, s, x.get(), w.get(), y.get(), col.get()); };
      break;
    }
    case ConvDirection::backward_data: {
      auto dy = filled<T>(ny, 1, "dy"), w = filled<T>(nw, 2, "w"), dx = filled<T>(nx, 3, "dx");
      p.run = [=] { conv_backward_data(g, s, dy.get(), w.get(), dx.get(), col.get()); };
      break;
    }
    case ConvDirection::backward_filter: {
      auto x = filled<T>(nx, 1, "x"), dy = filled<T>(ny, 2, "dy"), dw = allocate<T>(nw, "dw");
      p.run = [=] { conv_backward_filter(g, s, x.get(), dy.get(), dw.get(), col.get()); };
      break;
    }
  }
  return p;
}

template <class T>
Prepared adam(int64_t n, double limit) {
  if (n < 1) throw Unsupported("an optimizer update needs at least one parameter");
  Prepared p;
  p.buffer_bytes = 4.0 * static_cast<double>(n) * sizeof(T);
  check_memory(p.buffer_bytes, limit, "this optimizer update");
  auto w = filled<T>(n, 1, "parameters"), m = filled<T>(n, 2, "first moments"), v = filled<T>(n, 3, "second moments"),
       grad = filled<T>(n, 4, "gradients");
  for (int64_t i = 0; i < n; ++i) v[i] = v[i] < 0 ? -v[i] : v[i];  // second moments are >= 0
  p.bytes = 7.0 * static_cast<double>(n) * sizeof(T);
  p.run = [=] { adam_update(w.get(), m.get(), v.get(), grad.get(), n, AdamParams{}); };
  return p;
}

Prepared stream(OpKind kind, int64_t n, double limit) {
  if (n < 1) throw Unsupported("a bandwidth kernel needs at least one element");
  const int arrays = kind == OpKind::memcpy ? 2 : 3;
  Prepared p;
  p.buffer_bytes = arrays * static_cast<double>(n) * sizeof(double);
  check_memory(p.buffer_bytes, limit, "this bandwidth kernel");
  auto a = filled<double>(n, 1, "a"), b = filled<double>(n, 2, "b");
  p.bytes = p.buffer_bytes;
  if (kind == OpKind::memcpy) {
    p.run = [=] { stream_copy(a.get(), b.get(), n); };
  } else {
    auto c = filled<double>(n, 3, "c");
    p.run = [=] { stream_triad(a.get(), b.get(), c.get(), 3.0, n); };
  }
  return p;
}

std::string no_dtype(std::string_view backend, DType d, std::string_view what) {
  return std::string(backend) + " has no " + std::string(to_string(d)) + " " + std::string(what) +
         " (fp32 and fp64 only)";
}

}  // namespace

Prepared prepare_cpu(const CpuGemm& g, std::string_view backend, double limit, OpKind kind, const OpShape& shape,
                     DType dtype) {
  // Runs make(T{}) in the kernel's element type: fp32 or fp64.
  auto in_dtype = [&](std::string_view what, auto make) -> Prepared {
    if (dtype == DType::fp32) return make(float{});
    if (dtype == DType::fp64) return make(double{});
    throw Unsupported(no_dtype(backend, dtype, what));
  };
  Prepared p;
  if (const auto* s = std::get_if<GemmShape>(&shape); s && (kind == OpKind::gemm || kind == OpKind::batched_gemm)) {
    p = in_dtype("GEMM", [&](auto t) { return gemm<decltype(t)>(g, *s, limit); });
  } else if (const auto* c = std::get_if<ConvShape>(&shape); c && kind == OpKind::conv) {
    p = in_dtype("convolution", [&](auto t) { return conv<decltype(t)>(g, *c, limit); });
  } else if (const auto* t = std::get_if<TensorShape>(&shape); t && kind == OpKind::optimizer) {
    p = in_dtype("optimizer update", [&](auto e) { return adam<decltype(e)>(t->elements(), limit); });
  } else if (t && (kind == OpKind::memcpy || kind == OpKind::elementwise)) {
    if (dtype != DType::fp64) throw Unsupported("the bandwidth kernels run in fp64");
    p = stream(kind, t->elements(), limit);
  } else {
    throw Unsupported(std::string(backend) + " does not measure " + std::string(to_string(kind)) + " kernels");
  }
  if (p.flops == 0) p.flops = op_flops(kind, shape);
  if (p.bytes == 0) p.bytes = op_bytes(kind, shape, dtype);
  return p;
}

Backend cpu_backend(BackendInfo info, const CpuGemm& gemm, std::function<void(const OpShape&)> check) {
  Backend b;
  info.dtypes = {"fp32", "fp64"};
  info.device = "cpu";
  b.info = std::move(info);
  const double limit = host_memory_limit_bytes();
  b.memory_limit_bytes = limit;
  b.prepare = [gemm, limit, check = std::move(check), name = b.info.name](OpKind kind, const OpShape& shape,
                                                                          DType dtype) {
    if (check) check(shape);
    return prepare_cpu(gemm, name, limit, kind, shape, dtype);
  };
  return b;
}

double host_memory_limit_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (in >> key) {
    if (key == "MemAvailable:") {
      in >> kb;
      break;
    }
    in.ignore(1 << 10, '\n');
  }
  if (kb > 0) return kb * 1024.0 / 2;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) / 2 : 0;
}

}  // namespace fomcast::bench::detail
