// The row readers behind read_bench_csv: one per file family, each turning a checked CSV
// table into (platform, entry) pairs. Private to tables/.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fomcast/bench_import.hpp"
#include "fomcast/csv.hpp"

namespace fomcast::detail {

struct BenchRow {
  std::string platform;
  KernelEntry entry;
};

struct BenchRows {
  std::vector<BenchRow> rows;
  std::map<std::string, Platform> described;
};

BenchRows read_deepbench_rows(const CsvTable&, BenchFormat);

// The RNN cell column both file families share (`cell`); the GEMM and conv columns are
// public (bench_import.hpp).
RnnCell read_rnn_cell(const CsvTable&, std::size_t row);
BenchRows read_native_rows(const CsvTable&, std::string_view default_platform);
// NeuSight's per-op files (bench_neusight.cpp); `platform` overrides the Device column.
BenchRows read_neusight_rows(const CsvTable&, std::string_view platform);

// Fails the row (naming `column`, its time) when its entry is beyond any device: a kernel
// under a nanosecond or over 1e10 us, or work done faster than 1e18 FLOP/s (or bytes per
// second). A time of 1e308 us, or a 1e9-cubed GEMM in 100 us, was taken as measured.
void check_plausible(const CsvTable&, std::size_t row, std::string_view column, const KernelEntry&);

}  // namespace fomcast::detail
