// What if: a workload on a hypothetical platform, P with a resource scaled (peak compute,
// memory bandwidth, interconnect bandwidth, overhead, host speed) or one class of
// operations made faster. Works on the pass as estimated (and calibrated) on P, so it
// needs no shapes: a cProfile or tfprof op view with only times per function answers
// "what if GEMM were 4x faster?" by Amdahl's law over its measured times.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/estimate.hpp"

namespace fomcast {

// Every factor is how many times better the resource or class gets: peak_flops=2 doubles
// the peak rates, mem_bw=2 the memory bandwidth, net_bw=2 the interconnect bandwidth,
// host=2 the host speed, overhead=2 halves the framework overhead, kind:gemm=4 makes
// every op of kind gemm 4x faster. Kinds are model's OpKind names and match exactly
// (kind:gemm leaves batched_gemm alone). Factors multiply where several apply to one op.
struct ScaleSpec {
  double peak_flops = 1, mem_bw = 1, net_bw = 1, overhead = 1, host = 1;
  double host_link = 1;  // host <-> device copies, which run over it, not at memory bandwidth
  std::map<OpKind, double> kinds;
  std::string text;  // as given
};
// "kind:gemm=4,mem_bw=2". Throws UsageError naming `flag` for an empty list or item, an
// unknown key, an unknown kind, "gemm=4" without "kind:", a factor that is not a positive
// finite number, and a key given twice.
ScaleSpec parse_scale(std::string_view text, std::string_view flag = "--scale");

// Per pass, one class of operations (or the residual line) before and after.
struct ClassTime {
  std::string name;  // an OpKind name, or "residual"
  double reference_s = 0;
  double scaled_s = 0;
  int64_t ops = 0;
};

struct WhatIf {
  std::string workload, platform;
  ScaleSpec scale;
  PassEstimate reference;  // the workload on P as it is (calibrated where it can be)
  double pass_s = 0, modelled_s = 0, residual_s = 0;
  double speedup = 0;  // reference pass / hypothetical pass
  // How sure, relative, about one standard deviation. The change (reference minus what-if)
  // is modelled op by op, so it carries the bands of the ops it moved (errors of one method
  // correlated, of different methods independent, as in estimate); the what-if pass carries
  // that and the reference's own band at its new size. The speedup's band is the change's
  // alone: an error common to both passes cancels in their ratio.
  double uncertainty = 0;          // of pass_s
  double speedup_uncertainty = 0;  // of speedup
  double touched_share = 0;        // share of the reference pass that the scaling touches
  double amdahl_limit = 0;         // the speedup if everything the scaling touches took no time
  std::vector<ClassTime> classes;  // by kind, largest reference time first; then residual
  std::vector<std::string> notes;
};

// Throws InputError (field "platform") for an unknown platform, as estimate_pass does.
// In a precision mode (fomcast/precision.hpp) the reference is the workload in that mode, and
// the scaling applies to its re-typed ops (peak_flops scales the peak of their new precision).
WhatIf what_if(const Workload&, std::string_view platform, const Catalog&, const ScaleSpec&,
               const std::vector<MeasuredPass>& measured = {}, PrecisionMode precision = PrecisionMode::recorded);

}  // namespace fomcast
