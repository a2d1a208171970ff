// platforms, workloads, show: what the store holds.
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/error.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/platform_spec.hpp"
#include "fomcast/report/catalog.hpp"
#include "fomcast/seed.hpp"
#include "fomcast/text.hpp"

namespace fomcast::cli {
namespace {

// workloads rm NAME: a user's workload goes with its calibrations; where it had taken the
// name of a shipped model, that model comes back. A shipped workload is refused: the next
// build's seeding would restore it anyway, so removing it would only hide it for a while.
CLI::App* add_workloads_rm(CLI::App& workloads, Globals& g) {
  auto* cmd = workloads.add_subcommand(
      "rm", "Delete a workload you ingested, with its calibrations (shipped models cannot be removed)");
  struct Opts {
    std::string name;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("name", o->name, "Workload name (see `fomcast workloads`)")->required();
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([&g, o] {
    Store store = open_store(g);
    WorkloadRemoval removal{o->name};
    store.transaction([&] {
      bool found = false;
      for (const auto& s : store.workloads()) {
        if (s.name != o->name) continue;
        found = true;
        if (s.shipped)
          throw UsageError("workload '" + o->name + "' is shipped with fomcast (" + s.source +
                           ") and cannot be removed: the next seeding would bring it back. Ingest over it with "
                           "--replace to use the name for a workload of your own");
      }
      if (!found) throw UsageError("no workload named '" + o->name + "' (see `fomcast workloads`)");
      store.delete_workload(o->name);
      removal.calibrations = store.delete_calibrations(o->name);
      removal.shipped_restored = restore_shipped_workload(store, o->name);
    });
    if (o->json)
      print_json(workload_removal_to_json(removal));
    else
      std::cout << workload_removal_to_text(removal);
  });
  return cmd;
}

// platforms add SPEC.json: a user's machine (a future chip, a co-design point) from a spec in
// the schema of data/platforms/*.json, checked whole before the database opens. A shipped or
// measured platform of the name is only replaced with --replace (a shipped spec replaced so
// stays replaced: seeding keeps a user's platform); a user's own earlier spec, or a
// placeholder, is replaced with a note on stderr.
CLI::App* add_platforms_add(CLI::App& platforms, Globals& g) {
  auto* cmd = platforms.add_subcommand(
      "add", "Store a platform from a JSON spec (the schema of data/platforms/*.json, docs/platforms.md)");
  struct Opts {
    std::string file;
    bool json = false, replace = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("spec", o->file, "Platform spec file (JSON)")->required();
  cmd->add_flag("--replace", o->replace, "Replace a shipped or measured platform of the same name");
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([&g, o] {
    PlatformAdded added{parse_user_platform_spec(read_file(o->file), o->file), ""};
    const std::string& name = added.platform.name;
    for (const auto& w : implausible_spec_figures(added.platform))
      std::cerr << "warning: " << o->file << ": " << w << "\n";
    Store store = open_store(g);
    store.transaction([&] {
      const std::vector<Platform> known = store.platforms();
      if (auto near = near_platform_name(name, known))
        throw UsageError(o->file + ": name: '" + name + "' reads as the platform " + *near +
                         " (another case or punctuation, or its device name); name that one with --replace, or "
                         "choose a distinct name");
      // A device name another platform has too (a spec copied from H100.json with its
      // device_names): a trace naming that device matches both, so neither is chosen and its
      // ingest makes a placeholder. Said, since it takes that platform's traces away (an
      // edited `platforms --json` entry added back under a new name keeps its names).
      for (const auto& pattern : added.platform.device_names)
        for (const auto& other : known)
          if (other.name != name)
            for (const auto& theirs : other.device_names)
              if (device_words(theirs) == device_words(pattern))
                std::cerr << "warning: " << o->file << ": device_names: '" << pattern
                          << "' is a device name of the platform " << other.name
                          << " too: a trace naming that device will match both and be recorded on neither (ingest "
                             "makes a placeholder); give this machine's own device names, or leave device_names out\n";
      if (auto existing = store.platform(name)) {
        added.replaced_origin = std::string(to_string(existing->origin));
        const bool protected_origin =
            existing->origin == PlatformOrigin::shipped || existing->origin == PlatformOrigin::measured;
        if (protected_origin && !o->replace)
          throw UsageError(o->file + ": name: '" + name + "' is a " + added.replaced_origin +
                           " platform; give --replace to store yours in its place, or choose another name");
        if (!protected_origin)
          std::cerr << "note: replacing the " << added.replaced_origin << " platform '" << name << "'\n";
      }
      store.put_platform(added.platform);
    });
    if (o->json)
      print_json(platform_added_to_json(added));
    else
      std::cout << platform_added_to_text(added);
  });
  return cmd;
}

// platforms rm NAME: a platform of the user's (a spec added, a table measured or imported,
// a placeholder an ingest created) goes with its kernel tables and the calibrations measured
// on it. A shipped one is refused, as a shipped workload is: seeding would bring it back.
// Workloads recorded on it keep the name; said, since their times cannot be carried until a
// spec of that name returns.
CLI::App* add_platforms_rm(CLI::App& platforms, Globals& g) {
  auto* cmd = platforms.add_subcommand(
      "rm",
      "Delete a platform of yours with its kernel tables and calibrations (shipped ones cannot be removed; removing "
      "your replacement of a shipped one puts the shipped spec back)");
  struct Opts {
    std::string name;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("name", o->name, "Platform name (see `fomcast platforms`)")->required();
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([&g, o] {
    Store store = open_store(g);
    std::string origin;
    Store::PlatformRemoval removed;
    bool shipped_restored = false;
    std::vector<std::string> recorded_on;
    store.transaction([&] {
      const auto p = store.platform(o->name);
      if (!p) {
        check_platform_name(o->name, store.platforms(), "platforms rm");
        throw UsageError("no platform named '" + visible(o->name) + "' (see `fomcast platforms`)");
      }
      origin = std::string(to_string(p->origin));
      if (p->origin == PlatformOrigin::shipped)
        throw UsageError("platform '" + o->name +
                         "' is shipped with fomcast and cannot be removed: the next seeding would bring it back. "
                         "`platforms add --replace` stores a spec of yours under its name");
      // A shipped spec replaced with `platforms add --replace`: removing the user's spec puts
      // the shipped one back with its shipped tables (only the user's imported and measured
      // entries go; calibrations are measurements of the machine, and stay). Deleted whole, the
      // shipped platform and its tables were gone until the next build's seeding.
      const int64_t entries_before = store.kernel_entry_count(o->name);
      if (restore_shipped_platform(store, o->name)) {
        store.delete_kernel_entries(o->name, TableOrigin::imported);
        store.delete_kernel_entries(o->name, TableOrigin::measured);
        removed.kernel_entries = entries_before - store.kernel_entry_count(o->name);
        shipped_restored = true;
        return;
      }
      for (const auto& w : store.workloads())
        if (w.recorded_on == o->name) recorded_on.push_back(w.name);
      removed = *store.delete_platform(o->name);
    });
    if (o->json) {
      print_json(nlohmann::json{{"platform", o->name},
                                {"origin", origin},
                                {"kernel_entries", removed.kernel_entries},
                                {"calibrations", removed.calibrations},
                                {"workloads_recorded_on", recorded_on},
                                {"shipped_restored", shipped_restored}});
      return;
    }
    if (shipped_restored) {
      std::cout << "Removed your spec of platform '" << o->name << "' (" << origin << ") and " << removed.kernel_entries
                << " kernel entries of yours; the shipped spec of that name is back, with its shipped tables"
                << " (calibrations measured on it are kept)\n";
      return;
    }
    std::cout << "Removed platform '" << o->name << "' (" << origin << "), with " << removed.kernel_entries
              << " kernel entries and " << removed.calibrations << " calibration(s) measured on it\n";
    if (!recorded_on.empty())
      std::cout << "note: " << recorded_on.size() << " workload(s) recorded on it keep the name ("
                << recorded_on.front() << (recorded_on.size() > 1 ? ", ..." : "")
                << "): their measured times cannot be carried to other platforms until a spec of that name is added\n";
  });
  return cmd;
}

}  // namespace

void add_catalog_commands(CLI::App& app, Globals& g) {
  {
    auto* cmd = app.add_subcommand(
        "platforms",
        "List platforms: peak rates, bandwidth, kernel-table size; `platforms add SPEC.json` adds one, `platforms rm "
        "NAME` removes one of yours");
    auto json_out = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json_out, "JSON output");
    auto* add = add_platforms_add(*cmd, g);
    auto* rm = add_platforms_rm(*cmd, g);
    cmd->callback([&g, json_out, add, rm] {
      if (add->parsed() || rm->parsed()) return;  // `platforms add SPEC` / `platforms rm NAME` did their own work
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
    auto* cmd = app.add_subcommand("workloads", "List workloads; `workloads rm NAME` deletes one of yours");
    auto json_out = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json_out, "JSON output");
    auto* rm = add_workloads_rm(*cmd, g);
    cmd->callback([&g, json_out, rm] {
      if (rm->parsed()) return;  // `workloads rm NAME` did its own work
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
      std::optional<Workload> w = require_workload(store, o->name);
      if (o->json)
        print_json(workload_to_json(*w));
      else
        std::cout << workload_to_text(*w, o->all ? w->ops.size() : 40);
    });
  }
}

}  // namespace fomcast::cli
