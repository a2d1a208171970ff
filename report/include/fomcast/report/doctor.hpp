// `fomcast doctor`: what a database file is (a sound fomcast database, corrupt, another
// program's file, read-only) and what it holds, read without writing to it.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/store.hpp"

namespace fomcast {

// `shipped_current`: whether the file holds this build's shipped data.
nlohmann::json doctor_to_json(const std::string& path, const Store::Health&, bool shipped_current);
std::string doctor_to_text(const std::string& path, const Store::Health&, bool shipped_current);

}  // namespace fomcast
