// validate's end_to_end check (issue 13): published single-GPU training throughput of
// models fomcast ships (data/e2e/published.csv, each row cited) against `estimate`'s pass
// at the same batch and precision, and the speedups between GPUs that the same source
// published, against the predicted ones; and rows of several GPUs (issue 15) against the
// data-parallel estimate. Held out: no constant is fitted to these rows.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/estimate.hpp"
#include "fomcast/precision.hpp"

namespace fomcast {

// One published measurement: `gpus` devices, `samples_per_s` in all.
struct E2eRow {
  std::string id, workload, platform, source, quote;
  int64_t batch = 0;  // per GPU
  PrecisionMode precision = PrecisionMode::fp32;
  int64_t gpus = 1;
  double samples_per_s = 0;
  // The run's activation layout where it differs from the model's (optional column):
  // "channels_last" for a run with memory_format=torch.channels_last, "" for the model's.
  std::string memory_format;
  int64_t line = 0;  // in the CSV, for errors
};
// Parses data/e2e/published.csv's form; every bad field is an InputError naming the file,
// the line and the column.
std::vector<E2eRow> parse_e2e_rows(std::string_view csv_text, std::string_view file);

struct E2eResult {
  E2eRow row;
  double published_step_s = 0;              // batch / samples_per_s
  double predicted_step_s = 0;              // estimate's pass_s at the row's batch and precision
  double error = 0;                         // (predicted - published) / published
  std::map<std::string, double> by_kind_s;  // the predicted step by op kind
  double roofline_capped_s = 0;             // of the step, ops raised to their roofline
};
// Two rows of one source, workload and precision class (fp32 storage: fp32/tf32; or the
// half-precision modes) on different platforms: the speedup of `to` over `from`.
struct E2eSpeedup {
  std::string from_id, to_id, from_platform, to_platform, workload;
  double published = 0, predicted = 0;  // samples/s ratio to / from
  double error = 0;                     // predicted / published - 1
};
// A row of several GPUs, data parallel at its batch per GPU: its step against the predicted
// one, and its scaling efficiency (samples/s over gpus x one GPU's, the one-GPU row of the
// same source, workload, platform and precision) against the predicted one.
struct E2eMultiResult {
  E2eRow row;
  double published_step_s = 0, predicted_step_s = 0;
  double error = 0;         // (predicted - published) / published
  bool has_single = false;  // a one-GPU row to take the efficiencies against
  double published_efficiency = 0, predicted_efficiency = 0;
};
struct E2eReport {
  std::vector<E2eResult> rows;
  std::vector<E2eSpeedup> speedups;
  std::vector<E2eMultiResult> multi_gpu;
  double median_abs_step_error = 0;
  double median_abs_speedup_error = 0;
  double median_abs_multi_gpu_step_error = 0;
  // Of predicted efficiency / published efficiency - 1.
  double median_abs_efficiency_error = 0;
};

// The workload a row names, expanded at a batch (the CLI reads the layer lists).
using E2eWorkloadSource = std::function<Workload(const E2eRow&)>;
// A row's predicted step on row.gpus devices, data parallel (the CLI runs `estimate
// --parallel dp=gpus --batch-per-gpu batch`); empty: rows of several GPUs are not checked.
using E2eParallelStep = std::function<double(const E2eRow&)>;
E2eReport validate_end_to_end(const std::vector<E2eRow>&, const Catalog&, const E2eWorkloadSource&,
                              const E2eParallelStep& = {});

}  // namespace fomcast
