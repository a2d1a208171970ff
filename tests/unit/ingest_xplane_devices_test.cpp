// XPlane per device: counts and times come from the device planes that ran the module; a
// plane holding only runtime copies ran none of it and is not averaged in. The profile is
// written field by field here (xplane.proto): two GPUs run dot.1 twice and fusion.2 once
// each, a third only copies buffers.
#include <doctest/doctest.h>

#include "fomcast/ingest.hpp"
#include "protobuf_encode.hpp"
#include "test_support.hpp"
#include "workload_queries.hpp"

using namespace fomcast;
using fomcast::test::find_all;
using fomcast::test::find_one;
using fomcast::test::has_note;
using fomcast::test::ScratchDir;
namespace pb = fomcast::test::pb;

namespace {

using pb::bytes;
using pb::num;

std::string entry(uint64_t key, const std::string& value) { return num(1, key) + bytes(2, value); }
std::string metadata(uint64_t id, const std::string& name) { return entry(id, num(1, id) + bytes(2, name)); }

// stat metadata 2 = hlo_op, 3 = device_vendor; event metadata 10 = a GEMM kernel, 11 = a
// fusion kernel, 12 = ROCm's runtime copy.
std::string plane(const std::string& name, const std::string& events) {
  return bytes(1, bytes(2, name) + bytes(5, metadata(2, "hlo_op")) + bytes(5, metadata(3, "device_vendor")) +
                      bytes(6, num(1, 3) + bytes(5, "AMD")) + bytes(4, metadata(10, "Cijk_Ailk_Bljk_SB_MT64x64")) +
                      bytes(4, metadata(11, "loop_add_fusion.kd")) +
                      bytes(4, metadata(12, "__amd_rocclr_copyBuffer.kd")) +
                      bytes(3, bytes(2, "Stream #1(Kernel)") + events));
}
std::string kernel(uint64_t id, uint64_t ps, const std::string& hlo_op = "") {
  std::string e = num(1, id) + num(3, ps);
  if (!hlo_op.empty()) e += bytes(4, num(1, 2) + bytes(5, hlo_op));
  return bytes(4, e);
}

}  // namespace

TEST_CASE("xplane devices: a device plane with only copies is not averaged in") {
  ScratchDir dir;
  const std::string module_gpu = kernel(10, 1'000'000, "dot.1") + kernel(10, 1'000'000, "dot.1") +
                                 kernel(11, 500'000, "fusion.2") + kernel(12, 100'000);
  const std::string copies_only = kernel(12, 2'000'000) + kernel(12, 2'000'000) + kernel(12, 2'000'000);
  const std::string profile =
      plane("/device:GPU:0", module_gpu) + plane("/device:GPU:1", module_gpu) + plane("/device:GPU:2", copies_only);
  IngestOptions o;
  o.workload = "t";
  const Workload w = ingest_files({dir.write("three.xplane.pb", profile)}, o);
  CHECK(has_note(w, "2 device(s) that ran the module"));
  CHECK(has_note(w, "1 device plane(s) held only runtime copies (3 kernels, 6 us) and ran no part of the module"));
  // dot.1 ran twice on each module device, 1 us each: 2 calls, 2 us per pass (averaging in
  // the copying GPU would make it 1.33 calls).
  const Op& dot = find_one(w, "dot.1");
  CHECK(dot.count == doctest::Approx(2));
  CHECK(*dot.self_time_s == doctest::Approx(1e-6));
  CHECK(find_one(w, "fusion.2").count == doctest::Approx(1));
  // The module devices' own copy: 0.1 us each, per device.
  const Op& copy = find_one(w, "__amd_rocclr_copyBuffer.kd");
  CHECK(copy.count == doctest::Approx(1));
  CHECK(*copy.self_time_s == doctest::Approx(0.1e-6));
  CHECK(w.device == "AMD GPU");
}
