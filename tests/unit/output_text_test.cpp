// What a person reads: `fom` prints the table, the FOM and at most three lines of
// warnings, `estimate` its pass and operations, with calibration text, notes and
// assumptions behind --verbose (and always in --json); text tables shorten long cells
// without cutting what tells two rows apart; every command's --help says what a newcomer
// needs.
#include <doctest/doctest.h>

#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "fomcast/report/text_table.hpp"
#include "fomcast/text.hpp"
#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::source_path;

namespace {

std::size_t lines_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) ++n;
  return n;
}

}  // namespace

TEST_CASE("fom: the table, the FOM and at most three warning lines; the rest behind --verbose") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const std::string study = "fom '" + source_path("data/studies/candle-exascale.json") + "'";
  const auto plain = run_fomcast(study, db);
  REQUIRE_MESSAGE(plain.status == 0, plain.err);
  CHECK(plain.out.find("FOM = HM(target) / HM(baseline) = ") != std::string::npos);
  CHECK(plain.out.find("NT3-perf ") != std::string::npos);  // the table
  CHECK(lines_starting(plain.out, "WARNING") >= 1);
  CHECK(lines_starting(plain.out, "WARNING") <= 3);
  // The two calibrated problems' Titan gap is op-model error, not host time: not host-bound,
  // and the FOM under the residual rule's bounds is one line under the FOM.
  CHECK(plain.out.find("WARNING host-bound") == std::string::npos);
  CHECK(plain.out.find("FOM under the residual rule's bounds: ") != std::string::npos);
  CHECK(lines_starting(plain.out, "note") == 0);
  CHECK(plain.out.find("Calibration (CANDLE step 1") == std::string::npos);
  CHECK(plain.out.find("(11 calibration lines and ") != std::string::npos);  // says what it left out
  CHECK(plain.out.find("--verbose") != std::string::npos);
  std::size_t lines = 0;
  for (char c : plain.out) lines += c == '\n';
  CHECK(lines <= 26);  // was 60: 11 problems, 11 calibration lines, 4 warnings, 30 notes

  const auto verbose = run_fomcast(study + " --verbose", db);
  REQUIRE(verbose.status == 0);
  CHECK(verbose.out.find("Calibration (CANDLE step 1") != std::string::npos);
  CHECK(verbose.out.find("  NT3-perf: calibrated by the study's baseline_epoch_s") != std::string::npos);
  CHECK(verbose.out.find("note (NT3-perf): MI250X: residual carried unscaled") != std::string::npos);
  CHECK(lines_starting(verbose.out, "note (") >= 22);

  // The JSON keeps every note and calibration.
  const json j = json::parse(run_fomcast(study + " --json", db).out);
  std::size_t notes = j["notes"].size();  // the study's own (what its node counts mean)
  for (const auto& p : j["problems"]) {
    CHECK(!p["calibration"].get<std::string>().empty());
    notes += p["notes"].size();
  }
  CHECK(notes == lines_starting(verbose.out, "note ("));

  // A study of hours alone has nothing to hide and says nothing about it.
  const auto hours = run_fomcast("fom '" + source_path("data/studies/worked-example.json") + "'", db);
  CHECK(hours.out.find("--verbose") == std::string::npos);
}

TEST_CASE("estimate: notes and assumptions behind --verbose, with a line saying how many") {
  ScratchDir dir;
  const std::string db = dir.file("e.db");
  const std::string est = "estimate --workload NT3-perf --platform MI250X";
  const json j = json::parse(run_fomcast(est + " --json", db).out);
  const std::size_t notes = j["notes"].size(), assumptions = j["assumptions"].size();
  REQUIRE(notes + assumptions > 0);
  const auto plain = run_fomcast(est, db);
  REQUIRE(plain.status == 0);
  CHECK(lines_starting(plain.out, "note:") == 0);
  CHECK(lines_starting(plain.out, "assumed:") == 0);
  CHECK(plain.out.find(" not shown: --verbose prints them, --json lists them)") != std::string::npos);
  if (notes > 1) CHECK(plain.out.find(std::to_string(notes) + " notes") != std::string::npos);
  CHECK(fomcast::counted({{2, "note"}, {1, "assumption"}}) == "2 notes and 1 assumption");
  CHECK(fomcast::counted({{0, "note"}, {1, "assumption"}}) == "1 assumption");
  CHECK(fomcast::counted({{0, "note"}}).empty());
  const auto verbose = run_fomcast(est + " -v", db);
  CHECK(lines_starting(verbose.out, "note:") == notes);
  CHECK(lines_starting(verbose.out, "assumed:") == assumptions);
}

TEST_CASE("text tables keep what tells two rows apart: a conv's direction at the end of its shape") {
  using fomcast::shorten;
  const std::string data = "conv2d N=128 C=96 27x27 K=256 5x5 pad 2x2 g=2 bwd-data";
  const std::string filter = "conv2d N=128 C=96 27x27 K=256 5x5 pad 2x2 g=2 bwd-filter";
  CHECK(shorten(data, 34, true) == "conv2d N=128 C=96 ... bwd-data");
  CHECK(shorten(filter, 34, true).size() <= 34);
  CHECK(shorten(filter, 34, true).ends_with("... bwd-filter"));
  CHECK(shorten(filter, 34) == "conv2d N=128 C=96 27x27 K=256...");  // prose keeps no last word
  CHECK(shorten("short", 34) == "short");
  CHECK(shorten("ab\xc3\xa9\xc3\xa9\xc3\xa9xyz", 6) == "ab...");  // never inside a UTF-8 character

  // Cells that would read alike once shortened show where they part instead.
  fomcast::TextTable t;
  t.header = {"name"};
  t.max_width = {40};
  t.rows = {{"void at::native::(anonymous namespace)::max_pool_forward_nchw<float>(int, float const*)"},
            {"void at::native::(anonymous namespace)::max_pool_backward_nchw<float>(int, float const*)"},
            {"void at::native::(anonymous namespace)::max_pool_backward_nchw<double>(int, double const*)"},
            {"a name that is long but alone, with nothing like it"}};
  const std::string out = t.render();
  INFO(out);
  std::vector<std::string> cells;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) cells.push_back(line);
  REQUIRE(cells.size() == 6);  // header, rule, four rows
  for (std::size_t i = 2; i < 6; ++i) {
    CHECK(cells[i].size() <= 40);
    for (std::size_t j = i + 1; j < 6; ++j) CHECK(cells[i] != cells[j]);
  }
  CHECK(cells[2].find("max_pool_for") != std::string::npos);
  CHECK(cells[3].find("float") != std::string::npos);
  CHECK(cells[4].find("double") != std::string::npos);
  CHECK(cells[5] == "a name that is long but alone, with...");

  // Names that part only in a long middle no window can show (Nsight's template kernels):
  // numbered in their group, not printed whole (a 663-column table before).
  const std::string stem = "void clover::par_ranged2d_kernel<" + std::string(300, 'x');
  fomcast::TextTable many;
  many.header = {"name"};
  many.max_width = {40};
  many.rows = {{stem + "a" + std::string(300, 'y') + ">(int)"},
               {stem + "b" + std::string(300, 'y') + ">(int)"},
               {stem + "c" + std::string(300, 'y') + ">(int)"}};
  const std::string wide = many.render();
  INFO(wide);
  std::vector<std::string> rows;
  std::istringstream wide_lines(wide);
  for (std::string line; std::getline(wide_lines, line);) rows.push_back(line);
  REQUIRE(rows.size() == 5);
  for (std::size_t i = 2; i < 5; ++i) {
    CHECK(rows[i].size() <= 40 + 3);
    for (std::size_t j = i + 1; j < 5; ++j) CHECK(rows[i] != rows[j]);
  }

  // In estimate's table (shapes cut at 34 characters), alexnet's two conv backward ops.
  ScratchDir dir;
  const auto r = run_fomcast("estimate --workload alexnet --platform NV_V100 --all", dir.file("a.db"));
  REQUIRE(r.status == 0);
  std::istringstream in(r.out);
  int filters = 0, inputs = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("conv2d.grad_filter", 0) == 0) {
      ++filters;
      CHECK_MESSAGE(line.find("bwd-filter") != std::string::npos, line);
    }
    if (line.rfind("conv2d.grad_input", 0) == 0) {
      ++inputs;
      CHECK_MESSAGE(line.find("bwd-data") != std::string::npos, line);
    }
  }
  CHECK(filters == 5);
  CHECK(inputs == 4);  // the first conv has no data gradient
}

TEST_CASE("text tables line up columns after accented, CJK and emoji cells") {
  fomcast::TextTable t;
  t.header = {"label", "FOM"};
  t.rows = {{"Gr\xc3\xb6\xc3\x9f"
             "e \xe2\x80\x94 \xe9\x80\x9f\xe5\xba\xa6 \xf0\x9f\x9a\x80",
             "82.597"},  // Größe — 速度 🚀
            {"plain", "1.000"}};
  const std::string out = t.render();
  // Where the FOM column starts, in terminal columns, on each line: the same.
  std::istringstream lines(out);
  std::string line;
  std::vector<std::size_t> starts;
  while (std::getline(lines, line)) {
    if (line.starts_with("---")) continue;
    const std::size_t at = line.find_last_of(' ') + 1;
    std::size_t columns = 0;
    for (std::size_t i = 0; i < at;) {
      const auto b = static_cast<unsigned char>(line[i]);
      const std::size_t n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
      columns += (n == 3 && b >= 0xE3) || n == 4 ? 2 : 1;  // 速度 and the rocket are two columns each
      i += n;
    }
    starts.push_back(columns);
  }
  REQUIRE(starts.size() == 3);
  CHECK(starts[0] == starts[1]);
  CHECK(starts[1] == starts[2]);
}

TEST_CASE("--help says what a newcomer needs") {
  const auto fom = run_fomcast("fom --help");
  CHECK(fom.out.find("docs/study-format.md") != std::string::npos);
  CHECK(fom.out.find("baseline_hours") != std::string::npos);
  CHECK(run_fomcast("report --help").out.find("docs/study-format.md") != std::string::npos);
  const auto ingest = run_fomcast("ingest --help");
  CHECK(ingest.out.find("ET and the Kineto trace of the same run") != std::string::npos);
  CHECK(ingest.out.find("Nsight Systems SQLite") != std::string::npos);
  CHECK(ingest.out.find("--replace") != std::string::npos);
  const auto calibrate = run_fomcast("calibrate --help");
  CHECK(calibrate.out.find("exactly one of --pass-s, --epoch-s, --run-hours") != std::string::npos);
  CHECK(calibrate.out.find("--clear") != std::string::npos);
  CHECK(run_fomcast("workloads --help").out.find("rm") != std::string::npos);
  CHECK(run_fomcast("--help").out.find("doctor") != std::string::npos);
}

TEST_CASE("text tables and errors show control characters and bidi overrides as escapes") {
  using fomcast::visible;
  CHECK(visible("aten::mm\x1b[2J\x1b]0;pwned\x07") == "aten::mm\\x1b[2J\\x1b]0;pwned\\x07");
  CHECK(visible("a\tb\nc\x7f") == "a b\nc\\x7f");
  CHECK(visible("evil\xe2\x80\xae"
                "txt.json") == "evil\\u202etxt.json");  // U+202E RIGHT-TO-LEFT OVERRIDE
  CHECK(visible("\xc2\x9b"
                "31m") == "\\u009b31m");                 // C1 CSI
  CHECK(visible("Größe — 速度 🚀") == "Größe — 速度 🚀");  // other UTF-8 as it is
  fomcast::TextTable t;
  t.header = {"op", "n"};
  t.rows = {{"aten::mm\x1b[2J", "1"}};
  const std::string out = t.render();
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find("aten::mm\\x1b[2J") != std::string::npos);
}
