// TensorFlow tfprof text, the parts both tfprof readers share: the input-shapes rows
// ("0:100x1000, 1:1000x500 (run*1 defined*1) exec_time: 1.21ms", also printed under an
// op row as "input_type: 0:100x1000,\t1:1000x500\t(run*1|defined*1)\texec_time: 1.21ms")
// and the GEMM each row describes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/ops.hpp"
#include "fomcast/model.hpp"

namespace fomcast::ingest::tfprof {

struct ShapeRow {
  std::vector<std::vector<int64_t>> operands;  // by input index; -1 = batch; empty = "unknown"
  int64_t run = 0;                             // calls in the profiled pass
  int64_t defined = 0;                         // graph nodes with these shapes
  double exec_s = 0;                           // all `run` calls together
  int64_t line = 0;
};

// Whether a line is a shape row (cheap; used by detection too).
bool is_shape_row(std::string_view line);
// Throws InputError naming the file and line when a shape row is malformed.
ShapeRow parse_shape_row(std::string_view line, int64_t line_number, const std::string& file);

struct BatchChoice {
  int64_t batch = 0;  // 0: no row has a -1 dimension
  std::string note;   // how it was chosen, for Workload::notes
};
// The size a -1 dimension stands for: `option` (--batch) when given, else the most common
// leading dimension of the rows' first operands (activations and their gradients lead
// with the batch). Throws when a row needs it and nothing tells it.
BatchChoice choose_batch(const std::vector<ShapeRow>&, int64_t option, const std::string& file);

struct Gemm {
  OpKind kind = OpKind::gemm;
  GemmShape shape;
  Phase phase = Phase::forward;
};
// C = op(A) op(B) from the operand shapes, trying no transpose, B transposed, A transposed,
// both: the first whose inner dimensions agree. A plain product is a forward GEMM; one with
// a transposed operand is a gradient (backward) GEMM. Rank 3 with equal leading sizes is a
// batched GEMM. nullopt when no orientation fits.
std::optional<Gemm> gemm_from_operands(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

// Adds one op per row that ran (`run` > 0): a shaped GEMM named `name`, `run` calls per pass,
// exec_time / run per call. Rows whose shapes are unknown or fit no GEMM keep their time
// without a shape. Returns how many rows were left out because they did not run.
int add_shape_rows(const std::vector<ShapeRow>&, int64_t batch, const std::string& name, OpAggregator&,
                   std::vector<std::string>& notes, const std::string& file);

}  // namespace fomcast::ingest::tfprof
