// The format registry: one FormatReader per format. Each reader file (named after its
// format, in its family folder) defines its FormatReader; this header declares them all;
// kReaders in registry.cpp lists them in detection order. Adding a format is the reader
// file, its declaration here, one line in kReaders and one line in ingest/CMakeLists.txt.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/input.hpp"
#include "fomcast/ingest.hpp"

namespace fomcast::ingest {

struct FormatReader {
  std::string_view name;
  // How sure the reader is that the file is its format, 0 (no) to 100 (certain), from the
  // decompressed head and the path. Must be cheap and must never throw.
  int (*detect)(std::string_view head, std::string_view path);
  // Reads the whole file. Throws InputError with file and line or byte offset.
  Workload (*read)(const InputFile&, const IngestOptions&);
};

// Two files of one run read together: one gives the times, the other the shapes (a Kineto
// trace and the execution trace recorded with it). One line per pair in kJoins.
struct FormatJoin {
  std::string_view timed;                // format of the file with the times
  std::vector<std::string_view> shaped;  // formats that can lend it shapes
  Workload (*read)(const InputFile& timed, const InputFile& shaped, const IngestOptions&);
};

// The readers, one per format (docs/ingest.md, docs/ingest-text.md).
extern const FormatReader kModelFormat;         // model/model_reader.cpp: layer lists
extern const FormatReader kKinetoFormat;        // pytorch/kineto.cpp
extern const FormatReader kPytorchEtFormat;     // pytorch/pytorch_et.cpp
extern const FormatReader kChakraJsonFormat;    // pytorch/chakra_json.cpp
extern const FormatReader kChakraEtFormat;      // pytorch/chakra_et.cpp
extern const FormatReader kTfTimelineFormat;    // tensorflow/tf_timeline.cpp
extern const FormatReader kXplaneFormat;        // tensorflow/xplane.cpp
extern const FormatReader kTfprofOpFormat;      // tensorflow/tfprof_op.cpp
extern const FormatReader kTfprofShapesFormat;  // tensorflow/tfprof_shapes.cpp
extern const FormatReader kNsysSqliteFormat;    // nsight/nsys_sqlite.cpp
extern const FormatReader kTauFormat;           // tau/tau_profile.cpp
extern const FormatReader kPprofFormat;         // tau/pprof.cpp
extern const FormatReader kCprofileFormat;      // python/cprofile.cpp

// The joins, one per pair of formats.
extern const FormatJoin kKinetoEtJoin;  // pytorch/kineto.cpp: Kineto + an execution trace

// Several ranks' Kineto traces of one distributed job, each with the ET of its rank where
// given (pytorch/ranks.cpp): one workload of the job, ranks read in parallel.
Workload read_kineto_ranks(const std::vector<InputFile>& files, const std::vector<std::string>& formats,
                           const IngestOptions&);

// kReaders, in detection order (ties go to the earlier reader).
const std::vector<FormatReader>& readers();
const FormatReader* find_reader(std::string_view name);
// kJoins.
const std::vector<FormatJoin>& joins();
// The checks every reader's output passes before it may be stored (finite, non-negative
// times and costs, positive counts, at least one op); throws InputError naming `source`.
void validate(const Workload&, const std::string& source);

// Non-empty when the file is a format fomcast knows of but does not read yet (what it is
// and what to give instead): common/unsupported_formats.cpp.
std::string unsupported_format_message(std::string_view head, std::string_view path);

}  // namespace fomcast::ingest
