// Kernel-table files may come gzipped (the shipped NeuSight tables are): a text starting
// with gzip's magic bytes is inflated whole before the CSV reader sees it. A truncated or
// corrupt stream is an InputError naming the file.
#include "gunzip.hpp"

#include <zlib.h>

#include "fomcast/error.hpp"

namespace fomcast::detail {

bool is_gzip(std::string_view text) {
  return text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b;
}

std::string gunzip(std::string_view text, std::string_view file) {
  z_stream z{};
  // 15 + 32: any window size, the gzip header detected.
  if (inflateInit2(&z, 15 + 32) != Z_OK) throw InputError(std::string(file), "cannot start gzip decoder");
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  char buf[1 << 16];
  int rc = Z_OK;
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);  // concatenated members are legal gzip
      continue;
    }
    if (rc != Z_OK) break;
    if (z.avail_in == 0 && z.avail_out != 0) break;
  }
  const std::string msg = z.msg ? z.msg : "inflate failed";
  const uInt unread = z.avail_in;
  inflateEnd(&z);
  // Positions in both counts, as ingest's reader gives them: the compressed byte is where
  // the file went wrong, the decompressed one where its text stood.
  const std::string where = std::to_string(text.size() - unread) + ", decompressed byte " + std::to_string(out.size());
  if (rc == Z_OK || rc == Z_BUF_ERROR)
    throw InputError(std::string(file), "gzip data ends early, after all " + std::to_string(text.size()) +
                                            " compressed bytes, at decompressed byte " + std::to_string(out.size()) +
                                            " (truncated file?)");
  if (rc != Z_STREAM_END)
    throw InputError(std::string(file), "corrupt gzip data at compressed byte " + where + ": " + msg);
  return out;
}

}  // namespace fomcast::detail
