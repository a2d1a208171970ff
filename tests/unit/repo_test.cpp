// Promises about the repository itself: the README's Quick start holds exactly the two
// contract commands, and .ci/run runs the second.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "test_support.hpp"

using fomcast::test::slurp;
using fomcast::test::source_path;

TEST_CASE("README Quick start has two commands and .ci/run runs the test one") {
  const std::string readme = slurp(source_path("README.md"));
  const auto section = readme.find("## Quick start");
  REQUIRE(section != std::string::npos);
  const auto open = readme.find("```", section);
  REQUIRE(open != std::string::npos);
  const auto body = readme.find('\n', open) + 1;
  const auto close = readme.find("```", body);
  REQUIRE(close != std::string::npos);
  std::istringstream block(readme.substr(body, close - body));
  std::vector<std::string> lines;
  for (std::string line; std::getline(block, line);)
    if (!line.empty()) lines.push_back(line);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("build/fomcast fom ") != std::string::npos);
  const std::string ci = slurp(source_path(".ci/run"));
  CHECK_MESSAGE(ci.find(lines[1]) != std::string::npos, ".ci/run must run: " << lines[1]);
}

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kLibraries = {"model",     "store", "tables", "ingest", "microbench",
                                             "estimator", "seed",  "report", "cli"};

// The fomcast_* libraries a folder's CMakeLists links.
std::set<std::string> linked_libraries(const std::string& folder) {
  const std::string cmake = slurp(source_path(folder + "/CMakeLists.txt"));
  std::set<std::string> out;
  const std::regex call(R"(target_link_libraries\s*\(([^)]*)\))");
  const std::regex lib(R"(\bfomcast_([a-z]+)\b)");
  for (std::sregex_iterator c(cmake.begin(), cmake.end(), call), end; c != end; ++c) {
    std::string args = (*c)[1];
    const auto start = args.find_first_not_of(" \t\n");  // the first word is the target itself
    args = args.substr(args.find_first_of(" \t\n", start));
    for (std::sregex_iterator l(args.begin(), args.end(), lib); l != end; ++l) out.insert((*l)[1]);
  }
  return out;
}

std::vector<fs::path> code_files(const std::string& folder) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(source_path(folder))) {
    const auto ext = e.path().extension();
    if (e.is_regular_file() && (ext == ".cpp" || ext == ".hpp")) out.push_back(e.path());
  }
  return out;
}

}  // namespace

TEST_CASE("libraries depend one way, as docs/architecture.md draws it") {
  const std::map<std::string, std::set<std::string>> allowed = {
      {"model", {}},
      {"store", {"model"}},
      {"tables", {"model"}},
      {"ingest", {"model"}},
      {"microbench", {"model", "tables"}},
      {"estimator", {"model", "store"}},
      {"seed", {"model", "store", "tables", "ingest"}},
      {"report", {"model", "estimator", "microbench", "tables", "store"}},
      {"cli", {"model", "store", "tables", "ingest", "microbench", "estimator", "seed", "report"}},
  };
  for (const auto& folder : kLibraries) {
    INFO(folder);
    for (const auto& lib : linked_libraries(folder)) {
      INFO("links fomcast_" << lib);
      CHECK(allowed.at(folder).count(lib) == 1);
    }
  }
  // The vocabulary and the store know nothing above them.
  CHECK(linked_libraries("model").empty());
  CHECK(linked_libraries("store") == std::set<std::string>{"model"});
}

TEST_CASE("no computation file includes a report header") {
  for (const std::string folder : {"model", "store", "tables", "ingest", "microbench", "estimator", "seed"})
    for (const auto& file : code_files(folder)) {
      const std::string text = slurp(file.string());
      INFO(file.string());
      CHECK(text.find("#include \"fomcast/report") == std::string::npos);
    }
}

TEST_CASE("every folder README lists every file in it") {
  for (const auto& folder : kLibraries) {
    const std::string readme = slurp(source_path(folder + "/README.md"));
    for (const auto& file : code_files(folder)) {
      // A README may name a pair as `name.{hpp,cpp}`: the stem is what must appear.
      const std::string stem = file.stem().string();
      INFO(file.string());
      CHECK(readme.find(stem) != std::string::npos);
    }
  }
}
