// What a person types, through the real binary: numbers in flags and study fields checked
// against their ranges with one message form, --db before or after the command, workload
// names, and unknown platforms named as such. Every refusal is exit 2 and leaves the
// database as it was.
#include <doctest/doctest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "fomcast/error.hpp"
#include "fomcast/input_checks.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::check_refused;
using fomcast::test::file_fingerprint;
using fomcast::test::has_huge_number;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::source_path;

namespace {

struct Refusal {
  std::string args;
  std::string says;
};

json study_with(const std::string& pointer, const json& value) {
  json j = json::parse(R"({"name": "s", "baseline": {"platform": "NV_K20X", "nodes": 18688},
      "target": {"platform": "MI250X", "nodes": 9408},
      "problems": [{"name": "P1", "workload": "P1B2", "epochs": 2}]})");
  j[json::json_pointer(pointer)] = value;
  return j;
}

}  // namespace

TEST_CASE("number ranges: one message form for every out-of-range number") {
  using fomcast::range_problem;
  using fomcast::text_range_problem;
  namespace ranges = fomcast::ranges;
  CHECK(range_problem(-1, ranges::nodes) == "must be > 0 (got -1)");
  CHECK(range_problem(0, ranges::nodes) == "must be > 0 (got 0)");
  CHECK(range_problem(1e308, ranges::nodes) == "must be <= 1,000,000 (got 1e+308)");
  CHECK(range_problem(1e-308, ranges::hours) == "must be >= 1e-09 (got 1e-308)");
  CHECK(range_problem(std::nan(""), ranges::seconds) == "must be a finite number (got nan)");
  CHECK(range_problem(-INFINITY, ranges::seconds) == "must be a finite number (got -inf)");
  CHECK(range_problem(2.5, ranges::epochs) == "must be a whole number (got 2.5)");
  CHECK(range_problem(18688, ranges::nodes).empty());
  CHECK(range_problem(0, ranges::percent).empty());
  std::string n;
  CHECK(text_range_problem("1e3", ranges::epochs, &n).empty());
  CHECK(n == "1000");  // handed to the integer parser whole
  CHECK(text_range_problem("99999999999999999999", ranges::samples) == "must be <= 1e+15 (got 1e+20)");
  CHECK(text_range_problem("1e400", ranges::seconds) == "must be <= 1,000,000,000 (got 1e400)");
  CHECK(text_range_problem("1e-400", ranges::seconds) == "must be >= 1e-09 (got 1e-400)");
  CHECK(text_range_problem("-1e400", ranges::seconds) == "must be > 0 (got -1e400)");
  CHECK(text_range_problem("many", ranges::seconds) == "must be a number (got 'many')");
  CHECK(text_range_problem("", ranges::seconds) == "must be a number (got nothing)");
  CHECK(text_range_problem("4 ", ranges::seconds) == "must be a number (got '4 ')");
  // Notes and labels: stored, then printed in JSON and in the history table.
  CHECK(fomcast::note_text_problem("DGX A100, run 3 (Mälardalen)").empty());
  CHECK(fomcast::note_text_problem("lab \xff") == "must be valid UTF-8 (byte 4 is not)");
  CHECK(fomcast::note_text_problem("a\nb") == "must be printable (character 1 is a control character)");
  CHECK(fomcast::note_text_problem(std::string(1001, 'x')) == "must be at most 1000 bytes (got 1001)");
  // strtod's hexadecimal forms are not what a person means by 0x10 nodes.
  CHECK(text_range_problem("0x10", ranges::nodes) == "must be a decimal number (got '0x10')");
  CHECK(text_range_problem("0x1p4", ranges::seconds) == "must be a decimal number (got '0x1p4')");
  CHECK_THROWS_WITH_AS(fomcast::check_range(-1, "--nodes", ranges::nodes), "--nodes: must be > 0 (got -1)",
                       fomcast::UsageError);
}

TEST_CASE("workload names: printable, no leading '-', at most 128 bytes") {
  using fomcast::workload_name_problem;
  CHECK(workload_name_problem("bert-h100").empty());
  CHECK(workload_name_problem("résumé 2").empty());  // UTF-8 and inner spaces are printable
  CHECK(workload_name_problem(std::string(128, 'a')).empty());
  CHECK(workload_name_problem("") == "must not be empty");
  CHECK(workload_name_problem(std::string(129, 'a')) == "must be at most 128 bytes (got 129)");
  CHECK(workload_name_problem("-x").find("must not start with '-'") == 0);
  CHECK(workload_name_problem(" x").find("space") != std::string::npos);
  CHECK(workload_name_problem("a\tb").find("printable") != std::string::npos);
  CHECK(workload_name_problem("a\x7f").find("printable") != std::string::npos);
  CHECK(workload_name_problem("a\xc2\x85").find("printable") != std::string::npos);  // U+0085, a C1 control
  CHECK(workload_name_problem("a\xff").find("UTF-8") != std::string::npos);
  CHECK(workload_name_problem("a\xe2\x82").find("UTF-8") != std::string::npos);  // cut short
}

TEST_CASE("absurd numbers in flags are field-named errors, exit 2, never an internal error") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);  // a seeded database to leave alone
  const std::string est = "estimate --workload alexnet --platform NV_V100 ";
  const Refusal cases[] = {
      {est + "--nodes -1", "--nodes: must be > 0 (got -1)"},
      {est + "--nodes 0", "--nodes: must be > 0 (got 0)"},
      {est + "--nodes 1e308", "--nodes: must be <= 1,000,000 (got 1e+308)"},
      {est + "--nodes nan", "--nodes: must be a finite number (got nan)"},
      {est + "--nodes inf", "--nodes: must be a finite number (got inf)"},
      {est + "--epochs 0", "--epochs: must be > 0 (got 0)"},
      {est + "--epochs -2", "--epochs: must be > 0 (got -2)"},
      {est + "--epochs 1.5", "--epochs: must be a whole number (got 1.5)"},
      {est + "--samples-per-epoch 99999999999999999999", "--samples-per-epoch: must be <= 1e+15 (got 1e+20)"},
      {est + "--samples-per-epoch 9999999999999999999", "--samples-per-epoch: must be <= 1e+15 (got 1e+19)"},
      {est + "--batch 1e308", "--batch: must be <= 1,000,000,000 (got 1e+308)"},
      {est + "--top -1", "--top: must be >= 0 (got -1)"},
      {est + "--precision ''", "--precision: an empty precision"},
      {"check --max-drop nan", "--max-drop: must be a finite number (got nan)"},
      {"check --max-drop 101", "--max-drop: must be <= 100 (got 101)"},
      {"calibrate --workload P1B2 --platform NV_K20X --pass-s 1e-308", "--pass-s: must be >= 1e-09 (got 1e-308)"},
      {"ingest '" + source_path("tests/data/models/tiny.json") + "' --workload t --batch 0",
       "--batch: must be > 0 (got 0)"},
      // A model states its batch: --batch at ingest was ignored; an empty --platform read as none.
      {"ingest '" + source_path("tests/data/models/tiny.json") + "' --workload t --batch 5", "states its batch_size"},
      {"ingest '" + source_path("tests/data/models/tiny.json") + "' --workload t --platform ''",
       "--platform: must name a platform (got nothing)"},
  };
  for (const auto& c : cases) check_refused(c.args, db, c.says);
  // In range, the same flags work, exponents included.
  const auto ok = run_fomcast(est + "--nodes 2 --epochs 1e1 --json", db);
  REQUIRE_MESSAGE(ok.status == 0, ok.err);
  CHECK(json::parse(ok.out)["epochs"] == 10);
}

TEST_CASE("absurd numbers in study fields are field-named errors, exit 2, before the database is touched") {
  ScratchDir dir;
  const std::string db = dir.file("s.db");
  const std::pair<json, std::string> cases[] = {
      {study_with("/baseline/nodes", 1e308), "baseline.nodes: must be <= 1,000,000 (got 1e+308)"},
      {study_with("/target/nodes", -1), "target.nodes: must be > 0 (got -1)"},
      {study_with("/problems/0/epochs", 0), "problems[0].epochs: must be > 0 (got 0)"},
      {study_with("/problems/0/epochs", -3), "problems[0].epochs: must be > 0 (got -3)"},
      {study_with("/problems/0/epochs", 2.5), "problems[0].epochs: must be a whole number (got 2.5)"},
      {study_with("/problems/0/samples_per_epoch", 18446744073709551615ull),
       "problems[0].samples_per_epoch: must be <= 1e+15 (got 1.84467e+19)"},
      {study_with("/problems/0/batch_size", 1e20), "problems[0].batch_size: must be <= 1,000,000,000 (got 1e+20)"},
      {study_with("/problems/0/baseline_pass_s", 1e-308), "problems[0].baseline_pass_s: must be >= 1e-09 (got 1e-308)"},
      {study_with("/problems/0/nodes_per_unit", 1e9),
       "problems[0].nodes_per_unit: must be <= 1,000,000 (got 1,000,000,000)"},
      {json::parse(R"({"baseline": {"platform": "NV_K20X", "nodes": 1}, "target": {"platform": "MI250X", "nodes": 1},
         "problems": [{"name": "P", "baseline_hours": 1e-308, "target_hours": 1}]})"),
       "problems[0].baseline_hours: must be >= 1e-09 (got 1e-308)"},
  };
  const std::string file = dir.file("study.json");
  const std::vector<std::string> commands = {"fom '" + file + "'",
                                             "report '" + file + "' --out '" + dir.file("r.html") + "'"};
  for (const auto& [study, says] : cases) {
    dir.write("study.json", study.dump());
    std::string where = file;
    where += ": ";
    where += says;
    for (const std::string& args : commands) {
      CAPTURE(args);
      const auto r = run_fomcast(args, db);
      CHECK(r.status == 2);
      CHECK_MESSAGE(r.err.find(where) != std::string::npos, r.err);
      CHECK(r.err.find("internal error") == std::string::npos);
      CHECK_FALSE(has_huge_number(r.err));
      CHECK(file_fingerprint(db) == "absent");
    }
  }
}

TEST_CASE("--db works before or after the command, and every command's --help shows it") {
  ScratchDir dir;
  const std::string before = dir.file("before.db"), after = dir.file("after.db");
  REQUIRE(run_fomcast("--db '" + before + "' platforms --json").status == 0);
  CHECK(std::filesystem::exists(before));
  const auto r = run_fomcast("platforms --json --db '" + after + "'");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(std::filesystem::exists(after));
  const auto rm = run_fomcast("workloads rm nope --db '" + after + "'");
  CHECK(rm.status == 2);
  CHECK(rm.err.find("no workload named 'nope'") != std::string::npos);

  const auto top = run_fomcast("--help");
  REQUIRE(top.status == 0);
  // Every command the top-level help lists, and the nested `workloads rm`.
  std::vector<std::string> commands = {"workloads rm"};
  const auto listed = top.out.substr(top.out.find("Subcommands:"));
  const std::regex line(R"(\n  ([a-z-]+)\s)");
  for (std::sregex_iterator it(listed.begin(), listed.end(), line), end; it != end; ++it) commands.push_back((*it)[1]);
  CHECK(commands.size() >= 16);
  for (const auto& c : commands) {
    CAPTURE(c);
    const auto h = run_fomcast(c + " --help");
    CHECK(h.status == 0);
    CHECK(h.out.find("--db") != std::string::npos);
  }

  // Given twice (the last used to win, after the command had run on it), or empty (which
  // meant ./fomcast.db): refused before anything runs.
  const std::string third = dir.file("third.db");
  for (const std::string& twice :
       {"--db '" + third + "' workloads --db '" + after + "'", "--db='" + third + "' history --db='" + third + "'"}) {
    const auto r2 = run_fomcast(twice);
    CHECK(r2.status == 2);
    CHECK_MESSAGE(r2.err.find("--db given 2 times") != std::string::npos, r2.err);
    CHECK(r2.out.empty());
  }
  CHECK_FALSE(std::filesystem::exists(third));
  for (const std::string& given : {std::string("--db '' platforms"), std::string("--db= workloads"),
                                   std::string("workloads --db="), std::string("workloads --db ''")}) {
    const auto empty = run_fomcast(given);
    CHECK(empty.status == 2);
    CHECK_MESSAGE(empty.err.find("--db: an empty path") != std::string::npos, given << ": " << empty.err);
  }
  // One trace named twice (or by another path to it) is said as that, not as two ranks.
  const std::string trace = fomcast::test::shared_path("traces/pytorch_kineto/hta_triton_example.json.gz");
  const std::string link = dir.file("again.json.gz");
  std::filesystem::create_symlink(trace, link);
  for (const std::string& files : {"'" + trace + "' '" + trace + "'", "'" + trace + "' '" + link + "'"}) {
    const auto twice = run_fomcast("ingest " + files + " --workload t --db '" + third + "'");
    CHECK(twice.status == 2);
    CHECK_MESSAGE(twice.err.find("given twice") != std::string::npos, twice.err);
  }
  CHECK_FALSE(std::filesystem::exists(third));
  // A word that names no command is named.
  const auto unknown = run_fomcast("frobnicate --db '" + third + "'");
  CHECK(unknown.status == 2);
  CHECK_MESSAGE(unknown.err.find("unknown command 'frobnicate'") != std::string::npos, unknown.err);
}

TEST_CASE("bad workload names are refused before anything is read or written") {
  ScratchDir dir;
  const std::string db = dir.file("n.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const std::string model = "ingest '" + source_path("tests/data/models/tiny.json") + "' ";
  const Refusal cases[] = {
      {model + "--workload=-x", "--workload: a workload name must not start with '-'"},
      {model + "--workload " + std::string(129, 'w'),
       "--workload: a workload name must be at most 128 bytes (got 129)"},
      {model + "--workload \"$(printf 'a\\tb')\"", "--workload: a workload name must be printable"},
      {model + "--workload ''", "--workload: a workload name must not be empty"},
  };
  for (const auto& c : cases) check_refused(c.args, db, c.says);
  CHECK(run_fomcast(model + "--workload " + std::string(128, 'w'), db).status == 0);
}

TEST_CASE("an unknown platform is named as one, in estimate, calibrate, whatif, fom and report") {
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const Refusal cases[] = {
      {"estimate --workload alexnet --platform Frontier",
       "--platform: unknown platform 'Frontier' (see `fomcast platforms`)"},
      {"calibrate --workload alexnet --platform Frontier --pass-s 1", "--platform: unknown platform 'Frontier'"},
      {"whatif --workload alexnet --platform Frontier --scale host=2", "--platform: unknown platform 'Frontier'"},
  };
  for (const auto& c : cases) check_refused(c.args, db, c.says);
  const std::string study = dir.write("s.json", study_with("/target/platform", "Frontier").dump());
  for (const std::string& args : {"fom '" + study + "'", "report '" + study + "' --out '" + dir.file("r.html") + "'"}) {
    CAPTURE(args);
    const std::string before = file_fingerprint(db);
    const auto r = run_fomcast(args, db);
    CHECK(r.status == 2);
    CHECK_MESSAGE(r.err.find(study + ": target.platform: unknown platform 'Frontier' (see `fomcast platforms`)") !=
                      std::string::npos,
                  r.err);
    CHECK(r.err.find("kernel table") == std::string::npos);
    CHECK(file_fingerprint(db) == before);
  }
  CHECK_FALSE(std::filesystem::exists(dir.file("r.html")));
}

TEST_CASE("history and check on an empty history say so, exit 0; on no database at all, exit 2") {
  ScratchDir dir;
  const std::string db = dir.file("h.db");
  // A mistyped --db in a CI job: no file there is an error, and none is created.
  for (const char* command : {"history", "check"}) {
    const auto none = run_fomcast(command, db);
    CHECK(none.status == 2);
    CHECK_MESSAGE(none.err.find(std::string(command) + ": no database at " + db) != std::string::npos, none.err);
    CHECK_FALSE(std::filesystem::exists(db));
  }
  REQUIRE(run_fomcast("workloads", db).status == 0);  // a database, seeded, with no record
  const auto h = run_fomcast("history", db);
  CHECK(h.status == 0);
  CHECK(h.out.find("No FOM recorded yet") != std::string::npos);
  const auto c = run_fomcast("check", db);
  CHECK(c.status == 0);
  CHECK(c.out.find("Nothing to check: no FOM recorded yet") != std::string::npos);
  CHECK(c.err.empty());
  // With one record there is still nothing to compare; a drop fails.
  REQUIRE(run_fomcast("fom '" + source_path("data/studies/worked-example.json") + "' --record", db).status == 0);
  CHECK(run_fomcast("check", db).status == 0);
}
