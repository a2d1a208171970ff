// What `fomcast ingest` is given, beyond a plain file: standard input ("-", /dev/stdin,
// read through a pipe so that format detection cannot consume what the reader needs), a
// directory, an empty `traceEvents`, absurd or negative numbers in a trace, and an
// execution trace joined with a Kineto trace of another run.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using fomcast::test::file_fingerprint;
using fomcast::test::run_fomcast;
using fomcast::test::RunResult;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
using fomcast::test::slurp;

namespace {

// `PRODUCER | fomcast --db DB ARGS`: the input arrives through a pipe.
RunResult run_piped(const std::string& producer, const std::string& args, const std::string& db) {
  ScratchDir tmp;
  const std::string out = tmp.file("out"), err = tmp.file("err");
  const std::string cmd =
      producer + " | '" + std::string(FOMCAST_BIN) + "' --db '" + db + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int raw = std::system(cmd.c_str());
  RunResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

const std::string kHead = R"({"schemaVersion": 1, "deviceProperties": [], "traceEvents": [)";
std::string op_event(const std::string& ts, const std::string& dur) {
  return R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )" + ts + R"(, "dur": )" + dur +
         "}";
}

}  // namespace

TEST_CASE("ingest input: '-' and /dev/stdin read standard input, gzip and SQLite included") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const std::string trace = shared_path("traces-external/tracelens_mi210_gpu_only_trace.json.gz");
  const RunResult file = run_fomcast("ingest '" + trace + "' --workload from_file --json", db);
  REQUIRE(file.status == 0);
  const auto expected = nlohmann::json::parse(file.out);
  for (const std::string path : {"-", "/dev/stdin"}) {
    INFO(path);
    const RunResult r = run_piped("cat '" + trace + "'", "ingest " + path + " --workload piped --replace --json", db);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["format"] == "kineto");
    CHECK(j["ops"] == expected["ops"]);
    CHECK(j["events"] == expected["events"]);
    CHECK(j["pass_s"] == expected["pass_s"]);
  }
  // An nsys export (SQLite needs the whole file) through a pipe.
  const RunResult s =
      run_piped("cat '" + shared_path("traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite") + "'",
                "ingest - --workload nsys --json", db);
  REQUIRE_MESSAGE(s.status == 0, s.err);
  CHECK(nlohmann::json::parse(s.out)["format"] == "nsys-sqlite");
  // Garbage on standard input is named as such.
  const RunResult g = run_piped("echo 'not a trace'", "ingest - --workload g", db);
  CHECK(g.status == 2);
  CHECK(g.err.find("<stdin>") != std::string::npos);
}

TEST_CASE("ingest input: a directory, an empty traceEvents and bad numbers are positioned errors") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  CHECK(
      run_fomcast(
          "ingest '" + shared_path("traces-external/tracelens_mi210_gpu_only_trace.json.gz") + "' --workload keep", db)
          .status == 0);
  const std::string before = file_fingerprint(db);

  const RunResult d = run_fomcast("ingest '" + dir.path.string() + "' --workload w", db);
  CHECK(d.status == 2);
  CHECK(d.err.find("is a directory") != std::string::npos);

  const RunResult e =
      run_fomcast("ingest '" + dir.write("empty.json", R"({"traceEvents": []})") + "' --workload w", db);
  CHECK(e.status == 2);
  CHECK(e.err.find("`traceEvents` array is empty") != std::string::npos);

  struct Case {
    const char* name;
    std::string event;
    const char* says;
  };
  for (const Case& c : {Case{"dur-1e308", op_event("10", "1e308"), "traceEvents[1].dur: event 1: duration 1e+308 us"},
                        Case{"ts-1e308", op_event("1e308", "5"), "traceEvents[1].ts: event 1: timestamp 1e+308 us"},
                        Case{"ts-negative", op_event("-10", "5"), "traceEvents[1].ts: event 1: negative timestamp -10"},
                        Case{"dur-negative", op_event("10", "-5"), "traceEvents[1].dur: event 1: negative duration -5"},
                        Case{"dur-nan", op_event("10", "NaN"), "traceEvents[1].dur"},
                        Case{"dur-inf", op_event("10", "Infinity"), "traceEvents[1].dur"},
                        Case{"dur-1e400", op_event("10", "1e400"), "traceEvents[1].dur"}}) {
    INFO(c.name);
    const std::string path =
        dir.write(std::string(c.name) + ".json", kHead + op_event("1", "1") + ",\n" + c.event + "]}");
    const RunResult r = run_fomcast("ingest '" + path + "' --workload w", db);
    CHECK(r.status == 2);
    CHECK(r.err.find(std::string(c.name) + ".json:2: byte ") != std::string::npos);  // file, line and byte offset
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(r.err.size() < 300);  // no 300-digit numbers
  }
  CHECK(file_fingerprint(db) == before);
}

TEST_CASE("ingest input: an execution trace and a Kineto trace of another run are refused with their agreement") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const std::string x = "traces-external/param_dlrm_8ranks/";
  const std::string et = shared_path(x + "dlrm_eg_0.json.gz");
  // The same run: 93% of the ET's 1644 op ids agree once the numbering's shifts are allowed
  // for (Kineto numbers them one higher, the second half of the step 233 higher).
  const RunResult same =
      run_fomcast("ingest '" + et + "' '" + shared_path(x + "worker0_step_12.1694128201545.pt.trace.json.gz") +
                      "' --workload same --json",
                  db);
  REQUIRE_MESSAGE(same.status == 0, same.err);
  bool said = false;
  const auto joined = nlohmann::json::parse(same.out);
  for (const auto& n : joined["notes"])
    said = said || n.get<std::string>().find("93% of the execution trace's 1644 op ids agree") != std::string::npos;
  CHECK(said);
  // Another run (a ResNet's Kineto trace): 7% agree; refused, the database untouched.
  const std::string before = file_fingerprint(db);
  const RunResult other = run_fomcast(
      "ingest '" + et + "' '" + shared_path("traces-external/param_resnet_kineto.json.gz") + "' --workload other", db);
  CHECK(other.status == 2);
  CHECK(other.err.find("only 7% of the ET's op ids (111 of 1644) agree with the Kineto trace's") != std::string::npos);
  CHECK(file_fingerprint(db) == before);
  // So is a small ET against a big trace of another program (6 of its 28 ops agree by chance).
  const RunResult small =
      run_fomcast("ingest '" + shared_path("traces/pytorch_et/hta_benchmark_simple_add_et.json.gz") + "' '" +
                      shared_path(x + "worker0_step_12.1694128201545.pt.trace.json.gz") + "' --workload small",
                  db);
  CHECK(small.status == 2);
  CHECK(small.err.find("only 21% of the ET's op ids") != std::string::npos);
}
