// Scaling curves (parallel.hpp's scaling_curve): one layout key swept, strong or weak.
#include <algorithm>

#include "fomcast/error.hpp"
#include "fomcast/parallel.hpp"

namespace fomcast {

std::pair<ParallelLayout, std::pair<std::string, std::vector<int64_t>>> parse_sweep(std::string_view text,
                                                                                    std::string_view flag) {
  const std::string f(flag);
  std::string fixed, key;
  std::vector<int64_t> values;
  std::string current;
  bool ellipsis = false;
  auto number = [&](const std::string& s) {
    std::size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty() || v < 1 || v > 1'000'000)
      throw UsageError(f + ": '" + s + "' is not a whole number from 1 to 1000000");
    return v;
  };
  std::size_t pos = 0;
  std::vector<int64_t> scratch;
  while (pos <= text.size()) {
    const auto comma = std::min(text.find(',', pos), text.size());
    const std::string part(text.substr(pos, comma - pos));
    pos = comma + 1;
    if (const auto eq = part.find('='); eq != std::string::npos) {
      current = part.substr(0, eq);
      scratch = {number(part.substr(eq + 1))};
      // Look ahead: values without a key belong to this one.
      std::vector<int64_t> more;
      while (pos <= text.size()) {
        const auto c2 = std::min(text.find(',', pos), text.size());
        const std::string next(text.substr(pos, c2 - pos));
        if (next.find('=') != std::string::npos) break;
        pos = c2 + 1;
        if (next == "...") {
          ellipsis = true;
          continue;
        }
        const int64_t v = number(next);
        if (ellipsis) {
          for (int64_t x = scratch.back() * 2; x < v; x *= 2) scratch.push_back(x);
          ellipsis = false;
        }
        if (v <= scratch.back()) throw UsageError(f + ": values of " + current + " must increase");
        scratch.push_back(v);
      }
      if (ellipsis) throw UsageError(f + ": '...' must be followed by a last value");
      if (scratch.size() > 1) {
        if (!key.empty())
          throw UsageError(f + ": only one key may have several values (" + key + " and " + current + ")");
        key = current;
        values = scratch;
        fixed += (fixed.empty() ? "" : ",") + current + "=" + std::to_string(scratch.front());
      } else {
        fixed += (fixed.empty() ? "" : ",") + part;
      }
    } else {
      throw UsageError(f + ": '" + part + "' has no key (dp=, tp= or pp=)");
    }
  }
  ParallelLayout l = parse_parallel(fixed, flag);
  if (key.empty()) {
    key = "dp";
    values = {l.dp};
  }
  return {l, {key, values}};
}

ScalingCurve scaling_curve(const Workload& stored, std::string_view platform, const Catalog& catalog,
                           const ParallelRequest& base, const std::string& key, const std::vector<int64_t>& values,
                           bool weak, const ModelExpander& expand, const LayerReader& layers, const RunOptions& opts) {
  ScalingCurve c;
  c.workload = stored.name;
  c.platform = std::string(platform);
  c.key = key;
  c.weak = weak;
  // Weak scaling keeps the batch per device, so the global batch grows with the devices: a
  // global batch given with it had been dropped without a word.
  if (weak && base.global_batch > 0)
    throw UsageError(
        "--global-batch with --weak: weak scaling keeps the batch per device (--batch-per-gpu) and the "
        "global batch grows with the devices; strong scaling (without --weak) keeps a global batch");
  int64_t global = base.global_batch;
  // Strong scaling over dp with no batch per device or micro-batch count fixed: the global
  // batch (the caller's, else the largest point's at the workload's batch per device) reached
  // at the workload's batch per device, the smaller points accumulating micro-batches (values
  // increase, so every point's dp divides the largest's micro-batch count when they double).
  // A global batch given had instead been one micro-batch per device: 512 sequences on one
  // GPU, refused, where the same sweep without it reached every point.
  const bool accumulate = !weak && base.batch_per_gpu == 0 && base.layout.micro_batches == 0 && key == "dp" &&
                          stored.batch_size > 0 && !values.empty();
  if (accumulate && global == 0) global = values.back() * base.layout.micro() * stored.batch_size;
  for (const int64_t v : values) {
    ParallelRequest r = base;
    (key == "dp" ? r.layout.dp : key == "tp" ? r.layout.tp : r.layout.pp) = v;
    ScalingPoint p;
    p.layout = r.layout;
    p.devices = r.layout.devices();
    if (weak) {
      r.global_batch = 0;
      if (r.batch_per_gpu == 0) r.batch_per_gpu = stored.batch_size;
    } else if (accumulate) {
      // The largest layout's global batch, reached on the smaller ones by accumulating
      // gradients over more micro-batches of the workload's batch.
      // The largest micro-batch, up to the workload's batch, that the global batch divides
      // into dp x at least pp micro-batches (a model is expanded at it; a trace keeps its own).
      int64_t micro = stored.batch_size;
      while (micro > 1 && (global % (r.layout.dp * micro) != 0 || global / (r.layout.dp * micro) < r.layout.pp))
        --micro;
      const int64_t per = r.layout.dp * micro;
      if (global % per != 0 || global / per < r.layout.pp) {
        // Strong scaling keeps the global batch: a point that cannot reach it says so.
        p.error = "strong scaling keeps the global batch of " + std::to_string(global) +
                  ", which dp=" + std::to_string(r.layout.dp) +
                  " does not divide into at least pp micro-batches of a whole sample";
        c.points.push_back(p);
        continue;
      }
      r.layout.micro_batches = global / per;
      r.batch_per_gpu = micro, r.global_batch = 0;
    } else {
      if (global == 0)
        global = r.layout.dp * r.layout.micro() * (r.batch_per_gpu > 0 ? r.batch_per_gpu : stored.batch_size);
      r.global_batch = global, r.batch_per_gpu = 0;
    }
    try {
      const ParallelRun run = run_parallel(stored, platform, catalog, r, expand, layers, opts);
      const auto& e = run.parallel;
      p.layout = e.layout;  // with the micro-batch count the point was run at
      p.global_batch = e.global_batch, p.micro_batch = e.micro_batch;
      p.step_s = e.step_s, p.compute_s = e.compute_s, p.exposed_comm_s = e.exposed_comm_s, p.bubble_s = e.bubble_s;
      p.samples_per_s = e.samples_per_s;
      p.scaling_efficiency = e.scaling_efficiency;
      for (const auto& n : e.notes)
        if (std::find(c.notes.begin(), c.notes.end(), n) == c.notes.end()) c.notes.push_back(n);
    } catch (const UsageError& err) {
      p.error = err.what();
    }
    c.points.push_back(p);
  }
  // Efficiency against the first point that has an estimate: throughput per device.
  for (std::size_t i = 0; i < c.points.size(); ++i)
    if (c.points[i].error.empty()) {
      const auto& f = c.points[i];
      for (auto& p : c.points)
        if (p.error.empty())
          p.efficiency =
              (p.samples_per_s / static_cast<double>(p.devices)) / (f.samples_per_s / static_cast<double>(f.devices));
      break;
    }
  return c;
}

}  // namespace fomcast
