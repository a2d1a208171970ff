// XPlane profiles (.xplane.pb) from the JAX / TensorFlow profilers: the shared JAX 3-D
// convolution on eight MI300X GPUs, and bad input.
#include <doctest/doctest.h>

#include <fstream>

#include "fomcast/ingest.hpp"
#include "ingest_text_support.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ingest_one;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;

namespace {

const std::string kShared = "traces/tensorflow/xplane/tracelens_mi300x_jax_conv_minimal_08.xplane.pb";

}  // namespace

TEST_CASE("xplane: the shared JAX conv profile gives HLO ops with their kernels' time per device") {
  const std::string p = shared_path(kShared);
  CHECK(detect_format(p) == "xplane");
  const Workload w = ingest_one(p);
  CHECK(w.origin == "xplane");
  CHECK(w.events == 235);  // kernel events on the eight /device:GPU planes' stream lines
  CHECK(w.passes == 1);
  // 28,137,077,000 ps of kernels in all (duration_ps summed by a separate decoder), over
  // eight devices.
  double total = 0;
  for (const auto& op : w.ops) total += test::per_pass_s(op);
  CHECK(total == doctest::Approx(28137077e-9 / 8).epsilon(1e-9));
  // The convolution: 79 kernels for hlo_op cudnn-conv.1 (im2col and the GEMM), 1.566 ms.
  const Op& conv = test::op_named(w, "cudnn-conv.1");
  CHECK(conv.kind == OpKind::conv);
  CHECK(conv.dtype == DType::bf16);  // its GEMM kernel is Tensile's Cijk_..._BBS_...: bf16 in, fp32 accumulate
  CHECK(conv.count == doctest::Approx(79.0 / 8));
  CHECK(test::per_pass_s(conv) == doctest::Approx(0.001566452).epsilon(1e-9));
  CHECK(test::op_named(w, "input_transpose_fusion").kind == OpKind::elementwise);
  CHECK(test::op_named(w, "__amd_rocclr_copyBuffer.kd").kind == OpKind::memcpy);
}

TEST_CASE("xplane: bad input names the file and byte offset and stores nothing") {
  ScratchDir dir;
  const std::string whole = test::slurp(shared_path(kShared));
  const std::string db = dir.file("f.db");
  REQUIRE(test::run_fomcast("platforms", db).status == 0);
  const std::string before = test::file_fingerprint(db);
  auto write = [&](const std::string& name, const std::string& bytes) {
    const std::string p = dir.file(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cut.xplane.pb", whole.substr(0, 200000)},
      {"cut-early.xplane.pb", whole.substr(0, 40)},
  };
  for (const auto& [name, bytes] : cases) {
    const std::string p = write(name, bytes);
    const auto r = test::run_fomcast("ingest '" + p + "' --workload bad --format xplane", db);
    CHECK_MESSAGE(r.status == 2, name);
    CHECK_MESSAGE(r.err.find(p + ": byte ") != std::string::npos, r.err);
    CHECK_MESSAGE(r.err.find("truncated protobuf") != std::string::npos, r.err);
    CHECK(test::file_fingerprint(db) == before);
  }
  // Named .xplane.pb but not one: auto-detection says what it expected.
  const std::string junk = write("junk.xplane.pb", std::string("\x01\x02\x03 not a profile", 18));
  const auto r = test::run_fomcast("ingest '" + junk + "' --workload bad", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find("--format xplane") != std::string::npos, r.err);
  // A protobuf with planes but none named like a profiler's: not an XPlane profile.
  const std::string other = write("other.pb", std::string("\x0a\x05\x12\x03" "abc", 7));
  const auto o = test::run_fomcast("ingest '" + other + "' --workload bad --format xplane", db);
  CHECK(o.status == 2);
  CHECK_MESSAGE(o.err.find("not an XPlane profile") != std::string::npos, o.err);
  CHECK(test::file_fingerprint(db) == before);
}
