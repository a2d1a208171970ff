// Seed step for the shipped model workloads: every data/models/*.json is expanded into a
// training pass and stored as a shipped workload under the model's own name.
#include <algorithm>

#include "fomcast/embedded.hpp"
#include "fomcast/error.hpp"
#include "fomcast/layers.hpp"
#include "fomcast/seed.hpp"

namespace fomcast {

void seed_model_workloads(Store& store) {
  std::vector<std::string> users;  // names the user has taken for workloads of their own
  for (const auto& s : store.workloads())
    if (!s.shipped) users.push_back(s.name);
  for (const auto& [path, text] : embedded_files("models/")) {
    if (!path.ends_with(".json")) continue;
    const std::string where = "data/" + std::string(path);
    ExpandedModel m = expand_model(text, where);
    if (m.workload.name.empty()) throw InputError(where, "a shipped model needs a name", 0, -1, "name");
    if (std::find(users.begin(), users.end(), m.workload.name) != users.end()) continue;
    store.put_workload(m.workload, /*shipped=*/true);
  }
}

bool restore_shipped_workload(Store& store, std::string_view name) {
  for (const auto& [path, text] : embedded_files("models/")) {
    if (!path.ends_with(".json")) continue;
    ExpandedModel m = expand_model(text, "data/" + std::string(path));
    if (m.workload.name != name) continue;
    store.put_workload(m.workload, /*shipped=*/true);
    return true;
  }
  return false;
}

}  // namespace fomcast
