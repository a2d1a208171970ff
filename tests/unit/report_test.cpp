// `fomcast report`: the HTML page of a study, through the real binary on the shipped
// studies and on a profile with hostile names. The page is checked as text: every element
// closed in order, every `&` an entity, nothing loaded from outside, one SVG per chart, and
// the FOM exactly the one `fom --json` gives.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_json.hpp"
#include "fomcast/fom.hpp"
#include "fomcast/report/html.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::run_fomcast;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
using fomcast::test::slurp;
using fomcast::test::source_path;
namespace fs = std::filesystem;

namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

// "" when every element is closed in the order it was opened (void elements and
// self-closed SVG elements aside) and every `&` outside <style> starts an entity;
// otherwise what is wrong and where.
std::string markup_problem(const std::string& html) {
  static const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link", "wbr", "col"};
  static const std::regex kEntity("^&([a-zA-Z]+|#[0-9]+|#x[0-9a-fA-F]+);");
  std::vector<std::string> open;
  std::size_t i = 0;
  while (i < html.size()) {
    if (html[i] == '&') {
      const std::string ahead = html.substr(i, 12);
      if (!std::regex_search(ahead, kEntity)) return "bare & at byte " + std::to_string(i) + ": " + ahead;
      ++i;
      continue;
    }
    if (html[i] != '<') {
      if (html[i] == '>') return "bare > at byte " + std::to_string(i);
      ++i;
      continue;
    }
    if (html.compare(i, 9, "<!DOCTYPE") == 0) {
      i = html.find('>', i) + 1;
      continue;
    }
    const auto end = html.find('>', i);
    if (end == std::string::npos) return "unterminated tag at byte " + std::to_string(i);
    const bool closing = html[i + 1] == '/';
    const auto name_start = i + (closing ? 2 : 1);
    const auto name_end = html.find_first_of(" \t\n/>", name_start);
    const std::string name = html.substr(name_start, name_end - name_start);
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0])))
      return "not a tag at byte " + std::to_string(i) + ": " + html.substr(i, 20);
    // Attribute values are quoted and escaped: no raw < inside a tag.
    if (html.find('<', i + 1) < end) return "< inside the tag at byte " + std::to_string(i);
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> at byte " + std::to_string(i) + " closes <" + (open.empty() ? "" : open.back()) + ">";
      open.pop_back();
    } else if (html[end - 1] != '/' && !kVoid.count(name)) {
      open.push_back(name);
    }
    i = end + 1;
    if (!closing && name == "style") i = html.find("</style>", i);  // CSS is not markup
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

// Nothing that a browser would fetch: no scheme, no src, no style sheet link, no script,
// no CSS url() or @import; every href is a link within the page.
void check_self_contained(const std::string& html) {
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
  CHECK(!std::regex_search(html, std::regex("<[^>]*\\s(src|srcset|data|action)\\s*=")));  // no tag loads a thing
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("url(") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  for (auto at = html.find("href=\""); at != std::string::npos; at = html.find("href=\"", at + 1))
    CHECK(html[at + 6] == '#');
}

double fom_in_page(const std::string& html) {
  static const std::regex kFom("<data id=\"fom-value\" value=\"([^\"]+)\">");
  std::smatch m;
  REQUIRE(std::regex_search(html, m, kFom));
  return std::stod(m[1].str());
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The page, after checking the command wrote it whole and said where.
std::string report(const std::string& study, const std::string& out, const std::string& db) {
  const auto r = run_fomcast("report " + shell_quote(study) + " --out " + shell_quote(out), db);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out == out + "\n");
  CHECK(!fs::exists(out + ".tmp"));
  std::string html = slurp(out);
  CHECK(markup_problem(html) == "");
  check_self_contained(html);
  return html;
}

}  // namespace

namespace {

// A SideRate with only the fields these tests need; the others keep their defaults.
SideRate side(std::string platform, double nodes, double seconds_per_unit, double units_per_day, SideMethod method,
              double uncertainty) {
  SideRate r;
  r.platform = std::move(platform);
  r.nodes = nodes;
  r.seconds_per_unit = seconds_per_unit;
  r.units_per_day = units_per_day;
  r.method = method;
  r.uncertainty = uncertainty;
  return r;
}

// The HTML of a study from baseline B to target T whose problems are given as they came out.
std::string html_of(const std::string& name, const std::string& baseline, const std::string& target,
                    const std::vector<ProblemResult>& problems) {
  Study study;
  study.name = name;
  study.file = name + ".json";
  study.baseline.platform = baseline, study.baseline.nodes = 1;
  study.target.platform = target, study.target.nodes = 1;
  const FomResult fom = fom_from_problems(name, problems);
  HtmlReportInput in;
  in.study = &study;
  in.fom = &fom;
  in.generated_at = "now";
  in.version = "fomcast test";
  return report_to_html(in);
}

}  // namespace

TEST_CASE("the FOM's uncertainty: each side's carried to its harmonic mean, the sides combined") {
  // Baseline rates 100 and 200 units/day at 10% and 20%: 1/HM ~ 1/100 + 1/200 = 0.015,
  // moved by 0.1/100 and 0.2/200 (1e-3 each), so u(HM) = sqrt(2e-6) / 0.015 = 0.0942809.
  // Target rates 1000 and 1000 at 30% and 0%: u = 0.3/1000 / (2/1000) = 0.15.
  // FOM: sqrt(0.0942809^2 + 0.15^2) = 0.1771691.
  std::vector<ProblemResult> problems(2);
  problems[0].baseline = side("B", 1, 864, 100, SideMethod::estimated, 0.1);
  problems[1].baseline = side("B", 1, 432, 200, SideMethod::estimated, 0.2);
  problems[0].target = side("T", 1, 86.4, 1000, SideMethod::estimated, 0.3);
  problems[1].target = side("T", 1, 86.4, 1000, SideMethod::measured, 0);
  const FomUncertainty u = fom_uncertainty(fom_from_problems("s", problems));
  CHECK(u.baseline_hm == doctest::Approx(0.0942809).epsilon(1e-6));
  CHECK(u.target_hm == doctest::Approx(0.15));
  CHECK(u.fom == doctest::Approx(0.1771691).epsilon(1e-6));

  for (auto& p : problems) p.baseline.uncertainty = p.target.uncertainty = 0;
  const FomUncertainty none = fom_uncertainty(fom_from_problems("s", problems));
  CHECK(none.fom == 0);
}

TEST_CASE("report of a study whose sides are equal draws a finite axis") {
  // One problem with ratio exactly 1: the log axis has a single value to span. No NaN or
  // infinity may reach the SVG coordinates.
  std::vector<ProblemResult> problems(1);
  problems[0].name = "only";
  problems[0].baseline = side("X", 1, 3600, 24, SideMethod::measured, 0);
  problems[0].target = problems[0].baseline;
  const std::string html = html_of("flat", "X", "X", problems);
  CHECK(markup_problem(html) == "");
  CHECK(count(html, "<svg") == 1);
  CHECK(!std::regex_search(html, std::regex("\\s(x|y|x1|x2|y1|y2|cx|cy|width|height|d|viewBox)=\"[^\"]*(nan|inf)")));
  CHECK(count(html, "class=\"tick\"") >= 2);  // an axis with two ends
  CHECK(fom_in_page(html) == 1.0);
}

TEST_CASE("report: ratio bars grow from parity, a slowdown to the left in its own colour") {
  // A gain of 3 and a loss to 0.67: on a log axis from 0.5 the loss's bar used to start at
  // the axis and point right like a gain.
  std::vector<ProblemResult> problems(2);
  problems[0].name = "faster";
  problems[0].baseline = side("B", 1, 3 * 3600.0, 8, SideMethod::measured, 0);
  problems[0].target = side("A", 1, 3600, 24, SideMethod::measured, 0);
  problems[1].name = "slower";
  problems[1].baseline = side("B", 1, 3600, 24, SideMethod::measured, 0);
  problems[1].target = side("A", 1, 1.5 * 3600.0, 16, SideMethod::measured, 0);
  const std::string html = html_of("mix", "B", "A", problems);
  CHECK(markup_problem(html) == "");
  CHECK(count(html, "class=\"parity\"") == 1);
  CHECK(count(html, "class=\"bar slower\"") == 1);
  CHECK(count(html, "class=\"bar\"") == 1);
  // The slower bar ends at the parity line: its x plus its width is the line's x.
  const std::smatch line = [&] {
    std::smatch m;
    REQUIRE(std::regex_search(html, m, std::regex("<line x1=\"([0-9.]+)\"[^>]*class=\"parity\"")));
    return m;
  }();
  std::smatch bar;
  REQUIRE(std::regex_search(
      html, bar, std::regex("<rect x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\"[^>]*class=\"bar slower\"")));
  CHECK(std::stod(bar[1].str()) + std::stod(bar[2].str()) == doctest::Approx(std::stod(line[1].str())).epsilon(0.01));
}

TEST_CASE("fomcast report: the worked example, FOM 82.597 exactly as fom --json gives it") {
  ScratchDir dir;
  const std::string db = dir.file("r.db"), out = dir.file("we.html");
  const std::string study = source_path("data/studies/worked-example.json");
  const std::string html = report(study, out, db);

  const auto js = run_fomcast("fom --json " + shell_quote(study), db);
  REQUIRE(js.status == 0);
  const auto j = nlohmann::json::parse(js.out);
  CHECK(fom_in_page(html) == j.at("fom").get<double>());  // the same double, not a rounding of it
  CHECK(html.find(">82.597</data>") != std::string::npos);
  // The two means that are not the FOM (seed-formats README: 125.75 and 88.33), labelled.
  CHECK(html.find("Not the FOM") != std::string::npos);
  CHECK(html.find("125.75") != std::string::npos);
  CHECK(html.find("88.33") != std::string::npos);
  // Three problem rows, each with the ratio `fom` prints; the machines' figures with sources.
  for (const char* row : {"<td class=\"name\">P1</td>", "<td class=\"name\">P2</td>", "<td class=\"name\">P3</td>"})
    CHECK(count(html, row) == 1);
  for (const char* ratio : {"75.45", "60.36", "241.44"}) CHECK(html.find(ratio) != std::string::npos);
  CHECK(count(html, "<tbody>\n<tr><td class=\"name\">") == 1);
  CHECK(html.find("NVIDIA Tesla K20X datasheet: 250 GB/s GDDR5 peak") != std::string::npos);
  // Measured hours: one chart (the ratios), no breakdowns, no uncertainty band.
  CHECK(count(html, "<svg") == 1);
  CHECK(count(html, "</svg>") == 1);
  CHECK(html.find("class=\"workload\"") == std::string::npos);
  CHECK(html.find("No uncertainty band") != std::string::npos);
  CHECK(j.at("uncertainty").at("fom").get<double>() == 0);
  CHECK(html.find("id=\"history\"") == std::string::npos);
}

TEST_CASE("fomcast report: the CANDLE study, every problem and a breakdown per workload") {
  ScratchDir dir;
  const std::string db = dir.file("r.db"), out = dir.file("candle.html");
  const std::string study_file = source_path("data/studies/candle-exascale.json");
  const Study study = parse_study(slurp(study_file), study_file);
  REQUIRE(study.problems.size() == 11);
  const std::string html = report(study_file, out, db);

  const auto js = run_fomcast("fom --json " + shell_quote(study_file), db);
  REQUIRE(js.status == 0);
  const auto j = nlohmann::json::parse(js.out);
  CHECK(fom_in_page(html) == j.at("fom").get<double>());
  for (const auto& p : j.at("problems")) {
    const std::string name = p.at("name");
    CAPTURE(name);
    // Its row, with the ratio as `fom` rounds it, and its breakdown section.
    const auto row = html.find("<tr><td class=\"name\">" + name + "</td>");
    REQUIRE(row != std::string::npos);
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "<strong>%.2f</strong>", p.at("ratio").get<double>());
    CHECK(html.find(ratio, row) < html.find("</tr>", row));
    CHECK(html.find("<h3>" + name + "</h3>") != std::string::npos);
  }
  CHECK(count(html, "<section class=\"workload\"") == 11);
  CHECK(count(html, "<h4>Top operations</h4>") == 11);
  CHECK(count(html, "<h4>Coverage: where each side") == 11);
  CHECK(count(html, "<h4>Notes and warnings</h4>") == 11);
  // One chart for the ratios, two per workload (time by kind, coverage by method).
  CHECK(count(html, "<svg") == 1 + 2 * 11);
  // Every side is estimated: the band is there, and each side's method is named.
  CHECK(html.find("No uncertainty band") == std::string::npos);
  std::smatch band;
  REQUIRE(std::regex_search(html, band, std::regex("<data id=\"fom-uncertainty\" value=\"([^\"]+)\">\u00b1")));
  CHECK(std::stod(band[1].str()) == j.at("uncertainty").at("fom").get<double>());
  CHECK(std::stod(band[1].str()) > 0);
  CHECK(count(html, "<span class=\"tag estimated\">estimated</span>") >= 22);
  // The estimator's notes verbatim (the pass note `fom` prints for P1B1 on the baseline).
  const std::string note = j["problems"][0]["notes"][0];
  CHECK(html.find(note) != std::string::npos);
  // The machines' figures a co-design point changes besides rates, each sourced: Titan's
  // K20X has 14 SMX at 732 MHz, Frontier's MI250X GCD 110 CUs at 1,700 MHz.
  for (const std::string row : {"compute units (SMs, CUs)", "boost clock", "L2 cache", "host link"})
    CHECK_MESSAGE(html.find("<td>" + row + "</td>") != std::string::npos, row);
  const auto units = html.find("<td>compute units (SMs, CUs)</td>");
  CHECK(html.find("<td>14<div class=\"src\">", units) < html.find("</tr>", units));
  CHECK(html.find("<td>110<div class=\"src\">", units) < html.find("</tr>", units));
}

TEST_CASE("fomcast report: names from a profile and a study are escaped, never markup") {
  // The TAU profile of Neon AlexNet with its first timer renamed to something a browser
  // would run, ingested under a workload and a platform named the same way.
  ScratchDir dir;
  const std::string db = dir.file("h.db");
  std::string profile = slurp(shared_path("fixtures/seed-formats/tau_pprof_neon_alexnet.txt"));
  const std::string timer = "69012 copy transpose\n";
  const auto at = profile.find(timer);
  REQUIRE(at != std::string::npos);
  const std::string op = "<img src=x onerror=\"alert(1)\"> & 'copy' transpose";
  profile.replace(at, timer.size(), "69012 " + op + "\n");
  const std::string trace = dir.write("hostile.txt", profile);
  const std::string workload = "<script>alert(\"w&1\")</script>";
  const std::string platform = "<b>evil's & \"box\"";
  const auto in = run_fomcast(
      "ingest " + shell_quote(trace) + " --workload " + shell_quote(workload) + " --platform " + shell_quote(platform),
      db);
  REQUIRE_MESSAGE(in.status == 0, in.err);

  const std::string study_name = "<i>study</i> & \"co\" 'x'";
  const std::string description = "</p><script>alert(1)</script> & more";
  const std::string problem = "P<1> & 'q'";
  const nlohmann::json study = {
      {"name", study_name},
      {"description", description},
      {"baseline", {{"platform", platform}, {"nodes", 4}}},
      {"target", {{"platform", platform}, {"nodes", 8}}},
      {"problems",
       {{{"name", problem}, {"workload", workload}}, {{"name", "M<2>"}, {"baseline_hours", 2}, {"target_hours", 1}}}}};
  const std::string study_file = dir.write("hostile.json", study.dump());
  const std::string html = report(study_file, dir.file("hostile.html"), db);

  // Not one of them as written; each as entities (the op name only in the breakdown).
  for (const std::string& raw : {op, workload, platform, study_name, description, problem}) {
    CAPTURE(raw);
    CHECK(html.find(raw) == std::string::npos);
  }
  CHECK(html.find("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;copy&#39; transpose") !=
        std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&quot;w&amp;1&quot;)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("&lt;b&gt;evil&#39;s &amp; &quot;box&quot;") != std::string::npos);
  CHECK(html.find("<title>FOM report: &lt;i&gt;study&lt;/i&gt; &amp; &quot;co&quot; &#39;x&#39;</title>") !=
        std::string::npos);
  CHECK(html.find("P&lt;1&gt; &amp; &#39;q&#39;") != std::string::npos);
  CHECK(html.find("<i>") == std::string::npos);
  CHECK(html.find("<b>") == std::string::npos);
  // The breakdown was drawn for the workload problem (so its names went through it too).
  CHECK(count(html, "<section class=\"workload\"") == 1);
  CHECK(count(html, "<svg") == 3);
}

TEST_CASE("fomcast report: recorded FOMs of the study appear as a history chart") {
  ScratchDir dir;
  const std::string db = dir.file("r.db");
  const std::string study = source_path("data/studies/worked-example.json");
  REQUIRE(run_fomcast("fom --record --label first-run " + shell_quote(study), db).status == 0);
  REQUIRE(run_fomcast("fom --record --label second-run " + shell_quote(study), db).status == 0);
  const std::string html = report(study, dir.file("h.html"), db);
  const auto h = html.find("<section id=\"history\">");
  REQUIRE(h != std::string::npos);
  CHECK(count(html, "<svg") == 2);  // the ratios and the history line
  CHECK(html.find("first-run", h) != std::string::npos);
  CHECK(html.find("second-run", h) != std::string::npos);
  CHECK(count(html.substr(h), "<circle") == 2);
}

TEST_CASE("fomcast report: a bad study or an unwritable --out is exit 2 and writes nothing") {
  ScratchDir dir;
  const std::string db = dir.file("r.db"), out = dir.file("r.html");

  SUBCASE("malformed study: no database, no file") {
    const std::string bad = dir.write("bad.json", "{\"name\": \"x\", \"baseline\": {\"platform\": ");
    const auto r = run_fomcast("report " + shell_quote(bad) + " --out " + shell_quote(out), db);
    CHECK(r.status == 2);
    CHECK(r.err.find("bad.json") != std::string::npos);
    CHECK(!fs::exists(out));
    CHECK(!fs::exists(db));
  }
  SUBCASE("unknown platform, as `fom` says it") {
    nlohmann::json s = nlohmann::json::parse(slurp(source_path("data/studies/worked-example.json")));
    s["target"]["platform"] = "no-such-machine";
    const std::string file = dir.write("unknown.json", s.dump());
    const auto r = run_fomcast("report " + shell_quote(file) + " --out " + shell_quote(out), db);
    CHECK(r.status == 2);
    CHECK(r.err.find("target.platform") != std::string::npos);
    CHECK(r.err == run_fomcast("fom " + shell_quote(file), db).err);
    CHECK(!fs::exists(out));
    CHECK(!fs::exists(out + ".tmp"));
  }
  SUBCASE("--out into a directory that does not exist") {
    const std::string missing = dir.file("no/such/dir/r.html");
    const auto r = run_fomcast(
        "report " + shell_quote(source_path("data/studies/worked-example.json")) + " --out " + shell_quote(missing),
        db);
    CHECK(r.status == 2);
    CHECK(r.err.find(missing) != std::string::npos);
    CHECK(!fs::exists(dir.file("no")));
  }
  SUBCASE("--out names a directory") {
    const auto r = run_fomcast("report " + shell_quote(source_path("data/studies/worked-example.json")) + " --out " +
                                   shell_quote(dir.path.string()),
                               db);
    CHECK(r.status == 2);
    CHECK(r.err.find("is a directory") != std::string::npos);
  }
  // The report is written beside --out and renamed over it: it replaced the database, the
  // study and a FIFO with HTML, exit 0. Only an empty file or an earlier report is replaced.
  SUBCASE("--out names the database, the study, a FIFO or a file that is not a report") {
    const std::string study = dir.write("study.json", slurp(source_path("data/studies/worked-example.json")));
    const auto report_to = [&](const std::string& to) {
      return run_fomcast("report " + shell_quote(study) + " --out " + shell_quote(to), db);
    };
    auto r = report_to(db);  // before the database exists: by name
    CHECK(r.status == 2);
    CHECK(r.err.find("over the database") != std::string::npos);
    CHECK(!fs::exists(db));
    REQUIRE(run_fomcast("platforms", db).status == 0);
    const std::string before = test::file_fingerprint(db);
    r = report_to(dir.path.string() + "/./r.db");
    CHECK(r.err.find("over the database") != std::string::npos);
    r = report_to(study);
    CHECK(r.status == 2);
    CHECK(r.err.find("over the study file") != std::string::npos);
    const std::string fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    r = report_to(fifo);
    CHECK(r.status == 2);
    CHECK(r.err.find("not a regular file") != std::string::npos);
    CHECK(fs::is_fifo(fifo));
    const std::string notes = dir.write("notes.txt", "my notes\n");
    r = report_to(notes);
    CHECK(r.status == 2);
    CHECK(r.err.find("not an HTML report") != std::string::npos);
    CHECK(slurp(notes) == "my notes\n");
    CHECK(test::file_fingerprint(db) == before);
    CHECK(slurp(study) == slurp(source_path("data/studies/worked-example.json")));
    // An earlier report is replaced.
    REQUIRE(report_to(out).status == 0);
    CHECK(report_to(out).status == 0);
  }
}

namespace {

// "53.6 ms", "1.48 s", "297 us", "0 us" -> seconds.
double seconds_of(const std::string& text) {
  std::istringstream in(text);
  double v = 0;
  std::string unit;
  in >> v >> unit;
  const std::map<std::string, double> scale = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"min", 60}, {"h", 3600}};
  REQUIRE_MESSAGE(scale.count(unit), text);
  return v * scale.at(unit);
}

}  // namespace

TEST_CASE("fomcast report: each side's pass is its operations and overhead line, a layout's step its parts") {
  // A calibrated problem's kinds summed to its raw op time (57.7% of the pass) and a
  // parallel one's to one micro-batch (12.9%); the table said "pass 53.6 ms = ops 30.6 ms +
  // overhead 297 us". Now the parts add up: calibrated (CANDLE), and a layout's step as the
  // busiest device's compute, exposed communication, bubble and overhead (gpt2-dgx: "ops"
  // of one micro-batch beside a "rest of the step" of 87-94% had read as overhead).
  ScratchDir dir;
  const std::string db = dir.file("r.db");
  for (const char* study : {"data/studies/candle-exascale.json", "data/studies/gpt2-dgx.json"}) {
    CAPTURE(study);
    const std::string html = report(source_path(study), dir.file("r.html"), db);
    const std::regex row("<tr><td>(baseline|target)</td>(.*?)</tr>");
    const std::regex cell("<td[^>]*>(.*?)</td>");
    int checked = 0;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), row); it != std::sregex_iterator(); ++it) {
      const std::string cells = (*it)[2];
      std::vector<std::string> c;
      for (auto jt = std::sregex_iterator(cells.begin(), cells.end(), cell); jt != std::sregex_iterator(); ++jt)
        c.push_back(std::regex_replace(std::string((*jt)[1]), std::regex("<[^>]+>.*"), ""));
      if (c.size() < 8 || (c[1].find(" ms") == std::string::npos && c[1].find(" s") == std::string::npos)) continue;
      const bool layout = html.find("+ pipeline bubble") != std::string::npos && c.size() >= 12;
      const bool rest = html.find("+ rest of the step") != std::string::npos;
      const double pass = seconds_of(c[1]),
                   parts = layout ? seconds_of(c[2]) + seconds_of(c[3]) + seconds_of(c[4]) + seconds_of(c[5])
                                  : seconds_of(c[2]) + seconds_of(c[3]) + (rest ? seconds_of(c[4]) : 0.0);
      if (std::string(study).find("gpt2-dgx") != std::string::npos) CHECK(layout);
      CHECK_MESSAGE(parts == doctest::Approx(pass).epsilon(0.02), c[0] << ": " << c[1] << " vs " << parts);
      ++checked;
    }
    CHECK(checked >= 4);
  }
}

TEST_CASE(
    "fomcast report: a tensor-parallel step's split by kind adds up to the step, not to the unsplit micro-batch") {
  // GPT-2 medium on 4 devices with tp=4 and one micro-batch: the operations are that
  // micro-batch on one device before the layout splits its GEMMs four ways (209 ms on the
  // A100 beside an 82 ms step). The split by kind had taken them as they were, its shares of
  // the step adding up to more than 100% (124% in a user's report); the kinds now keep their
  // proportions at the busiest device's compute, beside its exposed communication.
  ScratchDir dir;
  const std::string study = dir.write("tp4.json", R"({"name": "tp4", "description": "a tensor-parallel problem",
        "baseline": {"platform": "A100_SXM4_80GB", "nodes": 1, "unit": "node", "devices_per_unit": 4},
        "target": {"platform": "H100", "nodes": 1, "unit": "node", "devices_per_unit": 4},
        "problems": [{"name": "gpt2-medium tp4", "workload": "gpt2-medium", "precision": "amp-bf16",
                      "parallel": "tp=4", "batch_size": 8}]})");
  const std::string html = report(study, dir.file("tp.html"), dir.file("t.db"));
  const auto begin = html.find("<h4>Where the time goes</h4>");
  REQUIRE(begin != std::string::npos);
  const auto table = html.find("<table", begin);
  const std::string kinds = html.substr(table, html.find("</table>", table) - table);
  const std::regex row("<tr><td><span class=\"swatch\"[^>]*></span>([^<]+)</td>(.*?)</tr>");
  const std::regex cell("<td[^>]*>(.*?)</td>");
  std::vector<double> sum(2, 0.0);
  bool communication = false;
  for (auto it = std::sregex_iterator(kinds.begin(), kinds.end(), row); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1], cells = (*it)[2];
    communication = communication || name == "exposed communication";
    std::vector<std::string> c;
    for (auto jt = std::sregex_iterator(cells.begin(), cells.end(), cell); jt != std::sregex_iterator(); ++jt)
      c.push_back((*jt)[1]);
    REQUIRE(c.size() == 5);
    sum[0] += seconds_of(c[0]), sum[1] += seconds_of(c[2]);
  }
  CHECK(communication);
  const std::regex footer("<tfoot><tr><td>pass</td><td[^>]*>([^<]+)</td><td[^>]*>100%</td><td[^>]*>([^<]+)</td>");
  std::smatch m;
  REQUIRE(std::regex_search(kinds, m, footer));
  CHECK(sum[0] == doctest::Approx(seconds_of(m[1])).epsilon(0.02));
  CHECK(sum[1] == doctest::Approx(seconds_of(m[2])).epsilon(0.02));
  // The coverage table says what its operation times are.
  CHECK(html.find("time, one micro-batch unsplit") != std::string::npos);
}

TEST_CASE("fomcast report: a layout's optimizer is its once-a-step update, not scaled with the micro-batches") {
  // gpt2-dgx's GPT-2 large: dp=4, tp=2, 16 micro-batches a step. Scaled with the forward and
  // backward kinds to the device's compute, its optimizer showed 116 ms on the A100s; the
  // layout's update is 6.6 ms, which estimate --json gives as optimizer_s.
  ScratchDir dir;
  const std::string db = dir.file("g.db");
  const std::string html = report(source_path("data/studies/gpt2-dgx.json"), dir.file("g.html"), db);
  const nlohmann::json est = run_json(
      "estimate --workload gpt2-large --platform A100_SXM4_80GB --precision amp-bf16 --parallel dp=4,tp=2 "
      "--micro-batches 16 --batch-per-gpu 8",
      db);
  const double update = est["optimizer_s"].get<double>();
  CHECK(update > 0);
  CHECK(update < 0.01 * est["pass_s"].get<double>());
  const auto section = html.find("gpt2-large dp4 tp2");
  REQUIRE(section != std::string::npos);
  const auto table = html.find("<table", html.find("<h4>Where the time goes</h4>", section));
  const std::string kinds = html.substr(table, html.find("</table>", table) - table);
  std::smatch m;
  REQUIRE(std::regex_search(kinds, m, std::regex("</span>optimizer</td><td[^>]*>([^<]+)</td>")));
  CHECK(seconds_of(m[1]) == doctest::Approx(update).epsilon(0.02));
}

TEST_CASE("fomcast report: a workload's per-call launch gaps are stated beside its passes, as estimate states them") {
  // gpt2-dgx's GPUs take their GEMMs from per-call tables (NeuSight's, a PyTorch call each):
  // part of every op's time is the call's host gap, which no faster device removes.
  ScratchDir dir;
  const std::string db = dir.file("g.db");
  const std::string html = report(source_path("data/studies/gpt2-dgx.json"), dir.file("g.html"), db);
  CHECK(html.find("the per-call launch gaps the tables' per-call times hold") != std::string::npos);
  // The share the report states is the estimate's own: the baseline side's, to the percent.
  const std::regex stated("baseline ([A-Za-z0-9_]+): ([0-9.,]+ [mu]?s) \\(([0-9.]+)%\\)");
  std::smatch m;
  REQUIRE(std::regex_search(html, m, stated));
  CHECK(std::stod(m[3].str()) > 0);
  CHECK(std::stod(m[3].str()) < 100);
}
