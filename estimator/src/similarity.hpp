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
// Whether a tf32 op on the platform computes as fp32: its spec states no TF32 rate (a V100's
// borrows fp32's) or one no faster than fp32's (an RTX 3090's, where cuDNN, allowed TF32,
// keeps its fp32 kernels). Such an op keeps fp32's Winograd bound (op_roofline) and pays no
// tensor-core layout transforms (layout_transform.hpp).
bool tf32_runs_as_fp32(const Platform&);
double bandwidth_of(const Platform&);  // bytes/s, 0 when unknown

// Time on `to` over time on `from` for an op doing `flops` and moving `bytes`:
// max(F / peak_to, B / bw_to) / max(F / peak_from, B / bw_from). With neither flops nor
// bytes known, compute-bound kinds use the peak ratio and memory-bound ones the bandwidth
// ratio. nullopt when a needed figure is missing.
std::optional<double> roofline_ratio(OpKind, double flops, double bytes, const Platform& from, DType from_dtype,
                                     const Platform& to, DType to_dtype);

// The least time an op can take on a platform (issue 13, section 4): its flops at the peak
// of the precision its math runs in (`math`: the op's dtype, tf32 for tf32 math on fp32
// storage) and its bytes at the memory bandwidth, at full efficiency. A 3x3, stride-1,
// ungrouped conv in fp32 or fp64 math may run as Winograd F(4x4, 3x3), which does a
// quarter of the direct multiplies (cuDNN's fp32 Winograd kernels reach 2.25x the direct
// rate in NeuSight's tables): its flops are counted at kWinogradReduction less. 0 when
// the platform has neither figure.
struct Roofline {
  double seconds = 0;
  double compute_s = 0, memory_s = 0;
  double peak = 0, bandwidth = 0;  // the figures used
  DType peak_dtype = DType::unknown;
  bool winograd = false;
};
constexpr double kWinogradReduction = 4.0;
Roofline op_roofline(const Platform&, OpKind, const OpShape&, DType math, double flops, double bytes);

// Wave quantization (issue 13, section 5): a GEMM or conv runs as output tiles (batch x
// tiles for a batched GEMM, the implicit GEMM's output for a conv) spread over the compute
// units; the last wave runs part-empty. cuBLAS and cuDNN pick smaller tiles for small
// problems, so the tile edge is the largest of 128, 64, 32 whose tiles cover every unit
// (else 32). The factor is ceil(waves) / waves (>= 1; compute_units / tiles when fewer
// tiles than units): how much longer than a perfectly balanced run. 1 without
// compute_units or tiles. (With a fixed 128 x 128 tile the leave-platform-out GEMM errors
// were 5-10 points worse: docs/accuracy.md.)
//
// Batched GEMMs only (wave_quantized), as measured on NeuSight's leave-platform-out
// (docs/accuracy.md section 5). cuDNN's fp32 convs run as Winograd, FFT or implicit-GEMM
// kernels whose tiling is not this one: every held-out GPU's conv row was worse with it
// (A100 19.4% -> 18.0% without, T4 18.7 -> 17.1, P100 16.6 -> 9.3, P4 14.7 -> 13.8, V100
// 14.2 -> 10.6). Plain GEMMs (linear) were better without it on three of five (A100 11.0 ->
// 8.3, T4 17.1 -> 16.9, P4 35.8 -> 33.0; P100 20.5 -> 21.9 and V100 20.6 -> 21.5 worse), and
// so was every row of a nearest-source peak-ratio check in Python, with the adaptive tile or
// the real one parsed from the tables' kernel names. Batched GEMMs were better with it on
// four of five (A100 24.0 -> 27.7 without), so they keep it.
constexpr int64_t kTileEdges[] = {128, 64, 32};
bool wave_quantized(OpKind);
double output_tiles(OpKind, const OpShape&, int64_t edge);
double wave_factor(const Platform&, OpKind, const OpShape&);

// Time on `to` over time on `from` by efficiency transfer: each side's bound is
// max(flops / peak x wave_factor, bytes / achievable bandwidth), where the achievable
// bandwidth is the peak x `bw_fraction_*` (the architecture's measured memory-bound
// fraction, 1 when unknown). The op keeps the fraction of its bound it reached on `from`.
// nullopt when a needed figure is missing.
std::optional<double> transfer_ratio(OpKind, const OpShape&, double flops, double bytes, const Platform& from,
                                     DType from_math, double bw_fraction_from, const Platform& to, DType to_math,
                                     double bw_fraction_to);

// The same ratio for an op measured at `measured_s` on `from` (beyond its fixed latency),
// which says how busy each resource was: e_c, its compute bound's share of the time, and e_m,
// the time its bytes need at the achievable bandwidth's share (each at most 1). Between chips
// of one architecture, the part the busier resource explains scales by that resource's ratio,
// no less than the other's part by its own (they overlap in one kernel), and the unexplained
// rest (latency, issue, a kernel far from both bounds) by the compute ratio for GEMMs and
// convs, by compute units x clock for a memory-bound kind. The bandwidth ratio scales only
// what bandwidth explains: an H200's tf32 conv that moved 15% of what its memory can had come
// out 1.43x slower on an H100 (same SMs and clocks). Across architectures: transfer_ratio.
std::optional<double> measured_transfer_ratio(OpKind, const OpShape&, double flops, double bytes, double measured_s,
                                              const Platform& from, DType from_math, double bw_fraction_from,
                                              const Platform& to, DType to_math, double bw_fraction_to);

enum class Kinship { same_architecture, same_vendor, other };
Kinship kinship(const Platform&, const Platform&);
std::string_view to_string(Kinship);
// The same chip in another card: the same architecture and compute-unit count (A100 PCIe 40
// and 80 GB, V100 PCIe and SXM2).
bool same_chip(const Platform&, const Platform&);
// Whether `source`'s kernel tables may time ops for `target`: a CPU's kernels say nothing of
// a GPU's, nor a GPU's per-call tables (a 30 us launch gap each) of a CPU's. Other targets
// (a hypothetical machine) take any source.
bool comparable_devices(const Platform& source, const Platform& target);
// Relative uncertainty added when a time is carried between platforms of this kinship:
// near the 68th percentiles of the leave-one-platform-out errors in docs/accuracy.md
// (same architecture 0.10-0.27, same vendor 0.20-0.36, other vendor 0.53); the same-
// architecture band refitted to two thirds by validate's band_refit (0.13).
double kinship_band(Kinship);

// How far apart two platforms are for carrying a time of `dtype` from `from` (whose
// table runs at `from_dtype`): |log peak ratio| + |log bandwidth ratio| + 0.5 for another
// architecture + 1 for another vendor + 1 for another kind of device; a peak or bandwidth
// one side lacks counts 1.
double platform_distance(const Platform& from, DType from_dtype, const Platform& to, DType to_dtype);

// A row of the NeuSight tables (import-bench --format neusight names its methods so): the
// rows leave-platform-out holds out and predicts.
inline bool from_neusight(const KernelEntry& e) { return e.method.rfind("neusight", 0) == 0; }

}  // namespace fomcast::est
