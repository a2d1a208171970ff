// The schema of a fomcast database as an append-only list of migrations: migration i
// takes the schema from version i to i+1. Private to the store.
#pragma once

#include <span>

namespace fomcast::detail {

// 'FOMC' in PRAGMA application_id: tells a fomcast database from any other SQLite file.
constexpr int kApplicationId = 0x464F4D43;

// Every migration, oldest first; the schema version is their count.
std::span<const char* const> migrations();

}  // namespace fomcast::detail
