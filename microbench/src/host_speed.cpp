// Host speed: how fast this machine runs the single-threaded, branchy, allocation-heavy
// code that framework overhead consists of (dispatch tables, small tensors' metadata,
// string keys, sorting), as opposed to the vector units the GEMM ceiling measures.
// A fixed, deterministic amount of work; host_speed = reference time / measured time.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "fomcast/microbench.hpp"

namespace fomcast::bench {
namespace {

// The time of host_benchmark_once() on the reference host: the machine this feature was
// developed on (AMD EPYC family 25 model 1 = Zen 3, a 2-vCPU KVM guest, GCC 12.2 -O3,
// Debian 12): five `fomcast bench` runs on 2026-11-22 gave medians of 12.96, 18.74 (the
// machine was busy), 12.96, 12.84 and 13.07 ms; their median, rounded, is 13.0 ms
// (docs/microbench.md). host_speed = 1.0 means as fast as that host.
constexpr double kReferenceSeconds = 0.0130;

struct Node {
  std::string name;
  std::vector<int64_t> dims;
  std::unique_ptr<Node> next;
};

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

uint64_t work() {
  uint64_t sink = 0, state = 12345;
  // A dispatch-like table keyed by strings: build, then look up (hits and misses).
  std::unordered_map<std::string, int> table;
  for (int i = 0; i < 4000; ++i) table.emplace("aten::op_" + std::to_string(i), i);
  for (int i = 0; i < 40000; ++i) {
    state = mix(state + static_cast<uint64_t>(i));
    auto it = table.find("aten::op_" + std::to_string(state % 6000));
    sink += it == table.end() ? 1 : static_cast<uint64_t>(it->second);
  }
  // Small heap objects in a linked structure, like tensor metadata: allocate, walk, free.
  for (int round = 0; round < 20; ++round) {
    std::unique_ptr<Node> head;
    for (int i = 0; i < 1000; ++i) {
      auto n = std::make_unique<Node>();
      n->name = "t" + std::to_string(i);
      n->dims.assign(static_cast<std::size_t>(1 + i % 4), i);
      n->next = std::move(head);
      head = std::move(n);
    }
    for (const Node* n = head.get(); n; n = n->next.get()) sink += n->dims.size() + n->name.size();
    while (head) head = std::move(head->next);  // iterative: no deep recursion on free
  }
  // Branchy integer work: Collatz trajectories.
  for (uint64_t start = 1; start < 30000; ++start) {
    uint64_t x = start, steps = 0;
    while (x != 1) {
      x = (x & 1) ? 3 * x + 1 : x / 2;
      ++steps;
    }
    sink += steps;
  }
  // Sorting and an ordered map of small records.
  std::vector<uint64_t> v(50000);
  for (auto& e : v) e = state = mix(state + 1);
  std::sort(v.begin(), v.end());
  std::map<uint64_t, int> ordered;
  for (std::size_t i = 0; i < 10000; ++i) ordered[v[i * 5] % 7919] += 1;
  sink += v[v.size() / 2] + ordered.size();
  return sink;
}

// The result is kept, so the work cannot be optimised away.
volatile uint64_t g_keep = 0;

}  // namespace

double host_benchmark_once() {
  const auto t0 = std::chrono::steady_clock::now();
  g_keep = g_keep + work();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

double host_reference_s() { return kReferenceSeconds; }

}  // namespace fomcast::bench
