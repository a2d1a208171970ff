// import-bench: kernel-table files (DeepBench result CSVs, the native CSV) into the store
// (CANDLE step 5). The file is parsed and checked whole before the store is opened.
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/bench_import.hpp"
#include "fomcast/error.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/report/bench.hpp"

namespace fomcast::cli {

void add_import_bench_command(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand(
      "import-bench", "Import kernel timings (DeepBench results, NeuSight tables or a native CSV; .gz accepted)");
  struct Opts {
    std::string file, format, platform;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  std::string formats;
  for (const auto& f : bench_formats()) formats += (formats.empty() ? "" : "|") + f;
  cmd->add_option("file", o->file, "CSV file")->required();
  cmd->add_option("--format", o->format, formats)->required();
  cmd->add_option("--platform", o->platform,
                  "DeepBench formats: import only this platform's rows; csv: the platform of rows without a "
                  "platform column; neusight: the platform of every row (default: the one whose device_names match "
                  "the Device column)");
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([&g, o, formats] {
    const auto format = parse_bench_format(o->format);
    if (!format) throw UsageError("unknown --format '" + o->format + "' (one of " + formats + ")");
    BenchImport imported = read_bench_csv(read_file(o->file, std::size_t{1} << 30), o->file, *format, o->platform);
    Store store = open_store(g);
    if (!o->platform.empty()) check_platform_name(o->platform, store.platforms());
    // NeuSight rows name their card (Device): the platform whose device_names match it.
    if (*format == BenchFormat::neusight && o->platform.empty()) resolve_devices(imported, store.platforms(), o->file);
    // A platform named in the file is checked as --platform is: 'nv_v100' is NV_V100 mistyped,
    // not a new machine, and a new name obeys `platforms add`'s rule.
    std::vector<std::string> fresh;  // platforms this import creates
    for (const auto& [name, entries] : imported.by_platform)
      if (!store.platform(name)) {
        check_new_platform_name(name, store.platforms(), o->file + ": platform");
        fresh.push_back(name);
      }
    store.transaction([&] {
      for (const auto& [name, entries] : imported.by_platform) {
        if (!store.platform(name)) {
          // A platform the database does not know: described from the file where it can
          // be, and a placeholder until a spec or `fomcast bench` gives it figures.
          Platform p = store.ensure_platform(name);
          if (auto it = imported.described.find(name); it != imported.described.end()) {
            p.vendor = it->second.vendor;
            p.device_kind = it->second.device_kind;
            if (!it->second.description.empty())
              p.description = it->second.description + " (imported from " + o->file + "; no spec figures yet)";
            store.put_platform(p);
          }
        }
        store.put_kernel_entries(name, entries, TableOrigin::imported);
      }
    });
    if (o->json) {
      auto j = bench_import_to_json(imported, o->file, o->format);
      j["new_platforms"] = fresh;
      print_json(j);
    } else {
      std::cout << bench_import_to_text(imported, o->file, o->format);
    }
    // Said on stderr: one mistyped platform cell among a file's rows made a new machine of
    // its one row, listed beside the others as if it were one of them.
    for (const auto& name : fresh)
      std::cerr << "note: '" << name << "' is a new platform (" << imported.by_platform.at(name).size()
                << " entries): a placeholder with no spec figures until `fomcast platforms add` gives them\n";
  });
}

}  // namespace fomcast::cli
