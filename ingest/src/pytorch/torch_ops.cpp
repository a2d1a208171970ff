// The shape rules of DESIGN.md "Operations" for PyTorch ops. Argument positions follow
// the aten schemas (native_functions.yaml); where one name has had two schemas over the
// years (cudnn_convolution with and without a bias argument) the recorded types decide.
#include "pytorch/torch_ops.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <numeric>

#include "common/ops.hpp"
#include "fomcast/text.hpp"

namespace fomcast::ingest {
namespace {

using nlohmann::json;

json parse_or_null(std::string_view text) {
  if (text.empty()) return nullptr;
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

bool is_int(const json& j) { return j.is_number_integer() || j.is_number_unsigned(); }

// [2, 3] -> dims; [[2, 3], [4]] -> list; deeper nesting flattened into the list.
void collect_shapes(const json& j, std::vector<Dims>& out) {
  if (!j.is_array()) return;
  if (std::all_of(j.begin(), j.end(), [](const json& e) { return is_int(e); })) {
    Dims d;
    for (const auto& e : j) d.push_back(e.get<int64_t>());
    out.push_back(std::move(d));
    return;
  }
  for (const auto& e : j) collect_shapes(e, out);
}

void set_dims(TorchArg& a, const json& j) {
  if (!j.is_array()) return;
  a.has_dims = true;
  if (std::all_of(j.begin(), j.end(), [](const json& e) { return is_int(e); })) {
    for (const auto& e : j) a.dims.push_back(e.get<int64_t>());
    return;
  }
  a.is_list = true;
  collect_shapes(j, a.list);
}

// "Concrete Inputs" entries are strings: "" (not recorded), "1", "[2, 2]", "False", "0.".
json concrete_value(const json& s) {
  if (!s.is_string()) return s;
  const std::string& t = s.get_ref<const std::string&>();
  if (t.empty()) return nullptr;
  if (t == "True" || t == "true") return true;
  if (t == "False" || t == "false") return false;
  json j = json::parse(t, nullptr, false);
  if (!j.is_discarded()) return j;
  // Python spellings inside lists: "[True, True, False]".
  std::string py = t;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"True", "true"}, {"False", "false"}})
    for (std::size_t at = 0; (at = py.find(from, at)) != std::string::npos; at += to.size())
      py.replace(at, from.size(), to);
  j = json::parse(py, nullptr, false);
  if (!j.is_discarded()) return j;
  return t;
}

double elements(const Dims& d) {
  double e = 1;
  for (int64_t x : d) e *= static_cast<double>(x);
  return e;
}

int64_t product(const Dims& d, std::size_t from, std::size_t to) {
  int64_t p = 1;
  for (std::size_t i = from; i < to && i < d.size(); ++i) p *= d[i];
  return p;
}

// A [rows, cols] operand whose strides show it stored transposed (column-major view).
bool transposed(const TorchArg& a) {
  const Dims& s = a.strides;
  if (s.size() < 2 || a.dims.size() < 2) return false;
  const int64_t rs = s[s.size() - 2], cs = s[s.size() - 1];
  const int64_t rows = a.dims[a.dims.size() - 2], cols = a.dims[a.dims.size() - 1];
  return rows > 1 && cols > 1 && rs == 1 && cs != 1;
}

struct Reader {
  const TorchCall& call;
  const TorchArg* arg(std::size_t i) const { return i < call.args.size() ? &call.args[i] : nullptr; }
  const Dims* dims(std::size_t i) const {
    const TorchArg* a = arg(i);
    return a && a->has_dims && !a->is_list && !a->dims.empty() ? &a->dims : nullptr;
  }
  // An int list argument (stride, padding, ...): a list of ints, or one int for all.
  std::optional<Dims> ints(std::size_t i) const {
    const TorchArg* a = arg(i);
    if (!a) return std::nullopt;
    const json& v = a->value;
    if (is_int(v)) return Dims{v.get<int64_t>()};
    if (v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), [](const json& e) { return is_int(e); })) {
      Dims d;
      for (const auto& e : v) d.push_back(e.get<int64_t>());
      return d;
    }
    return std::nullopt;
  }
  std::optional<int64_t> integer(std::size_t i) const {
    const TorchArg* a = arg(i);
    if (a && is_int(a->value)) return a->value.get<int64_t>();
    return std::nullopt;
  }
  std::optional<bool> boolean(std::size_t i) const {
    const TorchArg* a = arg(i);
    if (a && a->value.is_boolean()) return a->value.get<bool>();
    return std::nullopt;
  }
  std::optional<std::vector<bool>> bools(std::size_t i) const {
    const TorchArg* a = arg(i);
    if (!a || !a->value.is_array()) return std::nullopt;
    std::vector<bool> out;
    for (const auto& e : a->value) {
      if (e.is_boolean())
        out.push_back(e.get<bool>());
      else if (e.is_string())
        out.push_back(e.get<std::string>() == "True" || e.get<std::string>() == "true");
      else
        return std::nullopt;
    }
    return out;
  }
  std::string text(std::size_t i) const {
    const TorchArg* a = arg(i);
    return a && a->value.is_string() ? a->value.get<std::string>() : std::string();
  }
  DType dtype() const {
    for (const auto& a : call.args)
      if (auto d = dtype_from_type_string(a.type)) return *d;
    return DType::unknown;
  }
};

// ---------------------------------------------------------------------------------------
// GEMMs

std::optional<ShapedCall> gemm(const TorchCall& c, const Reader& r) {
  const std::string& n = c.name;
  ShapedCall s;
  s.compute = true;
  s.dtype = r.dtype();
  auto mm = [&](std::size_t ia, std::size_t ib) -> std::optional<ShapedCall> {
    const Dims* a = r.dims(ia);
    const Dims* b = r.dims(ib);
    if (!a || !b || a->size() != 2 || b->size() != 2 || (*a)[1] != (*b)[0]) return std::nullopt;
    GemmShape g{(*a)[0], (*b)[1], (*a)[1]};
    g.trans_a = transposed(*r.arg(ia));
    g.trans_b = transposed(*r.arg(ib));
    s.kind = OpKind::gemm;
    s.shape = g;
    return s;
  };
  auto bmm = [&](std::size_t ia, std::size_t ib) -> std::optional<ShapedCall> {
    const Dims* a = r.dims(ia);
    const Dims* b = r.dims(ib);
    if (!a || !b || a->size() != 3 || b->size() != 3 || (*a)[0] != (*b)[0] || (*a)[2] != (*b)[1]) return std::nullopt;
    GemmShape g{(*a)[1], (*b)[2], (*a)[2], (*a)[0]};
    g.trans_a = transposed(*r.arg(ia));
    g.trans_b = transposed(*r.arg(ib));
    s.kind = OpKind::batched_gemm;
    s.shape = g;
    return s;
  };
  if (n == "aten::mm" || n == "aten::_scaled_mm" || n == "aten::_int_mm") return mm(0, 1);
  if (n == "aten::addmm" || n == "aten::_addmm_activation") return mm(1, 2);
  if (n == "aten::bmm") return bmm(0, 1);
  if (n == "aten::baddbmm") return bmm(1, 2);
  if (n == "aten::addbmm") return bmm(1, 2);
  if (n == "aten::mv" || n == "aten::addmv") {
    const std::size_t ia = n == "aten::mv" ? 0 : 1;
    const Dims* a = r.dims(ia);
    const Dims* x = r.dims(ia + 1);
    if (!a || !x || a->size() != 2 || x->size() != 1 || (*a)[1] != (*x)[0]) return std::nullopt;
    s.kind = OpKind::gemm;
    s.shape = GemmShape{(*a)[0], 1, (*a)[1]};
    return s;
  }
  if (n == "aten::dot" || n == "aten::vdot") {
    const Dims* a = r.dims(0);
    if (!a || a->size() != 1) return std::nullopt;
    s.kind = OpKind::gemm;
    s.shape = GemmShape{1, 1, (*a)[0]};
    return s;
  }
  if (n == "aten::linear") {
    // input [..., K], weight [N, K], bias [N]: y = x W^T, so B is the weight transposed.
    const Dims* x = r.dims(0);
    const Dims* w = r.dims(1);
    if (!x || !w || w->size() != 2 || x->back() != (*w)[1]) return std::nullopt;
    GemmShape g{product(*x, 0, x->size() - 1), (*w)[0], (*w)[1]};
    g.trans_b = !transposed(*r.arg(1));
    s.kind = OpKind::gemm;
    s.shape = g;
    return s;
  }
  if (n == "aten::matmul") {
    const Dims* a = r.dims(0);
    const Dims* b = r.dims(1);
    if (!a || !b) return std::nullopt;
    const std::size_t ra = a->size(), rb = b->size();
    if (ra == 1 && rb == 1) {
      if ((*a)[0] != (*b)[0]) return std::nullopt;
      s.kind = OpKind::gemm;
      s.shape = GemmShape{1, 1, (*a)[0]};
      return s;
    }
    // Vectors become 1-row / 1-column matrices; batch dimensions broadcast.
    const int64_t m = ra == 1 ? 1 : (*a)[ra - 2];
    const int64_t k = (*a)[ra - 1];
    const int64_t kb = rb == 1 ? (*b)[0] : (*b)[rb - 2];
    const int64_t nn = rb == 1 ? 1 : (*b)[rb - 1];
    if (k != kb) return std::nullopt;
    Dims batch_a(a->begin(), a->end() - static_cast<std::ptrdiff_t>(std::min<std::size_t>(ra, 2)));
    Dims batch_b(b->begin(), b->end() - static_cast<std::ptrdiff_t>(std::min<std::size_t>(rb, 2)));
    if (batch_b.empty()) {
      // [..., M, K] x [K, N]: matmul folds the batch into M and calls mm.
      GemmShape g{m * product(batch_a, 0, batch_a.size()), nn, k};
      g.trans_b = rb == 2 && transposed(*r.arg(1));
      s.kind = OpKind::gemm;
      s.shape = g;
      return s;
    }
    const std::size_t nb = std::max(batch_a.size(), batch_b.size());
    int64_t batch = 1;
    for (std::size_t i = 0; i < nb; ++i) {
      const int64_t da = i < nb - batch_a.size() ? 1 : batch_a[i - (nb - batch_a.size())];
      const int64_t db = i < nb - batch_b.size() ? 1 : batch_b[i - (nb - batch_b.size())];
      if (da != db && da != 1 && db != 1) return std::nullopt;
      batch *= std::max(da, db);
    }
    GemmShape g{m, nn, k, batch};
    s.kind = OpKind::batched_gemm;
    s.shape = g;
    return s;
  }
  return std::nullopt;
}

// The fused attention schemas: where the query and key are, their layout, and where the
// causal flag is (a bool, or the memory-efficient kernels' custom_mask_type int: 1 and 2 are
// causal masks). Positions as in PyTorch's native_functions.yaml; a flag not recorded counts
// as no mask.
struct AttentionLayout {
  std::string_view name;
  bool bshd;              // [B, S, H, D] (the kernels' own entry points), else [B, H, S, D]
  int query, key;         // argument positions
  int is_causal = -1;     // bool argument
  int mask_type = -1;     // int argument (custom_mask_type)
  bool backward = false;  // the gradient kernel: it recomputes the scores
};

constexpr AttentionLayout kAttentionLayouts[] = {
    {"aten::scaled_dot_product_attention", false, 0, 1, 5},
    {"aten::_scaled_dot_product_flash_attention", false, 0, 1, 4},
    {"aten::_scaled_dot_product_efficient_attention", false, 0, 1, 6},
    {"aten::_scaled_dot_product_cudnn_attention", false, 0, 1, 6},
    {"aten::_flash_attention_forward", true, 0, 1, 8},
    {"aten::_efficient_attention_forward", true, 0, 1, -1, 9},
    {"aten::_scaled_dot_product_flash_attention_backward", false, 1, 2, 11, -1, true},
    {"aten::_scaled_dot_product_efficient_attention_backward", false, 1, 2, 11, -1, true},
    {"aten::_flash_attention_backward", true, 1, 2, 11, -1, true},
    {"aten::_efficient_attention_backward", true, 1, 2, -1, 14, true},
};

const AttentionLayout* attention_layout(std::string_view name) {
  for (const auto& l : kAttentionLayouts)
    if (l.name == name) return &l;
  return nullptr;
}

// Fused attention as the batched GEMMs it computes, M = S_q, K = D: the forward's Q K^T and
// P V (batch 2 x B x H), the backward's recomputed scores, dV, dP, dQ and dK (5 x B x H), as
// the layer list's "flash" kernels (docs/model-format.md). A causal mask skips the blocks
// above the diagonal: N = half the keys.
std::optional<ShapedCall> attention(const TorchCall& c, const Reader& r) {
  const AttentionLayout* l = attention_layout(c.name);
  if (!l) return std::nullopt;
  const auto qi = static_cast<std::size_t>(l->query), ki = static_cast<std::size_t>(l->key);
  const Dims* q = r.dims(qi);
  const Dims* k = r.dims(ki);
  if (!q || !k || q->size() != 4 || k->size() != 4) return std::nullopt;
  const int64_t b = (*q)[0], h = l->bshd ? (*q)[2] : (*q)[1], sq = l->bshd ? (*q)[1] : (*q)[2];
  const int64_t sk = l->bshd ? (*k)[1] : (*k)[2], d = (*q)[3];
  bool causal = false;
  if (l->is_causal >= 0) causal = r.boolean(static_cast<std::size_t>(l->is_causal)).value_or(false);
  if (l->mask_type >= 0) {
    const auto t = r.integer(static_cast<std::size_t>(l->mask_type));
    causal = t && (*t == 1 || *t == 2);
  }
  const int64_t keys = causal ? std::max<int64_t>(1, (sk + 1) / 2) : sk;
  ShapedCall s;
  s.compute = true;
  s.dtype = r.dtype();
  s.kind = OpKind::batched_gemm;
  s.shape = GemmShape{sq, keys, d, (l->backward ? 5 : 2) * b * h};
  return s;
}

// ---------------------------------------------------------------------------------------
// Convolutions

// What one conv schema computes.
enum class LayoutDirection : uint8_t {
  forward,          // the convolution itself
  backward,         // both gradients (the output_mask argument, where there is one, may drop one)
  backward_data,    // the data (input) gradient only
  backward_filter,  // the filter (weight) gradient only
};

struct ConvLayout {
  std::string_view name;
  int input, weight, output;  // argument positions of the tensors (-1: not an argument)
  int stride, pad, dilation, groups;
  int transposed = -1;  // bool argument saying the conv is transposed
  int mask = -1;        // backward: output_mask [grad_input, grad_weight, grad_bias]
  LayoutDirection direction = LayoutDirection::forward;
};

constexpr auto kBackward = LayoutDirection::backward;
constexpr auto kBackwardData = LayoutDirection::backward_data;
constexpr auto kBackwardFilter = LayoutDirection::backward_filter;

// Positions per aten schema. cudnn_convolution lost its bias argument in PyTorch 1.8; the
// "-bias" variant is chosen when argument 2 is recorded as a tensor.
constexpr ConvLayout kConvLayouts[] = {
    {"aten::conv1d", 0, 1, -1, 3, 4, 5, 6},
    {"aten::conv2d", 0, 1, -1, 3, 4, 5, 6},
    {"aten::conv3d", 0, 1, -1, 3, 4, 5, 6},
    {"aten::_convolution_mode", 0, 1, -1, 3, 4, 5, 6},
    {"aten::convolution", 0, 1, -1, 3, 4, 5, 8, 6},
    {"aten::_convolution", 0, 1, -1, 3, 4, 5, 8, 6},
    {"aten::cudnn_convolution", 0, 1, -1, 3, 2, 4, 5},
    {"aten::cudnn_convolution-bias", 0, 1, -1, 4, 3, 5, 6},
    {"aten::miopen_convolution", 0, 1, -1, 4, 3, 5, 6},
    {"aten::miopen_depthwise_convolution", 0, 1, -1, 4, 3, 5, 6},
    {"aten::mkldnn_convolution", 0, 1, -1, 4, 3, 5, 6},
    {"aten::cudnn_convolution_relu", 0, 1, -1, 3, 4, 5, 6},
    {"aten::cudnn_convolution_add_relu", 0, 1, -1, 5, 6, 7, 8},
    {"aten::_slow_conv2d_forward", 0, 1, -1, 4, 5, -1, -1},
    {"aten::thnn_conv2d", 0, 1, -1, 4, 5, -1, -1},
    {"aten::slow_conv_dilated2d", 0, 1, -1, 4, 5, 6, -1},
    {"aten::slow_conv3d_forward", 0, 1, -1, 4, 5, -1, -1},
    {"aten::convolution_backward", 1, 2, 0, 4, 5, 6, 9, 7, 10, kBackward},
    {"aten::cudnn_convolution_backward", 0, 2, 1, 4, 3, 5, 6, -1, 10, kBackward},
    {"aten::miopen_convolution_backward", 0, 2, 1, 4, 3, 5, 6, -1, 9, kBackward},
    {"aten::mkldnn_convolution_backward", 0, 2, 1, 4, 3, 5, 6, -1, 7, kBackward},
    {"aten::cudnn_convolution_backward_input", -1, 2, 1, 4, 3, 5, 6, -1, -1, kBackwardData},
    {"aten::miopen_convolution_backward_input", -1, 2, 1, 4, 3, 5, 6, -1, -1, kBackwardData},
    {"aten::mkldnn_convolution_backward_input", -1, 2, 1, 4, 3, 5, 6, -1, -1, kBackwardData},
    {"aten::cudnn_convolution_backward_weight", 2, -1, 1, 4, 3, 5, 6, -1, -1, kBackwardFilter},
    {"aten::miopen_convolution_backward_weight", 2, -1, 1, 4, 3, 5, 6, -1, -1, kBackwardFilter},
    {"aten::mkldnn_convolution_backward_weights", 2, -1, 1, 4, 3, 5, 6, -1, -1, kBackwardFilter},
};

const ConvLayout* conv_layout(const TorchCall& c, const Reader& r) {
  std::string name = c.name;
  if (name == "aten::cudnn_convolution") {
    const TorchArg* a2 = r.arg(2);
    if (a2 && (a2->has_dims && !a2->dims.empty())) name = "aten::cudnn_convolution-bias";
  }
  for (const auto& l : kConvLayouts)
    if (l.name == name) return &l;
  return nullptr;
}

const Dims* tensor(const Reader& r, int pos) { return pos < 0 ? nullptr : r.dims(static_cast<std::size_t>(pos)); }

// Smallest stride, then smallest padding, that maps `in` to `out` through a kernel `span`.
std::optional<std::pair<int64_t, int64_t>> infer_stride_pad(int64_t in, int64_t span, int64_t out) {
  if (in <= 0 || out <= 0 || span <= 0) return std::nullopt;
  for (int64_t s = 1; s <= std::max<int64_t>(in, 1); ++s)
    for (int64_t p = 0; p <= span; ++p)
      if ((in + 2 * p - span) >= 0 && (in + 2 * p - span) / s + 1 == out) return std::make_pair(s, p);
  return std::nullopt;
}

std::optional<ShapedCall> conv(const TorchCall& c, const Reader& r, const ConvHints& hints) {
  const ConvLayout* l = conv_layout(c, r);
  if (!l) return std::nullopt;
  ShapedCall s;
  s.compute = true;
  s.kind = OpKind::conv;
  s.dtype = r.dtype();
  if (l->transposed >= 0 && r.boolean(static_cast<std::size_t>(l->transposed)).value_or(false)) {
    // A transposed convolution is the backward-data pass of a regular one; fomcast keeps
    // its kind and time but no forward geometry.
    return s;
  }
  const Dims* pin = tensor(r, l->input);
  const Dims* pw = tensor(r, l->weight);
  const Dims* pout = tensor(r, l->output);
  std::optional<Dims> in, w, out;
  if (pin) in = *pin;
  if (pw) w = *pw;
  if (pout) out = *pout;
  if (!out && l->direction == LayoutDirection::forward && !c.outputs.empty() && !c.outputs[0].empty())
    out = c.outputs[0];
  // backward_input / backward_weight receive the size they produce as an int list.
  if (!in && l->direction == LayoutDirection::backward_data) in = r.ints(0);
  if (!w && l->direction == LayoutDirection::backward_filter) w = r.ints(0);
  if (!in && w && out) in = hints.input_for(*out, *w);
  if (!w && in && out) w = hints.weight_for(*in, *out);
  if (!out && in && w) out = hints.output_for(*in, *w);
  if (!in || !w || in->size() < 3 || in->size() > 5 || w->size() != in->size()) return s;
  const int spatial = static_cast<int>(in->size()) - 2;
  ConvShape cs;
  cs.dims = spatial;
  cs.n = (*in)[0];
  cs.c = (*in)[1];
  cs.k = (*w)[0];
  if ((*w)[1] <= 0 || cs.c % (*w)[1] != 0) return s;
  cs.groups = cs.c / (*w)[1];
  const int first = 3 - spatial;  // spatial arrays are {depth, height, width}
  for (int i = 0; i < spatial; ++i) {
    cs.input[first + i] = (*in)[2 + i];
    cs.filter[first + i] = (*w)[2 + i];
  }
  auto fill = [&](int pos, std::array<int64_t, 3>& target) {
    if (pos < 0) return false;
    const auto v = r.ints(static_cast<std::size_t>(pos));
    if (!v || (v->size() != 1 && static_cast<int>(v->size()) != spatial)) return false;
    for (int i = 0; i < spatial; ++i) target[first + i] = v->size() == 1 ? (*v)[0] : (*v)[i];
    return true;
  };
  const bool have_stride = fill(l->stride, cs.stride);
  bool have_pad = fill(l->pad, cs.pad);
  fill(l->dilation, cs.dilation);
  if (!have_pad && l->pad >= 0) {
    const std::string mode = r.text(static_cast<std::size_t>(l->pad));
    if (mode == "valid") have_pad = true;
    if (mode == "same") {
      for (int i = 0; i < spatial; ++i) cs.pad[first + i] = cs.dilation[first + i] * (cs.filter[first + i] - 1) / 2;
      have_pad = true;
    }
  }
  if (have_stride && have_pad) {
    s.conv_params = ConvParams::recorded;
  } else if (out && out->size() == in->size()) {
    bool ok = true;
    for (int i = 0; i < spatial && ok; ++i) {
      const int64_t span = cs.dilation[first + i] * (cs.filter[first + i] - 1) + 1;
      const auto sp = infer_stride_pad(cs.input[first + i], span, (*out)[2 + i]);
      if (!sp)
        ok = false;
      else {
        cs.stride[first + i] = sp->first;
        cs.pad[first + i] = sp->second;
      }
    }
    s.conv_params = ok ? ConvParams::from_output : ConvParams::defaults;
    if (!ok) cs.stride = cs.pad = {0, 0, 0};
  } else {
    s.conv_params = ConvParams::defaults;
  }
  for (auto& v : cs.stride) v = std::max<int64_t>(v, 1);
  if (l->direction != LayoutDirection::forward) {
    s.conv_backward = true;
    s.grad_input = l->direction != LayoutDirection::backward_filter;
    s.grad_weight = l->direction != LayoutDirection::backward_data;
    if (l->mask >= 0)
      if (auto m = r.bools(static_cast<std::size_t>(l->mask)); m && m->size() >= 2) {
        s.grad_input = (*m)[0];
        s.grad_weight = (*m)[1];
      }
    cs.direction = s.grad_input ? ConvDirection::backward_data : ConvDirection::backward_filter;
  }
  s.shape = cs;
  return s;
}

// ---------------------------------------------------------------------------------------
// Collectives and embeddings

bool is_collective_name(const std::string& n) {
  return n == "record_param_comms" || n.starts_with("c10d::") || n.starts_with("nccl:") || n.starts_with("gloo:") ||
         contains(n, "all_reduce") || contains(n, "allreduce") || contains(n, "all_gather") ||
         contains(n, "allgather") || contains(n, "reduce_scatter") || contains(n, "all_to_all") ||
         contains(n, "alltoall");
}

std::optional<ShapedCall> collective(const TorchCall& c, const Reader& r) {
  if (!is_collective_name(c.name)) return std::nullopt;
  ShapedCall s;
  s.kind = OpKind::collective;
  s.dtype = r.dtype();
  if (auto d = c.comm.dtype.empty() ? std::nullopt : parse_dtype(c.comm.dtype)) s.dtype = *d;
  CollectiveShape cs;
  std::string what = !c.comm.collective.empty() ? c.comm.collective : c.name;
  if (c.name == "record_param_comms" && c.comm.collective.empty() && !c.parent.empty()) what = c.parent;
  cs.op = collective_kind_from_name(what);
  if (c.comm.in_nelems > 0) {
    cs.bytes = static_cast<int64_t>(static_cast<double>(c.comm.in_nelems) * dtype_bytes(s.dtype));
  } else {
    // The first tensor (or tensor list) argument is the payload.
    for (const auto& a : c.args) {
      if (!a.has_dims) continue;
      double e = 0;
      if (a.is_list)
        for (const auto& d : a.list) e += elements(d);
      else if (!a.dims.empty())
        e = elements(a.dims);
      if (e > 0) {
        cs.bytes = static_cast<int64_t>(e * dtype_bytes(s.dtype));
        break;
      }
    }
  }
  if (c.comm.group_size > 0) cs.ranks = c.comm.group_size;
  s.shape = cs;
  return s;
}

// Sparse and gather ops touch the rows their indices name, not the whole table: an
// EmbeddingShape {rows of the table, elements per row, rows touched}, whose bytes are the
// rows read and written (op_bytes), however large the table.
ShapedCall sparse_call(const Reader& r, int64_t rows, int64_t width, double touched) {
  ShapedCall s;
  s.kind = OpKind::embedding;
  s.dtype = r.dtype();
  s.shape = EmbeddingShape{rows, width, static_cast<int64_t>(touched)};
  return s;
}

bool is_int_tensor_type(const std::string& t) {
  return contains(t, "long") || contains(t, "int") || contains(t, "Long") || contains(t, "Int");
}

// FBGEMM's table-batched lookups (split_embedding_codegen_lookup_*_function,
// dense_embedding_codegen_lookup_function) take, in this order, D_offsets, total_D, max_D,
// hash_size_cumsum, total_hash_size_bits, indices, offsets: found by that pattern, since the
// argument lists differ between the variants. A row is total_D / tables elements (max_D,
// else an assumed 128, when the trace keeps no values).
std::optional<ShapedCall> fbgemm_lookup(const TorchCall& c, const Reader& r) {
  if (!c.name.starts_with("fbgemm::") || !contains(c.name, "embedding") || !contains(c.name, "lookup"))
    return std::nullopt;
  auto tensor1d = [&](std::size_t i) {
    const Dims* d = r.dims(i);
    return d && d->size() == 1 ? d : nullptr;
  };
  auto scalar = [&](std::size_t i) {
    const TorchArg* a = r.arg(i);
    return a && !(a->has_dims && !a->dims.empty()) && !a->is_list;
  };
  for (std::size_t i = 5; i + 1 < c.args.size(); ++i) {
    const Dims* indices = tensor1d(i);
    const Dims* d_offsets = tensor1d(i - 5);
    if (!indices || !tensor1d(i + 1) || !d_offsets || !scalar(i - 4) || !scalar(i - 3) || !tensor1d(i - 2) ||
        !scalar(i - 1) || !is_int_tensor_type(r.arg(i)->type))
      continue;
    const int64_t tables = std::max<int64_t>((*d_offsets)[0] - 1, 1);
    int64_t width = 0;
    if (auto total_d = r.integer(i - 4); total_d && *total_d > 0) width = std::max<int64_t>(*total_d / tables, 1);
    if (width == 0)
      if (auto max_d = r.integer(i - 3); max_d && *max_d > 0) width = *max_d;
    const bool assumed = width == 0;
    if (assumed) width = 128;  // not recorded (Kineto keeps no scalar values): a common row width
    double table = 0;
    for (const auto& a : c.args)
      if (a.has_dims && !a.is_list && !a.dims.empty() && dtype_from_type_string(a.type) && !is_int_tensor_type(a.type))
        table = std::max(table, elements(a.dims));
    const auto rows = std::max<int64_t>(static_cast<int64_t>(table / static_cast<double>(width)), 1);
    ShapedCall sc = sparse_call(r, rows, width, static_cast<double>((*indices)[0]));
    sc.row_width_assumed = assumed;
    return sc;
  }
  return std::nullopt;
}

std::optional<ShapedCall> sparse(const TorchCall& c, const Reader& r) {
  if (auto s = fbgemm_lookup(c, r)) return s;
  const std::string& n = c.name;
  const Dims* self = r.dims(0);
  // The dimension argument, negative counted from the end; 0 when not recorded.
  auto dim_of = [&](std::size_t i, const Dims& d) -> std::size_t {
    int64_t dim = r.integer(i).value_or(0);
    if (dim < 0) dim += static_cast<int64_t>(d.size());
    return dim >= 0 && dim < static_cast<int64_t>(d.size()) ? static_cast<std::size_t>(dim) : 0;
  };
  if (n == "aten::embedding" || n == "aten::embedding_bag" || n == "aten::_embedding_bag" ||
      n == "aten::_embedding_bag_forward_only") {
    // weight [V, D], indices
    const Dims* idx = r.dims(1);
    if (!self || !idx || self->size() != 2) return std::nullopt;
    return sparse_call(r, (*self)[0], (*self)[1], elements(*idx));
  }
  if (n == "aten::index_select" || n == "aten::index_add" || n == "aten::index_add_" || n == "aten::index_copy" ||
      n == "aten::index_copy_" || n == "aten::index_fill_" || n == "aten::index_fill") {
    // (self, dim, index, ...): whole slices of self along dim, one per index
    const Dims* idx = r.dims(2);
    if (!self || !idx) return std::nullopt;
    const std::size_t dim = dim_of(1, *self);
    const int64_t rows = std::max<int64_t>((*self)[dim], 1);
    return sparse_call(r, rows, static_cast<int64_t>(elements(*self) / static_cast<double>(rows)), elements(*idx));
  }
  if (n == "aten::gather" || n == "aten::scatter" || n == "aten::scatter_" || n == "aten::scatter_add" ||
      n == "aten::scatter_add_" || n == "aten::scatter_reduce" || n == "aten::scatter_reduce_" ||
      n == "aten::take_along_dim") {
    // (self, dim, index, ...): one element per index
    const Dims* idx = r.dims(n == "aten::take_along_dim" ? 1 : 2);
    if (!self || !idx) return std::nullopt;
    return sparse_call(r, static_cast<int64_t>(elements(*self)), 1, elements(*idx));
  }
  if (n == "aten::take") {
    const Dims* idx = r.dims(1);
    if (!self || !idx) return std::nullopt;
    return sparse_call(r, static_cast<int64_t>(elements(*self)), 1, elements(*idx));
  }
  const bool put = n == "aten::index_put_" || n == "aten::index_put" || n == "aten::_index_put_impl_";
  if (put && self && r.dims(2)) {
    // (self, indices[], values, ...): writes one element per value
    return sparse_call(r, static_cast<int64_t>(elements(*self)), 1, elements(*r.dims(2)));
  }
  if (n == "aten::index" || put) {
    // (self, indices[], ...): integer index tensors pick rows of self's leading dims
    const TorchArg* list = r.arg(1);
    if (!self || !list || !list->is_list || list->list.empty() || list->list.size() > self->size()) return std::nullopt;
    const Dims& first = list->list.front();
    if (first.empty()) return std::nullopt;
    const std::size_t k = list->list.size();
    const double width = elements(Dims(self->begin() + static_cast<std::ptrdiff_t>(k), self->end()));
    return sparse_call(r, static_cast<int64_t>(elements(*self) / std::max(width, 1.0)),
                       static_cast<int64_t>(std::max(width, 1.0)), elements(first));
  }
  return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------------------

std::string_view to_string(ConvParams p) {
  switch (p) {
    case ConvParams::none: return "";
    case ConvParams::recorded: return "recorded";
    case ConvParams::from_output: return "output shape";
    case ConvParams::defaults: return "defaults";
  }
  return "";
}

void CommMeta::fill_from(const CommMeta& p) {
  if (collective.empty()) collective = p.collective;
  if (dtype.empty()) dtype = p.dtype;
  if (in_nelems < 0) in_nelems = p.in_nelems;
  if (out_nelems < 0) out_nelems = p.out_nelems;
  if (group_size < 0) group_size = p.group_size;
  if (rank < 0) rank = p.rank;
}

CommMeta CommMetaView::owned() const {
  return CommMeta{std::string(collective), std::string(dtype), in_nelems, out_nelems, group_size, -1};
}

void CommMetaView::append_key(std::string& key) const {
  // Most calls have none: one byte says so (this runs for every op event).
  if (collective.empty() && dtype.empty() && in_nelems < 0 && out_nelems < 0 && group_size < 0) {
    key.push_back('\x1e');
    return;
  }
  key.push_back('\x1f');
  key.append(collective);
  key.push_back('\x1f');
  key.append(dtype);
  for (int64_t v : {in_nelems, out_nelems, group_size}) key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

TorchCall torch_call_from_kineto(std::string_view name, std::string_view input_dims, std::string_view input_types,
                                 std::string_view concrete_inputs, std::string_view input_strides) {
  TorchCall c;
  c.name = std::string(name);
  const json dims = parse_or_null(input_dims), types = parse_or_null(input_types),
             concrete = parse_or_null(concrete_inputs), strides = parse_or_null(input_strides);
  std::size_t n = 0;
  for (const json* j : {&dims, &types, &concrete, &strides})
    if (j->is_array()) n = std::max(n, j->size());
  c.args.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    TorchArg& a = c.args[i];
    if (dims.is_array() && i < dims.size()) set_dims(a, dims[i]);
    if (types.is_array() && i < types.size() && types[i].is_string()) a.type = types[i].get<std::string>();
    if (concrete.is_array() && i < concrete.size()) a.value = concrete_value(concrete[i]);
    if (strides.is_array() && i < strides.size() && strides[i].is_array() &&
        std::all_of(strides[i].begin(), strides[i].end(), [](const json& e) { return is_int(e); }))
      for (const auto& e : strides[i]) a.strides.push_back(e.get<int64_t>());
  }
  return c;
}

void ConvHints::learn(const TorchCall& c) {
  const Reader r{c};
  const ConvLayout* l = conv_layout(c, r);
  if (!l) return;
  const Dims* in = tensor(r, l->input);
  const Dims* w = tensor(r, l->weight);
  const Dims* out = tensor(r, l->output);
  const bool forward = l->direction == LayoutDirection::forward;
  const Dims* o = out ? out : (forward && !c.outputs.empty() ? &c.outputs[0] : nullptr);
  if (!in || !w || !o || in->size() != w->size() || o->size() != in->size()) return;
  auto t = std::make_tuple(*in, *w, *o);
  if (std::find(triples_.begin(), triples_.end(), t) == triples_.end()) triples_.push_back(std::move(t));
}

std::optional<Dims> ConvHints::output_for(const Dims& input, const Dims& weight) const {
  for (const auto& [i, w, o] : triples_)
    if (i == input && w == weight) return o;
  return std::nullopt;
}
std::optional<Dims> ConvHints::input_for(const Dims& output, const Dims& weight) const {
  for (const auto& [i, w, o] : triples_)
    if (o == output && w == weight) return i;
  return std::nullopt;
}
std::optional<Dims> ConvHints::weight_for(const Dims& input, const Dims& output) const {
  for (const auto& [i, w, o] : triples_)
    if (i == input && o == output) return w;
  return std::nullopt;
}

ShapedCall shape_torch_call(const TorchCall& c, const ConvHints& hints) {
  const Reader r{c};
  if (auto s = gemm(c, r)) return *s;
  if (auto s = attention(c, r)) return *s;
  if (auto s = conv(c, r, hints)) return *s;
  if (auto s = collective(c, r)) return *s;
  if (auto s = sparse(c, r)) return *s;
  ShapedCall s;
  s.kind = classify_name(c.name);
  // An op the names do not list is costed by its kernel where that kernel is memory-bound
  // work: read as `other`, a where or a comparison kept its recorded time on every target.
  if (s.kind == OpKind::other && !c.kernel.empty())
    if (const OpKind k = classify_name(c.kernel); is_memory_bound(k)) s.kind = k;
  s.dtype = r.dtype();
  s.compute = is_compute_op_name(c.name);
  if (s.compute) return s;  // a GEMM/conv op whose inputs were not recorded
  if (is_memory_bound(s.kind)) {
    TensorShape t;
    for (const auto& a : c.args) {
      if (!a.has_dims || !dtype_from_type_string(a.type).has_value()) {
        // Without types, any non-empty dims are taken as tensors.
        if (!(a.has_dims && a.type.empty())) continue;
      }
      if (a.is_list)
        for (const auto& d : a.list) t.inputs.push_back(d);
      else if (!a.dims.empty())
        t.inputs.push_back(a.dims);
    }
    if (!t.inputs.empty()) s.shape = std::move(t);
  }
  return s;
}

std::vector<OpShare> ops_of_call(const std::string& name, const ShapedCall& sc, Phase phase,
                                 std::optional<double> time_s, double data_s, double filter_s) {
  Op op;
  op.name = name;
  op.kind = sc.kind;
  op.shape = sc.shape;
  op.dtype = sc.dtype;
  op.phase = phase;
  const auto* cs = std::get_if<ConvShape>(&sc.shape);
  if (!(sc.conv_backward && sc.grad_input && sc.grad_weight && cs)) return {{op, time_s}};
  std::optional<double> data, filter;
  if (time_s) {
    const double rest = std::max(0.0, *time_s - data_s - filter_s);
    data = data_s + rest / 2;
    filter = filter_s + rest / 2;
  }
  ConvShape d = *cs, f = *cs;
  d.direction = ConvDirection::backward_data;
  f.direction = ConvDirection::backward_filter;
  Op od = op, of = op;
  od.shape = d;
  of.shape = f;
  return {{od, data}, {of, filter}};
}

void ConvNotes::count(const ShapedCall& sc, std::optional<double> time_s, double data_s, double filter_s) {
  if (sc.row_width_assumed) ++row_width_assumed;
  if (sc.kind != OpKind::conv || !std::holds_alternative<ConvShape>(sc.shape)) return;
  if (sc.conv_params == ConvParams::recorded)
    ++recorded;
  else if (sc.conv_params == ConvParams::from_output)
    ++from_output;
  else
    ++defaults;
  if (time_s && sc.conv_backward && sc.grad_input && sc.grad_weight && *time_s - data_s - filter_s > 0.05 * *time_s)
    ++even_split;
}

void ConvNotes::add_to(std::vector<std::string>& notes) const {
  if (row_width_assumed > 0)
    notes.push_back(std::to_string(row_width_assumed) +
                    " distinct FBGEMM embedding lookups do not record their row width (total_D, max_D): 128 "
                    "elements per row assumed for the rows their indices touch");
  if (recorded + from_output + defaults > 0)
    notes.push_back("convolution stride/padding: recorded for " + std::to_string(recorded) +
                    " distinct convs, derived from the output shape for " + std::to_string(from_output) +
                    ", assumed (stride 1, no padding) for " + std::to_string(defaults));
  if (even_split > 0)
    notes.push_back("conv backward: " + std::to_string(even_split) +
                    " distinct ops had time no kernel name assigned to data or filter gradient; it is split evenly "
                    "between the two (they have equal FLOPs)");
}

bool is_compute_op_name(std::string_view name) {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v = {"aten::mm",         "aten::addmm",   "aten::_addmm_activation",
                                       "aten::bmm",        "aten::baddbmm", "aten::addbmm",
                                       "aten::linear",     "aten::matmul",  "aten::mv",
                                       "aten::addmv",      "aten::dot",     "aten::vdot",
                                       "aten::_scaled_mm", "aten::_int_mm"};
    for (const auto& l : kAttentionLayouts) v.push_back(l.name);
    for (const auto& l : kConvLayouts)
      if (l.name.find('-') == std::string_view::npos) v.push_back(l.name);
    return v;
  }();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool is_free_op_name(std::string_view n) {
  static constexpr std::string_view kFree[] = {"aten::empty",
                                               "aten::empty_strided",
                                               "aten::empty_like",
                                               "aten::view",
                                               "aten::_unsafe_view",
                                               "aten::as_strided",
                                               "aten::t",
                                               "aten::transpose",
                                               "aten::permute",
                                               "aten::reshape",
                                               "aten::_reshape_alias",
                                               "aten::expand",
                                               "aten::expand_as",
                                               "aten::unsqueeze",
                                               "aten::squeeze",
                                               "aten::select",
                                               "aten::slice",
                                               "aten::narrow",
                                               "aten::detach",
                                               "aten::detach_",
                                               "detach",
                                               "detach_",
                                               "aten::alias",
                                               "aten::lift_fresh",
                                               "aten::result_type",
                                               "aten::resize_",
                                               "aten::set_",
                                               "aten::is_same_size",
                                               "aten::size",
                                               "aten::stride",
                                               "aten::numel",
                                               "aten::dim",
                                               "aten::is_nonzero",
                                               "aten::split",
                                               "aten::split_with_sizes",
                                               "aten::chunk",
                                               "aten::unbind",
                                               "aten::flatten",
                                               "aten::unflatten",
                                               "aten::view_as",
                                               "aten::contiguous",
                                               "aten::_to_copy_view",
                                               "aten::to",
                                               "aten::type_as",
                                               "aten::new_empty",
                                               "aten::new_empty_strided",
                                               "aten::record_stream",
                                               "aten::is_pinned",
                                               "aten::_has_compatible_shallow_copy_type",
                                               "aten::_local_scalar_dense",
                                               "aten::item",
                                               "aten::resolve_conj",
                                               "aten::resolve_neg",
                                               "aten::_nested_tensor_from_mask_left_aligned"};
  return std::find(std::begin(kFree), std::end(kFree), n) != std::end(kFree);
}

std::optional<DType> dtype_from_type_string(std::string_view t) {
  if (const auto at = t.find("Tensor("); at != std::string_view::npos) {
    const auto close = t.find(')', at);
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view inner = t.substr(at + 7, close - at - 7);
    if (inner.empty() || contains(inner, "nullptr")) return std::nullopt;
    return dtype_from_type_string(inner);
  }
  if (t.empty()) return std::nullopt;
  // Kineto writes tensor types in C++ spelling ("float", "c10::Half", "long int"); its
  // capitalised words ("Scalar", "Int", "GenericList", "TensorList") are not tensors.
  if (!(std::islower(static_cast<unsigned char>(t[0])) || t.starts_with("c10::"))) return std::nullopt;
  if (t == "bool") return DType::boolean;
  return parse_dtype(t);
}

}  // namespace fomcast::ingest
