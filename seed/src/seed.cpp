// Fills a database from the shipped data/ compiled into the binary. Each kind of shipped
// data is one step; a step replaces the rows it shipped before and leaves user rows alone.
#include <algorithm>
#include <cstdint>
#include <map>

#include <nlohmann/json.hpp>

#include "fomcast/bench_import.hpp"
#include "fomcast/embedded.hpp"
#include "fomcast/error.hpp"
#include "fomcast/seed.hpp"

namespace fomcast {
namespace {

constexpr uint64_t kNeuSightRowsPerFile = 700;

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  return h;
}

void seed_platforms(Store& store) {
  for (const auto& [path, text] : embedded_files("platforms/")) {
    if (!path.ends_with(".json")) continue;
    const std::string where = "data/" + std::string(path);
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw InputError(where, "shipped platform spec is not valid JSON");
    Platform p = platform_from_json(j, where);
    p.origin = PlatformOrigin::shipped;
    // A user's measured or hand-made platform of the same name wins over ours.
    if (auto existing = store.platform(p.name);
        existing && existing->origin != PlatformOrigin::shipped && !existing->placeholder())
      continue;
    store.put_platform(p);
  }
}

// Every published DeepBench result (data/deepbench/results_*.csv), every platform,
// precision and mode, and NeuSight's PyTorch kernel tables (data/neusight/). Runs after seed_platforms, so the tables
// attach to shipped specs.
void seed_kernel_tables(Store& store) {
  const std::pair<const char*, BenchFormat> files[] = {
      {"deepbench/results_gemm.csv", BenchFormat::deepbench_gemm},
      {"deepbench/results_conv.csv", BenchFormat::deepbench_conv},
      {"deepbench/results_rnn.csv", BenchFormat::deepbench_rnn},
      {"deepbench/results_allreduce.csv", BenchFormat::deepbench_allreduce},
  };
  std::map<std::string, std::vector<KernelEntry>> tables;
  for (const auto& [path, format] : files) {
    auto text = embedded_file(path);
    if (!text) throw InputError("data/" + std::string(path), "shipped kernel table missing from the build");
    for (auto& [platform, entries] : read_bench_csv(*text, "data/" + std::string(path), format).by_platform) {
      auto& all = tables[platform];
      all.insert(all.end(), std::make_move_iterator(entries.begin()), std::make_move_iterator(entries.end()));
    }
  }
  // NeuSight's tables (data/neusight/<op>/<device>.csv.gz): each file's Device column
  // names the card, matched to the shipped spec whose device_names say that card.
  // add and mul (relu and gelu) time the same shapes: one entry each, their mean.
  const std::vector<Platform> known = store.platforms();
  std::vector<std::pair<std::string, BenchImport>> files_read;
  // At most about kNeuSightRowsPerFile rows of a file are seeded (175,000 rows made a new
  // database 80 MB and its first command seconds long): a row is kept when the FNV-1a hash
  // of its shape key is divisible by k, one k per op folder (its largest file's rows /
  // kNeuSightRowsPerFile, rounded down), so every GPU keeps the same shapes: a k per file
  // kept the A100's bmm rows (16,661 rows, k = 23) at shapes the other GPUs' (k = 25) mostly
  // lacked. `import-bench` imports whole files.
  std::map<std::string, uint64_t> k_by_folder;
  for (const auto& [path, text] : embedded_files("neusight/")) {
    if (!path.ends_with(".csv.gz")) continue;
    const std::string where = "data/" + std::string(path);
    BenchImport imported = read_bench_csv(text, where, BenchFormat::neusight);
    resolve_devices(imported, known, where);
    const std::string folder(path.substr(0, path.rfind('/')));
    uint64_t& k = k_by_folder[folder];
    k = std::max<uint64_t>({k, 1, static_cast<uint64_t>(imported.rows) / kNeuSightRowsPerFile});
    files_read.emplace_back(folder, std::move(imported));
  }
  std::map<std::string, std::vector<KernelEntry>> neusight;
  for (auto& [folder, imported] : files_read) {
    const uint64_t k = k_by_folder.at(folder);
    for (auto& [platform, entries] : imported.by_platform) {
      std::erase_if(entries, [k](const KernelEntry& e) { return fnv1a(shape_key(e.shape)) % k != 0; });
      auto& all = neusight[platform];
      all.insert(all.end(), std::make_move_iterator(entries.begin()), std::make_move_iterator(entries.end()));
    }
  }
  for (auto& [platform, entries] : neusight) {
    int64_t merged = 0;
    auto& all = tables[platform];
    for (auto& e : merge_duplicates(std::move(entries), merged)) all.push_back(std::move(e));
  }
  for (const auto& [platform, entries] : tables) {
    store.delete_kernel_entries(platform, TableOrigin::shipped);
    store.put_kernel_entries(platform, entries, TableOrigin::shipped);
  }
}

}  // namespace

void seed_shipped_data(Store& store) {
  store.transaction([&] {
    seed_platforms(store);
    seed_kernel_tables(store);
    seed_model_workloads(store);
  });
}

bool restore_shipped_platform(Store& store, std::string_view name) {
  for (const auto& [path, text] : embedded_files("platforms/")) {
    if (!path.ends_with(".json")) continue;
    const std::string where = "data/" + std::string(path);
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw InputError(where, "shipped platform spec is not valid JSON");
    if (j.value("name", "") != name) continue;
    Platform p = platform_from_json(j, where);
    p.origin = PlatformOrigin::shipped;
    store.put_platform(p);
    return true;
  }
  return false;
}

void seed_if_needed(Store& store) {
  const std::string hash = embedded_data_hash();
  if (store.meta("shipped_data_hash") == hash) return;
  store.transaction([&] {
    // Re-check under the write lock: another process may have seeded meanwhile.
    if (store.meta("shipped_data_hash") == hash) return;
    seed_shipped_data(store);
    store.set_meta("shipped_data_hash", hash);
    store.set_meta("seeded_at", utc_now());
  });
}

}  // namespace fomcast
