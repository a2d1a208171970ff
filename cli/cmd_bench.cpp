// bench: measure this machine (CANDLE step 5) and store it as a platform: its ceilings as
// the platform's measured spec, the suite's kernels as its table. Flags, the suite and the
// backend are checked before the database is opened or anything is measured; the results
// are written in one transaction at the end, so a failure changes nothing.
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/error.hpp"
#include "fomcast/microbench.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/report/bench.hpp"

namespace fomcast::cli {
namespace {

struct BenchOpts {
  std::string platform, suite, shapes, backend;
  int threads = 0;
  double max_seconds = 300, ceiling_seconds = 4, kernel_seconds = 1;
  bool json = false, force = false;
  CLI::Option* threads_opt = nullptr;
  CLI::Option* suite_opt = nullptr;
};

// The time flags and --threads: more than 1024 threads is a typo, not an experiment, and
// is refused before any is started.
constexpr NumberRange kBudgetSeconds{0, 1e6, false, false};  // 0: no limit
constexpr NumberRange kTimingSeconds{1e-3, 3600, true, false};
constexpr NumberRange kThreads{1, 1024, true, true};

const std::string kSuites = "deepbench-train, deepbench-inference, workload:NAME, csv:FILE";

// Everything but workload:W, which needs the store.
std::optional<bench::BenchSuite> parse_suite(const std::string& suite) {
  if (suite == "deepbench-train") return bench::deepbench_suite("train");
  if (suite == "deepbench-inference") return bench::deepbench_suite("inference");
  if (suite.rfind("csv:", 0) == 0) {
    const std::string file = suite.substr(4);
    if (file.empty()) throw UsageError("--suite csv: needs a file name (csv:FILE)");
    return bench::csv_suite(read_file(file), file);
  }
  if (suite.rfind("workload:", 0) == 0) {
    if (suite.size() == 9) throw UsageError("--suite workload: needs a workload name (workload:NAME)");
    return std::nullopt;
  }
  throw UsageError("unknown suite '" + suite + "' (" + kSuites + ")");
}

}  // namespace

void add_bench_command(CLI::App& app, Globals& g) {
  auto* cmd =
      app.add_subcommand("bench", "Measure this machine DeepBench-style and store it as a platform (CANDLE step 5)");
  auto o = std::make_shared<BenchOpts>();
  cmd->add_option("--platform", o->platform, "Platform to create or fill in with the measurements")->required();
  o->suite_opt = cmd->add_option("--suite", o->suite, "What to measure: " + kSuites + " (default deepbench-train)");
  cmd->add_option("--shapes", o->shapes, "A CSV of shapes to measure (the same as --suite csv:FILE)");
  cmd->add_option("--backend", o->backend, "eigen, blas (the system CBLAS) or cuda (default: blas when it loads)");
  o->threads_opt = cmd->add_option("--threads", o->threads, "Threads for every backend (default: every online CPU)")
                       ->transform(in_range(kThreads));
  cmd->add_option(
         "--max-seconds", o->max_seconds,
         "Time budget: the suite is sampled to fit and the skipped kernels are listed (0: no limit; default 300)")
      ->transform(in_range(kBudgetSeconds));
  cmd->add_option("--ceiling-seconds", o->ceiling_seconds, "Time for the ceiling measurements (default 4)")
      ->transform(in_range(kTimingSeconds));
  cmd->add_option("--kernel-seconds", o->kernel_seconds, "Time cap on one kernel's timed repetitions (default 1)")
      ->transform(in_range(kTimingSeconds));
  cmd->add_flag("--force", o->force, "Overwrite a shipped platform's spec with the measurements");
  cmd->add_flag("--json", o->json, "JSON output");
  cmd->callback([&g, o] {
    // 1. Flags, suite and backend: all checked before the database is touched.
    if (o->platform.empty()) throw UsageError("--platform needs a name");
    if (!o->shapes.empty() && o->suite_opt->count()) throw UsageError("give --suite or --shapes, not both");
    const std::string suite_name = !o->shapes.empty() ? "csv:" + o->shapes
                                   : o->suite.empty() ? std::string("deepbench-train")
                                                      : o->suite;
    if (!o->backend.empty() && !bench::backend_known(o->backend) && o->backend != "cuda")
      throw UsageError("unknown backend '" + o->backend + "' (eigen, blas, cuda)");
    std::optional<bench::BenchSuite> suite = parse_suite(suite_name);

    bench::BenchOptions opts;
    opts.threads = o->threads_opt->count() ? o->threads : bench::default_threads();
    opts.backend = o->backend.empty() ? bench::default_backend(opts.threads) : o->backend;
    opts.max_seconds = o->max_seconds;
    opts.ceiling_seconds = o->ceiling_seconds;
    opts.runner.max_s = o->kernel_seconds;
    (void)bench::probe_backend(opts.backend, opts.threads);

    // 2. The store: the platform may be filled in, the workload must exist.
    Store store = open_store(g);
    check_platform_name(o->platform, store.platforms());
    if (auto existing = store.platform(o->platform);
        existing && existing->origin == PlatformOrigin::shipped && !o->force)
      throw UsageError("platform '" + o->platform +
                       "' is shipped with fomcast (a vendor or DeepBench spec); measure under another name, or pass "
                       "--force to replace its spec with measurements");
    if (!suite) {
      const std::string name = suite_name.substr(9);
      std::optional<Workload> w = require_workload(store, name);
      suite = bench::workload_suite(*w);
    }

    // 3. Measure, then write everything in one transaction.
    const bench::BenchResult result = bench::run_bench(*suite, opts, terminal_progress("bench"));
    const auto entries = result.entries();
    store.transaction([&] {
      Platform base;
      if (auto existing = store.platform(o->platform)) base = *existing;
      base.name = o->platform;
      store.put_platform(bench::measured_platform(result, base));
      if (!entries.empty()) store.put_kernel_entries(o->platform, entries, TableOrigin::measured);
    });
    if (o->json)
      print_json(bench_to_json(result, o->platform));
    else
      std::cout << bench_to_text(result, o->platform, entries.size());
  });
}

}  // namespace fomcast::cli
