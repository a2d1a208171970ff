// libFuzzer target for every reader in the format registry: the input bytes go through
// ingest::InputFile::from_memory to the reader named by $FOMCAST_FUZZ_FORMAT ("auto": the
// registry's detection picks one, as `fomcast ingest` does), then the checks every stored
// workload passes. A reader may accept or refuse the bytes; refusing is an InputError.
// Anything else (another exception, a sanitizer report, a crash, a hang) is a finding.
//
// Modes for the driver script (tests/fuzz/run_fuzz.sh), chosen by $FOMCAST_FUZZ_MODE:
//   list    print the registry's format names, one per line, and exit
//   detect  print "FORMAT<TAB>PATH" for each file named on the command line and exit
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "common/readers.hpp"
#include "fomcast/error.hpp"
#include "fomcast/model.hpp"

namespace {

using fomcast::ingest::FormatReader;

const FormatReader* g_reader = nullptr;  // nullptr: detect per input

const FormatReader* detect(std::string_view head, std::string_view name) {
  const FormatReader* best = nullptr;
  int best_score = 0;
  for (const auto& r : fomcast::ingest::readers()) {
    const int score = r.detect(head, name);
    if (score > best_score) best = &r, best_score = score;
  }
  return best;
}

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fomcast fuzz finding: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const char* mode = std::getenv("FOMCAST_FUZZ_MODE");
  if (mode && std::string(mode) == "list") {
    for (const auto& r : fomcast::ingest::readers()) std::printf("%.*s\n", int(r.name.size()), r.name.data());
    std::exit(0);
  }
  if (mode && std::string(mode) == "detect") {
    for (int i = 1; i < *argc; ++i) {
      const std::string path = (*argv)[i];
      if (!path.empty() && path[0] == '-') continue;
      try {
        std::ifstream in(path, std::ios::binary);
        const std::string bytes{std::istreambuf_iterator<char>(in), {}};
        const auto file = fomcast::ingest::InputFile::from_memory(path, bytes);
        const FormatReader* r = detect(file.head(), path);
        std::printf("%s\t%s\n", r ? std::string(r->name).c_str() : "-", path.c_str());
      } catch (const fomcast::InputError&) {
        std::printf("-\t%s\n", path.c_str());
      }
    }
    std::exit(0);
  }
  const char* format = std::getenv("FOMCAST_FUZZ_FORMAT");
  if (format && std::string(format) != "auto") {
    g_reader = fomcast::ingest::find_reader(format);
    if (!g_reader) {
      std::fprintf(stderr, "FOMCAST_FUZZ_FORMAT=%s is not a registered format\n", format);
      std::exit(2);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string name = "fuzz-input";
  try {
    const auto file =
        fomcast::ingest::InputFile::from_memory(name, std::string(reinterpret_cast<const char*>(data), size));
    const FormatReader* reader = g_reader ? g_reader : detect(file.head(), name);
    if (!reader) return 0;  // `fomcast ingest` refuses it too
    fomcast::IngestOptions options;
    options.workload = "fuzz";
    fomcast::Workload w = reader->read(file, options);
    for (auto& op : w.ops) fomcast::fill_costs(op);
    fomcast::ingest::validate(w, name);
    // What the store and `show` would do with it next.
    for (const auto& op : w.ops) (void)fomcast::op_to_json(op);
    (void)fomcast::rank_ops(w);
  } catch (const fomcast::InputError& e) {
    if (e.file != name) finding("InputError naming another file", e.what());
  } catch (const fomcast::UsageError& e) {
    finding("UsageError from a reader", e.what());
  } catch (const std::exception& e) {
    finding("exception other than InputError", e.what());
  }
  return 0;
}
