// Kernel timing tables: measured times of single kernels on one platform (DeepBench
// results, `fomcast bench` measurements), each with its precision, mode and provenance.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/op.hpp"

namespace fomcast {

// The precision a kernel was timed at, as its source labels it: DeepBench's own labels
// (fp32, fp16_mixed: fp16 on tensor cores, fp16_io_fp32_math: 16-bit storage with 32-bit
// math, int8) and, for other sources, the name of the element type. Stored by name.
enum class KernelPrecision {
  fp64,
  fp32,
  tf32,
  fp16,
  bf16,
  fp8,
  int8,
  int32,
  int64,
  boolean,            // "bool"
  fp16_mixed,         // DeepBench: fp16 operands, tensor-core math
  fp16_io_fp32_math,  // DeepBench: fp16 storage, fp32 math
};
std::string_view to_string(KernelPrecision);
std::optional<KernelPrecision> parse_kernel_precision(std::string_view);
std::string kernel_precision_names();  // "fp64, fp32, ...": every label, for messages
// The label of a kernel timed in plain dtype (fp32 -> fp32); nullopt for DType::unknown.
std::optional<KernelPrecision> precision_of(DType);
// The element type of the operands, and the dtype whose peak rate bounds the math (fp32
// for fp16_io_fp32_math).
DType precision_dtype(KernelPrecision);
DType precision_math_dtype(KernelPrecision);

// Whether a kernel was timed as training or inference runs it (DeepBench's two modes).
enum class KernelMode { train, inference };
std::string_view to_string(KernelMode);
std::optional<KernelMode> parse_kernel_mode(std::string_view);

// Who wrote a platform's kernel-table rows; the store replaces rows one origin at a time.
enum class TableOrigin {
  shipped,   // the DeepBench results of data/deepbench/, loaded into every database
  imported,  // `fomcast import-bench`
  measured,  // `fomcast bench`
};
std::string_view to_string(TableOrigin);
std::optional<TableOrigin> parse_table_origin(std::string_view);

struct KernelEntry {
  OpKind kind = OpKind::gemm;
  OpShape shape;
  DType dtype = DType::fp32;
  KernelPrecision precision = KernelPrecision::fp32;
  KernelMode mode = KernelMode::train;
  double time_us = 0;      // median (or mean where the source gives only that)
  double spread = 0;       // relative spread of repeats; 0 when the source gives none
  std::string method;      // how it was measured: "deepbench mean of 400", "bench:blas median of 25"
  std::string provenance;  // file and row, or environment
};

struct KernelTable {
  std::string platform;
  std::vector<KernelEntry> entries;
};

}  // namespace fomcast
