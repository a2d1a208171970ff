// How sure the FOM is, from how sure each side of each problem is. A harmonic mean of
// rates is n / sum(1 / rate_i), and 1 / rate_i is proportional to seconds per unit, so a
// relative error u_i on problem i's time moves the sum by u_i / rate_i. Independent
// errors add in quadrature; the FOM's relative error is the two sides' combined the same
// way. First order: good while the uncertainties are well below 1, said as such in reports.
#include <cmath>

#include "fomcast/fom.hpp"

namespace fomcast {

namespace {

double hm_uncertainty(const FomResult& r, const SideRate ProblemResult::*side) {
  double inverse_sum = 0, variance = 0;
  for (const auto& p : r.problems) {
    const SideRate& s = p.*side;
    if (!(s.units_per_day > 0)) continue;
    inverse_sum += 1.0 / s.units_per_day;
    const double d = s.uncertainty / s.units_per_day;
    variance += d * d;
  }
  return inverse_sum > 0 ? std::sqrt(variance) / inverse_sum : 0;
}

}  // namespace

FomUncertainty fom_uncertainty(const FomResult& r) {
  FomUncertainty u;
  u.baseline_hm = hm_uncertainty(r, &ProblemResult::baseline);
  u.target_hm = hm_uncertainty(r, &ProblemResult::target);
  u.fom = std::hypot(u.baseline_hm, u.target_hm);
  return u;
}

}  // namespace fomcast
