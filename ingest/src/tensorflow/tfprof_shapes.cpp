// tfprof-shapes: the "matrix sizes and times" listing of a TensorFlow pass, one row per
// distinct set of MatMul input shapes. Gives the GEMMs with M, N, K (CANDLE step 4).
#include <cctype>

#include "common/readers.hpp"
#include "decode/text_scan.hpp"
#include "fomcast/error.hpp"
#include "tensorflow/tfprof_text.hpp"

namespace fomcast::ingest {
namespace {

// A line naming the op type the rows below it belong to ("MatMul", "BatchMatMulV2:").
bool is_op_heading(std::string_view s) {
  if (!s.empty() && s.back() == ':') s.remove_suffix(1);
  if (s.empty() || !std::isupper(static_cast<unsigned char>(s.front()))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

int detect_tfprof_shapes(std::string_view head, std::string_view) {
  int rows = 0, other = 0;
  for (const auto& line : text::head_lines(head)) {
    const auto t = text::trim(line.text);
    if (t.empty()) continue;
    if (tfprof::is_shape_row(t))
      ++rows;
    else if (!is_op_heading(t))
      ++other;
  }
  if (rows == 0) return 0;
  return other == 0 ? 90 : 40;
}

Workload read_tfprof_shapes(const InputFile& file, const IngestOptions& options) {
  const std::string& path = file.path();
  struct Group {
    std::string name;
    std::vector<tfprof::ShapeRow> rows;
  };
  std::vector<Group> groups{{"MatMul", {}}};
  std::vector<tfprof::ShapeRow> all;
  const auto lines = text::split_lines(file.bytes(), path);
  for (const auto& line : lines) {
    const auto t = text::trim(line.text);
    if (t.empty()) continue;
    if (tfprof::is_shape_row(t)) {
      groups.back().rows.push_back(tfprof::parse_shape_row(t, line.number, path));
      all.push_back(groups.back().rows.back());
    } else if (is_op_heading(t)) {
      std::string name(t);
      if (name.back() == ':') name.pop_back();
      groups.push_back({name, {}});
    } else {
      text::fail(path, line.number,
                 "expected a shape row like '0:100x1000, 1:1000x500 (run*1 defined*1) exec_time: 1.21ms', got " +
                     text::quote(t));
    }
  }
  if (all.empty())
    text::fail_at_end(path, lines,
                      "no shape rows found (expected lines like '0:100x1000, 1:1000x500 (run*1 defined*1) "
                      "exec_time: 1.21ms')");

  Workload w;
  w.origin = "tfprof-shapes";
  const auto batch = tfprof::choose_batch(all, options.batch_size, path);
  if (batch.batch > 0) {
    w.batch_size = batch.batch;
    w.notes.push_back(batch.note);
  }
  OpAggregator agg;
  int not_run = 0;
  for (const auto& g : groups) not_run += tfprof::add_shape_rows(g.rows, batch.batch, g.name, agg, w.notes, path);
  if (not_run > 0) w.notes.push_back(std::to_string(not_run) + " row(s) defined but not run (run*0) left out");
  w.ops = agg.finish(1);
  w.passes = 1;
  w.events = static_cast<int64_t>(all.size());
  w.notes.push_back(
      "one pass: the listing gives each shape's calls (run*N) and summed time in the profiled pass; "
      "time per call = exec_time / N");
  if (w.ops.empty()) text::fail_at_end(path, lines, "no row ran (every row is run*0): nothing to estimate");
  return w;
}

}  // namespace

const FormatReader kTfprofShapesFormat{"tfprof-shapes", detect_tfprof_shapes, read_tfprof_shapes};

}  // namespace fomcast::ingest
