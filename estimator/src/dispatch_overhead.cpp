// Per-op dispatch cost by framework generation. Each figure is the median host-side time of
// one operation call in a published trace of that framework, read by a few lines of Python
// over the file (recorded in docs/calibration.md, "Dispatch cost per op call"):
//  - PyTorch eager: the median duration of the top-level cpu_op events (ops not nested in
//    another op) in AMD-AGI/TraceLens tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz
//    (commit 674f3878, PyTorch 2 on an H100 host, AMD EPYC 9654): 13.0 us over 104 calls;
//    the MI300X trace of the same model (Intel Xeon Platinum 8480C host) gives 8.3 us.
//  - TensorFlow 1.x graph executor: the median duration of the 80 op events on the
//    ".../device:GPU:0 Compute" lane (the executor's host-side launch of each op) in
//    ikhlestov/tensorflow_profiling profiles/GPU/timeline_02_step_0.json (commit c1ccd69e):
//    5.5 us.
#include "dispatch_overhead.hpp"

#include <algorithm>

namespace fomcast::est {

namespace {

constexpr double kPytorchEagerS = 13.0e-6;
constexpr double kTf1GraphS = 5.5e-6;

}  // namespace

std::string_view to_string(Framework f) {
  switch (f) {
    case Framework::pytorch_eager: return "PyTorch eager";
    case Framework::tf1_graph: return "TensorFlow 1.x graph (Keras)";
    case Framework::unknown: return "unknown framework";
  }
  return "?";
}

Framework framework_of(const Workload& w) {
  const std::string& o = w.origin;
  if (o.rfind("kineto", 0) == 0 || o == "pytorch-et" || o == "chakra-json" || o == "chakra-et")
    return Framework::pytorch_eager;
  if (o == "model" || o == "tf-timeline" || o == "tfprof-op" || o == "tfprof-shapes") return Framework::tf1_graph;
  return Framework::unknown;
}

DispatchCost dispatch_cost(Framework f) {
  const std::string pt =
      "median host time of a top-level PyTorch op call, 13.0 us over 104 calls, in TraceLens "
      "tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz (PyTorch 2, AMD EPYC 9654 host)";
  const std::string tf =
      "median host time of a TensorFlow 1.x executor op launch, 5.5 us over 80 ops, in "
      "ikhlestov/tensorflow_profiling profiles/GPU/timeline_02_step_0.json";
  switch (f) {
    case Framework::pytorch_eager: return {kPytorchEagerS, pt};
    case Framework::tf1_graph: return {kTf1GraphS, tf};
    case Framework::unknown: break;
  }
  return {std::max(kPytorchEagerS, kTf1GraphS), "framework not known: the larger known figure, " + pt};
}

}  // namespace fomcast::est
