// Operations and their shapes: element types, phases, the kinds of operation, one shape
// type per kind family, an operation of a pass, and the FLOP and byte cost formulas.
//
// Units are in the names: `_s` seconds, `_us` microseconds, `_bytes`, `_flop_per_s`.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

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

enum class CollectiveKind {
  allreduce,
  allgather,
  reduce_scatter,
  broadcast,
  reduce,
  alltoall,
  send_recv,
  barrier,
  other
};
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

// Which implementation ran the op, as the trace names it (docs/ingest.md, "Implementations"):
// it decides what a benchmark must time and which what-ifs move it. A oneDNN convolution
// is not a BLAS one: a faster BLAS does not move it.
enum class Implementation {
  unknown,      // the trace does not say
  onednn,       // oneDNN (aten::mkldnn_convolution*)
  im2col_blas,  // im2col / col2im + the BLAS GEMM (aten::_slow_conv2d_*, aten::thnn_conv2d*, slow_conv*)
  cudnn,        // cuDNN (aten::cudnn_convolution*)
  miopen,       // MIOpen (aten::miopen_*)
};
std::string_view to_string(Implementation);  // "unknown", "onednn", "im2col+blas", "cudnn", "miopen"
std::optional<Implementation> parse_implementation(std::string_view);
// The implementation an op's name says ran it; unknown when the name does not say.
Implementation implementation_from_name(std::string_view op_name);

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
  Implementation implementation = Implementation::unknown;
};

// FLOPs of one call from the shape alone (2 per multiply-accumulate); 0 when unknown.
double op_flops(OpKind, const OpShape&);
// The element counts of a convolution's three tensors over all its spatial dimensions: the
// input x (or its gradient), the filter (or its gradient) and the output y (or its gradient).
struct ConvElements {
  double x = 0, filter = 0, y = 0;
};
ConvElements conv_elements(const ConvShape&);
// Minimum memory traffic of one call from the shape and element size; 0 when unknown.
double op_bytes(OpKind, const OpShape&, DType);
// Fills flops/bytes from the shape where they are still 0.
void fill_costs(Op&);

// ---------------------------------------------------------------------------------------
// Copies: which way a memcpy op goes decides what it runs at (host <-> device copies over
// the host link, device copies at memory bandwidth). Read from the op's name, the one
// place every profiler says it: Kineto's "Memcpy HtoD (Pageable -> Device)", nsys's
// "Memcpy DtoH", TensorFlow's "MemcpyHtoD", ROCm's "CopyDeviceToHost", XLA's "H2D".

enum class CopyDirection {
  unknown,           // a copy whose name does not say (aten::copy_, "Memcpy")
  host_to_device,    // HtoD
  device_to_host,    // DtoH
  device_to_device,  // DtoD
  host_to_host,      // HtoH
  peer_to_peer,      // PtoP: one device to another
};
std::string_view to_string(CopyDirection);

struct CopyRoute {
  CopyDirection direction = CopyDirection::unknown;
  bool pageable = false;  // from or to pageable host memory: staged through a pinned buffer
  bool memset = false;    // a fill, not a copy: written once, read never
};
CopyRoute copy_route(std::string_view op_name);

}  // namespace fomcast
