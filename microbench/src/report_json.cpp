// The JSON form of a bench run (`fomcast bench --json`): the contract's fields first, then
// everything a reader needs to judge the figures.
#include "fomcast/microbench.hpp"

namespace fomcast::bench {
namespace {

nlohmann::json timing_json(const Timing& t) {
  return {{"median_s", t.median_s}, {"min_s", t.min_s},     {"p10_s", t.p10_s},   {"p90_s", t.p90_s},
          {"spread", t.spread},     {"reps", t.reps},       {"warmup", t.warmup}, {"stopped", t.stopped}};
}

nlohmann::json kernel_json(const BenchKernel& k) {
  return {{"kind", to_string(k.kind)}, {"shape", shape_to_json(k.shape)}, {"describe", describe(k.shape)},
          {"dtype", to_string(k.dtype)}, {"mode", to_string(k.mode)}, {"origin", k.origin}};
}

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
            {"host_reference_s", host_reference_s()}}},
          {"table", std::move(table)},
          {"skipped", std::move(skipped)},
          {"not_measured", r.not_measured},
          {"environment", r.environment}};
}

}  // namespace fomcast::bench
