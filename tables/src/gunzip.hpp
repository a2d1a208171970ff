// Inflating a gzipped kernel-table file in memory (gunzip.cpp). Private to tables/.
#pragma once

#include <string>
#include <string_view>

namespace fomcast::detail {

bool is_gzip(std::string_view text);
// The whole decompressed text; InputError naming `file` when truncated or corrupt.
std::string gunzip(std::string_view text, std::string_view file);

}  // namespace fomcast::detail
