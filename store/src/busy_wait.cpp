#include "busy_wait.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

namespace fomcast::detail {

namespace {

constexpr int kStepMs = 10;
constexpr int kNoticeAfterMs = 2'000;

// SQLite calls this with the number of earlier calls for the same lock (0 on the first):
// each call sleeps one step, so the count gives the time waited.
int wait_for_lock(void* context, int calls) {
  const long waited_ms = static_cast<long>(calls) * kStepMs;
  if (waited_ms >= kBusyWaitMs) return 0;
  if (waited_ms == kNoticeAfterMs) {
    auto* db = static_cast<sqlite3*>(context);
    const char* file = sqlite3_db_filename(db, "main");
    std::fprintf(stderr, "fomcast: %s is locked by another writer; waiting (up to %d s)\n",
                 file && *file ? file : "the database", kBusyWaitMs / 1000);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(kStepMs));
  return 1;
}

}  // namespace

void install_busy_wait(sqlite3* db) { sqlite3_busy_handler(db, wait_for_lock, db); }

}  // namespace fomcast::detail
