// Whether an execution trace and a Kineto trace are records of one run, by their op ids:
// Kineto's `External id` is the ET's `rf_id`, though not always one for one (the DLRM
// traces number Kineto's ops one higher, and the second half of the step 233 higher, than
// the ET's). The agreement is the share of the ET's ops that find a Kineto op of the same
// name at their id plus the offset that fits their neighbourhood best: blocks of 100 ET
// ops in id order, each with its own best offset.
//
// Measured on the shared files (docs/ingest.md): ETs and Kineto traces of one run agree at
// 93% to 100%; of different runs at 9% to 38% (two ResNet-50 runs of different programs,
// whose op sequences look alike, at the most). Below kMinEtAgreement the join is refused.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pytorch/execution_trace.hpp"

namespace fomcast::ingest {

inline constexpr double kMinEtAgreement = 0.60;

struct EtAgreement {
  std::size_t et_ops = 0;  // ET ops with an rf_id
  std::size_t agree = 0;   // of those, the ones a Kineto op of the same name matches
  double share() const { return et_ops ? static_cast<double>(agree) / static_cast<double>(et_ops) : 0; }
};

// kineto_ops: (External id, name key) of Kineto's CPU ops; name(key) gives the op's name.
// nullopt when the ET has no op with an rf_id (nothing to judge by).
std::optional<EtAgreement> et_kineto_agreement(const EtIndex& et,
                                               const std::vector<std::pair<int64_t, uint32_t>>& kineto_ops,
                                               const std::function<const std::string&(uint32_t)>& name);

}  // namespace fomcast::ingest
