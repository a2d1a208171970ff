// What the two TAU readers (profile.N.C.T files and pprof text) share: turning timers
// (name, calls, exclusive and inclusive time) into operations, with TAU's conventions
// applied the same way: `.TAU application` is the run itself, `A => B` entries repeat the
// flat timers along call paths, a timer with no time at all was not measured.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fomcast/model.hpp"

namespace fomcast::ingest::tau {

struct Timer {
  std::string name;
  std::string group;  // TAU group ("MPI", "TAU_USER", ...); "" when the source has none
  double calls = 0;
  double exclusive_s = 0;
  double inclusive_s = 0;
};

// Message sizes TAU recorded: mean bytes per call, per timer when the event names one
// ("Message size for all-reduce : MPI_Allreduce()"), else per kind of collective
// ("Message size for broadcast" goes to every broadcast timer).
struct MessageSizes {
  std::map<std::string, double> by_timer;
  std::map<CollectiveKind, double> by_kind;
};
// Records a user event when it is a message size; TAU's MAX/MIN marker copies are ignored.
void add_message_size(MessageSizes&, std::string_view event_name, double mean_bytes);

// One thread's profile; `node` is the process (MPI rank) it belongs to.
struct ThreadProfile {
  int64_t node = 0;
  std::vector<Timer> timers;
};

// Ops, passes, pass time and notes from the thread profiles. Threads of one process add
// up; processes are averaged, so a pass is one rank's pass.
void build_workload(const std::vector<ThreadProfile>&, const MessageSizes&, Workload& w);

// Strips TAU's decorations from a timer name: runs of spaces, trailing blanks, the source
// location "[{file} {line,col}]".
std::string clean_name(std::string_view);

}  // namespace fomcast::ingest::tau
