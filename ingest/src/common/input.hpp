// An input file, plain or gzip, read either whole or in chunks. Readers that must keep
// memory flat on huge traces use the chunked stream; small formats just take bytes().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace fomcast::ingest {

// Sequential decompressed reading. read() returns 0 at the end; a gzip that ends early or
// is corrupt throws InputError naming the file and the compressed byte offset.
class ChunkStream {
 public:
  explicit ChunkStream(const std::string& path);
  // Over bytes held in memory (which must outlive the stream); `name` appears in errors.
  ChunkStream(const std::string& name, const std::string& memory);
  ~ChunkStream();
  ChunkStream(const ChunkStream&) = delete;
  ChunkStream& operator=(const ChunkStream&) = delete;

  std::size_t read(char* buffer, std::size_t capacity);
  int64_t compressed_offset() const;  // bytes of the file consumed so far
  int64_t file_size() const;
  bool gzip() const;

 private:
  void start();  // size, gzip detection
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class InputFile {
 public:
  explicit InputFile(std::string path);
  // The input a command line names: "-" is standard input ("<stdin>" in messages); a pipe
  // or device (/dev/stdin, /dev/fd/N) is read whole into memory once, so detecting the
  // format does not consume what the reader needs; a directory is an InputError.
  static InputFile open(const std::string& path);
  // Bytes already in memory under a display name (the fuzz targets use this): everything
  // reads as from a file of that content, gzip included.
  static InputFile from_memory(std::string name, std::string content);

  const std::string& path() const { return path_; }
  bool gzip() const;
  int64_t file_size() const;
  // Up to the first 64 KiB, decompressed: enough for format detection.
  std::string_view head() const;
  // Up to the first `limit` bytes, decompressed, read afresh (not kept): for a file whose
  // head holds no format's marks because something large comes first.
  std::string head_of(std::size_t limit) const;
  // The whole decompressed content (read once, then kept). More than kMaxWholeFileBytes is
  // an InputError: the formats read whole (profiles as text, TAU, model descriptions) are
  // kilobytes to megabytes, and a 20 GB file ended in std::bad_alloc.
  static constexpr int64_t kMaxWholeFileBytes = int64_t{1} << 30;
  const std::string& bytes() const;
  std::unique_ptr<ChunkStream> stream() const;
  // True for from_memory(): there is no file at path() to open by name.
  bool in_memory() const { return memory_ != nullptr; }

 private:
  std::string path_;
  std::shared_ptr<const std::string> memory_;
  mutable std::optional<std::string> head_;
  mutable std::optional<std::string> bytes_;
};

// 1-based line number of a byte offset within text, for error messages.
int64_t line_of(std::string_view text, std::size_t offset);

}  // namespace fomcast::ingest
