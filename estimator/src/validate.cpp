// The accuracy measurements of validate.hpp. They run the estimator's own code paths
// (group lookup with one entry left out, GEMM-based conv and RNN, proxy choice and the
// roofline ratio), so the numbers describe what `estimate` does.
#include "fomcast/validate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "catalog.hpp"
#include "fallback_models.hpp"
#include "fomcast/error.hpp"
#include "predict.hpp"
#include "similarity.hpp"

namespace fomcast {
namespace {

using est::percentile;
using est::PlatformTables;
using est::TableGroup;

constexpr std::size_t kLooRows = 300;

struct Pairs {
  std::vector<double> predicted, measured, bands;  // bands: -1 where the pair has none
  void add(double p, double m, double band = -1) {
    predicted.push_back(p);
    measured.push_back(m);
    bands.push_back(band);
  }
  void add(const Pairs& o) {
    predicted.insert(predicted.end(), o.predicted.begin(), o.predicted.end());
    measured.insert(measured.end(), o.measured.begin(), o.measured.end());
    bands.insert(bands.end(), o.bands.begin(), o.bands.end());
  }
  ErrorStats stats() const { return error_stats(predicted, measured, bands); }
  std::vector<BandRatio> band_ratios() const {  // for band_refit
    std::vector<BandRatio> out;
    for (std::size_t i = 0; i < predicted.size(); ++i)
      if (bands[i] > 0 && predicted[i] > 0 && measured[i] > 0)
        out.push_back({bands[i], std::fabs(predicted[i] - measured[i]) / (bands[i] * predicted[i])});
    return out;
  }
};

std::string variant_name(const TableGroup& g) {
  if (const auto* d = std::get_if<ConvDirection>(&g.variant)) return std::string(to_string(*d));
  if (const auto* r = std::get_if<est::RnnVariant>(&g.variant))
    return std::string(to_string(r->cell)) + (r->direction == est::RnnDirection::backward ? " backward" : " forward");
  return "";
}

std::vector<std::string> names_or_all(const Catalog& c, const std::vector<std::string>& names) {
  if (!names.empty()) return names;
  std::vector<std::string> out;
  for (const auto& [name, t] : c.tables) out.push_back(name);
  return out;
}

}  // namespace

bool within_band(double predicted, double measured, double band) {
  return std::fabs(predicted - measured) <= band * predicted;
}

ErrorStats error_stats(const std::vector<double>& predicted, const std::vector<double>& measured,
                       const std::vector<double>& bands) {
  ErrorStats s;
  std::vector<double> err;
  double log_sum = 0;
  for (std::size_t i = 0; i < predicted.size() && i < measured.size(); ++i) {
    if (!(measured[i] > 0) || !(predicted[i] > 0)) continue;
    err.push_back(std::fabs(predicted[i] - measured[i]) / measured[i]);
    log_sum += std::log(predicted[i] / measured[i]);
    if (i < bands.size() && bands[i] >= 0) {
      ++s.banded;
      if (within_band(predicted[i], measured[i], bands[i])) ++s.within_band;
    }
  }
  s.n = static_cast<int64_t>(err.size());
  if (err.empty()) return s;
  s.median = percentile(err, 0.5);
  s.p68 = percentile(err, 0.68);
  s.p90 = percentile(err, 0.9);
  s.mean_log_ratio = log_sum / static_cast<double>(err.size());
  return s;
}

LooReport validate_leave_one_out(const Catalog& catalog, const std::vector<std::string>& platforms) {
  LooReport report;
  for (const auto& name : names_or_all(catalog, platforms)) {
    const Platform* p = catalog.platform(name);
    const PlatformTables* t = est::tables_of(catalog, name);
    if (!p || !t)
      throw InputError("--platform", "no kernel table for platform '" + name + "' (see `fomcast platforms`)", 0, -1,
                       "platform");
    Pairs gemm, conv, rnn;
    for (const auto& g : t->groups) {
      if (g.kind != OpKind::gemm && g.kind != OpKind::conv && g.kind != OpKind::rnn) continue;
      LooGroup lg{name,
                  std::string(to_string(g.kind)),
                  std::string(to_string(g.precision)),
                  std::string(to_string(g.mode)),
                  variant_name(g),
                  Method::interpolated,
                  std::string(est::to_string(g.interpolator)),
                  {},
                  0,
                  {},
                  {}};
      Pairs pairs, through;
      // NeuSight's groups hold up to 17,000 shapes: every k-th entry is left out in turn,
      // k = ceil(n / kLooRows), so the check stays linear in the table (DeepBench's
      // groups, all smaller, are checked whole).
      const std::size_t stride = (g.entries.size() + kLooRows - 1) / kLooRows;
      for (std::size_t i = 0; i < g.entries.size(); i += std::max<std::size_t>(stride, 1)) {
        const KernelEntry* e = g.entries[i];
        const auto q = est::quote_group(g, g.kind, e->shape, name, e);
        if (!q) continue;
        if (q->method == Method::table) ++lg.exact_other_transposes;
        pairs.add(q->seconds, e->time_us * 1e-6, q->uncertainty);
        if (q->seconds > 0 && e->time_us > 0)
          lg.log_errors.push_back(
              {lg.kind + "|" + lg.precision + "|" + lg.mode + "|" + lg.variant + "|" + shape_key(e->shape),
               std::log(q->seconds / (e->time_us * 1e-6))});
        if (g.kind != OpKind::gemm)
          if (const auto v = est::quote_through_gemm(*t, *p, e->shape, g.precision, g.mode))
            through.add(v->seconds, e->time_us * 1e-6, v->uncertainty);
      }
      lg.stats = pairs.stats();
      lg.band_ratios = pairs.band_ratios();
      (g.kind == OpKind::gemm ? gemm : g.kind == OpKind::conv ? conv : rnn).add(pairs);
      report.groups.push_back(lg);
      if (!through.measured.empty()) {
        LooGroup tg = lg;
        tg.method = g.kind == OpKind::conv ? Method::implicit_gemm : Method::rnn_as_gemm;
        tg.interpolator.clear();
        tg.exact_other_transposes = 0;
        tg.stats = through.stats();
        tg.band_ratios = through.band_ratios();
        tg.log_errors.clear();  // shared_op_error joins the interpolated rows
        report.groups.push_back(tg);
      }
    }
    LooPlatform lp;
    lp.platform = name;
    lp.gemm = gemm.stats();
    lp.conv = conv.stats();
    lp.rnn = rnn.stats();
    Pairs both = gemm;
    both.add(conv);
    lp.gemm_and_conv = both.stats();
    report.platforms.push_back(lp);
  }
  return report;
}

std::vector<PlatformTransfer> validate_platform_transfer(const Catalog& catalog,
                                                         const std::vector<std::string>& platforms) {
  std::vector<PlatformTransfer> out;
  for (const auto& name : names_or_all(catalog, platforms)) {
    const Platform* target = catalog.platform(name);
    const PlatformTables* tt = est::tables_of(catalog, name);
    if (!target || !tt) continue;
    for (const KernelPrecision precision : {KernelPrecision::fp32, KernelPrecision::fp16_mixed}) {
      std::vector<const KernelEntry*> entries;
      for (const auto& g : tt->groups)
        if ((g.kind == OpKind::gemm || g.kind == OpKind::conv) && g.precision == precision &&
            g.mode == KernelMode::train)
          entries.insert(entries.end(), g.entries.begin(), g.entries.end());
      const DType dtype = precision_math_dtype(precision);
      if (entries.empty() || !(est::peak_for(*target, dtype).flop_per_s > 0)) continue;

      PlatformTransfer r;
      r.target = name;
      r.precision = to_string(precision);
      const auto ranked = est::rank_proxies(catalog, *target, OpKind::gemm, dtype);
      if (!ranked.empty()) r.chosen = ranked.front().platform->name;
      std::vector<double> medians;
      for (const auto& proxy : ranked) {
        // The proxy's entries of the precision it would lend, by exact shape: this
        // measures the choice and the scaling rule, not the proxy's own interpolation.
        std::map<std::string, const KernelEntry*> by_key;
        for (const auto& g : proxy.tables->groups)
          if (g.precision == proxy.precision && g.mode == KernelMode::train)
            for (const auto* e : g.entries) by_key[shape_key(e->shape)] = e;
        const DType from = precision_math_dtype(proxy.precision);
        Pairs roof, peak, bw;
        // The band the estimator gives a scaled-table quote of an exact proxy entry.
        const double band = est::kinship_band(est::kinship(*proxy.platform, *target));
        for (const auto* e : entries) {
          auto it = by_key.find(shape_key(e->shape));
          if (it == by_key.end()) continue;
          const double flops = op_flops(e->kind, e->shape),
                       bytes = op_bytes(e->kind, e->shape, precision_dtype(precision));
          const double t_src = it->second->time_us * 1e-6, t = e->time_us * 1e-6;
          if (auto k = est::roofline_ratio(e->kind, flops, bytes, *proxy.platform, from, *target, dtype))
            roof.add(t_src * *k, t, band);
          if (auto k = est::roofline_ratio(e->kind, 0, 0, *proxy.platform, from, *target, dtype))
            peak.add(t_src * *k, t);
          const double b_src = est::bandwidth_of(*proxy.platform), b_dst = est::bandwidth_of(*target);
          if (b_src > 0 && b_dst > 0) bw.add(t_src * b_src / b_dst, t);
        }
        const ErrorStats s = roof.stats();
        if (s.n == 0) continue;
        ++r.sources;
        medians.push_back(s.median);
        if (proxy.platform->name == r.chosen) {
          r.chosen_stats = s;
          r.chosen_band_ratios = roof.band_ratios();
          r.chosen_peak_ratio = peak.stats();
          r.chosen_bw_ratio = bw.stats();
        }
        if (r.best.empty() || s.median < r.best_stats.median) {
          r.best = proxy.platform->name;
          r.best_stats = s;
        }
      }
      if (r.sources == 0) continue;
      r.median_over_sources = percentile(medians, 0.5);
      out.push_back(r);
    }
  }
  return out;
}

namespace {

using est::from_neusight;

// The same chip (similarity.hpp's same_chip): one held out takes the other card of its chip
// (A100 PCIe 40 and 80 GB) out of the sources too.
using est::same_chip;

// What a table row becomes as an op of a workload: the name the memory-bound tables know
// their ops by.
Op as_op(const KernelEntry& e) {
  Op op;
  op.kind = e.kind;
  op.shape = e.shape;
  op.dtype = DType::fp32;
  op.phase = Phase::forward;
  op.name = e.kind == OpKind::normalization ? "aten::layer_norm"
            : e.kind == OpKind::reduction   ? "aten::softmax"
            : e.kind == OpKind::elementwise ? "aten::add"
                                            : "aten::" + std::string(to_string(e.kind));
  fill_costs(op);
  return op;
}

}  // namespace

double leave_platform_out_target(OpKind kind) { return kind == OpKind::conv ? 0.15 : 0.10; }

bool meets_target(const LeavePlatformOut& r) { return r.stats.n > 0 && r.median_abs_error <= r.target_abs_error; }

LeavePlatformOutSummary summarize(const std::vector<LeavePlatformOut>& rows) {
  LeavePlatformOutSummary s;
  std::vector<double> medians;
  for (const auto& r : rows) {
    s.met += meets_target(r) ? 1 : 0;
    medians.push_back(r.median_abs_error);
  }
  s.rows = rows.size();
  s.median_abs_error = est::percentile(medians, 0.5);
  return s;
}

std::vector<LeavePlatformOut> validate_leave_platform_out(const Catalog& catalog) {
  // The NeuSight tables alone, of every platform that has them.
  std::vector<Platform> platforms;
  for (const auto& [name, p] : catalog.platforms) platforms.push_back(p);
  std::vector<KernelTable> neusight;
  for (const auto& [name, t] : catalog.tables) {
    KernelTable k{name, {}};
    for (const auto& e : t.entries)
      if (from_neusight(e)) k.entries.push_back(e);
    if (!k.entries.empty()) neusight.push_back(std::move(k));
  }
  std::vector<LeavePlatformOut> out;
  const Catalog all = make_catalog(platforms, neusight);
  for (const auto& [held, table] : all.tables) {
    const Platform* target = all.platform(held);
    if (!target) continue;
    // The catalog without the held-out chip's tables; the built indices are shared.
    Catalog without = all;
    for (auto it = without.tables.begin(); it != without.tables.end();) {
      const Platform* q = all.platform(it->first);
      it = q && same_chip(*q, *target) ? without.tables.erase(it) : std::next(it);
    }
    if (without.tables.empty()) continue;
    est::Context ctx{without,
                     *target,
                     nullptr,
                     [&](std::string_view name) -> const PlatformTables* {
                       return without.tables.count(std::string(name)) ? est::tables_of(without, name) : nullptr;
                     },
                     "",
                     0};
    std::map<OpKind, std::vector<const KernelEntry*>> by_kind;
    for (const auto& e : table.entries) by_kind[e.kind].push_back(&e);
    for (const auto& [kind_of_rows, entries] : by_kind) {
      const OpKind kind = kind_of_rows;  // a lambda below uses it (clang 14: no captured bindings)
      LeavePlatformOut r;
      r.held_out = held;
      r.kind = to_string(kind);
      r.target_abs_error = leave_platform_out_target(kind);
      // The naive rules' source: the most alike platform with a table of the kind.
      const Platform* src = nullptr;
      double best = INFINITY;
      for (const auto& [name, t] : without.tables) {
        const Platform* q = without.platform(name);
        if (!q ||
            std::none_of(t.entries.begin(), t.entries.end(), [&](const KernelEntry& e) { return e.kind == kind; }))
          continue;
        const double d = est::platform_distance(*q, DType::fp32, *target, DType::fp32);
        if (d < best) best = d, src = q;
      }
      std::map<std::string, const KernelEntry*> src_by_key;
      if (src)
        for (const auto& e : without.tables.at(src->name).entries)
          if (e.kind == kind) src_by_key[shape_key(e.shape)] = &e;
      if (src) r.source = src->name;
      const double peak_ratio =
          src ? est::peak_for(*src, DType::fp32).flop_per_s / est::peak_for(*target, DType::fp32).flop_per_s : 0;
      const double bw_ratio = src ? est::bandwidth_of(*src) / est::bandwidth_of(*target) : 0;
      const std::size_t stride =
          (entries.size() + static_cast<std::size_t>(kLeavePlatformOutRows) - 1) / kLeavePlatformOutRows;
      Pairs ours, peak, bw, curve;
      for (std::size_t i = 0; i < entries.size(); i += std::max<std::size_t>(stride, 1)) {
        const KernelEntry& e = *entries[i];
        const double measured = e.time_us * 1e-6;
        const Op op = as_op(e);
        const OpEstimate est = est::predict_op(ctx, op, 0);
        // The normalised-curve rule alone, capped at the roofline as predict_op caps.
        if (is_memory_bound(kind))
          if (auto q = est::memory_from_curves(ctx, op, DType::fp32))
            curve.add(std::max(q->seconds,
                               est::op_roofline(*target, kind, op.shape, DType::fp32, op.flops, op.bytes).seconds),
                      measured);
        if (est.method == Method::unestimated || !(est.predicted_s > 0)) continue;
        ours.add(est.predicted_s, measured);
        if (measured > 0)
          r.log_errors.push_back({r.kind + "|" + shape_key(e.shape), std::log(est.predicted_s / measured)});
        if (est.roofline_capped) ++r.capped;
        if (auto it = src_by_key.find(shape_key(e.shape)); it != src_by_key.end()) {
          const double t = it->second->time_us * 1e-6;
          if (peak_ratio > 0) peak.add(t * peak_ratio, measured);
          if (bw_ratio > 0) bw.add(t * bw_ratio, measured);
        }
      }
      r.stats = ours.stats();
      r.n = r.stats.n;
      r.median_abs_error = r.stats.median;
      r.peak_ratio = peak.stats();
      r.bandwidth_ratio = bw.stats();
      r.curve_rule = curve.stats();
      if (r.n > 0) out.push_back(r);
    }
  }
  return out;
}

CrossHardware validate_cross_hardware(const Workload& from, const Workload& to, const Catalog& catalog) {
  if (to.recorded_on.empty() || !to.pass_s)
    throw InputError(to.name, "needs a measured pass time on a known platform (ingest it with --platform)", 0, -1,
                     "workload");
  if (from.recorded_on.empty())
    throw InputError(from.name, "has no recording platform: its times cannot be carried (ingest it with --platform)", 0,
                     -1, "workload");
  const PassEstimate pe = estimate_pass(from, to.recorded_on, catalog);
  CrossHardware c;
  c.from_workload = from.name;
  c.from_platform = from.recorded_on;
  c.to_workload = to.name;
  c.to_platform = to.recorded_on;
  c.measured_pass_s = *to.pass_s;
  c.predicted_pass_s = pe.pass_s;
  c.pass_low_s = pe.pass_low_s;
  c.pass_high_s = pe.pass_high_s;
  c.error = (pe.pass_s - *to.pass_s) / *to.pass_s;
  c.measured_ops_s = to.measured_op_time_s();
  c.predicted_ops_s = pe.ops_s;
  c.uncertainty = pe.uncertainty;
  c.table_coverage = pe.table_coverage;
  c.uncalibrated_error = (pe.ops_s - *to.pass_s) / *to.pass_s;
  c.residual_share = pe.residual_share;
  c.host_scaled = pe.calibration.host_scaled;
  c.carry_detail = pe.calibration.carry_detail;
  c.implied_carry = pe.calibration.residual_there_s > 0 ? (*to.pass_s - pe.modelled_s) / pe.calibration.residual_there_s
                                                        : std::numeric_limits<double>::quiet_NaN();
  return c;
}

std::vector<BandCoverage> band_coverage(const LooReport& loo, const std::vector<PlatformTransfer>& transfers,
                                        const std::vector<CrossHardware>& cross) {
  BandCoverage l{"leave_one_out"}, t{"leave_one_platform_out"}, c{"cross_hardware"}, all{"all"};
  for (const auto& g : loo.groups) l.n += g.stats.banded, l.within += g.stats.within_band;
  for (const auto& r : transfers) t.n += r.chosen_stats.banded, t.within += r.chosen_stats.within_band;
  for (const auto& x : cross) {
    ++c.n;
    if (within_band(x.predicted_pass_s, x.measured_pass_s, x.uncertainty)) ++c.within;
  }
  std::vector<BandCoverage> out{l, t, c};
  for (const auto& b : out) all.n += b.n, all.within += b.within;
  out.push_back(all);
  for (auto& b : out) b.share = b.n > 0 ? static_cast<double>(b.within) / static_cast<double>(b.n) : 0;
  return out;
}

}  // namespace fomcast
