// Kernel tables indexed for prediction. Interpolation works on the log of the achieved
// rate (flops per second) over log-shape features: a local linear fit (tricube-weighted
// least squares over the 16 nearest entries, slopes lightly ridged, solved with Eigen),
// or the nearest entry for groups too small or too irregular for a fit. Which of the two
// a group uses is decided by leave-one-out on the group itself, and the same residuals
// give the error band. Rates rather than times because a rate varies slowly with shape
// (a GEMM twice as large takes about twice as long at about the same rate), and because
// clamping a rate to its neighbours' range keeps extrapolation physical.
#include "tables.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include <Eigen/Dense>

namespace fomcast::est {
namespace {

constexpr std::size_t kNeighbours = 16;
constexpr double kRidge = 0.1;           // on the slopes, in log-log units
constexpr std::size_t kLooSample = 300;  // leave-one-out queries per group at most
constexpr double kMinBand = 0.03;
constexpr double kWidening = 0.25;

double ln(double v) { return std::log(std::max(v, 1e-300)); }

double product(const std::array<int64_t, 3>& a) {
  return static_cast<double>(a[0]) * static_cast<double>(a[1]) * static_cast<double>(a[2]);
}

double distance(const Features& a, const Features& b, std::size_t dims) {
  double s = 0;
  for (std::size_t i = 0; i < dims; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s);
}

struct Near {
  std::size_t index;
  double d;
};

std::vector<Near> nearest(const TableGroup& g, const Features& q, std::size_t k, std::size_t exclude) {
  std::vector<Near> all;
  all.reserve(g.features.size());
  for (std::size_t i = 0; i < g.features.size(); ++i)
    if (!left_out(g, i, exclude)) all.push_back({i, distance(g.features[i], q, g.dims)});
  k = std::min(k, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(),
                    [](const Near& a, const Near& b) { return a.d < b.d || (a.d == b.d && a.index < b.index); });
  all.resize(k);
  return all;
}

double local_linear(const TableGroup& g, const Features& q, const std::vector<Near>& nb) {
  const std::size_t p = g.dims + 1;
  const double h = std::max(nb.back().d * 1.0001, 1e-3);
  Eigen::MatrixXd ata = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p));
  Eigen::VectorXd aty = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(p));
  Eigen::VectorXd row(static_cast<Eigen::Index>(p));
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& n : nb) {
    const double u = n.d / h;
    const double w = std::max(std::pow(1 - u * u * u, 3), 1e-3);  // tricube
    row(0) = 1;
    for (std::size_t j = 0; j < g.dims; ++j) row(static_cast<Eigen::Index>(j + 1)) = g.features[n.index][j] - q[j];
    ata.noalias() += w * row * row.transpose();
    aty.noalias() += w * g.log_rate[n.index] * row;
    lo = std::min(lo, g.log_rate[n.index]);
    hi = std::max(hi, g.log_rate[n.index]);
  }
  for (std::size_t j = 1; j < p; ++j) ata(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(j)) += kRidge;
  const Eigen::VectorXd beta = ata.ldlt().solve(aty);
  const double value = beta(0);
  if (!std::isfinite(value)) return g.log_rate[nb.front().index];
  return std::clamp(value, lo, hi);
}

double nearest_value(const TableGroup& g, const std::vector<Near>& nb) {
  // Equally near entries (the same shape with other transposes) share the vote.
  double sum = 0;
  int n = 0;
  for (const auto& e : nb) {
    if (e.d > nb.front().d + 1e-12) break;
    sum += g.log_rate[e.index];
    ++n;
  }
  return sum / n;
}

double predict_with(const TableGroup& g, const Features& q, Interpolator how, const std::vector<Near>& nb) {
  // A local linear fit needs more neighbours than it has coefficients.
  return how == Interpolator::local_linear && nb.size() > g.dims + 1 ? local_linear(g, q, nb) : nearest_value(g, nb);
}

void index_group(TableGroup& g, const std::function<double(KernelPrecision)>& peak_of, double bandwidth) {
  g.dims = feature_dims(g.kind);
  for (std::size_t i = 0; i < g.entries.size(); ++i) {
    const KernelEntry& e = *g.entries[i];
    g.features.push_back(shape_features(g.kind, e.shape));
    g.log_rate.push_back(ln(table_work(g.kind, e.shape) / (e.time_us * 1e-6)));
    const double t = e.time_us * 1e-6 / latency_units(e.shape);
    g.min_time_s = i == 0 ? t : std::min(g.min_time_s, t);
    // A later row of the same key (a newer import) replaces an earlier one.
    g.by_key[shape_key(table_shape(e.shape))] = i;
    if (const auto* s = std::get_if<GemmShape>(&e.shape)) g.by_mnk.emplace(mnk_key(*s), i);
  }
  {
    const double peak = is_memory_kind(g.kind) ? 0.0 : peak_of(g.precision);
    for (const auto* e : g.entries) {
      const double t = e->time_us * 1e-6;
      const double roof =
          std::max(peak > 0 ? op_flops(g.kind, e->shape) / peak : 0.0,
                   bandwidth > 0 ? op_bytes(g.kind, e->shape, precision_dtype(g.precision)) / bandwidth : 0.0);
      if ((peak > 0 || bandwidth > 0) && roof < kLatencyBound * t && latency_units(e->shape) == 1)
        g.launch_floor_s = g.launch_floor_s > 0 ? std::min(g.launch_floor_s, t) : t;
    }
  }
  if (is_memory_kind(g.kind)) {
    // A memory-bound group's rate is bytes per second: its median over the platform's
    // bandwidth is the achievable fraction of the bandwidth the transfer model carries.
    if (bandwidth > 0 && g.launch_floor_s > 0)
      for (const auto* e : g.entries) {
        const auto* t = std::get_if<TensorShape>(&e->shape);
        const double bytes = op_bytes(g.kind, e->shape, precision_dtype(g.precision));
        if (!t || !(bytes > 0)) continue;
        g.gap_curve.push_back({std::log(bytes / (bandwidth * g.launch_floor_s)), std::log(rows_and_cols(*t).second),
                               std::log(e->time_us * 1e-6 * bandwidth / bytes)});
      }
    // Sorted by x, so a read looks only near its x (fallback_models.cpp's read_curve).
    std::stable_sort(g.gap_curve.begin(), g.gap_curve.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
    if (bandwidth > 0) {
      std::vector<double> frac;
      for (double r : g.log_rate) frac.push_back(std::exp(r) / bandwidth);
      g.median_efficiency = percentile(frac, 0.5);
      g.top_bandwidth_fraction = percentile(frac, 0.9);
    }
  } else if (const double peak = peak_of(g.precision); peak > 0) {
    std::vector<double> eff;
    for (double r : g.log_rate) eff.push_back(std::exp(r) / peak);
    g.median_efficiency = percentile(eff, 0.5);
  }
  if (g.entries.size() < 3) return;
  // Leave-one-out for both interpolators on (a sample of) the group's own entries.
  const std::size_t n = g.entries.size();
  const std::size_t stride = std::max<std::size_t>(1, n / kLooSample);
  std::vector<double> err_linear, err_nearest;
  for (std::size_t i = 0; i < n; i += stride) {
    const auto nb = nearest(g, g.features[i], kNeighbours, i);
    if (nb.size() < 2) continue;
    err_linear.push_back(
        std::fabs(std::exp(g.log_rate[i] - predict_with(g, g.features[i], Interpolator::local_linear, nb)) - 1));
    err_nearest.push_back(std::fabs(std::exp(g.log_rate[i] - nearest_value(g, nb)) - 1));
  }
  const bool linear = percentile(err_linear, 0.5) <= percentile(err_nearest, 0.5);
  g.interpolator = linear ? Interpolator::local_linear : Interpolator::nearest;
  g.loo_errors = linear ? err_linear : err_nearest;
  g.loo_errors_other = linear ? err_nearest : err_linear;
  std::sort(g.loo_errors.begin(), g.loo_errors.end());
  std::sort(g.loo_errors_other.begin(), g.loo_errors_other.end());
  g.band = std::max(kMinBand, percentile(g.loo_errors, 0.68));
}

}  // namespace

bool is_memory_kind(OpKind kind) {
  return kind == OpKind::elementwise || kind == OpKind::normalization || kind == OpKind::reduction;
}

std::pair<double, double> rows_and_cols(const TensorShape& t) {
  const std::vector<int64_t>* largest = nullptr;
  double most = 0;
  for (const auto& dims : t.inputs) {
    double e = 1;
    for (int64_t d : dims) e *= static_cast<double>(std::max<int64_t>(d, 1));
    if (!dims.empty() && e > most) most = e, largest = &dims;
  }
  if (!largest) return {1, 1};
  // Trailing dimensions of size 1 hold no data: [2048, 512, 1, 1] (a 1x1 conv's weight, its
  // optimizer update) lies in memory as [2048, 512], not as a million rows of one element,
  // which read the tables' launch-bound small tensors 100x over (965 us for 4 MB on an A100).
  auto last = std::find_if(largest->rbegin(), largest->rend(), [](int64_t d) { return d > 1; });
  const double cols = last == largest->rend() ? 1.0 : static_cast<double>(*last);
  return {std::max(1.0, most / cols), cols};
}

std::pair<double, double> kernel_rows_and_cols(OpKind kind, const TensorShape& t) {
  const auto [rows, cols] = rows_and_cols(t);
  // PyTorch's elementwise kernels run over the contiguous elements whatever the shape: a
  // ResNet activation [256x56x56x64] has 50x the rows of any NeuSight entry, and read by its
  // rows it fell outside every curve and took the rate of the 3 MB entries nearest in row
  // length (0.8 TB/s on an H200 that ran it at 4.4).
  return kind == OpKind::elementwise ? std::pair{rows * cols, 1.0} : std::pair{rows, cols};
}

const TableGroup* memory_group(const PlatformTables& t, OpKind kind) {
  for (const KernelMode m : {KernelMode::train, KernelMode::inference})
    if (const TableGroup* g = t.find(kind, KernelPrecision::fp32, m, std::monostate{})) return g;
  return nullptr;
}

OpShape table_shape(OpShape shape) {
  if (auto* c = std::get_if<ConvShape>(&shape); c && c->dims == 1) c->dims = 2;
  return shape;
}

std::string mnk_key(const GemmShape& s) {
  return std::to_string(s.m) + "," + std::to_string(s.n) + "," + std::to_string(s.k) + "," + std::to_string(s.batch);
}

double latency_units(const OpShape& shape) {
  const auto* r = std::get_if<RnnShape>(&shape);
  return r ? static_cast<double>(std::max<int64_t>(r->timesteps, 1)) : 1.0;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

bool left_out(const TableGroup& g, std::size_t i, std::size_t exclude) {
  return exclude < g.features.size() && (i == exclude || distance(g.features[i], g.features[exclude], g.dims) < 1e-12);
}

std::string_view to_string(Interpolator i) { return i == Interpolator::local_linear ? "local-linear" : "nearest"; }

std::size_t feature_dims(OpKind kind) {
  switch (kind) {
    case OpKind::gemm: return 3;
    case OpKind::batched_gemm: return 4;
    case OpKind::conv: return 5;
    case OpKind::rnn: return 4;
    case OpKind::collective: return 2;
    case OpKind::elementwise:
    case OpKind::normalization:
    case OpKind::reduction: return 3;
    default: return 0;
  }
}

Features shape_features(OpKind kind, const OpShape& shape) {
  Features f{};
  if (const auto* g = std::get_if<GemmShape>(&shape)) {
    f = {ln(static_cast<double>(g->m)), ln(static_cast<double>(g->n)), ln(static_cast<double>(g->k)),
         ln(static_cast<double>(std::max<int64_t>(g->batch, 1))), 0};
  } else if (const auto* c = std::get_if<ConvShape>(&shape)) {
    const double groups = static_cast<double>(std::max<int64_t>(c->groups, 1));
    f = {ln(static_cast<double>(c->n) * product(c->output())), ln(static_cast<double>(c->k)),
         ln(static_cast<double>(c->c) / groups), ln(product(c->filter)), ln(product(c->stride))};
  } else if (const auto* r = std::get_if<RnnShape>(&shape)) {
    f = {ln(static_cast<double>(r->hidden)), ln(static_cast<double>(r->batch)), ln(static_cast<double>(r->timesteps)),
         ln(static_cast<double>(r->input)), 0};
  } else if (const auto* t = std::get_if<TensorShape>(&shape)) {
    // Rows and row length of the largest operand: a layer norm or softmax works along its
    // last dimension, and an elementwise kernel's rate depends on the total size.
    // The third feature, bytes per element of the largest operand, tells unary ops (8 at
    // fp32) from binary ones (12) in one elementwise group.
    const auto [rows, cols] = kernel_rows_and_cols(kind, *t);
    f = {ln(rows), ln(cols), ln(op_bytes(kind, shape, DType::fp32) / (rows * cols)), 0, 0};
  } else if (const auto* col = std::get_if<CollectiveShape>(&shape)) {
    f = {ln(static_cast<double>(col->bytes)), ln(static_cast<double>(std::max<int64_t>(col->ranks, 1))), 0, 0, 0};
  }
  return f;
}

TableVariant group_variant(OpKind, const OpShape& shape) {
  if (const auto* c = std::get_if<ConvShape>(&shape)) return c->direction;
  if (const auto* r = std::get_if<RnnShape>(&shape))
    return RnnVariant{r->cell, r->backward ? RnnDirection::backward : RnnDirection::forward};
  if (const auto* col = std::get_if<CollectiveShape>(&shape)) return col->op;
  return std::monostate{};
}

double table_work(OpKind kind, const OpShape& shape) {
  if (kind == OpKind::collective) {
    const auto* c = std::get_if<CollectiveShape>(&shape);
    return c ? static_cast<double>(c->bytes) : 0;
  }
  if (is_memory_kind(kind)) return std::holds_alternative<TensorShape>(shape) ? op_bytes(kind, shape, DType::fp32) : 0;
  return op_flops(kind, shape);
}

const TableGroup* PlatformTables::find(OpKind kind, KernelPrecision precision, KernelMode mode,
                                       const TableVariant& variant) const {
  for (const auto& g : groups)
    if (g.kind == kind && g.precision == precision && g.mode == mode && g.variant == variant) return &g;
  return nullptr;
}

bool PlatformTables::has(OpKind kind) const {
  return std::any_of(groups.begin(), groups.end(), [&](const TableGroup& g) { return g.kind == kind; });
}

bool PlatformTables::has_variant_of(OpKind kind, const OpShape& shape) const {
  const TableVariant variant = group_variant(kind, shape);
  return std::any_of(groups.begin(), groups.end(),
                     [&](const TableGroup& g) { return g.kind == kind && g.variant == variant; });
}

bool PlatformTables::has(OpKind kind, KernelPrecision precision) const {
  return std::any_of(groups.begin(), groups.end(),
                     [&](const TableGroup& g) { return g.kind == kind && g.precision == precision; });
}

PlatformTables build_tables(KernelTable table, const std::function<double(KernelPrecision)>& peak_of,
                            double bandwidth) {
  PlatformTables t;
  t.platform = table.platform;
  t.table = std::move(table);
  for (const auto& e : t.table.entries) {
    if (feature_dims(e.kind) == 0 || table_work(e.kind, e.shape) <= 0 || !(e.time_us > 0)) continue;
    const TableVariant variant = group_variant(e.kind, e.shape);
    auto it = std::find_if(t.groups.begin(), t.groups.end(), [&](const TableGroup& g) {
      return g.kind == e.kind && g.precision == e.precision && g.mode == e.mode && g.variant == variant;
    });
    if (it == t.groups.end()) {
      TableGroup g;
      g.kind = e.kind;
      g.precision = e.precision;
      g.mode = e.mode;
      g.variant = variant;
      t.groups.push_back(std::move(g));
      it = std::prev(t.groups.end());
    }
    it->entries.push_back(&e);
  }
  for (auto& g : t.groups) index_group(g, peak_of, bandwidth);
  for (const auto& e : t.table.entries)
    if (e.kind == OpKind::gemm && e.time_us > 0) {
      const double bw = op_bytes(e.kind, e.shape, e.dtype) / (e.time_us * 1e-6);
      if (bw > t.achieved_bandwidth) t.achieved_bandwidth = bw, t.achieved_bandwidth_entry = &e;
    }
  return t;
}

std::optional<Interpolation> interpolate(const TableGroup& g, const Features& query, Interpolator how,
                                         std::size_t exclude) {
  if (g.dims == 0) return std::nullopt;
  const auto nb = nearest(g, query, kNeighbours, exclude);
  if (nb.size() < 2) return std::nullopt;
  Interpolation out;
  out.nearest = nb.front().index;
  out.nearest_distance = nb.front().d;
  out.log_rate = predict_with(g, query, how, nb);
  return out;
}

double interpolation_uncertainty(const TableGroup& g, double d) {
  // Leave-one-out errors over the DeepBench GEMM tables hardly grow up to a log-distance
  // of 1 from the nearest measured shape (68th percentiles 8-19%) and reach about 36%
  // between 1 and 2: the band holds within 1, and widens by 0.25 per unit beyond.
  return std::min(1.5, std::max(g.band, kMinBand) + kWidening * std::max(0.0, d - kBandReach));
}

}  // namespace fomcast::est
