// The Protocol Buffers wire format, read without generated code: a message is a run of
// (field number, wire type, payload) records. Enough for readers of protobuf traces
// (Chakra's .et), which know their field numbers and skip the rest. Every length is
// checked against the bytes left, so a truncated or hostile file is an InputError naming
// the byte offset, never an overread. Private to ingest/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fomcast::ingest::protobuf {

enum class Wire : uint8_t { varint = 0, fixed64 = 1, bytes = 2, fixed32 = 5 };

struct Field {
  uint32_t number = 0;
  Wire wire = Wire::varint;
  uint64_t value = 0;      // varint, fixed32 and fixed64 payloads
  std::string_view bytes;  // length-delimited payloads
  int64_t offset = 0;      // of the field's key in the file
};

// Reads one message's fields in order. `base` is the message's offset in the file, so
// errors point into the file rather than into the message.
class Reader {
 public:
  Reader(std::string_view message, const std::string& file, int64_t base) : in_(message), file_(file), base_(base) {}

  // False at the end of the message. Throws InputError for a truncated field, a varint
  // longer than ten bytes, field number 0 or a group (wire types 3 and 4, long deprecated).
  bool next(Field& f);
  int64_t offset() const { return base_ + static_cast<int64_t>(pos_); }

 private:
  uint64_t varint();
  [[noreturn]] void fail(const std::string& what) const;
  std::string_view in_;
  const std::string& file_;
  int64_t base_;
  std::size_t pos_ = 0;
};

// A varint at `pos` in `in`, advancing pos; throws InputError (at base + pos) when it runs
// past the end or past ten bytes.
uint64_t read_varint(std::string_view in, std::size_t& pos, const std::string& file, int64_t base);

// A repeated integer field's values, packed (one bytes field) or not (one varint each).
void append_varints(const Field& f, std::vector<uint64_t>& out, const std::string& file);

// A length-delimited stream: a varint length, then that many bytes, repeated to the end
// (how Chakra and many tools write a sequence of messages to one file).
class DelimitedStream {
 public:
  DelimitedStream(std::string_view data, const std::string& file) : in_(data), file_(file) {}
  // False at the end; message views point into the data.
  bool next(std::string_view& message, int64_t& offset);

 private:
  std::string_view in_;
  const std::string& file_;
  std::size_t pos_ = 0;
};

}  // namespace fomcast::ingest::protobuf
