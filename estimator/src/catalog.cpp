// The catalog: every platform's spec and kernel table, read from the store once per run;
// a platform's tables are indexed (groups, fits, leave-one-out bands) the first time an
// estimate needs them, and kept for the rest of the run.
#include <map>
#include <memory>

#include "catalog.hpp"
#include "similarity.hpp"

namespace fomcast {

struct PlatformTablesCache {
  std::map<std::string, std::unique_ptr<est::PlatformTables>, std::less<>> built;
};

const Platform* Catalog::platform(std::string_view name) const {
  auto it = platforms.find(std::string(name));
  return it == platforms.end() ? nullptr : &it->second;
}

Catalog make_catalog(std::vector<Platform> platforms, std::vector<KernelTable> tables) {
  Catalog c;
  for (auto& p : platforms) c.platforms[p.name] = std::move(p);
  for (auto& t : tables)
    if (!t.entries.empty()) c.tables[t.platform] = std::move(t);
  c.cache = std::make_shared<PlatformTablesCache>();
  return c;
}

Catalog load_catalog(const Store& store) {
  std::vector<Platform> platforms = store.platforms();
  std::vector<KernelTable> tables;
  for (const auto& p : platforms)
    if (store.kernel_entry_count(p.name) > 0) tables.push_back(store.kernel_table(p.name));
  return make_catalog(std::move(platforms), std::move(tables));
}

namespace est {

const PlatformTables* tables_of(const Catalog& catalog, std::string_view name) {
  if (!catalog.cache) return nullptr;
  auto& built = catalog.cache->built;
  if (auto it = built.find(name); it != built.end()) return it->second.get();
  auto t = catalog.tables.find(std::string(name));
  if (t == catalog.tables.end()) return nullptr;
  const Platform* p = catalog.platform(name);
  auto peak_of = [p](KernelPrecision precision) {
    return p ? peak_for(*p, precision_math_dtype(precision)).flop_per_s : 0.0;
  };
  const double bandwidth = p && p->mem_bw_bytes_per_s ? p->mem_bw_bytes_per_s->value : 0.0;
  auto index = std::make_unique<PlatformTables>(build_tables(t->second, peak_of, bandwidth));
  return built.emplace(std::string(name), std::move(index)).first->second.get();
}

}  // namespace est
}  // namespace fomcast
