// `fomcast bench`: the JSON form (the contract's fields first, then everything a reader
// needs to judge the figures) and the text form (the ceilings, then every kernel measured,
// skipped or not measurable); `fomcast import-bench`: what a kernel-table file gave.
#include "fomcast/report/bench.hpp"

#include <nlohmann/json.hpp>

#include "fomcast/report/text_table.hpp"

namespace fomcast {

using bench::BenchKernel;
using bench::BenchResult;
using bench::Ceilings;
using bench::Timing;

namespace {

nlohmann::json timing_json(const Timing& t) {
  return {{"median_s", t.median_s}, {"min_s", t.min_s}, {"p10_s", t.p10_s},   {"p90_s", t.p90_s},
          {"spread", t.spread},     {"reps", t.reps},   {"warmup", t.warmup}, {"stopped", to_string(t.stopped)}};
}

nlohmann::json kernel_json(const BenchKernel& k) {
  return {{"kind", to_string(k.kind)},   {"shape", shape_to_json(k.shape)}, {"describe", describe(k.shape)},
          {"dtype", to_string(k.dtype)}, {"mode", to_string(k.mode)},       {"origin", k.origin}};
}

std::string gb(double bytes_per_s) { return format_number(bytes_per_s / 1e9, 1) + " GB/s"; }

}  // namespace

nlohmann::json bench_to_json(const BenchResult& r, std::string_view platform) {
  const Ceilings& c = r.ceilings;
  nlohmann::json table = nlohmann::json::array();
  for (const auto& m : r.measured) {
    nlohmann::json j = kernel_json(m.kernel);
    j["precision"] = to_string(m.entry.precision);
    j["time_us"] = m.entry.time_us;
    j["min_us"] = m.timing.min_s * 1e6;
    j["spread"] = m.entry.spread;
    j["reps"] = m.timing.reps;
    j["gflops"] = m.flops > 0 ? nlohmann::json(m.flops / m.timing.median_s / 1e9) : nlohmann::json(nullptr);
    j["gbs"] = m.bytes > 0 ? nlohmann::json(m.bytes / m.timing.median_s / 1e9) : nlohmann::json(nullptr);
    j["method"] = m.entry.method;
    table.push_back(std::move(j));
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : r.skipped) {
    nlohmann::json j = kernel_json(s.kernel);
    j["reason"] = s.reason;
    skipped.push_back(std::move(j));
  }
  return {{"platform", platform},
          {"entries", r.measured.size()},
          {"peak_gemm_gflops", c.gemm_fp32_flop_per_s / 1e9},
          {"mem_bw_gbs", c.triad_bytes_per_s / 1e9},
          {"peak_gemm_fp64_gflops", c.gemm_fp64_flop_per_s / 1e9},
          {"copy_gbs", c.copy_bytes_per_s / 1e9},
          {"triad_gbs", c.triad_bytes_per_s / 1e9},
          {"adam_gbs", c.adam_bytes_per_s / 1e9},
          {"host_speed", c.host_speed},
          {"suite", r.suite},
          {"backend", describe(r.backend)},
          {"threads", r.backend.threads},
          {"date", r.date},
          {"elapsed_s", r.elapsed_s},
          {"ceilings",
           {{"gemm_fp32", {{"n", c.gemm_fp32_n}, {"timing", timing_json(c.gemm_fp32)}}},
            {"gemm_fp64", {{"n", c.gemm_fp64_n}, {"timing", timing_json(c.gemm_fp64)}}},
            {"stream_elements", c.stream_elements},
            {"copy", timing_json(c.copy)},
            {"triad", timing_json(c.triad)},
            {"adam", timing_json(c.adam)},
            {"host", timing_json(c.host)},
            {"host_reference_s", bench::host_reference_s()}}},
          {"table", std::move(table)},
          {"skipped", std::move(skipped)},
          {"not_measured", r.not_measured},
          {"environment", r.environment}};
}

std::string bench_to_text(const BenchResult& r, std::string_view platform, std::size_t stored) {
  const Ceilings& c = r.ceilings;
  std::string out = "Measured platform '" + std::string(platform) + "' with " + describe(r.backend) + " in " +
                    format_duration(r.elapsed_s) + "\n\n";
  TextTable ceilings;
  ceilings.header = {"ceiling", "value", "how"};
  ceilings.right_align = {false, true, false};
  auto gemm_row = [&](const char* name, double rate, int64_t n, const Timing& t) {
    if (rate > 0)
      ceilings.rows.push_back(
          {name, format_number(rate / 1e9, 1) + " GFLOP/s", std::to_string(n) + "^3, " + describe(t)});
  };
  gemm_row("fp32 GEMM", c.gemm_fp32_flop_per_s, c.gemm_fp32_n, c.gemm_fp32);
  gemm_row("fp64 GEMM", c.gemm_fp64_flop_per_s, c.gemm_fp64_n, c.gemm_fp64);
  const std::string arrays = std::to_string(c.stream_elements) + " elements, ";
  ceilings.rows.push_back({"copy", gb(c.copy_bytes_per_s), arrays + "16 B each, " + describe(c.copy)});
  ceilings.rows.push_back({"triad (bandwidth)", gb(c.triad_bytes_per_s), arrays + "24 B each, " + describe(c.triad)});
  if (c.adam_bytes_per_s > 0)
    ceilings.rows.push_back({"Adam update", gb(c.adam_bytes_per_s), arrays + "fp32, 28 B each, " + describe(c.adam)});
  ceilings.rows.push_back({"host speed", format_number(c.host_speed, 2),
                           format_duration(c.host.median_s) + " vs " + format_duration(bench::host_reference_s()) +
                               " on the reference host"});
  out += ceilings.render() + "\n";

  out += "Suite " + r.suite + ": " + std::to_string(r.measured.size()) + " kernel(s) measured, " +
         std::to_string(r.skipped.size()) + " skipped; " + std::to_string(stored) + " entries stored for '" +
         std::string(platform) + "'\n\n";
  if (!r.measured.empty()) {
    TextTable t;
    t.header = {"kind", "shape", "dtype", "time", "rate", "spread", "reps"};
    t.right_align = {false, false, false, true, true, true, true};
    for (const auto& m : r.measured)
      t.rows.push_back({std::string(to_string(m.entry.kind)), describe(m.entry.shape),
                        std::string(to_string(m.entry.precision)), format_duration(m.timing.median_s),
                        is_memory_bound(m.entry.kind) || m.flops <= 0
                            ? gb(m.bytes / m.timing.median_s)
                            : format_number(m.flops / m.timing.median_s / 1e9, 1) + " GFLOP/s",
                        format_percent(m.timing.spread, 1), std::to_string(m.timing.reps)});
    out += t.render() + "\n";
  }
  for (const auto& s : r.skipped)
    out +=
        "skipped: " + std::string(to_string(s.kernel.kind)) + " " + describe(s.kernel.shape) + ": " + s.reason + "\n";
  for (const auto& n : r.not_measured) out += "not measured: " + n + "\n";
  return out;
}

nlohmann::json bench_import_to_json(const BenchImport& imported, std::string_view file, std::string_view format) {
  nlohmann::json platforms = nlohmann::json::array();
  for (const auto& [name, entries] : imported.by_platform)
    platforms.push_back({{"platform", name}, {"entries", entries.size()}});
  return {{"file", file},
          {"format", format},
          {"rows", imported.rows},
          {"entries", imported.entries()},
          {"merged", imported.merged},
          {"platforms", platforms}};
}

std::string bench_import_to_text(const BenchImport& imported, std::string_view file, std::string_view format) {
  std::string out = "Imported " + std::to_string(imported.entries()) + " kernel entries from " +
                    std::to_string(imported.rows) + " rows of " + std::string(file) + " (" + std::string(format) + ")";
  if (imported.merged) out += "; " + std::to_string(imported.merged) + " entries merge rows that time the same kernel";
  out += "\n";
  for (const auto& [name, entries] : imported.by_platform)
    out += "  " + name + ": " + std::to_string(entries.size()) + " entries\n";
  return out;
}

}  // namespace fomcast
