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

// validate's shared_op_error: what calibration carries of a baseline's op-model error.
nlohmann::json shared_op_error_to_json(const std::vector<SharedOpError>&);
std::string shared_op_error_to_text(const std::vector<SharedOpError>&);

// validate's band_refit: the band scale for two thirds, per check.
nlohmann::json band_refit_to_json(const std::vector<BandRefit>&);
std::string band_refit_to_text(const std::vector<BandRefit>&);

}  // namespace fomcast
