// Platforms and their kernel tables in the store.
#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/json_forms.hpp"
#include "fomcast/store.hpp"
#include "sqlite_statement.hpp"

namespace fomcast {
namespace {

using detail::Statement;
using nlohmann::json;

Platform platform_from_row(const Statement& s, const std::string& path) {
  const std::string name = s.text_at(0);
  try {
    Platform p = platform_from_json(json::parse(s.text_at(2)), path + " (platform " + name + ")");
    const auto origin = parse_platform_origin(s.text_at(1));
    if (!origin) throw InputError(path, "stored origin '" + s.text_at(1) + "' is unknown", 0, -1, "platforms." + name);
    p.origin = *origin;
    return p;
  } catch (const json::exception& e) {
    throw InputError(path, std::string("stored spec is corrupt: ") + e.what(), 0, -1, "platforms." + name);
  }
}

}  // namespace

std::vector<Platform> Store::platforms() const {
  Statement s(db_, "SELECT name, origin, spec_json FROM platforms ORDER BY name", path_);
  std::vector<Platform> out;
  while (s.step()) out.push_back(platform_from_row(s, path_));
  return out;
}

std::optional<Platform> Store::platform(std::string_view name) const {
  Statement s(db_, "SELECT name, origin, spec_json FROM platforms WHERE name = ?1", path_);
  s.bind(1, name);
  if (!s.step()) return std::nullopt;
  return platform_from_row(s, path_);
}

void Store::put_platform(const Platform& p) {
  if (p.name.empty()) throw InputError(path_, "a platform needs a name");
  transaction([&] {
    Statement s(db_,
                "INSERT INTO platforms(name, origin, spec_json, updated_at) VALUES(?1, ?2, ?3, ?4) "
                "ON CONFLICT(name) DO UPDATE SET origin = excluded.origin, spec_json = excluded.spec_json, "
                "updated_at = excluded.updated_at",
                path_);
    s.bind(1, p.name)
        .bind(2, to_string(p.origin))
        .bind(3, platform_to_json(p).dump(-1, ' ', false, json::error_handler_t::replace));
    s.bind(4, utc_now()).run();
  });
}

Platform Store::ensure_platform(std::string_view name) {
  if (auto p = platform(name)) return *p;
  Platform p;
  p.name = std::string(name);
  p.origin = PlatformOrigin::placeholder;
  p.description = "unmeasured placeholder: run `fomcast bench --platform " + p.name + "` or import a spec";
  put_platform(p);
  return p;
}

std::optional<Store::PlatformRemoval> Store::delete_platform(std::string_view name) {
  std::optional<PlatformRemoval> removed;
  transaction([&] {
    if (!platform(name)) return;
    PlatformRemoval r;
    r.kernel_entries = kernel_entry_count(name);
    Statement cal(db_, "DELETE FROM calibrations WHERE platform = ?1", path_);
    cal.bind(1, name).run();
    r.calibrations = sqlite3_changes(db_);
    // The kernel entries go with it (ON DELETE CASCADE).
    Statement del(db_, "DELETE FROM platforms WHERE name = ?1", path_);
    del.bind(1, name).run();
    removed = r;
  });
  return removed;
}

KernelTable Store::kernel_table(std::string_view platform) const {
  Statement s(db_,
              "SELECT e.kind, e.shape_json, e.dtype, e.precision, e.mode, e.time_us, e.spread, e.method, e.provenance "
              "FROM kernel_entries e JOIN platforms p ON p.id = e.platform_id WHERE p.name = ?1 ORDER BY e.id",
              path_);
  s.bind(1, platform);
  KernelTable table;
  table.platform = std::string(platform);
  while (s.step()) {
    KernelEntry e;
    try {
      e.kind = parse_op_kind(s.text_at(0)).value_or(OpKind::other);
      e.shape = shape_from_json(json::parse(s.text_at(1)));
    } catch (const std::exception& ex) {
      throw InputError(path_, std::string("stored kernel entry is corrupt: ") + ex.what(), 0, -1,
                       "kernel_entries of " + std::string(platform));
    }
    e.dtype = parse_dtype(s.text_at(2)).value_or(DType::unknown);
    const auto precision = parse_kernel_precision(s.text_at(3));
    const auto mode = parse_kernel_mode(s.text_at(4));
    if (!precision || !mode)
      throw InputError(
          path_,
          "stored kernel entry is corrupt: unknown precision '" + s.text_at(3) + "' or mode '" + s.text_at(4) + "'", 0,
          -1, "kernel_entries of " + std::string(platform));
    e.precision = *precision;
    e.mode = *mode;
    e.time_us = s.double_at(5);
    e.spread = s.double_at(6);
    e.method = s.text_at(7);
    e.provenance = s.text_at(8);
    table.entries.push_back(std::move(e));
  }
  return table;
}

void Store::put_kernel_entries(std::string_view platform, const std::vector<KernelEntry>& entries, TableOrigin origin) {
  transaction([&] {
    const Platform p = ensure_platform(platform);
    Statement id(db_, "SELECT id FROM platforms WHERE name = ?1", path_);
    id.bind(1, p.name);
    if (!id.step()) throw StoreError(path_, "platform " + p.name + " vanished during write");
    const int64_t platform_id = id.int_at(0);
    Statement ins(db_,
                  "INSERT INTO kernel_entries(platform_id, origin, kind, key, shape_json, dtype, precision, mode, "
                  "time_us, spread, method, provenance) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) "
                  "ON CONFLICT(platform_id, origin, key, precision, mode) DO UPDATE SET time_us = excluded.time_us, "
                  "spread = excluded.spread, method = excluded.method, provenance = excluded.provenance, "
                  "dtype = excluded.dtype, shape_json = excluded.shape_json",
                  path_);
    for (const auto& e : entries) {
      if (!(e.time_us > 0)) throw InputError(path_, "kernel time must be positive", 0, -1, shape_key(e.shape));
      // A tensor shape says nothing of the op: a softmax and a relu of one shape are two rows.
      const std::string key = std::holds_alternative<TensorShape>(e.shape)
                                  ? std::string(to_string(e.kind)) + "|" + shape_key(e.shape)
                                  : shape_key(e.shape);
      ins.bind(1, platform_id).bind(2, to_string(origin)).bind(3, to_string(e.kind)).bind(4, key);
      ins.bind(5, shape_to_json(e.shape).dump(-1, ' ', false, json::error_handler_t::replace))
          .bind(6, to_string(e.dtype))
          .bind(7, to_string(e.precision));
      ins.bind(8, to_string(e.mode));
      ins.bind(9, e.time_us).bind(10, e.spread).bind(11, e.method).bind(12, e.provenance);
      ins.run();
    }
  });
}

void Store::delete_kernel_entries(std::string_view platform, TableOrigin origin) {
  transaction([&] {
    Statement s(
        db_,
        "DELETE FROM kernel_entries WHERE origin = ?2 AND platform_id = (SELECT id FROM platforms WHERE name = ?1)",
        path_);
    s.bind(1, platform).bind(2, to_string(origin)).run();
  });
}

int64_t Store::kernel_entry_count(std::string_view platform) const {
  Statement s(db_, "SELECT count(*) FROM kernel_entries e JOIN platforms p ON p.id = e.platform_id WHERE p.name = ?1",
              path_);
  s.bind(1, platform);
  return s.step() ? s.int_at(0) : 0;
}

}  // namespace fomcast
