// Shared plumbing for the commands.
#include "context.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/seed.hpp"

namespace fomcast::cli {

Store open_store(const Globals& g) {
  std::string path = g.db;
  if (path.empty()) {
    const char* env = std::getenv("FOMCAST_DB");
    path = env && *env ? env : "fomcast.db";
  }
  Store store = Store::open(path);
  seed_if_needed(store);
  return store;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path, "read failed");
  return ss.str();
}

ProgressFn terminal_progress(std::string label) {
  if (!isatty(STDERR_FILENO)) return [](double, double, std::string_view) {};
  auto last = std::make_shared<int>(-1);
  return [label = std::move(label), last](double done, double total, std::string_view what) {
    const int pct = total > 0 ? static_cast<int>(100.0 * done / total) : -1;
    if (pct == *last && pct >= 0 && done < total) return;
    *last = pct;
    const int width = 30;
    std::string bar;
    if (total > 0) {
      const int filled = static_cast<int>(width * std::min(1.0, done / total));
      bar = "[" + std::string(filled, '#') + std::string(width - filled, ' ') + "] " + std::to_string(pct) + "%";
    }
    std::fprintf(stderr, "\r\033[K%s %s %.*s", label.c_str(), bar.c_str(),
                 static_cast<int>(std::min<size_t>(what.size(), 50)), what.data());
    if (total > 0 && done >= total) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  };
}

void print_json(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }

std::string current_commit() {
  if (const char* env = std::getenv("FOMCAST_COMMIT"); env && *env) return env;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen("git rev-parse --short HEAD 2>/dev/null", "r"), pclose);
  if (!pipe) return "";
  char buf[64] = {0};
  if (!std::fgets(buf, sizeof buf, pipe.get())) return "";
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace fomcast::cli
