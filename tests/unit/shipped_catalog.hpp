// The shipped specs, every shipped kernel table (DeepBench, NeuSight) and model workload, loaded once per test file
// from a seeded scratch database: what the estimator tests predict with.
#pragma once

#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "fomcast/estimate.hpp"
#include "fomcast/store.hpp"
#include "test_support.hpp"

namespace fomcast::test {

inline const std::string& seeded_db() {
  static ScratchDir dir;
  static const std::string path = [] {
    const std::string p = dir.file("catalog.db");
    open_seeded(p);
    return p;
  }();
  return path;
}

inline const Catalog& catalog() {
  static Catalog c = load_catalog(Store::open(seeded_db()));
  return c;
}

// Every workload a new database holds (the shipped models).
inline const std::vector<Workload>& shipped_workloads() {
  static std::vector<Workload> all = [] {
    Store store = Store::open(seeded_db());
    std::vector<Workload> out;
    for (const auto& s : store.workloads())
      if (auto w = store.workload(s.name)) out.push_back(std::move(*w));
    return out;
  }();
  return all;
}

inline const Platform& spec(const std::string& name) {
  const Platform* p = catalog().platform(name);
  REQUIRE_MESSAGE(p, name);
  return *p;
}

}  // namespace fomcast::test
