// fomcast/platform_match.hpp: device names to platforms, placeholder names, and the near
// misses of a platform's name. Matching is on whole words so that a pattern never matches
// inside another model number ("MI25" in "MI250X", "H200" in "GH200").
#include "fomcast/platform_match.hpp"

#include <algorithm>
#include <cmath>

#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/input_checks.hpp"
#include "fomcast/text.hpp"

namespace fomcast {
namespace {

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// Runs of letters and digits, case kept; the trademark marks dropped.
std::vector<std::string> words_as_written(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    const std::string low = lowercase(cur);
    if (!cur.empty() && low != "r" && low != "tm") out.push_back(cur);
    cur.clear();
  };
  for (char c : s) {
    if (alnum(c))
      cur += c;
    else
      flush();
  }
  flush();
  return out;
}

// Letters and digits alone, lower case: "NV-V100" and "nv_v100" are both "nvv100".
std::string squeezed(std::string_view s) {
  std::string out;
  for (char c : s)
    if (alnum(c)) out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// Words that, right after a model number, name another card: "RTX 3090 Ti" is not an RTX
// 3090, nor "RTX 4090 Laptop GPU" (another die) an RTX 4090. A pattern that ends in such a
// word is its own card ("GTX 1080 Ti").
bool variant_word(const std::string& w) {
  static const char* const kVariants[] = {"ti", "super", "laptop", "mobile", "max", "xt", "xtx", "d"};
  return std::find(std::begin(kVariants), std::end(kVariants), w) != std::end(kVariants);
}

bool occurs_in(const std::vector<std::string>& pattern, const std::vector<std::string>& words) {
  if (pattern.empty() || pattern.size() > words.size()) return false;
  for (auto it = words.begin();; ++it) {
    it = std::search(it, words.end(), pattern.begin(), pattern.end());
    if (it == words.end()) return false;
    const auto after = it + static_cast<std::ptrdiff_t>(pattern.size());
    if (after == words.end() || !variant_word(*after)) return true;
  }
}

std::size_t letters(const std::vector<std::string>& words) {
  std::size_t n = 0;
  for (const auto& w : words) n += w.size();
  return n;
}

}  // namespace

std::vector<std::string> device_words(std::string_view s) {
  std::vector<std::string> out = words_as_written(s);
  for (auto& w : out) w = lowercase(w);
  return out;
}

std::optional<DeviceMatch> match_device(std::string_view device, const std::vector<Platform>& platforms) {
  const std::vector<std::string> words = device_words(device);
  if (words.empty()) return std::nullopt;
  std::optional<DeviceMatch> best;
  std::pair<std::size_t, std::size_t> best_rank{0, 0};  // (words, letters) of the best pattern
  bool tied = false;
  for (const auto& p : platforms)
    for (const auto& pattern : p.device_names) {
      const std::vector<std::string> pw = device_words(pattern);
      if (!occurs_in(pw, words)) continue;
      const std::pair<std::size_t, std::size_t> rank{pw.size(), letters(pw)};
      if (!best || rank > best_rank) {
        best = DeviceMatch{p.name, pattern};
        best_rank = rank;
        tied = false;
      } else if (rank == best_rank && best->platform != p.name) {
        tied = true;
      }
    }
  if (tied) return std::nullopt;
  return best;
}

std::string placeholder_platform_name(std::string_view device) {
  std::string out;
  for (const auto& w : words_as_written(device)) {
    if (out.size() + w.size() + 1 > 64) break;
    out += (out.empty() ? "" : "_") + w;
  }
  return out;
}

std::optional<std::string> near_platform_name(std::string_view name, const std::vector<Platform>& platforms) {
  for (const auto& p : platforms)
    if (p.name == name) return std::nullopt;
  const std::string key = squeezed(name);
  if (key.empty()) return std::nullopt;
  for (const auto& p : platforms)
    if (squeezed(p.name) == key) return p.name;
  // A bare device-name pattern ("v100") names exactly one platform.
  std::optional<std::string> by_pattern;
  for (const auto& p : platforms)
    for (const auto& pattern : p.device_names)
      if (squeezed(pattern) == key) {
        if (by_pattern && *by_pattern != p.name) return std::nullopt;
        by_pattern = p.name;
      }
  return by_pattern;
}

std::optional<std::string> near_name(std::string_view name, const std::vector<std::string>& names) {
  if (std::find(names.begin(), names.end(), name) != names.end()) return std::nullopt;
  const std::string key = squeezed(name);
  if (key.empty()) return std::nullopt;
  std::optional<std::string> found;
  for (const auto& n : names)
    if (squeezed(n) == key) {
      if (found) return std::nullopt;
      found = n;
    }
  return found;
}

namespace {

// For a message only (never to refuse a new name: H200 is one edit from H100): the one name
// a slip of a key or two away ("NV_V10", "resnt50"), or the near miss of case and punctuation.
std::optional<std::string> suggestion(std::string_view name, const std::vector<std::string>& names) {
  if (auto near = near_name(name, names)) return near;
  const std::string key = squeezed(name);
  if (key.size() < 3) return std::nullopt;
  const std::size_t reach = key.size() <= 6 ? 1 : 2;
  std::optional<std::string> best;
  std::size_t best_d = reach + 1;
  bool tie = false;
  for (const auto& n : names) {
    const std::size_t d = edit_distance(key, squeezed(n));
    if (d < best_d)
      best = n, best_d = d, tie = false;
    else if (d == best_d)
      tie = true;
  }
  return best && !tie ? best : std::nullopt;
}

}  // namespace

std::string unknown_platform_message(std::string_view name, const std::vector<Platform>& platforms) {
  std::vector<std::string> names;
  for (const auto& p : platforms) names.push_back(p.name);
  auto near = near_platform_name(name, platforms);
  if (!near) near = suggestion(name, names);
  return "unknown platform '" + std::string(name) + "'" + (near ? ": did you mean " + *near + "?" : std::string()) +
         " (see `fomcast platforms`)";
}

std::string unknown_workload_message(std::string_view name, const std::vector<std::string>& names) {
  const auto near = suggestion(name, names);
  return "unknown workload '" + std::string(name) + "'" + (near ? ": did you mean " + *near + "?" : std::string()) +
         " (see `fomcast workloads`)";
}

void check_platform_name(std::string_view name, const std::vector<Platform>& platforms, std::string_view flag) {
  if (auto near = near_platform_name(name, platforms))
    throw UsageError(std::string(flag) + ": no platform named '" + std::string(name) + "': did you mean " + *near +
                     "? (see `fomcast platforms`)");
}

void check_new_platform_name(std::string_view name, const std::vector<Platform>& platforms, std::string_view flag) {
  check_platform_name(name, platforms, flag);
  if (const std::string problem = workload_name_problem(name); !problem.empty())
    throw UsageError(std::string(flag) + ": a new platform's name " + problem);
}

namespace {

// A device's figures against a spec's (both known): its compute units exactly, its memory
// within 5% (a board reports a little less than the GiB it is sold as: an 80 GB H100 79.2).
bool same_compute_units(int64_t units, const Platform& p) { return std::llround(p.compute_units->value) == units; }
bool same_memory(double bytes, const Platform& p) {
  return std::fabs(p.mem_bytes->value - bytes) <= 0.05 * p.mem_bytes->value;
}

// The platforms whose vendor, compute units and memory are the device's.
std::vector<const Platform*> fitting_figures(const DeviceFigures& d, const std::vector<Platform>& known) {
  std::vector<const Platform*> out;
  if (d.vendor.empty() || d.compute_units <= 0 || !(d.mem_bytes > 0)) return out;
  const std::vector<std::string> vendor = device_words(d.vendor);
  for (const Platform& p : known) {
    if (device_words(p.vendor) != vendor || !p.compute_units || !p.mem_bytes) continue;
    if (same_compute_units(d.compute_units, p) && same_memory(d.mem_bytes, p)) out.push_back(&p);
  }
  return out;
}

// The specs a device's figures name: those that fit, where they are one set of figures
// (several under two names give the same estimate whichever); none where they differ
// (better none than a guess).
std::vector<const Platform*> figure_matches(const DeviceFigures& d, const std::vector<Platform>& known) {
  auto fits = fitting_figures(d, known);
  for (const Platform* p : fits)
    if (!same_figures(*fits.front(), *p)) return {};
  return fits;
}

}  // namespace

std::optional<std::string> match_device_figures(const DeviceFigures& d, const std::vector<Platform>& known) {
  const auto fits = figure_matches(d, known);
  if (fits.empty()) return std::nullopt;
  return fits.front()->name;
}

namespace {

// ", though the trace's device has 94.5 GiB of memory (the spec's 80): ..." when
// a figure the trace states is more than 5% off the matched spec's; "" when they agree or
// either is unknown.
constexpr double kGiB = 1024.0 * 1024 * 1024;

std::string figures_mismatch(const DeviceFigures& d, const Platform& p) {
  std::string off;
  if (d.mem_bytes > 0 && p.mem_bytes && !same_memory(d.mem_bytes, p))
    off += format_significant(d.mem_bytes / kGiB, 3) + " GiB of memory (the spec's " +
           format_significant(p.mem_bytes->value / kGiB, 3) + ")";
  if (d.compute_units > 0 && p.compute_units && !same_compute_units(d.compute_units, p))
    off += (off.empty() ? "" : " and ") + std::to_string(d.compute_units) + " compute units (the spec's " +
           std::to_string(std::llround(p.compute_units->value)) + ")";
  if (off.empty()) return "";
  return ", though the trace's device has " + off + ": another board of the family, estimated with " + p.name +
         "'s figures (`fomcast platforms add` a spec with this device's figures and device_names to use them)";
}

RecordingPlatform decide(const Workload& w, std::string_view given, const std::vector<Platform>& known) {
  RecordingPlatform r;
  auto is_known = [&](std::string_view name) {
    return std::any_of(known.begin(), known.end(), [&](const Platform& p) { return p.name == name; });
  };
  const std::optional<DeviceMatch> match = w.device.empty() ? std::nullopt : match_device(w.device, known);
  if (!given.empty()) {
    r.name = std::string(given);
    r.create_placeholder = !is_known(given);
    // '--', a tab or an escape sequence became a placeholder printed raw in `fomcast platforms`.
    if (r.create_placeholder)
      check_new_platform_name(given, known);
    else
      check_platform_name(given, known);
    if (r.create_placeholder) {
      // A new name for a device some spec describes is a slip, not a new machine: `--platform
      // H100SXM` on an H100's trace made a placeholder with no figures, exit 0, and every
      // estimate from that trace carried its times unscaled. A new machine is added first.
      std::optional<std::string> known_device = match ? std::optional(match->platform) : std::nullopt;
      if (!known_device && !w.device.empty()) known_device = match_device_figures(w.device_figures, known);
      if (known_device)
        throw UsageError("--platform: no platform named '" + r.name + "', and the trace names " + w.device +
                         ", which is " + *known_device + "'s: give --platform " + *known_device +
                         " (or leave it out), or `fomcast platforms add` a spec of that name first");
      std::vector<std::string> names;
      for (const auto& p : known) names.push_back(p.name);
      const auto near = suggestion(given, names);
      r.note = "recorded on " + r.name +
               " (--platform), which no platform spec describes: a placeholder platform of that name was created, "
               "with no figures, so estimates carry this trace's times to other platforms unscaled" +
               (near ? " (did you mean " + *near + "?)" : std::string()) +
               "; `fomcast platforms add` a spec of that name, or `fomcast bench` it, to give it figures";
      return r;
    }
    if (match && match->platform != r.name)
      r.note = "recorded on " + r.name + std::string(kGivenPlatformContradictsTrace) + w.device + ", which is " +
               match->platform + "'s";
    return r;
  }
  if (w.device.empty()) return r;
  if (match) {
    r.name = match->platform;
    r.note = "recorded on " + r.name + ": the trace names " + w.device;
    // "NVIDIA H100" names a family: a 95 GiB or 132-SM device is another board (NVL, SXM5)
    // than the spec the name matched, and the estimate uses that spec's figures.
    const auto spec = std::find_if(known.begin(), known.end(), [&](const Platform& p) { return p.name == r.name; });
    if (spec != known.end()) r.note += figures_mismatch(w.device_figures, *spec);
    return r;
  }
  if (const auto by_figures = figure_matches(w.device_figures, known); !by_figures.empty()) {
    r.name = by_figures.front()->name;
    std::string others;
    for (const Platform* p : by_figures)
      if (p != by_figures.front()) others += (others.empty() ? "" : ", ") + p->name;
    r.note = "recorded on " + r.name + ": the trace names " + w.device +
             (others.empty() ? ", whose vendor, compute units and memory are that platform's and no other's"
                             : ", whose vendor, compute units and memory are that platform's and " + others +
                                   "'s, specs of the same peaks and bandwidth: estimated with " + r.name +
                                   "'s figures, whichever it is");
    return r;
  }
  r.name = placeholder_platform_name(w.device);
  if (r.name.empty()) return r;
  if (is_known(r.name)) {
    r.note = "recorded on " + r.name + ": the trace names " + w.device;
    return r;
  }
  r.create_placeholder = true;
  r.note = "recorded on " + r.name + ": the trace names " + w.device +
           ", which no platform spec describes; a placeholder platform of that name was created (give it a spec "
           "with device_names, or `fomcast bench` it, to estimate on it from its own figures)";
  return r;
}

}  // namespace

RecordingPlatform set_recording_platform(Workload& w, std::string_view given, const std::vector<Platform>& known) {
  RecordingPlatform r = decide(w, given, known);
  w.recorded_on = r.name;
  if (!r.note.empty()) w.notes.push_back(r.note);
  return r;
}

}  // namespace fomcast
