// The list of formats and the ingest driver: detect, read, stamp the result with its name,
// origin and platform, and check it is a workload worth storing.
#include <algorithm>
#include <cmath>
#include <map>

#include "common/readers.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"

namespace fomcast::ingest {

// The readers in detection order, one line each (each defined in its own file).
const std::vector<FormatReader>& readers() {
  static const std::vector<FormatReader> kReaders = {
      kModelFormat,      kKinetoFormat, kPytorchEtFormat, kChakraJsonFormat,   kChakraEtFormat,
      kTfTimelineFormat, kXplaneFormat, kTfprofOpFormat,  kTfprofShapesFormat, kNsysSqliteFormat,
      kTauFormat,        kPprofFormat,  kCprofileFormat,
  };
  return kReaders;
}

// The pairs of files read together, one line each.
const std::vector<FormatJoin>& joins() {
  static const std::vector<FormatJoin> kJoins = {
      kKinetoEtJoin,
  };
  return kJoins;
}

const FormatReader* find_reader(std::string_view name) {
  for (const auto& r : readers())
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace fomcast::ingest

namespace fomcast {

std::vector<std::string> ingest_formats() {
  std::vector<std::string> out;
  for (const auto& r : ingest::readers()) out.emplace_back(r.name);
  return out;
}

namespace {

// "auto, kineto, pytorch-et, ...": what --format takes.
std::string format_names() {
  std::string out = "auto";
  for (const auto& name : ingest_formats()) out += ", " + name;
  return out;
}

// The reader that scores a head highest; null when none claims it.
const ingest::FormatReader* best_reader(std::string_view head, const std::string& path) {
  const ingest::FormatReader* best = nullptr;
  int best_score = 0;
  for (const auto& r : ingest::readers()) {
    const int score = r.detect(head, path);
    if (score > best_score) {
      best_score = score;
      best = &r;
    }
  }
  return best;
}

// A JSON object whose first 64 KiB hold no format's keys: a large field before them (a
// 64 KB "meta" string ahead of "traceEvents" had been "not a format fomcast reads").
constexpr std::size_t kLongHeadBytes = std::size_t{16} << 20;

// Where a whole JSON document (`text`, from its first byte) is cut short: the offset at its
// end when a string or a bracket is still open there, -1 when it closes.
int64_t json_open_at_end(std::string_view text) {
  int64_t depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return in_string || depth > 0 ? static_cast<int64_t>(text.size()) : -1;
}

// Which reader a file is for, from its decompressed head and its name.
std::string detect(const ingest::InputFile& file) {
  const std::string& path = file.path();
  const std::string_view head = file.head();
  if (head.empty()) throw InputError(path, "empty file", 0, 0);
  const ingest::FormatReader* best = best_reader(head, path);
  const std::size_t first = head.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  if (!best && first != std::string_view::npos && head[first] == '{' && head.size() == 64 * 1024)
    best = best_reader(file.head_of(kLongHeadBytes), path);
  if (!best) {
    if (const std::string why = ingest::unsupported_format_message(head, path); !why.empty())
      throw InputError(path, why, 0, 0);
    // A JSON file cut before the keys that tell its format: say so, not "not a format".
    if (first != std::string_view::npos && (head[first] == '{' || head[first] == '[') && head.size() < 64 * 1024)
      if (const int64_t end = json_open_at_end(head); end >= 0)
        throw InputError(path,
                         "a JSON document that ends at byte " + std::to_string(end) +
                             " with a bracket or string still open, before any format's keys (truncated?)",
                         0, end);
    std::string names;
    for (const auto& n : ingest_formats()) names += (names.empty() ? "" : ", ") + n;
    throw InputError(path, "not a format fomcast reads (known: " + names + "); use --format to force one", 0, 0);
  }
  return std::string(best->name);
}

}  // namespace

std::string detect_format(const std::string& path) { return detect(ingest::InputFile::open(path)); }

namespace ingest {

// Final checks every reader's output passes before it may reach the store: a workload
// with a NaN or negative time must never be stored as if it were a measurement.
constexpr int64_t kMaxCollectiveRanks = int64_t{1} << 24;
// Ops' time per pass over the pass time past which an event's duration is corrupt: threads
// and streams overlap (a 32-thread host, a few GPU streams), but not a thousand deep. One
// kernel's "dur" of 1e9 us made a GEMM of 16.7 minutes in a 4.4 ms step.
constexpr double kMaxOpTimeOverPass = 1000;

void validate(const Workload& w, const std::string& source) {
  // How much was read, and as what: an A100 trace of seven CUDA runtime calls and no op or
  // kernel (the profiler's "Op count" 0) had said only "no operations found".
  if (w.ops.empty())
    throw InputError(source, "no operations found" +
                                 (w.events > 0 ? ": " + std::to_string(w.events) + " events read as " + w.origin +
                                                     ", none of them an operation, kernel or copy (a profile of no "
                                                     "work, or of activity this format does not count)"
                                               : std::string()));
  auto bad = [](double v) { return !std::isfinite(v) || v < 0; };
  if (w.pass_s && (bad(*w.pass_s) || *w.pass_s == 0)) throw InputError(source, "pass time is not a positive number");
  if (w.pass_s && w.measured_op_time_s() > kMaxOpTimeOverPass * *w.pass_s) {
    const Op* longest = nullptr;
    for (const auto& op : w.ops)
      if (op.self_time_s && (!longest || op.count * *op.self_time_s > longest->count * *longest->self_time_s))
        longest = &op;
    throw InputError(source, "the operations take " + format_duration(w.measured_op_time_s()) + " per pass, " +
                                 format_significant(w.measured_op_time_s() / *w.pass_s) + " times the pass (" +
                                 format_duration(*w.pass_s) + "): an event's duration is corrupt (the longest: '" +
                                 longest->name + "', " + format_duration(longest->count * *longest->self_time_s) +
                                 " per pass)");
  }
  for (const auto& op : w.ops) {
    if (bad(op.count) || op.count == 0) throw InputError(source, "operation '" + op.name + "' has a bad count");
    if (op.self_time_s && bad(*op.self_time_s))
      throw InputError(source, "operation '" + op.name + "' has a negative or non-finite time");
    for (const auto& [what, v] : {std::pair{"flops", op.flops}, std::pair{"bytes", op.bytes}})
      if (bad(v))
        throw InputError(source, "operation '" + op.name + "': its " + what + " come out as " + format_significant(v) +
                                     " (a size or count in the input out of range?)");
    // A group size read from a collective's arguments: the largest jobs run some 10^5 ranks.
    if (const auto* c = std::get_if<CollectiveShape>(&op.shape); c && c->ranks > kMaxCollectiveRanks)
      throw InputError(source, "collective '" + op.name + "' over " + std::to_string(c->ranks) +
                                   " ranks: no job has that many (at most " + std::to_string(kMaxCollectiveRanks) +
                                   "; a corrupt group size in the input?)");
  }
  // Every op measured at 0: no profiler's clock does that over a whole run, so the durations
  // are missing or zeroed, and 0 s stored as a measurement would be a silent zero.
  const bool any_timed = std::any_of(w.ops.begin(), w.ops.end(), [](const Op& o) { return o.self_time_s.has_value(); });
  if (any_timed && std::all_of(w.ops.begin(), w.ops.end(), [](const Op& o) { return o.self_time_s.value_or(0) == 0; }))
    throw InputError(source, "every operation's measured time is 0 (" + std::to_string(w.ops.size()) +
                                 " operations): the durations are missing or zeroed, not a measurement");
}

}  // namespace ingest

namespace {

// The batch a trace ran at where its shapes say it without doubt: the N of its forward
// convolutions (an N x C x H x W input), when nine in ten of their calls share one. A
// transformer's activations are flattened to (batch x sequence) rows and its embedding
// lookups mix the two, so no rule reads those; `ingest --batch` gives it.
std::optional<int64_t> batch_from_convs(const Workload& w) {
  std::map<int64_t, double> calls_by_n;
  double calls = 0;
  for (const auto& op : w.ops)
    if (const auto* c = std::get_if<ConvShape>(&op.shape); c && c->direction == ConvDirection::forward && c->n > 0)
      calls_by_n[c->n] += op.count, calls += op.count;
  for (const auto& [n, k] : calls_by_n)
    if (k >= 0.9 * calls) return n;
  return std::nullopt;
}

// Stamps a reader's result with its name, origin and platform, and checks it.
Workload finish(Workload w, const std::string& format, const std::string& path, const IngestOptions& options) {
  w.name = options.workload;
  if (w.origin.empty()) w.origin = format;
  if (w.source.empty()) w.source = path;
  if (!options.platform.empty()) w.recorded_on = options.platform;
  for (auto& op : w.ops) {
    fill_costs(op);
    // Which implementation ran it, where its name says (oneDNN, im2col + BLAS, cuDNN, MIOpen).
    if (op.implementation == Implementation::unknown) op.implementation = implementation_from_name(op.name);
  }
  // A trace of forward work alone (an inference or evaluation run) estimates that pass, not a
  // training step, whose backward is about twice the forward's work: an evaluation graph had
  // read as a training pass without a word.
  const bool computes = std::any_of(w.ops.begin(), w.ops.end(), [](const Op& op) {
    return op.kind == OpKind::gemm || op.kind == OpKind::batched_gemm || op.kind == OpKind::conv;
  });
  const bool trains = std::any_of(w.ops.begin(), w.ops.end(), [](const Op& op) {
    return op.phase == Phase::backward || op.phase == Phase::optimizer || op.kind == OpKind::optimizer;
  });
  if (computes && !trains)
    w.notes.push_back(
        "no backward or optimizer operation: the trace reads as forward work only (an inference or evaluation "
        "run), and its estimates are of that pass, not of a training step (about 3x the forward's work); if it "
        "is a training step, its backward operations were not recognised");
  // The batch: the reader's (a model file, tfprof's -1 dimension), else --batch, else the
  // forward convolutions'. Without one a trace's estimate has no samples per second, and
  // --batch was read by tfprof alone: a Kineto trace ingested with --batch 256 kept none.
  if (w.batch_size <= 0 && options.batch_size > 0) {
    w.batch_size = options.batch_size;
  } else if (w.batch_size <= 0) {
    if (const auto n = batch_from_convs(w)) {
      w.batch_size = *n;
      w.notes.push_back("batch " + std::to_string(*n) +
                        " per pass, the N of the forward convolutions (the trace does not record the batch; "
                        "`ingest --batch` gives another)");
    }
  } else if (options.batch_size > 0 && options.batch_size != w.batch_size) {
    throw UsageError("--batch " + std::to_string(options.batch_size) + ": " + path + " states a batch of " +
                     std::to_string(w.batch_size));
  }
  ingest::validate(w, path);
  return w;
}

// Several files: they must be the two halves of one run that a join in kJoins reads.
Workload ingest_together(const std::vector<std::string>& paths, const IngestOptions& options) {
  if (options.format != "auto")
    throw UsageError("with several files each is recognised by its content; leave out --format");
  std::vector<ingest::InputFile> files;
  std::vector<std::string> formats;
  for (const auto& p : paths) {
    files.push_back(ingest::InputFile::open(p));
    formats.push_back(detect(files.back()));
  }
  // The ranks of one job: more than two files, or two Kineto traces.
  const auto kineto_files = std::count(formats.begin(), formats.end(), "kineto");
  if (paths.size() > 2 || kineto_files == 2) {
    const bool all_pytorch = std::all_of(formats.begin(), formats.end(), [](const std::string& f) {
      return f == "kineto" || f == "pytorch-et" || f == "chakra-json";
    });
    if (all_pytorch && kineto_files > 0)
      return finish(ingest::read_kineto_ranks(files, formats, options), formats[0], files[0].path(), options);
  }
  if (paths.size() == 2) {
    for (const auto& j : ingest::joins())
      for (int t = 0; t < 2; ++t) {
        const int s = 1 - t;
        if (formats[t] != j.timed || std::find(j.shaped.begin(), j.shaped.end(), formats[s]) == j.shaped.end())
          continue;
        return finish(j.read(files[t], files[s], options), formats[t], files[t].path(), options);
      }
  }
  std::string found;
  for (std::size_t i = 0; i < paths.size(); ++i) found += (i ? ", " : "") + paths[i] + " (" + formats[i] + ")";
  std::string pairs;
  for (const auto& j : ingest::joins())
    for (const auto& s : j.shaped) pairs += (pairs.empty() ? "" : ", ") + std::string(j.timed) + " + " + std::string(s);
  throw UsageError("several files are read together only when they are two records of one run (" + pairs +
                   ") or the ranks of one job (Kineto traces, each with its rank's execution trace or none); got " +
                   found);
}

}  // namespace

Workload ingest_files(const std::vector<std::string>& paths, const IngestOptions& options) {
  if (paths.empty()) throw UsageError("ingest needs at least one file");
  if (options.workload.empty()) throw UsageError("ingest needs --workload NAME");
  if (paths.size() > 1) return ingest_together(paths, options);
  const ingest::FormatReader* forced = nullptr;
  if (options.format != "auto" && !(forced = ingest::find_reader(options.format)))
    throw UsageError("unknown format '" + options.format + "' (" + format_names() + ")");
  const ingest::InputFile file = ingest::InputFile::open(paths.front());
  const std::string format = forced ? options.format : detect(file);
  return finish(ingest::find_reader(format)->read(file, options), format, file.path(), options);
}

}  // namespace fomcast
