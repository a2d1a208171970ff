// What a PyTorch op's recorded inputs say about the work it does: GEMM sizes from
// aten::addmm / mm / bmm / baddbmm / linear / matmul, convolution geometry from the conv
// family (forward and backward, cuDNN / MIOpen / oneDNN spellings), collective payloads,
// sparse lookups and gathers (the rows they touch), and the input tensors of memory-bound
// ops. Kineto traces
// (`Input Dims`, `Input type`, `Concrete Inputs`, `Input Strides`) and execution traces
// (`inputs{values, shapes, types}`, `attrs`) are both turned into a TorchCall first, so the
// rules live once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/ops.hpp"
#include "fomcast/model.hpp"

namespace fomcast::ingest {

using Dims = std::vector<int64_t>;

struct TorchArg {
  bool has_dims = false;
  Dims dims;               // a tensor's sizes ([] for a scalar or a non-tensor)
  std::vector<Dims> list;  // a tensor list's sizes
  bool is_list = false;
  std::string type;      // as recorded: "float", "c10::BFloat16", "Tensor(float)", "ScalarList", ...
  nlohmann::json value;  // the concrete value where recorded (ints, lists, bools), else null
  Dims strides;          // where recorded
};

// Collective metadata: Kineto record_param_comms args ("Collective name", "dtype", "In msg
// nelems", ...), execution-trace attrs (collective_name, dtype, in_msg_nelems, pg_size).
struct CommMeta {
  std::string collective, dtype;
  int64_t in_nelems = -1, out_nelems = -1, group_size = -1;
  int64_t rank = -1;  // the recording process's rank, where the call says (ET record_param_comms)
  // What this call does not say, taken from the enclosing call's.
  void fill_from(const CommMeta& parent);
};

// The same, pointing into a parsed element (while streaming).
struct CommMetaView {
  std::string_view collective, dtype;
  int64_t in_nelems = -1, out_nelems = -1, group_size = -1;
  CommMeta owned() const;
  void append_key(std::string& key) const;  // for prototype keys
};

struct TorchCall {
  std::string name;
  std::vector<TorchArg> args;
  std::vector<Dims> outputs;  // output sizes where recorded (execution traces)
  CommMeta comm;
  std::string parent;  // name of the enclosing op, when this one says too little alone
  // Its longest kernel's name, where the trace has one: the kind of an op its name does not
  // list (aten::_s_where, aten::ge launch elementwise kernels).
  std::string kernel;
};

// Builds a TorchCall from a Kineto event's raw args (JSON text; empty when absent).
TorchCall torch_call_from_kineto(std::string_view name, std::string_view input_dims, std::string_view input_types,
                                 std::string_view concrete_inputs, std::string_view input_strides);

// Convolution geometry learned from calls that show input, weight and output together
// (backward ops, execution-trace outputs), to complete calls that show only two of them.
class ConvHints {
 public:
  void learn(const TorchCall&);
  std::optional<Dims> output_for(const Dims& input, const Dims& weight) const;
  std::optional<Dims> input_for(const Dims& output, const Dims& weight) const;
  std::optional<Dims> weight_for(const Dims& input, const Dims& output) const;
  bool empty() const { return triples_.empty(); }

 private:
  std::vector<std::tuple<Dims, Dims, Dims>> triples_;  // input, weight, output
};

// Where a convolution's stride and padding came from.
enum class ConvParams : uint8_t {
  none,         // not a convolution with geometry
  recorded,     // the call's own arguments (stride, padding, or a "same" / "valid" mode)
  from_output,  // derived from the output shape: the smallest stride, then padding, that fits
  defaults,     // assumed: PyTorch's defaults, stride 1 and no padding
};
// "", "recorded", "output shape", "defaults".
std::string_view to_string(ConvParams);

struct ShapedCall {
  OpKind kind = OpKind::other;
  OpShape shape;
  DType dtype = DType::unknown;
  bool compute = false;  // a GEMM / conv family op (wrappers of these must not count twice)
  // Convolution backward: which gradients the call computes (one op per direction).
  bool conv_backward = false;
  bool grad_input = true, grad_weight = true;
  ConvParams conv_params = ConvParams::none;
  bool row_width_assumed = false;  // an FBGEMM lookup whose row width the trace does not record
};

// Kind, shape and element type of a call; kind from the name alone when the inputs say
// nothing (classify_name).
ShapedCall shape_torch_call(const TorchCall&, const ConvHints&);

// The operations one kind of call adds to a workload, each with its share of the calls'
// time (nullopt when the source has no times). A convolution backward that computes both
// gradients is two ops, backward_data and backward_filter: kernel time known per direction
// (data_s, filter_s) goes to its op and the rest is split evenly (equal FLOPs).
struct OpShare {
  Op op;
  std::optional<double> time_s;
};
std::vector<OpShare> ops_of_call(const std::string& name, const ShapedCall&, Phase, std::optional<double> time_s,
                                 double data_s = 0, double filter_s = 0);

// What the readers tell the user about convolution geometry (and the row width of FBGEMM
// lookups), counted per distinct call.
struct ConvNotes {
  int recorded = 0, from_output = 0, defaults = 0, even_split = 0, row_width_assumed = 0;
  void count(const ShapedCall&, std::optional<double> time_s = {}, double data_s = 0, double filter_s = 0);
  void add_to(std::vector<std::string>& notes) const;
};

// A GEMM / conv family op by name (cheap; used while streaming).
bool is_compute_op_name(std::string_view name);
// Ops that move no data (views, metadata, allocation): execution traces list them but
// they take no measurable device time.
bool is_free_op_name(std::string_view name);
// Element type from a trace's type string ("float", "c10::BFloat16", "Tensor(c10::Half)",
// "GenericList[Tensor(float)]", "BFloat16"); nullopt when it names no tensor type.
std::optional<DType> dtype_from_type_string(std::string_view);

}  // namespace fomcast::ingest
