// The host time a framework spends per operation call (Python, dispatch, executor, kernel
// launch), by framework generation: the per-op part of the host and framework time that a
// calibration splits off a measured pass of a workload without per-op measured times
// (docs/calibration.md). Figures are measured from published traces, each named with its
// source; they are times on those traces' hosts, not on the reference host.
#pragma once

#include <string>
#include <string_view>

#include "fomcast/workload.hpp"

namespace fomcast::est {

enum class Framework {
  pytorch_eager,  // PyTorch eager mode (Kineto, execution traces, Chakra)
  tf1_graph,      // TensorFlow 1.x graph executor, and Keras on it (TF timelines, tfprof, layer lists)
  unknown,        // cProfile, TAU, nsys, ...: the framework is not known
};
std::string_view to_string(Framework);

struct DispatchCost {
  double seconds_per_op_call = 0;
  std::string source;  // where the figure was measured
};

// The framework a workload ran under, from the format it was read from (model layer lists
// are Keras layer lists: docs/model-format.md).
Framework framework_of(const Workload&);
// The figure for a framework; for `unknown`, the larger of the known ones, said in the source.
DispatchCost dispatch_cost(Framework);

}  // namespace fomcast::est
