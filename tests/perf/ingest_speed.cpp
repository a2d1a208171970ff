// Streaming-ingest benchmark: fomcast's Kineto reader against Python's json.load plus a
// per-(name, Input Dims) aggregation of the same file, measured in the same run.
//
// It builds a large Kineto trace by replicating the events of a shared trace (default:
// the PyTorch 1.9 ResNet-50 trace, 35 MB) N times, shifting timestamps, ids, correlation
// ids and ProfilerStep numbers per copy so the copies read as consecutive steps, then
// times both readers on it, each in a child process whose peak RSS comes from wait4.
//
//   perf_ingest_speed [--copies N] [--runs R] [--source TRACE.json(.gz)] [--keep] [--no-python]
//
// Prints MB/s for both (fomcast: the median of R runs), the ratio, and fomcast's peak RSS
// on the big trace and on a single copy (flat memory: the two should be close). Not a
// test: run it by hand on a quiet machine.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "decode/json_scan.hpp"

namespace fs = std::filesystem;
using fomcast::ingest::InputFile;
using fomcast::ingest::JsonElement;
using fomcast::ingest::JsonStreamSpec;

namespace {

struct Run {
  double wall_s = 0;
  long max_rss_kb = 0;
  int status = -1;
};

// Runs argv in a child; wall time and the child's own peak RSS (wait4).
Run run_child(const std::vector<std::string>& argv, const std::string& stdout_path) {
  Run r;
  const auto t0 = std::chrono::steady_clock::now();
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    if (!stdout_path.empty()) {
      if (!std::freopen(stdout_path.c_str(), "w", stdout)) _exit(127);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.max_rss_kb = usage.ru_maxrss;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Rewrites the number after `"key": ` in an event's text, adding `delta`.
void shift_number(std::string& text, std::string_view key, double delta, bool integral) {
  std::size_t at = 0;
  while ((at = text.find(key, at)) != std::string::npos) {
    std::size_t p = at + key.size();
    while (p < text.size() && (text[p] == ' ' || text[p] == ':')) ++p;
    std::size_t q = p;
    while (q < text.size() && (std::isdigit(static_cast<unsigned char>(text[q])) || text[q] == '.' || text[q] == '-' ||
                               text[q] == 'e' || text[q] == 'E' || text[q] == '+'))
      ++q;
    if (q == p) {
      at = p;
      continue;
    }
    const double v = std::stod(text.substr(p, q - p));
    char buf[64];
    if (integral || text.substr(p, q - p).find('.') == std::string::npos)
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(std::llround(v + delta)));
    else
      std::snprintf(buf, sizeof buf, "%.3f", v + delta);
    text.replace(p, q - p, buf);
    at = p + std::strlen(buf);
  }
}

void shift_step(std::string& text, int64_t delta) {
  const std::string key = "ProfilerStep#";
  std::size_t at = 0;
  while ((at = text.find(key, at)) != std::string::npos) {
    std::size_t p = at + key.size(), q = p;
    while (q < text.size() && std::isdigit(static_cast<unsigned char>(text[q]))) ++q;
    if (q > p) {
      const std::string n = std::to_string(std::stoll(text.substr(p, q - p)) + delta);
      text.replace(p, q - p, n);
      q = p + n.size();
    }
    at = q;
  }
}

// Writes `copies` copies of the source's traceEvents as one trace.
int64_t build_trace(const std::string& source, int copies, const std::string& out_path) {
  std::vector<std::string> events;
  double first = 1e300, last = -1e300;
  int64_t max_id = 0, min_step = INT64_MAX, max_step = 0;
  const InputFile in(source);
  JsonStreamSpec spec;
  spec.array_keys = {"traceEvents"};
  fomcast::ingest::stream_json_array(in, spec, [&](const JsonElement& e) {
    std::string t(e.text);
    auto number_after = [&](std::string_view key, double& out) {
      const auto at = t.find(key);
      if (at == std::string::npos) return false;
      std::size_t p = at + key.size();
      while (p < t.size() && (t[p] == ' ' || t[p] == ':')) ++p;
      try {
        out = std::stod(t.substr(p, 32));
      } catch (...) {
        return false;
      }
      return true;
    };
    double v = 0;
    if (number_after("\"ts\"", v)) {
      first = std::min(first, v);
      double d = 0;
      last = std::max(last, v + (number_after("\"dur\"", d) ? d : 0));
    }
    for (auto key : {"\"External id\"", "\"external id\"", "\"correlation\"", "\"id\""})
      if (number_after(key, v)) max_id = std::max<int64_t>(max_id, static_cast<int64_t>(v));
    if (const auto at = t.find("ProfilerStep#"); at != std::string::npos) {
      const int64_t n = std::atoll(t.c_str() + at + 13);
      min_step = std::min(min_step, n);
      max_step = std::max(max_step, n);
    }
    events.push_back(std::move(t));
  });
  const double span = (last - first) + 1000;
  const int64_t id_step = max_id + 1;
  const int64_t step_step = max_step >= min_step ? max_step - min_step + 1 : 0;
  std::ofstream out(out_path, std::ios::binary);
  out << "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n";
  bool first_event = true;
  for (int c = 0; c < copies; ++c) {
    for (const auto& e : events) {
      std::string t = e;
      if (c > 0) {
        shift_number(t, "\"ts\"", span * c, false);
        for (auto key : {"\"External id\"", "\"external id\"", "\"correlation\"", "\"id\""})
          shift_number(t, key, static_cast<double>(id_step * c), true);
        shift_step(t, step_step * c);
      }
      out << (first_event ? "  " : ",\n  ") << t;
      first_event = false;
    }
  }
  out << "\n  ]\n}\n";
  out.close();
  return static_cast<int64_t>(fs::file_size(out_path));
}

constexpr const char* kPython = R"(
import json, sys, time, collections
t0 = time.perf_counter()
with open(sys.argv[1]) as f:
    d = json.load(f)
agg = collections.defaultdict(lambda: [0, 0.0])
for e in d["traceEvents"] if isinstance(d, dict) else d:
    if e.get("ph") != "X":
        continue
    a = e.get("args") or {}
    s = agg[(e.get("name"), json.dumps(a.get("Input Dims")))]
    s[0] += 1
    s[1] += e.get("dur", 0)
print(len(agg), time.perf_counter() - t0)
)";

}  // namespace

int main(int argc, char** argv) {
  int copies = 10, runs = 3;
  bool keep = false, python = true;
  std::string source = std::string(FOMCAST_SHARED_DIR) +
                       "/traces/pytorch_kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--copies" && i + 1 < argc)
      copies = std::max(1, std::atoi(argv[++i]));
    else if (a == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--source" && i + 1 < argc)
      source = argv[++i];
    else if (a == "--keep")
      keep = true;
    else if (a == "--no-python")
      python = false;
    else {
      std::cerr << "usage: perf_ingest_speed [--copies N] [--runs R] [--source TRACE] [--keep] [--no-python]\n";
      return 2;
    }
  }
  const fs::path dir = fs::temp_directory_path() / ("fomcast-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string trace = (dir / "big.pt.trace.json").string();
  std::cout << "building " << copies << " copies of " << source << " ...\n" << std::flush;
  const int64_t bytes = build_trace(source, copies, trace);
  const double mb = static_cast<double>(bytes) / 1e6;
  std::printf("trace: %s, %.1f MB\n", trace.c_str(), mb);

  const std::string db = (dir / "bench.db").string();
  // Create and seed the database first, so the timed run is the ingest itself.
  run_child({FOMCAST_BIN, "--db", db, "workloads"}, (dir / "seed.out").string());
  // Warm the page cache so both readers see the file in memory.
  run_child({"cat", trace}, "/dev/null");
  std::vector<Run> fruns;
  for (int r = 0; r < runs; ++r) {
    fruns.push_back(run_child({FOMCAST_BIN, "--db", db, "ingest", trace, "--workload", "bench", "--json"},
                              (dir / "fomcast.out").string()));
    if (fruns.back().status != 0) {
      std::cerr << "fomcast failed (status " << fruns.back().status << "); see " << (dir / "fomcast.out").string()
                << "\n";
      return 1;
    }
  }
  std::sort(fruns.begin(), fruns.end(), [](const Run& a, const Run& b) { return a.wall_s < b.wall_s; });
  const Run& f = fruns[fruns.size() / 2];
  std::ifstream fo(dir / "fomcast.out");
  std::string summary((std::istreambuf_iterator<char>(fo)), std::istreambuf_iterator<char>());
  const auto at = summary.find("\"ops\"");
  std::printf("fomcast ingest: median of %d runs %.2f s (best %.2f s), %.0f MB/s, peak RSS %.1f MB\n", runs, f.wall_s,
              fruns.front().wall_s, mb / f.wall_s, static_cast<double>(f.max_rss_kb) / 1024.0);
  if (at != std::string::npos) std::printf("  %s\n", summary.substr(at, summary.find('\n', at) - at).c_str());
  // The same source once: peak RSS of a trace 1/copies the size.
  if (copies > 1) {
    const std::string one = (dir / "one.pt.trace.json").string();
    build_trace(source, 1, one);
    const Run o = run_child({FOMCAST_BIN, "--db", db, "ingest", one, "--workload", "bench1", "--json"}, "/dev/null");
    std::printf("fomcast on one copy (%.1f MB): peak RSS %.1f MB\n", static_cast<double>(fs::file_size(one)) / 1e6,
                static_cast<double>(o.max_rss_kb) / 1024.0);
  }
  if (python) {
    const std::string script = (dir / "reference.py").string();
    std::ofstream(script) << kPython;
    const Run p = run_child({"python3", script, trace}, (dir / "python.out").string());
    if (p.status != 0) {
      std::cerr << "python3 failed (status " << p.status << ")\n";
      return 1;
    }
    std::printf("python json.load + aggregation: %.2f s, %.0f MB/s, peak RSS %.1f MB\n", p.wall_s, mb / p.wall_s,
                static_cast<double>(p.max_rss_kb) / 1024.0);
    std::printf("ratio (fomcast / python throughput): %.1fx\n", p.wall_s / f.wall_s);
  }
  if (!keep)
    fs::remove_all(dir);
  else
    std::printf("kept %s\n", dir.string().c_str());
  return 0;
}
