// The one error type for bad input: it names the file and, where there is one, the line,
// byte offset or field. The CLI prints what() and exits 2.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace fomcast {

struct InputError : std::runtime_error {
  InputError(std::string file, std::string message, int64_t line = 0, int64_t byte_offset = -1, std::string field = {});

  std::string file;
  std::string message;
  int64_t line = 0;          // 1-based; 0 when not known
  int64_t byte_offset = -1;  // -1 when not known
  std::string field;         // JSON path or column name, when that is the best position
};

// Bad flags or arguments: also exit status 2, but not tied to a file.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A well-formed request the model cannot answer (the model does not fit the device's
// memory, a platform with no figures, a layout the workload has no batch size for): exit
// status 2 as a usage error, but said as what it is, not as a mistyped command.
struct Refusal : UsageError {
  using UsageError::UsageError;
};

}  // namespace fomcast
