// platforms, workloads, show: what the store holds.
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/error.hpp"
#include "fomcast/report/catalog.hpp"

namespace fomcast::cli {

void add_catalog_commands(CLI::App& app, Globals& g) {
  {
    auto* cmd = app.add_subcommand("platforms", "List platforms: peak rates, bandwidth, kernel-table size");
    auto json_out = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json_out, "JSON output");
    cmd->callback([&g, json_out] {
      Store store = open_store(g);
      const auto ps = store.platforms();
      std::vector<int64_t> counts;
      for (const auto& p : ps) counts.push_back(store.kernel_entry_count(p.name));
      if (*json_out)
        print_json(platforms_to_json(ps, counts));
      else
        std::cout << platforms_to_text(ps, counts);
    });
  }
  {
    auto* cmd = app.add_subcommand("workloads", "List workloads");
    auto json_out = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json_out, "JSON output");
    cmd->callback([&g, json_out] {
      Store store = open_store(g);
      const auto ws = store.workloads();
      if (*json_out)
        print_json(workloads_to_json(ws));
      else
        std::cout << workloads_to_text(ws);
    });
  }
  {
    auto* cmd = app.add_subcommand("show", "A workload's operations ranked by time, top 95% marked");
    struct Opts {
      std::string name;
      bool json = false, all = false;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("workload", o->name, "Workload name")->required();
    cmd->add_flag("--json", o->json, "JSON output");
    cmd->add_flag("--all", o->all, "Every operation, not only the first 40");
    cmd->callback([&g, o] {
      Store store = open_store(g);
      auto w = store.workload(o->name);
      if (!w) throw UsageError("no workload named '" + o->name + "' (see `fomcast workloads`)");
      if (o->json)
        print_json(workload_to_json(*w));
      else
        std::cout << workload_to_text(*w, o->all ? w->ops.size() : 40);
    });
  }
}

}  // namespace fomcast::cli
