// emit_nvtx range text -> framework op and shape. The text is whatever the program pushed,
// so anything that does not parse is simply not a framework op (never an error).
#include "nsight/nvtx_ops.hpp"

#include "common/ops.hpp"
#include "decode/text_scan.hpp"
#include "fomcast/text.hpp"

namespace fomcast::ingest::nvtx {
namespace {

constexpr int64_t kMaxDim = int64_t{1} << 40;

// "[[64, 128], [64, 256], []]" at the start of s.
std::optional<std::vector<std::vector<int64_t>>> parse_sizes(std::string_view s) {
  std::vector<std::vector<int64_t>> out;
  std::size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && s[i] == ' ') ++i;
  };
  skip();
  if (i >= s.size() || s[i] != '[') return std::nullopt;
  ++i;
  skip();
  if (i < s.size() && s[i] == ']') return out;
  while (true) {
    skip();
    if (i >= s.size() || s[i] != '[' || out.size() >= 64) return std::nullopt;
    ++i;
    std::vector<int64_t> dims;
    skip();
    while (i < s.size() && s[i] != ']') {
      int64_t v = 0;
      const std::size_t start = i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        v = v * 10 + (s[i] - '0');
        if (v > kMaxDim) return std::nullopt;
        ++i;
      }
      if (i == start || dims.size() >= 16) return std::nullopt;
      dims.push_back(v);
      skip();
      if (i < s.size() && s[i] == ',') ++i;
      skip();
    }
    if (i >= s.size()) return std::nullopt;
    ++i;  // ']'
    // Past any real tensor: an overflowed record is no shape, as other text is not.
    if (tensor_elements(dims) > kMaxTensorElements) return std::nullopt;
    out.push_back(std::move(dims));
    skip();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == ']') return out;
    return std::nullopt;
  }
}

std::optional<GemmShape> gemm(int64_t m, int64_t n, int64_t k, int64_t batch = 1, bool trans_b = false) {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return std::nullopt;
  GemmShape g;
  g.m = m, g.n = n, g.k = k, g.batch = batch, g.trans_b = trans_b;
  return g;
}

// Product of all but the last dimension (the rows a linear layer sees); 0 on overflow.
int64_t leading(const std::vector<int64_t>& d) {
  double p = 1;
  for (std::size_t i = 0; i + 1 < d.size(); ++i) p *= static_cast<double>(d[i]);
  return p > static_cast<double>(kMaxDim) ? 0 : static_cast<int64_t>(p);
}

std::optional<GemmShape> gemm_from(std::string_view op, const std::vector<std::vector<int64_t>>& s) {
  auto rank = [&](std::size_t i, std::size_t r) { return i < s.size() && s[i].size() == r; };
  if (op == "mm" && rank(0, 2) && rank(1, 2) && s[0][1] == s[1][0]) return gemm(s[0][0], s[1][1], s[0][1]);
  if (op == "addmm" && rank(1, 2) && rank(2, 2) && s[1][1] == s[2][0]) return gemm(s[1][0], s[2][1], s[1][1]);
  if (op == "bmm" && rank(0, 3) && rank(1, 3) && s[0][0] == s[1][0] && s[0][2] == s[1][1])
    return gemm(s[0][1], s[1][2], s[0][2], s[0][0]);
  if (op == "baddbmm" && rank(1, 3) && rank(2, 3) && s[1][0] == s[2][0] && s[1][2] == s[2][1])
    return gemm(s[1][1], s[2][2], s[1][2], s[1][0]);
  if (op == "linear" && s.size() >= 2 && s[0].size() >= 2 && rank(1, 2) && s[0].back() == s[1][1])
    return gemm(leading(s[0]), s[1][0], s[1][1], 1, true);
  if (op == "matmul" && s.size() >= 2) {
    if (rank(0, 3) && rank(1, 3) && s[0][0] == s[1][0] && s[0][2] == s[1][1])
      return gemm(s[0][1], s[1][2], s[0][2], s[0][0]);
    if (s[0].size() >= 2 && rank(1, 2) && s[0].back() == s[1][0]) return gemm(leading(s[0]), s[1][1], s[1][0]);
  }
  return std::nullopt;
}

}  // namespace

std::optional<FrameworkOp> parse_framework_op(std::string_view text_) {
  const std::string_view t = text::trim(text_);
  const bool marked = contains(t, ", seq = ") || contains(t, ", sizes = ") || contains(t, ", op_id = ");
  const bool aten = t.starts_with("aten::");
  if (!marked && !aten) return std::nullopt;
  FrameworkOp op;
  const std::size_t comma = t.find(", ");
  op.name = std::string(text::trim(marked ? t.substr(0, comma) : t));
  if (op.name.empty()) return std::nullopt;
  if (const std::size_t p = t.find("sizes = "); p != std::string_view::npos) {
    if (auto sizes = parse_sizes(t.substr(p + 8))) {
      op.sizes = std::move(*sizes);
      op.has_sizes = true;
    }
  }
  return op;
}

ShapedOp shape_from_sizes(std::string_view name, const std::vector<std::vector<int64_t>>& sizes) {
  ShapedOp out;
  std::string_view op = name;
  if (const std::size_t p = op.rfind("::"); p != std::string_view::npos) op = op.substr(p + 2);
  if (auto g = gemm_from(op, sizes)) {
    out.kind = g->batch > 1 || op == "bmm" || op == "baddbmm" ? OpKind::batched_gemm : OpKind::gemm;
    out.shape = *g;
    return out;
  }
  out.kind = classify_name(name);
  if (is_memory_bound(out.kind) && out.kind != OpKind::memcpy && !sizes.empty()) {
    TensorShape t;
    t.inputs = sizes;
    out.shape = t;
  }
  return out;
}

}  // namespace fomcast::ingest::nvtx
