// Inputs a new user fed in to break the tool (2026-11-26): each was taken silently, ran out
// of memory, or printed a misleading message. Each is now exit 2 with the file and field or
// flag named, the database unchanged.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::check_refused;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
using fomcast::test::slurp;
using fomcast::test::source_path;

TEST_CASE("absurd inputs: micro-batches beyond what the schedule can time are refused, not run out of memory") {
  ScratchDir dir;
  const std::string db = dir.file("m.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  // A million took 6.8 GB before std::bad_alloc; a study's 1e9 was killed at 24 GB.
  check_refused("estimate --workload gpt2-small --platform H100 --parallel pp=4 --micro-batches 1000000", db,
                "--micro-batches: must be <= 10,000 (got 1,000,000)");
  // The parallel flags take numbers as every other flag does: NaN and hex are refused.
  check_refused("estimate --workload gpt2-small --platform H100 --parallel dp=2 --bucket-mb nan", db,
                "--bucket-mb: must be a finite number (got nan)");
  check_refused("estimate --workload gpt2-small --platform H100 --parallel dp=2 --zero 0x1", db,
                "--zero: must be a decimal number (got '0x1')");
  json study = json::parse(slurp(source_path("data/studies/gpt2-dgx.json")));
  study["problems"][0]["micro_batches"] = 1000000000;
  const std::string file = dir.write("s.json", study.dump());
  check_refused("fom '" + file + "'", db, "problems[0].micro_batches: must be <= 10,000 (got 1,000,000,000)");
  // A strong-scaling point that would need more has no estimate, and says why; the rest run
  // (the global batch is 12 x 16384: one device would take 16384 micro-batches).
  const auto r = run_fomcast("scaling --workload gpt2-small --platform H100 --parallel dp=1,...,16384 --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const json j = json::parse(r.out);
  bool refused = false, estimated = false;
  for (const auto& p : j["points"]) {
    if (p.contains("error") && p["error"].get<std::string>().find("at most 10000") != std::string::npos) refused = true;
    if (p.contains("step_s")) estimated = true;
  }
  CHECK(refused);
  CHECK(estimated);
}

TEST_CASE("absurd inputs: an execution trace's shapes are checked as Kineto's Input Dims are") {
  ScratchDir dir;
  const std::string db = dir.file("e.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const json et = json::parse(slurp(shared_path("traces/pytorch_et/hta_benchmark_simple_add_et.json")));
  const std::pair<json, std::string> cases[] = {
      {json::array({json::array({1000000000, 1000000000}), json::array({1000000000, 1000000000}), json::array()}),
       "input_shapes: node 18: a tensor of 1e+18 elements is absurd"},
      {json::array({json::array({-256, 256}), json::array({256, 256}), json::array()}),
       "input_shapes: node 18: size '-256' is not a whole number >= 0"},
      {json::array({json::array({2.5, 256}), json::array({256, 256}), json::array()}),
       "input_shapes: node 18: size '2.5' is not a whole number >= 0"},
      {json::array({json::array({"a", "b"}), json::array({256, 256}), json::array()}),
       "input_shapes: node 18: a size is a string"},
      // A bare number where an input's list of sizes belongs had left the op shapeless, unsaid.
      {json::array({json::array({5}), 128, json::array()}),
       "input_shapes: node 18: input 2 is '128', not a list of sizes"},
  };
  for (const auto& [shapes, says] : cases) {
    json bad = et;
    for (auto& n : bad["nodes"])
      if (n["name"] == "aten::add") n["input_shapes"] = shapes;
    check_refused("ingest '" + dir.write("et.json", bad.dump()) + "' --workload h", db, says);
  }
  // Kineto's Input Dims, the same rule.
  const std::string kineto =
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 10, )"
      R"("args": {"Input Dims": [[5], 128], "Input type": ["float", "Scalar"]}}]})";
  check_refused("ingest '" + dir.write("k.json", kineto) + "' --workload k", db,
                "k.json:1: byte 17: traceEvents[0].args.Input Dims: event 0: input 2 is '128', not a list of sizes");
  // The file as published still ingests.
  CHECK(
      run_fomcast("ingest '" + shared_path("traces/pytorch_et/hta_benchmark_simple_add_et.json") + "' --workload h", db)
          .status == 0);
}

TEST_CASE("absurd inputs: kernel tables beyond any device, and a platform column's typo") {
  ScratchDir dir;
  const std::string db = dir.file("k.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const std::string head = "platform,kind,m,n,k,a_t,b_t,dtype,time_us\n";
  auto csv = [&](const std::string& row) { return dir.write("t.csv", head + row + "\n"); };
  check_refused("import-bench '" + csv("NV_V100,gemm,1760,128,1760,0,0,fp32,1e308") + "' --format csv", db,
                "t.csv:2: time_us: a kernel of 1e+308 us");
  check_refused("import-bench '" + csv("NV_V100,gemm,1760,128,1760,0,0,fp32,0.0000000001") + "' --format csv", db,
                "t.csv:2: time_us: a kernel of 1e-10 us is below a nanosecond");
  check_refused("import-bench '" + csv("NV_V100,gemm,1000000000,1000000000,1000000000,0,0,fp32,100") + "' --format csv",
                db, "t.csv:2: time_us: 100 us for this shape is 2e+31 FLOP/s, beyond any device");
  // 'nv_v100' is NV_V100 mistyped, as --platform nv_v100 is.
  check_refused("import-bench '" + csv("nv_v100,gemm,1760,128,1760,0,0,fp32,100") + "' --format csv", db,
                "did you mean NV_V100?");
  // A NeuSight file with a latency of 1e308 ms.
  std::string neusight =
      "OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,Blocks per "
      "SM,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,Kernels,B,M,N,K\n"
      "bmm,1e308,Tesla T4,p2.1.0,8902,k,1,1,1,1,1,1,1,1,cu121,;k,6,27,21,390\n";
  // Said in the file's unit: 1e308 ms is no number of microseconds ("inf us").
  check_refused("import-bench '" + dir.write("n.csv", neusight) + "' --format neusight", db,
                "n.csv:2: Latency: a kernel of 1e+308 ms is beyond any measurement");
  // A shipped gzipped table cut in half says where, in both counts, as ingest's reader does.
  const std::string whole = slurp(source_path("data/neusight/add/Tesla_T4.csv.gz"));
  check_refused("import-bench '" + dir.write("cut.csv.gz", whole.substr(0, whole.size() / 2)) + "' --format neusight",
                db,
                "cut.csv.gz: gzip data ends early, after all " + std::to_string(whole.size() / 2) +
                    " compressed bytes, at decompressed byte ");
}

TEST_CASE("absurd inputs: platform names, figures, Nsight byte counts, model epochs, directories") {
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const std::string trace = shared_path("traces/pytorch_kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json");
  // A new platform's name obeys platforms add's rule; the name is not echoed (escapes).
  check_refused("ingest '" + trace + "' --workload w --platform \"$(printf 'a\\033[31mRED')\"", db,
                "--platform: a new platform's name must be printable");
  check_refused("ingest '" + trace + "' --workload w --platform ' x'", db, "--platform: a new platform's name");

  // A figure below any machine: 1e-300 GB/s made a 4e299 s pass.
  json spec = json::parse(slurp(source_path("data/platforms/H100.json")));
  spec["name"] = "CoDesign_X";
  spec.erase("device_names");
  spec["mem_bw_gb_per_s"]["value"] = 1e-300;
  check_refused("platforms add '" + dir.write("p.json", spec.dump()) + "'", db,
                "mem_bw_gb_per_s.value: is below any machine");

  // An Nsight Systems copy of 9e18 bytes, or of 'lots'.
  for (const std::string& value : {std::string("9000000000000000000"), std::string("'lots'")}) {
    const std::string copy = dir.file("a.sqlite");
    {
      std::ifstream in(shared_path("traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"),
                       std::ios::binary);
      std::ofstream out(copy, std::ios::binary | std::ios::trunc);
      out << in.rdbuf();
    }
    sqlite3* s = nullptr;
    REQUIRE(sqlite3_open(copy.c_str(), &s) == SQLITE_OK);
    const std::string sql = "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes=" + value + " WHERE rowid=1";
    REQUIRE(sqlite3_exec(s, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(s);
    check_refused("ingest '" + copy + "' --workload n", db, "CUPTI_ACTIVITY_KIND_MEMCPY.bytes, row 1: byte count");
  }

  // A model of 1e12 epochs printed a run of 48,000 years; the range is --epochs'.
  json model = json::parse(slurp(source_path("tests/data/models/tiny.json")));
  model["epochs"] = 1000000000000LL;
  check_refused("ingest '" + dir.write("m.json", model.dump()) + "' --workload t", db, "epochs: more than 1000000");

  // A directory where a file belongs.
  check_refused("fom '" + dir.path.string() + "'", db, "is a directory, not a file");
  check_refused("platforms add '" + dir.path.string() + "'", db, "is a directory, not a file");
}

TEST_CASE("shipped studies: read from the binary where the path is not a file here") {
  ScratchDir dir;
  const std::string db = dir.file("s.db");
  // From a directory without data/: the README's command, the name alone, the file name.
  for (const std::string& study : {std::string("data/studies/worked-example.json"), std::string("worked-example"),
                                   std::string("worked-example.json")}) {
    const auto r = run_fomcast("fom --json " + study, db);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(json::parse(r.out)["fom"].get<double>() == doctest::Approx(82.597).epsilon(1e-5));
    // Said: a CI job whose checkout lacks the file must not take the shipped one for its own
    // (the README's relative path is a file where the tests run).
    if (study != "data/studies/worked-example.json")
      CHECK(r.err.find("is not here: the study shipped in the binary under that name is used") != std::string::npos);
  }
  check_refused("fom nosuch", db,
                "no shipped study is called that (shipped: candle-exascale, gpt2-dgx, worked-example)");
  // A path elsewhere stays a path.
  check_refused("fom '" + dir.file("missing/worked-example.json") + "'", db,
                "cannot open for reading: No such file or directory");
  // Even one that ends in data/studies: a checkout elsewhere that lacks the file.
  check_refused("fom '" + dir.file("checkout/data/studies/worked-example.json") + "'", db, "cannot open for reading");
}

TEST_CASE("a study's batch a model refuses is the study's field, not the model file's") {
  ScratchDir dir;
  const std::string db = dir.file("b.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);  // seeded: refused leaves it so
  const std::string study = dir.write("big-batch.json", R"({"baseline": {"platform": "NV_K20X", "nodes": 1},
    "target": {"platform": "MI250X", "nodes": 1},
    "problems": [{"name": "p", "workload": "P1B1", "batch_size": 100000000}]})");
  check_refused(
      "fom '" + study + "'", db,
      study + ": problems[0].batch_size: a batch of more than 16777216 samples (the model P1B1 at this batch)");
}
