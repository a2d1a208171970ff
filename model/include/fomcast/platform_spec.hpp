// A platform spec a person wrote (`fomcast platforms add SPEC.json`): the schema of
// data/platforms/*.json (platform.hpp's platform_from_json), checked strictly before anything
// is stored, because a typo in a spec becomes a silently wrong estimate. Every problem is an
// InputError naming the file and the field ("peak_tflop_per_s.fp32.source").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fomcast/platform.hpp"

namespace fomcast {

// The top-level keys a platform spec may have (name, description, ..., every figure's key).
const std::vector<std::string>& platform_spec_keys();

// The closest known key to a misspelt one ("mem_bw_gbps" -> "mem_bw_gb_per_s"), "" if none
// is close: same words in another order or spelling, or a small edit distance.
std::string nearest_platform_spec_key(std::string_view key);

// Parses and checks a user's spec: valid JSON (errors with line and byte), an object, no
// unknown key (with "did you mean"), a non-empty name a platform may have, strings where
// strings belong, every figure {"value": positive finite number, "source": non-empty text}
// with nothing else in it, counts (compute_units, devices_per_node, nics_per_node) whole,
// peaks keyed by fomcast's dtype names (fp64, fp32, tf32, fp16, bf16, fp8, int8), at least
// one peak and a memory bandwidth (what every estimate needs), origin absent or "user".
// Returns the platform with origin user.
Platform parse_user_platform_spec(std::string_view text, std::string_view file);

// Figures that are each valid but unlikely together, most likely a typo ("bf16": 10 for
// 1000): a 16-bit peak below the fp32 one, an 8-bit peak below the 16-bit ones. One line each,
// naming the field; the spec is still taken (a co-design point may be unusual on purpose).
std::vector<std::string> implausible_spec_figures(const Platform&);

}  // namespace fomcast
