// The fallback models of the method chain (fallback_models.cpp), for ops the target's own
// kernel tables cannot time: a similar platform's measurement carried by the roofline ratio
// (scaled-table), bytes over bandwidth, the network model of a collective, the roofline.
// Private to estimator/.
#pragma once

#include <limits>
#include <optional>

#include "predict.hpp"
#include "tables.hpp"

namespace fomcast::est {

// Whose measurement to carry to the target: another platform's kernel table, or the op's
// own measured time on the workload's recording platform, whichever is most alike.
struct Source {
  const Platform* platform = nullptr;
  const PlatformTables* tables = nullptr;  // null: the op's own measurement
  double distance = std::numeric_limits<double>::infinity();
};
Source best_source(const Context&, const Op&, DType);

// The launch gap a target with no table of its own is given for an op of `kind`: the
// median over every other tabulated platform with a table of the kind of its launch floor
// for it (tables.hpp's launch_floor_s; never another kind's), 0 when none has one. The gap a table holds is the
// measuring host's and driver's (CUDA events around one PyTorch call), which no GPU spec
// predicts: NeuSight's five machines measure 25-41 us for an empty-sized add, unrelated
// to their chips' rank. The held-out GPU's own gap is never used (leave-platform-out).
double sources_launch_floor(const Context&, OpKind);
// The per-call launch gap an estimate of an op of `kind` on the context's target holds: the
// target's own table's (its fastest latency-bound kernel of the kind) where it has one, else
// sources_launch_floor's; 0 where neither says (DeepBench's device-time tables).
double target_launch_gap(const Context&, OpKind);
// An op a GPU trace timed on the device: its time there is the kernel's alone (the host's
// dispatch is in the trace's residual), so where a host-timed table's launch gap would stand
// in an estimate of it, the kernel's fixed latency does (the fastest latency-bound call the
// trace measured, never above the op's own time). nullopt for any other op, or when the trace
// holds no latency-bound call to say what that latency is.
std::optional<double> measured_kernel_latency(const Context&, const Op&);
// The part of one call's estimated time that is that gap: a time read from a table of
// per-call measurements (NeuSight's: CUDA events around one PyTorch call), or transferred
// with the sources' median gap, holds the host's and driver's time of the call. Measured,
// bandwidth and roofline times hold none, nor DeepBench's device-time tables (gap 0).
// The roll-up stores it in OpEstimate::launch_gap_s.
double launch_gap_part(const Context&, const Op&, const OpEstimate&);

// A collective measured on the recording platform, carried to the target: the transfer a model
// times there (`base_model_s`) moves by that model's ratio to the target (`target_model_s`), and
// the rest of the measured time, the ranks' wait for each other, is carried as measured: it is
// their skew (their hosts' and their compute's), which no network model times. In the 8-rank
// DLRM trace the ranks' steps differ by 7 ms where each computes 1.2 ms; carried whole by the
// model's ratio, its 3.3 ms all-to-all of 24.6 KB, 7 us of it transfer on its V100s, came out
// at 17.3 ms on MI300X (RCCL's 20.5 us base latency over NCCL's 3.6). Sets q's seconds and
// wait_s; returns the detail's words for the wait ("" when there is none).
std::string carry_measured_collective(Quote& q, double measured_s, double base_model_s, double target_model_s);

// scaled-table: the source's time for the op (its table's, or the op's own measurement)
// x the roofline ratio source -> target.
std::optional<Quote> scaled_from(const Context&, const Source&, const Op&, DType, double flops, double bytes);
// A memory-bound op (elementwise, layer norm, softmax) on a target without a table of its
// kind: the most alike tabulated platforms' times for the shape, each source's launch floor
// replaced by the sources' median (sources_launch_floor) and the rest carried by the ratio
// of achievable bandwidths (peak bandwidth x the fraction memory-bound tables of the kind
// reach: their 90th percentile, the sustained best rather than the launch-bound median; the
// target's fraction is the median over all sources, any architecture). nullopt when no
// platform has a table of the kind.
std::optional<Quote> memory_from_tables(const Context&, const Op&, DType);
// The rule `estimate` tries first for the same ops (validate's leave_platform_out measures it
// alone as JSON `curve_rule_error`; docs/accuracy.md section 5): the sources' normalised
// curves (tables.hpp's TableGroup::gap_curve). The
// target's gap g is the sources' median (sources_launch_floor), its x = log(bytes / (peak
// bandwidth x g)); each source whose curve reaches x gives its y there, read off the
// kCurveNeighbours points nearest to (x, log row length) (the row length weighted
// kCurveColsWeight) and made non-decreasing in time with x (fallback_models.cpp's
// monotone_z); the target's y is the median over those sources and its time bytes /
// bandwidth x exp(y). A source is read where it is as large against its own gap as the op
// is against the target's, not at the same shape: the same shape sits on the launch-bound
// flat of a fast card's curve and on the streaming slope of a slow one's. All sources of
// the kind, not the most alike. A source takes part only where the op's rows and row length
// lie within its table's (beyond them, millions of rows of an activation, the curve says
// nothing of how a kernel treats them). nullopt when no source reaches the op.
constexpr std::size_t kCurveNeighbours = 16;
constexpr double kCurveColsWeight = 0.5;
std::optional<Quote> memory_from_curves(const Context&, const Op&, DType);
// The fraction of peak bandwidth memory-bound kernels of `kind` reach (the median over the
// groups of each group's 90th percentile) on the tabulated platforms but `exclude` of this
// vendor and architecture, of the same chip (same_chip), or of any; 0 when none.
enum class FractionScope { same_architecture, same_chip, any };
double architecture_bandwidth_fraction(const Catalog&, const Platform&, OpKind, const std::string& exclude = {},
                                       FractionScope = FractionScope::same_architecture);
// The fraction a transfer assumes for a target: another card of its own chip's, which
// knows its memory system (V100 PCIe for V100 SXM2), else the median over every other
// tabulated platform (an architecture's name alone is no guide: GP100's HBM2 against
// GP104's GDDR5). Leave-platform-out removes the held-out chip's cards, so it measures the
// pooled case.
double target_bandwidth_fraction(const Catalog&, const Platform&, OpKind);

// The sources a transfer combines: the most alike platform and those within kEnsembleReach
// of its distance (at most kEnsembleSize), weighted exp(-kEnsembleDecay x extra distance);
// times are combined as a weighted geometric mean.
constexpr std::size_t kEnsembleSize = 3;
constexpr double kEnsembleReach = 0.7;
constexpr double kEnsembleDecay = 2.0;
// scaled-table from several alike platforms' tables (the ensemble above); nullopt when
// none can time the op.
std::optional<Quote> transferred(const Context&, const Op&, DType, double flops, double bytes);

// roofline: max(flops / (peak x efficiency), bytes / (bandwidth x efficiency)) on the target.
std::optional<Quote> roofline(const Context&, const Op&, DType, double flops, double bytes);
// bandwidth: a memory-bound op's baseline time x the bandwidth ratio, else bytes / bandwidth.
std::optional<Quote> bandwidth(const Context&, const Op&, double bytes);
// network: a collective by the ring (alpha-beta) model, else its baseline time x the
// network bandwidth ratio.
std::optional<Quote> network(const Context&, const Op&, const CollectiveShape&);
// A memcpy op by the way it goes (copy_route of its name): host <-> device over the host
// link (the baseline time x the host-link ratio, else bytes / link), device copies and
// fills at memory bandwidth (a device-to-device copy reads and writes its bytes). nullopt
// when the target has no figure for the path: the carry below takes it.
std::optional<Quote> copy(const Context&, const Op&, double bytes);
// scaled: an op none of the above could model, carried from its measured time by the ratio
// of the two platforms' capabilities for its kind: compute-bound kinds by the peak of its
// precision, memory-bound ones by bandwidth (host <-> device copies by the host link),
// collectives by the network, `other` (host-side) by host speed. Where a figure is missing
// on either side (a placeholder recording platform has none) it is carried at its measured
// time with a wide band, and says so. nullopt only for an op with no measured time.
// `as_host`: the measured time is the host's whatever the op's kind (Context::host_timed).
std::optional<Quote> carried(const Context&, const Op&, DType, bool as_host = false);

}  // namespace fomcast::est
