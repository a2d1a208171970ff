// A platform spec a person wrote, checked strictly (platform_spec.hpp). platform_from_json
// reads shipped and stored specs leniently (a bare number is a figure "given in" the file);
// a spec someone adds by hand must say where each figure comes from, and a key fomcast does
// not know is a mistake to name, not a field to skip: "mem_bw_gbps" ignored would leave the
// platform with no bandwidth and every estimate on it wrong without a word.
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/input_checks.hpp"
#include "fomcast/json_input.hpp"
#include "fomcast/platform_spec.hpp"
#include "fomcast/text.hpp"

namespace fomcast {
namespace {

using nlohmann::json;

// Figures that count things: a fraction of an SM or of a NIC is a typo.
const char* const kCountKeys[] = {"compute_units", "devices_per_node", "nics_per_node", "intra_node_links"};
const char* const kStringKeys[] = {"description", "device_kind", "vendor", "architecture", "host_cpu"};
// The element types a peak rate may be quoted for (a datasheet's columns).
const DType kPeakTypes[] = {DType::fp64, DType::fp32, DType::tf32, DType::fp16, DType::bf16, DType::fp8, DType::int8};

struct SpecReader {
  std::string file;

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw InputError(file, message, 0, -1, field);
  }

  // {"value": number, "source": text} and nothing else.
  void figure(const json& j, const std::string& field, bool whole) const {
    if (!j.is_object())
      fail(field, std::string("must be {\"value\": number, \"source\": text}, not ") + j.type_name() +
                      (j.is_number() ? " (a figure you add needs its source)" : ""));
    for (const auto& [key, v] : j.items())
      if (key != "value" && key != "source") fail(field + "." + key, "unknown field (a figure has value and source)");
    if (!j.contains("value")) fail(field + ".value", "missing");
    const json& v = j.at("value");
    if (!v.is_number()) fail(field + ".value", std::string("must be a number, not ") + v.type_name());
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(field + ".value", "must be a finite number");
    if (d <= 0) fail(field + ".value", "must be > 0 (got " + v.dump() + ")");
    // Every figure is in units a machine states in thousands at most (TFLOP/s, GB/s, GiB,
    // MHz, W, counts): 1e9 is beyond any, and far larger ones overflow once converted to SI
    // (1e308 GB/s is infinite in B/s, stored as null, and the database could not be read).
    if (d > 1e9)
      fail(field + ".value", "is beyond any machine (got " + v.dump() +
                                 "); figures are in the units docs/platforms.md gives (TFLOP/s, GB/s, GiB, ...)");
    // And 1e-6 below any (a MFLOP/s, a KB/s, a KiB, a Hz, a picosecond): a figure of 1e-300
    // made a pass of 4e299 s and an uncertainty of inf%.
    if (d < 1e-6)
      fail(field + ".value", "is below any machine (got " + v.dump() +
                                 "); figures are in the units docs/platforms.md gives (TFLOP/s, GB/s, GiB, ...)");
    if (whole && d != std::floor(d)) fail(field + ".value", "must be a whole number (got " + v.dump() + ")");
    if (!j.contains("source")) fail(field + ".source", "missing: every figure says where it comes from");
    const json& s = j.at("source");
    if (!s.is_string()) fail(field + ".source", std::string("must be text, not ") + s.type_name());
    if (s.get<std::string>().find_first_not_of(" \t\r\n") == std::string::npos)
      fail(field + ".source", "must not be empty: name the datasheet, paper or measurement");
  }
};

}  // namespace

std::string nearest_platform_spec_key(std::string_view key) { return nearest_key(key, platform_spec_keys()); }

Platform parse_user_platform_spec(std::string_view text, std::string_view file_name) {
  const SpecReader r{std::string(file_name)};
  const json j = parse_json_input(text, r.file);
  if (!j.is_object()) r.fail("", std::string("a platform spec must be a JSON object, not ") + j.type_name());
  const auto& keys = platform_spec_keys();
  for (const auto& [key, v] : j.items()) {
    if (key == "kernel_entries" || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    r.fail(key, unknown_field_message(key, keys, "docs/platforms.md lists them"));
  }

  if (!j.contains("name")) r.fail("name", "missing");
  if (!j.at("name").is_string()) r.fail("name", std::string("must be a string, not ") + j.at("name").type_name());
  if (auto problem = workload_name_problem(j.at("name").get<std::string>()); !problem.empty()) r.fail("name", problem);
  for (const char* key : kStringKeys)
    if (j.contains(key) && !j.at(key).is_string())
      r.fail(key, std::string("must be a string, not ") + j.at(key).type_name());
  // The kind decides how ops are timed (a GPU's calls are floored at the tables' launch gap,
  // its layouts across nodes need NIC figures): "GPU", "gpu " or none silently took a GPU's
  // floor away (bert-base's smallest op went from 32.9 us to 5e-12 s).
  if (!j.contains("device_kind"))
    r.fail("device_kind", "missing: gpu, cpu, mobile_cpu or hypothetical (how the device's calls are timed)");
  if (const std::string kind = j.at("device_kind").get<std::string>();
      kind != "gpu" && kind != "cpu" && kind != "mobile_cpu" && kind != "hypothetical")
    r.fail("device_kind", "must be gpu, cpu, mobile_cpu or hypothetical (got \"" + kind +
                              "\"; an accelerator launched as a GPU is, with launch_overhead_us for its own "
                              "per-call floor)");
  // `platforms --json` prints what a database holds about a platform: its origin and its
  // kernel-table size. Both are accepted and ignored, so an entry of that listing can be
  // edited and added back; what is added is origin user, with no table.
  if (j.contains("origin")) {
    const json& o = j.at("origin");
    if (!o.is_string() || !(o == "user" || o == "shipped" || o == "measured"))
      r.fail("origin", "must be \"user\", \"shipped\" or \"measured\" as `platforms --json` prints it (got " +
                           o.dump() + "); what you add is origin \"user\" whatever it says");
  }
  if (j.contains("kernel_entries")) {
    const json& n = j.at("kernel_entries");
    if (!n.is_number_integer() || n.get<int64_t>() < 0)
      r.fail("kernel_entries", "must be a whole number >= 0 as `platforms --json` prints it (got " + n.dump() +
                                   "); a spec brings no kernel table (import-bench adds one)");
  }
  if (j.contains("device_names")) {
    const json& names = j.at("device_names");
    if (!names.is_array()) r.fail("device_names", "must be an array of device-name patterns");
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!names[i].is_string())
        r.fail("device_names[" + std::to_string(i) + "]", std::string("must be a string, not ") + names[i].type_name());
  }

  if (!j.contains("peak_tflop_per_s"))
    r.fail("peak_tflop_per_s", "missing: at least one peak rate (e.g. \"fp32\") is needed to estimate anything");
  const json& peaks = j.at("peak_tflop_per_s");
  if (!peaks.is_object()) r.fail("peak_tflop_per_s", "must be an object of precision -> figure");
  if (peaks.empty()) r.fail("peak_tflop_per_s", "must give at least one precision's peak rate");
  for (const auto& item : peaks.items()) {
    const std::string& name = item.key();  // not a structured binding: a lambda captures it
    const json& fig = item.value();
    const bool known =
        std::any_of(std::begin(kPeakTypes), std::end(kPeakTypes), [&](DType d) { return to_string(d) == name; });
    if (!known) r.fail("peak_tflop_per_s." + name, "unknown precision (fp64, fp32, tf32, fp16, bf16, fp8 or int8)");
    r.figure(fig, "peak_tflop_per_s." + name, false);
  }
  if (!j.contains("mem_bw_gb_per_s") || j.at("mem_bw_gb_per_s").is_null())
    r.fail("mem_bw_gb_per_s", "missing: the memory bandwidth is needed for every memory-bound operation");
  for (const auto& key : keys) {
    if (key == "peak_tflop_per_s" || key == "device_names" || key == "environment" || !j.contains(key)) continue;
    if (key == "name" || key == "origin" || key == "kernel_entries" ||
        std::any_of(std::begin(kStringKeys), std::end(kStringKeys), [&](const char* s) { return key == s; }))
      continue;
    const bool whole =
        std::any_of(std::begin(kCountKeys), std::end(kCountKeys), [&](const char* s) { return key == s; });
    r.figure(j.at(key), key, whole);
  }

  // One direct link per peer: a device of a node of N has at most N - 1 (more would split
  // intra_node_bw over links no collective of the node can use: a pair got 1/8 of it).
  if (j.contains("intra_node_links") && j.contains("devices_per_node")) {
    const double links = j.at("intra_node_links").at("value").get<double>();
    const double devices = j.at("devices_per_node").at("value").get<double>();
    if (links > devices - 1)
      r.fail("intra_node_links.value", "must be at most devices_per_node - 1 (" + format_significant(devices - 1) +
                                           "): one direct link per other device of the node (got " +
                                           format_significant(links) + ")");
  }
  Platform p = platform_from_json(j, r.file);  // the shared conversion, now on a checked spec
  p.origin = PlatformOrigin::user;
  return p;
}

std::vector<std::string> implausible_spec_figures(const Platform& p) {
  std::vector<std::string> out;
  auto peak = [&](DType d) {
    const auto it = p.peak_flop_per_s.find(d);
    return it == p.peak_flop_per_s.end() ? 0.0 : it->second.value;
  };
  auto below = [&](DType low, DType high) {
    if (!(peak(low) > 0) || !(peak(high) > 0) || peak(low) >= peak(high)) return;
    out.push_back("peak_tflop_per_s." + std::string(to_string(low)) + " (" + format_significant(peak(low) / 1e12) +
                  ") is below peak_tflop_per_s." + std::string(to_string(high)) + " (" +
                  format_significant(peak(high) / 1e12) + "): no part computes the narrower type slower" +
                  (high == DType::fp32 ? " (one without units for it: leave it out, and its fp32 rate stands in)"
                                       : std::string()));
  };
  for (DType half : {DType::fp16, DType::bf16}) below(half, DType::fp32);
  for (DType eight : {DType::fp8, DType::int8})
    for (DType half : {DType::fp16, DType::bf16}) below(eight, half);
  // A figure in another unit (TB/s given as GB/s, MiB as GiB) passes every range check and
  // moves every estimate by 1000x. The shipped parts' fp32 FLOP per byte of bandwidth run
  // from 2 (SPARC64 VIIIfx) to 106 (L40S); ten times beyond either end is said.
  if (p.mem_bw_bytes_per_s && peak(DType::fp32) > 0 && p.mem_bw_bytes_per_s->value > 0) {
    const double balance = peak(DType::fp32) / p.mem_bw_bytes_per_s->value;
    if (balance > 1000 || balance < 0.2)
      out.push_back("peak_tflop_per_s.fp32 over mem_bw_gb_per_s is " +
                    (balance > 1000 ? format_number(balance, 0) : format_significant(balance)) +
                    " FLOP per byte, where the shipped parts' run from 2 to 106: is a figure in another unit (TB/s "
                    "for GB/s, GFLOP/s for TFLOP/s)?");
  }
  // 4 TiB is more than any accelerator's or CPU socket's memory shipped or announced.
  if (p.mem_bytes && p.mem_bytes->value > 4096.0 * 1024 * 1024 * 1024)
    out.push_back("mem_gib is " + format_number(p.mem_bytes->value / (1024.0 * 1024 * 1024), 0) +
                  " GiB, more than any device's memory: MiB or MB for GiB?");
  return out;
}

}  // namespace fomcast
