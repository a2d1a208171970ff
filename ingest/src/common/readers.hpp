// The format registry: one entry per reader. Adding a format is one file in ingest/src and
// one line in kReaders (registry.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fomcast/ingest.hpp"
#include "common/input.hpp"

namespace fomcast::ingest {

struct FormatReader {
  std::string_view name;
  // How sure the reader is that the file is its format, 0 (no) to 100 (certain), from the
  // decompressed head and the path. Must be cheap and must never throw.
  int (*detect)(std::string_view head, std::string_view path);
  // Reads the whole file. Throws InputError with file and line or byte offset.
  Workload (*read)(const InputFile&, const IngestOptions&);
};

const std::vector<FormatReader>& readers();
const FormatReader* find_reader(std::string_view name);
// The checks every reader's output passes before it may be stored (finite, non-negative
// times and costs, positive counts, at least one op); throws InputError naming `source`.
void validate(const Workload&, const std::string& source);

// Two files of one run read together: one gives the times, the other the shapes (a Kineto
// trace and the execution trace recorded with it). One line per pair in kJoins.
struct FormatJoin {
  std::string_view timed;                 // format of the file with the times
  std::vector<std::string_view> shaped;   // formats that can lend it shapes
  Workload (*read)(const InputFile& timed, const InputFile& shaped, const IngestOptions&);
};
const std::vector<FormatJoin>& joins();

// Chakra execution traces in protobuf form (read_chakra_et.cpp).
int detect_chakra_et(std::string_view head, std::string_view path);
Workload read_chakra_et(const InputFile&, const IngestOptions&);

// XPlane protobufs from the TensorFlow / JAX profilers (read_xplane.cpp).
int detect_xplane(std::string_view head, std::string_view path);
Workload read_xplane(const InputFile&, const IngestOptions&);

// Non-empty when the file is a format fomcast knows of but does not read yet (what it is
// and what to give instead).
std::string unsupported_format_message(std::string_view head, std::string_view path);

}  // namespace fomcast::ingest
