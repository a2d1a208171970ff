// FLOP and byte formulas per kind of operation. FLOPs count 2 per multiply-accumulate, the
// convention DeepBench and vendor peak rates use; bytes are the minimum traffic (each
// operand read once, each result written once), which is what a bandwidth bound needs.
#include <algorithm>
#include <numeric>

#include "fomcast/model.hpp"

namespace fomcast {
namespace {

double product(const std::array<int64_t, 3>& a) {
  return static_cast<double>(a[0]) * static_cast<double>(a[1]) * static_cast<double>(a[2]);
}

double elements(const std::vector<int64_t>& dims) {
  if (dims.empty()) return 0;
  double e = 1;
  for (int64_t d : dims) e *= static_cast<double>(d);
  return e;
}

int rnn_gates(RnnCell c) { return c == RnnCell::lstm ? 4 : c == RnnCell::gru ? 3 : 1; }

double conv_macs(const ConvShape& c) {
  const double groups = c.groups > 0 ? static_cast<double>(c.groups) : 1.0;
  return static_cast<double>(c.n) * static_cast<double>(c.k) * (static_cast<double>(c.c) / groups) * product(c.filter) *
         product(c.output());
}

}  // namespace

ConvElements conv_elements(const ConvShape& c) {
  const double groups = c.groups > 0 ? static_cast<double>(c.groups) : 1.0;
  return {static_cast<double>(c.n) * static_cast<double>(c.c) * product(c.input),
          static_cast<double>(c.k) * (static_cast<double>(c.c) / groups) * product(c.filter),
          static_cast<double>(c.n) * static_cast<double>(c.k) * product(c.output())};
}

double op_flops(OpKind kind, const OpShape& shape) {
  if (const auto* g = std::get_if<GemmShape>(&shape))
    return 2.0 * static_cast<double>(g->m) * static_cast<double>(g->n) * static_cast<double>(g->k) *
           static_cast<double>(std::max<int64_t>(g->batch, 1));
  if (const auto* c = std::get_if<ConvShape>(&shape)) return 2.0 * conv_macs(*c);
  if (const auto* r = std::get_if<RnnShape>(&shape)) {
    const double per_step = rnn_gates(r->cell) * static_cast<double>(r->hidden) *
                            static_cast<double>(r->input + r->hidden) * static_cast<double>(r->batch);
    // The backward pass computes data and weight gradients: twice the forward work.
    return (r->backward ? 4.0 : 2.0) * per_step * static_cast<double>(r->timesteps);
  }
  if (const auto* t = std::get_if<TensorShape>(&shape)) {
    // One operation per element of the largest operand: enough for a roofline, where
    // these ops are bound by bytes anyway.
    if (is_memory_bound(kind) && kind != OpKind::memcpy) return static_cast<double>(t->elements());
  }
  return 0;
}

double op_bytes(OpKind kind, const OpShape& shape, DType dtype) {
  const double e = dtype_bytes(dtype);
  if (const auto* g = std::get_if<GemmShape>(&shape)) {
    const double m = static_cast<double>(g->m), n = static_cast<double>(g->n), k = static_cast<double>(g->k);
    return (m * k + k * n + m * n) * static_cast<double>(std::max<int64_t>(g->batch, 1)) * e;
  }
  if (const auto* c = std::get_if<ConvShape>(&shape)) {
    const ConvElements t = conv_elements(*c);
    return (t.x + t.filter + t.y) * e;
  }
  if (const auto* r = std::get_if<RnnShape>(&shape)) {
    const double g = rnn_gates(r->cell);
    const double weights = g * static_cast<double>(r->hidden) * static_cast<double>(r->input + r->hidden);
    const double acts = static_cast<double>(r->timesteps) * static_cast<double>(r->batch) *
                        static_cast<double>(r->input + (g + 1) * r->hidden);
    return (weights + acts) * e;
  }
  if (const auto* t = std::get_if<TensorShape>(&shape)) {
    double read = 0;
    for (const auto& dims : t->inputs) read += elements(dims);
    const double written = kind == OpKind::reduction ? 0 : static_cast<double>(t->elements());
    return (read + written) * e;
  }
  if (const auto* c = std::get_if<CollectiveShape>(&shape)) return static_cast<double>(c->bytes);
  if (const auto* em = std::get_if<EmbeddingShape>(&shape))
    return 2.0 * static_cast<double>(em->lookups) * static_cast<double>(em->dim) * e;
  return 0;
}

void fill_costs(Op& op) {
  if (op.flops == 0) op.flops = op_flops(op.kind, op.shape);
  if (op.bytes == 0) {
    op.bytes = op_bytes(op.kind, op.shape, op.dtype);
    // A fill writes its tensor and reads none of it: counted read and written, an H200's
    // 205M-element fill_ (176 us, 4.7 TB/s of writes) was raised to twice its time on an H100.
    const auto* t = std::get_if<TensorShape>(&op.shape);
    if (t && (op.name == "aten::fill_" || op.name == "aten::zero_"))
      op.bytes = static_cast<double>(t->elements()) * dtype_bytes(op.dtype);
  }
}

double Workload::measured_op_time_s() const {
  return std::accumulate(ops.begin(), ops.end(), 0.0, [](double sum, const Op& op) {
    return sum + (op.self_time_s ? op.count * *op.self_time_s : 0.0);
  });
}

}  // namespace fomcast
