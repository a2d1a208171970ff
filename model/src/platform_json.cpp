// Platform spec files (data/platforms/*.json) <-> Platform. Files use the units people
// quote (TFLOP/s, GB/s, GiB, microseconds); Platform holds SI units. Every figure carries
// its source: {"value": 250, "source": "NVIDIA K20X datasheet"}.
#include <cmath>

#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/model.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/platform_spec.hpp"

namespace fomcast {
namespace {

using nlohmann::json;

struct Field {
  const char* key;  // in the file
  double scale;     // file unit -> SI
  std::optional<Sourced> Platform::*member;
};

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const Field kFields[] = {
    {"mem_bw_gb_per_s", 1e9, &Platform::mem_bw_bytes_per_s},
    {"mem_gib", kGiB, &Platform::mem_bytes},
    {"host_link_bw_gb_per_s", 1e9, &Platform::host_link_bw_bytes_per_s},
    {"net_bw_gb_per_s", 1e9, &Platform::net_bw_bytes_per_s},
    {"net_latency_us", 1e-6, &Platform::net_latency_s},
    {"compute_units", 1.0, &Platform::compute_units},
    {"boost_clock_mhz", 1e6, &Platform::clock_hz},
    {"l2_cache_mib", 1024.0 * 1024.0, &Platform::l2_bytes},
    {"devices_per_node", 1.0, &Platform::devices_per_node},
    {"intra_node_bw_gb_per_s", 1e9, &Platform::intra_node_bw_bytes_per_s},
    {"intra_node_latency_us", 1e-6, &Platform::intra_node_latency_s},
    {"intra_node_links", 1.0, &Platform::intra_node_links},
    {"nics_per_node", 1.0, &Platform::nics_per_node},
    {"nic_bw_gb_per_s", 1e9, &Platform::nic_bw_bytes_per_s},
    {"inter_node_latency_us", 1e-6, &Platform::inter_node_latency_s},
    {"collective_base_latency_us", 1e-6, &Platform::collective_base_latency_s},
    {"power_w", 1.0, &Platform::power_w},
    {"host_speed", 1.0, &Platform::host_speed},
    {"overhead_factor", 1.0, &Platform::overhead_factor},
    {"launch_overhead_us", 1e-6, &Platform::launch_overhead_s},
};

Sourced read_sourced(const json& j, double scale, std::string_view file, const std::string& field) {
  Sourced s;
  double v = 0;
  if (j.is_number()) {
    v = j.get<double>();
    s.source = "given in " + std::string(file);
  } else if (j.is_object() && j.contains("value") && j.at("value").is_number()) {
    v = j.at("value").get<double>();
    if (!j.contains("source") || !j.at("source").is_string() || j.at("source").get<std::string>().empty())
      throw InputError(std::string(file), "every figure needs a non-empty \"source\"", 0, -1, field);
    s.source = j.at("source").get<std::string>();
  } else {
    throw InputError(std::string(file), "expected a number or {\"value\": number, \"source\": text}", 0, -1, field);
  }
  if (!std::isfinite(v) || v <= 0)
    throw InputError(std::string(file), "must be a positive finite number", 0, -1, field);
  s.value = v * scale;
  return s;
}

json write_sourced(const Sourced& s, double scale) { return json{{"value", s.value / scale}, {"source", s.source}}; }

}  // namespace

Platform platform_from_json(const json& j, std::string_view file) {
  if (!j.is_object()) throw InputError(std::string(file), "a platform spec must be a JSON object");
  Platform p;
  if (!j.contains("name") || !j.at("name").is_string() || j.at("name").get<std::string>().empty())
    throw InputError(std::string(file), "missing or empty", 0, -1, "name");
  p.name = j.at("name").get<std::string>();
  p.description = j.value("description", std::string());
  p.device_kind = j.value("device_kind", std::string());
  const std::string origin = j.value("origin", std::string("user"));
  const auto known_origin = parse_platform_origin(origin);
  if (!known_origin)
    throw InputError(std::string(file), "unknown origin '" + origin + "' (user, shipped, measured or placeholder)", 0,
                     -1, "origin");
  p.origin = *known_origin;
  for (const auto& [key, member] :
       {std::pair{"vendor", &Platform::vendor}, std::pair{"architecture", &Platform::architecture},
        std::pair{"host_cpu", &Platform::host_cpu}}) {
    if (!j.contains(key) || j.at(key).is_null()) continue;
    if (!j.at(key).is_string()) throw InputError(std::string(file), "must be a string", 0, -1, key);
    p.*member = j.at(key).get<std::string>();
  }
  if (j.contains("device_names") && !j.at("device_names").is_null()) {
    const auto& names = j.at("device_names");
    if (!names.is_array())
      throw InputError(std::string(file), "must be an array of device-name patterns", 0, -1, "device_names");
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string field = "device_names[" + std::to_string(i) + "]";
      if (!names[i].is_string() || device_words(names[i].get<std::string>()).empty())
        throw InputError(std::string(file), "must be a device-name pattern with a letter or digit", 0, -1, field);
      p.device_names.push_back(names[i].get<std::string>());
    }
  }
  if (j.contains("peak_tflop_per_s")) {
    const auto& peaks = j.at("peak_tflop_per_s");
    if (!peaks.is_object())
      throw InputError(std::string(file), "must be an object of dtype -> figure", 0, -1, "peak_tflop_per_s");
    for (const auto& [dtype_name, fig] : peaks.items()) {
      const std::string field = "peak_tflop_per_s." + dtype_name;
      auto d = parse_dtype(dtype_name);
      if (!d) throw InputError(std::string(file), "unknown dtype", 0, -1, field);
      p.peak_flop_per_s[*d] = read_sourced(fig, 1e12, file, field);
    }
  }
  for (const auto& f : kFields)
    if (j.contains(f.key) && !j.at(f.key).is_null()) p.*(f.member) = read_sourced(j.at(f.key), f.scale, file, f.key);
  if (j.contains("environment") && !j.at("environment").is_null()) p.environment_json = j.at("environment").dump();
  return p;
}

const std::vector<std::string>& platform_spec_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"name",         "description", "device_kind",  "origin",      "vendor",
                               "architecture", "host_cpu",    "device_names", "environment", "peak_tflop_per_s"};
    for (const auto& f : kFields) k.emplace_back(f.key);
    return k;
  }();
  return keys;
}

json platform_to_json(const Platform& p) {
  json j{{"name", p.name},
         {"description", p.description},
         {"device_kind", p.device_kind},
         {"origin", to_string(p.origin)}};
  if (!p.vendor.empty()) j["vendor"] = p.vendor;
  if (!p.architecture.empty()) j["architecture"] = p.architecture;
  if (!p.host_cpu.empty()) j["host_cpu"] = p.host_cpu;
  if (!p.device_names.empty()) j["device_names"] = p.device_names;
  json peaks = json::object();
  for (const auto& [d, s] : p.peak_flop_per_s) peaks[std::string(to_string(d))] = write_sourced(s, 1e12);
  j["peak_tflop_per_s"] = peaks;
  for (const auto& f : kFields)
    if (const auto& v = p.*(f.member)) j[f.key] = write_sourced(*v, f.scale);
  if (!p.environment_json.empty()) j["environment"] = json::parse(p.environment_json, nullptr, false);
  return j;
}

std::size_t sourced_figure_count(const Platform& p) {
  std::size_t n = p.peak_flop_per_s.size();
  for (const auto& f : kFields)
    if (p.*(f.member)) ++n;
  return n;
}

bool same_figures(const Platform& a, const Platform& b) {
  auto close = [](double x, double y) { return std::fabs(x - y) <= 0.01 * std::max(x, y); };
  auto close_figure = [&](const std::optional<Sourced>& x, const std::optional<Sourced>& y) {
    return x.has_value() == y.has_value() && (!x || close(x->value, y->value));
  };
  if (a.vendor != b.vendor || a.architecture != b.architecture || a.device_kind != b.device_kind) return false;
  if (!close_figure(a.compute_units, b.compute_units) || !close_figure(a.mem_bw_bytes_per_s, b.mem_bw_bytes_per_s))
    return false;
  if (a.peak_flop_per_s.size() != b.peak_flop_per_s.size()) return false;
  for (const auto& [dtype, peak] : a.peak_flop_per_s) {
    const auto other = b.peak_flop_per_s.find(dtype);
    if (other == b.peak_flop_per_s.end() || !close(peak.value, other->second.value)) return false;
  }
  return true;
}

}  // namespace fomcast
