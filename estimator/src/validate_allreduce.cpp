// validate's allreduce_loo (collectives.hpp): every measured all-reduce entry of a
// platform's table predicted from the rest of that table, as collective_time interpolates.
#include <algorithm>
#include <cmath>

#include "catalog.hpp"
#include "fomcast/collectives.hpp"
#include "predict.hpp"

namespace fomcast {

std::vector<AllreduceLoo> validate_allreduce_loo(const Catalog& catalog) {
  std::vector<AllreduceLoo> out;
  for (const auto& [name, platform] : catalog.platforms) {
    const auto* g = est::allreduce_group(catalog, platform);
    if (!g) continue;
    std::vector<double> err;
    for (const auto* e : g->entries)
      if (auto q = est::quote_group(*g, OpKind::collective, e->shape, name, e))
        err.push_back(std::abs(q->seconds / (e->time_us * 1e-6) - 1));
    if (err.empty()) continue;
    std::sort(err.begin(), err.end());
    AllreduceLoo r;
    r.platform = name;
    r.n = static_cast<int64_t>(err.size());
    r.median_abs_error = est::percentile(err, 0.5);
    r.p90_abs_error = est::percentile(err, 0.9);
    out.push_back(r);
  }
  return out;
}

}  // namespace fomcast
