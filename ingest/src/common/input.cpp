// Plain and gzip input through one chunked interface (zlib's inflate with automatic
// header detection), so every reader accepts `.gz` and a truncated gzip is an error with
// a position instead of silently short data.
#include "common/input.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "fomcast/error.hpp"

namespace fomcast::ingest {

struct ChunkStream::Impl {
  std::string path;
  FILE* file = nullptr;
  bool gzip = false;
  bool finished = false;  // gzip stream ended (all members)
  int64_t size = 0;
  int64_t consumed = 0;
  int64_t produced = 0;  // decompressed bytes handed out so far
  z_stream z{};
  std::vector<unsigned char> in;  // compressed input, gzip only

  ~Impl() {
    if (gzip) inflateEnd(&z);
    if (file) std::fclose(file);
  }

  std::size_t fill_input() {
    const std::size_t n = std::fread(in.data(), 1, in.size(), file);
    if (n == 0 && std::ferror(file)) throw InputError(path, "read failed", 0, consumed);
    consumed += static_cast<int64_t>(n);
    return n;
  }
};

ChunkStream::ChunkStream(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->file = std::fopen(path.c_str(), "rb");
  if (!impl_->file) throw InputError(path, std::string("cannot open for reading: ") + std::strerror(errno));
  start();
}

ChunkStream::ChunkStream(const std::string& name, const std::string& memory) : impl_(std::make_unique<Impl>()) {
  impl_->path = name;
  // fmemopen rejects a zero size: nothing in memory reads like an empty file.
  impl_->file =
      memory.empty() ? std::fopen("/dev/null", "rb") : fmemopen(const_cast<char*>(memory.data()), memory.size(), "rb");
  if (!impl_->file) throw InputError(name, std::string("cannot read from memory: ") + std::strerror(errno));
  start();
}

void ChunkStream::start() {
  if (std::fseek(impl_->file, 0, SEEK_END) == 0) {
    impl_->size = std::ftell(impl_->file);
    std::fseek(impl_->file, 0, SEEK_SET);
  }
  unsigned char magic[2] = {0, 0};
  const std::size_t got = std::fread(magic, 1, 2, impl_->file);
  std::fseek(impl_->file, 0, SEEK_SET);
  impl_->gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (impl_->gzip) {
    // 15 + 32: any window size, gzip or zlib header detected automatically.
    if (inflateInit2(&impl_->z, 15 + 32) != Z_OK) throw InputError(impl_->path, "cannot start gzip decoder");
    impl_->in.resize(1 << 20);
    impl_->z.avail_in = 0;
  }
}

ChunkStream::~ChunkStream() = default;

bool ChunkStream::gzip() const { return impl_->gzip; }
int64_t ChunkStream::file_size() const { return impl_->size; }
int64_t ChunkStream::compressed_offset() const {
  return impl_->consumed - static_cast<int64_t>(impl_->gzip ? impl_->z.avail_in : 0);
}

std::size_t ChunkStream::read(char* buffer, std::size_t capacity) {
  Impl& s = *impl_;
  if (!s.gzip) {
    const std::size_t n = std::fread(buffer, 1, capacity, s.file);
    if (n == 0 && std::ferror(s.file)) throw InputError(s.path, "read failed", 0, s.consumed);
    s.consumed += static_cast<int64_t>(n);
    return n;
  }
  if (s.finished) return 0;
  s.z.next_out = reinterpret_cast<unsigned char*>(buffer);
  s.z.avail_out = static_cast<uInt>(capacity);
  while (s.z.avail_out > 0) {
    if (s.z.avail_in == 0) {
      const std::size_t n = s.fill_input();
      if (n == 0) {
        // Input exhausted mid-stream: the gzip ends early. Said in both counts, with no
        // position of its own: a compressed offset read as the decompressed text's (and a
        // line counted there) pointed at the wrong place.
        const int64_t out = s.produced + static_cast<int64_t>(capacity - s.z.avail_out);
        throw InputError(s.path, "gzip data ends early, after all " + std::to_string(s.consumed) +
                                     " compressed bytes, at decompressed byte " + std::to_string(out) +
                                     " (truncated file?)");
      }
      s.z.next_in = s.in.data();
      s.z.avail_in = static_cast<uInt>(n);
    }
    const int rc = inflate(&s.z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members are legal: go on while more input follows.
      if (s.z.avail_in == 0) {
        const std::size_t n = s.fill_input();
        if (n == 0) {
          s.finished = true;
          break;
        }
        s.z.next_in = s.in.data();
        s.z.avail_in = static_cast<uInt>(n);
      }
      inflateReset(&s.z);
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      throw InputError(s.path, std::string("corrupt gzip data at compressed byte ") +
                                   std::to_string(compressed_offset()) + ", decompressed byte " +
                                   std::to_string(s.produced + static_cast<int64_t>(capacity - s.z.avail_out)) + ": " +
                                   (s.z.msg ? s.z.msg : "inflate failed"));
  }
  s.produced += static_cast<int64_t>(capacity - s.z.avail_out);
  return capacity - s.z.avail_out;
}

InputFile::InputFile(std::string path) : path_(std::move(path)) {}

namespace {

// A pipe, a device or standard input, which cannot be read twice, into memory. Capped as a
// whole-file read is: /dev/zero or a runaway pipe grew to 16 GB before anything was said.
std::string read_all(FILE* f, const std::string& name) {
  std::string out;
  std::vector<char> buf(1 << 16);
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), f)) > 0;) {
    if (static_cast<int64_t>(out.size() + n) > InputFile::kMaxWholeFileBytes)
      throw InputError(name,
                       "more than " + std::to_string(InputFile::kMaxWholeFileBytes >> 20) +
                           " MiB from a pipe or device, which is read into memory (no profile is that large; a "
                           "larger one streams when given as a file)",
                       0, InputFile::kMaxWholeFileBytes);
    out.append(buf.data(), n);
  }
  if (std::ferror(f)) throw InputError(name, std::string("read failed: ") + std::strerror(errno));
  return out;
}

}  // namespace

InputFile InputFile::open(const std::string& path) {
  if (path == "-") return from_memory("<stdin>", read_all(stdin, "<stdin>"));
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return InputFile(path);  // opening it says why
  if (S_ISDIR(st.st_mode)) throw InputError(path, "is a directory, not a profile (give the file inside it)");
  if (S_ISREG(st.st_mode)) return InputFile(path);
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path, std::string("cannot open for reading: ") + std::strerror(errno));
  std::string bytes;
  try {
    bytes = read_all(f, path);
  } catch (...) {
    std::fclose(f);
    throw;
  }
  std::fclose(f);
  return from_memory(path, std::move(bytes));
}

InputFile InputFile::from_memory(std::string name, std::string content) {
  InputFile f(std::move(name));
  f.memory_ = std::make_shared<const std::string>(std::move(content));
  return f;
}

std::unique_ptr<ChunkStream> InputFile::stream() const {
  return memory_ ? std::make_unique<ChunkStream>(path_, *memory_) : std::make_unique<ChunkStream>(path_);
}

bool InputFile::gzip() const { return stream()->gzip(); }
int64_t InputFile::file_size() const { return stream()->file_size(); }

std::string_view InputFile::head() const {
  if (!head_) head_ = head_of(64 * 1024);
  return *head_;
}

std::string InputFile::head_of(std::size_t limit) const {
  if (bytes_) return bytes_->substr(0, limit);
  auto s = stream();
  std::string h(limit, '\0');
  std::size_t n = 0;
  try {
    while (n < h.size()) {
      const std::size_t got = s->read(h.data() + n, h.size() - n);
      if (got == 0) break;
      n += got;
    }
  } catch (const InputError&) {
    // A truncated gzip still has a readable head; the full read reports the error.
    if (n == 0) throw;
  }
  h.resize(n);
  return h;
}

const std::string& InputFile::bytes() const {
  if (!bytes_ && memory_ && !gzip()) bytes_ = *memory_;  // plain bytes in memory: nothing to decode
  if (!bytes_) {
    auto s = stream();
    const auto too_large = [this](int64_t at) {
      return InputError(path_,
                        "larger than " + std::to_string(kMaxWholeFileBytes >> 20) +
                            " MiB: this format is read whole, and no such profile is that large (a truncated copy or "
                            "the wrong file?)",
                        0, at);
    };
    if (!s->gzip() && s->file_size() > kMaxWholeFileBytes) throw too_large(kMaxWholeFileBytes);
    std::string all;
    if (!s->gzip() && s->file_size() > 0) all.reserve(static_cast<std::size_t>(s->file_size()));
    std::vector<char> buf(1 << 16);
    for (std::size_t n; (n = s->read(buf.data(), buf.size())) > 0;) {
      if (static_cast<int64_t>(all.size() + n) > kMaxWholeFileBytes) throw too_large(kMaxWholeFileBytes);
      all.append(buf.data(), n);
    }
    bytes_ = std::move(all);
  }
  return *bytes_;
}

int64_t line_of(std::string_view text, std::size_t offset) {
  int64_t line = 1;
  const std::size_t end = std::min(offset, text.size());
  for (std::size_t i = 0; i < end; ++i)
    if (text[i] == '\n') ++line;
  return line;
}

}  // namespace fomcast::ingest
