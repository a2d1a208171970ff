// The binary .pstats file cProfile writes (`Profile.dump_stats`, `pstats.Stats.dump_stats`):
// a Python marshal dump of {(file, line, function): (primitive calls, calls, tottime,
// cumtime, callers)}. Decoded here with no Python: only the marshal types such a dump uses
// (ints, longs, floats, strings, tuples, dicts, references).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fomcast::ingest::pstats {

struct Entry {
  std::string name;  // as pstats prints it: "file.py:12(f)" or "{method 'dot' of ...}"
  double primitive_calls = 0, calls = 0, tottime_s = 0, cumtime_s = 0;
};

// Whether bytes look like a marshal dump of a dict (cheap; for detection).
bool looks_like_marshal(std::string_view head);

// Throws InputError naming `file` and the byte offset of anything malformed.
std::vector<Entry> read_marshal(std::string_view bytes, const std::string& file);

}  // namespace fomcast::ingest::pstats
