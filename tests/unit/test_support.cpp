#include "test_support.hpp"

#include <sys/wait.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include <doctest/doctest.h>

#include "fomcast/seed.hpp"

namespace fomcast::test {

namespace fs = std::filesystem;

ScratchDir::ScratchDir() {
  static std::atomic<int> counter{0};
  std::random_device rd;
  path = fs::temp_directory_path() / ("fomcast-test-" + std::to_string(rd()) + "-" + std::to_string(counter++));
  fs::create_directories(path);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

std::string ScratchDir::write(const std::string& name, const std::string& contents) const {
  std::string p = file(name);
  std::ofstream(p, std::ios::binary) << contents;
  return p;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Workload one_op_model(Op op, const std::string& memory_format) {
  Workload w;
  w.name = "one";
  w.origin = "model";
  w.memory_format = memory_format;
  w.ops = {std::move(op)};
  return w;
}

Store open_seeded(const std::string& path) {
  Store store = Store::open(path);
  seed_if_needed(store);
  return store;
}

RunResult run_fomcast(const std::string& args, const std::string& db) {
  ScratchDir tmp;
  const std::string out = tmp.file("out"), err = tmp.file("err");
  std::string cmd = std::string("'") + FOMCAST_BIN + "'";
  if (!db.empty()) cmd += " --db '" + db + "'";
  cmd += " " + args + " >'" + out + "' 2>'" + err + "' </dev/null";
  const int raw = std::system(cmd.c_str());
  RunResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + (WIFSIGNALED(raw) ? WTERMSIG(raw) : 0);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string source_path(const std::string& rel) { return std::string(FOMCAST_SOURCE_DIR) + "/" + rel; }

std::string shared_path(const std::string& rel) {
  std::string p = std::string(FOMCAST_SHARED_DIR) + "/" + rel;
  REQUIRE_MESSAGE(fs::exists(p), "shared test input missing: " << p << " (shared/ must sit beside the checkout)");
  return p;
}

std::string file_fingerprint(const std::string& path) {
  if (!fs::exists(path)) return "absent";
  // With WAL, committed pages may still sit in the -wal file: both together are the state.
  std::string bytes = slurp(path);
  if (fs::exists(path + "-wal")) bytes += slurp(path + "-wal");
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return std::to_string(bytes.size()) + ":" + std::to_string(h);
}

}  // namespace fomcast::test
