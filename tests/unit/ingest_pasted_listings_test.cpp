// Profiles as people paste them: a cProfile listing in a Markdown code block with rows cut
// out, a TF1 feed_dict job's listing whose steps are its session runs, and the two reports
// fomcast does not read (torch.profiler's summary table, tfprof's scope view), which say
// what to give instead. The texts follow the shapes of real ones (a DeepCoNN TF1 job on a
// K80, a nanoGPT key_averages() log, a TensorCFR tfprof scope view) with numbers of our own.
#include <doctest/doctest.h>

#include <string>

#include "fomcast/error.hpp"
#include "ingest_text_support.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ingest_one;
using fomcast::test::ScratchDir;

namespace {

bool has_note(const Workload& w, const std::string& text) {
  for (const auto& n : w.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

std::string refusal(const std::string& path) {
  try {
    (void)ingest_one(path);
  } catch (const InputError& e) {
    CHECK(e.file == path);
    return e.what();
  }
  FAIL("no error for " << path);
  return "";
}

}  // namespace

TEST_CASE("cProfile in Markdown: the closing fence ends the table, a '...' is rows cut out; TF1 runs are steps") {
  ScratchDir dir;
  const std::string md = dir.write("blog.md",
                                   "Profiling the training loop:\n\n"
                                   "```\n"
                                   "         2000 function calls in 60.000 seconds\n\n"
                                   "   Ordered by: internal time\n\n"
                                   "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
                                   "      825   17.388    0.021   17.388    0.021 {built-in method "
                                   "_pywrap_tensorflow_internal.TF_Run}\n"
                                   "      825    2.000    0.002   20.000    0.024 session.py:1120(_run)\n"
                                   "...\n"
                                   "      100    1.000    0.010    1.000    0.010 {method 'astype' of "
                                   "'numpy.ndarray' objects}\n"
                                   "```\n\n"
                                   "The session run dominates.\n");
  const Workload w = ingest_one(md);
  CHECK(w.ops.size() == 3);
  // 825 session runs of a feed_dict loop: 825 steps, 60 s / 825 a pass.
  CHECK(w.passes == 825);
  REQUIRE(w.pass_s.has_value());
  CHECK(*w.pass_s == doctest::Approx(60.0 / 825));
  CHECK(has_note(w, "each TF1 session run is one"));
  CHECK(has_note(w, "1 '...' line(s) in the table, where rows were cut out"));
  CHECK(has_note(w, "lines after the listing's table"));  // the prose after the fence
}

TEST_CASE("a torch.profiler summary table and a tfprof scope view are refused, saying what to give instead") {
  ScratchDir dir;
  const std::string table =
      dir.write("log.txt",
                "step 0: loss 10.9\n"
                "-------------  ------------  ------------  ------------  ------------  ------------  ------------\n"
                "         Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls\n"
                "-------------  ------------  ------------  ------------  ------------  ------------  ------------\n"
                "     aten::mm        40.00%       1.000ms        40.00%       1.000ms     100.000us            10\n"
                "Self CPU time total: 2.500ms\n");
  const std::string why = refusal(table);
  CHECK_MESSAGE(why.find("a PyTorch profiler summary table (key_averages().table())") != std::string::npos, why);
  CHECK(why.find("export_chrome_trace") != std::string::npos);

  const std::string scope = dir.write("scope.txt",
                                      "==================Model Analysis Report======================\n"
                                      "node name | requested bytes | total execution time | accelerator execution "
                                      "time | cpu execution time\n"
                                      "_TFProfRoot (--/4.38KB, --/1.04ms, --/0us, --/1.04ms)\n"
                                      "  defs (0B/1.48KB, 0us/280us, 0us/0us, 0us/280us)\n");
  try {
    (void)ingest_one(scope, "tfprof-op");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.file == scope);
    CHECK(e.line == 3);
    CHECK_MESSAGE(
        std::string(e.what()).find("a tfprof scope or graph view (its root node _TFProfRoot)") != std::string::npos,
        e.what());
  }
}
