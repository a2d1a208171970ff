// Several ranks of one job ingested together (issue 15): the param DLRM job, 8 V100 ranks,
// each a Kineto trace (worker<R>_step_12...) and an execution trace (dlrm_eg_<R>). The
// expected figures were read from the files by a few lines of Python:
//   ProfilerStep#10 per rank (us): 14455, 19901, 13017, 19313, 17979, 17797, 13091, 12509
//   -> min 12.509 ms (rank 7), median (14455 + 17797) / 2 = 16.126 ms, max 19.901 ms (rank 1);
//   nccl:all_reduce of 394241, 226960 and 112 floats; nccl:all_to_all of 6144 floats (twice),
//   24 int64 and 384 int32 on every rank; the ET's record_param_comms name the rank (the Int
//   before the collective's name) and all_to_allv's split lists have 8 entries (the group).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "fomcast/ingest.hpp"
#include "fomcast/op_graph.hpp"
#include "pytorch/execution_trace.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::any_note_contains;
using fomcast::test::file_fingerprint;
using fomcast::test::run_fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;

namespace {

const std::vector<double> kStepsUs = {14455, 19901, 13017, 19313, 17979, 17797, 13091, 12509};

std::string dlrm_dir() { return shared_path("traces-external/param_dlrm_8ranks"); }

// The 16 files, ETs first and Kineto traces after, so pairing cannot lean on the order.
std::vector<std::string> dlrm_files(const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dlrm_dir()))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string joined(const std::vector<std::string>& files) {
  std::string s;
  for (const auto& f : files) s += " '" + f + "'";
  return s;
}

// A collective of the job's workload with this kind and payload.
const json* find_collective(const json& show, const std::string& kind, int64_t bytes) {
  for (const auto& op : show["ops"]) {
    if (op["kind"] != "collective" || !op["shape"].is_object()) continue;
    if (op["shape"].value("op", "") == kind && op["shape"].value("bytes", int64_t{-1}) == bytes) return &op;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("ingest ranks: the 8 DLRM ranks with their ETs are one job of 8 ranks") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const auto ets = dlrm_files("dlrm_eg_"), kineto = dlrm_files("worker");
  REQUIRE(ets.size() == 8);
  REQUIRE(kineto.size() == 8);
  const json in = run_json("ingest" + joined(ets) + joined(kineto) + " --workload dlrm8", db);
  CHECK(in["ranks"] == 8);
  CHECK(in["recorded_on"] == "V100_SXM2_32GB");  // Tesla V100-SXM2-32GB, as every rank names it

  // Each rank's step, in rank order, is the step its own worker file times alone.
  const json& steps = in["rank_step_s"];
  REQUIRE(steps.is_object());
  REQUIRE(steps["per_rank"].size() == 8);
  for (std::size_t r = 0; r < 8; ++r) CHECK(steps["per_rank"][r].get<double>() == doctest::Approx(kStepsUs[r] * 1e-6));
  for (const auto& file : kineto) {
    const json alone = run_json("ingest '" + file + "' --workload alone", db);
    const auto& per_rank = steps["per_rank"];
    CHECK(std::any_of(per_rank.begin(), per_rank.end(), [&](const json& s) {
      return s.get<double>() == doctest::Approx(alone["pass_s"].get<double>());
    }));
  }
  CHECK(steps["min"].get<double>() == doctest::Approx(12.509e-3));
  CHECK(steps["median"].get<double>() == doctest::Approx(16.126e-3));
  CHECK(steps["max"].get<double>() == doctest::Approx(19.901e-3));
  // The job's pass is its slowest rank's step.
  CHECK(in["pass_s"].get<double>() == doctest::Approx(19.901e-3));
  CHECK(any_note_contains(in["notes"], "slowest rank's step, 19.9 ms (rank 1)"));
  CHECK(any_note_contains(in["notes"], "min 12.5 ms (rank 7)"));

  const auto text = run_fomcast("show dlrm8", db);
  CHECK(text.out.find("ranks: 8 (8 traces): steps min 12.5 ms, median 16.1 ms, max 19.9 ms") != std::string::npos);
  CHECK(text.out.find("param_dlrm_8ranks/{") != std::string::npos);  // the folder said once

  // The collectives with their payloads and their group (8 ranks), as show gives them.
  const json show = run_json("show dlrm8", db);
  CHECK(show["ranks"] == 8);
  struct Want {
    const char* kind;
    int64_t bytes;
  };
  for (const Want w : {Want{"allreduce", 394241 * 4}, Want{"allreduce", 226960 * 4}, Want{"allreduce", 112 * 4},
                       Want{"alltoall", 6144 * 4}, Want{"alltoall", 24 * 8}, Want{"alltoall", 384 * 4}}) {
    INFO(w.kind << " " << w.bytes);
    const json* op = find_collective(show, w.kind, w.bytes);
    REQUIRE(op);
    CHECK((*op)["shape"]["ranks"] == 8);
    CHECK((*op)["time_per_pass_s"].get<double>() > 0);
  }
  for (const auto& op : show["ops"])
    if (op["kind"] == "collective") CHECK(op["shape"]["ranks"] == 8);

  // Estimated back on the platform it was recorded on, the job gives its measured step:
  // the slowest rank's, every op at its measured time and the rest in the residual.
  const json est = run_json("estimate --workload dlrm8 --platform V100_SXM2_32GB", db);
  INFO("estimated " << est["pass_s"] << " s, measured " << in["pass_s"] << " s");
  CHECK(est["pass_s"].get<double>() == doctest::Approx(in["pass_s"].get<double>()).epsilon(1e-9));
  // The same with the recording platform named NV_V100 at ingest.
  const json named = run_json("ingest" + joined(ets) + joined(kineto) + " --workload dlrm8v --platform NV_V100", db);
  CHECK(named["recorded_on"] == "NV_V100");
  const json back = run_json("estimate --workload dlrm8v --platform NV_V100", db);
  CHECK(back["pass_s"].get<double>() == doctest::Approx(19.901e-3).epsilon(1e-9));

  // Projected from the 32 GB board to the 16 GB one (the same chip and NVLink), the job
  // stays within 15%: its collectives keep their measured time, wait for the other ranks
  // included, carried by the ring model's ratio (the bare ring model gave 0.70x).
  const json v16 = run_json("estimate --workload dlrm8 --platform NV_V100", db);
  INFO("NV_V100: " << v16["pass_s"] << " s");
  CHECK(std::fabs(v16["pass_s"].get<double>() / 19.901e-3 - 1) <= 0.15);

  // A layout spreads one device's work: on the job's trace it counted the all-to-alls as
  // compute and added a gradient all-reduce to the one the trace holds. Refused, saying why.
  const auto laid = run_fomcast("estimate --workload dlrm8 --platform V100_SXM2_32GB --parallel dp=64", db);
  CHECK(laid.status == 2);
  CHECK_MESSAGE(laid.err.find("is a trace of a 8-rank job") != std::string::npos, laid.err);
  CHECK(laid.out.empty());
}

TEST_CASE(
    "ingest ranks: the job keeps its slowest rank's data dependencies, and the op graph overlaps its collectives") {
  // Rank 1 is the slowest (19.9 ms). Its ET (dlrm_eg_1, schema 1.0.1, no ProfilerStep: one
  // pass) holds 5 nccl:all_to_all and 3 nccl:all_reduce nodes (python3, json.load): the
  // job's calls hold those 8 collectives, each after the calls whose tensors it reads.
  std::vector<std::string> files = dlrm_files("dlrm_eg_");
  for (const auto& f : dlrm_files("worker")) files.push_back(f);
  fomcast::IngestOptions o;
  o.workload = "dlrm8";
  const fomcast::Workload w = fomcast::ingest_files(files, o);
  REQUIRE(!w.calls.empty());
  CHECK(any_note_contains(json(w.notes), "data dependencies: the slowest rank's (1)"));
  std::map<fomcast::CollectiveKind, int> collectives;
  std::vector<double> secs(w.ops.size(), 0);
  double serial = 0, comm = 0;
  for (std::size_t i = 0; i < w.ops.size(); ++i) secs[i] = w.ops[i].self_time_s.value_or(0);
  for (std::size_t i = 0; i < w.calls.size(); ++i) {
    const fomcast::Op& op = w.ops[w.calls[i].op];
    for (std::size_t a : w.calls[i].after) CHECK(a < i);
    serial += secs[w.calls[i].op];
    if (const auto* c = std::get_if<fomcast::CollectiveShape>(&op.shape)) {
      ++collectives[c->op];
      comm += secs[w.calls[i].op];
    }
  }
  CHECK(collectives[fomcast::CollectiveKind::alltoall] == 5);
  CHECK(collectives[fomcast::CollectiveKind::allreduce] == 3);
  // With the measured mean time per call: the collectives on their own stream, after what
  // they read, hide part of their time under the computation that does not need them (at
  // most all of the computation: the path is never shorter than the compute stream).
  const fomcast::CriticalPath dag = fomcast::critical_path(fomcast::pass_graph(w, secs));
  // Measured on this build: 6.86 ms in sequence, 6.07 ms of it collectives (their mean time
  // per call, waits for the other ranks included); 6.14 ms by the dependencies.
  CHECK(dag.seconds < serial);
  CHECK(dag.exposed_comm_s < comm);
  CHECK(dag.seconds >= serial - comm);
}

TEST_CASE("ingest ranks: read one after another gives the same workload as one thread per file") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const std::string files = joined(dlrm_files("dlrm_eg_")) + joined(dlrm_files("worker"));
  json one = run_json("ingest" + files + " --workload a --threads 1", db);
  json many = run_json("ingest" + files + " --workload a", db);
  CHECK(one == many);
  CHECK(run_json("ingest" + files + " --workload a --threads 0", db) == many);  // 0: the default
  CHECK(run_fomcast("ingest" + files + " --workload a --threads -1", db).status == 2);
  json show_one = run_json("show a", db);
  run_json("ingest" + files + " --workload a --threads 1", db);
  CHECK(run_json("show a", db) == show_one);
}

TEST_CASE("ingest ranks: Kineto traces alone are ranks too; groups not recorded are the whole job") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const auto kineto = dlrm_files("worker");
  const json in = run_json("ingest '" + kineto[0] + "' '" + kineto[5] + "' --workload two", db);
  CHECK(in["ranks"] == 8);  // the job's world_size; two of its ranks given
  CHECK(in["rank_step_s"]["per_rank"].size() == 2);
  CHECK(in["pass_s"].get<double>() == doctest::Approx(17.797e-3));
  CHECK(any_note_contains(in["notes"], "6 ranks not given"));
  const json show = run_json("show two", db);
  const json* ar = find_collective(show, "allreduce", 394241 * 4);
  REQUIRE(ar);
  CHECK((*ar)["shape"]["ranks"] == 8);

  // One rank's trace alone: its collectives run over the job its distributedInfo names.
  const json one = run_json("ingest '" + kineto[2] + "' --workload one", db);
  CHECK(one["ranks"] == 1);  // the profile covers one process
  CHECK(any_note_contains(one["notes"], "taken as the whole job (8 ranks)"));
  const json show_one = run_json("show one", db);
  int collectives = 0;
  for (const auto& op : show_one["ops"])
    if (op["kind"] == "collective") {
      ++collectives;
      CHECK(op["shape"]["ranks"] == 8);
    }
  CHECK(collectives >= 6);
}

TEST_CASE("ingest ranks: a bad rank file is a positioned error and nothing is written") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const auto ets = dlrm_files("dlrm_eg_");
  auto kineto = dlrm_files("worker");
  run_json("ingest '" + kineto[0] + "' --workload before", db);
  const std::string fp = file_fingerprint(db);

  // Rank 3's trace cut in the middle of its events.
  const std::string cut = dir.file("worker3_cut.json");
  {
    std::string text;
    {
      const std::string cmd = "zcat '" + kineto[3] + "'";
      FILE* p = popen(cmd.c_str(), "r");
      REQUIRE(p);
      char buf[65536];
      std::size_t n = 0;
      while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
      pclose(p);
    }
    std::ofstream(cut) << text.substr(0, text.size() / 2);
  }
  kineto[3] = cut;
  auto r = run_fomcast("ingest" + joined(ets) + joined(kineto) + " --workload broken", db);
  CHECK(r.status == 2);
  CHECK(r.err.find("worker3_cut.json") != std::string::npos);
  CHECK(r.err.find("byte") != std::string::npos);
  CHECK(file_fingerprint(db) == fp);

  // One rank's file given twice: said as the file named twice (not as two ranks claiming one
  // number).
  kineto = dlrm_files("worker");
  r = run_fomcast("ingest '" + kineto[2] + "' '" + kineto[2] + "' '" + kineto[4] + "' --workload twice", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("'" + kineto[2] + "' given twice") != std::string::npos, r.err);

  // An ET whose rank has no Kineto trace.
  r = run_fomcast("ingest '" + ets[6] + "' '" + kineto[0] + "' '" + kineto[1] + "' --workload orphan", db);
  CHECK(r.status == 2);
  CHECK(r.err.find("dlrm_eg_6") != std::string::npos);
  CHECK(r.err.find("no Kineto trace of rank 6") != std::string::npos);
  CHECK(file_fingerprint(db) == fp);

  // A rank that is no rank of its job: past its world size, negative, or not a number.
  const auto rank_trace = [&](const std::string& name, const std::string& info) {
    return dir.write(name, R"({"distributedInfo": )" + info +
                               R"(, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, )"
                               R"("tid": 1, "ts": 0, "dur": 5}]})");
  };
  const std::string r0 = rank_trace("r0.json", R"({"rank": 0, "world_size": 2})");
  for (const auto& [info, says] :
       {std::pair{R"({"rank": 5, "world_size": 2})", "rank 5 of a job of 2 ranks"},
        std::pair{R"({"rank": -1, "world_size": 2})", "rank -1 is not a whole number >= 0"},
        std::pair{R"({"rank": "1", "world_size": 2})", "rank \"1\" is not a whole number >= 0"},
        std::pair{R"({"rank": 1, "world_size": 0})", "world_size 0 is not a whole number >= 1"}}) {
    r = run_fomcast("ingest '" + r0 + "' '" + rank_trace("bad.json", info) + "' --workload bad", db);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find("bad.json: distributedInfo.") != std::string::npos, r.err);
    CHECK_MESSAGE(r.err.find(says) != std::string::npos, r.err);
  }
  CHECK(file_fingerprint(db) == fp);
}

namespace {

// An ET with one record_param_comms node in the argument order of the given fields.
fomcast::ingest::EtIndex et_with_comms(const std::string& inputs, const std::string& shapes, const std::string& types) {
  const std::string et =
      R"j({"schema": "1.0.1", "pid": 1, "time": "t", "start_ts": 0, "nodes": [)j"
      R"j({"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "rf_id": 0, "parent": 2, "inputs": [], )j"
      R"j("input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []}, )j"
      R"j({"name": "record_param_comms", "id": 3, "rf_id": 1, "parent": 2, "inputs": )j" +
      inputs + R"j(, "input_shapes": )j" + shapes + R"j(, "input_types": )j" + types +
      R"j(, "outputs": [], "output_shapes": [], "output_types": []}]})j";
  return fomcast::ingest::EtIndex::read(fomcast::ingest::InputFile::from_memory("et.json", et), {});
}

fomcast::ingest::CommMeta comms_of(const fomcast::ingest::EtIndex& et) {
  for (uint32_t p = 0; p < et.protos(); ++p)
    if (et.name(p) == "record_param_comms") return et.call(p).comm;
  FAIL("no record_param_comms");
  return {};
}

}  // namespace

TEST_CASE("ingest ranks: record_param_comms arguments in PyTorch's two orders") {
  // Until PyTorch 2.0 (the DLRM ETs): (tensor, seq, process group, rank, name, in_splits,
  // out_splits): rank 3; the split lists have one entry per rank of the group; the message
  // is their sum.
  const auto old = et_with_comms(
      R"j([[1, 2, 0, 3392, 4, "cuda:0"], 150, 94594108284448, 3, "all_to_allv", [96, 224, 288, 1664, 592, 96, 192, 240], [96, 96, 96, 96, 96, 96, 96, 96]])j",
      R"j([[3392], [], [], [], [], [[], [], [], [], [], [], [], []], [[], [], [], [], [], [], [], []]])j",
      R"j(["Tensor(float)", "Int", "Int", "Int", "String", "GenericList[Int,Int,Int,Int,Int,Int,Int,Int]", "GenericList[Int,Int,Int,Int,Int,Int,Int,Int]"])j");
  CHECK(old.rank() == 3);
  const auto c = comms_of(old);
  CHECK(c.collective == "all_to_allv");
  CHECK(c.rank == 3);
  CHECK(c.group_size == 8);  // was taken from the last Int: the rank
  CHECK(c.in_nelems == 3392);
  CHECK(c.out_nelems == 768);
  // Later: (..., name, in_nelems, out_nelems, dtype, in_splits, out_splits, world_size).
  const auto later =
      et_with_comms(R"j([[1, 2, 0, 100, 4, "cuda:0"], 7, 0, 5, "allreduce", 100, 100, "Float", [], [], 16])j",
                    R"j([[100], [], [], [], [], [], [], [], [], [], []])j",
                    R"j(["Tensor(float)", "Int", "Int", "Int", "String", "Int", "Int", "String", )j"
                    R"j("GenericList[]", "GenericList[]", "Int"])j");
  CHECK(later.rank() == 5);
  CHECK(comms_of(later).group_size == 16);
}

TEST_CASE("ingest: a Kineto trace and an execution trace of two ranks are refused as a pair, in either order") {
  // Their op ids agree (93%), as any two ranks' of the job do: the ranks they name tell.
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  const auto kineto = dlrm_files("worker0_"), et3 = dlrm_files("dlrm_eg_3"), et0 = dlrm_files("dlrm_eg_0");
  REQUIRE(kineto.size() == 1);
  for (const std::string& files : {joined(kineto) + joined(et3), joined(et3) + joined(kineto)}) {
    const auto r = run_fomcast("ingest" + files + " --workload mixed", db);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find("dlrm_eg_3.json.gz: is the execution trace of rank 3, and") != std::string::npos, r.err);
    CHECK(r.err.find("the Kineto trace of rank 0") != std::string::npos);
  }
  CHECK(run_fomcast("ingest" + joined(kineto) + joined(et0) + " --workload pair", db).status == 0);
}

TEST_CASE("ingest ranks: the job's collectives projected to another machine by one rule, their waits carried") {
  // On an A100 node the all-reduces took the level model bare (a measured 692 us all-reduce
  // became 12.5 us, its wait for the other ranks dropped) while the all-to-alls took a flat
  // ring over the aggregate NVLink figure with no latency, carried by its ratio. Then both
  // were the measured time x the collective model's ratio between the two machines, which
  // moved the ranks' wait (99.8% of an all-to-all) by the libraries' latencies: 43 ms a pass
  // on MI300X for the V100s' 19.9. Now the transfer the model times on the V100s moves by
  // that ratio and the wait is carried as measured.
  ScratchDir dir;
  const std::string db = dir.file("c.db");
  REQUIRE(
      run_fomcast("ingest" + joined(dlrm_files("dlrm_eg_")) + joined(dlrm_files("worker")) + " --workload dlrm8", db)
          .status == 0);
  const json est = run_json("estimate --workload dlrm8 --platform A100", db);
  CHECK(est["devices_per_run"] == 8);  // one run of the job is its 8 ranks' devices
  int collectives = 0, all_to_all = 0;
  for (const auto& op : est["ops"]) {
    if (op["kind"] != "collective") continue;
    ++collectives;
    const std::string detail = op["detail"];
    CAPTURE(detail);
    CHECK(detail.rfind("measured ", 0) == 0);
    CHECK(detail.find(" us the collective model's transfer there, x its ratio (") != std::string::npos);
    if (op["shape"]["op"] == "alltoall") {
      ++all_to_all;
      CHECK(detail.find("all-to-all as an all-gather's volume") != std::string::npos);
      CHECK(detail.find("the ranks' wait for each other, carried as measured") != std::string::npos);
    }
  }
  CHECK(collectives >= 6);
  CHECK(all_to_all >= 3);
  // The job on the V100s' own chip and on MI300X: the collectives' waits are the same ranks'
  // skew, so the two passes are close (their computation, 1.2 ms a rank, is what moves).
  const double v100 = run_json("estimate --workload dlrm8 --platform NV_V100", db)["pass_s"].get<double>();
  const double mi300x = run_json("estimate --workload dlrm8 --platform MI300X", db)["pass_s"].get<double>();
  CHECK(v100 == doctest::Approx(0.0199).epsilon(0.05));
  CHECK(mi300x < 1.15 * v100);
  CHECK(mi300x > 0.85 * v100);
  // Nor does a what-if of twice the network move the waits: only the transfers speed up.
  const json faster = run_json("whatif --workload dlrm8 --platform NV_V100 --scale net_bw=2", db);
  CHECK(faster["speedup"].get<double>() > 1.0);
  CHECK(faster["speedup"].get<double>() < 1.01);
}
