// estimate: one workload on one platform, every operation with its method (CANDLE 6-11).
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/calibrate.hpp"
#include "fomcast/error.hpp"
#include "fomcast/estimate.hpp"
#include "fomcast/layers.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/report/estimate.hpp"
#include "fomcast/report/parallel.hpp"
#include "parallel_flags.hpp"

namespace fomcast::cli {
namespace {

// --top: none to every operation a workload could have.
constexpr NumberRange kTopRange{0, 1e6, false, true};

}  // namespace

void add_estimate_command(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("estimate", "Predict a workload's pass, epoch, run and units/day on a platform");
  struct Opts {
    std::string workload, platform, precision;
    double nodes = 1;
    int64_t epochs = 0, batch = 0, samples = 0;
    std::size_t top = 15;
    bool json = false, all = false, verbose = false;
    ParallelFlags parallel;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--workload", o->workload, "Workload name (see `fomcast workloads`)")->required();
  cmd->add_option("--platform", o->platform, "Target platform (see `fomcast platforms`)")->required();
  cmd->add_option("--nodes", o->nodes,
                  "Runs side by side, one per device of the platform (CANDLE's nodes: a DGX's 8 GPUs are --nodes 8; "
                  "under --parallel one run per layout), for units/day (default 1)")
      ->transform(in_range(ranges::nodes));
  cmd->add_option("--epochs", o->epochs, "Epochs per run (default: the workload's)")
      ->transform(in_range(ranges::epochs));
  cmd->add_option(
         "--batch", o->batch,
         "Samples per pass (default: the workload's; traces do not record it; a model is expanded again at it)")
      ->transform(in_range(ranges::batch));
  cmd->add_option("--samples-per-epoch", o->samples, "Samples per epoch (default: the workload's)")
      ->transform(in_range(ranges::samples));
  cmd->add_option("--precision", o->precision,
                  "fp32, tf32, fp16, bf16, amp-fp16 or amp-bf16: the arithmetic of the run (default: the workload's as "
                  "recorded; docs/estimation.md)")
      ->check(empty_precision);
  cmd->add_option("--top", o->top, "Operations listed in the text table (default 15)")->transform(in_range(kTopRange));
  cmd->add_flag("--all", o->all, "List every operation");
  cmd->add_flag("-v,--verbose", o->verbose,
                "Print the estimate's assumptions and notes too, and under --parallel each collective (bytes, "
                "calls a step, time); --json always has them");
  cmd->add_flag("--json", o->json, "JSON output");
  add_parallel_flags(*cmd, o->parallel);
  cmd->callback([&g, o] {
    const PrecisionMode precision = precision_flag(o->precision);
    const auto request = parallel_request(o->parallel, o->parallel.parallel);
    Store store = open_store(g);
    std::optional<Workload> stored = require_workload(store, o->workload);
    auto given = [](int64_t v) { return v > 0 ? std::optional<int64_t>(v) : std::nullopt; };
    require_platform(store, o->platform);  // before a model is expanded again at --batch
    // Under a layout the batch per device comes from --batch-per-gpu or --global-batch: a
    // trace that records none takes it from them to size its epoch (--samples-per-epoch was
    // refused for want of a batch, and --batch is refused beside --parallel).
    int64_t batch = o->batch;
    if (request && batch <= 0 && stored->batch_size <= 0 && o->samples > 0)
      batch = requested_micro_batch(*request).value_or(0);
    const Workload w = with_epoch_size(std::move(*stored), given(batch), given(o->samples), expand_model_at_batch);
    const Catalog catalog = load_catalog(store);
    RunOptions opts;
    opts.nodes = o->nodes;
    if (o->epochs > 0) opts.epochs = o->epochs;
    std::vector<std::string> not_used;  // calibrations measured at another batch than --batch
    opts.measured = measured_passes(w, store.calibrations(w.name), &not_used);
    for (const auto& n : not_used) std::cerr << "note: " << n << "\n";
    opts.precision = precision;
    if (request) {
      if (o->batch > 0) throw UsageError("--batch and --parallel: give the batch as --batch-per-gpu or --global-batch");
      const ParallelRun pr =
          run_parallel(w, o->platform, catalog, *request, expand_model_at_batch, model_layer_costs, opts);
      if (o->json) {
        auto j = estimate_to_json(pr.run, pr.micro);
        add_parallel_json(j, pr.parallel);
        print_json(j);
      } else {
        // The op table is one micro-batch on one device before the layout splits it: its
        // times add up to the single-device pass, not to the step above (the split is below).
        std::cout << estimate_to_text(pr.run, pr.micro, o->all ? pr.micro.ops.size() : o->top, o->verbose,
                                      "top operations of one micro-batch on one device, before the layout splits "
                                      "them (times per call; the step's parts are below)")
                  << parallel_to_text(pr.parallel, o->verbose);
      }
      return;
    }
    require_fits_one_device(w, *catalog.platform(o->platform), model_layer_costs, precision, opts.measured,
                            "--platform");
    const RunEstimate r = estimate_run(w, o->platform, catalog, opts);
    const Workload shown = apply_precision(w, precision).workload;  // the ops' types and bytes as estimated
    if (o->json)
      print_json(estimate_to_json(r, shown));
    else
      std::cout << estimate_to_text(r, shown, o->all ? shown.ops.size() : o->top, o->verbose);
  });
}

}  // namespace fomcast::cli
