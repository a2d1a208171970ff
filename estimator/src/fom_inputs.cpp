// What a recorded FOM was computed from, as fingerprints, so that `fomcast check` can tell a
// FOM that moved because an input changed (a spec edited with `platforms add`, a table
// re-imported, a workload re-ingested) from one that moved because the tool did.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fomcast/fom.hpp"
#include "fomcast/format.hpp"
#include "fomcast/json_forms.hpp"
#include "fomcast/store.hpp"

namespace fomcast {

namespace {

// FNV-1a over 64 bits: the same on every build and machine, which std::hash does not promise.
std::string digest(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

std::string table_text(const KernelTable& t) {
  std::string all;
  char time[32];
  for (const auto& e : t.entries) {
    std::snprintf(time, sizeof time, "%.17g", e.time_us);
    all.append(to_string(e.kind)).append("|").append(shape_key(e.shape)).append("|").append(to_string(e.dtype));
    all.append("|").append(to_string(e.precision)).append("|").append(to_string(e.mode)).append("|").append(time);
    all.push_back('\n');
  }
  return all;
}

std::string workload_text(const Workload& w) {
  nlohmann::json j{{"batch_size", w.batch_size},   {"samples_per_epoch", w.samples_per_epoch},
                   {"epochs", w.epochs},           {"passes", w.passes},
                   {"recorded_on", w.recorded_on}, {"ranks", w.ranks},
                   {"rank_pass_s", w.rank_pass_s}, {"memory_format", w.memory_format},
                   {"calls", w.calls.size()}};
  j["pass_s"] = w.pass_s ? nlohmann::json(*w.pass_s) : nlohmann::json(nullptr);
  j["model"] = w.model ? model_stats_to_json(*w.model) : nlohmann::json(nullptr);
  auto& ops = j["ops"] = nlohmann::json::array();
  for (const auto& op : w.ops) ops.push_back(op_to_json(op));
  return j.dump();
}

std::string calibrations_text(const std::vector<Calibration>& cs) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& c : cs) {
    j.push_back({c.platform, c.pass_s ? nlohmann::json(*c.pass_s) : nlohmann::json(nullptr),
                 c.epoch_s ? nlohmann::json(*c.epoch_s) : nlohmann::json(nullptr),
                 c.run_s ? nlohmann::json(*c.run_s) : nlohmann::json(nullptr)});
    // Only where recorded: a calibration stored before batches were kept reads as it did.
    if (c.batch_size > 0) j.back().push_back(c.batch_size);
  }
  return j.dump();
}

// "H100, B200 and 2 more" from names, in order.
std::string some(const std::set<std::string>& names) {
  std::string out;
  std::size_t i = 0;
  for (const auto& n : names) {
    if (i == 3) return out + " and " + std::to_string(names.size() - 3) + " more";
    out += (i == 0 ? "" : ", ") + n;
    ++i;
  }
  return out;
}

// "target H100 -> H100_PCIe" where the two records' studies name other machines or node
// counts; "" where they are the same (or a record's study cannot be read).
std::string machines_changed(const FomRecord& before, const FomRecord& now) {
  const auto a = nlohmann::json::parse(before.study_json, nullptr, false);
  const auto b = nlohmann::json::parse(now.study_json, nullptr, false);
  if (a.is_discarded() || b.is_discarded()) return "";
  std::string out;
  for (const char* side : {"baseline", "target"})
    for (const char* field : {"platform", "nodes"}) {
      const nlohmann::json x =
          a.value(nlohmann::json::json_pointer(std::string("/") + side + "/" + field), nlohmann::json());
      const nlohmann::json y =
          b.value(nlohmann::json::json_pointer(std::string("/") + side + "/" + field), nlohmann::json());
      if (x != y)
        out += (out.empty() ? "" : ", ") + std::string(side) + " " + field + " " +
               (x.is_string() ? x.get<std::string>() : x.dump()) + " -> " +
               (y.is_string() ? y.get<std::string>() : y.dump());
    }
  return out;
}

// A recorded study's problems by name; none where its JSON cannot be read.
std::map<std::string, nlohmann::json> problems_by_name(const std::string& study_json) {
  std::map<std::string, nlohmann::json> out;
  const auto j = nlohmann::json::parse(study_json, nullptr, false);
  if (j.is_discarded() || !j.contains("problems") || !j["problems"].is_array()) return out;
  for (const auto& p : j["problems"])
    if (p.is_object() && p.contains("name") && p["name"].is_string()) out[p["name"].get<std::string>()] = p;
  return out;
}

// "added P4; removed P2" where the two records' studies hold other problems (by name); ""
// where they hold the same. A FOM over other problems is another harmonic mean: removing a
// study's slowest problem raised one by 34% without a word.
std::string problems_changed(const FomRecord& before, const FomRecord& now) {
  const auto a = problems_by_name(before.study_json), b = problems_by_name(now.study_json);
  std::string added, removed;
  for (const auto& [n, p] : b)
    if (!a.count(n)) added += (added.empty() ? "" : ", ") + n;
  for (const auto& [n, p] : a)
    if (!b.count(n)) removed += (removed.empty() ? "" : ", ") + n;
  std::string out;
  if (!added.empty()) out = "added " + added;
  if (!removed.empty()) out += (out.empty() ? "" : "; ") + std::string("removed ") + removed;
  return out;
}

// "P1: baseline_hours 10 -> 20" where a problem both records' studies hold gives other
// figures (measured hours or times, batch, epochs, a layout); "" where none does. The FOM is
// computed from them: a baseline_hours edited 10 -> 20 -> 10 failed `check` with "dropped
// 16.81%" and the history said nothing changed.
std::string measurements_changed(const FomRecord& before, const FomRecord& now) {
  const auto text = [](const nlohmann::json& v) {
    return v.is_null() ? std::string("none") : v.is_number() ? format_significant(v.get<double>()) : v.dump();
  };
  const auto a = problems_by_name(before.study_json), b = problems_by_name(now.study_json);
  std::string out;
  int said = 0;
  for (const auto& [name, x] : a) {
    const auto y = b.find(name);
    if (y == b.end()) continue;
    std::set<std::string> keys;
    for (const auto& [k, v] : x.items()) keys.insert(k);
    for (const auto& [k, v] : y->second.items()) keys.insert(k);
    for (const auto& k : keys) {
      if (k == "name" || k == "note" || k == "description") continue;  // words, not figures
      const nlohmann::json u = x.value(k, nlohmann::json()), v = y->second.value(k, nlohmann::json());
      if (u == v) continue;
      if (++said <= 4) out += (out.empty() ? "" : ", ") + name + ": " + k + " " + text(u) + " -> " + text(v);
    }
  }
  if (said > 4) out += " and " + std::to_string(said - 4) + " more";
  return out;
}

}  // namespace

std::string fom_inputs_json(const Study& study, const Store& store) {
  nlohmann::json j = nlohmann::json::object();
  const bool estimates = std::any_of(study.problems.begin(), study.problems.end(),
                                     [](const StudyProblem& p) { return p.workload.has_value(); });
  // Measured hours alone make the FOM from the study: nothing else to fingerprint.
  if (!estimates) return j.dump();
  // Every platform's, not only the two sides': a platform with no table of its own is
  // estimated from the others' tables and specs.
  auto& specs = j["platform_specs"] = nlohmann::json::object();
  for (const auto& p : store.platforms()) specs[p.name] = digest(platform_to_json(p).dump());
  auto& tables = j["kernel_tables"] = nlohmann::json::object();
  for (const auto& [name, t] : load_catalog(store).tables) tables[name] = digest(table_text(t));
  auto& workloads = j["workloads"] = nlohmann::json::object();
  auto& calibrations = j["calibrations"] = nlohmann::json::object();
  for (const auto& p : study.problems) {
    if (!p.workload || workloads.contains(*p.workload)) continue;
    const auto w = store.workload(*p.workload);
    workloads[*p.workload] = w ? digest(workload_text(*w)) : std::string("absent");
    calibrations[*p.workload] = digest(calibrations_text(store.calibrations(*p.workload)));
  }
  return j.dump();
}

std::string fom_inputs_changed(std::string_view before_json, std::string_view now_json) {
  const auto a = nlohmann::json::parse(before_json, nullptr, false);
  const auto b = nlohmann::json::parse(now_json, nullptr, false);
  // A record made before fingerprints were kept (or a measured-hours study) says nothing.
  if (!a.is_object() || !b.is_object() || a.empty() || b.empty()) return "";
  std::string out;
  const auto compare = [&](const char* key, const std::string& what) {
    const nlohmann::json none = nlohmann::json::object();
    const auto& x = a.contains(key) ? a[key] : none;
    const auto& y = b.contains(key) ? b[key] : none;
    std::set<std::string> changed, added, removed;
    for (const auto& [name, h] : y.items())
      if (!x.contains(name))
        added.insert(name);
      else if (x[name] != h)
        changed.insert(name);
    for (const auto& [name, h] : x.items())
      if (!y.contains(name)) removed.insert(name);
    const auto say = [&](const std::set<std::string>& names, const std::string& how) {
      if (!names.empty()) out += (out.empty() ? "" : "; ") + what + " " + how + ": " + some(names);
    };
    say(changed, "changed");
    say(added, "added");
    say(removed, "removed");
  };
  compare("platform_specs", "platform specs");
  compare("kernel_tables", "kernel tables");
  compare("workloads", "workloads");
  compare("calibrations", "calibrations of workloads");
  return out;
}

std::vector<std::string> fom_record_changes(const FomRecord& before, const FomRecord& now) {
  std::vector<std::string> out;
  if (const std::string moved = machines_changed(before, now); !moved.empty())
    out.push_back("the machines changed between the two records (" + moved + "): the FOMs compare different machines");
  if (const std::string moved = problems_changed(before, now); !moved.empty())
    out.push_back("the problems changed between the two records (" + moved +
                  "): the FOMs are harmonic means over different problems");
  if (const std::string moved = measurements_changed(before, now); !moved.empty())
    out.push_back("the problems' own figures changed between the two records (" + moved +
                  "): the FOMs differ by what the study gives, not by the tool");
  if (const std::string moved = fom_inputs_changed(before.inputs_json, now.inputs_json); !moved.empty())
    out.push_back("the inputs changed between the two records (" + moved +
                  "): the FOMs differ by their inputs, not only by the tool");
  return out;
}

}  // namespace fomcast
