// Kernel-table files -> KernelEntry rows (CANDLE step 5: DeepBench results for a platform).
// DeepBench result CSVs (data/deepbench/results_*.csv, columns in its README) hold many
// platforms each; the native CSV is one row per kernel: kind, shape fields, dtype, time.
//
// A gzipped file (magic bytes 1f 8b) is inflated first.
// Readers parse and check the whole text before anything is stored: a bad row is an
// InputError naming the file, line and column, and the caller writes nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/csv.hpp"
#include "fomcast/model.hpp"

namespace fomcast {

// neusight: NeuSight's per-op kernel tables (data/neusight/README.md), one row per call,
// the platform from the Device column (see resolve_devices) unless --platform names one.
enum class BenchFormat { deepbench_gemm, deepbench_conv, deepbench_rnn, deepbench_allreduce, csv, neusight };

std::string_view to_string(BenchFormat);
std::optional<BenchFormat> parse_bench_format(std::string_view);
std::vector<std::string> bench_formats();

struct BenchImport {
  // Entries per platform, in file order; rows of one platform with the same key, precision
  // and mode (DeepBench lists a few inference shapes twice) are merged into one entry whose
  // time is their mean and whose spread is their relative range.
  std::map<std::string, std::vector<KernelEntry>> by_platform;
  // What the file says about each platform (DeepBench `device`, `device_kind`, `vendor`),
  // to describe a platform the database does not know yet.
  std::map<std::string, Platform> described;
  int64_t rows = 0;    // data rows read
  int64_t merged = 0;  // entries that merged duplicate rows
  int64_t entries() const;
};

// `platform`: for DeepBench files, keep only that platform's rows (an error when it has
// none); for the native CSV, the platform of rows without a `platform` column (an error
// when neither is given).
BenchImport read_bench_csv(std::string_view text, std::string_view file, BenchFormat format,
                           std::string_view platform = {});

// Rows of one kind, shape, precision and mode merged into one entry: the mean time, the
// relative range as spread (read_bench_csv does this within a file; seeding across
// NeuSight's files, where add and mul, relu and gelu time the same shapes).
std::vector<KernelEntry> merge_duplicates(std::vector<KernelEntry> entries, int64_t& merged);

// A neusight import keyed by the devices its rows name ("Tesla V100-PCIE-32GB"): each key
// that is not a platform's name becomes the platform whose device_names match it
// (match_device: the most specific pattern wins). A device no platform matches is an
// InputError naming the file and the device (exit 2, nothing stored).
void resolve_devices(BenchImport&, const std::vector<Platform>& known, std::string_view file);

// DeepBench's shape columns, shared by kernel-table files and microbench's shape lists
// so a measured entry and a published one of the same problem share a key. Each checks
// what it reads and fails naming the row and column.
//   GEMM: m, n, k [batch, a_t, b_t]
//   conv: w, h, c, n, k, s (filter width), r (filter height) [pad_w, pad_h, wstride,
//         hstride, dilation_w, dilation_h, groups]: a 2-d ConvShape, forward
GemmShape read_gemm_shape(const CsvTable&, std::size_t row);
ConvShape read_conv_shape(const CsvTable&, std::size_t row);

}  // namespace fomcast
