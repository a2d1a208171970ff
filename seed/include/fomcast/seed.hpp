// Seeding: the shipped data/ (compiled into the binary) loaded into a store. It sits one
// layer above the store because loading needs the readers of what is shipped (the
// DeepBench importer of tables/, the layer-list expansion of ingest/), and the store itself
// knows only the vocabulary.
#pragma once

#include <string_view>

#include "fomcast/store.hpp"

namespace fomcast {

// Loads the shipped data unless the database already holds this build's: a new file, or
// one filled by a build that shipped other data, gets the shipped rows (re)loaded and the
// user's own rows kept. Remembers the data's hash in the meta table, so the next call does
// nothing; safe when several processes open one new database at once. Every command calls
// it right after Store::open.
void seed_if_needed(Store&);

// Loads everything shipped (platforms, kernel tables, model workloads), whatever the
// database holds. Idempotent: shipped rows are replaced, user rows are kept. Runs in one
// transaction (joining the caller's).
void seed_shipped_data(Store&);

// The seed step for data/models/*.json: each shipped model becomes a shipped workload
// (a user's own workload of the same name is left alone).
void seed_model_workloads(Store&);

// Puts the shipped model named `name` back as a shipped workload (after the user's own
// workload of that name was removed); false when no shipped model has that name.
bool restore_shipped_workload(Store&, std::string_view name);
// Puts the shipped spec named `name` back (after a user's `platforms add --replace` of it is
// removed): false when no shipped spec has that name. Its shipped kernel tables are never
// removed with the user's spec, so they are its tables again.
bool restore_shipped_platform(Store&, std::string_view name);

}  // namespace fomcast
