// A trace of forward work alone (inference, evaluation) says so at ingest: its estimates are
// of that pass, not of a training step. Checked on the shared corpus: the inference traces
// the manifest names say it, a training trace does not.
#include <doctest/doctest.h>

#include <string>

#include "cli_json.hpp"
#include "test_support.hpp"

using fomcast::test::any_note_contains;
using fomcast::test::run_json;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;

TEST_CASE("ingest: forward work alone is said to be no training step; a training step says nothing of it") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  const std::string said = "no backward or optimizer operation: the trace reads as forward work only";
  // MANIFEST.md: HF bert-small-uncased fill-mask inference on an H100; PARAM's AlexNet
  // forward benchmark on an A100.
  for (const char* inference : {"traces/pytorch_kineto/tracelens_h100_bert-small-uncased.json.gz",
                                "traces/pytorch_kineto/hta_critical_path_alexnet_trace.json.gz"}) {
    CAPTURE(inference);
    run_json("ingest '" + shared_path(inference) + "' --workload fwd", db);
    CHECK(any_note_contains(run_json("show fwd", db)["notes"], said));
    fomcast::test::run_fomcast("workloads rm fwd", db);
  }
  // Training steps (forward, backward and optimizer) do not.
  for (const char* training : {"traces/pytorch_kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz",
                               "traces/pytorch_kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz"}) {
    CAPTURE(training);
    run_json("ingest '" + shared_path(training) + "' --workload train", db);
    CHECK_FALSE(any_note_contains(run_json("show train", db)["notes"], said));
    fomcast::test::run_fomcast("workloads rm train", db);
  }
}
