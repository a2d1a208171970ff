// validate's band_refit: what the band rule would have to become for its +-1 band to hold
// two thirds of the held-out truths, per check and per band value, measured on the same
// rows band_coverage counts. It is printed, not applied: a refit belongs with the method
// whose band it is (docs/accuracy.md, "Band coverage").
#include <algorithm>
#include <map>

#include "fomcast/validate.hpp"

namespace fomcast {
namespace {

constexpr double kOneSigma = 0.6827;  // the share within +-1 standard deviation of a normal

BandRefit refit(const std::string& check, double band, std::vector<double> ratios) {
  BandRefit r;
  r.check = check;
  r.band = band;
  r.n = static_cast<int64_t>(ratios.size());
  if (ratios.empty()) return r;
  r.coverage = static_cast<double>(std::count_if(ratios.begin(), ratios.end(), [](double x) { return x <= 1; })) /
               static_cast<double>(ratios.size());
  // The smallest scale that puts kOneSigma of the rows within the scaled band.
  const auto k = static_cast<std::size_t>(kOneSigma * static_cast<double>(ratios.size()));
  std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(std::min(k, ratios.size() - 1)),
                   ratios.end());
  r.scale_for_68 = ratios[std::min(k, ratios.size() - 1)];
  return r;
}

}  // namespace

std::vector<BandRefit> band_refit(const LooReport& loo, const std::vector<PlatformTransfer>& transfers) {
  std::vector<double> l, t, all;
  std::map<double, std::vector<double>> by_band;
  for (const auto& g : loo.groups)
    for (const auto& b : g.band_ratios) l.push_back(b.ratio);
  for (const auto& r : transfers)
    for (const auto& b : r.chosen_band_ratios) t.push_back(b.ratio), by_band[b.band].push_back(b.ratio);
  all = l;
  all.insert(all.end(), t.begin(), t.end());
  std::vector<BandRefit> out{refit("leave_one_out", -1, l), refit("leave_one_platform_out", -1, t)};
  for (auto& [band, ratios] : by_band) out.push_back(refit("leave_one_platform_out", band, std::move(ratios)));
  out.push_back(refit("all", -1, all));
  return out;
}

}  // namespace fomcast
