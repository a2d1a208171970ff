// `fomcast calibrate`: the measured time as one pass, split on its platform into the
// modelled operations and the residual that estimates elsewhere carry.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/calibrate.hpp"

namespace fomcast {

nlohmann::json calibration_to_json(const CalibrationResult&);
std::string calibration_to_text(const CalibrationResult&);

// `fomcast calibrate --clear`: whether a stored calibration of the workload on the
// platform was removed (false: there was none).
nlohmann::json calibration_cleared_to_json(const std::string& workload, const std::string& platform, bool removed);
std::string calibration_cleared_to_text(const std::string& workload, const std::string& platform, bool removed);

}  // namespace fomcast
