// validate's end_to_end (validate_e2e.hpp): published training throughput against
// estimate's pass, row by row and as speedups between GPUs of one source, and rows of
// several GPUs against the data-parallel estimate.
#include "fomcast/validate_e2e.hpp"

#include <cmath>
#include <cstdlib>

#include "fomcast/csv.hpp"
#include "fomcast/error.hpp"
#include "tables.hpp"

namespace fomcast {
namespace {

// Rows compare as speedups only within one source (repository@commit or page), one
// workload and one storage class: fp32 storage (fp32 or tf32 math, each GPU's default)
// or half precision.
std::string source_key(const std::string& source) { return source.substr(0, source.find(':')); }
bool half_storage(PrecisionMode m) { return m != PrecisionMode::fp32 && m != PrecisionMode::tf32; }

}  // namespace

std::vector<E2eRow> parse_e2e_rows(std::string_view csv_text, std::string_view file) {
  const CsvTable t(csv_text, file);
  t.require({"id", "workload", "batch", "precision", "platform", "gpus", "samples_per_s", "source", "quote"});
  std::vector<E2eRow> rows;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    E2eRow r;
    r.line = t.line(i);
    r.id = t.text(i, "id");
    r.workload = t.text(i, "workload");
    r.platform = t.text(i, "platform");
    r.source = t.text(i, "source");
    r.quote = t.text(i, "quote");
    for (const char* c : {"id", "workload", "platform", "source", "quote"})
      if (t.empty(i, c)) t.fail(i, c, "is empty (every published row names what it is and where it is from)");
    r.batch = t.integer(i, "batch", 1);
    r.gpus = t.integer(i, "gpus", 1);
    r.samples_per_s = t.positive(i, "samples_per_s");
    r.memory_format = t.text(i, "memory_format");
    if (!r.memory_format.empty() && r.memory_format != "channels_first" && r.memory_format != "channels_last")
      t.fail(i, "memory_format", "'" + r.memory_format + "' is not channels_first or channels_last (or empty)");
    const auto mode = parse_precision_mode(t.text(i, "precision"));
    if (!mode) t.fail(i, "precision", "'" + t.text(i, "precision") + "' is not one of " + kPrecisionModeNames);
    r.precision = *mode;
    for (const auto& seen : rows)
      if (seen.id == r.id) t.fail(i, "id", "'" + r.id + "' is given twice");
    rows.push_back(std::move(r));
  }
  return rows;
}

E2eReport validate_end_to_end(const std::vector<E2eRow>& rows, const Catalog& catalog,
                              const E2eWorkloadSource& workload_at, const E2eParallelStep& parallel_step) {
  E2eReport report;
  std::vector<double> step_err, speed_err;
  for (const auto& row : rows) {
    if (row.gpus != 1) continue;  // one device's step: what a pass predicts; several below
    const Workload recorded = workload_at(row);
    const PassEstimate p = estimate_pass(recorded, row.platform, catalog, {}, row.precision);
    const Workload w = apply_precision(recorded, row.precision).workload;  // the ops as estimated
    E2eResult r;
    r.row = row;
    r.published_step_s = static_cast<double>(row.batch) / row.samples_per_s;
    r.predicted_step_s = p.pass_s;
    r.error = r.predicted_step_s / r.published_step_s - 1;
    for (const auto& op : p.ops) {
      const double s = op.predicted_s * w.ops[op.op_index].count;
      r.by_kind_s[std::string(to_string(w.ops[op.op_index].kind))] += s;
      if (op.roofline_capped) r.roofline_capped_s += s;
    }
    step_err.push_back(std::fabs(r.error));
    report.rows.push_back(std::move(r));
  }
  for (std::size_t a = 0; a < report.rows.size(); ++a)
    for (std::size_t b = a + 1; b < report.rows.size(); ++b) {
      const auto &x = report.rows[a], &y = report.rows[b];
      if (x.row.platform == y.row.platform || x.row.workload != y.row.workload ||
          source_key(x.row.source) != source_key(y.row.source) ||
          half_storage(x.row.precision) != half_storage(y.row.precision))
        continue;
      E2eSpeedup s;
      s.from_id = x.row.id;
      s.to_id = y.row.id;
      s.from_platform = x.row.platform;
      s.to_platform = y.row.platform;
      s.workload = x.row.workload;
      s.published = y.row.samples_per_s / x.row.samples_per_s;
      s.predicted = (static_cast<double>(y.row.batch) / y.predicted_step_s) /
                    (static_cast<double>(x.row.batch) / x.predicted_step_s);
      s.error = s.predicted / s.published - 1;
      speed_err.push_back(std::fabs(s.error));
      report.speedups.push_back(s);
    }
  std::vector<double> multi_err, efficiency_err;
  for (const auto& row : rows) {
    if (row.gpus == 1 || !parallel_step) continue;
    E2eMultiResult r;
    r.row = row;
    // Weak scaling, as data parallel runs it: each device's step at the row's batch.
    r.published_step_s = static_cast<double>(row.batch) * static_cast<double>(row.gpus) / row.samples_per_s;
    r.predicted_step_s = parallel_step(row);
    r.error = r.predicted_step_s / r.published_step_s - 1;
    multi_err.push_back(std::fabs(r.error));
    for (const auto& one : report.rows) {
      if (one.row.platform != row.platform || one.row.workload != row.workload || one.row.precision != row.precision ||
          one.row.batch != row.batch || source_key(one.row.source) != source_key(row.source))
        continue;
      r.has_single = true;
      r.published_efficiency = row.samples_per_s / (static_cast<double>(row.gpus) * one.row.samples_per_s);
      r.predicted_efficiency = one.predicted_step_s / r.predicted_step_s;
      efficiency_err.push_back(std::fabs(r.predicted_efficiency / r.published_efficiency - 1));
      break;
    }
    report.multi_gpu.push_back(std::move(r));
  }
  if (!multi_err.empty()) report.median_abs_multi_gpu_step_error = est::percentile(multi_err, 0.5);
  if (!efficiency_err.empty()) report.median_abs_efficiency_error = est::percentile(efficiency_err, 0.5);
  if (!step_err.empty()) report.median_abs_step_error = est::percentile(step_err, 0.5);
  if (!speed_err.empty()) report.median_abs_speedup_error = est::percentile(speed_err, 0.5);
  return report;
}

}  // namespace fomcast
