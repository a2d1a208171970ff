// Several ranks of one distributed job read as one workload: each rank's Kineto trace, with
// the execution trace of the same rank where given (the Kineto + ET join), read in
// parallel, one thread per file, then folded into one job.
//
// Pairing: a Kineto trace says its rank in `distributedInfo` (Kineto writes it before
// `traceEvents`); an ET in its record_param_comms calls (the Int before the collective's
// name). Files are paired by that rank, never by file name; an ET's op ids agree with any
// rank's Kineto trace of the same job (docs/ingest.md), so agreement cannot pair them.
//
// The job: the operations are the mean over the ranks (each rank's counts and times summed,
// divided by the ranks), so one op is what one rank does on average; the pass time is the
// slowest rank's step (a synchronous step ends when its last rank does), and every rank's
// step is kept (Workload::rank_pass_s) for the imbalance. Collectives whose group the trace
// does not say run over the whole job (world_size), said in a note. The data dependencies
// (Workload::calls, from the ETs) are the slowest rank's, the rank whose step is the job's.
#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/ops.hpp"
#include "common/readers.hpp"
#include "common/steps.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "pytorch/execution_trace.hpp"
#include "pytorch/kineto.hpp"

namespace fomcast::ingest {
namespace {

struct RankInfo {
  int64_t rank = -1, world_size = -1;
  std::string backend;
};

// `distributedInfo` from the head of a Kineto trace: {"backend", "rank", "world_size"}.
std::optional<RankInfo> kineto_rank(const InputFile& f) {
  const std::string_view head = f.head();
  const std::size_t key = head.find("\"distributedInfo\"");
  if (key == std::string_view::npos) return std::nullopt;
  const std::size_t open = head.find('{', key);
  if (open == std::string_view::npos) return std::nullopt;
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = open; i < head.size(); ++i) {
    const char c = head[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      const auto j = nlohmann::json::parse(head.substr(open, i - open + 1), nullptr, false);
      if (!j.is_object() || !j.contains("rank")) return std::nullopt;
      // A rank that is there but no rank of the job ("1", 1.5, -1, 5 of 2) was read as none,
      // or paired as given.
      const auto& rank = j["rank"];
      if (!rank.is_number_integer() || rank.get<int64_t>() < 0)
        throw InputError(f.path(), "rank " + rank.dump() + " is not a whole number >= 0", 0, -1,
                         "distributedInfo.rank");
      RankInfo r;
      r.rank = rank.get<int64_t>();
      if (j.contains("world_size")) {
        const auto& world = j["world_size"];
        if (!world.is_number_integer() || world.get<int64_t>() < 1)
          throw InputError(f.path(), "world_size " + world.dump() + " is not a whole number >= 1", 0, -1,
                           "distributedInfo.world_size");
        r.world_size = world.get<int64_t>();
        if (r.rank >= r.world_size)
          throw InputError(f.path(),
                           "rank " + std::to_string(r.rank) + " of a job of " + std::to_string(r.world_size) +
                               " ranks (ranks count from 0)",
                           0, -1, "distributedInfo.rank");
      }
      if (j.contains("backend") && j["backend"].is_string()) r.backend = j["backend"].get<std::string>();
      return r;
    }
  }
  return std::nullopt;
}

// The threads that read files at once: --threads, or (0) one per core, never more than the
// files. One thread per file held 64 ranks' traces in memory at once (1.4 GB against 51 MB in
// turn) and aborted where a process limit refused the 256th thread.
std::size_t reading_threads(int requested, std::size_t files) {
  const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t want = requested > 0 ? static_cast<std::size_t>(requested) : cores;
  return std::max<std::size_t>(1, std::min(want, files));
}

// Runs job(i) for i < n on `workers` threads (each takes the next file), or in turn for one;
// the first failure in file order is rethrown after every thread has finished, so an error
// names the same file whichever thread came first. A thread the system refuses leaves its
// share to the others (to this one, where none started). `progress` hears of each file done.
template <class Job>
void for_each_file(std::size_t n, std::size_t workers, Job job, const ProgressFn& progress, std::string_view what) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex report;
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        job(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
      const std::size_t d = ++done;
      if (progress) {
        const std::lock_guard<std::mutex> lock(report);
        progress(static_cast<double>(d), static_cast<double>(n), what);
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < std::min(workers, n); ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

struct Rank {
  RankInfo info;
  const InputFile* kineto = nullptr;
  const InputFile* et_file = nullptr;
  const EtIndex* et = nullptr;
  Workload w;
};

bool is_et_format(const std::string& f) { return f == "pytorch-et" || f == "chakra-json"; }

// Kineto traces by rank, each ET given to the Kineto trace of its rank.
std::vector<Rank> pair_ranks(const std::vector<InputFile>& files, const std::vector<std::string>& formats,
                             const std::vector<std::optional<RankInfo>>& kineto_info,
                             const std::vector<std::optional<EtIndex>>& ets) {
  std::map<int64_t, Rank> by_rank;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (formats[i] != "kineto") continue;
    if (!kineto_info[i])
      throw InputError(files[i].path(),
                       "names no rank (no distributedInfo with a rank before traceEvents): several Kineto traces "
                       "are read together only as the ranks of one distributed job");
    const RankInfo& r = *kineto_info[i];
    auto [it, fresh] = by_rank.try_emplace(r.rank);
    if (!fresh)
      throw InputError(files[i].path(), "is rank " + std::to_string(r.rank) + " of the job, and so is " +
                                            it->second.kineto->path() + ": give each rank's trace once");
    it->second.info = r;
    it->second.kineto = &files[i];
  }
  const int64_t world = by_rank.begin()->second.info.world_size;
  for (const auto& [rank, r] : by_rank)
    if (r.info.world_size != world)
      throw InputError(r.kineto->path(), "is a rank of a job of " + std::to_string(r.info.world_size) + " ranks, " +
                                             by_rank.begin()->second.kineto->path() + " of one of " +
                                             std::to_string(world) + ": not the same job");
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!is_et_format(formats[i])) continue;
    const std::optional<int64_t> rank = ets[i]->rank();
    if (!rank)
      throw InputError(files[i].path(),
                       "records no rank (no record_param_comms call names one): with several ranks' traces an "
                       "execution trace is paired with the Kineto trace of its rank");
    auto it = by_rank.find(*rank);
    if (it == by_rank.end())
      throw InputError(files[i].path(), "is the execution trace of rank " + std::to_string(*rank) +
                                            ", but no Kineto trace of rank " + std::to_string(*rank) + " was given");
    if (it->second.et_file)
      throw InputError(files[i].path(), "is the execution trace of rank " + std::to_string(*rank) + ", and so is " +
                                            it->second.et_file->path() + ": give each rank's trace once");
    it->second.et_file = &files[i];
    it->second.et = &*ets[i];
  }
  std::vector<Rank> out;
  for (auto& [rank, r] : by_rank) out.push_back(std::move(r));
  return out;
}

std::string rank_list(const std::vector<std::pair<double, int64_t>>& steps) {
  std::string s;
  for (std::size_t i = 0; i < steps.size(); ++i)
    s += (i ? ", " : "") + std::to_string(steps[i].second) + ": " + format_duration(steps[i].first);
  return s;
}

// The files of the job, their folder said once when they share one: "DIR/{a, b, ...}".
std::string files_text(const std::vector<std::string>& files) {
  const std::string dir = std::filesystem::path(files.front()).parent_path().string();
  const bool shared = !dir.empty() && std::all_of(files.begin(), files.end(), [&](const std::string& f) {
    return std::filesystem::path(f).parent_path().string() == dir;
  });
  std::string s;
  for (const auto& f : files)
    s += (s.empty() ? "" : ", ") + (shared ? std::filesystem::path(f).filename().string() : f);
  return shared ? dir + "/{" + s + "}" : s;
}

// The ranks' workloads folded into the job's.
Workload fold_ranks(std::vector<Rank>& ranks) {
  const auto n = static_cast<int64_t>(ranks.size());
  const int64_t world = ranks.front().info.world_size;
  Workload job;
  job.ranks = world >= n ? world : n;
  job.origin = ranks.front().w.origin;
  job.device = ranks.front().w.device;
  job.passes = ranks.front().w.passes;
  std::vector<std::pair<double, int64_t>> steps;  // (step, rank)
  OpAggregator agg;
  int64_t group_filled = 0, paired = 0;
  std::vector<std::string> files;
  for (Rank& r : ranks) {
    if (!r.w.pass_s)
      throw InputError(r.kineto->path(), "rank " + std::to_string(r.info.rank) +
                                             " has no pass time: a job's step is its slowest rank's, so every "
                                             "rank's trace must time one");
    steps.emplace_back(*r.w.pass_s, r.info.rank);
    job.rank_pass_s.push_back(*r.w.pass_s);
    job.events += r.w.events;
    job.passes = std::min(job.passes, r.w.passes);
    files.push_back(r.kineto->path());
    if (r.et_file) files.push_back(r.et_file->path());
    if (r.et) ++paired;
    for (Op op : r.w.ops) {
      if (auto* c = std::get_if<CollectiveShape>(&op.shape); c && c->ranks <= 0) {
        c->ranks = job.ranks;
        ++group_filled;
      }
      const std::optional<double> time =
          op.self_time_s ? std::optional<double>(op.count * *op.self_time_s) : std::nullopt;
      agg.add(op, op.count, time);
    }
  }
  job.source = files_text(files);
  job.ops = agg.finish(static_cast<double>(n));
  std::stable_sort(job.ops.begin(), job.ops.end(), [](const Op& a, const Op& b) {
    return a.count * a.self_time_s.value_or(0) > b.count * b.self_time_s.value_or(0);
  });
  const auto slowest = std::max_element(steps.begin(), steps.end());
  const auto fastest = std::min_element(steps.begin(), steps.end());
  // The job's calls are its slowest rank's (the rank whose step is the job's), carried onto
  // the job's ops.
  const Rank& critical =
      *std::find_if(ranks.begin(), ranks.end(), [&](const Rank& r) { return r.info.rank == slowest->second; });
  if (!critical.w.calls.empty()) {
    std::size_t left_out = 0;
    job.calls = calls_onto(critical.w.calls, critical.w.ops, job.ops, left_out);
    const std::size_t edges = dependency_count(job.calls);
    job.notes.push_back("data dependencies: the slowest rank's (" + std::to_string(slowest->second) + "), " +
                        std::to_string(job.calls.size()) + " op calls with " + std::to_string(edges) +
                        " dependencies between them, from its execution trace");
  }
  std::vector<double> only;
  for (const auto& s : steps) only.push_back(s.first);
  const StepStats st = step_stats(only);
  job.pass_s = slowest->first;

  const std::string backend = ranks.front().info.backend;
  job.notes.push_back("distributed job of " + std::to_string(job.ranks) + " ranks" +
                      (backend.empty() ? "" : " (" + backend + ")") + ": " + std::to_string(n) +
                      " ranks' traces read together" +
                      (n < job.ranks ? " (" + std::to_string(job.ranks - n) + " ranks not given)" : std::string()) +
                      ", " + std::to_string(paired) +
                      " with the execution trace of their rank (paired by rank: Kineto's distributedInfo, the ET's "
                      "record_param_comms); operations are the mean over the ranks (their counts and times per rank)");
  job.notes.push_back("pass time is the slowest rank's step, " + format_duration(slowest->first) + " (rank " +
                      std::to_string(slowest->second) + "): a synchronous step ends when its last rank does; " +
                      "rank steps min " + format_duration(fastest->first) + " (rank " +
                      std::to_string(fastest->second) + "), median " + format_duration(st.median_s) + ", max " +
                      format_duration(slowest->first) + ", max/min " +
                      format_number(slowest->first / fastest->first, 2) + " (" + rank_list(steps) + ")");
  if (group_filled > 0)
    job.notes.push_back(std::to_string(group_filled) + " collective ops of the ranks (" + std::to_string(n) +
                        " ranks' distinct ones) whose records do not say their group: taken as the whole job (" +
                        std::to_string(job.ranks) + " ranks)");
  for (const auto& note : ranks.front().w.notes)
    job.notes.push_back("rank " + std::to_string(ranks.front().info.rank) + ": " + note);
  return job;
}

}  // namespace

std::optional<int64_t> kineto_trace_rank(const InputFile& f) {
  if (const auto r = kineto_rank(f)) return r->rank;
  return std::nullopt;
}

Workload read_kineto_ranks(const std::vector<InputFile>& files, const std::vector<std::string>& formats,
                           const IngestOptions& options) {
  const std::size_t threads = reading_threads(options.threads, files.size());
  IngestOptions quiet = options;
  quiet.progress = {};  // each file's own bar would flicker: the bar counts files instead
  // First the ETs (their rank is in their record_param_comms calls) and the Kineto traces'
  // ranks (their head), one thread per file.
  std::vector<std::optional<EtIndex>> ets(files.size());
  std::vector<std::optional<RankInfo>> kineto_info(files.size());
  for_each_file(
      files.size(), threads,
      [&](std::size_t i) {
        if (is_et_format(formats[i]))
          ets[i] = EtIndex::read(files[i], {});
        else
          kineto_info[i] = kineto_rank(files[i]);
      },
      options.progress, "ranks: indexing files");
  std::vector<Rank> ranks = pair_ranks(files, formats, kineto_info, ets);
  // Then each rank's Kineto trace with its ET, one thread per rank.
  for_each_file(
      ranks.size(), threads,
      [&](std::size_t i) {
        Rank& r = ranks[i];
        r.w = read_kineto_joined(*r.kineto, r.et, r.et_file ? r.et_file->path() : std::string(), quiet);
        for (auto& op : r.w.ops) fill_costs(op);
        validate(r.w, r.kineto->path());
      },
      options.progress, "ranks: reading traces");
  return fold_ranks(ranks);
}

}  // namespace fomcast::ingest
