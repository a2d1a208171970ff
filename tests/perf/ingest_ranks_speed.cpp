// Multi-rank ingest: the param DLRM job's 16 files (8 ranks, each a Kineto trace and its
// ET) read as one job with one thread per file against one after another, in the same run.
//
//   perf_ingest_ranks_speed [--runs R] [--dir DIR]
//
// Prints the median wall time of R runs each way and their ratio (sequential / threaded),
// with the machine's hardware threads: on a busy or small machine the ratio says so. Not a
// test: run it by hand.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "fomcast/ingest.hpp"

namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double time_ingest(const std::vector<std::string>& files, int threads) {
  fomcast::IngestOptions o;
  o.workload = "job";
  o.threads = threads;
  const auto t0 = std::chrono::steady_clock::now();
  const fomcast::Workload w = fomcast::ingest_files(files, o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (w.ranks < 1) std::fprintf(stderr, "no ranks?\n");
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  std::string dir = std::string(FOMCAST_SHARED_DIR) + "/traces-external/param_dlrm_8ranks";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--runs")) runs = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
  }
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<double> threaded, sequential;
  for (int r = 0; r < runs; ++r) {
    threaded.push_back(time_ingest(files, 0));
    sequential.push_back(time_ingest(files, 1));
  }
  const double t = median(threaded), s = median(sequential);
  std::printf("%zu files, %u hardware threads, median of %d runs\n", files.size(), std::thread::hardware_concurrency(),
              runs);
  std::printf("one thread per file: %.1f ms\none after another:   %.1f ms\nratio (sequential / threaded): %.2f\n",
              t * 1e3, s * 1e3, s / t);
  return 0;
}
