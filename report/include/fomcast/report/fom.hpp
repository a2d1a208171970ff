// `fomcast fom`: the FOM table (one row per problem, both sides' time per unit and
// units/day, the ratio and how each side's time was obtained), its calibration lines and
// notes; the JSON form carries the FOM's uncertainty as well.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/fom.hpp"

namespace fomcast {

nlohmann::json fom_to_json(const FomResult&);
std::string fom_to_text(const FomResult&, const Study&);

}  // namespace fomcast
