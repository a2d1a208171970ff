// One platform's kernel tables indexed for the estimator: exact lookup by key, and
// interpolation in log-shape space with an error band from leave-one-out residuals.
// Built once per platform per run (the leave-one-out pass is the expensive part).
// Private to estimator/.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "fomcast/model.hpp"

namespace fomcast::est {

constexpr std::size_t kMaxFeatures = 5;
using Features = std::array<double, kMaxFeatures>;
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// How a group predicts a shape it has not measured, chosen per group by leave-one-out.
enum class Interpolator { local_linear, nearest };
std::string_view to_string(Interpolator);

// Which way an RNN layer's time runs: its forward pass, or its whole backward pass.
enum class RnnDirection { forward, backward };

// An RNN group: one cell type, one direction.
struct RnnVariant {
  RnnCell cell = RnnCell::lstm;
  RnnDirection direction = RnnDirection::forward;
  bool operator==(const RnnVariant&) const = default;
};

// What splits a kind's kernels into groups beyond precision and mode: a conv's direction,
// an RNN's cell and direction, a collective's kind; nothing (monostate) for GEMMs.
using TableVariant = std::variant<std::monostate, ConvDirection, RnnVariant, CollectiveKind>;

// The kernels of one kind, precision, mode and variant (conv: forward / backward-data /
// backward-filter; rnn: cell and forward / backward), which interpolate among themselves.
struct TableGroup {
  OpKind kind = OpKind::gemm;
  KernelPrecision precision = KernelPrecision::fp32;
  KernelMode mode = KernelMode::train;
  TableVariant variant;  // see group_variant()
  std::vector<const KernelEntry*> entries;
  std::vector<Features> features;
  std::size_t dims = 0;                                 // features used
  std::vector<double> log_rate;                         // log(work / time_s): work is flops, or bytes for collectives
  std::unordered_map<std::string, std::size_t> by_key;  // exact shape key -> entry
  std::unordered_map<std::string, std::size_t> by_mnk;  // GEMM: "m,n,k" ignoring transposes
  Interpolator interpolator = Interpolator::local_linear;
  std::vector<double> loo_errors;        // |predicted - measured| / measured, sorted, chosen interpolator
  std::vector<double> loo_errors_other;  // the same for the interpolator not chosen
  double band = 0;                       // 68th percentile of loo_errors: the 1-sigma-like band
  double median_efficiency = 0;       // median work / (time x peak) where the peak is known; memory kinds: x bandwidth
  double top_bandwidth_fraction = 0;  // memory kinds: the 90th percentile of bytes / (time x bandwidth)
  // A latency floor for shapes far smaller than any measured: the fastest kernel of the
  // group; for RNN layers the fastest time per timestep (times the query's timesteps).
  double min_time_s = 0;
  // The launch gap its times hold: the fastest entry whose roofline (work at the peak,
  // bytes at the bandwidth) is under kLatencyBound of its time, i.e. one that did next to
  // nothing; 0 when no entry is that small (DeepBench's smallest kernels still work).
  double launch_floor_s = 0;
  // Memory kinds: each entry's time in coordinates normalised by the platform, x =
  // log(bytes / (bandwidth x launch_floor_s)) (how large the op is against what one call
  // costs there) and y = log(time x bandwidth / bytes) (the inverse of the fraction of the
  // bandwidth its whole time reached), with log(row length): the curve a transfer reads at
  // the target's own x (fallback_models.hpp's memory_from_curves). Empty without a
  // bandwidth or a launch floor.
  struct CurvePoint {
    double x = 0, log_cols = 0, y = 0;
  };
  std::vector<CurvePoint> gap_curve;
  // log(time / launch_floor_s) read off gap_curve on a grid of x per row length, made
  // non-decreasing in x (fallback_models.cpp's monotone_z); filled on first use.
  mutable std::map<long, std::vector<double>> monotone_z;
};
constexpr double kLatencyBound = 0.1;

struct Interpolation {
  double log_rate = 0;
  double nearest_distance = 0;
  std::size_t nearest = kNone;
};

struct PlatformTables {
  std::string platform;
  KernelTable table;  // owns the entries the groups point into
  std::vector<TableGroup> groups;
  // The most bytes per second any GEMM of the tables moved (its operands over its time):
  // a measured lower bound of the memory bandwidth, for a platform whose spec has none.
  double achieved_bandwidth = 0;
  const KernelEntry* achieved_bandwidth_entry = nullptr;
  // conv_gemm_correction() results by precision and direction, filled on first use.
  mutable std::map<std::pair<KernelPrecision, ConvDirection>, double> conv_correction;

  const TableGroup* find(OpKind kind, KernelPrecision precision, KernelMode mode, const TableVariant& variant) const;
  bool has(OpKind kind, KernelPrecision precision) const;
  bool has(OpKind kind) const;  // of any precision
  // Of any precision and mode, for the variant (a conv's direction, an RNN's cell) `shape` is.
  bool has_variant_of(OpKind kind, const OpShape& shape) const;
};

// How many back-to-back kernel launches a shape is at least (an RNN layer: one per
// timestep; anything else: 1), the unit of min_time_s.
double latency_units(const OpShape&);

// The p-quantile (0..1) of values, linearly interpolated; 0 for none.
double percentile(std::vector<double> values, double p);

// Which group a shape belongs to within its kind (direction, rnn cell).
TableVariant group_variant(OpKind kind, const OpShape& shape);
// Log-shape features of a shape in its group; dims() of the kind.
Features shape_features(OpKind kind, const OpShape& shape);
std::size_t feature_dims(OpKind kind);
// The work a rate is measured in: flops, or bytes for collectives. 0 when unknown.
double table_work(OpKind kind, const OpShape& shape);

// Builds every group and its leave-one-out band. `peak_of(precision)` gives the platform's
// peak rate for a table precision (0 when unknown), for the median efficiency; `bandwidth`
// (bytes/s, 0 unknown) the memory-bound groups' achievable fraction.
PlatformTables build_tables(KernelTable table, const std::function<double(KernelPrecision)>& peak_of,
                            double bandwidth = 0);

// Elementwise, normalization and reduction: kinds whose tables (NeuSight's add/mul/relu/
// gelu, layer norm, softmax) are indexed by (rows, row length) of their largest operand and
// rated in bytes per second (op_bytes at fp32), not flops.
bool is_memory_kind(OpKind);
std::pair<double, double> rows_and_cols(const TensorShape&);
// The same as the kind's kernel walks it, for the tables' features and ranges: a norm or
// softmax along its rows, an elementwise kernel over one flat run of elements ({n, 1}).
std::pair<double, double> kernel_rows_and_cols(OpKind, const TensorShape&);
// A platform's fp32 table of a memory-bound kind (NeuSight measured fp32 only), the training
// one first; nullptr when it has none.
const TableGroup* memory_group(const PlatformTables&, OpKind);

// Whether entry i is left out with entry `exclude`: leaving an entry out leaves its whole
// shape out, or a GEMM measured with other transposes (half of DeepBench's GEMMs have such
// a twin) would answer for it. False for every i when exclude is kNone.
bool left_out(const TableGroup&, std::size_t i, std::size_t exclude);

// Predicts log(work / time) of a shape with the group's interpolator, leaving out entry
// `exclude` and its shape (leave-one-out). nullopt when too few entries remain.
std::optional<Interpolation> interpolate(const TableGroup&, const Features& query, Interpolator,
                                         std::size_t exclude = kNone);

// How far (log-distance to the nearest measured shape) a group's leave-one-out band holds:
// beyond it an interpolation extrapolates, its band widens, and a memory-bound op with its
// own measured time keeps that instead (predict.cpp).
inline constexpr double kBandReach = 1.0;
// The relative uncertainty of an interpolated value at `distance` from its nearest
// measured neighbour: the group's band, widened beyond kBandReach.
double interpolation_uncertainty(const TableGroup&, double distance);

// A 1-D conv is a 2-D conv of height 1 (DeepBench's tables are 2-D): the form tables are
// indexed and looked up in, so a conv1d measured by `fomcast bench` (stored as recorded,
// dims 1) and one a workload asks for meet at one key.
OpShape table_shape(OpShape);

// M, N, K and batch without the transposes: TableGroup::by_mnk's key.
std::string mnk_key(const GemmShape&);

}  // namespace fomcast::est
