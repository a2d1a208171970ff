// The text and SQLite readers: tfprof op view, tfprof input-shapes listing, Nsight Systems
// SQLite export, TAU profile.N.C.T files, TAU pprof text, Python cProfile (pstats text or
// the binary .pstats).
// One file each (read_*.cpp); docs/ingest-text.md gives the rules each follows.
#pragma once

#include <string_view>

#include "fomcast/ingest.hpp"
#include "common/input.hpp"

namespace fomcast::ingest {

int detect_tfprof_op(std::string_view head, std::string_view path);
Workload read_tfprof_op(const InputFile&, const IngestOptions&);

int detect_tfprof_shapes(std::string_view head, std::string_view path);
Workload read_tfprof_shapes(const InputFile&, const IngestOptions&);

int detect_nsys_sqlite(std::string_view head, std::string_view path);
Workload read_nsys_sqlite(const InputFile&, const IngestOptions&);

int detect_tau(std::string_view head, std::string_view path);
Workload read_tau(const InputFile&, const IngestOptions&);

int detect_pprof(std::string_view head, std::string_view path);
Workload read_pprof(const InputFile&, const IngestOptions&);

int detect_cprofile(std::string_view head, std::string_view path);
Workload read_cprofile(const InputFile&, const IngestOptions&);

}  // namespace fomcast::ingest
