// Workloads and their operations in the store. A workload is written whole: the old row
// and its ops go, the new ones come, inside the caller's transaction.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/json_forms.hpp"
#include "fomcast/store.hpp"
#include "sqlite_statement.hpp"

namespace fomcast {
namespace {

using detail::Statement;
using nlohmann::json;

json workload_meta(const Workload& w) {
  json j{{"source", w.source},
         {"recorded_on", w.recorded_on},
         {"device", w.device},
         {"batch_size", w.batch_size},
         {"samples_per_epoch", w.samples_per_epoch},
         {"epochs", w.epochs},
         {"passes", w.passes},
         {"events", w.events},
         {"ranks", w.ranks},
         {"rank_pass_s", w.rank_pass_s},
         {"notes", w.notes},
         {"memory_format", w.memory_format}};
  j["pass_s"] = w.pass_s ? json(*w.pass_s) : json(nullptr);
  j["model"] = w.model ? model_stats_to_json(*w.model) : json(nullptr);
  // The calls of one pass (execution traces): [op, after...] each, in execution order.
  if (!w.calls.empty()) {
    json calls = json::array();
    for (const auto& c : w.calls) {
      json row = json::array({c.op});
      for (auto a : c.after) row.push_back(a);
      calls.push_back(std::move(row));
    }
    j["calls"] = std::move(calls);
  }
  return j;
}

void apply_meta(Workload& w, const json& j) {
  w.source = j.value("source", std::string());
  w.recorded_on = j.value("recorded_on", std::string());
  w.device = j.value("device", std::string());
  w.batch_size = j.value("batch_size", int64_t{0});
  w.samples_per_epoch = j.value("samples_per_epoch", int64_t{0});
  w.epochs = j.value("epochs", int64_t{0});
  w.passes = j.value("passes", int64_t{0});
  w.events = j.value("events", int64_t{0});
  w.ranks = j.value("ranks", int64_t{1});  // written before multi-rank ingest: one process
  w.rank_pass_s = j.value("rank_pass_s", std::vector<double>{});
  w.notes = j.value("notes", std::vector<std::string>{});
  w.memory_format = j.value("memory_format", std::string());
  if (j.contains("pass_s") && !j.at("pass_s").is_null()) w.pass_s = j.at("pass_s").get<double>();
  if (j.contains("model") && !j.at("model").is_null()) w.model = model_stats_from_json(j.at("model"));
  if (j.contains("calls"))
    for (const auto& row : j.at("calls")) {
      OpCall c;
      c.op = row.at(0).get<std::size_t>();
      for (std::size_t i = 1; i < row.size(); ++i) c.after.push_back(row.at(i).get<std::size_t>());
      w.calls.push_back(std::move(c));
    }
}

// Calls naming an op or an earlier call that is not there: a corrupt row.
void check_calls(const Workload& w) {
  for (std::size_t i = 0; i < w.calls.size(); ++i) {
    if (w.calls[i].op >= w.ops.size())
      throw std::runtime_error("call " + std::to_string(i) + " names op " + std::to_string(w.calls[i].op) + " of " +
                               std::to_string(w.ops.size()));
    for (auto a : w.calls[i].after)
      if (a >= i)
        throw std::runtime_error("call " + std::to_string(i) + " waits for a later call " + std::to_string(a));
  }
}

}  // namespace

std::vector<WorkloadSummary> Store::workloads() const {
  Statement s(
      db_,
      "SELECT w.name, w.origin, w.meta_json, w.shipped, (SELECT count(*) FROM ops o WHERE o.workload_id = w.id) "
      "FROM workloads w ORDER BY w.name",
      path_);
  std::vector<WorkloadSummary> out;
  while (s.step()) {
    WorkloadSummary w;
    w.name = s.text_at(0);
    w.origin = s.text_at(1);
    Workload full;
    const json meta = json::parse(s.text_at(2), nullptr, false);
    if (meta.is_object()) apply_meta(full, meta);
    w.source = full.source;
    w.recorded_on = full.recorded_on;
    w.passes = full.passes;
    w.pass_s = full.pass_s;
    w.shipped = s.int_at(3) != 0;
    w.ops = s.int_at(4);
    out.push_back(std::move(w));
  }
  return out;
}

std::optional<Workload> Store::workload(std::string_view name) const {
  Statement head(db_, "SELECT id, name, origin, meta_json FROM workloads WHERE name = ?1", path_);
  head.bind(1, name);
  if (!head.step()) return std::nullopt;
  Workload w;
  const int64_t id = head.int_at(0);
  w.name = head.text_at(1);
  w.origin = head.text_at(2);
  try {
    apply_meta(w, json::parse(head.text_at(3)));
    Statement ops(
        db_,
        "SELECT name, kind, shape_json, dtype, phase, count, self_time_s, flops, bytes, implementation FROM ops "
        "WHERE workload_id = ?1 ORDER BY seq",
        path_);
    ops.bind(1, id);
    while (ops.step()) {
      Op op;
      op.name = ops.text_at(0);
      op.kind = parse_op_kind(ops.text_at(1)).value_or(OpKind::other);
      op.shape = shape_from_json(json::parse(ops.text_at(2)));
      op.dtype = parse_dtype(ops.text_at(3)).value_or(DType::unknown);
      op.phase = parse_phase(ops.text_at(4)).value_or(Phase::other);
      op.count = ops.double_at(5);
      op.self_time_s = ops.optional_double_at(6);
      op.flops = ops.double_at(7);
      op.bytes = ops.double_at(8);
      op.implementation = parse_implementation(ops.text_at(9)).value_or(Implementation::unknown);
      w.ops.push_back(std::move(op));
    }
    check_calls(w);
  } catch (const StoreError&) {
    throw;  // SQLite failing is not the stored workload's fault
  } catch (const std::exception& e) {
    throw InputError(path_, std::string("stored workload is corrupt: ") + e.what(), 0, -1,
                     "workloads." + std::string(name));
  }
  return w;
}

void Store::put_workload(const Workload& w, bool shipped) {
  if (w.name.empty()) throw InputError(path_, "a workload needs a name");
  try {
    check_calls(w);
  } catch (const std::runtime_error& e) {
    throw InputError(path_, "workload '" + w.name + "': " + e.what());
  }
  transaction([&] {
    Statement del(db_, "DELETE FROM workloads WHERE name = ?1", path_);
    del.bind(1, w.name).run();
    Statement ins(db_, "INSERT INTO workloads(name, origin, shipped, meta_json, updated_at) VALUES(?1, ?2, ?3, ?4, ?5)",
                  path_);
    ins.bind(1, w.name)
        .bind(2, w.origin)
        .bind(3, int64_t{shipped ? 1 : 0})
        .bind(4, workload_meta(w).dump(-1, ' ', false, json::error_handler_t::replace));
    ins.bind(5, utc_now()).run();
    const int64_t id = sqlite3_last_insert_rowid(db_);
    Statement op_ins(db_,
                     "INSERT INTO ops(workload_id, seq, name, kind, shape_json, dtype, phase, count, self_time_s, "
                     "flops, bytes, implementation) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                     path_);
    int64_t seq = 0;
    for (const auto& op : w.ops) {
      op_ins.bind(1, id).bind(2, seq++).bind(3, op.name).bind(4, to_string(op.kind));
      op_ins.bind(5, shape_to_json(op.shape).dump(-1, ' ', false, json::error_handler_t::replace))
          .bind(6, to_string(op.dtype))
          .bind(7, to_string(op.phase));
      op_ins.bind(8, op.count).bind(9, op.self_time_s).bind(10, op.flops).bind(11, op.bytes);
      op_ins.bind(12, to_string(op.implementation));
      op_ins.run();
    }
  });
}

bool Store::delete_workload(std::string_view name) {
  bool deleted = false;
  transaction([&] {
    Statement del(db_, "DELETE FROM workloads WHERE name = ?1", path_);
    del.bind(1, name).run();
    deleted = sqlite3_changes(db_) > 0;
  });
  return deleted;
}

}  // namespace fomcast
