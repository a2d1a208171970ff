// `fomcast bench` end to end through the real binary: a tiny CSV suite on both CPU
// backends, a shipped CANDLE workload under a time budget, a placeholder filled in, a
// shipped platform protected, the BLAS chosen by LD_LIBRARY_PATH, and every bad input
// refused with exit status 2 and the database left as it was. Ceilings and kernel caps
// are kept short (--ceiling-seconds, --kernel-seconds) so each run takes a second or two.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "fomcast/microbench.hpp"
#include "fomcast/store.hpp"
#include "test_support.hpp"

using fomcast::test::file_fingerprint;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using namespace fomcast;

namespace {

const char* kQuick = " --threads 1 --ceiling-seconds 0.4 --kernel-seconds 0.05";

// Two GEMMs, one convolution (timed in its three directions: no direction given) and an
// optimizer update: six kernels.
const char* kShapes =
    "kind,m,n,k,a_t,b_t,w,h,c,s,r,pad_w,pad_h,wstride,hstride,elements\n"
    "gemm,64,48,32,0,0,,,,,,,,,,\n"
    "gemm,64,48,32,1,0,,,,,,,,,,\n"
    "conv,,4,8,,,12,12,3,3,3,1,1,1,1,\n"
    "optimizer,,,,,,,,,,,,,,,10000\n";

std::set<std::string> expected_keys() {
  ConvShape c;
  c.dims = 2;
  c.n = 4, c.c = 3, c.k = 8;
  c.input = {1, 12, 12};
  c.filter = {1, 3, 3};
  c.pad = {0, 1, 1};
  std::set<std::string> keys{shape_key(GemmShape{64, 48, 32}), shape_key(GemmShape{64, 48, 32, 1, true, false}),
                             shape_key(TensorShape{{{10000}}})};
  for (auto d : {ConvDirection::forward, ConvDirection::backward_data, ConvDirection::backward_filter}) {
    c.direction = d;
    keys.insert(shape_key(c));
  }
  return keys;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "";
}

nlohmann::json run_json(const std::string& args, const std::string& db) {
  const auto r = run_fomcast(args + " --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("bench: a tiny CSV suite on eigen and blas stores a complete measured platform and its table") {
  ScratchDir dir;
  const std::string db = dir.file("db"), shapes = dir.write("shapes.csv", kShapes);
  for (const std::string backend : {"eigen", "blas"}) {
    CAPTURE(backend);
    const std::string platform = "tiny-" + backend;
    const auto j =
        run_json("bench --platform " + platform + " --shapes '" + shapes + "' --backend " + backend + kQuick, db);
    CHECK(j.at("platform") == platform);
    CHECK(j.at("entries") == 6);
    CHECK(j.at("peak_gemm_gflops").get<double>() > 0);
    CHECK(j.at("mem_bw_gbs").get<double>() > 0);
    CHECK(j.at("host_speed").get<double>() > 0);
    CHECK(j.at("threads") == 1);
    CHECK(j.at("backend").get<std::string>().rfind(backend + ": ", 0) == 0);
    REQUIRE(j.at("table").size() == 6);
    for (const auto& t : j.at("table")) {
      CHECK(t.at("time_us").get<double>() > 0);
      CHECK(t.at("min_us").get<double>() <= t.at("time_us").get<double>());
      CHECK(t.at("reps").get<int>() >= 1);
    }
    CHECK(j.at("skipped").empty());

    Store store = test::open_seeded(db);
    const auto p = store.platform(platform);
    REQUIRE(p);
    CHECK(to_string(p->origin) == "measured");
    CHECK(p->device_kind == "cpu");
    REQUIRE(p->peak_flop_per_s.count(DType::fp32));
    CHECK(p->peak_flop_per_s.at(DType::fp32).value == doctest::Approx(j.at("peak_gemm_gflops").get<double>() * 1e9));
    CHECK(p->peak_flop_per_s.at(DType::fp32).source.find("measured by fomcast bench (" + backend + ": ") == 0);
    CHECK(p->peak_flop_per_s.count(DType::fp64));
    REQUIRE(p->mem_bw_bytes_per_s);
    CHECK(p->mem_bw_bytes_per_s->value == doctest::Approx(j.at("mem_bw_gbs").get<double>() * 1e9));
    REQUIRE(p->host_speed);
    CHECK(p->host_speed->value == doctest::Approx(j.at("host_speed").get<double>()));
    const auto env = nlohmann::json::parse(p->environment_json);
    CHECK(env.at("host").at("cpu_model") == cpu_model());
    CHECK(env.at("backend").at("name") == backend);
    CHECK(env.at("backend").at("threads") == 1);
    CHECK(p->description.find(cpu_model()) == 0);

    const KernelTable table = store.kernel_table(platform);
    std::set<std::string> keys;
    for (const auto& e : table.entries) {
      keys.insert(shape_key(e.shape));
      CHECK(e.method.rfind("bench:" + backend + " median of ", 0) == 0);
      CHECK(to_string(e.precision) == "fp32");
      CHECK(to_string(e.mode) == "train");
      CHECK(e.time_us > 0);
    }
    CHECK(keys == expected_keys());
  }
  // The contract's listing shows both, with their tables.
  const auto r = run_fomcast("platforms --json", db);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("\"tiny-eigen\"") != std::string::npos);
  CHECK(r.out.find("\"tiny-blas\"") != std::string::npos);
}

TEST_CASE("bench: workload:P1B2 measures the workload's own shapes, sampled under --max-seconds") {
  ScratchDir dir;
  const std::string db = dir.file("db");
  {
    // Less time than the ceilings take: every kernel is skipped and says why; the
    // platform's ceilings are still stored.
    const auto j = run_json("bench --platform tight --suite workload:P1B2 --max-seconds 0.1" + std::string(kQuick), db);
    CHECK(j.at("entries") == 0);
    CHECK(j.at("table").empty());
    REQUIRE(!j.at("skipped").empty());
    for (const auto& s : j.at("skipped"))
      CHECK(s.at("reason").get<std::string>().find("left of --max-seconds 0.1") != std::string::npos);
    CHECK(j.at("peak_gemm_gflops").get<double>() > 0);
  }
  const auto j = run_json("bench --platform roomy --suite workload:P1B2 --max-seconds 120" + std::string(kQuick), db);
  Store store = test::open_seeded(db);
  const auto w = store.workload("P1B2");
  REQUIRE(w);
  std::set<std::string> op_keys;
  for (const auto& op : w->ops)
    if (op.kind == OpKind::gemm || op.kind == OpKind::conv || op.kind == OpKind::optimizer)
      op_keys.insert(shape_key(op.shape));
  // Every distinct shape measured or skipped with a reason; what was stored hits the
  // workload's own keys exactly (that is what makes the table usable for this workload).
  CHECK(j.at("entries").get<std::size_t>() + j.at("skipped").size() == op_keys.size());
  CHECK(j.at("entries").get<std::size_t>() > 0);
  const KernelTable table = store.kernel_table("roomy");
  CHECK(table.entries.size() == j.at("entries").get<std::size_t>());
  for (const auto& e : table.entries) CHECK(op_keys.count(shape_key(e.shape)) == 1);
  CHECK(j.at("not_measured").dump().find("elementwise") != std::string::npos);
}

TEST_CASE("bench: a workload's measured conv1d and GEMM shapes are exact table hits for estimate") {
  // A conv1d is stored as recorded (dims 1) while the estimator looks up convs in 2-D form
  // (DeepBench's tables are 2-D); both must meet at one key, or a shape just measured
  // would only be interpolated near itself.
  ScratchDir dir;
  const std::string db = dir.file("db");
  const std::string model = dir.file("conv1d.json");
  std::ofstream(model) << R"({"name": "c1", "batch_size": 4, "samples_per_epoch": 64, "epochs": 1,
    "optimizer": {"type": "sgd"}, "inputs": [{"name": "x", "shape": [256, 4]}],
    "layers": [{"type": "conv1d", "filters": 8, "kernel_size": 5, "activation": "relu"},
               {"type": "conv1d", "filters": 8, "kernel_size": 3},
               {"type": "flatten"}, {"type": "dense", "units": 2}]})";
  REQUIRE(run_fomcast("ingest '" + model + "' --workload c1", db).status == 0);
  const auto b = run_json("bench --platform box --suite workload:c1" + std::string(kQuick), db);
  REQUIRE(b.at("skipped").empty());
  const auto e = run_json("estimate --workload c1 --platform box", db);
  int convs = 0, gemms = 0;
  for (const auto& op : e.at("ops")) {
    const std::string kind = op.at("kind");
    if (kind != "conv" && kind != "gemm") continue;
    (kind == "conv" ? convs : gemms) += 1;
    CHECK_MESSAGE(op.at("method") == "table", op.dump());
  }
  CHECK(convs == 5);  // two forward, two weight gradients, one data gradient (none into the input)
  CHECK(gemms == 3);
}

TEST_CASE("bench: fills in a placeholder, protects shipped platforms, follows LD_LIBRARY_PATH") {
  ScratchDir dir;
  const std::string db = dir.file("db"), shapes = dir.write("shapes.csv", "kind,m,n,k\ngemm,32,32,32\n");
  {
    Store store = test::open_seeded(db);
    store.ensure_platform("ph");
  }
  // Debian's reference BLAS sits beside OpenBLAS as an alternative; pointing the loader
  // at it must change what the blas backend resolves to.
  const std::string reference = "/usr/lib/x86_64-linux-gnu/blas";
  const bool have_reference = std::filesystem::exists(reference + "/libblas.so.3");
  const char* old = std::getenv("LD_LIBRARY_PATH");
  const std::string saved = old ? old : "";
  if (have_reference) setenv("LD_LIBRARY_PATH", reference.c_str(), 1);
  const auto r = run_fomcast("bench --platform ph --backend blas --shapes '" + shapes + "' --json" + kQuick, db);
  if (old)
    setenv("LD_LIBRARY_PATH", saved.c_str(), 1);
  else
    unsetenv("LD_LIBRARY_PATH");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  if (have_reference) {
    CHECK(j.at("backend").get<std::string>().find("reference BLAS") != std::string::npos);
    CHECK(j.at("environment").at("backend").at("path").get<std::string>().find("/blas/") != std::string::npos);
  } else {
    MESSAGE("no reference BLAS at " << reference << ": LD_LIBRARY_PATH selection not exercised");
  }
  {
    Store store = test::open_seeded(db);
    CHECK(to_string(store.platform("ph")->origin) == "measured");
    CHECK(store.kernel_entry_count("ph") == 1);
  }
  // A shipped spec is never overwritten silently... (no Store is open here: reading the
  // file for its fingerprint would drop that connection's POSIX locks)
  const std::string before = file_fingerprint(db);
  const auto refused = run_fomcast("bench --platform NV_K20X --shapes '" + shapes + "'" + kQuick, db);
  CHECK(refused.status == 2);
  CHECK(refused.err.find("--force") != std::string::npos);
  CHECK(file_fingerprint(db) == before);
  CHECK(to_string(Store::open(db).platform("NV_K20X")->origin) == "shipped");
  // ... but --force replaces it with measurements.
  const auto forced =
      run_fomcast("bench --platform NV_K20X --force --backend eigen --shapes '" + shapes + "'" + kQuick, db);
  REQUIRE_MESSAGE(forced.status == 0, forced.err);
  CHECK(forced.out.find("Measured platform 'NV_K20X' with eigen") == 0);
  CHECK(to_string(Store::open(db).platform("NV_K20X")->origin) == "measured");
}

TEST_CASE("bench: bad input exits 2 with a clear message and leaves the database unchanged") {
  ScratchDir dir;
  const std::string db = dir.file("db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const std::string good = dir.write("good.csv", "kind,m,n,k\ngemm,8,8,8\n");
  const std::string bad = dir.write("bad.csv", "kind,m,n,k\ngemm,8,8,8\ngemm,8,eight,8\n");
  const std::string before = file_fingerprint(db);
  const std::pair<std::string, std::string> cases[] = {
      {"--suite nope", "unknown suite 'nope'"},
      {"--suite workload:", "needs a workload name"},
      {"--suite csv:", "needs a file name"},
      {"--suite workload:no-such-workload", "no workload named 'no-such-workload'"},
      {"--shapes '" + bad + "'", bad + ":3: n: expected a whole number, got 'eight'"},
      {"--shapes '" + dir.file("missing.csv") + "'", "cannot open"},
      {"--shapes '" + good + "' --suite deepbench-train", "not both"},
      {"--shapes '" + good + "' --backend mkl", "unknown backend 'mkl'"},
      {"--shapes '" + good + "' --threads 0", "--threads: must be > 0 (got 0)"},
      {"--shapes '" + good + "' --threads -3", "--threads: must be > 0 (got -3)"},
      {"--shapes '" + good + "' --threads 100000", "--threads: must be <= 1,024 (got 100,000)"},
      {"--shapes '" + good + "' --threads 2.5", "--threads: must be a whole number (got 2.5)"},
      {"--shapes '" + good + "' --max-seconds -1", "--max-seconds: must be >= 0 (got -1)"},
      {"--shapes '" + good + "' --max-seconds nan", "--max-seconds: must be a finite number (got nan)"},
      {"--shapes '" + good + "' --max-seconds inf", "--max-seconds: must be a finite number (got inf)"},
      {"--shapes '" + good + "' --max-seconds 1e308", "--max-seconds: must be <= 1,000,000 (got 1e+308)"},
      {"--shapes '" + good + "' --kernel-seconds 0", "--kernel-seconds: must be > 0 (got 0)"},
      {"--shapes '" + good + "' --threads many", "--threads: must be a number (got 'many')"},
  };
  for (const auto& entry : cases) {
    const auto& args = entry.first;
    const auto& message = entry.second;
    CAPTURE(args);
    const auto r = run_fomcast("bench --platform x " + args, db);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find(message) != std::string::npos, r.err);
    CHECK(r.out.empty());
    CHECK(file_fingerprint(db) == before);
  }
  {
    const auto r = run_fomcast("bench --platform '' --shapes '" + good + "'", db);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find("--platform needs a name") != std::string::npos, r.err);
    CHECK(r.out.empty());
    CHECK(file_fingerprint(db) == before);
  }
  // Without a GPU (or without a CUDA toolkit at build time) the cuda backend says so and
  // changes nothing; with one it measures.
  const auto cuda = run_fomcast("bench --platform x --backend cuda --shapes '" + good + "'" + kQuick, db);
  if (cuda.status != 0) {
    CHECK(cuda.status == 2);
    CHECK((cuda.err.find("no CUDA device") != std::string::npos || cuda.err.find("not built in") != std::string::npos));
    CHECK(file_fingerprint(db) == before);
  }
  // A build with the cuda backend loads it as a module only for --backend cuda; a file
  // that is not the module is refused by name, with the database untouched.
  if (fomcast::bench::backend_known("cuda")) {
    const std::string fake = dir.file("fomcast_cuda.so");
    std::ofstream(fake) << "not a shared object\n";
    setenv("FOMCAST_CUDA_MODULE", fake.c_str(), 1);
    const auto r = run_fomcast("bench --platform x --backend cuda --shapes '" + good + "'" + kQuick, db);
    unsetenv("FOMCAST_CUDA_MODULE");
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find("cuda backend: cannot load " + fake) != std::string::npos, r.err);
    CHECK(file_fingerprint(db) == before);
  }
}
