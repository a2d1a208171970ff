// The PyTorch shape rules (torch_ops.hpp) on argument strings copied from the shared
// traces (which trace each comes from is said), plus the broadcasting and geometry rules
// worked by hand.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fomcast/ingest.hpp"
#include "pytorch/torch_ops.hpp"
#include "test_support.hpp"

using namespace fomcast;
using namespace fomcast::ingest;

namespace {

ShapedCall shape(const std::string& name, const std::string& dims, const std::string& types = "",
                 const std::string& concrete = "", const std::string& strides = "", const ConvHints& hints = {}) {
  return shape_torch_call(torch_call_from_kineto(name, dims, types, concrete, strides), hints);
}

const GemmShape& g(const ShapedCall& s) { return std::get<GemmShape>(s.shape); }

}  // namespace

TEST_CASE("torch ops: GEMM family") {
  // trace_diff_control: aten::matmul [[1024, 96, 50], [50, 15]] folds the batch into M, as
  // the aten::mm [[98304, 50], [50, 15]] right under it in the same trace shows.
  const auto mm3 = shape("aten::matmul", "[[1024, 96, 50], [50, 15]]", R"(["float", "float"])");
  CHECK(mm3.kind == OpKind::gemm);
  CHECK(g(mm3).m == 98304);
  CHECK(g(mm3).k == 50);
  CHECK(g(mm3).n == 15);
  CHECK(mm3.dtype == DType::fp32);
  // Broadcast batch dimensions: [8, 1, 4, 5] x [3, 5, 6] -> batch 8 x 3, 4 x 5 . 5 x 6.
  const auto bc = shape("aten::matmul", "[[8, 1, 4, 5], [3, 5, 6]]");
  CHECK(bc.kind == OpKind::batched_gemm);
  CHECK(g(bc).batch == 24);
  CHECK(g(bc).m == 4);
  CHECK(g(bc).n == 6);
  CHECK(g(bc).k == 5);
  // Vector . matrix and matrix . vector.
  CHECK(g(shape("aten::matmul", "[[5], [5, 7]]")).m == 1);
  CHECK(g(shape("aten::matmul", "[[7, 5], [5]]")).n == 1);
  // Mismatched inner sizes are no GEMM shape at all.
  CHECK(std::holds_alternative<std::monostate>(shape("aten::matmul", "[[7, 5], [4, 3]]").shape));
  // bert-small (H100): aten::linear [[1, 141, 512], [512, 512], [512]], bf16.
  const auto lin =
      shape("aten::linear", "[[1, 141, 512], [512, 512], [512]]",
            R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])", "", "[[72192, 512, 1], [512, 1], [1]]");
  CHECK(g(lin).m == 141);
  CHECK(g(lin).n == 512);
  CHECK(g(lin).k == 512);
  CHECK(g(lin).trans_b);
  CHECK(lin.dtype == DType::bf16);
  // Its aten::addmm: [[512], [141, 512], [512, 512]] with the weight's strides [1, 512].
  const auto addmm =
      shape("aten::addmm", "[[512], [141, 512], [512, 512], [], []]", "", "", "[[1], [512, 1], [1, 512], [], []]");
  CHECK(g(addmm).m == 141);
  CHECK(!g(addmm).trans_a);
  CHECK(g(addmm).trans_b);
  // trace_diff_control: aten::bmm [[1024, 647, 96], [1024, 96, 30]].
  const auto bmm = shape("aten::bmm", "[[1024, 647, 96], [1024, 96, 30]]");
  CHECK(bmm.kind == OpKind::batched_gemm);
  CHECK(g(bmm).batch == 1024);
  CHECK(g(bmm).m == 647);
  // Attention forward as two batched GEMMs: [B=1, H=8, S=141, D=64].
  const auto att = shape("aten::_scaled_dot_product_flash_attention",
                         "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], [], [], []]");
  CHECK(g(att).batch == 16);
  CHECK(g(att).m == 141);
  CHECK(g(att).n == 141);
  CHECK(g(att).k == 64);
  // The same call causal ("Concrete Inputs" as the h100 trace records them, is_causal True):
  // the blocks above the diagonal are skipped, 71 of the 141 keys per query.
  const std::string dims = "[[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], [], [], []]";
  const std::string types =
      R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", "Scalar"])";
  const auto causal = shape("aten::_scaled_dot_product_flash_attention", dims, types,
                            R"(["", "", "", "0.", "True", "False", "0.125"])");
  CHECK(g(causal).n == 71);
  CHECK(g(causal).batch == 16);
  CHECK(causal.dtype == DType::bf16);
  CHECK(g(shape("aten::_scaled_dot_product_flash_attention", dims, types,
                R"(["", "", "", "0.", "False", "False", "0.125"])"))
            .n == 141);
  // The kernel's own entry point, [B, S, H, D], is_causal at position 8.
  const auto fa = shape("aten::_flash_attention_forward",
                        "[[1, 141, 8, 64], [1, 141, 8, 64], [1, 141, 8, 64], [], [], [], [], [], [], [], []]", "",
                        R"(["", "", "", "", "", "141", "141", "0.", "True", "False", "0.125"])");
  CHECK(g(fa).n == 71);
  CHECK(g(fa).batch == 16);
  // The backward: grad_out first, then the query and key; five GEMMs of the forward's size
  // (the scores recomputed, dV, dP, dQ, dK).
  const auto bwd = shape("aten::_scaled_dot_product_flash_attention_backward",
                         "[[2, 12, 1024, 64], [2, 12, 1024, 64], [2, 12, 1024, 64], [2, 12, 1024, 64], "
                         "[2, 12, 1024, 64], [2, 12, 1024], [], [], [], [], [], [], [], []]",
                         "", R"(["", "", "", "", "", "", "", "", "1024", "1024", "0.", "True", "", ""])");
  CHECK(bwd.kind == OpKind::batched_gemm);
  CHECK(g(bwd) == GemmShape{1024, 512, 64, 5 * 24});
  // The memory-efficient kernels say causal with custom_mask_type 1.
  const auto eff =
      shape("aten::_efficient_attention_backward",
            "[[1, 256, 4, 32], [1, 256, 4, 32], [1, 256, 4, 32], [1, 256, 4, 32], [], [1, 256, 4, 32], [], "
            "[], [], [], [1, 4, 256], [], [], [], [], []]",
            "", R"(["", "", "", "", "", "", "", "", "256", "256", "", "0.", "", "", "1", "False"])");
  CHECK(g(eff) == GemmShape{256, 128, 32, 5 * 4});
  CHECK(is_compute_op_name("aten::_flash_attention_backward"));
}

TEST_CASE("torch ops: convolutions") {
  // mi300x resnet: aten::convolution with Concrete Inputs (stride, padding, dilation, ...).
  const auto fwd = shape(
      "aten::convolution", "[[10, 256, 14, 14], [512, 256, 3, 3], [], [], [], [], [], [], []]",
      R"(["c10::BFloat16", "c10::BFloat16", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])",
      R"(["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"])");
  const auto& c = std::get<ConvShape>(fwd.shape);
  CHECK(to_string(fwd.conv_params) == "recorded");
  CHECK(c.n == 10);
  CHECK(c.c == 256);
  CHECK(c.k == 512);
  CHECK(c.stride == std::array<int64_t, 3>{1, 2, 2});
  CHECK(c.pad == std::array<int64_t, 3>{0, 1, 1});
  CHECK(c.output()[2] == 7);
  // The same trace's aten::miopen_convolution puts padding before stride.
  const auto mi = shape("aten::miopen_convolution", "[[10, 256, 14, 14], [512, 256, 3, 3], [], [], [], [], [], [], []]",
                        "", R"(["", "", "", "[1, 1]", "[2, 2]", "[1, 1]", "1", "False", "False"])");
  CHECK(std::get<ConvShape>(mi.shape).stride[2] == 2);
  CHECK(std::get<ConvShape>(mi.shape).pad[2] == 1);
  // tbplugin ResNet-50 (PyTorch 1.9) records no values; its cudnn_convolution_backward
  // [input, grad_output, weight] = [[32, 3, 224, 224], [32, 64, 112, 112], [64, 3, 7, 7]]
  // shows the output: 224 -> 112 through a 7x7 is stride 2, padding 3.
  ConvHints hints;
  hints.learn(torch_call_from_kineto(
      "aten::cudnn_convolution_backward",
      "[[32, 3, 224, 224], [32, 64, 112, 112], [64, 3, 7, 7], [], [], [], [], [], [], [], []]", "", "", ""));
  const auto first =
      shape("aten::cudnn_convolution", "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
            R"(["float", "float", "GenericList", "GenericList", "GenericList", "Int", "Bool", "Bool", "Bool"])", "", "",
            hints);
  CHECK(to_string(first.conv_params) == "output shape");
  CHECK(std::get<ConvShape>(first.shape).stride[1] == 2);
  CHECK(std::get<ConvShape>(first.shape).pad[1] == 3);
  // Its backward_input [[], grad_output, weight] gets the input from the same hint.
  const auto bi = shape("aten::cudnn_convolution_backward_input",
                        "[[], [32, 64, 112, 112], [64, 3, 7, 7], [], [], [], [], [], [], []]", "", "", "", hints);
  REQUIRE(std::holds_alternative<ConvShape>(bi.shape));
  CHECK(std::get<ConvShape>(bi.shape).direction == ConvDirection::backward_data);
  CHECK(std::get<ConvShape>(bi.shape).input[2] == 224);
  // Nothing recorded, nothing learned: PyTorch's defaults (stride 1, no padding).
  const auto bare = shape("aten::cudnn_convolution", "[[8, 16, 32, 32], [32, 16, 3, 3], [], [], [], [], [], [], []]");
  CHECK(to_string(bare.conv_params) == "defaults");
  CHECK(std::get<ConvShape>(bare.shape).output()[2] == 30);
  // Grouped and 1-d: [N, C, L] with weight [K, C/groups, R].
  const auto g1 = shape("aten::conv1d", "[[4, 64, 100], [64, 16, 5], [], [], [], [], []]");
  CHECK(std::get<ConvShape>(g1.shape).dims == 1);
  CHECK(std::get<ConvShape>(g1.shape).groups == 4);
  CHECK(std::get<ConvShape>(g1.shape).filter[2] == 5);
  // convolution_backward's output_mask [False, True, False]: no data gradient.
  const auto mask =
      shape("aten::convolution_backward",
            "[[10, 64, 112, 112], [10, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], [], []]", "",
            R"(["", "", "", "[0]", "[2, 2]", "[3, 3]", "[1, 1]", "False", "[0, 0]", "1", "[False, True, False]"])");
  CHECK(mask.conv_backward);
  CHECK(!mask.grad_input);
  CHECK(mask.grad_weight);
  CHECK(std::get<ConvShape>(mask.shape).direction == ConvDirection::backward_filter);
}

TEST_CASE("torch ops: collectives, embeddings, memory-bound ops, type strings") {
  TorchCall rpc = torch_call_from_kineto(
      "record_param_comms", "[[1, 25136], [], [], [], [], [], [], [], [], []]",
      R"(["c10::BFloat16", "", "", "Scalar", "", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar"])", "", "");
  // b200 vLLM: "Collective name": "_allgather_base", "In msg nelems": 25136, BFloat16, 8 ranks.
  rpc.comm.collective = "_allgather_base";
  rpc.comm.dtype = "BFloat16";
  rpc.comm.in_nelems = 25136;
  rpc.comm.group_size = 8;
  const auto s = shape_torch_call(rpc, {});
  const auto& cs = std::get<CollectiveShape>(s.shape);
  CHECK(cs.op == CollectiveKind::allgather);
  CHECK(cs.bytes == 25136 * 2);
  CHECK(cs.ranks == 8);
  // Without metadata the enclosing op names it (negative_queue: c10d::alltoall_base_).
  TorchCall bare = torch_call_from_kineto("record_param_comms", "[[], [], [], [], [], []]", "", "", "");
  bare.parent = "c10d::alltoall_base_";
  CHECK(std::get<CollectiveShape>(shape_torch_call(bare, {}).shape).op == CollectiveKind::alltoall);
  // Embedding [30522, 512] looked up by 141 ids.
  const auto emb = shape("aten::embedding", "[[30522, 512], [1, 141], [], [], []]");
  CHECK(std::get<EmbeddingShape>(emb.shape).rows == 30522);
  CHECK(std::get<EmbeddingShape>(emb.shape).lookups == 141);
  // A memory-bound op keeps its tensor inputs, not its scalars.
  const auto ln = shape("aten::native_layer_norm", "[[1, 141, 512], [], [512], [512], []]",
                        R"(["c10::BFloat16", "ScalarList", "c10::BFloat16", "c10::BFloat16", "Double"])");
  CHECK(ln.kind == OpKind::normalization);
  CHECK(std::get<TensorShape>(ln.shape).inputs == std::vector<std::vector<int64_t>>{{1, 141, 512}, {512}, {512}});
  CHECK(dtype_from_type_string("Tensor(c10::Half)") == DType::fp16);
  CHECK(dtype_from_type_string("GenericList[Tensor(float)]") == DType::fp32);
  CHECK(dtype_from_type_string("long int") == DType::int64);
  CHECK(!dtype_from_type_string("Int"));
  CHECK(!dtype_from_type_string("Scalar"));
  CHECK(!dtype_from_type_string("Tensor(nullptr (uninitialized))"));
  CHECK(is_free_op_name("aten::view"));
  CHECK(!is_free_op_name("aten::copy_"));
  CHECK(is_compute_op_name("aten::cudnn_convolution"));
}

TEST_CASE("ingest CLI: --json fields and show's ranked list with the 95% top set") {
  test::ScratchDir dir;
  const std::string db = dir.file("s.db");
  const std::string trace =
      test::shared_path("traces/pytorch_kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz");
  const auto r = test::run_fomcast("ingest '" + trace + "' --workload rn50 --platform NV_V100 --json", db);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["workload"] == "rn50");
  CHECK(j["format"] == "kineto");
  CHECK(j["passes"] == 6);                                                      // ProfilerStep#5..#10
  CHECK(j["events"] == 75718);                                                  // len(traceEvents)
  CHECK(j["pass_s"].get<double>() == doctest::Approx(0.176273).epsilon(1e-6));  // the median step
  CHECK(j["ops"].get<int>() > 50);
  const auto show = test::run_fomcast("show rn50 --json", db);
  REQUIRE(show.status == 0);
  const auto w = nlohmann::json::parse(show.out);
  CHECK(w["ops"].size() == j["ops"].get<std::size_t>());
  // Ranked by time per pass; the top set is the shortest prefix reaching 95%.
  double prev = 1e300, cum_before_last_top = 0, last_top_cum = 0;
  bool prefix = true, seen_non_top = false;
  for (const auto& op : w["ops"]) {
    if (op["time_per_pass_s"].is_null()) continue;
    const double t = op["time_per_pass_s"].get<double>();
    CHECK(t <= prev * (1 + 1e-12));
    prev = t;
    if (op["top"].get<bool>()) {
      prefix &= !seen_non_top;
      cum_before_last_top = last_top_cum;
      last_top_cum = op["cumulative_share"].get<double>();
    } else {
      seen_non_top = true;
    }
  }
  CHECK(prefix);
  CHECK(last_top_cum >= 0.95);
  CHECK(cum_before_last_top < 0.95);
  const auto text = test::run_fomcast("show rn50", db);
  CHECK(text.out.find("cum.") != std::string::npos);
  CHECK(text.out.find("aten::cudnn_convolution") != std::string::npos);
  CHECK(text.out.find("top operations covering 95%") != std::string::npos);
}
