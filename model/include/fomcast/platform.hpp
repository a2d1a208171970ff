// Platforms: one node of a machine, every figure with its source.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/op.hpp"

namespace fomcast {

struct Sourced {
  double value = 0;
  std::string source;  // citation, "measured by fomcast bench ...", or "assumed: ..."
};

// Where a platform's spec came from. Stored by name (to_string) in the platforms table.
enum class PlatformOrigin {
  user,         // written by hand: a spec that names no origin
  shipped,      // data/platforms/, loaded into every database
  measured,     // `fomcast bench` on this machine
  placeholder,  // a name used before any spec exists: no figures yet
};
std::string_view to_string(PlatformOrigin);
std::optional<PlatformOrigin> parse_platform_origin(std::string_view);

struct Platform {
  std::string name;
  std::string description;
  std::string device_kind;  // gpu, cpu, mobile_cpu, ...
  PlatformOrigin origin = PlatformOrigin::user;
  std::string vendor;        // NVIDIA, AMD, Intel, Fujitsu, ...: "" when unknown
  std::string architecture;  // Kepler, Volta, CDNA2, ...: tables transfer best within one
  // How traces name this device ("V100" for "Tesla V100-SXM2-32GB"): whole words, any case
  // and punctuation (platform_match.hpp); empty when no device name can be known.
  std::vector<std::string> device_names;
  std::map<DType, Sourced> peak_flop_per_s;
  std::optional<Sourced> mem_bw_bytes_per_s;
  std::optional<Sourced> mem_bytes;
  // The link between host memory and the device (PCIe generation x lanes, NVLink-C2C,
  // Infinity Fabric), one direction: what host <-> device copies go over.
  std::optional<Sourced> host_link_bw_bytes_per_s;
  std::optional<Sourced> net_bw_bytes_per_s;
  std::optional<Sourced> net_latency_s;
  // The device's compute layout, for wave quantization and launch floors (transfer model).
  std::optional<Sourced> compute_units;  // SMs (NVIDIA), CUs (AMD) or cores (CPU) one process sees
  std::optional<Sourced> clock_hz;       // boost clock
  std::optional<Sourced> l2_bytes;       // last-level on-chip cache one process sees
  // One node as the network sees it (collective model, units of work). A "device" is what
  // one process drives: a GPU, or one GCD of an MI250X.
  std::optional<Sourced> devices_per_node;
  std::optional<Sourced> intra_node_bw_bytes_per_s;  // per device, one direction (NVLink, xGMI)
  std::optional<Sourced> intra_node_latency_s;
  // Direct links from each device to others of its node, one per peer, intra_node_bw split
  // evenly over them (MI300X: seven xGMI links, a full mesh of eight; an NVLink bridge: one,
  // a pair). Unset: a switch (NVSwitch), every group at the whole intra_node_bw.
  std::optional<Sourced> intra_node_links;
  std::optional<Sourced> nics_per_node;
  std::optional<Sourced> nic_bw_bytes_per_s;  // per NIC, one direction
  std::optional<Sourced> inter_node_latency_s;
  // The collective library's fixed cost of one call (NCCL's / RCCL's baseLat), on top of
  // the per-step latencies above; not for point-to-point sends.
  std::optional<Sourced> collective_base_latency_s;
  std::string host_cpu;  // the host processor's model name, "" when unknown
  std::optional<Sourced> power_w;
  std::optional<Sourced> host_speed;         // relative CPU-side speed; 1 = reference host
  std::optional<Sourced> overhead_factor;    // framework overhead relative to reference
  std::optional<Sourced> launch_overhead_s;  // per-kernel launch cost
  std::string environment_json;              // sysinfo of a measured platform, as JSON text

  bool placeholder() const { return origin == PlatformOrigin::placeholder; }
};

// Two specs no estimate can tell apart: one vendor and architecture, the same compute units,
// every peak and the bandwidth within 1% (an MI210 and one GCD of an MI250; a renamed copy).
bool same_figures(const Platform&, const Platform&);

// How many sourced figures a spec gives: its peak rates and every other figure of the file form.
std::size_t sourced_figure_count(const Platform&);

// Platform spec files (data/platforms/*.json) and the stored spec_json use this form. An
// unknown origin is an InputError naming the file.
nlohmann::json platform_to_json(const Platform&);
Platform platform_from_json(const nlohmann::json&, std::string_view file);

}  // namespace fomcast
