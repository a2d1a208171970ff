// The schema: the list of migrations that build it, one version at a time. Private to the
// store; PRAGMA user_version records how many of them a database has applied.
#include "schema.hpp"

namespace fomcast::detail {
namespace {

// Migration i takes the schema from version i to i+1. Append only; never edit a shipped one.
const char* const kMigrationList[] = {
    R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE platforms(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  origin TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  updated_at TEXT NOT NULL);
CREATE TABLE kernel_entries(
  id INTEGER PRIMARY KEY,
  platform_id INTEGER NOT NULL REFERENCES platforms(id) ON DELETE CASCADE,
  origin TEXT NOT NULL,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  shape_json TEXT NOT NULL,
  dtype TEXT NOT NULL,
  precision TEXT NOT NULL,
  mode TEXT NOT NULL,
  time_us REAL NOT NULL CHECK(time_us > 0),
  spread REAL NOT NULL,
  method TEXT NOT NULL,
  provenance TEXT NOT NULL,
  UNIQUE(platform_id, origin, key, precision, mode));
CREATE INDEX kernel_entries_by_key ON kernel_entries(platform_id, kind, key);
CREATE TABLE workloads(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  origin TEXT NOT NULL,
  shipped INTEGER NOT NULL,
  meta_json TEXT NOT NULL,
  updated_at TEXT NOT NULL);
CREATE TABLE ops(
  id INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  shape_json TEXT NOT NULL,
  dtype TEXT NOT NULL,
  phase TEXT NOT NULL,
  count REAL NOT NULL,
  self_time_s REAL,
  flops REAL NOT NULL,
  bytes REAL NOT NULL);
CREATE INDEX ops_by_workload ON ops(workload_id, seq);
CREATE TABLE calibrations(
  id INTEGER PRIMARY KEY,
  workload TEXT NOT NULL,
  platform TEXT NOT NULL,
  pass_s REAL,
  epoch_s REAL,
  run_s REAL,
  recorded_at TEXT NOT NULL,
  note TEXT NOT NULL,
  UNIQUE(workload, platform));
CREATE TABLE fom_records(
  id INTEGER PRIMARY KEY,
  recorded_at TEXT NOT NULL,
  label TEXT NOT NULL,
  git_commit TEXT NOT NULL,
  study_name TEXT NOT NULL,
  study_json TEXT NOT NULL,
  fom REAL NOT NULL,
  problems_json TEXT NOT NULL);
)sql",
    // 1 -> 2: which implementation ran an op (oneDNN, im2col + BLAS, cuDNN, MIOpen), as the
    // trace names it; ops stored before say nothing ('unknown').
    R"sql(
ALTER TABLE ops ADD COLUMN implementation TEXT NOT NULL DEFAULT 'unknown';
)sql",
    // 2 -> 3: fingerprints of what a recorded FOM was computed from (platform specs, kernel
    // tables, workloads, calibrations), so `check` can tell a changed input from a changed
    // tool; records made before hold none ('{}').
    R"sql(
ALTER TABLE fom_records ADD COLUMN inputs_json TEXT NOT NULL DEFAULT '{}';
)sql",
    // 3 -> 4: the batch a calibration's measurement ran at, so that a study or estimate at
    // another batch does not take it for its own pass; calibrations stored before say
    // nothing (0).
    R"sql(
ALTER TABLE calibrations ADD COLUMN batch_size INTEGER NOT NULL DEFAULT 0;
)sql",
};

}  // namespace

std::span<const char* const> migrations() { return kMigrationList; }

}  // namespace fomcast::detail
