// Profiler outputs and model descriptions -> Workload (CANDLE steps 2-4: the operations of
// a training pass with their shapes, counts and measured self times).
//
// Readers are functions from bytes to a Workload or an InputError naming the file and the
// line or byte offset; none touches the database.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/model.hpp"

namespace fomcast {

struct IngestOptions {
  std::string format = "auto";  // or one of ingest_formats()
  std::string workload;         // name of the result
  std::string platform;         // the machine the profile was taken on ("" = unknown)
  int64_t batch_size = 0;       // samples per pass when the input cannot tell (0 = infer)
  ProgressFn progress;          // may be empty
  int threads = 0;              // several ranks' files: 0 one thread per file, 1 one after another
};

// The format names `--format` accepts (besides "auto").
std::vector<std::string> ingest_formats();

// Which format a file is, from its first bytes and its name; throws InputError when no
// reader recognises it.
std::string detect_format(const std::string& path);

// Reads one workload from the files (`.gz` accepted). Several files are read together when
// they belong together (an execution trace and the Kineto trace of the same run).
Workload ingest_files(const std::vector<std::string>& paths, const IngestOptions&);

}  // namespace fomcast
