// Formats InputError so every message starts with where the problem is.
#include "fomcast/error.hpp"

namespace fomcast {
namespace {

std::string format_where(const std::string& file, int64_t line, int64_t byte_offset, const std::string& field) {
  std::string where = file.empty() ? "<input>" : file;
  if (line > 0) where += ":" + std::to_string(line);
  if (byte_offset >= 0) where += ": byte " + std::to_string(byte_offset);
  if (!field.empty()) where += ": " + field;
  return where;
}

}  // namespace

InputError::InputError(std::string file_, std::string message_, int64_t line_, int64_t byte_offset_, std::string field_)
    : std::runtime_error(format_where(file_, line_, byte_offset_, field_) + ": " + message_),
      file(std::move(file_)),
      message(std::move(message_)),
      line(line_),
      byte_offset(byte_offset_),
      field(std::move(field_)) {}

}  // namespace fomcast
