// validate's end_to_end section: JSON and the text table.
#include "fomcast/report/validate_e2e.hpp"

#include <nlohmann/json.hpp>

#include "fomcast/format.hpp"
#include "fomcast/report/text_table.hpp"

namespace fomcast {

using nlohmann::json;

json end_to_end_to_json(const E2eReport& r) {
  json rows = json::array(), speedups = json::array();
  for (const auto& x : r.rows)
    rows.push_back({{"id", x.row.id},
                    {"workload", x.row.workload},
                    {"platform", x.row.platform},
                    {"precision", std::string(to_string(x.row.precision))},
                    {"batch", x.row.batch},
                    {"published_samples_per_s", x.row.samples_per_s},
                    {"published_step_s", x.published_step_s},
                    {"predicted_step_s", x.predicted_step_s},
                    {"error", x.error},
                    {"by_kind_s", x.by_kind_s},
                    {"roofline_capped_s", x.roofline_capped_s},
                    {"source", x.row.source}});
  for (const auto& s : r.speedups)
    speedups.push_back({{"from", s.from_id},
                        {"to", s.to_id},
                        {"from_platform", s.from_platform},
                        {"to_platform", s.to_platform},
                        {"workload", s.workload},
                        {"published", s.published},
                        {"predicted", s.predicted},
                        {"error", s.error}});
  json multi = json::array();
  for (const auto& x : r.multi_gpu) {
    json m{{"id", x.row.id},
           {"workload", x.row.workload},
           {"platform", x.row.platform},
           {"precision", std::string(to_string(x.row.precision))},
           {"gpus", x.row.gpus},
           {"batch_per_gpu", x.row.batch},
           {"published_samples_per_s", x.row.samples_per_s},
           {"published_step_s", x.published_step_s},
           {"predicted_step_s", x.predicted_step_s},
           {"error", x.error},
           {"source", x.row.source}};
    if (x.has_single) {
      m["published_efficiency"] = x.published_efficiency;
      m["predicted_efficiency"] = x.predicted_efficiency;
    }
    multi.push_back(std::move(m));
  }
  return json{{"rows", rows},
              {"speedups", speedups},
              {"multi_gpu", multi},
              {"median_abs_step_error", r.median_abs_step_error},
              {"median_abs_speedup_error", r.median_abs_speedup_error},
              {"median_abs_multi_gpu_step_error", r.median_abs_multi_gpu_step_error},
              {"median_abs_efficiency_error", r.median_abs_efficiency_error}};
}

namespace {

std::string multi_gpu_text(const E2eReport& r) {
  if (r.multi_gpu.empty()) return "";
  TextTable t;
  t.header = {"published row",  "platform", "gpus",           "batch/gpu",     "published step",
              "predicted step", "error",    "published eff.", "predicted eff."};
  t.right_align = {false, false, true, true, true, true, true, true, true};
  for (const auto& x : r.multi_gpu)
    t.rows.push_back({x.row.id, x.row.platform, std::to_string(x.row.gpus), std::to_string(x.row.batch),
                      format_duration(x.published_step_s), format_duration(x.predicted_step_s),
                      format_percent(x.error, 1), x.has_single ? format_percent(x.published_efficiency, 1) : "-",
                      x.has_single ? format_percent(x.predicted_efficiency, 1) : "-"});
  return "\nSeveral GPUs, data parallel (estimate --parallel dp=gpus at the row's batch per GPU):\n" + t.render() +
         "median |error| of the step: " + format_percent(r.median_abs_multi_gpu_step_error, 1) + " over " +
         std::to_string(r.multi_gpu.size()) +
         " rows; of the scaling efficiency against the same source's one-GPU row: " +
         format_percent(r.median_abs_efficiency_error, 1) + "\n";
}

}  // namespace

std::string end_to_end_to_text(const E2eReport& r) {
  if (r.rows.empty()) return "";
  TextTable t;
  t.header = {"published row", "platform", "precision", "batch", "published step", "predicted step", "error"};
  t.right_align = {false, false, false, true, true, true, true};
  for (const auto& x : r.rows)
    t.rows.push_back({x.row.id, x.row.platform, std::string(to_string(x.row.precision)), std::to_string(x.row.batch),
                      format_duration(x.published_step_s), format_duration(x.predicted_step_s),
                      format_percent(x.error, 1)});
  return "\nEnd to end: published single-GPU training steps (data/e2e/) against the predicted pass:\n" + t.render() +
         "median |error| of the step: " + format_percent(r.median_abs_step_error, 1) + " over " +
         std::to_string(r.rows.size()) +
         " rows; of the speedups between GPUs: " + format_percent(r.median_abs_speedup_error, 1) + " over " +
         std::to_string(r.speedups.size()) + " pairs\n" + multi_gpu_text(r);
}

}  // namespace fomcast
