// Plain and gzip input: the shared .json.gz traces decompress to their .json siblings, and
// a gzip that ends early is an error with a byte offset, never silently short data.
#include <doctest/doctest.h>

#include "common/input.hpp"
#include "common/ops.hpp"
#include "fomcast/error.hpp"
#include "fomcast/ingest.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;

TEST_CASE("gzip and plain copies of a shared trace read the same") {
  const ingest::InputFile gz(shared_path("traces/pytorch_et/hta_benchmark_simple_add_trace.json.gz"));
  const ingest::InputFile plain(shared_path("traces/pytorch_et/hta_benchmark_simple_add_trace.json"));
  CHECK(gz.gzip());
  CHECK(!plain.gzip());
  CHECK(gz.bytes().size() == 34456);
  CHECK(gz.bytes() == plain.bytes());
  CHECK(gz.head() == plain.bytes().substr(0, gz.head().size()));
}

TEST_CASE("a truncated gzip is an error naming the file and both offsets") {
  ScratchDir dir;
  const std::string whole = test::slurp(shared_path("traces/pytorch_kineto/hta_triton_example.json.gz"));
  const std::string cut = dir.write("cut.json.gz", whole.substr(0, whole.size() / 2));
  const ingest::InputFile f(cut);
  try {
    (void)f.bytes();
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.file == cut);
    // The compressed offset is no position in the decompressed text a reader reports lines
    // of: both counts are said, and no "byte N" of its own.
    CHECK(e.byte_offset < 0);
    const std::string what = e.what();
    CHECK(what.find("ends early, after all " + std::to_string(whole.size() / 2) + " compressed bytes") !=
          std::string::npos);
    const ingest::InputFile full(shared_path("traces/pytorch_kineto/hta_triton_example.json.gz"));
    const auto at = what.find("at decompressed byte ");
    REQUIRE(at != std::string::npos);
    const long long out = std::stoll(what.substr(at + 21));
    CHECK(out > 0);
    CHECK(out < static_cast<long long>(full.bytes().size()));
  }
  // Garbage after a gzip magic number is corrupt, not empty.
  const std::string junk = dir.write("junk.gz", std::string("\x1f\x8b\x08\x00garbagegarbagegarbage", 25));
  CHECK_THROWS_AS((void)ingest::InputFile(junk).bytes(), InputError);
  CHECK_THROWS_AS((void)ingest::InputFile(dir.file("missing")).bytes(), InputError);
}

TEST_CASE("kernel and op names classify into kinds") {
  using ingest::classify_name;
  CHECK(classify_name("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8") == OpKind::gemm);
  CHECK(classify_name("Cijk_Alik_Bljk_BBS_BH_MT128x128x32") == OpKind::gemm);
  CHECK(classify_name("sgemm_nn_128x128_vec") == OpKind::gemm);
  CHECK(classify_name("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>") == OpKind::gemm);
  CHECK(classify_name("sconv_direct_fprop_64x128") == OpKind::conv);
  CHECK(classify_name("void implicit_convolve_sgemm<float>") == OpKind::conv);
  CHECK(classify_name("cudnn::bn_fw_tr_1C11_kernel_NCHW") == OpKind::normalization);
  CHECK(classify_name("ncclKernel_AllReduce_RING_LL_Sum_float") == OpKind::collective);
  CHECK(classify_name("void at::native::vectorized_elementwise_kernel<4>") == OpKind::elementwise);
  CHECK(classify_name("void at::native::reduce_kernel<512, 1>") == OpKind::reduction);
  CHECK(classify_name("triton_poi_fused_add_0") == OpKind::elementwise);
  CHECK(classify_name("triton_red_fused_sum_1") == OpKind::reduction);
  CHECK(classify_name("spool_fprop_max") == OpKind::pooling);
  CHECK(classify_name("Memcpy HtoD (Pageable -> Device)") == OpKind::memcpy);
  CHECK(classify_name("MatMul") == OpKind::gemm);
  CHECK(classify_name("BatchMatMulV2") == OpKind::batched_gemm);
  CHECK(classify_name("Mul") == OpKind::elementwise);
  CHECK(classify_name("ApplyAdam") == OpKind::optimizer);
  CHECK(classify_name("prepare") == OpKind::other);
  CHECK(ingest::phase_from_name("AddmmBackward0") == Phase::backward);
  CHECK(ingest::phase_from_name("Optimizer.step#SGD.step") == Phase::optimizer);
  CHECK(ingest::phase_from_name("aten::addmm") == Phase::forward);
}

TEST_CASE("the aggregator folds events per identity and divides by passes") {
  ingest::OpAggregator agg;
  Op a;
  a.name = "aten::addmm";
  a.kind = OpKind::gemm;
  a.shape = GemmShape{100, 10, 50};
  agg.add(a, 1, 0.004);
  agg.add(a, 1, 0.006);
  Op b = a;
  b.shape = GemmShape{100, 10, 60};
  agg.add(b, 3, std::nullopt);
  const auto ops = agg.finish(2);
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].count == doctest::Approx(1.0));
  CHECK(*ops[0].self_time_s == doctest::Approx(0.005));
  CHECK(ops[1].count == doctest::Approx(1.5));
  CHECK(!ops[1].self_time_s);
}

TEST_CASE("a UTF-8 byte-order mark before a JSON trace or a TAU profile is skipped, as the other text readers do") {
  // Windows editors write one: the Kineto reader said "found 0xef", TAU's header was refused.
  ScratchDir dir;
  for (const std::string& rel : {std::string("traces/pytorch_et/hta_benchmark_simple_add_trace.json"),
                                 std::string("traces/pytorch_et/hta_benchmark_simple_add_et.json"),
                                 std::string("traces/tau/hatchet_tau-cpi-mpi_profile.0.0.0")}) {
    CAPTURE(rel);
    IngestOptions o;
    o.workload = "w";
    const Workload plain = ingest_files({shared_path(rel)}, o);
    const std::string name = rel.substr(rel.rfind('/') + 1);
    const Workload marked = ingest_files({dir.write(name, "\xEF\xBB\xBF" + fomcast::test::slurp(shared_path(rel)))}, o);
    CHECK(marked.origin == plain.origin);
    REQUIRE(marked.ops.size() == plain.ops.size());
    CHECK(marked.measured_op_time_s() == doctest::Approx(plain.measured_op_time_s()));
    CHECK(marked.pass_s == plain.pass_s);
  }
}
