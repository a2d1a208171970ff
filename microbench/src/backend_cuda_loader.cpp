// open_cuda: loads the cuda backend module (backend_cuda.cpp, built as fomcast_cuda.so
// beside the fomcast binary) on first use. Loading it only for --backend cuda keeps the
// CUDA libraries out of every other run and lets a binary built with the toolkit run on a
// machine without it.
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "backend.hpp"
#include "fomcast/error.hpp"

namespace fomcast::bench::detail {
namespace {

// Where the module may be: $FOMCAST_CUDA_MODULE, beside the running binary (and one level
// up, for the test binaries under build/tests), then where this build wrote it.
std::vector<std::string> module_candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("FOMCAST_CUDA_MODULE"); env && *env) out.emplace_back(env);
  char exe[PATH_MAX];
  if (const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1); n > 0) {
    const std::filesystem::path dir = std::filesystem::path(std::string(exe, std::size_t(n))).parent_path();
    out.push_back((dir / "fomcast_cuda.so").string());
    out.push_back((dir.parent_path() / "fomcast_cuda.so").string());
  }
#ifdef FOMCAST_CUDA_MODULE_PATH
  out.emplace_back(FOMCAST_CUDA_MODULE_PATH);
#endif
  return out;
}

}  // namespace

Backend open_cuda(int threads) {
  using Open = void (*)(int, Backend*);
  std::string tried;
  for (const auto& path : module_candidates()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    // Never closed: the backend's kernels are code in the module.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw UsageError("cuda backend: cannot load " + path + ": " + dlerror() +
                       " (the CUDA libraries it was built against must be installed); use --backend blas or eigen");
    auto open = reinterpret_cast<Open>(dlsym(handle, "fomcast_cuda_open"));
    if (!open) throw UsageError("cuda backend: " + path + " has no fomcast_cuda_open: not a fomcast module");
    Backend b;
    open(threads, &b);
    return b;
  }
  throw UsageError("cuda backend: module fomcast_cuda.so not found (looked at " + tried +
                   "); use --backend blas or eigen");
}

}  // namespace fomcast::bench::detail
