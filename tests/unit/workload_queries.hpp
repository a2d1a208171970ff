// Looking up a Workload's operations in tests: by name and a predicate on the op, with
// the per-pass figures the trace references are written in.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "fomcast/ingest.hpp"
#include "test_support.hpp"

namespace fomcast::test {

inline Workload ingest_shared(const std::vector<std::string>& rels) {
  IngestOptions o;
  o.workload = "t";
  std::vector<std::string> paths;
  for (const auto& r : rels) paths.push_back(shared_path("traces/" + r));
  return ingest_files(paths, o);
}

inline std::vector<const Op*> find_all(const Workload& w, const std::string& name,
                                       const std::function<bool(const Op&)>& pred = {}) {
  std::vector<const Op*> out;
  for (const auto& op : w.ops)
    if (op.name == name && (!pred || pred(op))) out.push_back(&op);
  return out;
}

inline const Op& find_one(const Workload& w, const std::string& name, const std::function<bool(const Op&)>& pred = {}) {
  const auto all = find_all(w, name, pred);
  REQUIRE_MESSAGE(all.size() == 1, "expected one op '" << name << "', found " << all.size());
  return *all.front();
}

inline bool is_gemm(const Op& op, int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
  const auto* g = std::get_if<GemmShape>(&op.shape);
  return g && g->m == m && g->n == n && g->k == k && g->batch == batch;
}

// Time per pass in microseconds: count x mean self time.
inline double per_pass_us(const Op& op) { return op.count * op.self_time_s.value_or(0) * 1e6; }

// Calls and time per pass over all matching ops: trace references group by name and
// inputs only, fomcast also by phase (an op recomputed in backward is another op).
struct Total {
  double calls = 0, us = 0;
};
inline Total total(const Workload& w, const std::string& name, const std::function<bool(const Op&)>& pred = {}) {
  Total t;
  for (const Op* op : find_all(w, name, pred)) {
    t.calls += op->count;
    t.us += per_pass_us(*op);
  }
  return t;
}

inline bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(part) != n.npos; });
}

inline bool has_note(const Workload& w, const std::string& part) { return has_note(w.notes, part); }

}  // namespace fomcast::test
