// The collective model of collectives.hpp: the platform's measured all-reduce table where it
// covers the size and rank count, else the fastest alpha-beta algorithm its figures allow.
#include "fomcast/collectives.hpp"

#include <algorithm>
#include <cmath>

#include "catalog.hpp"
#include "fomcast/format.hpp"
#include "predict.hpp"

namespace fomcast {
namespace {

double figure(const std::optional<Sourced>& s) { return s ? s->value : 0; }

// Band of an alpha-beta time with the spec's figures: NCCL reaches 70-90% of link bandwidth
// on large messages (its busBw against the link), so about 30% one standard deviation.
constexpr double kModelBand = 0.3;
// Band of a table time interpolated inside the measured sizes and ranks: validate's
// allreduce_loo medians (docs/accuracy.md).
constexpr double kTableBand = 0.15;

bool covers(const est::TableGroup& g, double bytes, int64_t ranks) {
  double bmin = INFINITY, bmax = 0;
  int64_t rmin = INT64_MAX, rmax = 0;
  for (const auto* e : g.entries) {
    const auto* c = std::get_if<CollectiveShape>(&e->shape);
    if (!c) continue;
    bmin = std::min(bmin, static_cast<double>(c->bytes)), bmax = std::max(bmax, static_cast<double>(c->bytes));
    rmin = std::min(rmin, c->ranks), rmax = std::max(rmax, c->ranks);
  }
  return bytes >= bmin && bytes <= bmax && ranks >= rmin && ranks <= rmax;
}

}  // namespace

std::string_view to_string(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::ring: return "ring";
    case CollectiveAlgorithm::tree: return "tree";
    case CollectiveAlgorithm::hierarchical: return "hierarchical";
  }
  return "ring";
}

double ring_allreduce_s(double n, double p, double bw, double alpha) {
  if (p <= 1) return 0;
  return 2 * (p - 1) / p * n / bw + 2 * (p - 1) * alpha;
}

double ring_reduce_scatter_s(double n, double p, double bw, double alpha) {
  if (p <= 1) return 0;
  return (p - 1) / p * n / bw + (p - 1) * alpha;
}

double tree_allreduce_s(double n, double p, double bw, double alpha) {
  if (p <= 1) return 0;
  return 2 * std::ceil(std::log2(p)) * alpha + 2 * n / bw;
}

double hierarchical_allreduce_s(double n, double nodes, double g, double intra_bw, double intra_alpha, double nic_bw,
                                double inter_alpha) {
  const double intra = g > 1 ? 2 * ring_reduce_scatter_s(n, g, intra_bw, intra_alpha) : 0;
  // Every device all-reduces its n/g shard across the nodes; the g of them share the node's
  // NICs, so each sees nic_bw / g: the n/g over nic_bw/g is n / nic_bw.
  const double inter = nodes > 1 ? ring_allreduce_s(n / g, nodes, nic_bw / g, inter_alpha) : 0;
  return intra + inter;
}

NetworkLevels network_levels(const Platform& p) {
  NetworkLevels l;
  l.devices_per_node = figure(p.devices_per_node);
  l.intra_bw = figure(p.intra_node_bw_bytes_per_s);
  l.intra_lat = figure(p.intra_node_latency_s);
  l.node_nic_bw = figure(p.nics_per_node) * figure(p.nic_bw_bytes_per_s);
  l.inter_lat = figure(p.inter_node_latency_s);
  if (p.device_kind == "gpu") l.device_link_bw = figure(p.host_link_bw_bytes_per_s);
  l.intra_links = figure(p.intra_node_links);
  l.flat_bw = figure(p.net_bw_bytes_per_s);
  l.flat_lat = figure(p.net_latency_s);
  // Only where the spec has no network figure at all: a single net_bw (an NVLink bridge's)
  // says more than the host link.
  if (!p.intra_node_bw_bytes_per_s && !p.net_bw_bytes_per_s && p.host_link_bw_bytes_per_s && p.device_kind == "gpu") {
    l.intra_bw = p.host_link_bw_bytes_per_s->value;
    l.intra_over_pcie = true;
    // NCCL's own latency model, NVIDIA/nccl src/graph/tuning.cc at 01afd20 (the commit the
    // shipped specs cite for NVLink and the network), hwLat PCI ring LL: 1.0 us a ring step.
    if (!p.intra_node_latency_s) l.intra_lat = 1.0e-6;
  }
  if (!p.devices_per_node) l.missing.emplace_back("devices_per_node");
  if (!p.intra_node_bw_bytes_per_s) l.missing.emplace_back("intra_node_bw_gb_per_s");
  if (!p.intra_node_latency_s) l.missing.emplace_back("intra_node_latency_us");
  if (!p.nics_per_node) l.missing.emplace_back("nics_per_node");
  if (!p.nic_bw_bytes_per_s) l.missing.emplace_back("nic_bw_gb_per_s");
  if (!p.inter_node_latency_s) l.missing.emplace_back("inter_node_latency_us");
  return l;
}

double group_intra_bw(const NetworkLevels& l, double ranks, bool* over_host_link) {
  if (over_host_link) *over_host_link = false;
  if (!(l.intra_links > 0) || ranks < 2) return l.intra_bw;
  const double peers = ranks - 1;
  if (peers <= l.intra_links) return l.intra_bw * peers / l.intra_links;
  if (over_host_link) *over_host_link = true;
  const double link = l.intra_bw / l.intra_links;
  return l.device_link_bw > 0 ? std::min(link, l.device_link_bw) : link;
}

namespace {

// The alpha-beta time of one call, without and then with the library's fixed cost per call.
std::optional<CollectiveTime> modelled(const Platform& p, CollectiveKind kind, double bytes, int64_t ranks,
                                       int64_t per_node, bool same_node, std::string* why);

}  // namespace

std::optional<CollectiveTime> collective_model(const Platform& p, CollectiveKind kind, double bytes, int64_t ranks,
                                               int64_t per_node, bool same_node, std::string* why) {
  auto t = modelled(p, kind, bytes, ranks, per_node, same_node, why);
  if (t && p.collective_base_latency_s && kind != CollectiveKind::send_recv && t->algorithm != "none") {
    t->seconds += p.collective_base_latency_s->value;
    t->detail += ", + " + format_significant(p.collective_base_latency_s->value * 1e6) + " us per call";
  }
  return t;
}

namespace {

std::optional<CollectiveTime> modelled(const Platform& p, CollectiveKind kind, double bytes, int64_t ranks,
                                       int64_t per_node, bool same_node, std::string* why) {
  const NetworkLevels l = network_levels(p);
  CollectiveTime t;
  t.method = Method::network;
  t.uncertainty = kModelBand;
  if (ranks <= 1 || !(bytes > 0)) {
    t.algorithm = "none";
    t.detail = "one rank: nothing to exchange";
    return t;
  }
  const double g = per_node > 0 ? static_cast<double>(per_node) : l.devices_per_node;
  const double r = static_cast<double>(ranks);
  // The levels this collective crosses: within one node, or across nodes.
  const bool intra_ok = l.intra_bw > 0, inter_ok = l.node_nic_bw > 0 && g > 0;
  // A spec with a link within a node but no node size (a PCIe card with an NVLink bridge):
  // the devices asked for are one server's.
  const bool one_node =
      kind == CollectiveKind::send_recv ? same_node || !(g > 0) : (g > 0 ? r <= g : intra_ok && !inter_ok);
  auto missing_note = [&] {
    std::string m;
    for (const auto& f : l.missing) m += (m.empty() ? "" : ", ") + f;
    return m;
  };
  // A ring over every rank at bandwidth bw and latency lat, per kind.
  auto ring = [&](double bw, double lat) {
    switch (kind) {
      case CollectiveKind::reduce_scatter:
      case CollectiveKind::allgather: return ring_reduce_scatter_s(bytes, r, bw, lat);
      case CollectiveKind::send_recv: return bytes / bw + lat;
      default: return ring_allreduce_s(bytes, r, bw, lat);
    }
  };
  if (one_node && intra_ok) {
    bool crosses_host_link = false;
    const double bw = group_intra_bw(l, kind == CollectiveKind::send_recv ? 2.0 : r, &crosses_host_link);
    t.seconds = ring(bw, l.intra_lat);
    t.algorithm = kind == CollectiveKind::send_recv ? "p2p" : "ring";
    if (kind == CollectiveKind::allreduce) {
      const double tree = tree_allreduce_s(bytes, r, bw, l.intra_lat);
      if (tree < t.seconds) t.seconds = tree, t.algorithm = "tree";
    }
    t.detail = t.algorithm + " within a node over " + format_significant(bw / 1e9) + " GB/s" +
               (l.intra_over_pcie ? " (PCIe peer-to-peer)" : "") + ", alpha " + format_significant(l.intra_lat * 1e6) +
               " us";
    if (l.intra_links > 0 && bw != l.intra_bw)
      t.detail += crosses_host_link ? " (" + format_significant(r) + " devices are more than the " +
                                          format_significant(l.intra_links + 1) +
                                          " its direct links join: the ring crosses the host link)"
                                    : " (" + format_significant(kind == CollectiveKind::send_recv ? 1.0 : r - 1) +
                                          " of the " + format_significant(l.intra_links) + " direct links of " +
                                          format_significant(l.intra_bw / 1e9) + " GB/s)";
    if (l.intra_over_pcie) {
      t.uncertainty = 0.5;
      t.notes.push_back(p.name +
                        ": no intra-node link in the spec: its devices taken to exchange data peer-to-peer "
                        "over PCIe at up to its host link, " +
                        format_significant(l.intra_bw / 1e9) +
                        " GB/s each way, 1 us a ring step (NCCL's PCI latency); a server's PCIe switches or an "
                        "NVLink bridge change that (intra_node_bw_gb_per_s in a spec of your own)");
    } else if (!p.intra_node_latency_s) {
      t.notes.emplace_back(p.name + ": no intra_node_latency_us in the spec: alpha 0");
    }
    return t;
  }
  if (!one_node && inter_ok) {
    const double nodes = std::ceil(r / g);
    // A flat ring crossing nodes: each device's share of its node's NICs, no more than its own
    // link carries (one GPU per node of an 8-NIC spec had been given all 400 GB/s).
    const bool link_bound = l.device_link_bw > 0 && l.node_nic_bw / g > l.device_link_bw;
    const double share = link_bound ? l.device_link_bw : l.node_nic_bw / g;
    const double node_bw = share * g;  // what the node's devices together send
    const double node_intra = group_intra_bw(l, g);
    const double lat = l.inter_lat;
    if (kind == CollectiveKind::send_recv) {
      t.seconds = bytes / share + lat, t.algorithm = "p2p";
    } else {
      t.seconds = ring(intra_ok ? std::min(share, node_intra) : share, lat), t.algorithm = "ring";
      if (kind == CollectiveKind::allreduce) {
        const double tree = tree_allreduce_s(bytes, r, share, lat);
        if (tree < t.seconds) t.seconds = tree, t.algorithm = "tree";
        if (intra_ok) {
          const double h = hierarchical_allreduce_s(bytes, nodes, g, node_intra, l.intra_lat, node_bw, lat);
          if (h < t.seconds) t.seconds = h, t.algorithm = "hierarchical";
        }
      } else if (intra_ok) {
        // Reduce-scatter / all-gather across nodes: half of the hierarchical all-reduce.
        const double h = hierarchical_allreduce_s(bytes, nodes, g, node_intra, l.intra_lat, node_bw, lat) / 2;
        if (h < t.seconds) t.seconds = h, t.algorithm = "hierarchical";
      }
    }
    t.detail = kind == CollectiveKind::send_recv
                   ? "p2p between nodes over the device's share of its node's NICs, " +
                         format_significant(share / 1e9) + " GB/s (" + format_significant(l.node_nic_bw / 1e9) +
                         " GB/s a node over the " + format_significant(g) + " devices sending at once), alpha " +
                         format_significant(lat * 1e6) + " us"
                   : t.algorithm + " over " + format_significant(nodes) + " nodes of " + format_significant(g) +
                         " devices, NICs " + format_significant(l.node_nic_bw / 1e9) + " GB/s per node, alpha " +
                         format_significant(lat * 1e6) + " us";
    if (link_bound)
      t.detail += "; each device sends at most its host link's " + format_significant(l.device_link_bw / 1e9) +
                  " GB/s of its " + format_significant(l.node_nic_bw / g / 1e9) + " GB/s NIC share";
    if (!p.inter_node_latency_s) t.notes.emplace_back(p.name + ": no inter_node_latency_us in the spec: alpha 0");
    return t;
  }
  // The levels are not in the spec: the single network figure as before, a ring over all.
  if (l.flat_bw > 0) {
    t.seconds = ring(l.flat_bw, l.flat_lat);
    t.algorithm = kind == CollectiveKind::send_recv ? "p2p" : "ring";
    t.uncertainty = 0.5;
    t.detail = t.algorithm + " over the spec's single network figure " + format_significant(l.flat_bw / 1e9) + " GB/s";
    t.notes.push_back(p.name + ": no " + missing_note() + " in the spec: net_bw_gb_per_s for every level" +
                      (p.net_latency_s ? std::string() : ", latency 0 (no net_latency_us either)"));
    return t;
  }
  if (why) *why = p.name + " has no network figure (" + missing_note() + ", net_bw_gb_per_s)";
  return std::nullopt;
}

}  // namespace

std::optional<CollectiveTime> collective_time(const Catalog& catalog, const Platform& p, CollectiveKind kind,
                                              double bytes, int64_t ranks, int64_t per_node, bool same_node,
                                              std::string* why) {
  if (kind == CollectiveKind::allreduce && ranks > 1 && bytes > 0)
    if (const auto* g = est::allreduce_group(catalog, p); g && covers(*g, bytes, ranks)) {
      const CollectiveShape shape{CollectiveKind::allreduce, static_cast<int64_t>(bytes), ranks};
      if (auto q = est::quote_group(*g, OpKind::collective, shape, p.name)) {
        CollectiveTime t;
        t.seconds = q->seconds;
        t.method = q->method;
        t.algorithm = "measured";
        t.uncertainty = q->method == Method::table ? q->uncertainty : std::max(q->uncertainty, kTableBand);
        t.detail = q->detail;
        t.notes = q->notes;
        return t;
      }
    }
  return collective_model(p, kind, bytes, ranks, per_node, same_node, why);
}

namespace est {

const TableGroup* allreduce_group(const Catalog& catalog, const Platform& p) {
  const PlatformTables* t = tables_of(catalog, p.name);
  if (!t) return nullptr;
  for (const KernelMode mode : {KernelMode::train, KernelMode::inference})
    if (const auto* g = t->find(OpKind::collective, KernelPrecision::fp32, mode, CollectiveKind::allreduce)) return g;
  return nullptr;
}

}  // namespace est
}  // namespace fomcast
