// What every command shares: the global flags, opening the store, reading input files,
// and drawing progress on a terminal. Nothing here computes anything worth testing.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "fomcast/input_checks.hpp"
#include "fomcast/model.hpp"
#include "fomcast/store.hpp"

namespace fomcast::cli {

struct Globals {
  std::string db;  // --db, else $FOMCAST_DB, else ./fomcast.db
};

// A flag's number checked against its range before CLI11 converts it, with the message
// every command and the study parser give ("--nodes: must be > 0 (got -1)"). Added with
// ->transform(), so that integers written with an exponent ("1e3") are handed on whole.
CLI::Validator in_range(const NumberRange& range);

// Opens the database and fills it from the shipped data when it lacks this build's.
Store open_store(const Globals&);
// For commands that only read what earlier runs stored (history, check): a database path
// that names no file is a UsageError, not a new database. A mistyped --db in a CI job had
// created and seeded one, found no record, and passed the gate.
Store open_existing_store(const Globals&, std::string_view command);
// The database path the flags and environment name (--db, $FOMCAST_DB, ./fomcast.db).
std::string database_path(const Globals&);
// UsageError "--platform: unknown platform 'X' (see `fomcast platforms`)" unless the
// store has it (`flag` names where the name came from).
void require_platform(const Store&, const std::string& name, const std::string& flag = "--platform");
// The stored workload `name`; UsageError "--workload: no workload named 'resnet-50': did you
// mean resnet50? (see `fomcast workloads`)" when there is none (`flag` names where the name
// came from, "" for a positional argument).
Workload require_workload(const Store&, const std::string& name, const std::string& flag = "");
// InputError naming the study file and the field (baseline.platform, target.platform)
// unless the store has both platforms.
void require_study_platforms(const Store&, const Study&);
// What `fom` and `report` say about the study file in their --help.
inline constexpr const char* kStudyHelp =
    "A study is a JSON file: {\"name\", \"baseline\": {\"platform\", \"nodes\"}, \"target\": {\"platform\", "
    "\"nodes\"}, \"problems\": [{\"name\", \"baseline_hours\", \"target_hours\"} or {\"name\", \"workload\", "
    "\"epochs\", \"baseline_epoch_s\", ...}]}; every field is in docs/study-format.md, examples in data/studies/";
// --precision's value as a mode; UsageError naming the flag and the modes for another. ""
// (not given) is the workload's precision as recorded.
PrecisionMode precision_flag(const std::string& value);
// A --precision check: "" given (--precision '') is not the default left unsaid.
std::string empty_precision(const std::string& value);
// UsageError naming the flag unless `name` may name a workload (fomcast/input_checks.hpp).
void require_workload_name(const std::string& name, const std::string& flag);
// Whole file as bytes; InputError naming the path when it cannot be read.
// At most max_bytes (a study, a spec: 64 MiB; a kernel table: 1 GiB), read in chunks so
// that /dev/zero or a 20 GB file is an error naming the size, not std::bad_alloc.
inline constexpr std::size_t kMaxSmallFileBytes = std::size_t{64} << 20;
std::string read_file(const std::string& path, std::size_t max_bytes = kMaxSmallFileBytes);
// A study file; where `path` is not a file here but names a shipped study (NAME,
// NAME.json or data/studies/NAME.json), the copy compiled into the binary.
std::string read_study(const std::string& path);
// A progress bar on stderr when it is a terminal, one line as wide as the terminal; does
// nothing when piped. While one is in use an interrupt (SIGINT, SIGTERM) clears the line and
// says the command was interrupted.
ProgressFn terminal_progress(std::string label);
// Clears a progress line left on the terminal (before an error message); nothing otherwise.
void clear_progress_line();
void print_json(const nlohmann::json&);
// `git rev-parse --short HEAD` of the working directory, or $FOMCAST_COMMIT, or "".
std::string current_commit();

// Thrown by `check` when the FOM dropped: exit status 1, not 2.
struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One function per command family, each in its own file.
void add_bench_command(CLI::App&, Globals&);         // bench
void add_fom_commands(CLI::App&, Globals&);          // fom, history, check
void add_catalog_commands(CLI::App&, Globals&);      // platforms, workloads, show
void add_ingest_command(CLI::App&, Globals&);        // ingest
void add_estimate_command(CLI::App&, Globals&);      // estimate
void add_import_bench_command(CLI::App&, Globals&);  // import-bench
void add_validate_command(CLI::App&, Globals&);      // validate
void add_report_command(CLI::App&, Globals&);        // report
void add_calibrate_commands(CLI::App&, Globals&);    // calibrate, whatif
void add_doctor_command(CLI::App&, Globals&);        // doctor
void add_scaling_command(CLI::App&, Globals&);       // scaling

// Calls `add` on every subcommand of `app`, nested ones (workloads rm) included.
void add_to_every_command(CLI::App& app, const std::function<void(CLI::App&)>& add);

}  // namespace fomcast::cli
