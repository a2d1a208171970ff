// CPU implementations as the trace names them (issue 13, section 6). The shared corpus
// holds no CPU trace with a oneDNN or im2col convolution (only cuDNN and MIOpen ones, checked
// below), so a small CPU-only Kineto trace is written here the way PyTorch records one: a
// ProfilerStep with aten::conv2d > convolution > _convolution > mkldnn_convolution (oneDNN),
// the same chain ending in _slow_conv2d_forward (im2col + BLAS), and aten::linear >
// aten::addmm whose weight is passed transposed (strides [1, 64]).
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "fomcast/ingest.hpp"
#include "fomcast/microbench.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::run_fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;

namespace {

std::string op(const std::string& name, double ts, double dur, const std::string& args) {
  return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) +
         R"(, "dur": )" + std::to_string(dur) + R"(, "args": {)" + args + "}},\n";
}

// Self times (us): mkldnn_convolution 398, _slow_conv2d_forward 298, addmm 100; each wrapper
// around them 2 (kind other).
std::string cpu_trace() {
  const std::string conv_a =
      R"("Input Dims": [[8, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], [], [], []], )"
      R"("Input type": ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"], )"
      R"("Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])";
  const std::string mkldnn =
      R"("Input Dims": [[8, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], []], )"
      R"("Input type": ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar"], )"
      R"("Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"])";
  const std::string slow = R"("Input Dims": [[8, 16, 32, 32], [16, 16, 3, 3], [], [16], [], []], )"
                           R"("Input type": ["float", "float", "ScalarList", "float", "ScalarList", "ScalarList"], )"
                           R"("Concrete Inputs": ["", "", "[3, 3]", "", "[1, 1]", "[1, 1]"])";
  const std::string linear = R"("Input Dims": [[8, 64], [32, 64], [32]], "Input type": ["float", "float", "float"])";
  const std::string addmm = R"("Input Dims": [[32], [8, 64], [64, 32]], "Input type": ["float", "float", "float"], )"
                            R"("Input Strides": [[1], [64, 1], [1, 64]])";
  std::string t = R"({"schemaVersion": 1, "traceEvents": [)"
                  "\n";
  t +=
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 2000, "args": {}},)"
      "\n";
  t += op("aten::conv2d", 10, 404, conv_a) + op("aten::convolution", 11, 402, conv_a) +
       op("aten::_convolution", 12, 400, conv_a) + op("aten::mkldnn_convolution", 13, 398, mkldnn);
  t += op("aten::conv2d", 500, 304, conv_a) + op("aten::convolution", 501, 302, conv_a) +
       op("aten::_convolution", 502, 300, conv_a) + op("aten::_slow_conv2d_forward", 503, 298, slow);
  t += op("aten::linear", 900, 102, linear) + op("aten::addmm", 901, 100, addmm);
  t += R"({"ph": "i", "name": "end", "pid": 1, "tid": 1, "ts": 1999, "s": "t"}]})";
  return t;
}

const json* find_op(const json& ops, const std::string& name) {
  for (const auto& o : ops)
    if (o["name"] == name) return &o;
  return nullptr;
}

}  // namespace

TEST_CASE("implementations: ops keep the implementation the trace names; GEMMs their transposes") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const std::string trace = dir.write("cpu.json", cpu_trace());
  run_json("ingest " + trace + " --workload cpuconv --platform my_cpu", db);
  const json show = run_json("show cpuconv", db);
  const json* mk = find_op(show["ops"], "aten::mkldnn_convolution");
  const json* slow = find_op(show["ops"], "aten::_slow_conv2d_forward");
  const json* mm = find_op(show["ops"], "aten::addmm");
  REQUIRE(mk);
  REQUIRE(slow);
  REQUIRE(mm);
  CHECK((*mk)["kind"] == "conv");
  CHECK((*mk)["implementation"] == "onednn");
  CHECK((*slow)["kind"] == "conv");
  CHECK((*slow)["implementation"] == "im2col+blas");
  CHECK((*slow)["shape"]["k"] == 16);
  // aten::linear passes the weight [32, 64] transposed: B is read transposed.
  CHECK((*mm)["kind"] == "gemm");
  CHECK((*mm)["shape"]["m"] == 8);
  CHECK((*mm)["shape"]["n"] == 32);
  CHECK((*mm)["shape"]["k"] == 64);
  CHECK((*mm)["shape"]["trans_b"] == true);
  CHECK((*mm)["shape"]["trans_a"] == false);
  CHECK((*mm)["implementation"].is_null());  // the name does not say which BLAS
  for (const char* wrapper : {"aten::conv2d", "aten::linear"}) {
    const json* w = find_op(show["ops"], wrapper);
    REQUIRE(w);
    CHECK((*w)["kind"] == "other");
  }
}

TEST_CASE("implementations: a faster BLAS moves the GEMM and the im2col conv, not the oneDNN conv") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  run_json("ingest " + dir.write("cpu.json", cpu_trace()) + " --workload cpuconv --platform my_cpu", db);
  const json show = run_json("show cpuconv", db);
  const double mk = (*find_op(show["ops"], "aten::mkldnn_convolution"))["time_per_pass_s"].get<double>();
  const double slow = (*find_op(show["ops"], "aten::_slow_conv2d_forward"))["time_per_pass_s"].get<double>();
  const double mm = (*find_op(show["ops"], "aten::addmm"))["time_per_pass_s"].get<double>();
  CHECK(mk == doctest::Approx(398e-6));
  CHECK(slow == doctest::Approx(298e-6));
  CHECK(mm == doctest::Approx(100e-6));

  const json w = run_json("whatif --workload cpuconv --platform my_cpu --scale kind:gemm=4", db);
  auto cls = [&](const std::string& name) {
    for (const auto& c : w["classes"])
      if (c["name"] == name) return c;
    FAIL("no class " << name);
    return json();
  };
  // The GEMM 4x faster; the im2col + BLAS conv's GEMM too; the oneDNN conv not at all.
  CHECK(cls("gemm")["scaled_s"].get<double>() == doctest::Approx(mm / 4));
  CHECK(cls("conv")["reference_s"].get<double>() == doctest::Approx(mk + slow));
  CHECK(cls("conv")["scaled_s"].get<double>() == doctest::Approx(mk + slow / 4));
  bool said = false;
  for (const auto& n : w["notes"]) said = said || n.get<std::string>().find("im2col+blas") != std::string::npos;
  CHECK(said);

  // kind:conv moves both convolutions, whatever ran them.
  const json c = run_json("whatif --workload cpuconv --platform my_cpu --scale kind:conv=2", db);
  for (const auto& k : c["classes"])
    if (k["name"] == "conv") CHECK(k["scaled_s"].get<double>() == doctest::Approx((mk + slow) / 2));
}

TEST_CASE("implementations: bench measures the im2col conv and the transposed GEMM, not the oneDNN conv") {
  ScratchDir dir;
  fomcast::IngestOptions o;
  o.workload = "cpuconv";
  const fomcast::Workload w = fomcast::ingest_files({dir.write("cpu.json", cpu_trace())}, o);
  const fomcast::bench::BenchSuite suite = fomcast::bench::workload_suite(w);
  int convs = 0, gemms = 0;
  for (const auto& k : suite.kernels) {
    INFO(k.origin);
    CHECK(k.origin.find("mkldnn") == std::string::npos);
    if (k.kind == fomcast::OpKind::conv) {
      ++convs;
      CHECK(k.origin.find("_slow_conv2d_forward") != std::string::npos);
    }
    if (k.kind == fomcast::OpKind::gemm) {
      ++gemms;
      const auto& g = std::get<fomcast::GemmShape>(k.shape);
      CHECK(g.trans_b);  // as aten::linear passed it
      CHECK(!g.trans_a);
    }
  }
  CHECK(convs == 1);
  CHECK(gemms == 1);
  bool said = false;
  for (const auto& n : suite.not_measured) said = said || n.find("1 oneDNN convolution") != std::string::npos;
  CHECK(said);
}

TEST_CASE("implementations: cuDNN and MIOpen convolutions in the shared GPU traces") {
  fomcast::IngestOptions o;
  o.workload = "r";
  const auto cudnn = fomcast::ingest_files(
      {shared_path("traces/pytorch_kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz")}, o);
  int n = 0;
  for (const auto& op : cudnn.ops)
    if (op.kind == fomcast::OpKind::conv && op.name.find("cudnn") != std::string::npos) {
      INFO(op.name);
      CHECK(op.implementation == fomcast::Implementation::cudnn);
      ++n;
    }
  CHECK(n > 0);
  const auto miopen =
      fomcast::ingest_files({shared_path("traces/pytorch_kineto/tracelens_mi300x_resnet_act_checkpoint.json.gz")}, o);
  n = 0;
  for (const auto& op : miopen.ops)
    if (op.kind == fomcast::OpKind::conv && op.name.find("miopen") != std::string::npos) {
      CHECK(op.implementation == fomcast::Implementation::miopen);
      ++n;
    }
  CHECK(n > 0);
}

TEST_CASE("implementations: a oneDNN conv is not timed from fomcast's im2col + BLAS conv entries") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  run_json("ingest " + dir.write("cpu.json", cpu_trace()) + " --workload cpuconv --platform my_cpu", db);
  // Another machine benched with both convolutions' shapes: its entries are im2col + GEMM.
  const std::string shapes = dir.write("shapes.csv",
                                       "kind,m,n,k,a_t,b_t,w,h,c,s,r,pad_w,pad_h,wstride,hstride,direction\n"
                                       "conv,,8,16,,,32,32,3,3,3,1,1,1,1,forward\n"
                                       "conv,,8,16,,,32,32,16,3,3,1,1,1,1,forward\n");
  run_json(
      "bench --platform other_cpu --shapes '" + shapes + "' --threads 1 --ceiling-seconds 0.4 --kernel-seconds 0.05",
      db);
  const json est = run_json("estimate --workload cpuconv --platform other_cpu", db);
  const json* slow = find_op(est["ops"], "aten::_slow_conv2d_forward");
  const json* mk = find_op(est["ops"], "aten::mkldnn_convolution");
  REQUIRE(slow);
  REQUIRE(mk);
  // The table times the im2col conv's shape as measured ...
  CHECK((*slow)["method"] == "table");
  // ... but not the oneDNN conv's, though its shape is there too: its own time is carried.
  CHECK((*mk)["method"] != "table");
  CHECK((*mk)["method"] != "interpolated");
  CHECK((*mk)["predicted_s"].get<double>() > 0);
}

TEST_CASE("implementations: GEMM transposes as the framework passes them, in a trace without strides") {
  // DLRM rank 0 records no Input Strides. Its MLP layers are aten::linear over aten::addmm
  // (weight.t(): B transposed); under each AddmmBackward0 the input's gradient comes first,
  // [[16, 256], [256, 512]] (grad.mm(weight): NN), then the weight's, [[256, 16], [16, 512]]
  // (grad.t().mm(input): A transposed).
  fomcast::IngestOptions o;
  o.workload = "w0";
  const auto w = fomcast::ingest_files(
      {shared_path("traces-external/param_dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json.gz")}, o);
  auto find = [&](const std::string& name, fomcast::Phase phase, int64_t m, int64_t n, int64_t k) {
    for (const auto& op : w.ops)
      if (const auto* g = std::get_if<fomcast::GemmShape>(&op.shape))
        if (op.name == name && op.phase == phase && g->m == m && g->n == n && g->k == k) return *g;
    FAIL("no " << name << " " << m << "x" << n << "x" << k);
    return fomcast::GemmShape{};
  };
  const auto fwd = find("aten::addmm", fomcast::Phase::forward, 16, 256, 512);
  CHECK(!fwd.trans_a);
  CHECK(fwd.trans_b);
  const auto grad_input = find("aten::mm", fomcast::Phase::backward, 16, 512, 256);
  CHECK(!grad_input.trans_a);
  CHECK(!grad_input.trans_b);
  const auto grad_weight = find("aten::mm", fomcast::Phase::backward, 256, 512, 16);
  CHECK(grad_weight.trans_a);
  CHECK(!grad_weight.trans_b);
}
