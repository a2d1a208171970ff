// fom, history, check: the figure of merit of a study and its record over time.
#include <cmath>
#include <iostream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "context.hpp"
#include "fomcast/error.hpp"
#include "fomcast/fom.hpp"
#include "fomcast/format.hpp"
#include "fomcast/input_checks.hpp"
#include "fomcast/layers.hpp"
#include "fomcast/report/fom.hpp"
#include "parallel_flags.hpp"

namespace fomcast::cli {

void add_fom_commands(CLI::App& app, Globals& g) {
  {
    auto* cmd = app.add_subcommand(
        "fom", "Figure of merit of a study: HM(target units/day) / HM(baseline units/day). " + std::string(kStudyHelp));
    struct Opts {
      std::string study;
      bool json = false, record = false, verbose = false;
      std::string label;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("study", o->study, "Study JSON file (docs/study-format.md)")->required();
    cmd->add_flag("-v,--verbose", o->verbose,
                  "Print each problem's calibration, every host-bound side and every note too (--json and the HTML "
                  "report always have them)");
    cmd->add_flag("--json", o->json, "JSON output");
    cmd->add_flag("--record", o->record, "Append the result to the FOM history (see `history`, `check`)");
    auto* label = cmd->add_option("--label", o->label, "Label for the recorded result (needs --record)");
    cmd->callback([&g, o, label] {
      if (label->count() > 0 && !o->record) throw UsageError("--label names a recorded result: add --record");
      if (const std::string p = note_text_problem(o->label); !p.empty()) throw UsageError("--label: " + p);
      // Parse before opening the store: a bad study must not even create the database.
      const std::string text = read_study(o->study);
      const Study study = parse_study(text, o->study);
      Store store = open_store(g);
      require_study_platforms(store, study);
      const FomResult result = evaluate_study(study, store, expand_model_at_batch, model_layer_costs);
      std::optional<int64_t> record_id;
      if (o->record) {
        FomRecord r;
        r.label = o->label;
        r.git_commit = current_commit();
        r.study_name = study.name;
        r.study_json = study_to_json(study).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        r.fom = result.fom;
        r.problems_json =
            fom_to_json(result).at("problems").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        r.inputs_json = fom_inputs_json(study, store);
        const int64_t id = store.add_fom_record(r);
        record_id = id;
        // Said on stderr, so --json's stdout stays one document (which carries it as `record`).
        std::cerr << "recorded as #" << id << (r.label.empty() ? std::string() : " (" + r.label + ")")
                  << " in the FOM history (`fomcast history`, `fomcast check`)\n";
      }
      if (o->json) {
        nlohmann::json j = fom_to_json(result);
        // What a CI job needs to find this result again in `history --json`: null without --record.
        j["record"] = record_id ? nlohmann::json{{"id", *record_id}, {"label", o->label}} : nlohmann::json(nullptr);
        print_json(j);
      } else
        std::cout << fom_to_text(result, study, o->verbose);
    });
  }
  {
    auto* cmd = app.add_subcommand("history", "FOM results recorded with `fom --record`");
    auto json_out = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json_out, "JSON output");
    cmd->callback([&g, json_out] {
      Store store = open_existing_store(g, "history");
      const auto records = store.fom_records();
      if (*json_out)
        print_json(fom_history_to_json(records));
      else
        std::cout << fom_history_to_text(records);
    });
  }
  {
    auto* cmd = app.add_subcommand("check",
                                   "Exit 1 when a study's latest recorded FOM dropped against the one before (exit 0, "
                                   "nothing to check, when none is recorded)");
    auto max_drop = std::make_shared<double>(1.0);
    cmd->add_option("--max-drop", *max_drop, "Largest tolerated drop in percent, 0 to 100 (default 1)")
        ->transform(in_range(ranges::percent));
    auto json_out = std::make_shared<bool>(false);
    cmd->add_flag("--json", *json_out,
                  "JSON output: one entry per study ({study, records, fom_before, fom, change_pct, dropped, "
                  "warnings}); the exit status is the same");
    cmd->callback([&g, max_drop, json_out] {
      Store store = open_existing_store(g, "check");
      const auto records = store.fom_records();
      // Nothing recorded is nothing dropped: a CI job's first run passes.
      if (records.empty()) {
        if (*json_out)
          print_json(nlohmann::json::array());
        else
          std::cout << "Nothing to check: no FOM recorded yet (`fomcast fom STUDY.json --record` records one).\n";
        return;
      }
      std::map<std::string, std::vector<const FomRecord*>> by_study;
      for (const auto& r : records) by_study[r.study_name].push_back(&r);
      std::vector<std::string> failures;
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& [study, rs] : by_study) {
        nlohmann::json row{{"study", study}, {"records", rs.size()}, {"fom", rs.back()->fom}};
        if (rs.size() < 2) {
          row["fom_before"] = nullptr, row["change_pct"] = nullptr, row["dropped"] = false;
          row["warnings"] = nlohmann::json::array();
          rows.push_back(std::move(row));
          if (!*json_out)
            std::cout << study << ": one record (FOM " << format_number(rs.back()->fom, 3) << "), nothing to compare\n";
          continue;
        }
        const double before = rs[rs.size() - 2]->fom, now = rs.back()->fom;
        const double drop_pct = 100.0 * (before - now) / before;
        if (!*json_out)
          std::cout << study << ": FOM " << format_number(before, 3) << " -> " << format_number(now, 3) << " ("
                    << (drop_pct <= 0 ? "+" : "") << format_number(-drop_pct, 2) << "%)\n";
        // A study edited between the records (another target, other node counts) compares two
        // machines, not two versions of the tool: said, so a drop is not read as a regression.
        const std::vector<std::string> warnings = fom_record_changes(*rs[rs.size() - 2], *rs.back());
        for (const auto& w : warnings) std::cerr << "warning: " << study << ": " << w << "\n";
        // "More than" the tolerance, past rounding: a FOM exactly halved is a 50% drop whether
        // the division lands a last bit above or below 50.
        const bool dropped = drop_pct - *max_drop > 1e-9;
        if (dropped)
          failures.push_back(study + " dropped " + format_number(drop_pct, 2) + "% (> " + format_number(*max_drop, 2) +
                             "%)");
        row["fom_before"] = before, row["change_pct"] = drop_pct == 0 ? 0.0 : -drop_pct, row["dropped"] = dropped;
        row["warnings"] = warnings;
        rows.push_back(std::move(row));
      }
      if (*json_out) print_json(rows);
      if (!failures.empty()) {
        std::string all;
        for (const auto& f : failures) all += (all.empty() ? "" : "; ") + f;
        throw CheckFailed(all);
      }
    });
  }
}

}  // namespace fomcast::cli
