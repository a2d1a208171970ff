// The report of `fomcast doctor`: one line per question a person asks of a database file.
#include <nlohmann/json.hpp>

#include "fomcast/format.hpp"
#include "fomcast/report/doctor.hpp"

namespace fomcast {

using nlohmann::json;

json doctor_to_json(const std::string& path, const Store::Health& h, bool shipped_current) {
  return json{{"database", path},
              {"exists", h.exists},
              {"writable", h.write_problem.empty()},
              {"ok", h.problem.empty() && h.write_problem.empty()},
              {"problem", h.problem.empty() ? json(nullptr) : json(h.problem)},
              {"schema_version", h.schema_version},
              {"schema_version_known", Store::schema_version()},
              {"quick_check", h.quick_check},
              {"platforms", h.platforms},
              {"kernel_entries", h.kernel_entries},
              {"workloads", h.workloads},
              {"calibrations", h.calibrations},
              {"fom_records", h.fom_records},
              {"shipped_data_current", shipped_current}};
}

std::string doctor_to_text(const std::string& path, const Store::Health& h, bool shipped_current) {
  auto count = [](int64_t n) { return format_number(static_cast<double>(n), 0); };
  std::string out = "database   " + path + "\n";
  if (!h.exists) return out + "file       " + h.problem + "\n";
  out += "file       " + (h.write_problem.empty() ? std::string("exists, writable") : h.write_problem) + "\n";
  if (!h.quick_check.empty()) {
    out += "integrity  " + std::string(h.quick_check.size() == 1 && h.quick_check[0] == "ok" ? "ok" : "DAMAGED") +
           " (SQLite quick_check)\n";
    if (h.quick_check.size() != 1 || h.quick_check[0] != "ok")
      for (const auto& line : h.quick_check) out += "           " + line + "\n";
  }
  if (!h.problem.empty()) return out + "problem    " + h.problem + "\n";
  out += "schema     version " + std::to_string(h.schema_version) + " (this fomcast knows " +
         std::to_string(Store::schema_version()) +
         (h.schema_version < Store::schema_version() ? "; the next command migrates it" : "") + ")\n";
  out += "holds      " + count(h.platforms) + " platforms (" + count(h.kernel_entries) + " kernel-table entries), " +
         count(h.workloads) + " workloads, " + count(h.calibrations) + " calibrations, " + count(h.fom_records) +
         " FOM records\n";
  out += std::string("shipped    ") +
         (shipped_current ? "this build's data" : "older data: the next command reloads the shipped rows") + "\n";
  return out;
}

}  // namespace fomcast
