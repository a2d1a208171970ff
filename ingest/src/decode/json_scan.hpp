// Streaming the elements of one big JSON array (a trace's `traceEvents`, an execution
// trace's `nodes`) without holding the document: the file is read in large chunks, a
// block-at-a-time structural scan (quotes, escapes, brackets; the simdjson stage-1 idea
// in a few lines of SSE2 or AVX2) finds where each element object starts and ends, and each
// element is handed over alone, in place, with enough readable bytes after it for
// simdjson to parse it. Memory is the chunk buffer, whatever the file's size.
//
// The scan checks the array's own structure (elements are objects, separated by single
// commas, the array and the document are closed, nothing follows the document, nesting
// stays under a limit); the element's content is checked by whoever parses it.
//
// Files over 8 MB of JSON (a .gz over about 0.8 MB) are read on a second thread
// (decode/json_reading_thread.hpp): it reads, decompresses, scans and copies the elements
// into 1 MiB batches while the caller's thread handles them; on_element and progress are
// always called on the caller's thread, in file order.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/input.hpp"
#include "fomcast/model.hpp"

namespace fomcast::ingest {

// Readable bytes guaranteed after every element handed out (simdjson needs 64).
inline constexpr std::size_t kJsonPadding = 64;

struct JsonElement {
  std::string_view text;     // the element, from '{' to its '}'
  std::size_t readable = 0;  // bytes readable from text.data(), >= text.size() + kJsonPadding
  int64_t offset = 0;        // decompressed byte offset of its first byte
  int64_t index = 0;         // position in the array, from 0
};

struct JsonStreamSpec {
  std::vector<std::string> array_keys;    // top-level keys whose array is streamed
  bool accept_bare_array = false;         // the document itself may be the array
  std::vector<std::string> capture_keys;  // other top-level values to keep as raw JSON
  std::size_t max_capture_bytes = 1 << 20;
  std::size_t max_element_bytes = 64 << 20;
  int max_depth = 256;  // nesting inside one element
};

struct JsonStreamInfo {
  std::string array_key;  // the key that held the streamed array; "" for a bare array
  bool found_array = false;
  std::map<std::string, std::string> captured;  // key -> raw JSON value
  int64_t elements = 0;
  int64_t bytes = 0;  // decompressed bytes read
};

// Calls on_element for each element of the array, in file order. Throws InputError with
// the file, byte offset and line on any structural fault, and rethrows whatever
// on_element throws. Lines are not counted while streaming: an InputError from here or
// from on_element that has a byte offset but no line gets its line by a second read of
// the file up to that offset (errors are rare; the hot loop stays lean).
// progress (may be empty) gets compressed bytes read / file size.
JsonStreamInfo stream_json_array(const InputFile& file, const JsonStreamSpec& spec,
                                 const std::function<void(const JsonElement&)>& on_element,
                                 const ProgressFn& progress = {});

// The scan alone, on the caller's thread, with errors as they are found (no line added).
// stream_json_array runs it directly for small files and on its reading thread
// (decode/json_reading_thread.hpp) for big ones.
JsonStreamInfo scan_json_array(const InputFile& file, const JsonStreamSpec& spec,
                               const std::function<void(const JsonElement&)>& on_element,
                               const ProgressFn& progress = {});

// What is wrong with `text` as one JSON value, or "": commas and colons where the grammar
// has them, strings closed, scalars that are numbers or true/false/null. For the small array
// values a reader takes raw (Kineto's Input Dims, an ET's input_shapes), which simdjson's
// on-demand parser hands over without checking their inside: `[[512, 512],, []]` read as
// an op without its shape.
std::string json_value_problem(std::string_view text);

// 1-based line of a decompressed byte offset, by reading the file up to it.
int64_t line_at_offset(const InputFile& file, int64_t offset);

}  // namespace fomcast::ingest
