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

namespace fomcast::cli {

void add_estimate_command(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("estimate", "Predict a workload's pass, epoch, run and units/day on a platform");
  struct Opts {
    std::string workload, platform;
    double nodes = 1;
    int64_t epochs = 0, batch = 0, samples = 0;
    std::size_t top = 15;
    bool json = false, all = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--workload", o->workload, "Workload name (see `fomcast workloads`)")->required();
  cmd->add_option("--platform", o->platform, "Target platform (see `fomcast platforms`)")->required();
  cmd->add_option("--nodes", o->nodes, "Nodes running runs side by side, for units/day (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--epochs", o->epochs, "Epochs per run (default: the workload's)")->check(CLI::PositiveNumber);
  cmd->add_option(
         "--batch", o->batch,
         "Samples per pass (default: the workload's; traces do not record it; a model is expanded again at it)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--samples-per-epoch", o->samples, "Samples per epoch (default: the workload's)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--top", o->top, "Operations listed in the text table (default 15)");
  cmd->add_flag("--all", o->all, "List every operation");
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([&g, o] {
    Store store = open_store(g);
    auto stored = store.workload(o->workload);
    if (!stored) throw UsageError("no workload named '" + o->workload + "' (see `fomcast workloads`)");
    check_platform_name(o->platform, store.platforms());
    if (!store.platform(o->platform))
      throw UsageError("no platform named '" + o->platform + "' (see `fomcast platforms`)");
    auto given = [](int64_t v) { return v > 0 ? std::optional<int64_t>(v) : std::nullopt; };
    const Workload w = with_epoch_size(std::move(*stored), given(o->batch), given(o->samples), expand_model_at_batch);
    const Catalog catalog = load_catalog(store);
    RunOptions opts;
    opts.nodes = o->nodes;
    if (o->epochs > 0) opts.epochs = o->epochs;
    opts.measured = measured_passes(w, store.calibrations(w.name));
    const RunEstimate r = estimate_run(w, o->platform, catalog, opts);
    if (o->json)
      print_json(estimate_to_json(r, w));
    else
      std::cout << estimate_to_text(r, w, o->all ? w.ops.size() : o->top);
  });
}

}  // namespace fomcast::cli
