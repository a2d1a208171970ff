// Every profiler output in ../shared (the traces and the seed formats) is recognised as
// the format it is and ingests into a workload that passes the store's checks. A file
// added to shared/ without a line here fails the test, so none is silently left out.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "fomcast/error.hpp"
#include "fomcast/ingest.hpp"
#include "test_support.hpp"

using namespace fomcast;

TEST_CASE("every shared trace and seed-format file is detected as its format and ingests") {
  const std::map<std::string, std::string> expected = {
      {"fixtures/seed-formats/cprofile_chainer_tuned.txt", "cprofile"},
      {"fixtures/seed-formats/tau_pprof_neon_alexnet.txt", "pprof"},
      {"fixtures/seed-formats/tfprof_matrix_sizes_p1b3.txt", "tfprof-shapes"},
      {"fixtures/seed-formats/tfprof_op_view_example.txt", "tfprof-op"},
      {"fixtures/seed-formats/tfprof_op_view_p1b3.txt", "tfprof-op"},
      {"traces/chakra/chakra_1.0.2-chakra.0.0.4_allgather_et.json", "chakra-json"},
      {"traces/chakra/chakra_feeder_tests_chakra.0.et", "chakra-et"},
      {"traces/cprofile/hatchet_cprofile-cycle.pstats", "cprofile"},
      {"traces/cprofile/hatchet_cprofile-cycle.pstats.callers.txt", "cprofile"},
      {"traces/cprofile/hatchet_cprofile-cycle.pstats.cumulative.txt", "cprofile"},
      {"traces/nsys_sqlite/pipit_perlmutter-cloverleaf-cuda.sqlite", "nsys-sqlite"},
      {"traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite", "nsys-sqlite"},
      {"traces/pytorch_et/hta_benchmark_simple_add_et.json", "pytorch-et"},
      {"traces/pytorch_et/hta_benchmark_simple_add_et.json.gz", "pytorch-et"},
      {"traces/pytorch_et/hta_benchmark_simple_add_trace.json", "kineto"},
      {"traces/pytorch_et/hta_benchmark_simple_add_trace.json.gz", "kineto"},
      {"traces/pytorch_et/param_linear_et.json.gz", "pytorch-et"},
      {"traces/pytorch_et/param_linear_kineto.json.gz", "kineto"},
      {"traces/pytorch_et/param_resnet_et_1.1.0-chakra.0.0.4.json.gz", "pytorch-et"},
      {"traces/pytorch_kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json", "kineto"},
      {"traces/pytorch_kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz", "kineto"},
      {"traces/pytorch_kineto/hta_cpu_only_rank-34.pt.trace.json.gz", "kineto"},
      {"traces/pytorch_kineto/hta_critical_path_alexnet_trace.json.gz", "kineto"},
      {"traces/pytorch_kineto/hta_negative_queue_rank0.json.gz", "kineto"},
      {"traces/pytorch_kineto/hta_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "kineto"},
      {"traces/pytorch_kineto/hta_trace_diff_control.json.gz", "kineto"},
      {"traces/pytorch_kineto/hta_triton_example.json.gz", "kineto"},
      {"traces/pytorch_kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz", "kineto"},
      {"traces/pytorch_kineto/tracelens_b200_vllm_eager_trace.json.gz", "kineto"},
      {"traces/pytorch_kineto/tracelens_h100_bert-small-uncased.json.gz", "kineto"},
      {"traces/pytorch_kineto/tracelens_mi300x_bert-small-uncased.json.gz", "kineto"},
      {"traces/pytorch_kineto/tracelens_mi300x_resnet_act_checkpoint.json.gz", "kineto"},
      {"traces/pytorch_kineto/tracelens_mi300x_torch_compile_triton.json.gz", "kineto"},
      {"traces/tau/hatchet_tau-cpi-mpi_profile.0.0.0", "tau"},
      {"traces/tau/tau2_opencl_fft_profile.0.0.0", "tau"},
      {"traces/tau/tau2_taudb_test_profile.0.0.1", "tau"},
      {"traces/tau/tau2_workflow_consolidation_xmain_0_profile.0.0.0", "tau"},
      {"traces/tensorflow/tf1_timeline/ikhlestov_CPU_timeline_01.json", "tf-timeline"},
      {"traces/tensorflow/tf1_timeline/ikhlestov_GPU_timeline_02_step_0.json", "tf-timeline"},
      {"traces/tensorflow/xplane/tracelens_mi300x_jax_conv_minimal_08.xplane.pb", "xplane"},
  };
  std::size_t seen = 0;
  for (const char* dir : {"traces", "fixtures/seed-formats"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(test::shared_path(dir))) {
      if (!entry.is_regular_file()) continue;
      const std::string name = entry.path().filename().string();
      if (name == "SHA256SUMS" || entry.path().extension() == ".md") continue;
      const std::string rel = std::filesystem::relative(entry.path(), test::shared_path("")).string();
      CAPTURE(rel);
      const auto it = expected.find(rel);
      REQUIRE_MESSAGE(it != expected.end(), "no expected format for " << rel);
      ++seen;
      CHECK(detect_format(entry.path().string()) == it->second);
      IngestOptions o;
      o.workload = "w";
      const Workload w = ingest_files({entry.path().string()}, o);
      CHECK(!w.ops.empty());
      CHECK(w.passes >= 1);
    }
  }
  CHECK(seen == expected.size());
}

TEST_CASE("a shared file forced through another format's reader is refused, never read as that format") {
  // --format names the reader: one that takes a file of another format must say so, not
  // keep what it half understands (tf-timeline read a Kineto trace's 1,408 events as one op).
  // The smallest file of each format, each forced through every other reader.
  const std::map<std::string, std::string> files = {
      {"fixtures/seed-formats/cprofile_chainer_tuned.txt", "cprofile"},
      {"fixtures/seed-formats/tau_pprof_neon_alexnet.txt", "pprof"},
      {"fixtures/seed-formats/tfprof_matrix_sizes_p1b3.txt", "tfprof-shapes"},
      {"fixtures/seed-formats/tfprof_op_view_p1b3.txt", "tfprof-op"},
      {"traces/chakra/chakra_1.0.2-chakra.0.0.4_allgather_et.json", "chakra-json"},
      {"traces/cprofile/hatchet_cprofile-cycle.pstats", "cprofile"},
      {"traces/pytorch_et/hta_benchmark_simple_add_et.json.gz", "pytorch-et"},
      {"traces/pytorch_kineto/hta_critical_path_alexnet_trace.json.gz", "kineto"},
      {"traces/tau/tau2_taudb_test_profile.0.0.1", "tau"},
      {"traces/tensorflow/tf1_timeline/ikhlestov_CPU_timeline_01.json", "tf-timeline"},
      {"traces/tensorflow/xplane/tracelens_mi300x_jax_conv_minimal_08.xplane.pb", "xplane"},
  };
  const std::vector<std::string> readers = {"kineto", "pytorch-et", "chakra-json",   "chakra-et",   "tf-timeline",
                                            "xplane", "tfprof-op",  "tfprof-shapes", "nsys-sqlite", "tau",
                                            "pprof",  "cprofile",   "model"};
  for (const auto& file : files) {
    const std::string& rel = file.first;
    const std::string& own = file.second;
    for (const auto& reader : readers) {
      // Chakra's JSON is a PyTorch execution trace with Chakra's fields: each reader takes both.
      const bool et_family =
          (own == "chakra-json" || own == "pytorch-et") && (reader == "chakra-json" || reader == "pytorch-et");
      if (reader == own || et_family) continue;
      CAPTURE(rel);
      CAPTURE(reader);
      IngestOptions o;
      o.workload = "w";
      o.format = reader;
      CHECK_THROWS_AS((void)ingest_files({test::shared_path(rel)}, o), InputError);
    }
  }
}
