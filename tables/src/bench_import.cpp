// read_bench_csv: one entry point for every kernel-table file. Parses and checks the whole
// text, keeps the platform asked for, and merges rows that time the same kernel twice.
#include <algorithm>
#include <unordered_map>

#include "bench_rows.hpp"
#include "fomcast/bench_import.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/platform_match.hpp"
#include "gunzip.hpp"

namespace fomcast {
namespace {

constexpr std::pair<BenchFormat, const char*> kFormats[] = {
    {BenchFormat::deepbench_gemm, "deepbench-gemm"},
    {BenchFormat::deepbench_conv, "deepbench-conv"},
    {BenchFormat::deepbench_rnn, "deepbench-rnn"},
    {BenchFormat::deepbench_allreduce, "deepbench-allreduce"},
    {BenchFormat::csv, "csv"},
    {BenchFormat::neusight, "neusight"},
};

}  // namespace

namespace detail {

void check_plausible(const CsvTable& t, std::size_t r, std::string_view column, const KernelEntry& e) {
  constexpr double kMinUs = 1e-3, kMaxUs = 1e10, kMaxRate = 1e18;
  if (e.time_us < kMinUs)
    t.fail(r, column, "a kernel of " + format_significant(e.time_us) + " us is below a nanosecond");
  if (e.time_us > kMaxUs)
    t.fail(r, column,
           "a kernel of " + format_significant(e.time_us) + " us (over " + format_significant(kMaxUs / 3.6e9) +
               " hours) is beyond any measurement");
  double work = op_flops(e.kind, e.shape);
  const char* unit = "FLOP/s";
  if (!(work > 0)) {
    work = op_bytes(e.kind, e.shape, DType::fp32);
    unit = "B/s";
  }
  if (const auto* c = std::get_if<CollectiveShape>(&e.shape)) work = static_cast<double>(c->bytes), unit = "B/s";
  const double rate = work / (e.time_us * 1e-6);
  if (rate > kMaxRate)
    t.fail(r, column,
           format_significant(e.time_us) + " us for this shape is " + format_significant(rate) + " " + unit +
               ", beyond any device (over " + format_significant(kMaxRate) + ")");
}

}  // namespace detail

// Same platform, kind, key, precision and mode: one entry, the mean time, the range as spread.
std::vector<KernelEntry> merge_duplicates(std::vector<KernelEntry> entries, int64_t& merged) {
  std::unordered_map<std::string, std::size_t> slot;
  std::vector<KernelEntry> out;
  std::vector<std::vector<double>> times;
  for (auto& e : entries) {
    const std::string key = std::string(to_string(e.kind)) + "|" + shape_key(e.shape) + "|" +
                            std::string(to_string(e.precision)) + "|" + std::string(to_string(e.mode));
    auto [it, fresh] = slot.emplace(key, out.size());
    if (fresh) {
      times.push_back({e.time_us});
      out.push_back(std::move(e));
      continue;
    }
    KernelEntry& first = out[it->second];
    times[it->second].push_back(e.time_us);
    first.provenance += " + " + e.provenance;
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto& t = times[i];
    if (t.size() < 2) continue;
    ++merged;
    double sum = 0;
    for (double v : t) sum += v;
    const double mean = sum / static_cast<double>(t.size());
    const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
    out[i].time_us = mean;
    out[i].spread = (*hi - *lo) / mean;
    out[i].method += "; mean of " + std::to_string(t.size()) + " rows timing the same kernel";
  }
  return out;
}

std::string_view to_string(BenchFormat f) {
  for (const auto& [format, name] : kFormats)
    if (format == f) return name;
  return "?";
}

std::optional<BenchFormat> parse_bench_format(std::string_view name) {
  for (const auto& [format, n] : kFormats)
    if (name == n) return format;
  return std::nullopt;
}

std::vector<std::string> bench_formats() {
  std::vector<std::string> out;
  for (const auto& [format, name] : kFormats) out.emplace_back(name);
  return out;
}

int64_t BenchImport::entries() const {
  int64_t n = 0;
  for (const auto& [p, es] : by_platform) n += static_cast<int64_t>(es.size());
  return n;
}

BenchImport read_bench_csv(std::string_view text, std::string_view file, BenchFormat format,
                           std::string_view platform) {
  std::string inflated;
  if (detail::is_gzip(text)) text = inflated = detail::gunzip(text, file);
  const CsvTable table(text, file);
  detail::BenchRows rows = format == BenchFormat::csv        ? detail::read_native_rows(table, platform)
                           : format == BenchFormat::neusight ? detail::read_neusight_rows(table, platform)
                                                             : detail::read_deepbench_rows(table, format);
  BenchImport out;
  out.rows = static_cast<int64_t>(table.rows());
  std::map<std::string, std::vector<KernelEntry>> grouped;
  for (auto& r : rows.rows) {
    if (format != BenchFormat::csv && format != BenchFormat::neusight && !platform.empty() && r.platform != platform)
      continue;
    grouped[r.platform].push_back(std::move(r.entry));
  }
  if (grouped.empty()) {
    std::string known;
    for (const auto& [name, p] : rows.described) known += (known.empty() ? "" : ", ") + name;
    throw InputError(std::string(file),
                     "no rows for platform '" + std::string(platform) + "' (the file has: " + known + ")", 0, -1,
                     "platform");
  }
  for (auto& [name, entries] : grouped) {
    out.by_platform[name] = merge_duplicates(std::move(entries), out.merged);
    if (auto it = rows.described.find(name); it != rows.described.end()) out.described[name] = it->second;
  }
  return out;
}

void resolve_devices(BenchImport& imported, const std::vector<Platform>& known, std::string_view file) {
  std::map<std::string, std::vector<KernelEntry>> by_platform;
  std::map<std::string, Platform> described;
  for (auto& [device_name, entries] : imported.by_platform) {
    const std::string& device = device_name;  // the lambda below uses it (clang 14: no captured bindings)
    if (std::any_of(known.begin(), known.end(), [&](const Platform& p) { return p.name == device; })) {
      by_platform[device] = std::move(entries);
      continue;
    }
    const auto m = match_device(device, known);
    if (!m)
      throw InputError(std::string(file),
                       "no platform's device_names match the device '" + device + "': name one with --platform", 0, -1,
                       "Device");
    auto& all = by_platform[m->platform];
    all.insert(all.end(), std::make_move_iterator(entries.begin()), std::make_move_iterator(entries.end()));
  }
  imported.by_platform = std::move(by_platform);
  imported.described.clear();
}

}  // namespace fomcast
