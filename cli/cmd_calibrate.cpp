// calibrate, whatif: projecting from a measured run (CANDLE step 1), and what a platform
// with one resource or one class of operations made faster would do.
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/calibrate.hpp"
#include "fomcast/error.hpp"
#include "fomcast/input_checks.hpp"
#include "fomcast/layers.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/report/calibration.hpp"
#include "fomcast/report/parallel.hpp"
#include "fomcast/report/whatif.hpp"
#include "fomcast/whatif.hpp"
#include "parallel_flags.hpp"

namespace fomcast::cli {
namespace {

struct Named {
  Workload workload;
  std::vector<Calibration> calibrations;
};

// The workload and its stored calibrations; UsageError for an unknown workload or platform.
Named lookup(const Store& store, const std::string& workload, const std::string& platform) {
  std::optional<Workload> w = require_workload(store, workload, "--workload");
  require_platform(store, platform);
  return Named{std::move(*w), store.calibrations(workload)};
}

void add_calibrate(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Record a measured time of a workload on a platform (CANDLE step 1): estimates then project from it, carrying "
      "its host and framework residual. Give exactly one of --pass-s, --epoch-s, --run-hours (the measurement) or "
      "--clear (remove the stored one); one calibration per workload and platform, a new one replaces it "
      "(docs/calibration.md)");
  struct Opts {
    std::string workload, platform, note;
    std::optional<double> pass_s, epoch_s, run_hours;
    int64_t batch = 0;
    bool json = false, clear = false, force = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--workload", o->workload, "Workload name (see `fomcast workloads`)")->required();
  cmd->add_option("--platform", o->platform, "Platform the time was measured on (see `fomcast platforms`)")->required();
  cmd->add_option("--pass-s", o->pass_s, "Measured seconds per pass (training step)")
      ->transform(in_range(ranges::seconds));
  cmd->add_option("--epoch-s", o->epoch_s, "Measured seconds per epoch")->transform(in_range(ranges::seconds));
  cmd->add_option("--run-hours", o->run_hours, "Measured hours per run (the workload's epochs)")
      ->transform(in_range(ranges::hours));
  cmd->add_option("--batch", o->batch,
                  "Samples per pass the measurement ran at (default: the workload's; a model is expanded again at "
                  "it); an estimate or study at another batch does not use the calibration")
      ->transform(in_range(ranges::batch));
  cmd->add_flag("--clear", o->clear, "Remove the workload's calibration on the platform instead of recording one");
  cmd->add_option("--note", o->note, "Where the measurement comes from");
  cmd->add_flag("--force", o->force,
                "Record a time more than 1000x the roofline of the workload's operations on the platform (a time "
                "below it is always refused)");
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([&g, o] {
    if (const std::string p = note_text_problem(o->note); !p.empty()) throw UsageError("--note: " + p);
    const int given = (o->pass_s ? 1 : 0) + (o->epoch_s ? 1 : 0) + (o->run_hours ? 1 : 0) + (o->clear ? 1 : 0);
    if (given != 1)
      throw UsageError(std::string(given ? "give only one" : "give exactly one") +
                       " of --pass-s, --epoch-s, --run-hours (the measured time of a pass, an epoch or a whole run) "
                       "and --clear (remove the stored calibration)");
    if (o->clear) {
      Store store = open_store(g);
      (void)lookup(store, o->workload, o->platform);
      int64_t removed = 0;
      store.transaction([&] { removed = store.delete_calibrations(o->workload, o->platform); });
      if (o->json)
        print_json(calibration_cleared_to_json(o->workload, o->platform, removed > 0));
      else
        std::cout << calibration_cleared_to_text(o->workload, o->platform, removed > 0);
      return;
    }
    const std::optional<double> run_s = o->run_hours ? std::optional<double>(*o->run_hours * 3600.0) : std::nullopt;
    check_measured_time(o->pass_s, o->epoch_s, run_s);  // before the database is touched
    Store store = open_store(g);
    Named n = lookup(store, o->workload, o->platform);
    if (o->batch > 0 && o->batch != n.workload.batch_size) {
      // A trace's ops are the batch it ran: a measurement at another is of other ops.
      if (n.workload.origin != "model" && n.workload.batch_size > 0)
        throw UsageError("--batch " + std::to_string(o->batch) + ": workload '" + o->workload +
                         "' is a trace recorded at batch " + std::to_string(n.workload.batch_size) +
                         ", and its operations are that batch's; ingest a trace of the run at batch " +
                         std::to_string(o->batch) + " to calibrate it");
      n.workload = with_epoch_size(std::move(n.workload), o->batch, std::nullopt, expand_model_at_batch);
    }
    const Calibration c = make_calibration(n.workload, o->platform, o->pass_s, o->epoch_s, run_s, o->note);
    const Catalog catalog = load_catalog(store);
    const CalibrationResult r = split_calibration(n.workload, c, catalog, o->force);  // fails before any write
    store.put_calibration(c);
    if (o->json)
      print_json(calibration_to_json(r));
    else
      std::cout << calibration_to_text(r);
  });
}

void add_whatif(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("whatif",
                                 "A workload on a hypothetical platform: peak_flops, mem_bw, net_bw, overhead or host "
                                 "scaled, or one kind of operation made faster (Amdahl)");
  struct Opts {
    std::string workload, platform, scale, precision;
    bool json = false;
    ParallelFlags parallel;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--workload", o->workload, "Workload name (see `fomcast workloads`)")->required();
  cmd->add_option("--platform", o->platform, "The platform to change (see `fomcast platforms`)")->required();
  cmd->add_option(
         "--scale", o->scale,
         "KEY=FACTOR[,KEY=FACTOR...]: how many times better; keys peak_flops, mem_bw, net_bw, host_link, overhead, "
         "host, "
         "kind:<kind> (gemm, batched_gemm, conv, rnn, elementwise, reduction, normalization, pooling, "
         "embedding, optimizer, collective, memcpy, other)")
      ->required();
  cmd->add_option("--precision", o->precision,
                  "fp32, tf32, fp16, bf16, amp-fp16 or amp-bf16: the reference runs in it (default: as recorded)")
      ->check(empty_precision);
  cmd->add_flag("--json", o->json, "JSON output");
  add_parallel_flags(*cmd, o->parallel);
  cmd->callback([&g, o] {
    const ScaleSpec spec = parse_scale(o->scale, "--scale");
    const PrecisionMode precision = precision_flag(o->precision);
    const auto request = parallel_request(o->parallel, o->parallel.parallel);
    Store store = open_store(g);
    const Named n = lookup(store, o->workload, o->platform);
    const Catalog catalog = load_catalog(store);
    if (request) {
      RunOptions opts;
      opts.measured = measured_passes(n.workload, n.calibrations);
      opts.precision = precision;
      const ParallelWhatIf r = what_if_parallel(n.workload, o->platform, catalog, spec, *request, expand_model_at_batch,
                                                model_layer_costs, opts);
      if (o->json)
        print_json(parallel_whatif_to_json(r));
      else
        std::cout << parallel_whatif_to_text(r);
      return;
    }
    const auto measured = measured_passes(n.workload, n.calibrations);
    // The reference is an estimate on the platform: held to its memory as `estimate` is.
    require_fits_one_device(n.workload, *catalog.platform(o->platform), model_layer_costs, precision, measured,
                            "--platform");
    const WhatIf r = what_if(n.workload, o->platform, catalog, spec, measured, precision);
    if (o->json)
      print_json(whatif_to_json(r));
    else
      std::cout << whatif_to_text(r);
  });
}

}  // namespace

void add_calibrate_commands(CLI::App& app, Globals& g) {
  add_calibrate(app, g);
  add_whatif(app, g);
}

}  // namespace fomcast::cli
