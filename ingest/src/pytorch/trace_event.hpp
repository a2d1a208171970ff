// One Chrome-trace event (Kineto, the legacy autograd profiler, TF timelines) parsed on
// its own with simdjson, keeping only the fields fomcast uses. Strings point into the
// parser's buffer or the element itself: valid until the next parse().
//
// Numbers are checked here, once for every reader: a time that is not a number, negative,
// non-finite or absurd is an InputError naming the file, the event's byte offset and line,
// and the field.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "decode/json_scan.hpp"
#include "pytorch/torch_ops.hpp"

namespace fomcast::ingest {

// What is wrong with the text of a JSON array of tensor sizes (Kineto's `Input Dims`, an
// execution trace's `input_shapes`), "" when nothing: each input a list of sizes, each size
// a whole number from 0 to 2^40, each tensor (innermost list) at most 2^50 elements.
std::string dims_problem(std::string_view text);

struct TraceEvent {
  char ph = 0;  // 'X', 'i', 's', 'f', 'M', ...; 0 when absent
  std::string_view cat, name;
  std::string_view pid, tid;  // raw token, quotes removed ("25738" and 25738 read the same)
  double ts = 0, dur = 0;     // microseconds
  bool has_ts = false, has_dur = false;
  int64_t external_id = -1;  // args "External id" / "external id"
  int64_t correlation = -1;  // args "correlation"
  int64_t bytes = -1;        // args "bytes" (memcpy, memset)
  bool has_device = false;   // args "device": the event ran on a device
  // CUPTI range-profiler counters: FLOPs from args "smsp__sass_thread_inst_executed_op_*"
  // (add and mul count 1, fma 2); -1 when the event has none.
  double counted_flops = -1;
  // Raw JSON of the shape-bearing args (empty when absent).
  std::string_view input_dims, input_types, concrete_inputs, input_strides;
  CommMetaView comm;  // record_param_comms metadata
  // args "name" and "op" (process names of metadata events; TF node name and op type).
  std::string_view arg_name, arg_op;
};

class TraceEventParser {
 public:
  explicit TraceEventParser(std::string file);
  ~TraceEventParser();
  TraceEventParser(const TraceEventParser&) = delete;
  TraceEventParser& operator=(const TraceEventParser&) = delete;

  // Throws InputError (file, line, byte offset, field) on malformed JSON or bad numbers.
  const TraceEvent& parse(const JsonElement&);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Largest plausible time values, in microseconds: a duration over a year or a timestamp
// past the year 5000 is a broken trace, not a measurement.
inline constexpr double kMaxDurationUs = 3.2e13;
inline constexpr double kMaxTimestampUs = 1e17;
inline constexpr std::size_t kMaxNameBytes = std::size_t{1} << 16;

}  // namespace fomcast::ingest
