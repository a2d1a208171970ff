// JSON forms of shapes, operations and model statistics: the store keeps them as text and
// `--json` output prints the same objects.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "fomcast/op.hpp"
#include "fomcast/workload.hpp"

namespace fomcast {

nlohmann::json shape_to_json(const OpShape&);    // {"type": "gemm", "m": ..} or null
OpShape shape_from_json(const nlohmann::json&);  // throws std::invalid_argument on bad form
nlohmann::json op_to_json(const Op&);
Op op_from_json(const nlohmann::json&);
nlohmann::json model_stats_to_json(const ModelStats&);
ModelStats model_stats_from_json(const nlohmann::json&);

}  // namespace fomcast
