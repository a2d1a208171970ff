// The JSON-family readers' entry points, for the format registry (registry.cpp): each
// format is a detect function (cheap, on the decompressed head) and a read function.
#pragma once

#include <string_view>

#include "fomcast/ingest.hpp"
#include "common/input.hpp"

namespace fomcast::ingest {

int detect_kineto(std::string_view head, std::string_view path);
Workload read_kineto_format(const InputFile&, const IngestOptions&);

int detect_pytorch_et(std::string_view head, std::string_view path);
int detect_chakra_json(std::string_view head, std::string_view path);
Workload read_pytorch_et(const InputFile&, const IngestOptions&);
Workload read_chakra_json(const InputFile&, const IngestOptions&);

int detect_tf_timeline(std::string_view head, std::string_view path);
Workload read_tf_timeline(const InputFile&, const IngestOptions&);

// Two files of one run read together: an execution trace (either ET format) lending its
// shapes to the Kineto trace that timed it.
Workload read_kineto_with_et(const InputFile& kineto, const InputFile& et, const IngestOptions&);

}  // namespace fomcast::ingest
