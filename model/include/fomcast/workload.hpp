// A workload: the distinct operations of one training pass with their counts and measured
// times, what its source said about it, and the ranking of its operations by time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fomcast/op.hpp"

namespace fomcast {

// One call of an operation in one pass, in the order the source ran them, with the earlier
// calls whose outputs it reads (a PyTorch execution trace's tensor data dependencies).
struct OpCall {
  std::size_t op = 0;              // into Workload::ops
  std::vector<std::size_t> after;  // into Workload::calls, each smaller than this call's own index
};

// What a model description tells us (null in `show` for traces).
struct ModelStats {
  int64_t params = 0;
  double forward_macs = 0;  // per sample
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;  // per batch, kept for the backward pass
};

// What a trace says of its device besides a name, where the name is no model (XPlane's
// "AMD GPU" with core_count and memory_size): enough to recognise a platform by its spec's
// figures. Used at ingest to decide where the trace was recorded; not stored.
struct DeviceFigures {
  std::string vendor;         // "AMD", "NVIDIA"; "" when unknown
  int64_t compute_units = 0;  // SMs or CUs; 0 when unknown
  double mem_bytes = 0;       // device memory; 0 when unknown
};

struct Workload {
  std::string name;
  std::string origin;       // format that produced it: "kineto", "model", "tfprof-op", ...
  std::string source;       // file(s) it was read from
  std::string recorded_on;  // platform the measured times belong to; "" when none
  std::string device;       // the device the trace names ("Tesla V100-SXM2-32GB"); "" when none
  int64_t batch_size = 0;   // 0: unknown
  int64_t samples_per_epoch = 0;
  int64_t epochs = 0;
  int64_t passes = 0;            // steps found in the trace
  std::optional<double> pass_s;  // measured mean time of one pass
  int64_t events = 0;            // events read from the source
  DeviceFigures device_figures;  // where the device's name is no model; not stored
  int64_t ranks = 1;             // processes of the distributed job the profile covers
  // Each rank's measured step, in rank order, where several ranks' traces were read
  // together (pass_s is then the slowest); empty otherwise.
  std::vector<double> rank_pass_s;
  std::optional<ModelStats> model;
  // The activations' layout where the source says it: "channels_first" (NCHW, PyTorch's
  // default), "channels_last" (NHWC); "" unknown. Tensor-core convs on channels-first
  // activations pay cuDNN's layout transforms (estimator/src/layout_transform.hpp).
  std::string memory_format;
  std::vector<std::string> notes;  // what the reader assumed ("no step markers: one pass")
  std::vector<Op> ops;
  // One pass's calls in execution order with their data dependencies, where the source
  // records them (execution traces); empty otherwise. The op graph builds on them.
  std::vector<OpCall> calls;

  double measured_op_time_s() const;  // sum of count x self time over ops with a time
};

// CANDLE step 3: the operations ranked by measured time per pass (count x self time),
// largest first; `in_top` marks the smallest leading set whose cumulative share reaches
// `coverage`. Ops without a measured time follow, ranked by FLOPs, never in the top set.
struct RankedOp {
  std::size_t index = 0;  // into Workload::ops
  double time_s = 0;      // per pass
  double share = 0;
  double cumulative_share = 0;
  bool in_top = false;
};
std::vector<RankedOp> rank_ops(const Workload&, double coverage = 0.95);

}  // namespace fomcast
