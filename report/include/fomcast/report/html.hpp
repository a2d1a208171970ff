// `fomcast report`: a study as one self-contained HTML page for vendor co-design reports
// and HPC-centre decisions. Charts are inline SVG; the page loads nothing (no script, font,
// style sheet or image from anywhere) and prints readably. It reads the same FomResult
// that `fom` prints, so every number on it is the one `fom --json` gives.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fomcast/fom.hpp"
#include "fomcast/model.hpp"
#include "fomcast/store.hpp"

namespace fomcast {

struct HtmlReportInput {
  const Study* study = nullptr;
  const FomResult* fom = nullptr;
  std::optional<Platform> baseline_platform, target_platform;  // their figures and sources
  std::vector<FomRecord> history;  // this study's recorded FOMs (`fom --record`), oldest first
  std::string generated_at;        // ISO 8601 UTC
  std::string version;             // "fomcast 0.1.0"
  std::string commit;              // "" when unknown
  std::string database;            // the store's path
  // Weak scaling curves over dp of the problems that set a parallel layout, on each side's
  // platform (`fomcast scaling`): plotted in their own section.
  std::vector<ScalingCurve> scaling;
};

std::string report_to_html(const HtmlReportInput&);

}  // namespace fomcast
