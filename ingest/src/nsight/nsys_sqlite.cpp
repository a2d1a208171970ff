// nsys-sqlite: an Nsight Systems SQLite export (`nsys export --type sqlite`). GPU kernels
// (CUPTI_ACTIVITY_KIND_KERNEL, names through StringIds), memory copies and sets, CUDA
// runtime calls (to find which thread launched a kernel, and when), NVTX ranges (steps,
// PyTorch emit_nvtx op ranges with input sizes, MPI calls). Table and column sets differ
// between nsys versions, so everything is looked up in sqlite_master / table_info first
// and a missing table is an empty one. The input is opened read-only and immutable.
//
// This reads an input file that happens to be SQLite; the fomcast database is only ever
// touched by the store.
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "common/ops.hpp"
#include "common/readers.hpp"
#include "common/steps.hpp"
#include "decode/text_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "nsight/nvtx_ops.hpp"

namespace fomcast::ingest {
namespace {

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
constexpr double kNs = 1e-9;
// Longer than any profiled run (nanoseconds in 10 days): a longer span is corrupt data.
constexpr int64_t kMaxSpanNs = int64_t{864000} * 1000000000;

// A read-only connection to the export; closes itself.
class Export {
 public:
  Export(const InputFile& file) : path_(file.path()) {
    int rc;
    if (!file.in_memory() && !file.gzip()) {
      rc = sqlite3_open_v2(uri(path_).c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    } else {
      // gzip or in memory: hand SQLite a private read-only copy of the bytes.
      const std::string& bytes = file.bytes();
      rc = sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nullptr);
      if (rc == SQLITE_OK) {
        auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(std::max<std::size_t>(bytes.size(), 1)));
        if (!copy) throw InputError(path_, "out of memory copying the export");
        // A byte image for sqlite3_deserialize, not a string: no terminator belongs in it.
        std::memcpy(copy, bytes.data(), bytes.size());  // NOLINT(bugprone-not-null-terminated-result)
        rc = sqlite3_deserialize(db_, "main", copy, static_cast<sqlite3_int64>(bytes.size()),
                                 static_cast<sqlite3_int64>(bytes.size()),
                                 SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
      }
    }
    if (rc != SQLITE_OK) fail("cannot open the SQLite export", "SQLite header");
  }
  ~Export() { sqlite3_close(db_); }
  Export(const Export&) = delete;
  Export& operator=(const Export&) = delete;

  // Without a table to name, the fault is in the file's structure: sqlite_master.
  [[noreturn]] void fail(const std::string& what, const std::string& field = "sqlite_master") const {
    throw InputError(path_, what + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory"), 0, -1, field);
  }

  // Runs a query, calling row(stmt) per row; SQLite errors (a corrupt file) become InputError.
  template <typename Fn>
  void each(const std::string& sql, Fn&& row, const std::string& field = "sqlite_master") const {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) fail("reading the export", field);
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } finalize{stmt};
    // A plain scan of one table reads it in its stored order, so a fault in one of its rows
    // is placed by that row's number: "CUPTI_ACTIVITY_KIND_MEMCPY.bytes, row 7" (the table and
    // column alone left a user to search thousands of rows).
    const std::string scanned = scanned_table(sql);
    int64_t n = 0;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      ++n;
      try {
        row(stmt);
      } catch (const InputError& e) {
        if (scanned.empty() || !e.field.starts_with(scanned + ".")) throw;
        throw InputError(e.file, e.message, e.line, e.byte_offset, e.field + ", row " + std::to_string(n));
      }
    }
    if (rc != SQLITE_DONE) fail("reading the export", field);
  }

  // The table a query reads whole ("SELECT ... FROM T", nothing after it); "" otherwise.
  static std::string scanned_table(std::string_view sql) {
    const std::size_t from = sql.rfind(" FROM ");
    if (from == std::string_view::npos) return {};
    const std::string_view table = sql.substr(from + 6);
    const bool plain = !table.empty() && std::all_of(table.begin(), table.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    return plain ? std::string(table) : std::string();
  }

  const std::string& path() const { return path_; }

  // A damaged b-tree page still reads as rows (a leaf whose cells run off its end yields the
  // ones before), so an export that SQLite's own check finds damaged is refused before
  // anything is read from it, at the first damaged page's offset.
  void check_structure() const {
    std::string problem;
    each("PRAGMA quick_check(1)", [&](sqlite3_stmt* st) {
      const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      if (t && std::string_view(t) != "ok") problem = t;
    });
    if (problem.empty()) return;
    int64_t page_bytes = 0;
    each("PRAGMA page_size", [&](sqlite3_stmt* st) { page_bytes = sqlite3_column_int64(st, 0); });
    int64_t offset = -1;
    std::string field = "sqlite_master";
    if (const auto at = problem.find("page "); at != std::string::npos) {
      const int64_t page = std::strtoll(problem.c_str() + at + 5, nullptr, 10);
      if (page > 0 && page_bytes > 0) offset = (page - 1) * page_bytes, field = "page " + std::to_string(page);
    }
    std::replace(problem.begin(), problem.end(), '\n', ' ');
    while (!problem.empty() && problem.back() == ' ') problem.pop_back();
    throw InputError(path_, "the SQLite export is damaged (SQLite's quick_check: " + problem + ")", 0, offset, field);
  }

 private:
  static std::string uri(const std::string& path) {
    std::string out = "file:";
    for (unsigned char c : path) {
      if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '~') {
        out += static_cast<char>(c);
      } else {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%%%02X", c);
        out += buf;
      }
    }
    return out + "?mode=ro&immutable=1";
  }

  std::string path_;
  sqlite3* db_ = nullptr;
};

struct Schema {
  std::map<std::string, std::set<std::string>> columns;  // table -> column names
  bool has(const std::string& table) const { return columns.count(table) > 0; }
  bool has(const std::string& table, const std::string& column) const {
    auto it = columns.find(table);
    return it != columns.end() && it->second.count(column) > 0;
  }
};

Schema read_schema(const Export& db) {
  Schema s;
  std::vector<std::string> tables;
  db.each("SELECT name FROM sqlite_master WHERE type = 'table'", [&](sqlite3_stmt* st) {
    const auto* n = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    if (n) tables.emplace_back(n);
  });
  for (const auto& t : tables) {
    auto& cols = s.columns[t];
    std::string quoted;
    for (char c : t) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    db.each("SELECT name FROM pragma_table_info(\"" + quoted + "\")", [&](sqlite3_stmt* st) {
      const auto* n = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      if (n) cols.insert(n);
    });
  }
  return s;
}

std::string text_at(sqlite3_stmt* st, int col) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, col));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(st, col))) : std::string();
}

// A name column holds a StringIds id (INTEGER) or, in some exports, the text itself.
struct Names {
  std::unordered_map<int64_t, std::string> ids;
  int64_t unresolved = 0;
  std::string at(sqlite3_stmt* st, int col) {
    switch (sqlite3_column_type(st, col)) {
      case SQLITE_INTEGER: {
        auto it = ids.find(sqlite3_column_int64(st, col));
        if (it != ids.end()) return it->second;
        ++unresolved;
        return "<unnamed>";
      }
      case SQLITE_TEXT: return text_at(st, col);
      default: ++unresolved; return "<unnamed>";
    }
  }
};

// start and end of a row, checked; false when either is NULL and the table allows it (an
// NVTX range pushed and never popped). A device activity always has both: one without was
// dropped, and its time with it.
bool interval(sqlite3_stmt* st, int col, int64_t& start, int64_t& end, const Export& db, const std::string& table,
              bool null_allowed = false) {
  const int ts = sqlite3_column_type(st, col), te = sqlite3_column_type(st, col + 1);
  if (ts == SQLITE_NULL || te == SQLITE_NULL) {
    if (null_allowed) return false;
    throw InputError(db.path(), "a device activity without a start or an end", 0, -1,
                     table + (ts == SQLITE_NULL ? ".start" : ".end"));
  }
  if (ts != SQLITE_INTEGER || te != SQLITE_INTEGER)
    throw InputError(db.path(), "start and end must be integer nanoseconds", 0, -1, table + ".start");
  start = sqlite3_column_int64(st, col);
  end = sqlite3_column_int64(st, col + 1);
  if (end < start || end - start > kMaxSpanNs || start < 0)
    throw InputError(db.path(),
                     "a row ends before it starts or spans more than 10 days (start " + std::to_string(start) +
                         ", end " + std::to_string(end) + ")",
                     0, -1, table + ".end");
  return true;
}

const char* memcpy_direction(int64_t kind) {
  // CUPTI's CUpti_ActivityMemcpyKind, stable across versions.
  switch (kind) {
    case 1: return "Memcpy HtoD";
    case 2: return "Memcpy DtoH";
    case 3: return "Memcpy HtoA";
    case 4: return "Memcpy AtoH";
    case 5: return "Memcpy AtoA";
    case 6: return "Memcpy AtoD";
    case 7: return "Memcpy DtoA";
    case 8: return "Memcpy DtoD";
    case 9: return "Memcpy HtoH";
    case 10: return "Memcpy PtoP";
    default: return "Memcpy";
  }
}

struct Range {
  int64_t start = 0, end = 0, tid = 0;
  std::string text;
  int64_t domain = 0;
};

struct Launch {
  int64_t time = 0, tid = 0;
};

// Innermost range of one thread containing each query time: a sweep with a stack, so a
// trace with millions of ranges and kernels stays O(n log n).
class RangeIndex {
 public:
  void add(int64_t tid, std::size_t range, const Range& r) { by_thread_[tid].push_back({r.start, r.end, range}); }
  void finish() {
    for (auto& [tid, v] : by_thread_)
      std::sort(v.begin(), v.end(), [](const Item& a, const Item& b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;  // outer first
      });
  }
  bool empty() const { return by_thread_.empty(); }
  // queries: (tid, time, id) sorted by (tid, time); calls hit(id, range) for each match.
  template <typename Fn>
  void sweep(std::vector<std::tuple<int64_t, int64_t, std::size_t>>& queries, Fn&& hit) const {
    std::sort(queries.begin(), queries.end());
    std::size_t q = 0;
    while (q < queries.size()) {
      const int64_t tid = std::get<0>(queries[q]);
      auto it = by_thread_.find(tid);
      if (it == by_thread_.end()) {
        while (q < queries.size() && std::get<0>(queries[q]) == tid) ++q;
        continue;
      }
      const auto& items = it->second;
      std::vector<const Item*> stack;
      std::size_t next = 0;
      for (; q < queries.size() && std::get<0>(queries[q]) == tid; ++q) {
        const int64_t t = std::get<1>(queries[q]);
        while (next < items.size() && items[next].start <= t) {
          while (!stack.empty() && stack.back()->end < items[next].start) stack.pop_back();
          stack.push_back(&items[next++]);
        }
        while (!stack.empty() && stack.back()->end < t) stack.pop_back();
        if (!stack.empty()) hit(std::get<2>(queries[q]), stack.back()->range);
      }
    }
  }

 private:
  struct Item {
    int64_t start, end;
    std::size_t range;
  };
  std::unordered_map<int64_t, std::vector<Item>> by_thread_;
};

// Steps, sorted by start; a time belongs to the step with the latest start at or before it.
struct Steps {
  std::vector<std::pair<int64_t, int64_t>> spans;
  bool contains(int64_t t) const {
    if (spans.empty()) return true;
    auto it = std::upper_bound(spans.begin(), spans.end(), std::make_pair(t, INT64_MAX));
    if (it == spans.begin()) return false;
    --it;
    return t <= it->second;
  }
};

std::string metadata(const Export& db, const Schema& schema, const std::string& key) {
  std::string value;
  for (const char* table : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
    if (!schema.has(table, "name") || !schema.has(table, "value")) continue;
    db.each(std::string("SELECT value FROM ") + table + " WHERE name = '" + key + "'",
            [&](sqlite3_stmt* st) { value = text_at(st, 0); });
    if (!value.empty()) break;
  }
  return value;
}

int64_t count_rows(const Export& db, const Schema& schema, const std::string& table) {
  if (!schema.has(table)) return 0;
  int64_t n = 0;
  db.each("SELECT count(*) FROM " + table, [&](sqlite3_stmt* st) { n = sqlite3_column_int64(st, 0); });
  return n;
}

// ---------------------------------------------------------------------------------------
// The stages of read_nsys_sqlite, in the order it runs them.

const std::string kKernel = "CUPTI_ACTIVITY_KIND_KERNEL", kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY",
                  kMemset = "CUPTI_ACTIVITY_KIND_MEMSET", kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME",
                  kNvtx = "NVTX_EVENTS";

// The header: a SQLite file, and not a fomcast database.
void check_header(const InputFile& file) {
  const std::string& path = file.path();
  const std::string_view head = file.head();
  if (head.empty()) throw InputError(path, "empty file: not an Nsight Systems SQLite export", 0, 0);
  if (!head.starts_with(kSqliteMagic))
    throw InputError(path, "not a SQLite file (an Nsight Systems export starts with 'SQLite format 3')", 0, 0);
  // PRAGMA application_id sits at byte 68 of the header; fomcast's own databases say FOMC.
  if (head.size() >= 72 && head.substr(68, 4) == "FOMC")
    throw InputError(path, "this is a fomcast database, not a profile to ingest", 0, 68);
}

// Which of the tables read here the export has. A database with none of the activity and
// NVTX tables is not an nsys export; a table lacking a column read here is an unknown schema.
struct Tables {
  bool kernels = false, memcpy = false, memset = false, nvtx = false, runtime = false;
};

Tables find_tables(const std::string& path, const Schema& schema) {
  if (!schema.has(kKernel) && !schema.has(kMemcpy) && !schema.has(kMemset) && !schema.has(kNvtx)) {
    if (schema.columns.empty())
      throw InputError(path, "an empty SQLite database (no tables): not an Nsight Systems export", 0, -1,
                       "sqlite_master");
    throw InputError(path,
                     "a SQLite database but not an Nsight Systems export: it has none of " + kKernel + ", " + kMemcpy +
                         ", " + kMemset + ", " + kNvtx + " (export with `nsys export --type sqlite`)",
                     0, -1, "sqlite_master");
  }
  auto need = [&](const std::string& table, std::initializer_list<const char*> cols) {
    if (!schema.has(table)) return false;
    for (const char* c : cols)
      if (!schema.has(table, c))
        throw InputError(path, "table " + table + " lacks column '" + c + "' (an nsys export of an unknown schema?)", 0,
                         -1, table + "." + c);
    return true;
  };
  Tables t;
  t.kernels = need(kKernel, {"start", "end"});
  t.memcpy = need(kMemcpy, {"start", "end", "bytes"});
  t.memset = need(kMemset, {"start", "end", "bytes"});
  t.nvtx = need(kNvtx, {"start", "end", "eventType", "globalTid"});
  t.runtime = need(kRuntime, {"start", "correlationId", "globalTid"});
  return t;
}

Names read_string_ids(const Export& db, const Schema& schema) {
  Names names;
  if (schema.has("StringIds", "id") && schema.has("StringIds", "value"))
    db.each("SELECT id, value FROM StringIds",
            [&](sqlite3_stmt* st) { names.ids[sqlite3_column_int64(st, 0)] = text_at(st, 1); });
  return names;
}

// The first note: which nsys wrote the export, its schema, the GPUs.
std::string export_note(const Export& db, const Schema& schema) {
  const std::string version = metadata(db, schema, "EXPORT_SCHEMA_VERSION");
  const std::string product = metadata(db, schema, "EXPORT_PRODUCT_VERSION");
  std::string gpu;
  if (schema.has("TARGET_INFO_GPU", "name"))
    db.each("SELECT DISTINCT name FROM TARGET_INFO_GPU",
            [&](sqlite3_stmt* st) { gpu += (gpu.empty() ? "" : ", ") + text_at(st, 0); });
  return "Nsight Systems export" + (product.empty() ? std::string() : " from nsys " + product) +
         (version.empty() ? std::string() : ", schema " + version) + (gpu.empty() ? "" : "; GPU: " + gpu);
}

// The device the kernels ran on, as the export names it (TARGET_INFO_GPU, or the older
// TARGET_INFO_CUDA_DEVICE): the GPU that ran the most kernels, else the first listed.
std::string device_name(const Export& db, const Schema& schema) {
  std::map<int64_t, std::string> by_id;
  if (schema.has("TARGET_INFO_GPU", "name") && schema.has("TARGET_INFO_GPU", "id"))
    db.each("SELECT id, name FROM TARGET_INFO_GPU WHERE name IS NOT NULL",
            [&](sqlite3_stmt* st) { by_id.try_emplace(sqlite3_column_int64(st, 0), text_at(st, 1)); });
  else if (schema.has("TARGET_INFO_CUDA_DEVICE", "name"))
    db.each("SELECT rowid, name FROM TARGET_INFO_CUDA_DEVICE WHERE name IS NOT NULL",
            [&](sqlite3_stmt* st) { by_id.try_emplace(sqlite3_column_int64(st, 0), text_at(st, 1)); });
  if (by_id.empty()) return "";
  if (schema.has(kKernel, "deviceId")) {
    std::string busiest;
    db.each("SELECT deviceId, count(*) FROM " + kKernel + " GROUP BY deviceId ORDER BY 2 DESC LIMIT 1",
            [&](sqlite3_stmt* st) {
              if (auto it = by_id.find(sqlite3_column_int64(st, 0)); it != by_id.end()) busiest = it->second;
            });
    if (!busiest.empty()) return busiest;
  }
  return by_id.begin()->second;
}

// NVTX: ranges (push/pop 59, start/end 60) with an end; domains (75) by id.
struct Nvtx {
  std::vector<Range> ranges;
  std::map<int64_t, std::string> domains;
};

Nvtx read_nvtx(const Export& db, const Schema& schema, Names& names) {
  Nvtx out;
  const bool text_col = schema.has(kNvtx, "text"), text_id = schema.has(kNvtx, "textId"),
             domain_col = schema.has(kNvtx, "domainId");
  const std::string sql = std::string("SELECT start, end, eventType, globalTid, ") + (text_col ? "text" : "NULL") +
                          ", " + (text_id ? "textId" : "NULL") + ", " + (domain_col ? "domainId" : "0") + " FROM " +
                          kNvtx;
  db.each(
      sql,
      [&](sqlite3_stmt* st) {
        const int64_t type = sqlite3_column_int64(st, 2);
        std::string label = sqlite3_column_type(st, 4) == SQLITE_TEXT   ? text_at(st, 4)
                            : sqlite3_column_type(st, 5) != SQLITE_NULL ? names.at(st, 5)
                                                                        : std::string();
        if (type == 75) {
          out.domains[sqlite3_column_int64(st, 6)] = label;
          return;
        }
        if (type != 59 && type != 60) return;
        Range r;
        if (!interval(st, 0, r.start, r.end, db, kNvtx, true)) return;
        r.tid = sqlite3_column_int64(st, 3);
        r.text = std::move(label);
        r.domain = sqlite3_column_int64(st, 6);
        out.ranges.push_back(std::move(r));
      },
      kNvtx);
  return out;
}

// What each NVTX range is: a step, a framework op (PyTorch emit_nvtx), an MPI call, or
// none of these.
struct RangeRoles {
  Steps steps;
  RangeIndex op_ranges;
  std::vector<std::optional<nvtx::FrameworkOp>> framework;  // per range
  std::vector<std::size_t> mpi;                             // MPI communication ranges
  int64_t other_mpi = 0;
};

RangeRoles sort_ranges(const Nvtx& nvtx) {
  RangeRoles roles;
  roles.framework.resize(nvtx.ranges.size());
  for (std::size_t i = 0; i < nvtx.ranges.size(); ++i) {
    const Range& r = nvtx.ranges[i];
    if (is_step_name(r.text)) {
      roles.steps.spans.emplace_back(r.start, r.end);
    } else if ((roles.framework[i] = nvtx::parse_framework_op(r.text))) {
      roles.op_ranges.add(r.tid, i, r);
    } else if (auto d = nvtx.domains.find(r.domain); d != nvtx.domains.end() && d->second == "MPI") {
      if (classify_name(r.text) == OpKind::collective)
        roles.mpi.push_back(i);
      else
        ++roles.other_mpi;
    }
  }
  std::sort(roles.steps.spans.begin(), roles.steps.spans.end());
  roles.op_ranges.finish();
  return roles;
}

// Which thread launched each GPU activity, and when: the runtime call with its correlation
// id. Needed only to place activities in steps or in framework op ranges.
using Launches = std::unordered_map<int64_t, Launch>;

Launches read_launches(const Export& db, const Tables& tables, const RangeRoles& roles) {
  Launches launches;
  const bool need_launches = tables.runtime && (!roles.steps.spans.empty() || !roles.op_ranges.empty());
  if (need_launches)
    db.each(
        "SELECT correlationId, start, globalTid FROM " + kRuntime,
        [&](sqlite3_stmt* st) {
          const int64_t id = sqlite3_column_int64(st, 0);
          Launch l{sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)};
          auto [it, inserted] = launches.emplace(id, l);
          if (!inserted && l.time < it->second.time) it->second = l;  // nested API calls: the outer one
        },
        kRuntime);
  return launches;
}

// The launch of the activity in this row (its correlation id in column corr_col, -1 none);
// an activity without one counts as launched at its own start, by no known thread.
Launch launch_of(const Launches& launches, sqlite3_stmt* st, int corr_col, int64_t start) {
  if (corr_col >= 0 && sqlite3_column_type(st, corr_col) != SQLITE_NULL) {
    auto it = launches.find(sqlite3_column_int64(st, corr_col));
    if (it != launches.end()) return it->second;
  }
  return {start, -1};
}

// What the kernel, copy and MPI stages add up.
struct Activity {
  struct CopyBytes {
    double bytes = 0, calls = 0;
  };
  OpAggregator agg;
  int64_t gpu_first = INT64_MAX, gpu_last = INT64_MIN, outside_steps = 0, kernels = 0, copies = 0;
  std::map<std::string, CopyBytes> copy_bytes;  // copies: summed bytes per op name
  int64_t busy_ns = 0;                          // summed durations of the kernels, copies and sets
  void gpu_span(int64_t s, int64_t e) {
    gpu_first = std::min(gpu_first, s);
    gpu_last = std::max(gpu_last, e);
    busy_ns += e - s;
  }
};

// Kernels: by kernel name, or, inside emit_nvtx op ranges, as the op that launched them
// (its time the sum of its kernels, its shape from the range's 'sizes = ').
void read_kernels(const Export& db, const Schema& schema, const Nvtx& nvtx, const RangeRoles& roles,
                  const Launches& launches, Names& names, Activity& a, Workload& w) {
  std::string name_col;
  for (const char* c : {"demangledName", "shortName", "mangledName", "name"})
    if (name_col.empty() && schema.has(kKernel, c)) name_col = c;
  if (name_col.empty()) throw InputError(db.path(), "the kernel table has no name column", 0, -1, kKernel);
  const bool corr = schema.has(kKernel, "correlationId");
  struct Kernel {
    std::string name;
    double dur_s;
  };
  std::vector<Kernel> in_ops;  // kernels a framework op launched, matched below
  std::vector<std::tuple<int64_t, int64_t, std::size_t>> queries;
  db.each(
      "SELECT start, end, " + name_col + ", " + (corr ? "correlationId" : "NULL") + " FROM " + kKernel,
      [&](sqlite3_stmt* st) {
        int64_t s, e;
        if (!interval(st, 0, s, e, db, kKernel)) return;
        ++a.kernels;
        a.gpu_span(s, e);
        const Launch l = launch_of(launches, st, corr ? 3 : -1, s);
        if (!roles.steps.contains(l.time)) {
          ++a.outside_steps;
          return;
        }
        if (!roles.op_ranges.empty() && l.tid != -1) {
          queries.emplace_back(l.tid, l.time, in_ops.size());
          in_ops.push_back({names.at(st, 2), static_cast<double>(e - s) * kNs});
          return;
        }
        Op op;
        op.name = names.at(st, 2);
        op.kind = classify_name(op.name);
        op.phase = phase_from_kernel_name(op.name);
        a.agg.add(op, 1, static_cast<double>(e - s) * kNs);
      },
      kKernel);
  // Kernels inside emit_nvtx op ranges: the op's time is the sum of its kernels.
  std::map<std::size_t, double> op_time;  // range -> kernel seconds
  std::vector<bool> matched(in_ops.size(), false);
  roles.op_ranges.sweep(queries, [&](std::size_t k, std::size_t range) {
    op_time[range] += in_ops[k].dur_s;
    matched[k] = true;
  });
  for (std::size_t k = 0; k < in_ops.size(); ++k) {
    if (matched[k]) continue;
    Op op;
    op.name = in_ops[k].name;
    op.kind = classify_name(op.name);
    op.phase = phase_from_kernel_name(op.name);
    a.agg.add(op, 1, in_ops[k].dur_s);
  }
  // Phase from the enclosing ranges too: emit_nvtx nests aten::mm inside MmBackward0.
  const auto& ranges = nvtx.ranges;
  RangeIndex all_ranges;
  for (std::size_t i = 0; i < ranges.size(); ++i)
    if (roles.framework[i] && phase_from_name(roles.framework[i]->name) == Phase::backward)
      all_ranges.add(ranges[i].tid, i, ranges[i]);
  all_ranges.finish();
  std::vector<std::tuple<int64_t, int64_t, std::size_t>> phase_queries;
  for (const auto& [range, t] : op_time) phase_queries.emplace_back(ranges[range].tid, ranges[range].start, range);
  std::set<std::size_t> backward;
  all_ranges.sweep(phase_queries, [&](std::size_t range, std::size_t) { backward.insert(range); });
  int64_t shaped = 0;
  for (const auto& [range, t] : op_time) {
    const auto& fw = *roles.framework[range];
    const auto s = nvtx::shape_from_sizes(fw.name, fw.sizes);
    Op op;
    op.name = fw.name;
    op.kind = s.kind;
    op.shape = s.shape;
    op.phase = backward.count(range) ? Phase::backward : phase_from_name(fw.name);
    if (!std::holds_alternative<std::monostate>(op.shape)) ++shaped;
    a.agg.add(op, 1, t);
  }
  if (!op_time.empty())
    w.notes.push_back(std::to_string(op_time.size()) +
                      " emit_nvtx op range(s) launched kernels: each op's time is "
                      "the sum of its kernels (" +
                      std::to_string(shaped) + " with shapes from 'sizes = ')");
}

// Memory copies (by direction) or sets: one op per kind, with its mean byte count.
void read_copies(const Export& db, const Schema& schema, const std::string& table, bool is_memset,
                 const RangeRoles& roles, const Launches& launches, Activity& a) {
  const bool corr = schema.has(table, "correlationId"), kind = schema.has(table, "copyKind");
  db.each(
      "SELECT start, end, bytes, " + std::string(kind ? "copyKind" : "0") + ", " + (corr ? "correlationId" : "NULL") +
          " FROM " + table,
      [&](sqlite3_stmt* st) {
        int64_t s, e;
        if (!interval(st, 0, s, e, db, table)) return;
        // An integer from 0 to 2^50 (a PiB): text read as 0, and 9e18 bytes per copy, were taken.
        if (sqlite3_column_type(st, 2) != SQLITE_INTEGER)
          throw InputError(db.path(), "byte count is not an integer", 0, -1, table + ".bytes");
        const int64_t bytes = sqlite3_column_int64(st, 2);
        if (bytes < 0)
          throw InputError(db.path(), "negative byte count " + std::to_string(bytes), 0, -1, table + ".bytes");
        if (bytes > (int64_t{1} << 50))
          throw InputError(db.path(), "byte count " + std::to_string(bytes) + " is absurd (over 2^50)", 0, -1,
                           table + ".bytes");
        ++a.copies;
        a.gpu_span(s, e);
        if (!roles.steps.contains(launch_of(launches, st, corr ? 4 : -1, s).time)) {
          ++a.outside_steps;
          return;
        }
        // CUPTI's copy kinds are 0 (unknown) to 10 (peer to peer): 99 or NULL merged the
        // directions into one "Memcpy" op without a word.
        if (!is_memset && kind &&
            (sqlite3_column_type(st, 3) != SQLITE_INTEGER || sqlite3_column_int64(st, 3) < 0 ||
             sqlite3_column_int64(st, 3) > 10))
          throw InputError(db.path(),
                           "copy kind " +
                               std::string(sqlite3_column_type(st, 3) == SQLITE_NULL
                                               ? "NULL"
                                               : reinterpret_cast<const char*>(sqlite3_column_text(st, 3))) +
                               " is none of CUPTI's (0 to 10)",
                           0, -1, table + ".copyKind");
        Op op;
        op.name = is_memset ? "Memset" : memcpy_direction(sqlite3_column_int64(st, 3));
        op.kind = OpKind::memcpy;
        a.agg.add(op, 1, static_cast<double>(e - s) * kNs);
        auto& cb = a.copy_bytes[op.name];
        cb.bytes += static_cast<double>(bytes);
        cb.calls += 1;
      },
      table);
}

// MPI communication ranges: collective ops with their CPU time and no shape.
void add_mpi_ranges(const Nvtx& nvtx, const RangeRoles& roles, Activity& a) {
  for (std::size_t i : roles.mpi) {
    const Range& r = nvtx.ranges[i];
    if (!roles.steps.contains(r.start)) {
      ++a.outside_steps;
      continue;
    }
    Op op;
    op.name = r.text;
    op.kind = OpKind::collective;  // no payload in the range: no shape
    a.agg.add(op, 1, static_cast<double>(r.end - r.start) * kNs);
  }
}

// Passes and the pass time (NVTX steps, else the GPU activity's span), the ops per pass,
// the event count and the closing notes.
void finish_workload(Workload& w, const Export& db, const Schema& schema, const RangeRoles& roles, const Activity& a,
                     const Names& names) {
  const Steps& steps = roles.steps;
  const double passes = steps.spans.empty() ? 1.0 : static_cast<double>(steps.spans.size());
  w.ops = a.agg.finish(passes);
  for (auto& op : w.ops)
    if (auto it = a.copy_bytes.find(op.name); op.kind == OpKind::memcpy && it != a.copy_bytes.end())
      op.bytes = it->second.bytes / it->second.calls;
  w.passes = static_cast<int64_t>(passes);
  if (!steps.spans.empty()) {
    std::vector<double> lengths;
    for (const auto& [s, e] : steps.spans) lengths.push_back(static_cast<double>(e - s) * kNs);
    const StepStats st = step_stats(lengths);
    w.pass_s = st.median_s;
    w.notes.push_back(std::to_string(steps.spans.size()) +
                      " NVTX step range(s): passes counted from them; pass time = their length's " +
                      describe_steps(st) + "; GPU work launched outside them left out (" +
                      std::to_string(a.outside_steps) + " activities)");
  } else {
    if (a.gpu_last > a.gpu_first) w.pass_s = static_cast<double>(a.gpu_last - a.gpu_first) * kNs;
    w.notes.push_back("one pass: no NVTX step ranges; pass time = span of the GPU activity (first start to last end)");
  }
  w.events = count_rows(db, schema, kKernel) + count_rows(db, schema, kMemcpy) + count_rows(db, schema, kMemset) +
             count_rows(db, schema, kRuntime) + count_rows(db, schema, kNvtx);
  w.notes.push_back(std::to_string(a.kernels) + " kernels, " + std::to_string(a.copies) +
                    " memory copies/sets; CUDA runtime calls are not ops (their time overlaps the GPU work)");
  if (!roles.mpi.empty() || roles.other_mpi > 0)
    w.notes.push_back(std::to_string(roles.mpi.size()) +
                      " MPI communication range(s) kept as collective ops (CPU time); " +
                      std::to_string(roles.other_mpi) + " other MPI range(s) (MPI_Init, ...) left out");
  // Names are ids into StringIds; with no table to look them up in, every kernel would be
  // "<unnamed>": no kind, no phase, nothing to estimate by (it was a note and exit 0).
  if (names.unresolved > 0 && names.ids.empty())
    throw InputError(db.path(),
                     std::to_string(names.unresolved) +
                         " name(s) are StringIds ids, and the export has no StringIds table to look them up in "
                         "(export the report again: nsys export --type sqlite)",
                     0, -1, "StringIds");
  if (names.unresolved > 0)
    w.notes.push_back(std::to_string(names.unresolved) + " name(s) missing from StringIds, shown as <unnamed>");
}

// ---------------------------------------------------------------------------------------

int detect_nsys_sqlite(std::string_view head, std::string_view) {
  if (!head.starts_with(kSqliteMagic)) return 0;
  for (std::string_view marker : {"CUPTI_ACTIVITY_KIND", "NVTX_EVENTS", "TARGET_INFO_", "StringIds"})
    if (head.find(marker) != std::string_view::npos) return 95;
  return 40;  // some SQLite file: the reader says clearly what it is not
}

// The device activity against what the export says of itself. Every kernel, copy and set
// at zero duration is no measurement (stored, they were a silent zero: the Kineto reader
// refuses the same). An activity ending far past the capture's own duration
// (ANALYSIS_DETAILS, in the activity's time base) is corrupt: a kernel ending 8 days into a
// 2.27 s capture became a 192 h pass.
void check_device_times(const Export& db, const Schema& schema, const Activity& a) {
  if (a.kernels + a.copies > 0 && a.busy_ns == 0)
    throw InputError(db.path(),
                     "every kernel, copy and set has zero duration (" + std::to_string(a.kernels) + " kernels, " +
                         std::to_string(a.copies) +
                         " copies and sets): the durations are missing or zeroed, not a "
                         "measurement",
                     0, -1, std::string(kKernel) + ".end");
  if (!schema.has("ANALYSIS_DETAILS", "duration") || a.gpu_last == INT64_MIN) return;
  int64_t capture_ns = 0;
  db.each("SELECT duration FROM ANALYSIS_DETAILS", [&](sqlite3_stmt* st) {
    if (sqlite3_column_type(st, 0) == SQLITE_INTEGER)
      capture_ns = std::max<int64_t>(capture_ns, sqlite3_column_int64(st, 0));
  });
  if (capture_ns > 0 && a.gpu_last > 2 * capture_ns + int64_t{1000000000})
    throw InputError(db.path(),
                     "a device activity ends " + format_duration(static_cast<double>(a.gpu_last) * kNs) +
                         " into a capture the export says lasted " +
                         format_duration(static_cast<double>(capture_ns) * kNs) +
                         " (ANALYSIS_DETAILS.duration): its "
                         "end is corrupt",
                     0, -1, std::string(kKernel) + ".end");
}

Workload read_nsys_sqlite(const InputFile& file, const IngestOptions& options) {
  check_header(file);
  const Export db(file);
  db.check_structure();
  const Schema schema = read_schema(db);
  const Tables tables = find_tables(file.path(), schema);
  Names names = read_string_ids(db, schema);

  Workload w;
  w.origin = "nsys-sqlite";
  w.notes.push_back(export_note(db, schema));
  w.device = device_name(db, schema);
  const Nvtx nvtx = tables.nvtx ? read_nvtx(db, schema, names) : Nvtx{};
  const RangeRoles roles = sort_ranges(nvtx);
  const Launches launches = read_launches(db, tables, roles);
  Activity activity;
  if (tables.kernels) read_kernels(db, schema, nvtx, roles, launches, names, activity, w);
  if (tables.memcpy) read_copies(db, schema, kMemcpy, false, roles, launches, activity);
  if (tables.memset) read_copies(db, schema, kMemset, true, roles, launches, activity);
  check_device_times(db, schema, activity);
  add_mpi_ranges(nvtx, roles, activity);
  finish_workload(w, db, schema, roles, activity, names);
  if (options.progress) options.progress(1, 1, "nsys export read");
  return w;
}

}  // namespace

const FormatReader kNsysSqliteFormat{"nsys-sqlite", detect_nsys_sqlite, read_nsys_sqlite};

}  // namespace fomcast::ingest
