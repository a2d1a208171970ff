// Comparing platforms: the peak rate a platform offers an element type, the roofline ratio
// that carries a time from one platform to another, and how alike two platforms are (the
// choice of whose kernel table to borrow). Private to estimator/.
#pragma once

#include <optional>
#include <string>

#include "fomcast/model.hpp"

namespace fomcast::est {

struct Peak {
  double flop_per_s = 0;         // 0: unknown
  DType dtype = DType::unknown;  // the rate actually used (bf16 may borrow fp16's, ...)
};
// The platform's peak for dtype, borrowing a stated equivalent where the spec has none
// (bf16 <-> fp16 tensor rates, tf32 -> fp32, fp8 and int8 -> the 16-bit rate, unknown ->
// fp32, then fp32 for any narrower type). Never borrows a faster rate for a wider type: fp64 without an fp64 figure is
// unknown.
Peak peak_for(const Platform&, DType);
double bandwidth_of(const Platform&);  // bytes/s, 0 when unknown

// Time on `to` over time on `from` for an op doing `flops` and moving `bytes`:
// max(F / peak_to, B / bw_to) / max(F / peak_from, B / bw_from). With neither flops nor
// bytes known, compute-bound kinds use the peak ratio and memory-bound ones the bandwidth
// ratio. nullopt when a needed figure is missing.
std::optional<double> roofline_ratio(OpKind, double flops, double bytes, const Platform& from, DType from_dtype,
                                     const Platform& to, DType to_dtype);

enum class Kinship { same_architecture, same_vendor, other };
Kinship kinship(const Platform&, const Platform&);
std::string_view to_string(Kinship);
// Relative uncertainty added when a time is carried between platforms of this kinship:
// near the 68th percentiles of the leave-one-platform-out errors in docs/accuracy.md
// (same architecture 0.10-0.27, same vendor 0.20-0.36, other vendor 0.53).
double kinship_band(Kinship);

// How far apart two platforms are for carrying a time of `dtype` from `from` (whose
// table runs at `from_dtype`): |log peak ratio| + |log bandwidth ratio| + 0.5 for another
// architecture + 1 for another vendor + 1 for another kind of device. Infinity when a
// needed figure is missing.
double platform_distance(const Platform& from, DType from_dtype, const Platform& to, DType to_dtype);

}  // namespace fomcast::est
