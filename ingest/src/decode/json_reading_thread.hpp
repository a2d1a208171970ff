// The reading thread behind stream_json_array (decode/json_scan.hpp) for big files: the
// file is read, decompressed and scanned on a second thread, which copies the elements
// into 1 MiB batches; on_element and progress run on the caller's thread, in file order,
// exactly as with the one-thread scan. Memory stays bounded (a few batches queued).
#pragma once

#include <functional>

#include "common/input.hpp"
#include "decode/json_scan.hpp"

namespace fomcast::ingest {

// scan_json_array with the scan on a second thread; same results, same errors in the same
// order (the elements before a fault are handed over first).
JsonStreamInfo scan_json_array_on_reading_thread(const InputFile& file, const JsonStreamSpec& spec,
                                                 const std::function<void(const JsonElement&)>& on_element,
                                                 const ProgressFn& progress);

}  // namespace fomcast::ingest
