// `fomcast validate`: leave-one-out per platform and group, leave-one-platform-out with the
// proxy the estimator picks, and cross-hardware pass-time checks.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/validate.hpp"

namespace fomcast {

nlohmann::json validation_to_json(const LooReport&, const std::vector<PlatformTransfer>&,
                                  const std::vector<CrossHardware>&, const std::vector<LeavePlatformOut>& = {});
std::string validation_to_text(const LooReport&, const std::vector<PlatformTransfer>&,
                               const std::vector<CrossHardware>&, const std::vector<LeavePlatformOut>& = {});

}  // namespace fomcast
