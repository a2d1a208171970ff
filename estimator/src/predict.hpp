// Predicting one operation on one platform: the method chain of estimate.hpp. predict.cpp
// chooses the order; the table lookups are table_lookup.cpp's (table_lookup.hpp), the
// fallback models fallback_models.cpp's (fallback_models.hpp). Private to estimator/.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "fomcast/estimate.hpp"
#include "tables.hpp"

namespace fomcast::est {

// What the chain needs besides the op: the target, the platform the workload's times were
// measured on, and the indexed tables of any platform.
struct Context {
  const Catalog& catalog;
  const Platform& target;
  const Platform* baseline = nullptr;  // the workload's recording platform, when known
  std::function<const PlatformTables*(std::string_view)> tables;
  std::string recorded_on;  // its name, "" when the workload does not say (baseline may lack a spec)
  // The least time one measured call of device work took on the recording GPU (the fastest
  // op of the trace, per call): a kernel's fixed latency, which no peak or bandwidth moves.
  // 0 when unknown (no measured op, or not recorded on a GPU). recorded_call_floor() in rollup.
  double recorded_call_floor_s = 0;
  // The measured op times are the host's: a Python function profile (cProfile) of a run on a
  // GPU times each call's dispatch and asynchronous kernel launch, the GPU's work showing up
  // at the sync points (`.item()`). Carried by host speed, not by the GPU's peak or bandwidth.
  bool host_timed = false;
};

// A time for one call with where it came from.
struct Quote {
  double seconds = 0;
  double uncertainty = 0;
  Method method = Method::unestimated;
  std::string detail;
  std::string source;
  std::vector<std::string> notes;
  // An interpolation's log-distance to the nearest measured shape (0 for other methods):
  // beyond kBandReach the table extrapolates, and its band widens (tables.hpp).
  double nearest_log_distance = 0;
  // Of seconds, the per-call launch gap a roofline or bandwidth time was raised to on a GPU
  // (fallback_models.cpp, call_floor): host time, which what-if leaves to the host.
  double launch_gap_s = 0;
  // Of seconds, a measured kernel's fixed latency carried unscaled (OpEstimate's).
  double fixed_latency_s = 0;
  // Of seconds, a measured collective's wait for the other ranks (OpEstimate's).
  double wait_s = 0;
};

// Steps 1-3 on one platform (table, interpolated, implicit-gemm / rnn-as-gemm) for a
// compute-bound shape of element type dtype (table_lookup.cpp); nullopt when the
// platform's tables cannot time it. `exclude` leaves one entry out (leave-one-out validation).
std::optional<Quote> quote_from_tables(const PlatformTables&, const Platform&, OpKind, const OpShape&, DType,
                                       const KernelEntry* exclude = nullptr);

// One group's answer for a shape (exact entry or interpolation), and a conv or recurrent
// layer through the same precision's GEMM group: the pieces validation checks one by one.
std::optional<Quote> quote_group(const TableGroup&, OpKind, const OpShape&, const std::string& platform,
                                 const KernelEntry* exclude = nullptr);
std::optional<Quote> quote_through_gemm(const PlatformTables&, const Platform&, const OpShape&,
                                        KernelPrecision precision, KernelMode mode,
                                        const KernelEntry* exclude = nullptr);

// Tabulated platforms other than `target` that can time `kind` at `dtype`, most alike
// first (similarity.hpp's distance; a table of the kind itself beats a way through GEMMs):
// the sources fallback_models.cpp carries a time from.
struct Proxy {
  const Platform* platform = nullptr;
  const PlatformTables* tables = nullptr;
  KernelPrecision precision = KernelPrecision::fp32;
  double distance = 0;
};
std::vector<Proxy> rank_proxies(const Catalog&, const Platform& target, OpKind, DType);

// The whole chain for one op. `unestimated` only for an op with no measured time that no
// model can time (no shape, no costs): a measured time is always carried (`scaled`).
OpEstimate predict_op(const Context&, const Op&, std::size_t index);

// The platform's median conv time over implicit-GEMM time for a precision and direction
// (1 when it has no conv table there); cached in the tables.
double conv_gemm_correction(const PlatformTables&, const Platform&, KernelPrecision precision, ConvDirection);

// Assumed fraction of peak bandwidth a memory-bound kernel reaches when nothing measured
// says otherwise (docs/estimation.md gives the reasoning).
constexpr double kAssumedBandwidthEfficiency = 0.8;
constexpr double kAssumedComputeEfficiency = 0.5;

}  // namespace fomcast::est
