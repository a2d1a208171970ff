// Listings of what the store holds: workloads (and one workload's operations ranked by
// time, with the CANDLE 95% top set marked) and platforms with their figures' sources.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "fomcast/report/catalog.hpp"
#include "fomcast/report/text_table.hpp"

namespace fomcast {

using nlohmann::json;

namespace {

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string figure(const std::optional<Sourced>& s, double scale, int decimals) {
  return s ? format_number(s->value / scale, decimals) : "-";
}

// About three significant figures: 57.3, 9.66, 0.075.
std::string gflop(double flops) {
  const double g = flops / 1e9;
  return format_number(g, g >= 100 ? 0 : g >= 10 ? 1 : g >= 1 ? 2 : 3);
}

}  // namespace

json workload_removal_to_json(const WorkloadRemoval& r) {
  return json{{"workload", r.workload},
              {"removed", true},
              {"calibrations_removed", r.calibrations},
              {"shipped_restored", r.shipped_restored}};
}

std::string workload_removal_to_text(const WorkloadRemoval& r) {
  std::string out = "Removed workload '" + r.workload + "'";
  if (r.calibrations > 0) out += " and its " + std::to_string(r.calibrations) + " calibration(s)";
  out += "\n";
  if (r.shipped_restored) out += "The shipped model '" + r.workload + "' is back under its name.\n";
  return out;
}

json platform_added_to_json(const PlatformAdded& a) {
  json j = platform_to_json(a.platform);
  j["replaced"] = a.replaced_origin.empty() ? json(nullptr) : json(a.replaced_origin);
  return j;
}

std::string platform_added_to_text(const PlatformAdded& a) {
  const Platform& p = a.platform;
  const std::size_t figures = sourced_figure_count(p);
  std::string out = "Added platform '" + p.name + "' (origin user, " + std::to_string(figures) + " sourced figures)";
  if (!a.replaced_origin.empty()) out += ", replacing the " + a.replaced_origin + " platform of that name";
  return out + "\n";
}

json workloads_to_json(const std::vector<WorkloadSummary>& ws) {
  json out = json::array();
  for (const auto& w : ws)
    out.push_back(json{{"name", w.name},
                       {"origin", w.origin},
                       {"source", w.source},
                       {"recorded_on", w.recorded_on},
                       {"ops", w.ops},
                       {"passes", w.passes},
                       {"pass_s", optional_number(w.pass_s)},
                       {"shipped", w.shipped}});
  return out;
}

std::string workloads_to_text(const std::vector<WorkloadSummary>& ws) {
  if (ws.empty()) return "No workloads. Add one with `fomcast ingest FILE --workload NAME`.\n";
  TextTable t;
  t.header = {"workload", "origin", "ops", "passes", "pass time", "recorded on", "source"};
  t.right_align = {false, false, true, true, true, false, false};
  for (const auto& w : ws)
    t.rows.push_back({w.name, w.origin, std::to_string(w.ops), std::to_string(w.passes),
                      w.pass_s ? format_duration(*w.pass_s) : "-", w.recorded_on.empty() ? "-" : w.recorded_on,
                      w.source});
  return t.render();
}

// The ranks' steps of a multi-rank job (min, median, max and each rank's, in rank order);
// null for a single process's profile.
namespace {
json rank_steps_json(const Workload& w) {
  if (w.rank_pass_s.empty()) return nullptr;
  std::vector<double> s = w.rank_pass_s;
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  const double median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return json{{"min", s.front()}, {"median", median}, {"max", s.back()}, {"per_rank", w.rank_pass_s}};
}
}  // namespace

json workload_to_json(const Workload& w) {
  const auto ranked = rank_ops(w);
  const bool measured =
      std::any_of(w.ops.begin(), w.ops.end(), [](const Op& op) { return op.self_time_s.has_value(); });
  json ops = json::array();
  for (const auto& r : ranked) {
    json j = op_to_json(w.ops[r.index]);
    j["time_per_pass_s"] = w.ops[r.index].self_time_s ? json(r.time_s) : json(nullptr);
    // Shares of the measured time: null for an op without one (0.0 read as "measured, nothing").
    const bool timed = w.ops[r.index].self_time_s.has_value();
    j["share"] = timed ? json(r.share) : json(nullptr);
    j["cumulative_share"] = timed ? json(r.cumulative_share) : json(nullptr);
    j["top"] = r.in_top;
    ops.push_back(std::move(j));
  }
  json j{{"name", w.name},
         {"origin", w.origin},
         {"source", w.source},
         {"recorded_on", w.recorded_on},
         {"device", w.device},
         // Unknown (a trace states no batch or epoch) is null, not 0.
         {"batch_size", w.batch_size > 0 ? json(w.batch_size) : json(nullptr)},
         {"samples_per_epoch", w.samples_per_epoch > 0 ? json(w.samples_per_epoch) : json(nullptr)},
         {"epochs", w.epochs > 0 ? json(w.epochs) : json(nullptr)},
         {"passes", w.passes},
         {"pass_s", optional_number(w.pass_s)},
         {"events", w.events},
         {"ranks", w.ranks},
         {"rank_step_s", rank_steps_json(w)},
         {"measured_op_time_s", measured ? json(w.measured_op_time_s()) : json(nullptr)},
         {"top_coverage", 0.95},
         {"notes", w.notes}};
  j["params"] = w.model ? json(w.model->params) : json(nullptr);
  j["forward_macs"] = w.model ? json(w.model->forward_macs) : json(nullptr);
  j["weights_bytes"] = w.model ? json(w.model->weights_bytes) : json(nullptr);
  j["model"] = w.model ? model_stats_to_json(*w.model) : json(nullptr);
  j["ops"] = std::move(ops);
  return j;
}

std::string workload_to_text(const Workload& w, std::size_t max_rows) {
  std::string out = "Workload " + w.name + " (" + w.origin + (w.source.empty() ? "" : ", from " + w.source) + ")\n";
  if (!w.recorded_on.empty()) out += "recorded on: " + w.recorded_on + "\n";
  const bool timed = std::any_of(w.ops.begin(), w.ops.end(), [](const Op& op) { return op.self_time_s.has_value(); });
  if (timed || w.pass_s) {
    out += "passes found: " + std::to_string(w.passes);
    if (w.pass_s) out += ", measured pass time " + format_duration(*w.pass_s);
    out += ", summed op self time " + format_duration(w.measured_op_time_s()) + " per pass\n";
    if (!w.rank_pass_s.empty()) {
      const json r = rank_steps_json(w);
      out += "ranks: " + std::to_string(w.ranks) + " (" + std::to_string(w.rank_pass_s.size()) +
             " traces): steps min " + format_duration(r["min"].get<double>()) + ", median " +
             format_duration(r["median"].get<double>()) + ", max " + format_duration(r["max"].get<double>()) +
             "; the pass is the slowest rank's step\n";
    }
  } else {
    // An analytic workload (a layer list, an execution trace without times) has nothing
    // measured to rank by; saying "0 us" would read as a measurement.
    out += "no measured times: operations ranked by FLOPs per pass; `fomcast estimate --workload " + w.name +
           " --platform P` predicts them\n";
  }
  if (w.batch_size) out += "batch " + format_number(static_cast<double>(w.batch_size), 0);
  if (w.samples_per_epoch) out += ", samples/epoch " + format_number(static_cast<double>(w.samples_per_epoch), 0);
  if (w.epochs) out += ", epochs " + std::to_string(w.epochs);
  if (w.batch_size || w.samples_per_epoch || w.epochs) out += "\n";
  if (w.model) {
    out += "params " + format_number(static_cast<double>(w.model->params), 0) + ", forward MACs/sample " +
           format_number(w.model->forward_macs, 0) + ", weights " +
           format_number(w.model->weights_bytes / 1048576.0, 1) + " MiB, gradients " +
           format_number(w.model->gradients_bytes / 1048576.0, 1) + " MiB, optimizer state " +
           format_number(w.model->optimizer_bytes / 1048576.0, 1) + " MiB, activations/batch " +
           format_number(w.model->activations_bytes / 1048576.0, 1) + " MiB\n";
  }
  for (const auto& n : w.notes) out += "note: " + n + "\n";
  out += "\n";
  const auto ranked = rank_ops(w);
  TextTable t;
  t.header = {"", "op", "kind", "phase", "shape", "count/pass", "GFLOP/pass", "time/pass", "share", "cum."};
  t.right_align = {false, false, false, false, false, true, true, true, true, true};
  // Wide enough for a conv's stride, padding and direction; longer shapes keep their last
  // word, the direction ("... bwd-data" / "... bwd-filter").
  t.max_width = {0, 48, 0, 0, 64};
  t.keep_last_word = {false, false, false, false, true};
  // Without a measured time the time columns would be all dashes.
  const std::size_t columns = timed ? t.header.size() : t.header.size() - 3;
  t.header.resize(columns);
  t.right_align.resize(columns);
  std::size_t shown = 0;
  for (const auto& r : ranked) {
    if (shown++ >= max_rows) break;
    const Op& op = w.ops[r.index];
    t.rows.push_back({r.in_top ? "*" : "", op.name, std::string(to_string(op.kind)), std::string(to_string(op.phase)),
                      describe(op.shape), format_number(op.count, op.count == static_cast<int64_t>(op.count) ? 0 : 2),
                      op.flops > 0 ? gflop(op.count * op.flops) : "-", op.self_time_s ? format_duration(r.time_s) : "-",
                      op.self_time_s ? format_percent(r.share, 1) : "-",
                      op.self_time_s ? format_percent(r.cumulative_share, 1) : "-"});
    t.rows.back().resize(columns);
  }
  out += t.render();
  if (ranked.size() > max_rows)
    out += "... " + std::to_string(ranked.size() - max_rows) + " more ops (use --all or --json)\n";
  if (timed)
    out += "* = top operations covering 95% of the measured op time (CANDLE step 3)\n";
  else
    out += "no top set: nothing measured (CANDLE step 3 needs a profile with times)\n";
  return out;
}

json platforms_to_json(const std::vector<Platform>& ps, const std::vector<int64_t>& counts) {
  json out = json::array();
  for (std::size_t i = 0; i < ps.size(); ++i) {
    json j = platform_to_json(ps[i]);
    j["kernel_entries"] = i < counts.size() ? counts[i] : 0;
    // The contract lists mem_bw_gb_per_s in every entry: null where no bandwidth is published
    // (the phones, a placeholder), not a missing key a reader trips on.
    if (!j.contains("mem_bw_gb_per_s")) j["mem_bw_gb_per_s"] = nullptr;
    out.push_back(std::move(j));
  }
  return out;
}

std::string platforms_to_text(const std::vector<Platform>& ps, const std::vector<int64_t>& counts) {
  TextTable t;
  // bf16 beside fp16: a bf16-only co-design point read "- -" with fp32 and fp16 alone; tf32
  // too, the rate fp32 GEMMs and convs take under --precision tf32 (a new spec's was not shown).
  t.header = {"platform",     "kind",     "origin",  "fp32 TFLOP/s",  "tf32 TFLOP/s", "fp16 TFLOP/s",
              "bf16 TFLOP/s", "mem GB/s", "mem GiB", "table entries", "description"};
  t.right_align = {false, false, false, true, true, true, true, true, true, true, false};
  t.max_width = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 60};
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const Platform& p = ps[i];
    auto peak = [&](DType d) {
      auto it = p.peak_flop_per_s.find(d);
      return it == p.peak_flop_per_s.end() ? std::string("-") : format_number(it->second.value / 1e12, 2);
    };
    t.rows.push_back({p.name, p.device_kind.empty() ? "-" : p.device_kind, std::string(to_string(p.origin)),
                      peak(DType::fp32), peak(DType::tf32), peak(DType::fp16), peak(DType::bf16),
                      figure(p.mem_bw_bytes_per_s, 1e9, 0), figure(p.mem_bytes, 1024.0 * 1024.0 * 1024.0, 0),
                      std::to_string(i < counts.size() ? counts[i] : 0), p.description});
  }
  return t.render();
}

json ingest_to_json(const Workload& w) {
  return json{{"workload", w.name},
              {"format", w.origin},
              {"ops", w.ops.size()},
              {"passes", w.passes},
              {"pass_s", optional_number(w.pass_s)},
              {"batch_size", w.batch_size > 0 ? json(w.batch_size) : json(nullptr)},
              {"events", w.events},
              {"ranks", w.ranks},
              {"rank_step_s", rank_steps_json(w)},
              {"source", w.source},
              {"recorded_on", w.recorded_on},
              {"device", w.device},
              {"notes", w.notes}};
}

std::string ingest_to_text(const Workload& w) {
  return "Ingested " + std::to_string(w.ops.size()) + " distinct operations from " +
         format_number(double(w.events), 0) + " events as workload '" + w.name + "' (" + w.origin + ")\n\n" +
         workload_to_text(w, 15);
}

}  // namespace fomcast
