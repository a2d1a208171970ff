// Every command the README and docs/ show (`$ build/fomcast ...` in a code block, or an
// indented `build/fomcast ...` / `fomcast ...` line) runs as printed: in order, one fresh
// database per page, from a copy of the repository root's layout (so `../shared/...` and
// `tests/data/...` resolve and a `--out` file lands in scratch space). A tour that ingests
// under a name a shipped workload has, or names a file that is not there, fails here.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using fomcast::test::ScratchDir;
using fomcast::test::slurp;
using fomcast::test::source_path;

namespace {

// The commands of one page, continuation lines joined, comments dropped. Synopses (with
// placeholders such as NAME, W, [--flag] or a|b) are not commands and are left out, and so
// is `bench`, which measures this machine for seconds.
std::vector<std::string> commands_of(const std::string& page) {
  std::vector<std::string> out;
  std::istringstream in(page);
  bool fenced = false;
  std::string pending;
  const std::regex command(R"(^(?:\$ |    )(?:build/)?fomcast (.*)$)");
  const std::regex fenced_command(R"(^(?:\$ )?(?:build/)?fomcast (.*)$)");
  for (std::string line; std::getline(in, line);) {
    if (!pending.empty()) {
      while (!pending.empty() && pending.back() == ' ') pending.pop_back();
      pending += " " + std::regex_replace(line, std::regex(R"(^\s+|\s*\\$)"), "");
      if (line.empty() || line.back() != '\\') out.push_back(pending), pending.clear();
      continue;
    }
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    std::smatch m;
    if (!std::regex_match(line, m, fenced ? fenced_command : command)) continue;
    std::string args = std::regex_replace(std::string(m[1]), std::regex(R"(\s+#.*$)"), "");
    if (std::regex_search(args, std::regex(R"(\[|\||\.\.\.|\b[A-Z]{1,5}\b(?![=_A-Za-z0-9.-]))")) ||
        args.rfind("bench ", 0) == 0)
      continue;
    if (!args.empty() && args.back() == '\\') {
      args.pop_back();
      pending = args;
      continue;
    }
    out.push_back(args);
  }
  return out;
}

}  // namespace

TEST_CASE("the doc-commands reader finds commands and skips synopses") {
  const auto c = commands_of(
      "```\n$ build/fomcast fom data/studies/worked-example.json\nproblem ...\n```\n"
      "    build/fomcast ingest a.json \\\n        --workload x --platform H100\n"
      "```\nfomcast bench --platform NAME [--suite deepbench-train|workload:W]\n"
      "fomcast show tiny                            # the ops of a pass\n```\n"
      "`fomcast estimate --workload W --platform P` in a sentence\n");
  REQUIRE(c.size() == 3);
  CHECK(c[0] == "fom data/studies/worked-example.json");
  CHECK(c[1] == "ingest a.json --workload x --platform H100");
  CHECK(c[2] == "show tiny");
}

TEST_CASE("every example in README.md and docs/ runs as printed") {
  ScratchDir dir;
  // The repository's layout, with scratch space where commands write.
  const fs::path root = dir.path / "repo";
  fs::create_directories(root);
  for (const char* entry : {"data", "tests", "docs", "README.md"}) fs::create_symlink(source_path(entry), root / entry);
  fs::create_symlink(fs::canonical(source_path("../shared")), dir.path / "shared");

  std::vector<fs::path> pages = {source_path("README.md")};
  for (const auto& e : fs::directory_iterator(source_path("docs")))
    if (e.path().extension() == ".md") pages.push_back(e.path());
  std::size_t ran = 0;
  for (const auto& page : pages) {
    const std::string db = (dir.path / (page.stem().string() + ".db")).string();
    const std::string run = "cd '" + root.string() + "' && '" + FOMCAST_BIN + "' --db '" + db + "' ";
    const std::string redirect = " >'" + dir.file("out") + "' 2>'" + dir.file("err") + "' </dev/null";
    for (const auto& args : commands_of(slurp(page.string()))) {
      CAPTURE(page.filename().string());
      CAPTURE(args);
      std::string line = run;
      line += args;
      line += redirect;
      const int raw = std::system(line.c_str());
      const bool ok = WIFEXITED(raw) && WEXITSTATUS(raw) == 0;
      CHECK_MESSAGE(ok, slurp(dir.file("err")));
      ++ran;
    }
  }
  CHECK(ran >= 20);

  // docs/model-format.md's example is the file its commands ingest.
  const std::string doc = slurp(source_path("docs/model-format.md"));
  const auto start = doc.find("```json", doc.find("## A complete example")) + 7;
  const auto block = doc.substr(start, doc.find("```", start) - start);
  CHECK(nlohmann::json::parse(block) == nlohmann::json::parse(slurp(source_path("tests/data/models/tiny.json"))));
}
