// NeuSight's kernel tables (issue 13, section 1): the reader's shapes and units against
// hand-written rows, the device -> platform mapping, the shipped tables in a new database,
// and elementwise, layer norm and softmax ops timed from them rather than from bandwidth.
#include <doctest/doctest.h>

#include <algorithm>

#include "fomcast/bench_import.hpp"
#include "fomcast/error.hpp"
#include "fomcast/estimate.hpp"
#include "shipped_catalog.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::catalog;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::slurp;
using fomcast::test::source_path;

namespace {

const char* kRows =
    "OPName,Latency,Device,Torch Version,B,M,N,K,H,Input_Channel,Output_Channel,Kernel_Szie,Input_Size,Stride,"
    "Padding\n"
    "bmm,0.5,Tesla V100-PCIE-32GB,p2.1.0,2,3,4,5,,,,,,,\n"
    "linear,0.25,Tesla V100-PCIE-32GB,p2.1.0,2,3,4,5,,,,,,,\n"
    "conv,1.5,Tesla V100-PCIE-32GB,p2.1.0,8,,,,,16,32,3,28,2,1\n"
    "add,0.03,Tesla V100-PCIE-32GB,p2.1.0,64,,,,256,,,,,,\n"
    "ln,0.04,Tesla V100-PCIE-32GB,p2.1.0,64,,,,256,,,,,,\n"
    "softmax,0.05,Tesla V100-PCIE-32GB,p2.1.0,64,,,,256,,,,,,\n";

}  // namespace

TEST_CASE("neusight rows: bmm, linear, conv, elementwise, layer norm and softmax as fomcast's kinds") {
  const BenchImport b = read_bench_csv(kRows, "rows.csv", BenchFormat::neusight);
  REQUIRE(b.by_platform.count("Tesla V100-PCIE-32GB") == 1);
  const auto& e = b.by_platform.at("Tesla V100-PCIE-32GB");
  REQUIRE(e.size() == 6);
  // bmm([2,3,4], [2,4,5]): M=3, reduction 4, output columns 5, batch 2; 0.5 ms = 500 us.
  CHECK(e[0].kind == OpKind::batched_gemm);
  const auto& bmm = std::get<GemmShape>(e[0].shape);
  CHECK((bmm.m == 3 && bmm.k == 4 && bmm.n == 5 && bmm.batch == 2 && !bmm.trans_b));
  CHECK(e[0].time_us == doctest::Approx(500));
  // Linear(4, 5) on [2,3,4]: (2*3) x 4 times the transposed weight.
  CHECK(e[1].kind == OpKind::gemm);
  const auto& lin = std::get<GemmShape>(e[1].shape);
  CHECK((lin.m == 6 && lin.k == 4 && lin.n == 5 && lin.batch == 1 && lin.trans_b));
  // Conv2d(16, 32, 3, stride 2, padding 1) on 8 x 16 x 28 x 28: output 14 x 14.
  CHECK(e[2].kind == OpKind::conv);
  const auto& c = std::get<ConvShape>(e[2].shape);
  CHECK((c.n == 8 && c.c == 16 && c.k == 32 && c.filter[1] == 3 && c.input[2] == 28 && c.stride[1] == 2));
  CHECK(c.output()[1] == 14);
  CHECK(e[3].kind == OpKind::elementwise);
  CHECK(std::get<TensorShape>(e[3].shape).inputs.size() == 2);  // add reads two tensors
  CHECK(e[4].kind == OpKind::normalization);
  CHECK(e[5].kind == OpKind::reduction);
  CHECK(e[5].time_us == doctest::Approx(50));
  CHECK(e[0].precision == KernelPrecision::fp32);
  // --platform overrides the Device column.
  CHECK(read_bench_csv(kRows, "rows.csv", BenchFormat::neusight, "P4").by_platform.count("P4") == 1);
}

TEST_CASE("neusight rows: a bad op name or latency names its line and column") {
  const std::string bad_op = std::string(kRows) + "conv3d,0.5,Tesla P4,p2.1.0,1,1,1,1,,,,,,,\n";
  try {
    read_bench_csv(bad_op, "rows.csv", BenchFormat::neusight);
    FAIL("accepted an unknown OPName");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("rows.csv") != std::string::npos);
    CHECK(std::string(e.what()).find("OPName") != std::string::npos);
    CHECK(std::string(e.what()).find("conv3d") != std::string::npos);
  }
  const std::string bad_time = std::string(kRows) + "add,-1,Tesla P4,p2.1.0,1,,,,4,,,,,,\n";
  CHECK_THROWS_AS(read_bench_csv(bad_time, "rows.csv", BenchFormat::neusight), InputError);
}

TEST_CASE("neusight devices map to the exact cards' specs through device_names") {
  BenchImport b;
  for (const char* d : {"Tesla V100-PCIE-32GB", "NVIDIA A100-PCIE-40GB", "NVIDIA A100 80GB PCIe",
                        "Tesla P100-PCIE-16GB", "Tesla P4", "Tesla T4"})
    b.by_platform[d].push_back(KernelEntry{});
  std::vector<Platform> known;
  for (const auto& [name, p] : catalog().platforms) known.push_back(p);
  resolve_devices(b, known, "rows.csv");
  for (const char* p : {"V100_PCIe_32GB", "A100_PCIe_40GB", "A100_PCIe_80GB", "P100_PCIe_16GB", "P4", "NV_T4"})
    CHECK_MESSAGE(b.by_platform.count(p) == 1, p);
  CHECK(b.by_platform.size() == 6);
  BenchImport unknown;
  unknown.by_platform["Imaginary X9"].push_back(KernelEntry{});
  CHECK_THROWS_AS(resolve_devices(unknown, known, "rows.csv"), InputError);
}

TEST_CASE("the shipped NeuSight tables: gzipped files read, every card seeded with every kind") {
  // The file on disk is the one compiled in: 1,400 layer-norm rows of the P4.
  const BenchImport ln = read_bench_csv(slurp(source_path("data/neusight/ln/Tesla_P4.csv.gz")),
                                        "data/neusight/ln/Tesla_P4.csv.gz", BenchFormat::neusight);
  CHECK(ln.rows == 1400);
  for (const char* p : {"V100_PCIe_32GB", "A100_PCIe_40GB", "P100_PCIe_16GB", "P4", "NV_T4"}) {
    INFO(p);
    REQUIRE(catalog().tables.count(p) == 1);
    const auto& entries = catalog().tables.at(p).entries;
    for (OpKind k : {OpKind::batched_gemm, OpKind::gemm, OpKind::conv, OpKind::elementwise, OpKind::normalization,
                     OpKind::reduction}) {
      if (k == OpKind::conv && std::string(p) == "A100_PCIe_40GB") continue;  // its conv rows are the 80 GB card's
      CHECK_MESSAGE(
          std::any_of(entries.begin(), entries.end(),
                      [&](const KernelEntry& e) { return e.kind == k && e.method.rfind("neusight", 0) == 0; }),
          to_string(k));
    }
  }
  const auto& conv80 = catalog().tables.at("A100_PCIe_80GB").entries;
  CHECK(std::all_of(conv80.begin(), conv80.end(), [](const KernelEntry& e) { return e.kind == OpKind::conv; }));
}

TEST_CASE("elementwise, layer norm and softmax come from the measured tables, by shape") {
  Workload w;
  w.name = "memory-ops";
  auto add_op = [&](const char* name, OpKind kind, std::vector<std::vector<int64_t>> in) {
    Op op;
    op.name = name;
    op.kind = kind;
    op.shape = TensorShape{std::move(in)};
    fill_costs(op);
    w.ops.push_back(op);
  };
  add_op("aten::add", OpKind::elementwise, {{4096, 1024}, {4096, 1024}});
  add_op("aten::layer_norm", OpKind::normalization, {{4096, 1024}, {1024}, {1024}});
  add_op("aten::softmax", OpKind::reduction, {{4096, 1024}});
  add_op("aten::add", OpKind::elementwise, {{1, 8}, {1, 8}});  // tiny: the launch gap
  const PassEstimate on_table = estimate_pass(w, "V100_PCIe_32GB", catalog());
  for (const auto& e : on_table.ops) {
    INFO(e.detail);
    CHECK((e.method == Method::table || e.method == Method::interpolated));
    CHECK(e.source_platform == "V100_PCIe_32GB");
  }
  // 32 MiB read and 16 MiB written at 900 GB/s is 56 us; the table's rate is below peak.
  const double roof = w.ops[0].bytes / 900e9;
  CHECK(on_table.ops[0].predicted_s > roof);
  CHECK(on_table.ops[0].predicted_s < 3 * roof);
  // The tiny add takes its launch gap, not 96 bytes at 900 GB/s.
  CHECK(on_table.ops[3].predicted_s > 5e-6);
  // A GPU without a table: read off the NeuSight GPUs' normalised curves at its own size
  // against the launch gap (memory_from_curves), not bytes over bandwidth; the tiny add,
  // smaller than any tabulated tensor (1 row), from the nearest table by the
  // achievable-bandwidth ratio.
  const PassEstimate h100 = estimate_pass(w, "H100", catalog());
  for (std::size_t i = 0; i < h100.ops.size(); ++i) {
    const auto& e = h100.ops[i];
    INFO(e.detail);
    CHECK(e.method == Method::scaled_table);
    CHECK(e.detail.find(i < 3 ? "reach at the same size against their own launch gap" : "achievable-bandwidth ratio") !=
          std::string::npos);
  }
}

TEST_CASE("import-bench --format neusight: the platform from the Device column, or --platform") {
  ScratchDir dir;
  const std::string file = dir.write("v100.csv", kRows);
  const auto r = run_fomcast("import-bench " + file + " --format neusight --json", dir.file("a.db"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("V100_PCIe_32GB") != std::string::npos);
  const auto named = run_fomcast("import-bench " + file + " --format neusight --platform P4 --json", dir.file("a.db"));
  REQUIRE_MESSAGE(named.status == 0, named.err);
  CHECK(named.out.find("\"P4\"") != std::string::npos);
  const std::string odd =
      dir.write("odd.csv", "OPName,Latency,Device,Torch Version,B,H\nadd,0.1,Imaginary X9,p2.1.0,1,4\n");
  const auto bad = run_fomcast("import-bench " + odd + " --format neusight", dir.file("a.db"));
  CHECK(bad.status == 2);
  CHECK(bad.err.find("Imaginary X9") != std::string::npos);
}
