// The environment a measurement was taken in, captured once per run and written into
// every result (Google Benchmark's sysinfo): CPU, caches, memory, OS, compiler, date.
// Private to microbench/.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace fomcast::bench::detail {

struct HostInfo {
  std::string cpu_model, cpu_vendor, cpu_flags;  // flags: the SIMD ones that matter here
  int online_cpus = 0, physical_cores = 0, sockets = 0;
  int64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;  // per instance, as sysfs lists them
  double memory_bytes = 0;
  std::string os, hostname, governor;
  bool virtualized = false;
};

HostInfo host_info();
nlohmann::json to_json(const HostInfo&);
// "GCC 12.2.0" / "Clang 14.0.6", and the flags fomcast's kernels were built with.
std::string compiler();
std::string utc_timestamp();  // 2026-11-22T03:21:50Z

}  // namespace fomcast::bench::detail
