// Helpers for tests that drive the real binary on real files: a scratch directory per
// test, running fomcast and capturing stdout, stderr and the exit status.
#pragma once

#include <filesystem>
#include <string>

#include "fomcast/store.hpp"
#include "fomcast/workload.hpp"

namespace fomcast::test {

// A fresh directory under the system temp dir, removed when the object goes.
struct ScratchDir {
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::filesystem::path path;
  std::string file(const std::string& name) const { return (path / name).string(); }
  std::string write(const std::string& name, const std::string& contents) const;
};

struct RunResult {
  int status = -1;
  std::string out;
  std::string err;
};

// Runs `fomcast ARGS` (ARGS is shell text) with --db DB when db is non-empty.
RunResult run_fomcast(const std::string& args, const std::string& db = "");

std::string source_path(const std::string& rel);  // under the repository root
std::string shared_path(const std::string& rel);  // under ../shared; fails the test if absent
std::string slurp(const std::string& path);
// Opens a database as every command does: Store::open, then the shipped data if missing.
Store open_seeded(const std::string& path);
// Fingerprint of a database's bytes (main file and WAL), to prove it was left untouched.
std::string file_fingerprint(const std::string& path);
// A layer list ("model" origin) of the one op, in `memory_format` ("" unstated): what the
// layout rules of the estimator read.
Workload one_op_model(Op op, const std::string& memory_format);

}  // namespace fomcast::test
