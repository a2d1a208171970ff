// HloProto -> per-instruction kind and shape. Field numbers from xla/service/hlo.proto and
// xla/xla_data.proto: HloProto {hlo_module = 1}; HloModuleProto {computations = 3};
// HloComputationProto {instructions = 2}; HloInstructionProto {name = 1, opcode = 2,
// shape = 3, window = 15, convolution_dimension_numbers = 16, custom_call_target = 28,
// dot_dimension_numbers = 30, id = 35, operand_ids = 36, backend_config = 43,
// feature_group_count = 50}; ShapeProto {element_type = 2, dimensions = 3,
// tuple_shapes = 4}.
#include "tensorflow/xla_hlo.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <vector>

#include "common/ops.hpp"
#include "decode/protobuf_wire.hpp"
#include "fomcast/text.hpp"

namespace fomcast::ingest {
namespace {

namespace pb = protobuf;

struct Shape {
  int64_t type = 0;  // xla::PrimitiveType
  std::vector<int64_t> dims;
  std::vector<Shape> tuple;
};

struct Instr {
  std::string name, opcode, target;
  Shape shape;
  std::vector<uint64_t> operands;
  std::string_view window, conv_dims, dot_dims, backend_config;
  int64_t groups = 1;
  int64_t group_size = 0;  // collectives: ranks in the first replica group (0: not given)
};

// xla::PrimitiveType -> DType and bytes per element.
DType dtype_of(int64_t t) {
  switch (t) {
    case 10: return DType::fp16;
    case 11: return DType::fp32;
    case 12: return DType::fp64;
    case 16: return DType::bf16;
    case 2:
    case 6: return DType::int8;
    case 4:
    case 8: return DType::int32;
    case 5:
    case 9: return DType::int64;
    case 1: return DType::boolean;
    case 19:
    case 20:
    case 23:
    case 24:
    case 25: return DType::fp8;
    default: return DType::unknown;
  }
}
double element_bytes(int64_t t) {
  switch (t) {
    case 1:
    case 2:
    case 6:
    case 19:
    case 20:
    case 23:
    case 24:
    case 25: return 1;
    case 3:
    case 7:
    case 10:
    case 16: return 2;
    case 4:
    case 8:
    case 11: return 4;
    case 5:
    case 9:
    case 12:
    case 15: return 8;
    case 18: return 16;
    default: return 0;
  }
}

// Shapes from a malformed proto are bounded: no tensor of more than 2^31 per dimension or
// 16 dimensions is real.
Shape read_shape(const pb::Field& field, const std::string& file, int depth = 0) {
  Shape s;
  if (depth > 8) return s;
  pb::Reader r(field.bytes, file, field.offset);
  pb::Field f;
  std::vector<uint64_t> dims;
  while (r.next(f)) {
    if (f.number == 2 && f.wire == pb::Wire::varint)
      s.type = static_cast<int64_t>(f.value);
    else if (f.number == 3)
      pb::append_varints(f, dims, file);
    else if (f.number == 4 && f.wire == pb::Wire::bytes && s.tuple.size() < 64)
      s.tuple.push_back(read_shape(f, file, depth + 1));
  }
  if (dims.size() > 16) return Shape{};
  for (uint64_t d : dims) {
    if (d > (uint64_t{1} << 31)) return Shape{};
    s.dims.push_back(static_cast<int64_t>(d));
  }
  return s;
}

const Shape& array_shape(const Shape& s) { return s.tuple.empty() ? s : s.tuple.front(); }

double tensor_bytes(const Shape& s) {
  if (!s.tuple.empty()) {
    double b = 0;
    for (const auto& t : s.tuple) b += tensor_bytes(t);
    return b;
  }
  double e = element_bytes(s.type);
  for (int64_t d : s.dims) e *= static_cast<double>(d);
  return e;
}

std::vector<int64_t> varints_of(std::string_view message, uint32_t number, const std::string& file) {
  std::vector<uint64_t> raw;
  pb::Reader r(message, file, 0);
  pb::Field f;
  while (r.next(f))
    if (f.number == number) pb::append_varints(f, raw, file);
  return {raw.begin(), raw.end()};
}
int64_t varint_of(std::string_view message, uint32_t number, const std::string& file) {
  const auto v = varints_of(message, number, file);
  return v.empty() ? 0 : v.back();
}

bool valid_dim(int64_t d, std::size_t rank) { return d >= 0 && static_cast<std::size_t>(d) < rank; }

// A convolution (opcode or cuDNN / MIOpen custom call) -> ConvShape. The dimension numbers
// and window describe the forward convolution; which operand is which depends on the
// direction the custom call computes.
std::optional<ConvShape> conv_of(const Instr& in, const std::vector<const Shape*>& operands, const std::string& file) {
  ConvShape c;
  const std::string t = lowercase(in.target);
  const Shape* x = !operands.empty() ? operands[0] : nullptr;
  const Shape* w = operands.size() > 1 ? operands[1] : nullptr;
  const Shape* y = &array_shape(in.shape);
  if (t.find("backwardinput") != std::string::npos) {
    c.direction = ConvDirection::backward_data;  // operands: dy, w; result: dx
    x = &array_shape(in.shape);
    y = operands.empty() ? nullptr : operands[0];
  } else if (t.find("backwardfilter") != std::string::npos) {
    c.direction = ConvDirection::backward_filter;
    y = operands.size() > 1 ? operands[1] : nullptr;  // operands: x, dy; result: dw
    w = &array_shape(in.shape);
  }
  if (!x || !w || !y) return std::nullopt;
  const auto in_spatial = varints_of(in.conv_dims, 11, file);
  const auto k_spatial = varints_of(in.conv_dims, 6, file);
  const std::size_t dims = in_spatial.size();
  if (dims < 1 || dims > 3 || k_spatial.size() != dims || x->dims.size() != dims + 2 || w->dims.size() != dims + 2)
    return std::nullopt;
  const int64_t ib = varint_of(in.conv_dims, 7, file), ifeat = varint_of(in.conv_dims, 8, file);
  const int64_t ko = varint_of(in.conv_dims, 4, file);
  for (int64_t d : {ib, ifeat})
    if (!valid_dim(d, x->dims.size())) return std::nullopt;
  if (!valid_dim(ko, w->dims.size())) return std::nullopt;
  c.dims = static_cast<int>(dims);
  c.n = x->dims[static_cast<std::size_t>(ib)];
  c.c = x->dims[static_cast<std::size_t>(ifeat)];
  c.k = w->dims[static_cast<std::size_t>(ko)];
  c.groups = std::max<int64_t>(in.groups, 1);
  // Window dimensions, in the order of the spatial dimensions.
  std::vector<std::array<int64_t, 4>> window;  // size, stride, padding low, dilation
  {
    pb::Reader r(in.window, file, 0);
    pb::Field f;
    while (r.next(f)) {
      if (f.number != 1 || f.wire != pb::Wire::bytes) continue;
      std::array<int64_t, 4> d{1, 1, 0, 1};
      pb::Reader dr(f.bytes, file, f.offset);
      pb::Field g;
      while (dr.next(g)) {
        if (g.wire != pb::Wire::varint) continue;
        const auto v = static_cast<int64_t>(g.value);
        if (g.number == 1)
          d[0] = v;
        else if (g.number == 2)
          d[1] = v;
        else if (g.number == 3)
          d[2] = v;
        else if (g.number == 5)
          d[3] = v;
      }
      window.push_back(d);
    }
  }
  if (window.size() != dims) return std::nullopt;
  const std::size_t first = 3 - dims;  // ConvShape's spatial arrays are depth, height, width
  for (std::size_t i = 0; i < dims; ++i) {
    if (!valid_dim(in_spatial[i], x->dims.size()) || !valid_dim(k_spatial[i], w->dims.size())) return std::nullopt;
    c.input[first + i] = x->dims[static_cast<std::size_t>(in_spatial[i])];
    c.filter[first + i] = w->dims[static_cast<std::size_t>(k_spatial[i])];
    c.stride[first + i] = std::max<int64_t>(window[i][1], 1);
    c.pad[first + i] = std::max<int64_t>(window[i][2], 0);
    c.dilation[first + i] = std::max<int64_t>(window[i][3], 1);
  }
  if (c.n < 1 || c.c < 1 || c.k < 1 || c.c % c.groups || c.k % c.groups) return std::nullopt;
  const auto out = c.output();
  if (std::any_of(out.begin(), out.end(), [](int64_t v) { return v < 1; })) return std::nullopt;
  return c;
}

// Contracting and batch dimensions of a dot: the instruction's own, or (cuBLAS / hipBLASLt
// custom calls) the gemm_backend_config in its JSON backend config.
struct DotDims {
  std::vector<int64_t> lc, rc, lb, rb;
};
std::optional<DotDims> dot_dims_of(const Instr& in, const std::string& file) {
  DotDims d;
  if (!in.dot_dims.empty()) {
    d.lc = varints_of(in.dot_dims, 1, file);
    d.rc = varints_of(in.dot_dims, 2, file);
    d.lb = varints_of(in.dot_dims, 3, file);
    d.rb = varints_of(in.dot_dims, 4, file);
    return d;
  }
  const auto j = nlohmann::json::parse(in.backend_config, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const nlohmann::json* g = j.contains("gemm_backend_config") ? &j["gemm_backend_config"] : &j;
  if (!g->is_object() || !g->contains("dot_dimension_numbers")) return std::nullopt;
  const auto& dn = (*g)["dot_dimension_numbers"];
  auto list = [&](const char* key, std::vector<int64_t>& out) {
    if (!dn.contains(key) || !dn[key].is_array()) return;
    for (const auto& v : dn[key]) {
      if (v.is_number_integer())
        out.push_back(v.get<int64_t>());
      else if (v.is_string())
        try {
          out.push_back(std::stoll(v.get<std::string>()));
        } catch (const std::exception&) {}
    }
  };
  list("lhs_contracting_dimensions", d.lc);
  list("rhs_contracting_dimensions", d.rc);
  list("lhs_batch_dimensions", d.lb);
  list("rhs_batch_dimensions", d.rb);
  return d;
}

std::optional<GemmShape> gemm_of(const Instr& in, const std::vector<const Shape*>& operands, const std::string& file) {
  if (operands.size() < 2 || !operands[0] || !operands[1]) return std::nullopt;
  const auto dd = dot_dims_of(in, file);
  if (!dd || dd->lc.empty() || dd->lc.size() != dd->rc.size() || dd->lb.size() != dd->rb.size()) return std::nullopt;
  const Shape& l = *operands[0];
  const Shape& r = *operands[1];
  auto product_except = [](const Shape& s, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    int64_t p = 1;
    for (std::size_t i = 0; i < s.dims.size(); ++i)
      if (std::find(a.begin(), a.end(), static_cast<int64_t>(i)) == a.end() &&
          std::find(b.begin(), b.end(), static_cast<int64_t>(i)) == b.end())
        p *= s.dims[i];
    return p;
  };
  auto product_of = [](const Shape& s, const std::vector<int64_t>& a) -> std::optional<int64_t> {
    int64_t p = 1;
    for (int64_t i : a) {
      if (!valid_dim(i, s.dims.size())) return std::nullopt;
      p *= s.dims[static_cast<std::size_t>(i)];
    }
    return p;
  };
  const auto k = product_of(l, dd->lc);
  const auto batch = product_of(l, dd->lb);
  if (!k || !batch || !product_of(r, dd->rc) || !product_of(r, dd->rb)) return std::nullopt;
  GemmShape g;
  g.m = product_except(l, dd->lc, dd->lb);
  g.n = product_except(r, dd->rc, dd->rb);
  g.k = *k;
  g.batch = *batch;
  if (g.m < 1 || g.n < 1 || g.k < 1) return std::nullopt;
  return g;
}

}  // namespace

std::unordered_map<std::string, HloOpInfo> read_hlo_module(std::string_view hlo_proto, const std::string& file,
                                                           int64_t offset) {
  std::vector<Instr> instrs;
  std::unordered_map<uint64_t, std::size_t> by_id;
  auto each = [&](std::string_view message, int64_t base, uint32_t number, auto&& fn) {
    pb::Reader r(message, file, base);
    pb::Field f;
    while (r.next(f))
      if (f.number == number && f.wire == pb::Wire::bytes) fn(f);
  };
  each(hlo_proto, offset, 1, [&](const pb::Field& module) {
    each(module.bytes, module.offset, 3, [&](const pb::Field& computation) {
      each(computation.bytes, computation.offset, 2, [&](const pb::Field& instruction) {
        Instr in;
        uint64_t id = 0;
        bool has_id = false;
        pb::Reader r(instruction.bytes, file, instruction.offset);
        pb::Field f;
        while (r.next(f)) {
          switch (f.number) {
            case 1:
              if (f.wire == pb::Wire::bytes) in.name.assign(f.bytes);
              break;
            case 2:
              if (f.wire == pb::Wire::bytes) in.opcode.assign(f.bytes);
              break;
            case 3:
              if (f.wire == pb::Wire::bytes) in.shape = read_shape(f, file);
              break;
            case 15:
              if (f.wire == pb::Wire::bytes) in.window = f.bytes;
              break;
            case 16:
              if (f.wire == pb::Wire::bytes) in.conv_dims = f.bytes;
              break;
            case 28:
              if (f.wire == pb::Wire::bytes) in.target.assign(f.bytes);
              break;
            case 30:
              if (f.wire == pb::Wire::bytes) in.dot_dims = f.bytes;
              break;
            case 35:
              if (f.wire == pb::Wire::varint) {
                id = f.value;
                has_id = true;
              }
              break;
            case 36: pb::append_varints(f, in.operands, file); break;
            case 43:
              if (f.wire == pb::Wire::bytes) in.backend_config = f.bytes;
              break;
            case 50:
              if (f.wire == pb::Wire::varint) in.groups = static_cast<int64_t>(std::min<uint64_t>(f.value, 1u << 20));
              break;
            case 49:  // replica_groups: the first one's size is the collective's rank count
              if (f.wire == pb::Wire::bytes && in.group_size == 0) {
                std::vector<uint64_t> ids;
                pb::Reader g(f.bytes, file, f.offset);
                pb::Field h;
                while (g.next(h))
                  if (h.number == 1) pb::append_varints(h, ids, file);
                in.group_size = static_cast<int64_t>(ids.size());
              }
              break;
            default: break;
          }
        }
        if (has_id) by_id[id] = instrs.size();
        instrs.push_back(std::move(in));
      });
    });
  });

  std::unordered_map<std::string, HloOpInfo> out;
  for (const auto& in : instrs) {
    if (in.name.empty()) continue;
    std::vector<const Shape*> operands;
    for (uint64_t id : in.operands) {
      auto it = by_id.find(id);
      operands.push_back(it == by_id.end() ? nullptr : &array_shape(instrs[it->second].shape));
    }
    HloOpInfo info;
    info.opcode = in.opcode;
    info.dtype = dtype_of(array_shape(in.shape).type);
    const std::string target = lowercase(in.target);
    const bool conv = in.opcode == "convolution" || target.find("conv") != std::string::npos;
    const bool dot =
        in.opcode == "dot" || target.find("gemm") != std::string::npos || target.find("matmul") != std::string::npos;
    if (conv) {
      if (auto c = conv_of(in, operands, file)) {
        info.kind = OpKind::conv;
        info.shape = *c;
        // The element type computed in is the input's (a cuDNN call returns a tuple).
        if (!operands.empty() && operands[0]) info.dtype = dtype_of(operands[0]->type);
        out[in.name] = std::move(info);
      }
      continue;
    }
    if (dot) {
      if (auto g = gemm_of(in, operands, file)) {
        info.kind = g->batch > 1 ? OpKind::batched_gemm : OpKind::gemm;
        info.shape = *g;
        if (operands[0]) info.dtype = dtype_of(operands[0]->type);
        out[in.name] = std::move(info);
      }
      continue;
    }
    // Collectives: the payload each rank contributes (all-gather's input, the others'
    // input too) and the group size where the HLO gives it.
    if (const OpKind named = classify_name(in.opcode); named == OpKind::collective) {
      double payload = 0;
      for (const Shape* sh : operands)
        if (sh) payload += tensor_bytes(*sh);
      if (payload > 0) {
        info.kind = OpKind::collective;
        info.shape =
            CollectiveShape{collective_kind_from_name(in.opcode), static_cast<int64_t>(payload), in.group_size};
        info.bytes = payload;
        out[in.name] = std::move(info);
      }
      continue;
    }
    // Anything else (fusions, copies, reductions): what it reads and writes.
    TensorShape t;
    double bytes = tensor_bytes(in.shape);
    for (const Shape* s : operands) {
      if (!s) continue;
      t.inputs.push_back(s->dims);
      bytes += tensor_bytes(*s);
    }
    if (t.inputs.empty()) continue;
    info.shape = std::move(t);
    info.bytes = bytes;
    out[in.name] = std::move(info);
  }
  return out;
}

}  // namespace fomcast::ingest
