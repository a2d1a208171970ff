// Pieces every reader shares: telling an op's kind and phase from its name when the trace
// gives no shape, and folding individual events into distinct operations per pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fomcast/model.hpp"

namespace fomcast::ingest {

// The most elements one tensor of a trace may hold (2^50, a petabyte of bytes): past it a
// shape is a corrupt or overflowed record, whatever format gave it. Unknown (-1) sizes
// count as 1.
inline constexpr double kMaxTensorElements = 1125899906842624.0;
double tensor_elements(const std::vector<int64_t>& dims);

// Kind from a kernel or op name alone (cuBLAS/CUTLASS/rocBLAS/cuDNN/MIOpen/Triton kernels,
// aten ops, TF op types, neon kernels). `other` when nothing matches.
OpKind classify_name(std::string_view name);
// backward for autograd and gradient ops, optimizer for optimizer steps, else forward.
Phase phase_from_name(std::string_view name);

// Which collective a communication call or kernel is ("MPI_Allreduce()", "ncclAllGather").
CollectiveKind collective_kind_from_name(std::string_view name);
// Whether a timer, range or function marks one training step ("ProfilerStep#5",
// "train_step", "Iteration 3", "step"), so its calls count passes.
bool is_step_name(std::string_view name);

// "void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)" ->
// "at::native::vectorized_elementwise_kernel": kernel names without their template and
// argument lists, which make every instantiation look different, but with the whole
// qualified name ("at::native::(anonymous namespace)::max_pool_backward_nchw<...>(...)" ->
// "at::native::max_pool_backward_nchw").
std::string short_kernel_name(std::string_view name);
// The phase a GPU kernel runs in by its (full) name: backward for the gradient kernels of
// convolutions (dgrad, wgrad, MIOpen bwd / wrw) and names saying backward, else as
// phase_from_name.
Phase phase_from_kernel_name(std::string_view name);

// Which half of a convolution's backward pass a GPU kernel computes, by its name.
enum class KernelDirection : uint8_t {
  unknown,          // the name does not say (forward and non-conv kernels among them)
  backward_data,    // the data gradient: dgrad, bprop_data, backward_data/_input, MIOpen bwd
  backward_filter,  // the filter gradient: wgrad, bprop_filter, backward_filter/_weight, MIOpen wrw
};
KernelDirection kernel_direction(std::string_view name);

// The element type a GPU GEMM / convolution kernel computes in, by its name where the
// library spells it (cuBLAS/CUTLASS "bf16", "h1688", "sgemm"; rocBLAS/Tensile "_BBS_",
// "_HHS_", "_SB_"); DType::unknown otherwise.
DType dtype_from_kernel_name(std::string_view name);

// An operation's identity for aggregation: kind, shape, dtype, phase and name.
std::string op_identity(const Op&);

// `calls` (Workload::calls over the ops `from`) carried onto another list of the same pass's
// ops, `to`: by op identity, else by the identity without a GEMM's transposes, else by
// kind, phase and name where `to` has one op of them. A call found in none of these ways
// is left out (counted in `left_out`) and the calls that waited for it wait for what it
// waited for instead.
std::vector<OpCall> calls_onto(const std::vector<OpCall>& calls, const std::vector<Op>& from, const std::vector<Op>& to,
                               std::size_t& left_out);

// An op list's indices by op identity: where a recorded call's ops are found.
using OpsByIdentity = std::unordered_map<std::string, std::size_t>;
OpsByIdentity ops_by_identity(const std::vector<Op>&);

// One recorded call that became the ops named by `identities` (in order), appended to
// `calls`: the first waits for `after`, each next one for the one before (a call's ops run
// one after another). Identities with no op in `ops` are skipped. The index of the last call
// appended; nullopt when none was.
std::optional<std::size_t> append_call_ops(const std::vector<std::string>& identities, const OpsByIdentity& ops,
                                           const std::vector<std::size_t>& after, std::vector<OpCall>& calls);

// How many dependencies a pass's calls have between them (Workload::calls' edges).
std::size_t dependency_count(const std::vector<OpCall>&);

// Folds events into distinct operations by identity (kind, shape, dtype, phase, name).
class OpAggregator {
 public:
  // `calls` calls of `op` (its count and self time are ignored) taking total_time_s in all;
  // nullopt when the source has no time for them.
  void add(const Op& op, double calls, std::optional<double> total_time_s);
  // Operations per pass: counts divided by passes, self_time_s the mean per call.
  std::vector<Op> finish(double passes) const;
  std::size_t size() const { return slots_.size(); }

 private:
  struct Slot {
    Op op;
    double calls = 0;
    double time_s = 0;
    bool timed = false;
  };
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<Slot> slots_;
};

}  // namespace fomcast::ingest
