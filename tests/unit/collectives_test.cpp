// The collective model (collectives.hpp): the alpha-beta closed forms by hand, the level a
// collective crosses, the tables where they cover the size and ranks, and allreduce_loo.
#include <doctest/doctest.h>

#include "fomcast/collectives.hpp"
#include "shipped_catalog.hpp"

namespace fomcast::test {
namespace {

Sourced fig(double v) { return Sourced{v, "test figure"}; }

// An 8-GPU node: 300 GB/s NVLink per direction, 2 us; 4 NICs of 25 GB/s, 5 us.
Platform node_of_8() {
  Platform p;
  p.name = "TEST_NODE";
  p.device_kind = "gpu";
  p.devices_per_node = fig(8);
  p.intra_node_bw_bytes_per_s = fig(300e9);
  p.intra_node_latency_s = fig(2e-6);
  p.nics_per_node = fig(4);
  p.nic_bw_bytes_per_s = fig(25e9);
  p.inter_node_latency_s = fig(5e-6);
  return p;
}

}  // namespace

TEST_CASE("ring all-reduce: 2(p-1)/p n/B + 2(p-1) alpha, by hand") {
  // 8 ranks, 100 MB at 100 GB/s, 10 us: 2*7/8 * 1e8/1e11 = 1.75 ms, + 14 * 10 us = 0.14 ms.
  CHECK(ring_allreduce_s(1e8, 8, 100e9, 10e-6) == doctest::Approx(1.75e-3 + 0.14e-3));
  CHECK(ring_reduce_scatter_s(1e8, 8, 100e9, 10e-6) == doctest::Approx((1.75e-3 + 0.14e-3) / 2));
  CHECK(ring_allreduce_s(1e8, 1, 100e9, 10e-6) == 0);
  // Double binary tree, 8 ranks: 2*3 latencies + 2 n/B.
  CHECK(tree_allreduce_s(1e8, 8, 100e9, 10e-6) == doctest::Approx(6 * 10e-6 + 2e-3));
  // 4 nodes x 8: intra RS+AG 2*(7/8 * 1e8/300e9 + 7*2us), inter ring of n/8 over 100/8 GB/s:
  // 2*3/4 * 1.25e7 / 12.5e9 + 6 * 5us.
  const double intra = 2 * (7.0 / 8 * 1e8 / 300e9 + 7 * 2e-6);
  const double inter = 2 * 3.0 / 4 * 1.25e7 / 12.5e9 + 6 * 5e-6;
  CHECK(hierarchical_allreduce_s(1e8, 4, 8, 300e9, 2e-6, 100e9, 5e-6) == doctest::Approx(intra + inter));
}

TEST_CASE("collective_model picks the level and the fastest algorithm the figures allow") {
  const Platform p = node_of_8();
  // Within a node: the ring over NVLink.
  auto in_node = collective_model(p, CollectiveKind::allreduce, 1e8, 8, 0);
  REQUIRE(in_node);
  CHECK(in_node->algorithm == "ring");
  CHECK(in_node->seconds == doctest::Approx(ring_allreduce_s(1e8, 8, 300e9, 2e-6)));
  // Across 4 nodes the hierarchical one beats a flat ring at the NIC share (12.5 GB/s).
  auto across = collective_model(p, CollectiveKind::allreduce, 1e8, 32, 0);
  REQUIRE(across);
  CHECK(across->algorithm == "hierarchical");
  CHECK(across->seconds == doctest::Approx(hierarchical_allreduce_s(1e8, 4, 8, 300e9, 2e-6, 100e9, 5e-6)));
  CHECK(across->seconds < ring_allreduce_s(1e8, 32, 12.5e9, 5e-6));
  // Small messages across many nodes: the tree's log latency wins.
  auto tiny = collective_model(p, CollectiveKind::allreduce, 64, 1024, 0);
  REQUIRE(tiny);
  CHECK(tiny->algorithm == "tree");
  // No level figures: the single network figure, said so; no figure at all: no time.
  Platform flat;
  flat.name = "FLAT";
  flat.net_bw_bytes_per_s = fig(10e9);
  auto f = collective_model(flat, CollectiveKind::allreduce, 1e8, 4, 0);
  REQUIRE(f);
  CHECK(f->seconds == doctest::Approx(ring_allreduce_s(1e8, 4, 10e9, 0)));
  REQUIRE_FALSE(f->notes.empty());
  CHECK(f->notes[0].find("intra_node_bw_gb_per_s") != std::string::npos);
  Platform none;
  none.name = "NONE";
  std::string why;
  CHECK_FALSE(collective_model(none, CollectiveKind::allreduce, 1e8, 4, 0, true, &why));
  CHECK(why.find("NONE") != std::string::npos);
}

TEST_CASE("a PCIe card with no intra-node link: peer-to-peer over its host link, 1 us a step, said so") {
  Platform p;
  p.name = "PCIE_CARD";
  p.device_kind = "gpu";
  p.host_link_bw_bytes_per_s = fig(31.5e9);
  // 4 ranks in one node (no devices_per_node: the caller says 4 per node): the ring over PCIe.
  auto t = collective_model(p, CollectiveKind::allreduce, 1e8, 4, 4);
  REQUIRE(t);
  CHECK(t->seconds ==
        doctest::Approx(std::min(ring_allreduce_s(1e8, 4, 31.5e9, 1e-6), tree_allreduce_s(1e8, 4, 31.5e9, 1e-6))));
  CHECK(t->detail.find("PCIe peer-to-peer") != std::string::npos);
  REQUIRE_FALSE(t->notes.empty());
  CHECK(t->notes[0].find("PCIE_CARD: no intra-node link") != std::string::npos);
  // A spec's own intra-node figures win; a CPU's host link is no device-to-device path.
  p.intra_node_bw_bytes_per_s = fig(300e9);
  p.intra_node_latency_s = fig(0.5e-6);
  auto own = collective_model(p, CollectiveKind::allreduce, 1e8, 4, 4);
  REQUIRE(own);
  CHECK(own->seconds == doctest::Approx(ring_allreduce_s(1e8, 4, 300e9, 0.5e-6)));
  Platform cpu;
  cpu.name = "CPU";
  cpu.device_kind = "cpu";
  cpu.host_link_bw_bytes_per_s = fig(31.5e9);
  CHECK_FALSE(collective_model(cpu, CollectiveKind::allreduce, 1e8, 4, 4));
}

TEST_CASE("the library's base latency: once per collective call, not per step, not on a send") {
  Platform p = node_of_8();
  p.collective_base_latency_s = fig(20e-6);
  // 1 KB over 8 ranks in a node: 2*7/8 * 1e3/300e9 + 14 x 2 us (ring) against 2*3 x 2 us + 2e3/300e9
  // (tree): the tree, 12.0067 us, plus 20 us once: 32.0067 us.
  auto small = collective_model(p, CollectiveKind::allreduce, 1e3, 8, 0);
  REQUIRE(small);
  CHECK(small->algorithm == "tree");
  CHECK(small->seconds == doctest::Approx(6 * 2e-6 + 2e3 / 300e9 + 20e-6));
  CHECK(small->detail.find("20 us per call") != std::string::npos);
  auto gather = collective_model(p, CollectiveKind::allgather, 1e8, 8, 0);
  REQUIRE(gather);
  CHECK(gather->seconds == doctest::Approx(ring_reduce_scatter_s(1e8, 8, 300e9, 2e-6) + 20e-6));
  // A pipeline send is point to point: no collective call cost.
  auto send = collective_model(p, CollectiveKind::send_recv, 1e6, 2, 1, true);
  REQUIRE(send);
  CHECK(send->seconds == doctest::Approx(1e6 / 300e9 + 2e-6));
}

TEST_CASE("collective_time: the measured all-reduce table inside its sizes and ranks, the model outside") {
  const Platform& p100 = spec("NV_P100");
  // DeepBench NV_P100 measures 2..16 GPUs from 100000 floats up.
  auto inside = collective_time(catalog(), p100, CollectiveKind::allreduce, 16777216, 8, 0);
  REQUIRE(inside);
  CHECK((inside->method == Method::table || inside->method == Method::interpolated));
  auto between = collective_time(catalog(), p100, CollectiveKind::allreduce, 3e7, 6, 0);
  REQUIRE(between);
  CHECK(between->method == Method::interpolated);
  auto outside = collective_time(catalog(), p100, CollectiveKind::allreduce, 1e10, 8, 0);
  REQUIRE(outside);
  CHECK(outside->method == Method::network);
}

TEST_CASE("allreduce_loo: every DeepBench all-reduce platform, median within 15%") {
  const auto rows = validate_allreduce_loo(catalog());
  CHECK(rows.size() >= 5);
  for (const auto& r : rows) {
    INFO(r.platform << " n=" << r.n << " median " << r.median_abs_error);
    CHECK(r.n >= 20);
    CHECK(r.median_abs_error <= 0.15);
  }
}

}  // namespace fomcast::test

namespace fomcast::test {

TEST_CASE("a trace's all-reduce op on a spec with network levels: the collective model") {
  Platform p;
  p.name = "TEST_NODE";
  p.device_kind = "gpu";
  p.devices_per_node = Sourced{8, "test"};
  p.intra_node_bw_bytes_per_s = Sourced{300e9, "test"};
  p.intra_node_latency_s = Sourced{2e-6, "test"};
  p.mem_bw_bytes_per_s = Sourced{2e12, "test"};  // a platform needs some figure to be estimated on
  const Catalog c = make_catalog({p}, {});
  Workload w;
  w.name = "ar";
  Op op;
  op.name = "nccl:all_reduce";
  op.kind = OpKind::collective;
  op.shape = CollectiveShape{CollectiveKind::allreduce, 100'000'000, 8};
  w.ops = {op};
  const auto e = estimate_pass(w, "TEST_NODE", c).ops[0];
  CHECK(e.method == Method::network);
  CHECK(e.predicted_s == doctest::Approx(ring_allreduce_s(1e8, 8, 300e9, 2e-6)));
  CHECK(e.detail.find("within a node") != std::string::npos);
}

TEST_CASE("direct links within a node: a group of r devices uses r - 1 of them, a larger one crosses PCIe") {
  // MI300X: 448 GB/s a direction over seven xGMI links, one to each other GPU. Two GPUs have
  // one link between them: 64 GB/s, not the 448 any group had been given (7x too fast).
  Platform mesh = node_of_8();
  mesh.intra_node_bw_bytes_per_s = fig(448e9);
  mesh.intra_node_links = fig(7);
  mesh.host_link_bw_bytes_per_s = fig(63e9);
  for (const auto& group : {std::pair{2, 64e9}, {4, 192e9}, {8, 448e9}}) {
    CAPTURE(group.first);
    const auto t = collective_model(mesh, CollectiveKind::allreduce, 1e8, group.first, 0);
    REQUIRE(t);
    CHECK(t->seconds == doctest::Approx(ring_allreduce_s(1e8, group.first, group.second, 2e-6)));
  }
  // A send goes over one link.
  const auto send = collective_model(mesh, CollectiveKind::send_recv, 1e8, 2, 0, true);
  REQUIRE(send);
  CHECK(send->seconds == doctest::Approx(1e8 / 64e9 + 2e-6));

  // An NVLink bridge joins a pair (H100 PCIe: 300 GB/s a direction): four cards' ring crosses
  // the host link on some hop, 63 GB/s. No devices_per_node: the devices asked for are one
  // server's.
  Platform bridged;
  bridged.name = "TEST_BRIDGE";
  bridged.device_kind = "gpu";
  bridged.intra_node_bw_bytes_per_s = fig(300e9);
  bridged.intra_node_links = fig(1);
  bridged.intra_node_latency_s = fig(0.5e-6);
  bridged.host_link_bw_bytes_per_s = fig(63e9);
  const auto pair = collective_model(bridged, CollectiveKind::allreduce, 1e8, 2, 0);
  REQUIRE(pair);
  CHECK(pair->seconds == doctest::Approx(1e8 / 300e9 + 2 * 0.5e-6));  // 2 (p-1)/p = 1
  const auto four = collective_model(bridged, CollectiveKind::allreduce, 1e8, 4, 0);
  REQUIRE(four);
  CHECK(four->seconds == doctest::Approx(ring_allreduce_s(1e8, 4, 63e9, 0.5e-6)));
  CHECK(four->detail.find("crosses the host link") != std::string::npos);
}

TEST_CASE("across nodes no device sends faster than its own host link, whatever its node's NICs") {
  // One GPU per node of a spec with 4 NICs of 25 GB/s: its share would be 100 GB/s; its PCIe
  // link carries 31.5.
  Platform p = node_of_8();
  p.host_link_bw_bytes_per_s = fig(31.5e9);
  const auto t = collective_model(p, CollectiveKind::allreduce, 1e8, 2, 1);
  REQUIRE(t);
  CHECK(t->seconds == doctest::Approx(ring_allreduce_s(1e8, 2, 31.5e9, 5e-6)));
  CHECK(t->detail.find("host link") != std::string::npos);
  // Eight per node: each device's share (12.5 GB/s) is below its link, unchanged.
  const auto full = collective_model(p, CollectiveKind::allreduce, 1e8, 32, 8);
  REQUIRE(full);
  CHECK(full->seconds == doctest::Approx(hierarchical_allreduce_s(1e8, 4, 8, 300e9, 2e-6, 100e9, 5e-6)));
}

}  // namespace fomcast::test
