// `fomcast fom`: the FOM table (one row per problem, both sides' time per unit and
// units/day, the ratio and how each side's time was obtained), its calibration lines and
// notes; the JSON form carries the FOM's uncertainty as well. `fomcast history`: the FOMs
// recorded with `fom --record`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/fom.hpp"

namespace fomcast {

nlohmann::json fom_to_json(const FomResult&);
// The table, the FOM and at most three lines of warnings; `verbose` adds each problem's
// calibration, every host-bound side and every note (which the JSON always carries).
std::string fom_to_text(const FomResult&, const Study&, bool verbose = false);
// The warnings a person must see, each one line, most important first: host-bound sides,
// problems whose epoch is unknown, precisions a side's spec has no rate for, uncalibrated
// problems. `fom` prints the first three; the HTML report all of them.
std::vector<std::string> fom_warnings(const FomResult&);

// Oldest first; the text gives each record's change against the study's previous one.
nlohmann::json fom_history_to_json(const std::vector<FomRecord>&);
std::string fom_history_to_text(const std::vector<FomRecord>&);

}  // namespace fomcast
