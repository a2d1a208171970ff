// Shared plumbing for the commands.
#include "context.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "fomcast/embedded.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "fomcast/platform_match.hpp"
#include "fomcast/seed.hpp"
#include "fomcast/text.hpp"

namespace fomcast::cli {

CLI::Validator in_range(const NumberRange& range) {
  return CLI::Validator(
      [range](std::string& text) {
        std::string normalised;
        std::string problem = text_range_problem(text, range, &normalised);
        if (problem.empty()) text = normalised;
        return problem;
      },
      // In --help after the type: "FLOAT:[0.001, 1e+06]".
      "[" + format_significant(range.min, 6) + ", " + format_significant(range.max, 6) + "]");
}

void add_to_every_command(CLI::App& app, const std::function<void(CLI::App&)>& add) {
  for (CLI::App* sub : app.get_subcommands({})) {
    add(*sub);
    add_to_every_command(*sub, add);
  }
}

std::string database_path(const Globals& g) {
  if (!g.db.empty()) return g.db;
  const char* env = std::getenv("FOMCAST_DB");
  return env && *env ? env : "fomcast.db";
}

Store open_store(const Globals& g) {
  Store store = Store::open(database_path(g));
  seed_if_needed(store);
  return store;
}

Store open_existing_store(const Globals& g, std::string_view command) {
  const std::string path = database_path(g);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw UsageError(std::string(command) + ": no database at " + path +
                     " (it reads the FOM records `fom --record` stored there; --db or $FOMCAST_DB names the file)");
  return open_store(g);
}

void require_platform(const Store& store, const std::string& name, const std::string& flag) {
  check_platform_name(name, store.platforms());  // "did you mean NV_V100?" for a near miss
  if (!store.platform(name)) throw UsageError(flag + ": " + unknown_platform_message(name, store.platforms()));
}

void require_study_platforms(const Store& store, const Study& study) {
  for (const auto& [side, field] :
       {std::pair{&study.baseline, "baseline.platform"}, std::pair{&study.target, "target.platform"}})
    if (!store.platform(side->platform))
      throw InputError(study.file, unknown_platform_message(side->platform, store.platforms()), 0, -1, field);
}

Workload require_workload(const Store& store, const std::string& name, const std::string& flag) {
  auto w = store.workload(name);
  if (w) return std::move(*w);
  std::vector<std::string> names;
  for (const auto& s : store.workloads()) names.push_back(s.name);
  // The study's wording, "unknown workload 'x': did you mean y? (see ...)", as "no workload
  // named": one sentence for both.
  std::string message = unknown_workload_message(name, names);
  message.replace(0, std::string_view("unknown workload").size(), "no workload named");
  throw UsageError((flag.empty() ? std::string() : flag + ": ") + message);
}

std::string empty_precision(const std::string& value) {
  return value.empty() ? "an empty precision: give one of " + std::string(kPrecisionModeNames) +
                             ", or leave the flag out for the workload's as recorded"
                       : "";
}

PrecisionMode precision_flag(const std::string& value) {
  if (value.empty()) return PrecisionMode::recorded;
  if (auto mode = parse_precision_mode(value)) return *mode;
  throw UsageError("--precision: unknown precision '" + value + "' (" + kPrecisionModeNames + ")");
}

void require_workload_name(const std::string& name, const std::string& flag) {
  if (std::string problem = workload_name_problem(name); !problem.empty())
    throw UsageError(flag + ": a workload name " + problem);
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  // A directory opens on Linux and reads as empty: "not valid JSON ... unexpected end of
  // input" said nothing of what was wrong.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, std::string("cannot open for reading: ") + std::strerror(errno));
  std::string all;
  std::vector<char> buf(std::size_t{1} << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (all.size() + n > max_bytes)
      throw InputError(path, "larger than " + std::to_string(max_bytes >> 20) + " MiB, more than any file of its kind",
                       0, static_cast<int64_t>(max_bytes));
    all.append(buf.data(), n);
  }
  if (in.bad()) throw InputError(path, "read failed");
  return all;
}

std::string read_study(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return read_file(path);
  // The README's `fom data/studies/candle-exascale.json` failed with the binary alone, or
  // from another directory: the shipped studies are in the binary.
  // Only a bare name or the README's relative form: a path elsewhere that is missing
  // (/ci/checkout/data/studies/x.json) is an error, not the shipped study of that name, which a
  // CI job would have computed and recorded in place of its own without a word.
  const std::filesystem::path p(path);
  std::string parent = p.parent_path().generic_string();
  if (parent.starts_with("./")) parent.erase(0, 2);
  if (!parent.empty() && parent != "." && parent != "data/studies") return read_file(path);
  std::string name = p.filename().string();
  if (p.extension().empty()) name += ".json";
  if (const auto text = embedded_file("studies/" + name)) {
    std::cerr << "note: " << visible(path) << " is not here: the study shipped in the binary under that name is used\n";
    return std::string(*text);
  }
  std::string shipped;
  for (const auto& [file, text] : embedded_files("studies/"))
    if (file.ends_with(".json")) shipped += (shipped.empty() ? "" : ", ") + std::filesystem::path(file).stem().string();
  throw InputError(path, "cannot open for reading: " + std::string(std::strerror(ENOENT)) +
                             ", and no shipped study is called that (shipped: " + shipped + ")");
}

namespace {

// Whether a progress line is drawn on stderr and not yet cleared: an error or an interrupt
// then starts on a clean line ("...99% reading t.json.gzfomcast: error: ...").
std::atomic<bool> progress_line_open{false};

extern "C" void interrupted(int sig) {
  // Only async-signal-safe calls: write, then the default action.
  static const char clear[] = "\r\033[K";
  static const char said[] = "fomcast: interrupted (a write that had not finished is not kept)\n";
  if (progress_line_open.load()) (void)!write(STDERR_FILENO, clear, sizeof clear - 1);
  (void)!write(STDERR_FILENO, said, sizeof said - 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int terminal_columns() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

// At most `bytes` bytes of `text`, cut at a UTF-8 character's start, control bytes as '?'.
std::string printable_prefix(std::string_view text, std::size_t bytes) {
  if (text.size() > bytes) {
    std::size_t end = bytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text = text.substr(0, end);
  }
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  return out;
}

}  // namespace

void clear_progress_line() {
  if (progress_line_open.exchange(false)) std::fputs("\r\033[K", stderr);
}

ProgressFn terminal_progress(std::string label) {
  if (!isatty(STDERR_FILENO)) return [](double, double, std::string_view) {};
  std::signal(SIGINT, interrupted);
  std::signal(SIGTERM, interrupted);
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
    // One line that fits the terminal: the file name takes what the label and bar leave.
    const auto room = std::max(0, terminal_columns() - 1 - static_cast<int>(label.size() + bar.size() + 2));
    std::fprintf(stderr, "\r\033[K%s %s %s", label.c_str(), bar.c_str(),
                 printable_prefix(what, static_cast<std::size_t>(room)).c_str());
    progress_line_open = true;
    if (total > 0 && done >= total) clear_progress_line();
    std::fflush(stderr);
  };
}

// Names from profiles are bytes as the file had them (a Latin-1 op name): JSON output shows
// an invalid byte as U+FFFD rather than failing after the command's work was done.
void print_json(const nlohmann::json& j) {
  std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

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
