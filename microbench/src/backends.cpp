// The table of backends: a name and a factory each. Adding a backend adds a file and a
// row here.
#include <algorithm>

#include "backend.hpp"
#include "fomcast/error.hpp"
#include "sysinfo.hpp"

namespace fomcast::bench {
namespace detail {
namespace {

struct Row {
  const char* name;
  Backend (*open)(int threads);
};

const Row kBackends[] = {
    {"eigen", &open_eigen},
    {"blas", &open_blas},
#ifdef FOMCAST_HAVE_CUDA
    {"cuda", &open_cuda},
#endif
};

}  // namespace

Backend open_backend(std::string_view name, int threads) {
  for (const auto& row : kBackends)
    if (name == row.name) {
      Backend b = row.open(threads);
      if (b.stream_elements == 0) {
        // STREAM's rule: each array at least four times the last-level cache, and never
        // under 32 MiB of fp64.
        const HostInfo h = host_info();
        const int64_t llc = std::max({h.l3_bytes, h.l2_bytes, int64_t(8) << 20});
        b.stream_elements = std::max<int64_t>(4 * llc / 8, int64_t(1) << 22);
      }
      return b;
    }
  if (name == "cuda") throw UsageError("backend 'cuda' is not built in: this fomcast was built without a CUDA toolkit");
  std::string known;
  for (const auto& row : kBackends) known += (known.empty() ? "" : ", ") + std::string(row.name);
  throw UsageError("unknown backend '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace detail

std::vector<std::string> backend_names() {
  std::vector<std::string> out;
  for (const auto& row : detail::kBackends) out.emplace_back(row.name);
  return out;
}

bool backend_known(std::string_view name) {
  const auto names = backend_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace fomcast::bench
