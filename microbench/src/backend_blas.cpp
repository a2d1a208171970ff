// The blas backend: the system CBLAS, found at run time as dlopen("libblas.so.3"), so it
// is whatever the alternatives system or LD_LIBRARY_PATH selects (OpenBLAS, BLIS, MKL,
// reference BLAS). It reports which file answered and, where the library says, its make,
// version and thread count; the thread count is set through the library's own call and
// through the environment variables it reads when it loads.
#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "backend_cpu.hpp"
#include "fomcast/error.hpp"
#include "parallel.hpp"

namespace fomcast::bench::detail {
namespace {

// CBLAS enums (cblas.h): the values every implementation shares.
constexpr int kColMajor = 102, kNoTrans = 111, kTrans = 112;

using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using DgemmFn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*,
                         int);

struct Library {
  void* handle = nullptr;
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
  std::string error;
  std::string loaded_with;  // the thread variables' value when this process loaded it
};

// Loaded once per process: the library is process-global anyway (its thread pool, its
// settings), and unloading BLAS libraries with live threads is not safe.
Library& library() {
  static Library lib;
  static std::once_flag once;
  std::call_once(once, [] {
    if (const char* v = std::getenv("OPENBLAS_NUM_THREADS")) lib.loaded_with = v;
    lib.handle = dlopen("libblas.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle) {
      const char* e = dlerror();
      lib.error = e ? e : "dlopen failed";
      return;
    }
    lib.sgemm = reinterpret_cast<SgemmFn>(dlsym(lib.handle, "cblas_sgemm"));
    lib.dgemm = reinterpret_cast<DgemmFn>(dlsym(lib.handle, "cblas_dgemm"));
    if (!lib.sgemm || !lib.dgemm) lib.error = "libblas.so.3 has no cblas_sgemm/cblas_dgemm (a Fortran-only BLAS)";
  });
  return lib;
}

template <class F>
F symbol(const char* name) {
  return reinterpret_cast<F>(dlsym(library().handle, name));
}

bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

void check_dims(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  for (int64_t v : {m, n, k, lda, ldb, ldc})
    if (!fits_int(v)) throw Unsupported("a GEMM dimension exceeds the 32-bit integers of this CBLAS");
}

void blas_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  library().sgemm(kColMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, int(m), int(n), int(k), alpha, a, int(lda),
                  b, int(ldb), beta, c, int(ldc));
}

void blas_dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
                const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  library().dgemm(kColMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, int(m), int(n), int(k), alpha, a, int(lda),
                  b, int(ldb), beta, c, int(ldc));
}

std::string file_of(const void* address) {
  Dl_info info{};
  if (!address || !dladdr(address, &info) || !info.dli_fname) return "";
  std::error_code ec;
  auto real = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::string(info.dli_fname) : real.string();
}

// "OpenBLAS 0.3.21 DYNAMIC_ARCH ..." -> "0.3.21"
std::string second_word(const std::string& s) {
  const auto a = s.find(' ');
  if (a == std::string::npos) return "";
  const auto b = s.find(' ', a + 1);
  return s.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

// Sets the thread count through the library's own call and reads back what it reports.
template <class SetArg, class GetResult>
void apply_threads(BackendInfo& info, int threads, const char* set_name, const char* get_name, const char* variable) {
  const auto set = symbol<void (*)(SetArg)>(set_name);
  const auto get = symbol<GetResult (*)()>(get_name);
  if (set) set(static_cast<SetArg>(threads));
  info.threads = get ? static_cast<int>(get()) : threads;
  const std::string n = std::to_string(threads);
  info.threads_how = (set ? std::string(set_name) + "(" + n + "); " : std::string()) + variable + "=" +
                     library().loaded_with + " when the library was loaded; " +
                     (get ? std::string(get_name) + "() = " : "taken as ") + std::to_string(info.threads);
}

// What the library is, from the entry points only its make has.
void identify(BackendInfo& info, int threads) {
  if (auto config = symbol<char* (*)()>("openblas_get_config")) {
    info.config = config();
    info.library = "OpenBLAS";
    info.version = second_word(info.config);
    info.path += " -> " + file_of(reinterpret_cast<void*>(config));
    apply_threads<int, int>(info, threads, "openblas_set_num_threads", "openblas_get_num_threads",
                            "OPENBLAS_NUM_THREADS");
  } else if (auto version = symbol<const char* (*)()>("bli_info_get_version_str")) {
    info.library = "BLIS";
    info.version = version();
    info.path += " -> " + file_of(reinterpret_cast<void*>(version));
    apply_threads<long, long>(info, threads, "bli_thread_set_num_threads", "bli_thread_get_num_threads",
                              "BLIS_NUM_THREADS");
  } else if (auto mkl = symbol<void (*)(char*, int)>("mkl_get_version_string")) {
    char buf[256] = {0};
    mkl(buf, sizeof buf);
    info.library = "MKL";
    info.config = buf;
    info.version = info.config;
    info.path += " -> " + file_of(reinterpret_cast<void*>(mkl));
    apply_threads<int, int>(info, threads, "MKL_Set_Num_Threads", "MKL_Get_Max_Threads", "MKL_NUM_THREADS");
  } else {
    // No make-specific entry points: the Netlib reference BLAS (Debian's libblas3 lives
    // under .../blas/) or an unknown one; both treated as single-threaded.
    const bool reference = info.path.find("/blas/") != std::string::npos;
    info.library = reference ? "reference BLAS" : "unidentified CBLAS";
    const auto file = std::filesystem::path(info.path).filename().string();
    if (const auto so = file.find(".so."); so != std::string::npos) info.version = file.substr(so + 4);
    info.threads = 1;
    info.threads_how = "no thread control in this library (taken as single-threaded)";
  }
}

void require_library() {
  if (const Library& lib = library(); !lib.error.empty())
    throw UsageError("blas backend: cannot use the system BLAS: " + lib.error +
                     " (install libopenblas0 or libblas3, or use --backend eigen)");
}

}  // namespace

CpuGemm blas_gemm_table() {
  require_library();
  return {&blas_sgemm, &blas_dgemm};
}

Backend open_blas(int threads) {
  // Read by the libraries when they load (and by OpenMP builds through the calling
  // thread's OpenMP setting): set before dlopen, so they apply to whatever loads.
  const std::string n = std::to_string(threads);
  for (const char* var : {"OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"})
    setenv(var, n.c_str(), 1);
  set_host_threads(threads);
  require_library();
  BackendInfo info;
  info.name = "blas";
  info.path = file_of(reinterpret_cast<void*>(library().sgemm));
  identify(info, threads);
  return cpu_backend(std::move(info), blas_gemm_table(), [](const OpShape& shape) {
    if (const auto* g = std::get_if<GemmShape>(&shape)) check_dims(g->m, g->n, g->k, g->m, g->k, g->n);
    if (const auto* c = std::get_if<ConvShape>(&shape)) {
      const auto o = c->output();
      const int64_t pq = o[0] * o[1] * o[2];
      const int64_t cgrs = c->c / std::max<int64_t>(1, c->groups) * c->filter[0] * c->filter[1] * c->filter[2];
      check_dims(pq, c->k, cgrs, pq, cgrs, pq);
    }
  });
}

}  // namespace fomcast::bench::detail
