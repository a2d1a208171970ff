// The store: one SQLite file holding platforms, kernel tables, workloads, calibrations and
// the FOM history. This is the only code in fomcast that speaks SQL, always through
// prepared statements. WAL and a busy timeout let parallel writers wait for each other;
// every command's writes go through one transaction(), so a failure leaves the file as it was.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/kernel_table.hpp"
#include "fomcast/platform.hpp"
#include "fomcast/records.hpp"
#include "fomcast/workload.hpp"

struct sqlite3;

namespace fomcast {

// SQLite failing for a reason the file does not explain: a statement that does not
// prepare, a disk that is full, an I/O error, a lock that never comes. Not an InputError:
// the CLI reports it as an internal error (exit 3). A file that is not a fomcast database,
// is corrupt, unreadable or read-only, or holds a row the schema refuses, is bad input
// (InputError, exit 2).
struct StoreError : std::runtime_error {
  StoreError(std::string path, std::string message);
  std::string path;
  std::string message;
};

class Store {
 public:
  // Opens or creates the database and applies pending migrations; it does not load the
  // shipped data (seed_if_needed in fomcast/seed.hpp does, one layer up). Throws
  // InputError naming the path when the file is not a usable fomcast database, StoreError
  // when SQLite
  // fails otherwise (as every other member may). The first write of the session runs
  // SQLite's quick_check first: a corrupt file is refused, never written into. A database
  // that exists but cannot be written (a read-only file or directory) opens for reading:
  // commands that only read work, and every write is an InputError "cannot write DIR
  // (read-only): this command writes ..."; one that would need migrating or does not exist
  // yet is that error at once.
  static Store open(const std::string& path);

  // What `fomcast doctor` reports on a database file, read without writing anything.
  struct Health {
    bool exists = false;
    std::string write_problem;             // "cannot write DIR (read-only)"; "" when it can be written
    std::string problem;                   // why it is not a usable fomcast database; "" when it is
    int schema_version = 0;                // PRAGMA user_version
    std::vector<std::string> quick_check;  // SQLite's lines: {"ok"} for a sound file
    int64_t platforms = 0, kernel_entries = 0, workloads = 0, calibrations = 0, fom_records = 0;
    std::string shipped_data_hash;  // meta: the shipped data last loaded into it
  };
  static Health check(const std::string& path);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::string& path() const { return path_; }
  static int schema_version();

  // Runs body inside BEGIN IMMEDIATE ... COMMIT; rolls back and rethrows on any exception.
  // Nested calls join the outer transaction.
  void transaction(const std::function<void()>& body);

  // Platforms
  std::vector<Platform> platforms() const;
  std::optional<Platform> platform(std::string_view name) const;
  void put_platform(const Platform&);  // insert or replace by name
  // Returns the platform, creating an unmeasured placeholder when the name is new.
  Platform ensure_platform(std::string_view name);
  // Deletes the platform with its kernel entries and the calibrations measured on it; the
  // counts of what went, nullopt when no platform has the name.
  struct PlatformRemoval {
    int64_t kernel_entries = 0, calibrations = 0;
  };
  std::optional<PlatformRemoval> delete_platform(std::string_view name);

  // Kernel tables. `origin` tags who wrote the rows: rows of the same platform, origin,
  // key, precision and mode are replaced.
  KernelTable kernel_table(std::string_view platform) const;
  void put_kernel_entries(std::string_view platform, const std::vector<KernelEntry>&, TableOrigin origin);
  void delete_kernel_entries(std::string_view platform, TableOrigin origin);
  int64_t kernel_entry_count(std::string_view platform) const;

  // Workloads
  std::vector<WorkloadSummary> workloads() const;
  std::optional<Workload> workload(std::string_view name) const;
  void put_workload(const Workload&, bool shipped = false);  // insert or replace by name
  bool delete_workload(std::string_view name);

  // Calibrations
  void put_calibration(const Calibration&);  // replaces the same (workload, platform)
  std::vector<Calibration> calibrations(std::string_view workload) const;
  // Deletes the workload's calibration on `platform`, or all of its calibrations when
  // `platform` is empty; returns how many went.
  int64_t delete_calibrations(std::string_view workload, std::string_view platform = {});

  // FOM history
  int64_t add_fom_record(const FomRecord&);
  std::vector<FomRecord> fom_records() const;

  // Key/value facts about the database itself (seed hash, creation time).
  std::optional<std::string> meta(std::string_view key) const;
  void set_meta(std::string_view key, std::string_view value);

 private:
  explicit Store(std::string path);
  static Store open_read_only(const std::string& path, std::string problem);
  void migrate();

  // SQLite's quick_check, once per session, before its first write.
  void check_sound();

  std::string path_;
  sqlite3* db_ = nullptr;
  int transaction_depth_ = 0;
  bool checked_sound_ = false;
  // Why the database cannot be written ("cannot write DIR (read-only)"), when it was opened
  // for reading only; "" when it can be. Every write (transaction) is then that error.
  std::string read_only_problem_;
};

// Current time as ISO 8601 UTC ("2024-05-01T12:00:00Z"), the form of every timestamp in
// the store.
std::string utc_now();

}  // namespace fomcast
