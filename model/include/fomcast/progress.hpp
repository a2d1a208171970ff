// Progress of long work (reading a large trace, a bench run).
#pragma once

#include <functional>
#include <string_view>

namespace fomcast {

// Long work reports progress through this; the CLI draws it on a terminal only.
// done and total in whatever unit the work counts (bytes, kernels); total 0 = unknown.
using ProgressFn = std::function<void(double done, double total, std::string_view what)>;

}  // namespace fomcast
