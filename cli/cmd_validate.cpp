// validate: how good the estimates are, measured on the shipped tables and on workloads
// recorded on two platforms (docs/accuracy.md quotes its output).
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/collectives.hpp"
#include "fomcast/embedded.hpp"
#include "fomcast/error.hpp"
#include "fomcast/layers.hpp"
#include "fomcast/report/parallel.hpp"
#include "fomcast/report/validate.hpp"
#include "fomcast/report/validate_e2e.hpp"
#include "fomcast/validate.hpp"
#include "fomcast/validate_e2e.hpp"
#include "parallel_flags.hpp"

namespace fomcast::cli {
namespace {

// end_to_end's workloads come from the shipped layer lists (data/models/, else
// data/e2e/models/ for a published configuration no shipped model has), never from the
// database, so the check is of what fomcast ships whatever a user stored under the name.
Workload shipped_model_at(const E2eRow& row) {
  for (const auto& path : {"models/" + row.workload + ".json", "e2e/models/" + row.workload + ".json"})
    if (const auto text = embedded_file(path)) {
      nlohmann::json doc = nlohmann::json::parse(*text);
      doc["batch_size"] = row.batch;
      if (!row.memory_format.empty()) doc["memory_format"] = row.memory_format;
      return expand_model_document(doc, "data/" + path).workload;
    }
  throw InputError("data/e2e/published.csv",
                   "workload '" + row.workload + "' is in neither data/models nor data/e2e/models", row.line);
}

// A row of several GPUs: `estimate --parallel dp=gpus --batch-per-gpu batch` on the
// shipped model, in the row's precision.
double data_parallel_step(const E2eRow& row, const Catalog& catalog) {
  const Workload w = shipped_model_at(row);
  ParallelRequest request;
  request.layout.dp = row.gpus;
  request.batch_per_gpu = row.batch;
  RunOptions opts;
  opts.precision = row.precision;
  auto at_batch = [&row](const Workload&, int64_t batch) {
    E2eRow r = row;
    r.batch = batch;
    return shipped_model_at(r);
  };
  return run_parallel(w, row.platform, catalog, request, at_batch, model_layer_costs, opts).parallel.step_s;
}

// The published rows, then the steps timed on the lent device machine (measured_here.csv):
// both held out, neither fitted to.
E2eReport end_to_end(const Catalog& catalog) {
  std::vector<E2eRow> rows;
  for (const char* name : {"e2e/published.csv", "e2e/measured_here.csv"})
    if (const auto text = embedded_file(name)) {
      auto more = parse_e2e_rows(*text, "data/" + std::string(name));
      for (const auto& r : more)
        for (const auto& seen : rows)
          if (seen.id == r.id)
            throw InputError("data/" + std::string(name), "id '" + r.id + "' is given twice", r.line);
      rows.insert(rows.end(), more.begin(), more.end());
    }
  if (rows.empty()) return {};
  return validate_end_to_end(rows, catalog, shipped_model_at,
                             [&catalog](const E2eRow& row) { return data_parallel_step(row, catalog); });
}

}  // namespace

void add_validate_command(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand(
      "validate", "Measure estimation error: leave-one-out on kernel tables, leave-one-platform-out, cross-hardware");
  struct Opts {
    std::vector<std::string> platforms, pairs;
    bool json = false, no_tables = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--platform", o->platforms, "Only these platforms' tables (default: every platform with a table)");
  cmd->add_option("--pair", o->pairs,
                  "FROM,TO: predict workload TO's measured pass time from workload FROM (the same model recorded on "
                  "another platform); repeatable");
  cmd->add_flag("--no-tables", o->no_tables, "Skip the table checks (only --pair)");
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([&g, o] {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const auto& p : o->pairs) {
      const auto comma = p.find(',');
      if (comma == std::string::npos || comma == 0 || comma + 1 == p.size())
        throw UsageError("--pair wants FROM,TO (two workload names), got '" + p + "'");
      pairs.emplace_back(p.substr(0, comma), p.substr(comma + 1));
    }
    Store store = open_store(g);
    const Catalog catalog = load_catalog(store);
    LooReport loo;
    std::vector<PlatformTransfer> transfers;
    std::vector<LeavePlatformOut> held;
    if (!o->no_tables) {
      loo = validate_leave_one_out(catalog, o->platforms);
      transfers = validate_platform_transfer(catalog, o->platforms);
      held = validate_leave_platform_out(catalog);
    }
    std::vector<CrossHardware> cross;
    for (const auto& [from, to] : pairs) {
      const auto a = store.workload(from), b = store.workload(to);
      if (!a) throw UsageError("no workload named '" + from + "' (see `fomcast workloads`)");
      if (!b) throw UsageError("no workload named '" + to + "' (see `fomcast workloads`)");
      cross.push_back(validate_cross_hardware(*a, *b, catalog));
    }
    const auto allreduce = o->no_tables ? std::vector<AllreduceLoo>{} : validate_allreduce_loo(catalog);
    const E2eReport e2e = o->no_tables ? E2eReport{} : end_to_end(catalog);
    const auto shared = o->no_tables ? std::vector<SharedOpError>{} : shared_op_error(catalog, loo);
    if (o->json) {
      auto j = validation_to_json(loo, transfers, cross, held);
      j["allreduce_loo"] = allreduce_loo_to_json(allreduce);
      j["shared_op_error"] = shared_op_error_to_json(shared);
      j["band_refit"] = band_refit_to_json(band_refit(loo, transfers));
      j["end_to_end"] = end_to_end_to_json(e2e);
      print_json(j);
    } else {
      std::cout << validation_to_text(loo, transfers, cross, held) << allreduce_loo_to_text(allreduce)
                << shared_op_error_to_text(shared) << band_refit_to_text(band_refit(loo, transfers))
                << end_to_end_to_text(e2e);
    }
  });
}

}  // namespace fomcast::cli
