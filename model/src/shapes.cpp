// Derived sizes of shapes, their short human form and their canonical key.
#include <cstdio>
#include <string>

#include "fomcast/model.hpp"

namespace fomcast {
namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

std::string join_dims(const std::vector<int64_t>& dims, char sep) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(dims[i]);
  }
  return s;
}

std::string spatial(const std::array<int64_t, 3>& a, int dims) {
  std::string s;
  for (int i = 3 - dims; i < 3; ++i) {
    if (!s.empty()) s += 'x';
    s += std::to_string(a[static_cast<std::size_t>(i)]);
  }
  return s;
}

std::string triple(const std::array<int64_t, 3>& a) {
  return std::to_string(a[0]) + "x" + std::to_string(a[1]) + "x" + std::to_string(a[2]);
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (b >= 1000 && u < 4) {
    b /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g %s", b, units[u]);
  return buf;
}

}  // namespace

std::array<int64_t, 3> ConvShape::output() const {
  std::array<int64_t, 3> out{1, 1, 1};
  for (std::size_t i = 0; i < 3; ++i) {
    const int64_t span = dilation[i] * (filter[i] - 1) + 1;
    const int64_t s = stride[i] > 0 ? stride[i] : 1;
    const int64_t o = (input[i] + 2 * pad[i] - span) / s + 1;
    out[i] = o > 0 ? o : 0;
  }
  return out;
}

int64_t TensorShape::elements() const {
  int64_t best = 0;
  for (const auto& dims : inputs) {
    int64_t e = 1;
    for (int64_t d : dims) e *= d;
    if (!dims.empty() && e > best) best = e;
  }
  return best;
}

std::string describe(const OpShape& shape) {
  return std::visit(
      Overloaded{
          [](std::monostate) { return std::string(); },
          [](const GemmShape& g) {
            std::string s = "M=" + std::to_string(g.m) + " N=" + std::to_string(g.n) + " K=" + std::to_string(g.k);
            if (g.batch != 1) s += " B=" + std::to_string(g.batch);
            if (g.trans_a || g.trans_b) s += std::string(" ") + (g.trans_a ? 'T' : 'N') + (g.trans_b ? 'T' : 'N');
            return s;
          },
          [](const ConvShape& c) {
            std::string s = "conv" + std::to_string(c.dims) + "d N=" + std::to_string(c.n) +
                            " C=" + std::to_string(c.c) + " " + spatial(c.input, c.dims) + " K=" + std::to_string(c.k) +
                            " " + spatial(c.filter, c.dims);
            if (c.stride != std::array<int64_t, 3>{1, 1, 1}) s += " /" + spatial(c.stride, c.dims);
            if (c.pad != std::array<int64_t, 3>{0, 0, 0}) s += " pad " + spatial(c.pad, c.dims);
            if (c.dilation != std::array<int64_t, 3>{1, 1, 1}) s += " dil " + spatial(c.dilation, c.dims);
            if (c.groups != 1) s += " g=" + std::to_string(c.groups);
            s += c.direction == ConvDirection::forward         ? " fwd"
                 : c.direction == ConvDirection::backward_data ? " bwd-data"
                                                               : " bwd-filter";
            return s;
          },
          [](const RnnShape& r) {
            return std::string(to_string(r.cell)) + " H=" + std::to_string(r.hidden) + " I=" + std::to_string(r.input) +
                   " B=" + std::to_string(r.batch) + " T=" + std::to_string(r.timesteps) + (r.backward ? " bwd" : "");
          },
          [](const TensorShape& t) {
            std::string s;
            for (const auto& dims : t.inputs) {
              if (dims.empty()) continue;
              if (!s.empty()) s += ", ";
              s += "[" + join_dims(dims, 'x') + "]";
            }
            return s;
          },
          [](const CollectiveShape& c) {
            std::string s = std::string(to_string(c.op)) + " " + human_bytes(static_cast<double>(c.bytes));
            if (c.ranks > 0) s += " x " + std::to_string(c.ranks) + " ranks";
            return s;
          },
          [](const EmbeddingShape& e) {
            return "rows=" + std::to_string(e.rows) + " dim=" + std::to_string(e.dim) +
                   " lookups=" + std::to_string(e.lookups);
          },
      },
      shape);
}

std::string shape_key(const OpShape& shape) {
  return std::visit(Overloaded{
                        [](std::monostate) { return std::string(); },
                        [](const GemmShape& g) {
                          return "gemm:m=" + std::to_string(g.m) + ",n=" + std::to_string(g.n) +
                                 ",k=" + std::to_string(g.k) + ",b=" + std::to_string(g.batch) +
                                 ",ta=" + std::to_string(int(g.trans_a)) + ",tb=" + std::to_string(int(g.trans_b));
                        },
                        [](const ConvShape& c) {
                          return "conv:d=" + std::to_string(c.dims) + ",n=" + std::to_string(c.n) +
                                 ",c=" + std::to_string(c.c) + ",k=" + std::to_string(c.k) +
                                 ",g=" + std::to_string(c.groups) + ",in=" + triple(c.input) +
                                 ",f=" + triple(c.filter) + ",s=" + triple(c.stride) + ",p=" + triple(c.pad) +
                                 ",dl=" + triple(c.dilation) + ",dir=" + std::string(to_string(c.direction));
                        },
                        [](const RnnShape& r) {
                          return "rnn:" + std::string(to_string(r.cell)) + ",h=" + std::to_string(r.hidden) +
                                 ",i=" + std::to_string(r.input) + ",b=" + std::to_string(r.batch) +
                                 ",t=" + std::to_string(r.timesteps) + (r.backward ? ",dir=bwd" : "");
                        },
                        [](const TensorShape& t) {
                          std::string s = "tensor:";
                          for (std::size_t i = 0; i < t.inputs.size(); ++i) {
                            if (i) s += ';';
                            s += "[" + join_dims(t.inputs[i], ',') + "]";
                          }
                          return s;
                        },
                        [](const CollectiveShape& c) {
                          return std::string(to_string(c.op)) + ":bytes=" + std::to_string(c.bytes) +
                                 ",ranks=" + std::to_string(c.ranks);
                        },
                        [](const EmbeddingShape& e) {
                          return "embedding:rows=" + std::to_string(e.rows) + ",dim=" + std::to_string(e.dim) +
                                 ",lookups=" + std::to_string(e.lookups);
                        },
                    },
                    shape);
}

}  // namespace fomcast
