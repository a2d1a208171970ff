// `fomcast whatif`: the contract's JSON (workload, platform, pass_s, reference_pass_s,
// speedup) plus the split and the classes; text for people.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/whatif.hpp"

namespace fomcast {

nlohmann::json whatif_to_json(const WhatIf&);
std::string whatif_to_text(const WhatIf&);

}  // namespace fomcast
