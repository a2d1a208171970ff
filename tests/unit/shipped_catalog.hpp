// The shipped specs and every DeepBench table, loaded once per test file from a seeded
// scratch database: what the estimator tests predict with.
#pragma once

#include <string>

#include <doctest/doctest.h>

#include "fomcast/estimate.hpp"
#include "fomcast/store.hpp"
#include "test_support.hpp"

namespace fomcast::test {

inline const Catalog& catalog() {
  static ScratchDir dir;
  static Catalog c = load_catalog(open_seeded(dir.file("catalog.db")));
  return c;
}

inline const Platform& spec(const std::string& name) {
  const Platform* p = catalog().platform(name);
  REQUIRE_MESSAGE(p, name);
  return *p;
}

}  // namespace fomcast::test
