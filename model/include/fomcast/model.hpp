// fomcast's vocabulary: operations with shapes, workloads, platforms, kernel timing
// tables and studies. Plain values only; every other folder speaks in these types.
//
// Units are in the names: `_s` seconds, `_us` microseconds, `_bytes`, `_flop_per_s`.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fomcast {

// ---------------------------------------------------------------------------------------
// Element types and phases

enum class DType { fp64, fp32, tf32, fp16, bf16, fp8, int8, int32, int64, boolean, unknown };

std::string_view to_string(DType);
// Accepts our names ("fp32") and the spellings traces use ("float", "c10::Half",
// "c10::BFloat16", "double", "long int", "DT_FLOAT", ...). nullopt when unrecognised.
std::optional<DType> parse_dtype(std::string_view);
double dtype_bytes(DType);  // 4 for unknown: the common case in the traces we read

enum class Phase { forward, backward, optimizer, other };
std::string_view to_string(Phase);
std::optional<Phase> parse_phase(std::string_view);

// ---------------------------------------------------------------------------------------
// Operations and their shapes (one shape type per kind family)

enum class OpKind {
  gemm,
  batched_gemm,
  conv,
  rnn,
  elementwise,
  reduction,
  normalization,
  pooling,
  embedding,
  optimizer,
  collective,
  memcpy,
  other,
};
std::string_view to_string(OpKind);
std::optional<OpKind> parse_op_kind(std::string_view);
// gemm, batched_gemm, conv, rnn: ops a kernel table can time directly.
bool is_compute_bound(OpKind);
// elementwise, reduction, normalization, pooling, embedding, optimizer, memcpy.
bool is_memory_bound(OpKind);

// C = op(A) * op(B), A is M x K and B is K x N after op, as cuBLAS and DeepBench define it.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  bool trans_a = false, trans_b = false;
  auto operator<=>(const GemmShape&) const = default;
};

enum class ConvDirection { forward, backward_data, backward_filter };
std::string_view to_string(ConvDirection);
std::optional<ConvDirection> parse_conv_direction(std::string_view);

// NCHW-style convolution with 1, 2 or 3 spatial dimensions. Spatial arrays run
// {depth, height, width}; unused leading dimensions are 1 (conv1d uses width only).
struct ConvShape {
  int dims = 2;
  int64_t n = 0, c = 0, k = 0, groups = 1;
  std::array<int64_t, 3> input{1, 1, 1};
  std::array<int64_t, 3> filter{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> pad{0, 0, 0};
  std::array<int64_t, 3> dilation{1, 1, 1};
  ConvDirection direction = ConvDirection::forward;
  std::array<int64_t, 3> output() const;  // spatial output size
  auto operator<=>(const ConvShape&) const = default;
};

enum class RnnCell { vanilla, lstm, gru };
std::string_view to_string(RnnCell);
std::optional<RnnCell> parse_rnn_cell(std::string_view);

// One recurrent layer over a sequence, as DeepBench times it (input = hidden there).
struct RnnShape {
  RnnCell cell = RnnCell::lstm;
  int64_t hidden = 0, input = 0, batch = 0, timesteps = 0;
  // The layer's whole backward pass (data and weight gradients), which DeepBench times as
  // one number; an op of phase backward means the same.
  bool backward = false;
  auto operator<=>(const RnnShape&) const = default;
};

// Memory-bound ops: the input tensors as the trace recorded them.
struct TensorShape {
  std::vector<std::vector<int64_t>> inputs;
  int64_t elements() const;  // elements of the largest input
  auto operator<=>(const TensorShape&) const = default;
};

enum class CollectiveKind { allreduce, allgather, reduce_scatter, broadcast, reduce, alltoall, send_recv, barrier, other };
std::string_view to_string(CollectiveKind);
std::optional<CollectiveKind> parse_collective_kind(std::string_view);

struct CollectiveShape {
  CollectiveKind op = CollectiveKind::allreduce;
  int64_t bytes = 0;  // payload per rank
  int64_t ranks = 0;  // 0: unknown
  auto operator<=>(const CollectiveShape&) const = default;
};

struct EmbeddingShape {
  int64_t rows = 0, dim = 0, lookups = 0;
  auto operator<=>(const EmbeddingShape&) const = default;
};

using OpShape =
    std::variant<std::monostate, GemmShape, ConvShape, RnnShape, TensorShape, CollectiveShape, EmbeddingShape>;

// Short human form ("M=1760 N=16 K=1760", "N=8 C=64 112x112 K=128 3x3 s1 p1 fwd").
std::string describe(const OpShape&);
// Canonical key used for exact kernel-table matches and op identity.
std::string shape_key(const OpShape&);

// One distinct operation of a pass. Identity for aggregation is (kind, shape, dtype,
// phase, name); `count` is how often it runs per pass and may be fractional when a
// trace's steps differ.
struct Op {
  std::string name;
  OpKind kind = OpKind::other;
  OpShape shape;
  DType dtype = DType::fp32;
  Phase phase = Phase::forward;
  double count = 1;                   // calls per pass
  std::optional<double> self_time_s;  // measured mean exclusive time of one call
  double flops = 0;                   // per call
  double bytes = 0;                   // per call: memory traffic
};

// FLOPs of one call from the shape alone (2 per multiply-accumulate); 0 when unknown.
double op_flops(OpKind, const OpShape&);
// Minimum memory traffic of one call from the shape and element size; 0 when unknown.
double op_bytes(OpKind, const OpShape&, DType);
// Fills flops/bytes from the shape where they are still 0.
void fill_costs(Op&);

// ---------------------------------------------------------------------------------------
// Workloads

// What a model description tells us (null in `show` for traces).
struct ModelStats {
  int64_t params = 0;
  double forward_macs = 0;  // per sample
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;  // per batch, kept for the backward pass
};

struct Workload {
  std::string name;
  std::string origin;       // format that produced it: "kineto", "model", "tfprof-op", ...
  std::string source;       // file(s) it was read from
  std::string recorded_on;  // platform the measured times belong to; "" when none
  int64_t batch_size = 0;   // 0: unknown
  int64_t samples_per_epoch = 0;
  int64_t epochs = 0;
  int64_t passes = 0;            // steps found in the trace
  std::optional<double> pass_s;  // measured mean time of one pass
  int64_t events = 0;            // events read from the source
  std::optional<ModelStats> model;
  std::vector<std::string> notes;  // what the reader assumed ("no step markers: one pass")
  std::vector<Op> ops;

  double measured_op_time_s() const;  // sum of count x self time over ops with a time
};

// CANDLE step 3: the operations ranked by measured time per pass (count x self time),
// largest first; `in_top` marks the smallest leading set whose cumulative share reaches
// `coverage`. Ops without a measured time follow, ranked by FLOPs, never in the top set.
struct RankedOp {
  std::size_t index = 0;  // into Workload::ops
  double time_s = 0;      // per pass
  double share = 0;
  double cumulative_share = 0;
  bool in_top = false;
};
std::vector<RankedOp> rank_ops(const Workload&, double coverage = 0.95);

// ---------------------------------------------------------------------------------------
// Platforms: one node of a machine

struct Sourced {
  double value = 0;
  std::string source;  // citation, "measured by fomcast bench ...", or "assumed: ..."
};

struct Platform {
  std::string name;
  std::string description;
  std::string device_kind;  // gpu, cpu, mobile_cpu, ...
  std::string origin;       // shipped, measured, placeholder, user
  std::string vendor;        // NVIDIA, AMD, Intel, Fujitsu, ...: "" when unknown
  std::string architecture;  // Kepler, Volta, CDNA2, ...: tables transfer best within one
  std::map<DType, Sourced> peak_flop_per_s;
  std::optional<Sourced> mem_bw_bytes_per_s;
  std::optional<Sourced> mem_bytes;
  std::optional<Sourced> net_bw_bytes_per_s;
  std::optional<Sourced> net_latency_s;
  std::optional<Sourced> power_w;
  std::optional<Sourced> host_speed;         // relative CPU-side speed; 1 = reference host
  std::optional<Sourced> overhead_factor;    // framework overhead relative to reference
  std::optional<Sourced> launch_overhead_s;  // per-kernel launch cost
  std::string environment_json;  // sysinfo of a measured platform, as JSON text

  bool placeholder() const { return origin == "placeholder"; }
};

// Platform spec files (data/platforms/*.json) and the stored spec_json use this form.
nlohmann::json platform_to_json(const Platform&);
Platform platform_from_json(const nlohmann::json&, std::string_view file);

// ---------------------------------------------------------------------------------------
// Kernel timing tables (DeepBench results, fomcast bench measurements)

struct KernelEntry {
  OpKind kind = OpKind::gemm;
  OpShape shape;
  DType dtype = DType::fp32;
  std::string precision;  // the source's own label: fp32, fp16_mixed, fp16_io_fp32_math, int8
  std::string mode;       // train or inference
  double time_us = 0;     // median (or mean where the source gives only that)
  double spread = 0;      // relative spread of repeats; 0 when the source gives none
  std::string method;     // how it was measured: "deepbench mean of 400", "bench:blas median of 25"
  std::string provenance; // file and row, or environment
};

struct KernelTable {
  std::string platform;
  std::vector<KernelEntry> entries;
};

// The DeepBench precision labels: fp32, fp16_mixed (tensor cores), fp16_io_fp32_math
// (16-bit storage, 32-bit math), int8. The element type of the operands, and the dtype
// whose peak rate bounds the math (fp32 for fp16_io_fp32_math).
DType precision_dtype(std::string_view precision);
DType precision_math_dtype(std::string_view precision);

// ---------------------------------------------------------------------------------------
// Studies (the FOM input)

struct StudySide {
  std::string platform;
  double nodes = 0;
};

// A problem gives measured hours per unit of work on either side, or a workload whose
// time per unit (one training run) is estimated on that side's platform.
struct StudyProblem {
  std::string name;
  std::optional<std::string> workload;
  std::optional<double> baseline_hours;
  std::optional<double> target_hours;
  std::optional<int64_t> epochs;
  std::optional<int64_t> batch_size, samples_per_epoch;  // the epoch's size, where the workload lacks it
  std::optional<double> baseline_epoch_s;
  std::optional<double> baseline_pass_s;
  double nodes_per_unit = 1;  // nodes one unit of work occupies (ensembles run in parallel)
  std::string baseline_source;  // where the measured baseline time comes from (calibration)
  std::string note;             // free text: why a problem is (not) calibrated, configuration
};

struct Study {
  std::string name;
  std::string file;
  std::string description;
  StudySide baseline;
  StudySide target;
  std::vector<StudyProblem> problems;
};

// Throws InputError naming the file and the field at fault.
Study parse_study(std::string_view text, std::string_view file);
nlohmann::json study_to_json(const Study&);

// ---------------------------------------------------------------------------------------
// JSON forms (the store and `--json` output use the same ones)

nlohmann::json shape_to_json(const OpShape&);  // {"type": "gemm", "m": ..} or null
OpShape shape_from_json(const nlohmann::json&);  // throws std::invalid_argument on bad form
nlohmann::json op_to_json(const Op&);
Op op_from_json(const nlohmann::json&);
nlohmann::json model_stats_to_json(const ModelStats&);
ModelStats model_stats_from_json(const nlohmann::json&);

// ---------------------------------------------------------------------------------------
// Long work reports progress through this; the CLI draws it on a terminal only.
// done and total in whatever unit the work counts (bytes, kernels); total 0 = unknown.
using ProgressFn = std::function<void(double done, double total, std::string_view what)>;

}  // namespace fomcast
