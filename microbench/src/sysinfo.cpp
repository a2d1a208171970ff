// Reads /proc and /sys for the machine's description. Linux only, like fomcast; a field
// that cannot be read stays empty or zero rather than guessed.
#include "sysinfo.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

namespace fomcast::bench::detail {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  const auto b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return trim(line);
}

// "32768K" -> bytes
int64_t cache_size(const std::string& text) {
  if (text.empty()) return 0;
  int64_t v = 0;
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) v = v * 10 + (text[i++] - '0');
  const char unit = i < text.size() ? text[i] : ' ';
  return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : v;
}

}  // namespace

HostInfo host_info() {
  HostInfo h;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::set<std::pair<std::string, std::string>> cores;
  std::set<std::string> sockets;
  std::string physical = "0", line;
  for (; std::getline(cpuinfo, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "model name" && h.cpu_model.empty()) h.cpu_model = value;
    if (key == "vendor_id" && h.cpu_vendor.empty()) h.cpu_vendor = value;
    if (key == "physical id") physical = value, sockets.insert(value);
    if (key == "core id") cores.insert({physical, value});
    if (key == "flags" && h.cpu_flags.empty()) {
      std::istringstream fl(value);
      for (std::string f; fl >> f;) {
        if (f == "hypervisor") h.virtualized = true;
        if (f == "avx" || f == "avx2" || f == "fma" || f.rfind("avx512", 0) == 0 || f == "amx_tile" || f == "sve" ||
            f == "neon" || f == "asimd")
          h.cpu_flags += (h.cpu_flags.empty() ? "" : " ") + f;
      }
    }
  }
  h.online_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  h.physical_cores = cores.empty() ? h.online_cpus : static_cast<int>(cores.size());
  h.sockets = sockets.empty() ? 1 : static_cast<int>(sockets.size());
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = first_line(dir + "level"), type = first_line(dir + "type");
    if (level.empty()) break;
    const int64_t size = cache_size(first_line(dir + "size"));
    if (level == "1" && type == "Data") h.l1d_bytes = size;
    if (level == "2") h.l2_bytes = size;
    if (level == "3") h.l3_bytes = size;
  }
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (meminfo >> key >> kb) {
    if (key == "MemTotal:") {
      h.memory_bytes = kb * 1024;
      break;
    }
    meminfo.ignore(1 << 10, '\n');
  }
  utsname u{};
  if (uname(&u) == 0) h.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) h.hostname = host;
  h.governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  return h;
}

nlohmann::json to_json(const HostInfo& h) {
  return {{"cpu_model", h.cpu_model},
          {"cpu_vendor", h.cpu_vendor},
          {"cpu_simd", h.cpu_flags},
          {"online_cpus", h.online_cpus},
          {"physical_cores", h.physical_cores},
          {"sockets", h.sockets},
          {"l1d_bytes", h.l1d_bytes},
          {"l2_bytes", h.l2_bytes},
          {"l3_bytes", h.l3_bytes},
          {"memory_bytes", h.memory_bytes},
          {"os", h.os},
          {"hostname", h.hostname},
          {"frequency_governor", h.governor.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.governor)},
          {"virtualized", h.virtualized}};
}

std::string compiler() {
#if defined(__clang__)
  return "Clang " __clang_version__;
#elif defined(__GNUC__)
  return "GCC " __VERSION__;
#else
  return "unknown compiler";
#endif
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace fomcast::bench::detail
