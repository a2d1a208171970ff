// What no model can time keeps its measured time, carried by a capability ratio of its own
// kind (never by the ratio another op happened to get), and copies go over the link they
// use. Expected numbers are the spec files' figures, written out here.
#include <doctest/doctest.h>

#include "fomcast/estimate.hpp"
#include "fomcast/store.hpp"
#include "shipped_catalog.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ScratchDir;

namespace {

using test::catalog;
using test::spec;

Op measured(const std::string& name, OpKind kind, double seconds, DType dtype = DType::fp32) {
  Op op;
  op.name = name;
  op.kind = kind;
  op.dtype = dtype;
  op.self_time_s = seconds;
  return op;
}

Op copy_op(const std::string& name, double bytes) {
  Op op;
  op.name = name;
  op.kind = OpKind::memcpy;
  op.dtype = DType::unknown;
  op.bytes = bytes;
  return op;
}

Workload workload(std::vector<Op> ops, const std::string& recorded_on) {
  Workload w;
  w.name = "w";
  w.recorded_on = recorded_on;
  w.ops = std::move(ops);
  return w;
}

double link(const std::string& platform) { return spec(platform).host_link_bw_bytes_per_s->value; }

}  // namespace

TEST_CASE("scaled: a measured op nothing models keeps its own kind's ratio, not another op's") {
  // A GEMM measured at 200 us on V100 that M40's table puts at 336 us, and a host-side
  // `other` op of 1 ms. The GEMM's ratio (1.68) says nothing about the host: the M40 spec
  // gives no host speed, so the other op is carried at its measured time, with a wide band.
  Op g;
  g.name = "mm";
  g.kind = OpKind::gemm;
  g.shape = GemmShape{1760, 128, 1760};
  fill_costs(g);
  g.self_time_s = 200e-6;
  const Op host = measured("host_step", OpKind::other, 1e-3);
  const auto p = estimate_pass(workload({g, host}, "NV_V100"), "NV_M40", catalog());
  CHECK(p.ops[0].method == Method::table);
  CHECK(p.ops[1].method == Method::scaled);
  CHECK(p.ops[1].predicted_s == doctest::Approx(1e-3));
  CHECK(p.ops[1].uncertainty == doctest::Approx(1.0));
  CHECK(p.ops[1].detail.find("no host speed figure for NV_M40") != std::string::npos);
  REQUIRE(!p.ops[1].notes.empty());

  // With host speeds in both specs, the host-side op scales by their ratio.
  Catalog c = catalog();
  c.platforms["NV_V100"].host_speed = Sourced{2.0, "test"};
  c.platforms["NV_M40"].host_speed = Sourced{1.0, "test"};
  const auto q = estimate_pass(workload({g, host}, "NV_V100"), "NV_M40", c);
  CHECK(q.ops[1].method == Method::scaled);
  CHECK(q.ops[1].predicted_s == doctest::Approx(2e-3));
  CHECK(q.ops[1].uncertainty == doctest::Approx(0.5));

  // The V100's shipped figure is on PassMark's scale; an M40 figure from `fomcast bench` is
  // on the bench's: not divided, and said (docs/calibration.md, "Host speed").
  Catalog b = catalog();
  b.platforms["NV_M40"].host_speed = Sourced{1.0, "fomcast bench: host benchmark 13 ms"};
  const auto s = estimate_pass(workload({g, host}, "NV_V100"), "NV_M40", b);
  CHECK(s.ops[1].predicted_s == doctest::Approx(1e-3));
  CHECK(s.ops[1].detail.find("on different scales") != std::string::npos);

  // An fp64 GEMM without a shape on a platform with no fp64 rate: no peak ratio to carry it
  // by, so its measured time, said, rather than nothing.
  const Op f64 = measured("dgemm_kernel", OpKind::gemm, 3e-3, DType::fp64);
  const auto r = estimate_pass(workload({g, f64}, "NV_V100"), "NV_M40", catalog());
  CHECK(r.ops[1].method == Method::scaled);
  CHECK(r.ops[1].predicted_s == doctest::Approx(3e-3));
  CHECK(r.ops[1].detail.find("fp64 peak") != std::string::npos);
}

TEST_CASE("scaled: shape-less compute ops by the peak of their precision, memory-bound ones by bandwidth") {
  const Op conv = measured("conv_kernel", OpKind::conv, 1e-3, DType::fp16);
  const Op ew = measured("elementwise_kernel", OpKind::elementwise, 1e-3);
  const auto p = estimate_pass(workload({conv, ew}, "NV_V100"), "H100", catalog());
  // fp16 tensor rates: 125 TFLOP/s on V100, H100's fp16 figure.
  CHECK(p.ops[0].predicted_s == doctest::Approx(1e-3 * 125e12 / spec("H100").peak_flop_per_s.at(DType::fp16).value));
  CHECK(p.ops[1].predicted_s ==
        doctest::Approx(1e-3 * spec("NV_V100").mem_bw_bytes_per_s->value / spec("H100").mem_bw_bytes_per_s->value));
}

TEST_CASE("scaled: a placeholder recording platform with no figures: carried unscaled, never dropped") {
  Catalog c = catalog();
  Platform box;
  box.name = "mybox";
  box.origin = PlatformOrigin::placeholder;
  c.platforms["mybox"] = box;
  const std::vector<Op> ops = {
      measured("conv_kernel", OpKind::conv, 1e-3), measured("elementwise_kernel", OpKind::elementwise, 5e-4),
      measured("host_step", OpKind::other, 2e-4), measured("nccl:all_reduce", OpKind::collective, 3e-4),
      measured("Memcpy HtoD (Pinned -> Device)", OpKind::memcpy, 1e-4)};
  const auto p = estimate_pass(workload(ops, "mybox"), "NV_V100", c);
  double sum = 0;
  for (const auto& e : p.ops) {
    INFO(ops[e.op_index].name);
    CHECK(e.method == Method::scaled);
    CHECK(e.predicted_s == doctest::Approx(*ops[e.op_index].self_time_s));
    CHECK(e.uncertainty == doctest::Approx(1.0));
    CHECK(e.source_platform == "mybox");
    sum += e.predicted_s;
  }
  CHECK(p.ops_s == doctest::Approx(sum));
  CHECK(p.ops_s == doctest::Approx(2.1e-3));

  // A trace that does not say where it ran: the same, and said.
  const auto q = estimate_pass(workload({measured("host_step", OpKind::other, 2e-4)}, ""), "NV_V100", catalog());
  CHECK(q.ops[0].method == Method::scaled);
  CHECK(q.ops[0].predicted_s == doctest::Approx(2e-4));
  CHECK(q.ops[0].detail.find("does not say where it was measured") != std::string::npos);
}

TEST_CASE("copies: host <-> device over the host link, device copies at memory bandwidth") {
  const double bytes = 64.0 * 1024 * 1024;
  const auto on = [&](const Op& op, const std::string& platform, const std::string& recorded_on = "") {
    const auto p = estimate_pass(workload({op}, recorded_on), platform, catalog());
    REQUIRE(p.ops.size() == 1);
    return p.ops[0];
  };
  // NV_V100's spec: PCIe 3.0 x16, 15.75 GB/s each way; HBM2 900 GB/s. Assumed efficiency 0.8.
  for (const char* name : {"Memcpy HtoD (Pageable -> Device)", "Memcpy DtoH (Device -> Pinned)", "Memcpy HtoD",
                           "MemcpyDtoH", "CopyHostToDevice"}) {
    INFO(name);
    const auto e = on(copy_op(name, bytes), "NV_V100");
    CHECK(e.method == Method::bandwidth);
    CHECK(e.predicted_s == doctest::Approx(bytes / (link("NV_V100") * 0.8)));
    CHECK(e.detail.find("host link") != std::string::npos);
  }
  // A device-to-device copy reads and writes its bytes; a fill writes them.
  auto e = on(copy_op("Memcpy DtoD (Device -> Device)", bytes), "NV_V100");
  CHECK(e.predicted_s == doctest::Approx(2 * bytes / (900e9 * 0.8)));
  e = on(copy_op("Memset (Device)", bytes), "NV_V100");
  CHECK(e.predicted_s == doctest::Approx(bytes / (900e9 * 0.8)));
  // A measured copy on V100 carried to H100 by the host-link ratio (PCIe 3 -> PCIe 5).
  Op timed = copy_op("Memcpy HtoD (Pageable -> Device)", bytes);
  timed.self_time_s = 10e-3;
  e = on(timed, "H100", "NV_V100");
  CHECK(e.predicted_s == doctest::Approx(10e-3 * link("NV_V100") / link("H100")));
  CHECK(e.source_platform == "NV_V100");
  // A CPU has no host link: a host copy there runs at its memory bandwidth, and says so.
  e = on(copy_op("Memcpy HtoD (Pinned -> Device)", bytes), "Xeon_8480p");
  CHECK(e.predicted_s == doctest::Approx(bytes / (spec("Xeon_8480p").mem_bw_bytes_per_s->value * 0.8)));
  CHECK(!e.notes.empty());
}

TEST_CASE("copy_route: the direction of a copy from the words of its name") {
  CHECK(copy_route("Memcpy HtoD (Pageable -> Device)").direction == CopyDirection::host_to_device);
  CHECK(copy_route("Memcpy HtoD (Pageable -> Device)").pageable);
  CHECK(!copy_route("Memcpy HtoD (Pinned -> Device)").pageable);
  CHECK(copy_route("Memcpy DtoH (Device -> Pageable)").direction == CopyDirection::device_to_host);
  CHECK(copy_route("Memcpy DtoD (Device -> Device)").direction == CopyDirection::device_to_device);
  CHECK(copy_route("Memcpy PtoP").direction == CopyDirection::peer_to_peer);
  CHECK(copy_route("MemcpyH2D").direction == CopyDirection::host_to_device);
  CHECK(copy_route("MemcpyHtoD").direction == CopyDirection::host_to_device);
  CHECK(copy_route("CopyDeviceToHost").direction == CopyDirection::device_to_host);
  CHECK(copy_route("copy host to device").direction == CopyDirection::host_to_device);
  CHECK(copy_route("H2D").direction == CopyDirection::host_to_device);
  CHECK(copy_route("aten::copy_").direction == CopyDirection::unknown);
  CHECK(copy_route("widthtodepth_kernel").direction == CopyDirection::unknown);
  CHECK(copy_route("Memset (Device)").memset);
}
