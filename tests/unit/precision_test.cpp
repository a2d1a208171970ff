// Precision as a choice (--precision, docs/estimation.md): apply_precision re-types each op
// to the precision its math runs in and re-costs its bytes; the estimate then uses that
// precision's peak. Expectations are written out by hand from the spec below: a GEMM of
// 4096^3 (2 x 4096^3 FLOPs; 3 x 4096^2 elements moved) on a part with fp32 10, tf32 80 and
// bf16/fp16 160 TFLOP/s and 100 TB/s of memory (so the GEMM is compute-bound in every mode).
#include <algorithm>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/estimate.hpp"
#include "fomcast/precision.hpp"
#include "fomcast/whatif.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;

namespace {

constexpr double kN = 4096;
constexpr double kGemmFlops = 2 * kN * kN * kN;
constexpr double kGemmElements = 3 * kN * kN;  // A, B and C

Sourced fig(double v) { return Sourced{v, "test spec"}; }

Platform part(const std::string& name, const std::map<DType, double>& peaks_tflop) {
  Platform p;
  p.name = name;
  p.device_kind = "gpu";
  p.origin = PlatformOrigin::user;
  for (const auto& [d, v] : peaks_tflop) p.peak_flop_per_s[d] = fig(v * 1e12);
  p.mem_bw_bytes_per_s = fig(100e12);
  return p;
}

Op gemm_op() {
  Op op;
  op.name = "aten::mm";
  op.kind = OpKind::gemm;
  op.shape = GemmShape{4096, 4096, 4096};
  op.dtype = DType::fp32;
  fill_costs(op);
  return op;
}

Op layer_norm_op() {
  Op op;
  op.name = "aten::native_layer_norm";
  op.kind = OpKind::normalization;
  op.shape = TensorShape{{{64, 1024, 1024}}};
  op.dtype = DType::fp32;
  fill_costs(op);
  return op;
}

Workload one_op(Op op) {
  Workload w;
  w.name = "one";
  w.origin = "test";
  w.ops.push_back(std::move(op));
  return w;
}

// The GEMM's own time (under amp the pass also holds its weight's cast: autocast_casts_test).
double gemm_seconds(const Catalog& c, const std::string& platform, PrecisionMode mode) {
  return estimate_pass(one_op(gemm_op()), platform, c, {}, mode).ops[0].predicted_s;
}

}  // namespace

TEST_CASE("apply_precision: the math type and the bytes of each kind, per mode") {
  const Op g = gemm_op();
  REQUIRE(g.bytes == doctest::Approx(kGemmElements * 4));
  struct Row {
    PrecisionMode mode;
    DType gemm_math;
    double gemm_width;
    DType norm_math;
    double norm_width;
  };
  const Row rows[] = {
      {PrecisionMode::fp32, DType::fp32, 4, DType::fp32, 4},
      {PrecisionMode::tf32, DType::tf32, 4, DType::fp32, 4},
      {PrecisionMode::fp16, DType::fp16, 2, DType::fp16, 2},
      {PrecisionMode::bf16, DType::bf16, 2, DType::bf16, 2},
      {PrecisionMode::amp_fp16, DType::fp16, 2, DType::fp32, 4},
      {PrecisionMode::amp_bf16, DType::bf16, 2, DType::fp32, 4},
  };
  Workload w = one_op(gemm_op());
  w.ops.push_back(layer_norm_op());
  const double norm_bytes = w.ops[1].bytes;
  REQUIRE(norm_bytes > 0);
  for (const auto& r : rows) {
    INFO(to_string(r.mode));
    const PrecisionApplied a = apply_precision(w, r.mode);
    CHECK(a.workload.ops[0].dtype == r.gemm_math);
    CHECK(a.workload.ops[0].bytes == doctest::Approx(kGemmElements * r.gemm_width));
    CHECK(a.workload.ops[0].flops == doctest::Approx(kGemmFlops));  // FLOPs never change
    CHECK(a.workload.ops[1].dtype == r.norm_math);
    CHECK(a.workload.ops[1].bytes == doctest::Approx(norm_bytes * r.norm_width / 4));
  }
  // amp: the GEMM's operands halve, the layer norm is not touched (not re-typed); the
  // GEMM's weight cast (autocast_casts_test) is appended.
  const PrecisionApplied amp = apply_precision(w, PrecisionMode::amp_bf16);
  CHECK(amp.retyped == std::vector<bool>{true, false, true});
  // The default changes nothing.
  const PrecisionApplied same = apply_precision(w, PrecisionMode::recorded);
  CHECK(same.retyped == std::vector<bool>{false, false});
  CHECK(same.workload.ops[0].bytes == g.bytes);
}

TEST_CASE("apply_precision: under amp softmax, losses, reductions, embedding, optimizer and collectives stay fp32") {
  auto op = [](const char* name, OpKind k) {
    Op o;
    o.name = name, o.kind = k, o.dtype = DType::fp32, o.bytes = 1000;
    return o;
  };
  Workload w;
  for (const auto& o :
       {op("attention.softmax", OpKind::elementwise), op("mse_loss", OpKind::elementwise),
        op("aten::sum", OpKind::reduction), op("aten::embedding", OpKind::embedding), op("adam", OpKind::optimizer),
        op("allreduce", OpKind::collective), op("aten::relu", OpKind::elementwise), op("max_pool2d", OpKind::pooling),
        op("Memcpy HtoD", OpKind::memcpy), op("Unknown kernel", OpKind::other)})
    w.ops.push_back(o);
  const auto a = apply_precision(w, PrecisionMode::amp_fp16).workload;
  for (std::size_t i = 0; i < 6; ++i) {
    INFO(a.ops[i].name);
    CHECK(a.ops[i].dtype == DType::fp32);
    CHECK(a.ops[i].bytes == 1000);
  }
  CHECK(a.ops[6].dtype == DType::fp16);  // relu after a half matmul runs in half
  CHECK(a.ops[6].bytes == 500);
  CHECK(a.ops[7].dtype == DType::fp16);
  CHECK(a.ops[8].bytes == 1000);  // copies and unknown ops keep what they were
  CHECK(a.ops[9].bytes == 1000);
  // Pure fp16 moves everything floating in half, the all-reduce too, but the optimizer: its
  // fp32 master weights and states stay fp32.
  const auto h = apply_precision(w, PrecisionMode::fp16).workload;
  CHECK(h.ops[4].dtype == DType::fp32);
  CHECK(h.ops[4].bytes == 1000);
  CHECK(h.ops[3].bytes == 500);
  CHECK(h.ops[5].dtype == DType::fp16);
  CHECK(h.ops[8].bytes == 1000);
}

TEST_CASE("model_stats_in: half training keeps half weights and gradients, fp32 master weights and states") {
  // 1,000 parameters, 800 of them trainable, Adam (two states), recorded in fp32.
  ModelStats s;
  s.params = 1000;
  s.weights_bytes = 4000, s.gradients_bytes = 3200, s.optimizer_bytes = 6400, s.activations_bytes = 8000;
  const ModelStats b = model_stats_in(s, PrecisionMode::bf16);
  CHECK(b.weights_bytes == 2000);           // 1,000 x 2 B
  CHECK(b.gradients_bytes == 1600);         // 800 x 2 B
  CHECK(b.optimizer_bytes == 6400 + 3200);  // two fp32 states and an fp32 master copy of 800
  CHECK(b.activations_bytes == 4000);       // kept in half
  const ModelStats a = model_stats_in(s, PrecisionMode::amp_bf16);
  CHECK(a.weights_bytes == 4000);  // autocast keeps fp32 parameters
  CHECK(a.gradients_bytes == 3200);
  CHECK(a.optimizer_bytes == 6400);
  CHECK(a.activations_bytes == 4000);
  // A model file in fp16 (states stored in its type, as ingest counts them) run in fp32.
  ModelStats h = s;
  h.weights_bytes = 2000, h.gradients_bytes = 1600, h.optimizer_bytes = 3200, h.activations_bytes = 4000;
  const ModelStats f = model_stats_in(h, PrecisionMode::fp32);
  CHECK(f.weights_bytes == 4000);
  CHECK(f.gradients_bytes == 3200);
  CHECK(f.optimizer_bytes == 6400);
  CHECK(f.activations_bytes == 8000);
  // The ZeRO paper's 16 bytes per trainable parameter either way (2 + 2 + 12, 4 + 4 + 8).
  CHECK(b.weights_bytes * 0.8 + b.gradients_bytes + b.optimizer_bytes == doctest::Approx(16 * 800));
  CHECK(a.weights_bytes * 0.8 + a.gradients_bytes + a.optimizer_bytes == doctest::Approx(16 * 800));
  CHECK(model_stats_in(s, PrecisionMode::recorded).weights_bytes == 4000);
}

TEST_CASE("precision: a compute-bound GEMM runs at the peak of its mode's math precision") {
  const Catalog c =
      make_catalog({part("P", {{DType::fp32, 10}, {DType::tf32, 80}, {DType::bf16, 160}, {DType::fp16, 160}})}, {});
  const double fp32 = gemm_seconds(c, "P", PrecisionMode::fp32);
  // By hand: no table anywhere, so the roofline with the assumed compute efficiency 0.5
  // (predict.hpp's kAssumedComputeEfficiency): 2 x 4096^3 / (10e12 x 0.5) = 27.49 ms in
  // fp32; bytes (3 x 4096^2 x 4 over 100 TB/s x 0.8) are 0.8 us, far below.
  const PassEstimate one = estimate_pass(one_op(gemm_op()), "P", c, {}, PrecisionMode::fp32);
  CHECK(one.ops[0].method == Method::roofline);
  CHECK(fp32 == doctest::Approx(kGemmFlops / (10e12 * 0.5)));
  CHECK(gemm_seconds(c, "P", PrecisionMode::amp_bf16) == doctest::Approx(kGemmFlops / (160e12 * 0.5)));
  // Compute-bound at one assumed efficiency in every mode: the time is FLOPs / peak / e, so
  // each mode's time over fp32's is the inverse ratio of the peaks.
  CHECK(fp32 >= kGemmFlops / 10e12);  // never faster than the peak
  CHECK(gemm_seconds(c, "P", PrecisionMode::recorded) == doctest::Approx(fp32));
  CHECK(gemm_seconds(c, "P", PrecisionMode::tf32) == doctest::Approx(fp32 * 10 / 80));
  CHECK(gemm_seconds(c, "P", PrecisionMode::amp_bf16) == doctest::Approx(fp32 * 10 / 160));
  CHECK(gemm_seconds(c, "P", PrecisionMode::amp_fp16) == doctest::Approx(fp32 * 10 / 160));
  CHECK(gemm_seconds(c, "P", PrecisionMode::bf16) == doctest::Approx(fp32 * 10 / 160));
  CHECK(gemm_seconds(c, "P", PrecisionMode::amp_bf16) >= kGemmFlops / 160e12);

  // A layer norm (memory-bound) under amp: the same time as recorded; under pure bf16 half.
  const double ln = estimate_pass(one_op(layer_norm_op()), "P", c, {}, PrecisionMode::recorded).ops_s;
  CHECK(ln > 0);
  CHECK(estimate_pass(one_op(layer_norm_op()), "P", c, {}, PrecisionMode::amp_bf16).ops_s == doctest::Approx(ln));
  CHECK(estimate_pass(one_op(layer_norm_op()), "P", c, {}, PrecisionMode::bf16).ops_s == doctest::Approx(ln / 2));
}

TEST_CASE("precision: a mode the spec has no peak for borrows a stated rate and says so") {
  const Catalog c =
      make_catalog({part("F32", {{DType::fp32, 10}}), part("H", {{DType::fp32, 10}, {DType::fp16, 100}})}, {});
  // Only fp32 on the spec: amp-fp16's GEMM runs at the fp32 rate, never faster, with the note.
  const PassEstimate only32 = estimate_pass(one_op(gemm_op()), "F32", c, {}, PrecisionMode::amp_fp16);
  CHECK(only32.ops[0].predicted_s == doctest::Approx(gemm_seconds(c, "F32", PrecisionMode::fp32)));
  REQUIRE(only32.ops[0].notes.size() >= 1);
  CHECK(only32.ops[0].notes.back() == "no fp16 rate in F32's spec: its fp32 rate stands in");
  // bf16 on a spec with fp16 only (Volta, Turing: fp16 tensor cores, none for bf16): the
  // fp32 rate, said, not fp16's tensor rate (bf16 BERT-base on a V100 came out 4.3x faster
  // than fp32).
  const PassEstimate bf = estimate_pass(one_op(gemm_op()), "H", c, {}, PrecisionMode::amp_bf16);
  CHECK(bf.ops[0].predicted_s == doctest::Approx(gemm_seconds(c, "H", PrecisionMode::fp32)));
  CHECK(bf.ops[0].notes.back() == "no bf16 rate in H's spec: its fp32 rate stands in");
  CHECK(bf.precision == PrecisionMode::amp_bf16);
  CHECK(bf.recorded_precision == "fp32");
}

TEST_CASE(
    "precision: a measured time is carried into another precision by the model's ratio; calibration keeps the "
    "recorded one") {
  const Catalog c = make_catalog({part("P", {{DType::fp32, 10}, {DType::bf16, 160}, {DType::fp16, 160}})}, {});
  Workload w = one_op(gemm_op());
  w.recorded_on = "P";
  w.ops[0].self_time_s = 0.05;  // measured fp32 GEMM
  w.pass_s = 0.08;              // the step: 0.03 s of host and framework around it
  w.passes = 1;
  const PassEstimate as_recorded = estimate_pass(w, "P", c, {});
  CHECK(as_recorded.ops[0].method == Method::measured);
  CHECK(as_recorded.pass_s == doctest::Approx(0.08));  // gives back what it measured

  const PassEstimate amp = estimate_pass(w, "P", c, {}, PrecisionMode::amp_bf16);
  CHECK(amp.ops[0].method == Method::scaled);
  CHECK(amp.ops[0].baseline_s == 0.05);  // still shown beside the prediction
  // By hand: the roofline at the assumed efficiency 0.5 is 2 x 4096^3 / (10e12 x 0.5) =
  // 27.49 ms in fp32 and 2 x 4096^3 / (160e12 x 0.5) = 1.718 ms in bf16, so the measured
  // 50 ms is carried x 1/16: 3.125 ms, above the bf16 roofline at full peak (0.86 ms).
  const double fp32_model = gemm_seconds(c, "P", PrecisionMode::fp32);
  const double bf16_model = gemm_seconds(c, "P", PrecisionMode::amp_bf16);
  CHECK(fp32_model == doctest::Approx(2.0 * 4096 * 4096 * 4096 / 5e12));
  CHECK(bf16_model == doctest::Approx(2.0 * 4096 * 4096 * 4096 / 80e12));
  CHECK(amp.ops[0].predicted_s == doctest::Approx(0.05 * bf16_model / fp32_model));
  CHECK(amp.ops[0].predicted_s == doctest::Approx(0.003125));
  // The residual is the measured step minus the measured ops, as recorded: 0.03 s.
  CHECK(amp.calibration.residual_there_s == doctest::Approx(0.03));
  CHECK(amp.residual_s == doctest::Approx(0.03));
  CHECK(amp.pass_s == doctest::Approx(amp.ops_s + 0.03));

  // whatif in the mode: its reference is the amp pass.
  const WhatIf wi = what_if(w, "P", c, parse_scale("peak_flops=2"), {}, PrecisionMode::amp_bf16);
  CHECK(wi.reference.pass_s == doctest::Approx(amp.pass_s));
  // The GEMM halves; its weight cast (memory-bound) does not move.
  REQUIRE(amp.ops.size() == 2);
  CHECK(wi.modelled_s == doctest::Approx(amp.ops[0].predicted_s / 2 + amp.ops[1].predicted_s));
}

TEST_CASE("precision: a measurement taken in the mode (a study's baseline time) is the pass in that mode") {
  // A study problem's `precision` is the arithmetic on both sides, so its measured baseline
  // time ran in it: the pass there is the measurement, not the measurement scaled by the
  // model's amp/fp32 ratio (a 30 h amp-fp16 run of gpt2-small had come out 8.4 h "measured").
  const Catalog c = make_catalog({part("P", {{DType::fp32, 10}, {DType::bf16, 160}, {DType::fp16, 160}}),
                                  part("Q", {{DType::fp32, 20}, {DType::bf16, 320}, {DType::fp16, 320}})},
                                 {});
  const Workload w = one_op(gemm_op());
  MeasuredPass in_amp;
  in_amp.platform = "P";
  in_amp.pass_s = 0.5;
  in_amp.source = "the study's baseline_pass_s";
  in_amp.precision = PrecisionMode::amp_bf16;
  const PassEstimate there = estimate_pass(w, "P", c, {in_amp}, PrecisionMode::amp_bf16);
  CHECK(there.calibration.calibrated);
  CHECK(there.pass_s == doctest::Approx(0.5));
  CHECK(there.calibration.modelled_there_s == doctest::Approx(there.ops_s));  // the amp model, not fp32's
  // The same figure as a measurement of the workload as recorded (fp32, `fomcast calibrate`)
  // is set against the fp32 model there: the amp pass comes out faster than it.
  MeasuredPass as_recorded = in_amp;
  as_recorded.precision = PrecisionMode::recorded;
  const PassEstimate scaled = estimate_pass(w, "P", c, {as_recorded}, PrecisionMode::amp_bf16);
  CHECK(scaled.pass_s < 0.5);
  // Elsewhere, the mode's measurement is carried against the mode's model on P.
  const PassEstimate on_q = estimate_pass(w, "Q", c, {in_amp}, PrecisionMode::amp_bf16);
  CHECK(on_q.calibration.modelled_there_s == doctest::Approx(there.ops_s));
}

TEST_CASE("precision: names, the flag and the study field") {
  for (const char* name : {"fp32", "tf32", "fp16", "bf16", "amp-fp16", "amp-bf16"}) {
    const auto m = parse_precision_mode(name);
    REQUIRE(m);
    CHECK(to_string(*m) == name);
  }
  CHECK_FALSE(parse_precision_mode("recorded"));
  CHECK_FALSE(parse_precision_mode("amp"));

  ScratchDir dir;
  const std::string db = dir.file("p.db");
  const auto r = run_fomcast("estimate --workload P1B1 --platform A100 --precision amp-bf16 --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["precision"] == "amp-bf16");
  CHECK(j["recorded_precision"] == "fp32");
  bool gemm_in_bf16 = false;
  for (const auto& op : j["ops"])
    if (op["kind"] == "gemm") gemm_in_bf16 = op["dtype"] == "bf16";
  CHECK(gemm_in_bf16);
  const auto plain = nlohmann::json::parse(run_fomcast("estimate --workload P1B1 --platform A100 --json", db).out);
  CHECK(plain["precision"] == "fp32");
  CHECK(j["ops_s"].get<double>() < plain["ops_s"].get<double>());

  const auto bad = run_fomcast("estimate --workload P1B1 --platform A100 --precision fp8", db);
  CHECK(bad.status == 2);
  CHECK_MESSAGE(bad.err.find("--precision: unknown precision 'fp8' (fp32, tf32, fp16, bf16, amp-fp16 or amp-bf16)") !=
                    std::string::npos,
                bad.err);
  const auto wi = run_fomcast("whatif --workload P1B1 --platform A100 --scale mem_bw=2 --precision tf32 --json", db);
  REQUIRE_MESSAGE(wi.status == 0, wi.err);
  CHECK(nlohmann::json::parse(wi.out)["precision"] == "tf32");

  const std::string study =
      R"({"baseline": {"platform": "NV_V100", "nodes": 1}, "target": {"platform": "A100", "nodes": 1},
    "problems": [{"name": "a", "workload": "P1B1", "precision": "amp-fp16"}]})";
  const Study s = parse_study(study, "s.json");
  CHECK(s.problems[0].precision == PrecisionMode::amp_fp16);
  CHECK(study_to_json(s)["problems"][0]["precision"] == "amp-fp16");
  std::string bad_study = study;
  bad_study.replace(bad_study.find("amp-fp16"), 8, "half");
  CHECK_THROWS_WITH_AS(parse_study(bad_study, "s.json"),
                       "s.json: problems[0].precision: unknown precision 'half' (fp32, tf32, fp16, bf16, amp-fp16 or "
                       "amp-bf16)",
                       InputError);
}

TEST_CASE("precision: a mode that re-types no op of the workload says so, and JSON counts the ops it re-typed") {
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  // A cProfile profile's function times: no shapes, nothing a precision re-costs.
  const auto in = run_fomcast(
      "ingest '" + test::shared_path("traces/cprofile/hatchet_cprofile-cycle.pstats") + "' --workload cp", db);
  REQUIRE_MESSAGE(in.status == 0, in.err);
  const auto r = run_fomcast("estimate --workload cp --platform H100 --precision bf16", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK_MESSAGE(
      r.out.find("WARNING precision bf16 changes no op of this workload: none of its 9 op(s)") != std::string::npos,
      r.out);
  const auto j =
      nlohmann::json::parse(run_fomcast("estimate --workload cp --platform H100 --precision bf16 --json", db).out);
  CHECK(j["retyped_ops"] == 0);
  CHECK(j["ops"].size() == 9);
  // A model's layers are re-typed, every floating op; nothing is said.
  const auto p = run_fomcast("estimate --workload P1B1 --platform H100 --precision bf16", db);
  REQUIRE_MESSAGE(p.status == 0, p.err);
  CHECK(p.out.find("changes no op") == std::string::npos);
  const auto pj =
      nlohmann::json::parse(run_fomcast("estimate --workload P1B1 --platform H100 --precision bf16 --json", db).out);
  CHECK(pj["retyped_ops"].get<std::size_t>() > 0);
  CHECK(pj["retyped_ops"].get<std::size_t>() <= pj["ops"].size());
  // In the recorded precision's own types (P1B1 is fp32) nothing changes either: said in passing.
  const auto same = run_fomcast("estimate --workload P1B1 --platform H100 --precision fp32", db);
  CHECK(same.out.find("(the workload's own types: no op changes)") != std::string::npos);
  CHECK(same.out.find("WARNING") == std::string::npos);
}

TEST_CASE("precision: a type the target has no units for says once which rate stood in and for how much") {
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  // V100 has no bf16 units: its matrix ops time at its fp32 rate (the ops' notes say so).
  const auto r = run_fomcast("estimate --workload P1B1 --platform NV_V100 --precision bf16 --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto j = nlohmann::json::parse(r.out);
  std::size_t stood_in = 0;
  for (const auto& op : j["ops"])
    for (const auto& n : op["notes"])
      if (n.get<std::string>().find("no bf16 rate in NV_V100's spec") != std::string::npos) {
        ++stood_in;
        break;
      }
  REQUIRE(stood_in > 0);
  const auto t = run_fomcast("estimate --workload P1B1 --platform NV_V100 --precision bf16", db);
  CHECK_MESSAGE(t.out.find("WARNING NV_V100's spec states no bf16 rate (no units for it): " + std::to_string(stood_in) +
                           " op(s) computing in it, ") != std::string::npos,
                t.out);
  CHECK(t.out.find("are timed at its fp32 rate") != std::string::npos);
  // A100 has bf16 units: nothing to say.
  const auto a = run_fomcast("estimate --workload P1B1 --platform A100 --precision bf16", db);
  CHECK(a.out.find("states no bf16 rate") == std::string::npos);
}

TEST_CASE("apply_precision: under amp a batch norm reads and writes half (autocast leaves it to its input's type)") {
  // A batch norm over [256, 64, 56, 56] as the model expansion costs it: 3 passes forward.
  Op bn;
  bn.name = "batchnorm";
  bn.kind = OpKind::normalization;
  bn.shape = TensorShape{{{256, 64, 56, 56}}};
  bn.dtype = DType::fp32;
  bn.bytes = 3.0 * 256 * 64 * 56 * 56 * 4;
  Op ln = layer_norm_op();
  Workload w;
  w.ops = {bn, ln};
  const auto a = apply_precision(w, PrecisionMode::amp_fp16);
  CHECK(a.retyped == std::vector<bool>{true, false});
  CHECK(a.workload.ops[0].dtype == DType::fp32);  // its math stays fp32
  CHECK(a.workload.ops[0].bytes == doctest::Approx(3.0 * 256 * 64 * 56 * 56 * 2));
  CHECK(a.workload.ops[1].bytes == ln.bytes);  // layer norm: autocast's float32 list
  // The backward too, and a trace's cuDNN kernel by its name.
  for (const char* name : {"batchnorm.grad", "aten::cudnn_batch_norm"}) {
    Op o = bn;
    o.name = name;
    CHECK(op_precision(o.kind, o.name, DType::fp32, PrecisionMode::amp_bf16).storage == DType::bf16);
  }
}

TEST_CASE("precision: a table of another precision scales an op's work, not its calls' launch floor") {
  // An fp32 GEMM table of per-call times (as NeuSight's: a call holds the host's gap): the
  // two smallest GEMMs do next to nothing and take 30 and 31 us, so the table's launch floor
  // is 30 us; a 4096^3 GEMM takes 15 ms. Asked in bf16 (a rate 16x fp32's) the part above the
  // floor scales by the roofline ratio 1/16 and the floor stays.
  auto entry = [](int64_t n, double us) {
    KernelEntry e;
    e.kind = OpKind::gemm, e.shape = GemmShape{n, n, n}, e.time_us = us;
    return e;
  };
  const Catalog c = make_catalog({part("T", {{DType::fp32, 10}, {DType::bf16, 160}})},
                                 {KernelTable{"T", {entry(8, 30), entry(64, 31), entry(4096, 15000)}}});
  auto bf16_seconds = [&](int64_t n) {
    Op op = gemm_op();
    op.shape = GemmShape{n, n, n};
    fill_costs(op);
    return estimate_pass(one_op(op), "T", c, {}, PrecisionMode::bf16).ops[0];
  };
  const OpEstimate tiny = bf16_seconds(8);
  CHECK(tiny.predicted_s == doctest::Approx(30e-6));  // was 30 us / 16 = 1.9 us
  const OpEstimate big = bf16_seconds(4096);
  CHECK(big.predicted_s == doctest::Approx(30e-6 + (15e-3 - 30e-6) / 16));
  CHECK(big.predicted_s >= kGemmFlops / 160e12);  // never faster than the bf16 peak
  CHECK(std::any_of(big.notes.begin(), big.notes.end(),
                    [](const std::string& n) { return n.find("all but its calls' launch floor (30 us)") != n.npos; }));
}

TEST_CASE("precision: tf32 on a part without TF32 computes as fp32: no slower, no tensor-core notes or transforms") {
  // A 3x3 conv, stride 1, on NCHW activations: fp32 math may take Winograd kernels (a quarter
  // of the direct FLOPs at the roofline), and needs no layout transforms.
  Op conv;
  conv.name = "aten::cudnn_convolution";
  conv.kind = OpKind::conv;
  ConvShape s;
  s.n = 32, s.c = 64, s.k = 64, s.input = {1, 56, 56}, s.filter = {1, 3, 3}, s.pad = {0, 1, 1};
  conv.shape = s;
  conv.dtype = DType::fp32;
  fill_costs(conv);
  Workload w = one_op(conv);
  w.memory_format = "channels_first";
  const Catalog c =
      make_catalog({part("NoTF32", {{DType::fp32, 10}}), part("TF32", {{DType::fp32, 10}, {DType::tf32, 80}}),
                    part("SameTF32", {{DType::fp32, 10}, {DType::tf32, 10}})},
                   {});
  auto run = [&](const std::string& p, PrecisionMode m) { return estimate_pass(w, p, c, {}, m).ops[0]; };
  auto transformed = [](const OpEstimate& e) {
    return std::any_of(e.notes.begin(), e.notes.end(),
                       [](const std::string& n) { return n.find("layout transforms") != n.npos; });
  };
  const OpEstimate fp32 = run("NoTF32", PrecisionMode::fp32), tf32 = run("NoTF32", PrecisionMode::tf32);
  CHECK(tf32.predicted_s == doctest::Approx(fp32.predicted_s));
  CHECK_FALSE(transformed(tf32));
  // Where TF32 is no faster than fp32, cuDNN keeps its fp32 kernels: no transforms, and the
  // Winograd bound of fp32 holds.
  const OpEstimate same = run("SameTF32", PrecisionMode::tf32);
  CHECK_FALSE(transformed(same));
  CHECK(same.predicted_s == doctest::Approx(run("SameTF32", PrecisionMode::fp32).predicted_s));
  // With TF32 tensor cores 8x fp32's the transforms are charged.
  CHECK(transformed(run("TF32", PrecisionMode::tf32)));
}

TEST_CASE("precision: a trace re-typed on its own machine is a prediction there: a band, and coverage that says so") {
  ScratchDir dir;
  const std::string db = dir.file("t.db");
  const auto in = run_fomcast(
      "ingest '" + fomcast::test::shared_path("traces/pytorch_kineto/tracelens_h100_bert-small-uncased.json.gz") +
          "' --workload b --platform H100",
      db);
  REQUIRE_MESSAGE(in.status == 0, in.err);
  auto estimate = [&](const std::string& extra) {
    const auto r = run_fomcast("estimate --workload b --platform H100 --json" + extra, db);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    return nlohmann::json::parse(r.out);
  };
  // As recorded: the measurement, every op measured.
  const auto same = estimate("");
  CHECK(same["uncertainty"].get<double>() == 0);
  CHECK(same["coverage"]["table_backed_share"].get<double>() == doctest::Approx(1));
  // In amp-bf16 its layer norms and embeddings are re-typed to fp32 and predicted: not all of
  // the baseline's time is measured any more, and the pass carries their bands.
  const auto amp = estimate(" --precision amp-bf16");
  CHECK(amp["uncertainty"].get<double>() > 0);
  CHECK(amp["coverage"]["table_backed_share"].get<double>() < 1);
}

TEST_CASE("precision: a bf16 op carried from a source without bf16 units reads its fp16 tables at their fp16 rate") {
  // H100 states one rate for fp16 and bf16 (989.4 TFLOP/s dense) and has no tables; its
  // tensor-core ops are carried from V100's fp16 tables. bf16 read on the V100 had been timed
  // at the V100's fp32 rate and carried back: amp-bf16 ResNet-50 3% slower than amp-fp16.
  ScratchDir dir;
  const std::string db = dir.file("b.db");
  auto pass_ms = [&](const std::string& mode) {
    const auto r = run_fomcast("estimate --workload resnet50 --platform H100 --json --precision " + mode, db);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    return nlohmann::json::parse(r.out);
  };
  const auto fp16 = pass_ms("amp-fp16"), bf16 = pass_ms("amp-bf16");
  CHECK(bf16["pass_s"].get<double>() == doctest::Approx(fp16["pass_s"].get<double>()).epsilon(0.005));
  bool said = false;
  for (const auto& op : bf16["ops"])
    for (const auto& n : op["notes"]) said = said || n.get<std::string>().find("read as fp16 on NV_V100") == 0;
  CHECK(said);
}
