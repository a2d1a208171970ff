// ingest: profiler files (or a model description) -> a stored workload. The files are read
// and checked completely before the database is opened, so a bad file changes nothing.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/embedded.hpp"
#include "fomcast/error.hpp"
#include "fomcast/ingest.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/report/catalog.hpp"

namespace fomcast::cli {
namespace {

// A shipped model's name is kept unless --replace says otherwise: one mistyped command must
// not overwrite what fomcast ships. A user's own earlier ingest of the name is replaced, as
// re-ingesting a trace under its name always did (scripts and CI rely on it), and said on stderr.
UsageError shipped_name_refusal(const std::string& name, const std::string& from) {
  return UsageError("--workload: '" + name + "' already exists (a model shipped with fomcast" + from +
                    "); pass --replace to overwrite it, or choose another name (see `fomcast workloads`)");
}

void check_existing_workload(const Store& store, const std::string& name, bool replace) {
  const auto all = store.workloads();
  const auto s = std::find_if(all.begin(), all.end(), [&](const WorkloadSummary& w) { return w.name == name; });
  if (s == all.end()) return;
  const std::string from = s->source.empty() ? "" : ", from " + s->source;
  if (s->shipped && !replace) throw shipped_name_refusal(name, from);
  std::cerr << "note: replaced the workload '" << name << "' ("
            << (s->shipped ? "a model shipped with fomcast" : "a " + s->origin + " workload") << from << ")\n";
}

}  // namespace

void add_ingest_command(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand(
      "ingest",
      "Read profiler outputs into a workload (CANDLE steps 2-4). The format is found by content (.gz or not): "
      "Kineto / PyTorch profiler traces, PyTorch execution traces (ET), Chakra traces (JSON or .et), XPlane "
      "(.xplane.pb), TF1 timelines, tfprof op views and MatMul sizes, Nsight Systems SQLite exports, TAU and pprof "
      "profiles, cProfile, and model layer lists (docs/ingest.md, docs/ingest-text.md, docs/model-format.md). Give "
      "an ET and the Kineto trace of the same run together (either order) to join them: times and kernels from "
      "Kineto, shapes from the ET. Several ranks' Kineto traces of one job (each with its ET, paired by rank) "
      "are read together, one thread per file, as one workload of the job: its rank count, each rank's step (the "
      "slowest is the pass) and its collectives with their payload and group");
  struct Opts {
    std::vector<std::string> files;
    std::string workload, format = "auto", platform;
    int64_t batch = 0;
    int threads = 0;
    bool json = false, replace = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("files", o->files, "Profiler output(s); .gz accepted; ET.json KINETO.json to join one run's two")
      ->required();
  cmd->add_option("--workload", o->workload,
                  "Name of the workload to create: printable, at most 128 bytes, not starting with '-'")
      ->required();
  cmd->add_flag("--replace", o->replace,
                "Overwrite a model shipped with fomcast of that name; without it a shipped name is refused (an "
                "earlier ingest of yours is replaced either way, with a note on stderr)");
  std::string formats = "auto";
  for (const auto& f : ingest_formats()) formats += ", " + f;
  cmd->add_option("--format", o->format, "Input format: " + formats);
  cmd->add_option("--platform", o->platform,
                  "Platform the profile was taken on (default: the one whose device names match the device the trace "
                  "names; an unknown name becomes an unmeasured placeholder, unless the trace names a device a spec "
                  "describes)")
      ->check([](const std::string& v) {
        return v.empty() ? std::string("must name a platform (got nothing); leave the flag out for the trace's device")
                         : std::string();
      });
  cmd->add_option("--batch", o->batch,
                  "Samples per pass, where the input cannot tell (traces record none: default the forward "
                  "convolutions' N, else unknown)")
      ->transform(in_range(ranges::batch));
  cmd->add_option("--threads", o->threads,
                  "Several ranks' traces of one job: files read at once (0, the default: one per core; 1: "
                  "one after another)")
      ->transform(in_range(NumberRange{0, 1024, false, true}));
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([&g, o] {
    require_workload_name(o->workload, "--workload");
    // One file named twice (or by two paths) is no second rank: said as what it is, not as two
    // ranks claiming one number.
    for (std::size_t i = 0; i < o->files.size(); ++i)
      for (std::size_t k = 0; k < i; ++k) {
        std::error_code ec;
        if (o->files[i] == o->files[k] || std::filesystem::equivalent(o->files[i], o->files[k], ec))
          throw UsageError("'" + o->files[i] + "' given twice" +
                           (o->files[i] == o->files[k] ? std::string() : " (as '" + o->files[k] + "')") +
                           ": give each rank's trace once");
      }
    // A shipped model's name is refused before the input is read (the check under the write
    // lock below stays the authority): a 907 MB trace took 3 s to be told so.
    if (!o->replace && embedded_file("models/" + o->workload + ".json"))
      throw shipped_name_refusal(o->workload, ", from data/models/" + o->workload + ".json");
    IngestOptions opts;
    opts.format = o->format;
    opts.workload = o->workload;
    opts.platform = o->platform;
    opts.batch_size = o->batch;
    opts.threads = o->threads;
    opts.progress = terminal_progress("ingest");
    Workload w = ingest_files(o->files, opts);
    Store store = open_store(g);
    // Where its times were measured: --platform, else the device the trace names.
    const RecordingPlatform rec = set_recording_platform(w, o->platform, store.platforms());
    store.transaction([&] {
      // Checked under the write lock, so two ingests of one new name cannot both pass.
      check_existing_workload(store, o->workload, o->replace);
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
