// validate's band_refit: what the band rule would have to become for its +-1 band to hold
// two thirds of the held-out truths, per check and per band value, measured on the same
// rows band_coverage counts, and whether that factor holds out of sample (fitted on other
// rows than those it is applied to). It is printed, not applied: the out-of-sample coverage
// says whether applying it would help (docs/accuracy.md, "Band coverage").
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "fomcast/validate.hpp"

namespace fomcast {
namespace {

constexpr double kOneSigma = 0.6827;  // the share within +-1 standard deviation of a normal

double share_within(const std::vector<double>& ratios, double scale) {
  if (ratios.empty()) return 0;
  return static_cast<double>(std::count_if(ratios.begin(), ratios.end(), [&](double x) { return x <= scale; })) /
         static_cast<double>(ratios.size());
}

double scale_for_68(std::vector<double> ratios) {
  if (ratios.empty()) return 0;
  const auto k = std::min(static_cast<std::size_t>(kOneSigma * static_cast<double>(ratios.size())), ratios.size() - 1);
  std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(k), ratios.end());
  return ratios[k];
}

BandRefit refit(const std::string& check, double band, std::vector<double> ratios) {
  BandRefit r;
  r.check = check;
  r.band = band;
  r.n = static_cast<int64_t>(ratios.size());
  if (ratios.empty()) return r;
  r.coverage = share_within(ratios, 1);
  // The smallest scale that puts kOneSigma of the rows within the scaled band.
  r.scale_for_68 = scale_for_68(std::move(ratios));
  return r;
}

// Each held-out pair's rows of one band value under the factor fitted on the other pairs'
// rows of that band: how many fall within +-1 refitted band, over all pairs; -1 when only
// one pair has rows of the band (nothing to fit on).
double leave_one_pair_out(const std::map<std::string, std::vector<double>>& by_target) {
  int64_t n = 0, within = 0;
  for (const auto& [target, rows] : by_target) {
    std::vector<double> rest;
    for (const auto& [other, other_rows] : by_target)
      if (other != target) rest.insert(rest.end(), other_rows.begin(), other_rows.end());
    if (rest.empty()) continue;
    const double s = scale_for_68(std::move(rest));
    n += static_cast<int64_t>(rows.size());
    within += std::count_if(rows.begin(), rows.end(), [&](double x) { return x <= s; });
  }
  return n > 0 ? static_cast<double>(within) / static_cast<double>(n) : -1;
}

}  // namespace

std::vector<BandRefit> band_refit(const LooReport& loo, const std::vector<PlatformTransfer>& transfers) {
  std::vector<double> l, t, all;
  std::map<double, std::vector<double>> by_band;
  // A target's rows of every precision together, so none of its rows fits its own factor.
  std::map<double, std::map<std::string, std::vector<double>>> by_band_target;
  for (const auto& g : loo.groups)
    for (const auto& b : g.band_ratios) l.push_back(b.ratio);
  for (const auto& r : transfers)
    for (const auto& b : r.chosen_band_ratios) {
      t.push_back(b.ratio), by_band[b.band].push_back(b.ratio);
      // A pair of platforms is held out together, both ways: near-identical cards (MI25 and
      // Vega FE, M40 and Titan X Maxwell) predict each other, and one direction must not fit
      // the other's factor.
      const auto& [lo, hi] = std::minmax(r.target, r.chosen);
      by_band_target[b.band][lo + " & " + hi].push_back(b.ratio);
    }
  all = l;
  all.insert(all.end(), t.begin(), t.end());
  std::vector<BandRefit> out{refit("leave_one_out", -1, l), refit("leave_one_platform_out", -1, t)};
  // Each check's rows under the other check's factor.
  out[0].held_out_scale = out[1].scale_for_68;
  out[0].held_out_coverage = share_within(l, out[0].held_out_scale);
  out[1].held_out_scale = out[0].scale_for_68;
  out[1].held_out_coverage = share_within(t, out[1].held_out_scale);
  for (auto& [band, ratios] : by_band) {
    out.push_back(refit("leave_one_platform_out", band, std::move(ratios)));
    out.back().held_out_coverage = leave_one_pair_out(by_band_target[band]);
  }
  out.push_back(refit("all", -1, all));
  const double n_all = static_cast<double>(all.size());
  if (n_all > 0)
    out.back().held_out_coverage = (out[0].held_out_coverage * static_cast<double>(l.size()) +
                                    out[1].held_out_coverage * static_cast<double>(t.size())) /
                                   n_all;
  return out;
}

}  // namespace fomcast
