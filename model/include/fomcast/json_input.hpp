// JSON a person wrote (a study, a platform spec, a model description), read one way: a
// syntax error names the line and byte, a number JSON cannot hold names the file, and a key
// given twice in one object is an error naming its path. nlohmann::json keeps the last of
// duplicate keys without a word, so `"nodes": 4, ..., "nodes": 1` would run on one node.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fomcast {

// Throws InputError(file, ...) on any of the above; a UTF-8 byte order mark is allowed.
nlohmann::json parse_json_input(std::string_view text, const std::string& file);

}  // namespace fomcast
