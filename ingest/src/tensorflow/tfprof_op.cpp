// tfprof-op: the TensorFlow profiler's op view (`tfprof> op -select micros,bytes,...`), one
// row per op type with its requested bytes and execution times, each printed as
// "value (cumulative %, self %)". No shapes (unless input_type lines follow a row): each op
// type keeps its measured time, the input CANDLE step 3 ranks.
#include <algorithm>
#include <cctype>

#include "common/readers.hpp"
#include "decode/text_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/text.hpp"
#include "tensorflow/tfprof_text.hpp"

namespace fomcast::ingest {
namespace {

enum class Column { requested_bytes, total_time, accelerator_time, cpu_time, occurrence, other_bytes, other };

Column column_from_header(std::string_view h) {
  if (h == "requested bytes") return Column::requested_bytes;
  if (h == "total execution time") return Column::total_time;
  if (h == "accelerator execution time") return Column::accelerator_time;
  if (h == "cpu execution time") return Column::cpu_time;
  // TF 1.x prints "occurrence"; later versions "op occurrence (run|defined)", cells "2694|3450".
  if (h == "occurrence" || h.starts_with("op occurrence")) return Column::occurrence;
  if (contains(h, "bytes")) return Column::other_bytes;
  return Column::other;
}

bool is_header(std::string_view t) { return t.starts_with("node name") && contains(t, "|"); }

struct Row {
  std::string name;
  std::optional<double> bytes, total, accelerator, cpu, occurrence;
  int64_t line = 0;
  std::vector<tfprof::ShapeRow> shapes;
};

// "121.67MB (100.00%, 33.33%)": the value, and the percentages checked when present.
std::string_view cell_value(std::string_view cell, int64_t line, const std::string& file) {
  cell = text::trim(cell);
  const std::size_t open = cell.find('(');
  if (open == std::string_view::npos) return cell;
  const std::size_t close = cell.find(')', open);
  if (close == std::string_view::npos || !text::trim(cell.substr(close + 1)).empty())
    text::fail(file, line, "malformed cell " + text::quote(cell) + " (expected 'VALUE (CUM%, SELF%)')");
  const auto pcts = text::split_top_level(cell.substr(open + 1, close - open - 1), ',');
  for (auto p : pcts) {
    p = text::trim(p);
    if (p.empty() || p.back() != '%') text::fail(file, line, "malformed percentage in " + text::quote(cell));
    const auto v = text::parse_number(p.substr(0, p.size() - 1));
    if (!v || *v < 0 || *v > 100.5) text::fail(file, line, "percentage out of range in " + text::quote(cell));
  }
  return text::trim(cell.substr(0, open));
}

// An occurrence cell: "30", or "run|defined" ("2694|3450": 2,694 of the graph's 3,450 nodes
// of the type ran in the step). The run count; nullopt when either part is not a count.
std::optional<double> parse_occurrence(std::string_view v) {
  const std::size_t bar = v.find('|');
  if (bar == std::string_view::npos) return text::parse_count(v);
  if (!text::parse_count(text::trim(v.substr(bar + 1)))) return std::nullopt;
  return text::parse_count(text::trim(v.substr(0, bar)));
}

enum class CellType { bytes, time, number, unknown };
CellType cell_type(std::string_view v) {
  if (text::parse_bytes(v)) return CellType::bytes;
  if (text::parse_duration_s(v)) return CellType::time;
  if (parse_occurrence(v)) return CellType::number;
  return CellType::unknown;
}

// Without a header line: columns from the cells' units, in tfprof's fixed order (bytes
// first, then total/accelerator/cpu time, numbers last).
std::vector<Column> infer_columns(const std::vector<std::string_view>& cells, bool occurrence_selected, int64_t line,
                                  const std::string& file) {
  std::vector<Column> cols;
  int times = 0, bytes = 0;
  for (auto c : cells) {
    const CellType t = cell_type(cell_value(c, line, file));
    if (t == CellType::time) ++times;
  }
  int time_index = 0;
  for (auto c : cells) {
    switch (cell_type(cell_value(c, line, file))) {
      case CellType::bytes: cols.push_back(bytes++ == 0 ? Column::requested_bytes : Column::other_bytes); break;
      case CellType::time:
        if (times == 2)
          cols.push_back(time_index == 0 ? Column::accelerator_time : Column::cpu_time);
        else
          cols.push_back(time_index == 0   ? Column::total_time
                         : time_index == 1 ? Column::accelerator_time
                                           : Column::cpu_time);
        ++time_index;
        break;
      case CellType::number: cols.push_back(occurrence_selected ? Column::occurrence : Column::other); break;
      case CellType::unknown: cols.push_back(Column::other); break;
    }
  }
  return cols;
}

std::vector<std::string_view> row_cells(std::string_view rest) {
  auto cells = text::split_top_level(rest, ',');
  while (!cells.empty() && text::trim(cells.back()).empty()) cells.pop_back();
  return cells;
}

Row parse_row(std::string_view t, const std::vector<Column>& cols, int64_t line, const std::string& file) {
  Row r;
  r.line = line;
  std::size_t name_end = 0;
  while (name_end < t.size() && t[name_end] != ' ' && t[name_end] != '\t') ++name_end;
  r.name = std::string(t.substr(0, name_end));
  const auto cells = row_cells(t.substr(name_end));
  if (cells.size() != cols.size())
    text::fail(file, line,
               "expected " + std::to_string(cols.size()) + " columns after the op name, found " +
                   std::to_string(cells.size()) + " in " + text::quote(t));
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string_view v = cell_value(cells[i], line, file);
    auto need = [&](std::optional<double> x, const char* what) {
      if (!x) text::fail(file, line, std::string("bad ") + what + " " + text::quote(v) + " for " + r.name);
      return x;
    };
    switch (cols[i]) {
      case Column::requested_bytes: r.bytes = need(text::parse_bytes(v), "byte count"); break;
      case Column::total_time: r.total = need(text::parse_duration_s(v), "time"); break;
      case Column::accelerator_time: r.accelerator = need(text::parse_duration_s(v), "time"); break;
      case Column::cpu_time: r.cpu = need(text::parse_duration_s(v), "time"); break;
      case Column::occurrence: r.occurrence = need(parse_occurrence(v), "occurrence"); break;
      case Column::other_bytes: need(text::parse_bytes(v), "byte count"); break;
      case Column::other: break;
    }
  }
  if (r.occurrence && (!text::to_integer(*r.occurrence) || *r.occurrence > 1e12))
    text::fail(file, line, "occurrence of " + r.name + " is not a plausible count");
  return r;
}

bool is_preamble(std::string_view t) {
  return t.empty() || t.starts_with("tfprof>") || t == "Doc:" || t == "Profile:" ||
         (t.find(':') != std::string_view::npos && !tfprof::is_shape_row(t));
}

bool plausible_op_name(std::string_view n) {
  if (n.empty() || !std::isalpha(static_cast<unsigned char>(n.front()))) return false;
  for (char c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '/' && c != '-' && c != '.') return false;
  return true;
}

// An op row without a header: a name, then cells whose first value has a unit.
bool looks_like_row(std::string_view t) {
  const auto f = text::fields(t);
  if (f.size() < 2 || !plausible_op_name(f[0])) return false;
  const auto cells = row_cells(t.substr(f[0].size()));
  if (cells.empty()) return false;
  std::string_view first = cells.front();
  first = text::trim(first.substr(0, first.find('(')));
  const CellType type = cell_type(first);
  return type == CellType::bytes || type == CellType::time;
}

int detect_tfprof_op(std::string_view head, std::string_view) {
  for (const auto& line : text::head_lines(head)) {
    const auto t = text::trim(line.text);
    if (is_header(t)) return 95;
    if (t.starts_with("tfprof> op")) return 85;
    if (contains(t, "MB (") || contains(t, "KB (") || contains(t, "0B (")) {
      if (contains(t, "ms (") || contains(t, "us (") || contains(t, "sec (")) return 70;
    }
  }
  return 0;
}

Workload read_tfprof_op(const InputFile& file, const IngestOptions& options) {
  const std::string& path = file.path();
  const auto lines = text::split_lines(file.bytes(), path);
  std::vector<Column> cols;
  bool have_columns = false, occurrence_selected = false, stopped_early = false;
  int64_t lines_before = 0;
  std::vector<Row> rows;
  int64_t header_line = 0;
  for (const auto& line : lines) {
    const auto t = text::trim(line.text);
    if (!have_columns) {
      if (is_header(t)) {
        const auto parts = text::split_top_level(t, '|');
        for (std::size_t i = 1; i < parts.size(); ++i) cols.push_back(column_from_header(text::trim(parts[i])));
        have_columns = true;
        header_line = line.number;
        continue;
      }
      if (t.starts_with("tfprof>")) occurrence_selected = contains(t, "occurrence");
      // What precedes the view is passed over and counted: tfprof's own Options, "Model
      // Analysis Report" and Doc blocks when it prints to stdout, or a log around them.
      if (!looks_like_row(t)) {
        if (!is_preamble(t)) ++lines_before;
        continue;
      }
      const std::size_t name_end = text::fields(t).front().size();
      cols = infer_columns(row_cells(t.substr(name_end)), occurrence_selected, line.number, path);
      have_columns = true;
    }
    if (t.empty()) continue;
    if (t.starts_with("=") || t.starts_with("tfprof>")) {
      stopped_early = t.starts_with("tfprof>");
      break;
    }
    if (tfprof::is_shape_row(t)) {
      if (rows.empty()) text::fail(path, line.number, "an input_type line before any op row");
      rows.back().shapes.push_back(tfprof::parse_shape_row(t, line.number, path));
      continue;
    }
    const auto f = text::fields(t);
    // The scope and graph views list nodes under their root, not op types: another report.
    if (f.front() == "_TFProfRoot")
      text::fail(path, line.number,
                 "a tfprof scope or graph view (its root node _TFProfRoot), not the op view fomcast reads: profile "
                 "with the op view (tfprof's `op` command, or profile_op_view in Python) and ingest that");
    if (!plausible_op_name(f.front()))
      text::fail(path, line.number, "expected an op row ('OpType  VALUE (CUM%, SELF%), ...'), got " + text::quote(t));
    rows.push_back(parse_row(t, cols, line.number, path));
  }
  if (!have_columns)
    text::fail_at_end(path, lines,
                      "not a tfprof op view: no header line ('node name | requested bytes | ...') and no op rows");
  if (rows.empty()) text::fail_at_end(path, lines, "the op view has no op rows");
  if (header_line == 0) header_line = rows.front().line;
  const bool has_time = std::find_if(cols.begin(), cols.end(), [](Column c) {
                          return c == Column::total_time || c == Column::accelerator_time || c == Column::cpu_time;
                        }) != cols.end();
  if (!has_time)
    throw InputError(path, "the op view has no execution time column (profile with -select micros)", header_line);

  Workload w;
  w.origin = "tfprof-op";
  OpAggregator agg;
  std::vector<tfprof::ShapeRow> all_shapes;
  for (const auto& r : rows) all_shapes.insert(all_shapes.end(), r.shapes.begin(), r.shapes.end());
  const auto batch = tfprof::choose_batch(all_shapes, options.batch_size, path);
  if (batch.batch > 0) {
    w.batch_size = batch.batch;
    w.notes.push_back(batch.note);
  }
  int unrun = 0, on_accelerator = 0;
  for (const auto& r : rows) {
    const double calls = r.occurrence.value_or(1);
    if (calls == 0) {
      ++unrun;
      continue;
    }
    // tfprof's total is accelerator + cpu time, and an op's cpu time on a GPU is its launch
    // and the host's wait for the device (the view's Doc says so): an op that ran on the
    // accelerator is its accelerator time, one that did not its cpu time. Totals, they
    // counted a GTX 1060's AlexNet step twice over (430.8 ms of ops, 288.6 on the GPU).
    double time_s = r.total.value_or(r.accelerator.value_or(0) + r.cpu.value_or(0));
    if (r.accelerator && *r.accelerator > 0) {
      time_s = *r.accelerator;
      ++on_accelerator;
    } else if (r.accelerator && r.cpu && *r.cpu > 0) {
      time_s = *r.cpu;
    }
    const OpKind kind = classify_name(r.name);
    if (!r.shapes.empty() && (kind == OpKind::gemm || kind == OpKind::batched_gemm)) {
      tfprof::add_shape_rows(r.shapes, batch.batch, r.name, agg, w.notes, path);
      w.notes.push_back(r.name + ": shapes and times from its " + std::to_string(r.shapes.size()) +
                        " input_type line(s)");
      continue;
    }
    Op op;
    op.name = r.name;
    op.kind = kind;
    op.phase = phase_from_name(r.name);
    op.bytes = r.bytes.value_or(0) / calls;
    agg.add(op, calls, time_s);
  }
  if (unrun > 0) w.notes.push_back(std::to_string(unrun) + " op type(s) with occurrence 0 left out");
  w.ops = agg.finish(1);
  if (w.ops.empty()) throw InputError(path, "no op type ran (every occurrence is 0)", header_line);
  w.passes = 1;
  w.events = static_cast<int64_t>(rows.size());
  w.notes.push_back(
      std::string("one pass: tfprof reports each op type's time per profiled step (the mean over steps); ") +
      (std::find(cols.begin(), cols.end(), Column::occurrence) != cols.end()
           ? "calls per pass = occurrence"
           : "no occurrence column, so one call per op type"));
  if (stopped_early) w.notes.push_back("only the first tfprof command's output was read");
  if (on_accelerator > 0)
    w.notes.push_back(std::to_string(on_accelerator) +
                      " op type(s) ran on the accelerator: each is its accelerator execution time (tfprof's total "
                      "adds the host's cpu time, its launch and wait for the device); the others their cpu time");
  if (lines_before > 0)
    w.notes.push_back(std::to_string(lines_before) +
                      " line(s) before the op view (tfprof's options, report banner or a log) were not read");
  return w;
}

}  // namespace

const FormatReader kTfprofOpFormat{"tfprof-op", detect_tfprof_op, read_tfprof_op};

}  // namespace fomcast::ingest
