// The Kineto reader's entry for callers other than the registry: one Kineto trace read with
// the execution trace of the same run (or none), for the multi-rank reader (ranks.cpp).
#pragma once

#include <optional>

#include <string>

#include "common/input.hpp"
#include "fomcast/ingest.hpp"
#include "pytorch/execution_trace.hpp"

namespace fomcast::ingest {

// The rank a Kineto trace names in its distributedInfo, if it names one (ranks.cpp). Throws
// InputError, naming the field, for a rank or world size that is no rank of a job.
std::optional<int64_t> kineto_trace_rank(const InputFile&);

// Times from the Kineto trace, shapes from `et` (null: Kineto alone); `et_path` names the
// ET in messages. Throws InputError when the two are not records of one run.
Workload read_kineto_joined(const InputFile& kineto, const EtIndex* et, const std::string& et_path,
                            const IngestOptions&);

}  // namespace fomcast::ingest
