// How a connection waits for another process writing the same database. Private to the store.
#pragma once

#include <sqlite3.h>

namespace fomcast::detail {

// The longest a statement waits for another writer before SQLite answers "busy".
constexpr int kBusyWaitMs = 60'000;
// Waits up to kBusyWaitMs for a lock, as sqlite3_busy_timeout would, and says once on
// stderr, after two seconds, what it is waiting for: a minute's silence reads as a hang.
void install_busy_wait(sqlite3* db);

}  // namespace fomcast::detail
