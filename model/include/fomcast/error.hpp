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

}  // namespace fomcast
