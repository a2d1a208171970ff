// doctor: is the database file usable? A sound fomcast database (SQLite's quick_check),
// writable, of this build's schema and shipped data, and what it holds. It opens the file
// read-only and writes nothing, so it can look at a damaged file without making it worse.
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/embedded.hpp"
#include "fomcast/error.hpp"
#include "fomcast/report/doctor.hpp"

namespace fomcast::cli {

void add_doctor_command(CLI::App& app, Globals& g) {
  auto* cmd = app.add_subcommand("doctor",
                                 "Check the database file without writing to it: a fomcast database, sound (SQLite's "
                                 "quick_check), writable, and what it holds; exit 2 when it cannot be used");
  auto json_out = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json_out, "JSON output");
  cmd->callback([&g, json_out] {
    const std::string path = database_path(g);
    const Store::Health h = Store::check(path);
    const bool current = !h.shipped_data_hash.empty() && h.shipped_data_hash == embedded_data_hash();
    if (*json_out)
      print_json(doctor_to_json(path, h, current));
    else
      std::cout << doctor_to_text(path, h, current);
    if (!h.exists) return;  // nothing wrong: the first command that needs it creates it
    if (!h.problem.empty()) throw InputError(path, h.problem);
    if (!h.write_problem.empty()) throw InputError(path, h.write_problem);
  });
}

}  // namespace fomcast::cli
