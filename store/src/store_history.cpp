// Calibrations (measured baseline runs) and the FOM history in the store.
#include "fomcast/error.hpp"
#include "fomcast/store.hpp"
#include "sqlite_statement.hpp"

namespace fomcast {

using detail::Statement;

void Store::put_calibration(const Calibration& c) {
  transaction([&] {
    Statement s(db_,
                "INSERT INTO calibrations(workload, platform, pass_s, epoch_s, run_s, recorded_at, note, batch_size) "
                "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT(workload, platform) DO UPDATE SET "
                "pass_s = excluded.pass_s, epoch_s = excluded.epoch_s, run_s = excluded.run_s, "
                "recorded_at = excluded.recorded_at, note = excluded.note, batch_size = excluded.batch_size",
                path_);
    s.bind(1, c.workload).bind(2, c.platform).bind(3, c.pass_s).bind(4, c.epoch_s).bind(5, c.run_s);
    s.bind(6, c.recorded_at.empty() ? utc_now() : c.recorded_at).bind(7, c.note).bind(8, c.batch_size).run();
  });
}

std::vector<Calibration> Store::calibrations(std::string_view workload) const {
  Statement s(db_,
              "SELECT workload, platform, pass_s, epoch_s, run_s, recorded_at, note, batch_size FROM calibrations "
              "WHERE workload = ?1 ORDER BY platform",
              path_);
  s.bind(1, workload);
  std::vector<Calibration> out;
  while (s.step()) {
    Calibration c;
    c.workload = s.text_at(0);
    c.platform = s.text_at(1);
    c.pass_s = s.optional_double_at(2);
    c.epoch_s = s.optional_double_at(3);
    c.run_s = s.optional_double_at(4);
    c.recorded_at = s.text_at(5);
    c.note = s.text_at(6);
    c.batch_size = s.int_at(7);
    out.push_back(std::move(c));
  }
  return out;
}

int64_t Store::delete_calibrations(std::string_view workload, std::string_view platform) {
  int64_t deleted = 0;
  transaction([&] {
    Statement s(db_, "DELETE FROM calibrations WHERE workload = ?1 AND (?2 = '' OR platform = ?2)", path_);
    // An empty string_view may have no data, which SQLite would bind as NULL.
    s.bind(1, workload).bind(2, std::string(platform)).run();
    deleted = sqlite3_changes(db_);
  });
  return deleted;
}

int64_t Store::add_fom_record(const FomRecord& r) {
  int64_t id = 0;
  transaction([&] {
    Statement s(db_,
                "INSERT INTO fom_records(recorded_at, label, git_commit, study_name, study_json, fom, problems_json, "
                "inputs_json) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                path_);
    s.bind(1, r.recorded_at.empty() ? utc_now() : r.recorded_at).bind(2, r.label).bind(3, r.git_commit);
    s.bind(4, r.study_name).bind(5, r.study_json).bind(6, r.fom).bind(7, r.problems_json);
    s.bind(8, r.inputs_json.empty() ? std::string("{}") : r.inputs_json).run();
    id = sqlite3_last_insert_rowid(db_);
  });
  return id;
}

std::vector<FomRecord> Store::fom_records() const {
  Statement s(db_,
              "SELECT id, recorded_at, label, git_commit, study_name, study_json, fom, problems_json, inputs_json "
              "FROM fom_records ORDER BY id",
              path_);
  std::vector<FomRecord> out;
  while (s.step()) {
    FomRecord r;
    r.id = s.int_at(0);
    r.recorded_at = s.text_at(1);
    r.label = s.text_at(2);
    r.git_commit = s.text_at(3);
    r.study_name = s.text_at(4);
    r.study_json = s.text_at(5);
    r.fom = s.double_at(6);
    r.problems_json = s.text_at(7);
    r.inputs_json = s.text_at(8);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace fomcast
