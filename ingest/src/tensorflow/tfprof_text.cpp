// tfprof input-shapes rows -> GEMMs. tfprof prints, per distinct set of input shapes of an
// op type, how many graph nodes had them (defined), how often they ran (run) and their
// summed execution time; the shapes are the operands as the graph holds them, so which
// dimensions are contracted (and whether an operand is transposed) has to be worked out.
#include "tensorflow/tfprof_text.hpp"

#include <algorithm>
#include <map>

#include "common/ops.hpp"
#include "decode/text_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/text.hpp"

namespace fomcast::ingest::tfprof {
namespace {

// Larger than any real tensor dimension or call count: a value beyond is corrupt input.
constexpr double kMaxDim = 1e12;
constexpr double kMaxCount = 1e15;

std::string_view strip_prefix(std::string_view s) {
  s = text::trim(s);
  if (s.starts_with("input_type:")) s = text::trim(s.substr(11));
  return s;
}

bool digit(char c) { return c >= '0' && c <= '9'; }

int64_t parse_int(std::string_view s, double min, double max, const std::string& what, int64_t line,
                  const std::string& file) {
  const auto v = text::parse_number(s);
  if (v && (*v < min || *v > max)) text::fail(file, line, what + " is out of range: " + text::quote(s));
  const auto i = v ? text::to_integer(*v) : std::nullopt;
  if (!i) text::fail(file, line, what + " is not an integer: " + text::quote(s));
  return *i;
}

}  // namespace

bool is_shape_row(std::string_view line) {
  const std::string_view s = strip_prefix(line);
  std::size_t i = 0;
  while (i < s.size() && digit(s[i])) ++i;
  return i > 0 && i < s.size() && s[i] == ':' && contains(s, "(run*") && contains(s, "exec_time:");
}

ShapeRow parse_shape_row(std::string_view line, int64_t line_number, const std::string& file) {
  ShapeRow row;
  row.line = line_number;
  const std::string_view s = strip_prefix(line);
  const std::size_t open = s.find("(run*");
  if (open == std::string_view::npos)
    text::fail(file, line_number, "expected '(run*N defined*M)' in " + text::quote(s));

  std::map<int64_t, std::vector<int64_t>> by_index;
  for (std::string_view part : text::split_top_level(s.substr(0, open), ',')) {
    part = text::trim(part);
    if (part.empty()) continue;
    const std::size_t colon = part.find(':');
    if (colon == std::string_view::npos)
      text::fail(file, line_number, "expected INDEX:DIMS for an operand, got " + text::quote(part));
    const int64_t index = parse_int(part.substr(0, colon), 0, 64, "operand index", line_number, file);
    const std::string_view dims = text::trim(part.substr(colon + 1));
    std::vector<int64_t> shape;
    if (dims != "unknown") {
      std::size_t start = 0;
      while (true) {
        const std::size_t x = dims.find('x', start);
        const std::string_view d = dims.substr(start, x == std::string_view::npos ? dims.npos : x - start);
        const int64_t v = parse_int(d, -1, kMaxDim, "dimension", line_number, file);
        shape.push_back(v);
        if (x == std::string_view::npos) break;
        start = x + 1;
      }
    }
    if (const double n = tensor_elements(shape); n > kMaxTensorElements)
      text::fail(file, line_number,
                 "operand " + std::to_string(index) + ": a tensor of " + format_significant(n, 3) +
                     " elements is absurd (over 2^50)");
    if (!by_index.emplace(index, std::move(shape)).second)
      text::fail(file, line_number, "operand " + std::to_string(index) + " is listed twice");
  }
  if (by_index.empty()) text::fail(file, line_number, "no operand shapes before '(run*'");
  row.operands.resize(static_cast<std::size_t>(by_index.rbegin()->first) + 1);
  for (auto& [i, shape] : by_index) row.operands[static_cast<std::size_t>(i)] = std::move(shape);

  const std::size_t close = s.find(')', open);
  if (close == std::string_view::npos) text::fail(file, line_number, "unclosed '(run*...' in " + text::quote(s));
  bool have_run = false;
  std::string counts(s.substr(open + 1, close - open - 1));
  for (char& c : counts)
    if (c == '|') c = ' ';
  for (std::string_view tok : text::fields(counts)) {
    if (tok.starts_with("run*")) {
      row.run = parse_int(tok.substr(4), 0, kMaxCount, "run count", line_number, file);
      have_run = true;
    } else if (tok.starts_with("defined*")) {
      row.defined = parse_int(tok.substr(8), 0, kMaxCount, "defined count", line_number, file);
    } else {
      text::fail(file, line_number, "unexpected " + text::quote(tok) + " in the run/defined counts");
    }
  }
  if (!have_run) text::fail(file, line_number, "no run*N count");

  std::string_view rest = text::trim(s.substr(close + 1));
  if (!rest.starts_with("exec_time:")) text::fail(file, line_number, "expected 'exec_time:' after the counts");
  const auto t = text::parse_duration_s(rest.substr(10));
  if (!t)
    text::fail(file, line_number,
               "bad exec_time " + text::quote(rest.substr(10)) + " (expected e.g. 549us, 1.21ms, 2.5sec)");
  row.exec_s = *t;
  return row;
}

BatchChoice choose_batch(const std::vector<ShapeRow>& rows, int64_t option, const std::string& file) {
  int64_t first_unknown_line = 0;
  for (const auto& r : rows)
    for (const auto& op : r.operands)
      for (int64_t d : op)
        if (d == -1 && !first_unknown_line) first_unknown_line = r.line;
  if (!first_unknown_line) return {};
  if (option > 0) return {option, "batch dimension (-1) taken as " + std::to_string(option) + ", as given by --batch"};
  // Most common leading dimension of first operands, first seen wins a tie.
  std::vector<std::pair<int64_t, int>> seen;
  for (const auto& r : rows) {
    if (r.operands.empty() || r.operands[0].empty() || r.operands[0][0] <= 0) continue;
    const int64_t d = r.operands[0][0];
    auto it = std::find_if(seen.begin(), seen.end(), [d](const auto& p) { return p.first == d; });
    if (it == seen.end())
      seen.emplace_back(d, 1);
    else
      ++it->second;
  }
  if (seen.empty())
    throw InputError(file, "the shapes use -1 (the batch dimension) and no row tells its size: give --batch N",
                     first_unknown_line);
  std::pair<int64_t, int> best = seen.front();
  int rows_with_leading = 0;
  for (const auto& p : seen) {
    rows_with_leading += p.second;
    if (p.second > best.second) best = p;
  }
  return {best.first, "batch dimension (-1) taken as " + std::to_string(best.first) +
                          ": the leading dimension of the first operand in " + std::to_string(best.second) + " of " +
                          std::to_string(rows_with_leading) + " rows (use --batch N to set it)"};
}

std::optional<Gemm> gemm_from_operands(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.size() != b.size() || (a.size() != 2 && a.size() != 3)) return std::nullopt;
  for (int64_t d : a)
    if (d < 1) return std::nullopt;
  for (int64_t d : b)
    if (d < 1) return std::nullopt;
  Gemm g;
  std::size_t o = 0;  // offset of the matrix dimensions
  if (a.size() == 3) {
    if (a[0] != b[0]) return std::nullopt;
    g.kind = OpKind::batched_gemm;
    g.shape.batch = a[0];
    o = 1;
  }
  const int64_t a0 = a[o], a1 = a[o + 1], b0 = b[o], b1 = b[o + 1];
  if (a1 == b0) {
    g.shape.m = a0, g.shape.k = a1, g.shape.n = b1;
  } else if (a1 == b1) {
    g.shape.m = a0, g.shape.k = a1, g.shape.n = b0, g.shape.trans_b = true;
  } else if (a0 == b0) {
    g.shape.m = a1, g.shape.k = a0, g.shape.n = b1, g.shape.trans_a = true;
  } else if (a0 == b1) {
    g.shape.m = a1, g.shape.k = a0, g.shape.n = b0, g.shape.trans_a = g.shape.trans_b = true;
  } else {
    return std::nullopt;
  }
  g.phase = g.shape.trans_a || g.shape.trans_b ? Phase::backward : Phase::forward;
  return g;
}

int add_shape_rows(const std::vector<ShapeRow>& rows, int64_t batch, const std::string& name, OpAggregator& agg,
                   std::vector<std::string>& notes, const std::string& file) {
  int not_run = 0;
  for (const auto& r : rows) {
    if (r.run == 0) {
      ++not_run;
      continue;
    }
    std::vector<std::vector<int64_t>> operands = r.operands;
    for (auto& shape : operands)
      for (auto& d : shape)
        if (d == -1) d = batch;
    Op op;
    op.name = name;
    std::optional<Gemm> g;
    if (operands.size() >= 2) g = gemm_from_operands(operands[0], operands[1]);
    if (g) {
      op.kind = g->kind;
      op.shape = g->shape;
      op.phase = g->phase;
    } else {
      op.kind = classify_name(name);
      op.phase = phase_from_name(name);
      notes.push_back(file + ":" + std::to_string(r.line) + ": the operand shapes make no GEMM; " + name +
                      " kept with its time and no shape");
    }
    agg.add(op, static_cast<double>(r.run), r.exec_s);
  }
  return not_run;
}

}  // namespace fomcast::ingest::tfprof
