// Collectives on many devices (issue 15): the time of an all-reduce, reduce-scatter,
// all-gather or point-to-point send of `bytes` over `ranks` devices on a platform.
//
// Where the platform's measured all-reduce table (DeepBench's) covers the size and the
// rank count, the time is the table's (exact, or interpolated in log size x log ranks);
// outside it, an alpha-beta model (Hockney: time = steps x alpha + volume / beta) per
// algorithm, the fastest the platform's figures allow, as NCCL's tuner picks:
//   ring          all-reduce 2(p-1)/p x n / B + 2(p-1) alpha over the slowest link the ring
//                 crosses (NVLink/xGMI within a node, the NIC share across nodes);
//                 reduce-scatter and all-gather half of that.
//   tree          NCCL's double binary tree: 2 ceil(log2 p) alpha + 2 n / B (pipelined:
//                 each of the two trees carries half the data up and down).
//   hierarchical  across nodes of g devices: reduce-scatter within the node, all-reduce of
//                 each device's 1/g shard across the N nodes over the node's NICs shared by
//                 its g devices, all-gather within the node:
//                 2 [(g-1)/g n / B_intra + (g-1) alpha_intra] + 2 (N-1)/N n / (nics x B_nic)
//                 + 2 (N-1) alpha_inter.
// The figures are the platform's network levels (devices_per_node, intra_node_*,
// nics_per_node, nic_bw_*, inter_node_latency_s). Where a level lacks a figure the model
// says which, and falls back to the platform's single network figure (net_bw, net_latency)
// as the ring over every rank; with no figure at all there is no time (nullopt), never a
// made-up one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/estimate.hpp"

namespace fomcast {

enum class CollectiveAlgorithm { ring, tree, hierarchical };
std::string_view to_string(CollectiveAlgorithm);

// The closed forms, for one level of bandwidth B (bytes/s, one direction) and latency alpha.
double ring_allreduce_s(double bytes, double ranks, double bw, double alpha);
double ring_reduce_scatter_s(double bytes, double ranks, double bw, double alpha);  // = all-gather
double tree_allreduce_s(double bytes, double ranks, double bw, double alpha);
// nodes x per_node devices; intra: within the node, nic_bw: the node's NICs together.
double hierarchical_allreduce_s(double bytes, double nodes, double per_node, double intra_bw, double intra_alpha,
                                double nic_bw, double inter_alpha);

// The network as one platform's spec describes it, with what is missing named.
struct NetworkLevels {
  double devices_per_node = 0;  // 0: unknown
  double intra_bw = 0, intra_lat = 0;
  // A GPU whose spec has no network figure but a host link (a PCIe card): its devices in one
  // node exchange data peer-to-peer over PCIe, at most at the host link's rate.
  bool intra_over_pcie = false;
  double node_nic_bw = 0;  // nics_per_node x nic_bw: what leaves a node
  // A GPU's own link to its node's PCIe fabric (host_link), through which its traffic reaches
  // a NIC (GPUDirect RDMA): no device sends faster than that, however many NICs its node has.
  double device_link_bw = 0;  // 0: unknown, or not a GPU
  double intra_links = 0;     // intra_node_links: 0 for a switch (or unknown)
  double inter_lat = 0;
  double flat_bw = 0, flat_lat = 0;  // net_bw / net_latency: the pre-level single figure
  std::vector<std::string> missing;  // spec fields with no figure ("intra_node_bw_gb_per_s", ...)
};
NetworkLevels network_levels(const Platform&);

// What one device of a collective over `ranks` devices of one node sends at: on a switch the
// whole intra_bw; on a mesh of direct links (intra_links, one per peer) ranks - 1 of them; a
// group larger than the mesh crosses the host link on some hop, the ring's slowest (sets
// *over_host_link). A point-to-point send (ranks 2) uses one link.
double group_intra_bw(const NetworkLevels&, double ranks, bool* over_host_link = nullptr);

struct CollectiveTime {
  double seconds = 0;
  Method method = Method::network;  // table, interpolated or network (alpha-beta)
  std::string algorithm;            // "ring", "tree", "hierarchical", or the table's
  double uncertainty = 0;
  std::string detail;
  std::vector<std::string> notes;  // figures missing, fallbacks taken
};

// One collective of `bytes` per rank over `ranks` devices of `platform`, `per_node` of them in
// a node (0: the platform's devices_per_node). kind: allreduce, reduce_scatter, allgather or
// send_recv (one device to the next: over the intra-node link when `same_node`). nullopt when
// no figure can time it (the notes say why through `why`).
std::optional<CollectiveTime> collective_time(const Catalog&, const Platform&, CollectiveKind kind, double bytes,
                                              int64_t ranks, int64_t per_node, bool same_node = true,
                                              std::string* why = nullptr);
// The alpha-beta part alone (no table): what collective_time falls back to.
std::optional<CollectiveTime> collective_model(const Platform&, CollectiveKind kind, double bytes, int64_t ranks,
                                               int64_t per_node, bool same_node = true, std::string* why = nullptr);

// `validate`'s allreduce_loo: every measured all-reduce entry of a platform's table predicted
// from the rest of that table (interpolation, as collective_time uses it).
struct AllreduceLoo {
  std::string platform;
  int64_t n = 0;
  double median_abs_error = 0;
  double p90_abs_error = 0;
};
std::vector<AllreduceLoo> validate_allreduce_loo(const Catalog&);

}  // namespace fomcast
