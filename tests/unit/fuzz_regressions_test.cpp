// Inputs the fuzzers once crashed a reader with (tests/fuzz/regressions/FORMAT/NAME): each
// must now give a workload or an InputError naming the input, never anything else. The
// fuzz run replays them too, under the sanitizers that caught them.
#include <doctest/doctest.h>

#include <filesystem>

#include "common/readers.hpp"
#include "fomcast/error.hpp"
#include "test_support.hpp"

using namespace fomcast;

TEST_CASE("fuzz regressions: every saved crash input is handled") {
  namespace fs = std::filesystem;
  const fs::path root = test::source_path("tests/fuzz/regressions");
  REQUIRE(fs::is_directory(root));
  int inputs = 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    const std::string format = dir.path().filename().string();
    const ingest::FormatReader* reader = ingest::find_reader(format);
    REQUIRE_MESSAGE(reader, "tests/fuzz/regressions/" << format << " names no registered format");
    for (const auto& f : fs::directory_iterator(dir.path())) {
      CAPTURE(f.path().string());
      const auto file = ingest::InputFile::from_memory(f.path().string(), test::slurp(f.path().string()));
      ++inputs;
      try {
        IngestOptions options;
        options.workload = "regression";
        Workload w = reader->read(file, options);
        for (auto& op : w.ops) fill_costs(op);
        ingest::validate(w, file.path());
      } catch (const InputError& e) {
        CHECK(e.file == f.path().string());
      }
    }
  }
  CHECK(inputs > 0);
}
