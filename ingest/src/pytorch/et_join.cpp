// The block-offset agreement: per block, candidate offsets come from the block's rarest
// names among Kineto's ops (each Kineto call of such a name proposes its id minus the ET
// op's), plus the previous block's offset; the most proposed few are counted exactly.
#include "pytorch/et_join.hpp"

#include <algorithm>
#include <unordered_map>

namespace fomcast::ingest {

namespace {
constexpr std::size_t kBlock = 100;
constexpr std::size_t kAnchors = 3;             // rarest names per block that propose offsets
constexpr std::size_t kProposalsPerName = 512;  // a name's Kineto calls looked at, evenly spread
constexpr std::size_t kCandidates = 4;
}  // namespace

std::optional<EtAgreement> et_kineto_agreement(const EtIndex& et,
                                               const std::vector<std::pair<int64_t, uint32_t>>& kineto_ops,
                                               const std::function<const std::string&(uint32_t)>& name) {
  // Names as small integers, shared by both traces.
  std::unordered_map<std::string, uint32_t> name_ids;
  auto name_id = [&](const std::string& n) {
    return name_ids.try_emplace(n, static_cast<uint32_t>(name_ids.size())).first->second;
  };
  std::unordered_map<uint32_t, uint32_t> kineto_key_name;  // Kineto's name key -> name id
  std::unordered_map<int64_t, std::vector<uint32_t>> at_id;
  std::unordered_map<uint32_t, std::vector<int64_t>> ids_of_name;
  for (const auto& [id, key] : kineto_ops) {
    auto [it, fresh] = kineto_key_name.try_emplace(key, 0);
    if (fresh) it->second = name_id(name(key));
    at_id[id].push_back(it->second);
    ids_of_name[it->second].push_back(id);
  }
  std::vector<std::pair<int64_t, uint32_t>> ops;  // ET ops: (rf_id, name id), in rf_id order
  for (const auto& n : et.nodes())
    if (n.rf_id >= 0 && et.by_rf_id(n.rf_id) == &n) ops.emplace_back(n.rf_id, name_id(et.name(n.proto)));
  if (ops.empty()) return std::nullopt;
  std::sort(ops.begin(), ops.end());

  auto matches = [&](int64_t id, uint32_t nm) {
    auto it = at_id.find(id);
    return it != at_id.end() && std::find(it->second.begin(), it->second.end(), nm) != it->second.end();
  };
  EtAgreement a;
  a.et_ops = ops.size();
  int64_t previous = 0;
  for (std::size_t from = 0; from < ops.size(); from += kBlock) {
    const std::size_t to = std::min(ops.size(), from + kBlock);
    // The block's ops whose names Kineto has fewest calls of.
    std::vector<std::pair<std::size_t, std::size_t>> rarest;  // (Kineto calls of the name, op index)
    for (std::size_t i = from; i < to; ++i)
      if (auto it = ids_of_name.find(ops[i].second); it != ids_of_name.end()) rarest.emplace_back(it->second.size(), i);
    std::sort(rarest.begin(), rarest.end());
    std::unordered_map<int64_t, std::size_t> votes{{previous, 0}};
    std::vector<uint32_t> used;
    for (const auto& [calls, i] : rarest) {
      if (used.size() == kAnchors) break;
      if (std::find(used.begin(), used.end(), ops[i].second) != used.end()) continue;
      used.push_back(ops[i].second);
      const auto& ids = ids_of_name.at(ops[i].second);
      const std::size_t step = std::max<std::size_t>(1, ids.size() / kProposalsPerName);
      for (std::size_t k = 0; k < ids.size(); k += step)
        for (std::size_t j = from; j < to; ++j)  // every op of this name in the block proposes
          if (ops[j].second == ops[i].second) ++votes[ids[k] - ops[j].first];
    }
    std::vector<std::pair<std::size_t, int64_t>> ranked;
    for (const auto& [offset, n] : votes) ranked.emplace_back(n, offset);
    std::sort(ranked.rbegin(), ranked.rend());
    if (ranked.size() > kCandidates) ranked.resize(kCandidates);
    if (std::none_of(ranked.begin(), ranked.end(), [&](const auto& r) { return r.second == previous; }))
      ranked.emplace_back(0, previous);
    std::size_t best = 0;
    for (const auto& [n, offset] : ranked) {
      std::size_t count = 0;
      for (std::size_t i = from; i < to; ++i)
        if (matches(ops[i].first + offset, ops[i].second)) ++count;
      if (count > best) {
        best = count;
        previous = offset;
      }
    }
    a.agree += best;
  }
  return a;
}

}  // namespace fomcast::ingest
