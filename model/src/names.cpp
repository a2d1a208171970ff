// Names of the enums as they appear in JSON, the store and the command line, and the
// spellings of element types that real traces use.
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

#include "fomcast/model.hpp"
#include "fomcast/text.hpp"

namespace fomcast {
namespace {

template <class E, std::size_t N>
std::string_view name_of(const std::pair<E, const char*> (&table)[N], E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> parse_name(const std::pair<E, const char*> (&table)[N], std::string_view text) {
  for (const auto& [e, name] : table)
    if (text == name) return e;
  return std::nullopt;
}

constexpr std::pair<DType, const char*> kDTypes[] = {
    {DType::fp64, "fp64"},   {DType::fp32, "fp32"},    {DType::tf32, "tf32"},       {DType::fp16, "fp16"},
    {DType::bf16, "bf16"},   {DType::fp8, "fp8"},      {DType::int8, "int8"},       {DType::int32, "int32"},
    {DType::int64, "int64"}, {DType::boolean, "bool"}, {DType::unknown, "unknown"},
};

// Spellings seen in PyTorch (`Input type`), TensorFlow (`DT_*`), DeepBench precisions and
// numpy. Compared after lower-casing.
constexpr std::pair<DType, const char*> kDTypeAliases[] = {
    {DType::fp64, "double"},
    {DType::fp64, "float64"},
    {DType::fp64, "dt_double"},
    {DType::fp32, "float"},
    {DType::fp32, "float32"},
    {DType::fp32, "dt_float"},
    {DType::fp32, "single"},
    {DType::fp16, "c10::half"},
    {DType::fp16, "half"},
    {DType::fp16, "float16"},
    {DType::fp16, "dt_half"},
    {DType::fp16, "fp16_mixed"},
    {DType::fp16, "fp16_io_fp32_math"},
    {DType::bf16, "c10::bfloat16"},
    {DType::bf16, "bfloat16"},
    {DType::bf16, "dt_bfloat16"},
    {DType::fp8, "c10::float8_e4m3fn"},
    {DType::fp8, "c10::float8_e5m2"},
    {DType::int8, "signed char"},
    {DType::int8, "unsigned char"},
    {DType::int8, "uint8"},
    {DType::int8, "dt_int8"},
    {DType::int32, "int"},
    {DType::int32, "dt_int32"},
    {DType::int64, "long int"},
    {DType::int64, "long"},
    {DType::int64, "dt_int64"},
    {DType::boolean, "boolean"},
};

constexpr std::pair<Phase, const char*> kPhases[] = {
    {Phase::forward, "forward"},
    {Phase::backward, "backward"},
    {Phase::optimizer, "optimizer"},
    {Phase::other, "other"},
};

constexpr std::pair<OpKind, const char*> kKinds[] = {
    {OpKind::gemm, "gemm"},
    {OpKind::batched_gemm, "batched_gemm"},
    {OpKind::conv, "conv"},
    {OpKind::rnn, "rnn"},
    {OpKind::elementwise, "elementwise"},
    {OpKind::reduction, "reduction"},
    {OpKind::normalization, "normalization"},
    {OpKind::pooling, "pooling"},
    {OpKind::embedding, "embedding"},
    {OpKind::optimizer, "optimizer"},
    {OpKind::collective, "collective"},
    {OpKind::memcpy, "memcpy"},
    {OpKind::other, "other"},
};

constexpr std::pair<Implementation, const char*> kImplementations[] = {
    {Implementation::unknown, "unknown"},         {Implementation::onednn, "onednn"},
    {Implementation::im2col_blas, "im2col+blas"}, {Implementation::cudnn, "cudnn"},
    {Implementation::miopen, "miopen"},
};

constexpr std::pair<ConvDirection, const char*> kDirections[] = {
    {ConvDirection::forward, "forward"},
    {ConvDirection::backward_data, "backward_data"},
    {ConvDirection::backward_filter, "backward_filter"},
};

constexpr std::pair<RnnCell, const char*> kCells[] = {
    {RnnCell::vanilla, "vanilla"},
    {RnnCell::lstm, "lstm"},
    {RnnCell::gru, "gru"},
};

constexpr std::pair<CollectiveKind, const char*> kCollectives[] = {
    {CollectiveKind::allreduce, "allreduce"},
    {CollectiveKind::allgather, "allgather"},
    {CollectiveKind::reduce_scatter, "reduce_scatter"},
    {CollectiveKind::broadcast, "broadcast"},
    {CollectiveKind::reduce, "reduce"},
    {CollectiveKind::alltoall, "alltoall"},
    {CollectiveKind::send_recv, "send_recv"},
    {CollectiveKind::barrier, "barrier"},
    {CollectiveKind::other, "other"},
};

constexpr std::pair<PlatformOrigin, const char*> kPlatformOrigins[] = {
    {PlatformOrigin::user, "user"},
    {PlatformOrigin::shipped, "shipped"},
    {PlatformOrigin::measured, "measured"},
    {PlatformOrigin::placeholder, "placeholder"},
};

constexpr std::pair<KernelPrecision, const char*> kPrecisions[] = {
    {KernelPrecision::fp64, "fp64"},
    {KernelPrecision::fp32, "fp32"},
    {KernelPrecision::tf32, "tf32"},
    {KernelPrecision::fp16, "fp16"},
    {KernelPrecision::bf16, "bf16"},
    {KernelPrecision::fp8, "fp8"},
    {KernelPrecision::int8, "int8"},
    {KernelPrecision::int32, "int32"},
    {KernelPrecision::int64, "int64"},
    {KernelPrecision::boolean, "bool"},
    {KernelPrecision::fp16_mixed, "fp16_mixed"},
    {KernelPrecision::fp16_io_fp32_math, "fp16_io_fp32_math"},
};

// The element type of each precision's operands.
constexpr std::pair<KernelPrecision, DType> kPrecisionDTypes[] = {
    {KernelPrecision::fp64, DType::fp64},       {KernelPrecision::fp32, DType::fp32},
    {KernelPrecision::tf32, DType::tf32},       {KernelPrecision::fp16, DType::fp16},
    {KernelPrecision::bf16, DType::bf16},       {KernelPrecision::fp8, DType::fp8},
    {KernelPrecision::int8, DType::int8},       {KernelPrecision::int32, DType::int32},
    {KernelPrecision::int64, DType::int64},     {KernelPrecision::boolean, DType::boolean},
    {KernelPrecision::fp16_mixed, DType::fp16}, {KernelPrecision::fp16_io_fp32_math, DType::fp16},
};

constexpr std::pair<KernelMode, const char*> kModes[] = {
    {KernelMode::train, "train"},
    {KernelMode::inference, "inference"},
};

constexpr std::pair<TableOrigin, const char*> kTableOrigins[] = {
    {TableOrigin::shipped, "shipped"},
    {TableOrigin::imported, "imported"},
    {TableOrigin::measured, "measured"},
};

}  // namespace

std::string_view to_string(DType d) { return name_of(kDTypes, d); }
std::optional<DType> parse_dtype(std::string_view text) {
  const std::string l = lowercase(text);
  if (auto d = parse_name(kDTypes, std::string_view(l))) return d;
  return parse_name(kDTypeAliases, std::string_view(l));
}

double dtype_bytes(DType d) {
  switch (d) {
    case DType::fp64:
    case DType::int64: return 8;
    case DType::fp32:
    case DType::tf32:
    case DType::int32:
    case DType::unknown: return 4;
    case DType::fp16:
    case DType::bf16: return 2;
    case DType::fp8:
    case DType::int8:
    case DType::boolean: return 1;
  }
  return 4;
}

std::string_view to_string(Phase p) { return name_of(kPhases, p); }
std::optional<Phase> parse_phase(std::string_view t) { return parse_name(kPhases, t); }

std::string_view to_string(OpKind k) { return name_of(kKinds, k); }
std::string_view to_string(Implementation i) { return name_of(kImplementations, i); }
std::optional<Implementation> parse_implementation(std::string_view t) { return parse_name(kImplementations, t); }

// PyTorch's op names for the convolution back ends (aten/src/ATen/native/native_functions.yaml):
// mkldnn_convolution[_backward...] is oneDNN; _slow_conv2d_*, thnn_conv2d*, slow_conv3d*,
// slow_conv_dilated* and slow_conv_transpose* unfold (im2col) and call the BLAS GEMM;
// cudnn_* and miopen_* are the GPU libraries'.
Implementation implementation_from_name(std::string_view n) {
  if (n.starts_with("aten::")) n.remove_prefix(6);
  if (n.starts_with("mkldnn_convolution") || n.starts_with("mkldnn_conv")) return Implementation::onednn;
  if (n.starts_with("_slow_conv") || n.starts_with("slow_conv") || n.starts_with("thnn_conv"))
    return Implementation::im2col_blas;
  if (n.starts_with("cudnn_")) return Implementation::cudnn;
  if (n.starts_with("miopen_")) return Implementation::miopen;
  return Implementation::unknown;
}
std::optional<OpKind> parse_op_kind(std::string_view t) { return parse_name(kKinds, t); }

bool is_compute_bound(OpKind k) {
  return k == OpKind::gemm || k == OpKind::batched_gemm || k == OpKind::conv || k == OpKind::rnn;
}

bool is_memory_bound(OpKind k) {
  switch (k) {
    case OpKind::elementwise:
    case OpKind::reduction:
    case OpKind::normalization:
    case OpKind::pooling:
    case OpKind::embedding:
    case OpKind::optimizer:
    case OpKind::memcpy: return true;
    default: return false;
  }
}

std::string_view to_string(ConvDirection d) { return name_of(kDirections, d); }
std::optional<ConvDirection> parse_conv_direction(std::string_view t) { return parse_name(kDirections, t); }

std::string_view to_string(RnnCell c) { return name_of(kCells, c); }
std::optional<RnnCell> parse_rnn_cell(std::string_view t) { return parse_name(kCells, t); }

std::string_view to_string(CollectiveKind c) { return name_of(kCollectives, c); }
std::optional<CollectiveKind> parse_collective_kind(std::string_view t) { return parse_name(kCollectives, t); }

std::string_view to_string(PlatformOrigin o) { return name_of(kPlatformOrigins, o); }
std::optional<PlatformOrigin> parse_platform_origin(std::string_view t) { return parse_name(kPlatformOrigins, t); }

std::string_view to_string(KernelPrecision p) { return name_of(kPrecisions, p); }
std::optional<KernelPrecision> parse_kernel_precision(std::string_view t) { return parse_name(kPrecisions, t); }

std::string kernel_precision_names() {
  std::string names;
  for (const auto& [p, name] : kPrecisions) names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

std::optional<KernelPrecision> precision_of(DType d) {
  for (const auto& [p, dtype] : kPrecisionDTypes)
    if (dtype == d && p != KernelPrecision::fp16_mixed && p != KernelPrecision::fp16_io_fp32_math) return p;
  return std::nullopt;
}

DType precision_dtype(KernelPrecision p) {
  for (const auto& [precision, dtype] : kPrecisionDTypes)
    if (precision == p) return dtype;
  return DType::unknown;
}

DType precision_math_dtype(KernelPrecision p) {
  if (p == KernelPrecision::fp16_io_fp32_math) return DType::fp32;
  return precision_dtype(p);
}

std::string_view to_string(KernelMode m) { return name_of(kModes, m); }
std::optional<KernelMode> parse_kernel_mode(std::string_view t) { return parse_name(kModes, t); }

std::string_view to_string(TableOrigin o) { return name_of(kTableOrigins, o); }
std::optional<TableOrigin> parse_table_origin(std::string_view t) { return parse_name(kTableOrigins, t); }

}  // namespace fomcast
