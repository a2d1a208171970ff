// ingest: profiler files (or a model description) -> a stored workload. The files are read
// and checked completely before the database is opened, so a bad file changes nothing.
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/ingest.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/report/catalog.hpp"

namespace fomcast::cli {

void add_ingest_command(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("ingest", "Read profiler outputs into a workload (CANDLE steps 2-4)");
  struct Opts {
    std::vector<std::string> files;
    std::string workload, format = "auto", platform;
    int64_t batch = 0;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("files", o->files, "Profiler output(s); .gz accepted")->required();
  cmd->add_option("--workload", o->workload, "Name of the workload to create or replace")->required();
  std::string formats = "auto";
  for (const auto& f : ingest_formats()) formats += ", " + f;
  cmd->add_option("--format", o->format, "Input format: " + formats);
  cmd->add_option("--platform", o->platform,
                  "Platform the profile was taken on (default: the one whose device names match the device the trace "
                  "names; an unknown name becomes an unmeasured placeholder)");
  cmd->add_option("--batch", o->batch, "Samples per pass, where the input cannot tell (tfprof's -1 dimension)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([&g, o] {
    IngestOptions opts;
    opts.format = o->format;
    opts.workload = o->workload;
    opts.platform = o->platform;
    opts.batch_size = o->batch;
    opts.progress = terminal_progress("ingest");
    Workload w = ingest_files(o->files, opts);
    Store store = open_store(g);
    // Where its times were measured: --platform, else the device the trace names.
    const RecordingPlatform rec = set_recording_platform(w, o->platform, store.platforms());
    store.transaction([&] {
      if (rec.create_placeholder) store.ensure_platform(rec.name);
      store.put_workload(w);
    });
    if (o->json)
      print_json(ingest_to_json(w));
    else
      std::cout << ingest_to_text(w);
  });
}

}  // namespace fomcast::cli
