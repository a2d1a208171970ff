// What every command shares: the global flags, opening the store, reading input files,
// and drawing progress on a terminal. Nothing here computes anything worth testing.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "fomcast/model.hpp"
#include "fomcast/store.hpp"

namespace fomcast::cli {

struct Globals {
  std::string db;  // --db, else $FOMCAST_DB, else ./fomcast.db
};

// Opens the database and fills it from the shipped data when it lacks this build's.
Store open_store(const Globals&);
// Whole file as bytes; InputError naming the path when it cannot be read.
std::string read_file(const std::string& path);
// A progress bar on stderr when it is a terminal; does nothing when piped.
ProgressFn terminal_progress(std::string label);
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

}  // namespace fomcast::cli
