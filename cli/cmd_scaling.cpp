// scaling: one workload's step on a platform as one layout key grows (strong or weak).
#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/calibrate.hpp"
#include "fomcast/error.hpp"
#include "fomcast/layers.hpp"
#include "fomcast/parallel.hpp"
#include "fomcast/report/parallel.hpp"
#include "parallel_flags.hpp"

namespace fomcast::cli {

void add_scaling_command(CLI::App& app, Globals& g) {
  auto* cmd =
      app.add_subcommand("scaling", "Scaling efficiency of a workload as data, tensor or pipeline parallel grows");
  struct Opts {
    std::string workload, platform, sweep, precision;
    bool weak = false, json = false;
    ParallelFlags parallel;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--workload", o->workload, "Workload name (a model, or a trace with shapes: its layers are needed)")
      ->required();
  cmd->add_option("--platform", o->platform, "Target platform")->required();
  cmd->add_option("--parallel", o->sweep,
                  "The layouts: one key with several values, e.g. dp=1,2,4,...,1024 (... doubles) or dp=8,tp=1,2,4")
      ->required();
  cmd->add_option("--precision", o->precision,
                  "fp32, tf32, fp16, bf16, amp-fp16 or amp-bf16: the arithmetic of the run (default: the workload's as "
                  "recorded; docs/estimation.md)")
      ->check(empty_precision);
  cmd->add_flag("--weak", o->weak, "Weak scaling: the batch per device fixed (default strong: the global batch fixed)");
  cmd->add_flag("--json", o->json, "JSON output");
  add_parallel_flags(*cmd, o->parallel, false);
  cmd->callback([&g, o] {
    const PrecisionMode precision = precision_flag(o->precision);
    const auto [layout, sweep] = parse_sweep(o->sweep);
    auto request =
        parallel_request(o->parallel, "dp=" + std::to_string(layout.dp) + ",tp=" + std::to_string(layout.tp) +
                                          ",pp=" + std::to_string(layout.pp));
    Store store = open_store(g);
    std::optional<Workload> stored = require_workload(store, o->workload);
    require_platform(store, o->platform);
    const Catalog catalog = load_catalog(store);
    RunOptions opts;
    opts.measured = measured_passes(*stored, store.calibrations(stored->name));
    opts.precision = precision;
    const ScalingCurve c = scaling_curve(*stored, o->platform, catalog, *request, sweep.first, sweep.second, o->weak,
                                         expand_model_at_batch, model_layer_costs, opts);
    if (o->json)
      print_json(scaling_to_json(c));
    else
      std::cout << scaling_to_text(c);
    // The table is printed (each point says why), but a sweep with no estimate at all is a
    // failure to a script: exit 0 had read as a curve.
    const bool none = std::none_of(c.points.begin(), c.points.end(), [](const auto& p) { return p.error.empty(); });
    if (none && !c.points.empty())
      throw UsageError("no point of the sweep has an estimate (the first: " + c.points.front().error + ")");
  });
}

}  // namespace fomcast::cli
