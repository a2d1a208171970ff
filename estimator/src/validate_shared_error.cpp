// validate's shared_op_error: how much of the op model's error on one platform recurs on
// another for the same row. Calibration carries that much of a baseline's op-model error to
// the target (calibration.cpp, kSharedOpErrorShare; docs/calibration.md): a held-out
// prediction that is 2x slow on one GPU and also 2x slow on another for the same shape says
// the error belongs to the shape, and moves; one that is slow on one GPU only says nothing
// about the next.
//
// The two predictions of a pair must be independent. leave_platform_out's own rows are not:
// with A held out, B's table is among the sources, and with B held out, A's is, so a shape
// where A runs slow makes A's prediction fast and B's slow, a negative correlation made by
// the check. Here each platform of a pair is predicted with the other left out too.
#include <cmath>
#include <map>
#include <set>

#include "fomcast/validate.hpp"
#include "similarity.hpp"

namespace fomcast {
namespace {

struct Sums {
  double sxy = 0, sxx = 0;               // the through-origin slope's
  double n = 0, s = 0, ss = 0, sab = 0;  // the centred correlation's (both orders)
  std::set<std::pair<std::string, std::string>> pairs;
  void add(const std::string& a, const std::string& b, double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    sxy += 2 * x * y, sxx += x * x + y * y;
    n += 2, s += x + y, ss += x * x + y * y, sab += 2 * x * y;
    pairs.emplace(std::min(a, b), std::max(a, b));
  }
  void add(const Sums& o) {
    sxy += o.sxy, sxx += o.sxx, n += o.n, s += o.s, ss += o.ss, sab += o.sab;
    pairs.insert(o.pairs.begin(), o.pairs.end());
  }
  SharedOpError result(const std::string& check) const {
    SharedOpError r;
    r.check = check;
    r.rows = static_cast<int64_t>(n / 2);
    r.platform_pairs = static_cast<int64_t>(pairs.size());
    r.rho = sxx > 0 ? sxy / sxx : 0;
    // Both orders of every pair: the two variables have the same mean and variance.
    const double var = n > 0 ? ss - s * s / n : 0, cov = n > 0 ? sab - s * s / n : 0;
    r.correlation = var > 0 ? cov / var : 0;
    return r;
  }
};

using est::from_neusight;

}  // namespace

std::vector<SharedOpError> shared_op_error(const Catalog& catalog, const LooReport& loo) {
  // Leave-one-out: each platform's rows come from its own table only, so any two are
  // independent. Row key -> platform -> log error.
  std::map<std::string, std::map<std::string, double>> by_key;
  for (const auto& g : loo.groups)
    for (const auto& e : g.log_errors) by_key[e.key][g.platform] = e.log_error;
  Sums l;
  for (const auto& [key, by_platform] : by_key)
    for (auto a = by_platform.begin(); a != by_platform.end(); ++a)
      for (auto b = std::next(a); b != by_platform.end(); ++b) l.add(a->first, b->first, a->second, b->second);

  // Leave-pair-out: run leave_platform_out on the catalog without B's tables; its rows of
  // every other platform A are then predicted without A and without B.
  std::vector<std::string> neusight;
  for (const auto& [name, t] : catalog.tables)
    for (const auto& e : t.entries)
      if (from_neusight(e)) {
        neusight.push_back(name);
        break;
      }
  // without[B][A][key]: A's log error with A and B both left out.
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> without;
  for (const auto& b : neusight) {
    Catalog minus = catalog;
    minus.tables.erase(b);
    for (const auto& r : validate_leave_platform_out(minus))
      for (const auto& e : r.log_errors) without[b][r.held_out][e.key] = e.log_error;
  }
  Sums p;
  for (std::size_t i = 0; i < neusight.size(); ++i)
    for (std::size_t j = i + 1; j < neusight.size(); ++j) {
      const std::string &a = neusight[i], &b = neusight[j];
      const auto& ea = without[b][a];  // A predicted without A or B
      const auto& eb = without[a][b];  // B predicted without B or A
      for (const auto& [key, x] : ea)
        if (auto it = eb.find(key); it != eb.end()) p.add(a, b, x, it->second);
    }
  Sums all = l;
  all.add(p);
  return {l.result("leave_one_out"), p.result("leave_pair_out"), all.result("all")};
}

}  // namespace fomcast
