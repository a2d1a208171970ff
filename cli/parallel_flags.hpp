// The many-device flags `estimate`, `whatif` and `scaling` share (--parallel and friends),
// and the model's layer list for the layout.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "fomcast/parallel.hpp"

namespace fomcast::cli {

struct ParallelFlags {
  std::string parallel;
  int64_t micro_batches = 0, gpus_per_node = 0, global_batch = 0, batch_per_gpu = 0;
  int zero = 0;
  double bucket_mb = 25;
  bool recompute = false, recompute_attention = false, sequence_parallel = false;
};
// `with_layout`: --parallel itself too (scaling has its own).
void add_parallel_flags(CLI::App&, ParallelFlags&, bool with_layout = true);
// The request the flags make with `layout_text` as --parallel; nullopt when it is empty.
std::optional<ParallelRequest> parallel_request(const ParallelFlags&, const std::string& layout_text);
// stored_model_layers as the layout reads them.
std::vector<LayerCost> model_layer_costs(const Workload&);

}  // namespace fomcast::cli
