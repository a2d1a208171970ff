// `fomcast calibrate`: the measured time as one pass, split on its platform into the
// modelled operations and the residual that estimates elsewhere carry.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/calibrate.hpp"

namespace fomcast {

nlohmann::json calibration_to_json(const CalibrationResult&);
std::string calibration_to_text(const CalibrationResult&);

}  // namespace fomcast
