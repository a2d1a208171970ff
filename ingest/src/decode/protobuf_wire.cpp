// Protocol Buffers wire format: bounds-checked records, no generated code.
#include "decode/protobuf_wire.hpp"

#include "fomcast/error.hpp"

namespace fomcast::ingest::protobuf {

uint64_t read_varint(std::string_view in, std::size_t& pos, const std::string& file, int64_t base) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos >= in.size())
      throw InputError(file, "truncated protobuf: a varint runs past the end", 0, base + static_cast<int64_t>(pos));
    const auto byte = static_cast<unsigned char>(in[pos++]);
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return v;
  }
  throw InputError(file, "corrupt protobuf: a varint longer than ten bytes", 0, base + static_cast<int64_t>(pos));
}

void Reader::fail(const std::string& what) const { throw InputError(file_, what, 0, offset()); }

uint64_t Reader::varint() { return read_varint(in_, pos_, file_, base_); }

bool Reader::next(Field& f) {
  if (pos_ >= in_.size()) return false;
  f.offset = offset();
  const uint64_t key = varint();
  f.number = static_cast<uint32_t>(key >> 3);
  if (f.number == 0 || (key >> 3) > 0x1fffffff) fail("corrupt protobuf: field number " + std::to_string(key >> 3));
  f.value = 0;
  f.bytes = {};
  switch (key & 7) {
    case 0:
      f.wire = Wire::varint;
      f.value = varint();
      return true;
    case 1:
    case 5: {
      const std::size_t n = (key & 7) == 1 ? 8 : 4;
      if (in_.size() - pos_ < n) fail("truncated protobuf: a fixed-width field runs past the end");
      for (std::size_t i = 0; i < n; ++i)
        f.value |= static_cast<uint64_t>(static_cast<unsigned char>(in_[pos_ + i])) << (8 * i);
      pos_ += n;
      f.wire = n == 8 ? Wire::fixed64 : Wire::fixed32;
      return true;
    }
    case 2: {
      const uint64_t n = varint();
      if (n > in_.size() - pos_)
        fail("truncated protobuf: field " + std::to_string(f.number) + " says " + std::to_string(n) + " bytes, " +
             std::to_string(in_.size() - pos_) + " are left");
      f.wire = Wire::bytes;
      f.bytes = in_.substr(pos_, static_cast<std::size_t>(n));
      pos_ += static_cast<std::size_t>(n);
      return true;
    }
    default: fail("corrupt protobuf: wire type " + std::to_string(key & 7) + " (groups are not supported)");
  }
}

void append_varints(const Field& f, std::vector<uint64_t>& out, const std::string& file) {
  if (f.wire == Wire::varint) {
    out.push_back(f.value);
    return;
  }
  if (f.wire != Wire::bytes)
    throw InputError(file, "protobuf field " + std::to_string(f.number) + " should hold integers", 0, f.offset);
  std::size_t pos = 0;
  while (pos < f.bytes.size()) out.push_back(read_varint(f.bytes, pos, file, f.offset));
}

bool DelimitedStream::next(std::string_view& message, int64_t& offset) {
  if (pos_ >= in_.size()) return false;
  const uint64_t n = read_varint(in_, pos_, file_, 0);
  if (n > in_.size() - pos_)
    throw InputError(file_,
                     "truncated protobuf stream: a message says " + std::to_string(n) + " bytes, " +
                         std::to_string(in_.size() - pos_) + " are left",
                     -1, static_cast<int64_t>(pos_));
  offset = static_cast<int64_t>(pos_);
  message = in_.substr(pos_, static_cast<std::size_t>(n));
  pos_ += static_cast<std::size_t>(n);
  return true;
}

}  // namespace fomcast::ingest::protobuf
