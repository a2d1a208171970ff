// The tfprof readers on the seed-format files: the op view (P1B3 and the documented
// example) and the P1B3 matrix-sizes listing. Expected numbers are read off the files'
// own rows (quoted in the comments).
#include <doctest/doctest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "decode/text_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/json_forms.hpp"
#include "ingest_text_support.hpp"
#include "tensorflow/tfprof_text.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ingest_one;
using fomcast::test::op_named;
using fomcast::test::shared_path;

TEST_CASE("tfprof op view of P1B3: every op type with its measured time") {
  const auto w = ingest_one(shared_path("fixtures/seed-formats/tfprof_op_view_p1b3.txt"));
  CHECK(w.origin == "tfprof-op");
  CHECK(w.ops.size() == 13);  // 13 rows under the header
  CHECK(w.passes == 1);
  // "MatMul   121.67MB (100.00%, 33.33%),   115.52ms (100.00%, 40.21%),"
  const Op& mm = op_named(w, "MatMul");
  CHECK(mm.kind == OpKind::gemm);
  CHECK(mm.count == 1);
  CHECK(*mm.self_time_s == doctest::Approx(0.11552));
  CHECK(mm.bytes == doctest::Approx(121.67e6));
  CHECK(std::holds_alternative<std::monostate>(mm.shape));  // the op view has no shapes
  // Its FLOPs are unknown, not zero: `show --json` says null, as the text says "-".
  CHECK(op_to_json(mm)["flops"].is_null());
  CHECK(op_to_json(mm)["bytes"].get<double>() == doctest::Approx(121.67e6));
  CHECK(op_from_json(op_to_json(mm)).flops == 0);
  // "Assign   0B (0.00%, 0.00%),   73.65ms": an elementwise op that requested nothing.
  CHECK(op_named(w, "Assign").kind == OpKind::elementwise);
  CHECK(*op_named(w, "Assign").self_time_s == doctest::Approx(0.07365));
  CHECK(op_named(w, "Mul").kind == OpKind::elementwise);
  CHECK(op_named(w, "BiasAddGrad").phase == Phase::backward);
  CHECK(op_named(w, "ReluGrad").phase == Phase::backward);
  // "VariableV2   0B (0.00%, 0.00%),   868us": microseconds.
  CHECK(*op_named(w, "VariableV2").self_time_s == doctest::Approx(868e-6));
  // Sum of the 13 rows' times (115.52 + 73.65 + 61.46 + ... + 0.848 ms).
  CHECK(w.measured_op_time_s() == doctest::Approx(0.284525));
}

TEST_CASE("tfprof op view example: accelerator/cpu/occurrence columns, sec/ms/us and MB/KB units") {
  const auto w = ingest_one(shared_path("fixtures/seed-formats/tfprof_op_view_example.txt"));
  CHECK(w.origin == "tfprof-op");
  CHECK(w.ops.size() == 11);
  // "SoftmaxCrossEntropyWithLogits  36.58MB (...),  1.37sec (...), 0.37sec, 0.37sec, 1": it ran on the
  // accelerator, so its accelerator time; the total adds the host's cpu time (its launch and its wait).
  const Op& sm = op_named(w, "SoftmaxCrossEntropyWithLogits");
  CHECK(*sm.self_time_s == doctest::Approx(0.37));
  CHECK(sm.bytes == doctest::Approx(36.58e6));
  CHECK(sm.count == 1);  // occurrence 1
  // "MatMul   2720.57MB (99.95%, 3.66%),    708.14ms (...),    280.76ms (...),    280.76ms ..."
  CHECK(op_named(w, "MatMul").kind == OpKind::gemm);
  CHECK(*op_named(w, "MatMul").self_time_s == doctest::Approx(0.28076));
  CHECK(op_named(w, "MatMul").bytes == doctest::Approx(2720.57e6));
  // "ApplyAdam   231.65MB, 92.66ms, 0us, 0us, 1": neither part timed, so the total stands (never a 0).
  const Op& adam = op_named(w, "ApplyAdam");
  CHECK(adam.kind == OpKind::optimizer);
  CHECK(adam.phase == Phase::optimizer);
  CHECK(*adam.self_time_s == doctest::Approx(0.09266));
  CHECK(op_named(w, "ConcatV2").kind == OpKind::elementwise);
  CHECK(op_named(w, "SoftmaxCrossEntropyWithLogits").kind == OpKind::reduction);
}

TEST_CASE("tfprof matrix sizes of P1B3: GEMMs with M, N, K, the batch and the run*0 row left out") {
  const auto w = ingest_one(shared_path("fixtures/seed-formats/tfprof_matrix_sizes_p1b3.txt"));
  CHECK(w.origin == "tfprof-shapes");
  // 14 rows, one of them "(run*0 defined*1)": 13 ops, all with distinct shapes.
  CHECK(w.events == 14);
  CHECK(w.ops.size() == 13);
  // Every first operand leads with 100 ("0:100x..." in 12 rows): the batch for "-1".
  CHECK(w.batch_size == 100);
  auto find = [&](int64_t m, int64_t n, int64_t k) -> const Op* {
    for (const auto& op : w.ops)
      if (const auto* g = std::get_if<GemmShape>(&op.shape); g && g->m == m && g->n == n && g->k == k) return &op;
    return nullptr;
  };
  // "0:-1x29532, 1:29532x1000 (run*1 defined*1) exec_time: 65.31ms": 100x29532 . 29532x1000.
  const Op* first_layer = find(100, 1000, 29532);
  REQUIRE(first_layer);
  CHECK(first_layer->kind == OpKind::gemm);
  CHECK(first_layer->phase == Phase::forward);
  CHECK(*first_layer->self_time_s == doctest::Approx(0.06531));
  // "0:-1x29532, 1:100x1000 (run*1) exec_time: 42.27ms": only A^T B fits (both lead with
  // the batch): the weight gradient of that layer, M=29532 N=1000 K=100.
  const Op* wgrad = find(29532, 1000, 100);
  REQUIRE(wgrad);
  CHECK(std::get<GemmShape>(wgrad->shape).trans_a);
  CHECK(wgrad->phase == Phase::backward);
  CHECK(*wgrad->self_time_s == doctest::Approx(0.04227));
  // "0:100x1000, 1:100x500": the brief's gradient GEMM with a transposed operand.
  const Op* g2 = find(1000, 500, 100);
  REQUIRE(g2);
  CHECK(std::get<GemmShape>(g2->shape).trans_a);
  // "0:100x100, 1:100x50 (run*2 defined*2) exec_time: 549us": two calls, 274.5 us each.
  const Op* twice = find(100, 50, 100);
  REQUIRE(twice);
  CHECK(twice->count == 2);
  CHECK(*twice->self_time_s == doctest::Approx(274.5e-6));
  // "0:100x1000, 1:29532x1000 (run*0 ...)" would be M=100 N=29532 K=1000 B^T: absent.
  CHECK(find(100, 29532, 1000) == nullptr);
  // Sum of the exec_time of the rows that ran: 549+42270+65310+42+609+1210+1980+26+293+22+2110+592+515 us.
  CHECK(w.measured_op_time_s() == doctest::Approx(115528e-6));
}

TEST_CASE("tfprof shapes: --batch overrides the inferred batch and says so") {
  const auto w = ingest_one(shared_path("fixtures/seed-formats/tfprof_matrix_sizes_p1b3.txt"), "auto", 100);
  CHECK(w.batch_size == 100);
  bool said = false;
  for (const auto& n : w.notes) said = said || n.find("--batch") != std::string::npos;
  CHECK(said);
}

TEST_CASE("GEMM orientation from two operand shapes") {
  using ingest::tfprof::gemm_from_operands;
  const auto nn = gemm_from_operands({100, 1000}, {1000, 500});
  REQUIRE(nn);
  CHECK(nn->shape == GemmShape{100, 500, 1000, 1, false, false});
  const auto nt = gemm_from_operands({100, 500}, {1000, 500});  // dX = dY W^T
  REQUIRE(nt);
  CHECK(nt->shape == GemmShape{100, 1000, 500, 1, false, true});
  const auto tt = gemm_from_operands({7, 3}, {5, 7});
  REQUIRE(tt);
  CHECK(tt->shape == GemmShape{3, 5, 7, 1, true, true});
  const auto b = gemm_from_operands({8, 64, 32}, {8, 32, 16});
  REQUIRE(b);
  CHECK(b->kind == OpKind::batched_gemm);
  CHECK(b->shape.batch == 8);
  CHECK_FALSE(gemm_from_operands({3, 4}, {5, 6}));
  CHECK_FALSE(gemm_from_operands({3, 4}, {4}));
  CHECK_FALSE(gemm_from_operands({0, 4}, {4, 4}));
}

TEST_CASE("tfprof's own input_type line form parses like the listing") {
  // As tfprof_show_multi.cc prints it: tabs, "|" between the counts.
  const auto r = ingest::tfprof::parse_shape_row(
      "input_type: 0:100x1000,\t1:1000x500\t(run*3|defined*1)\texec_time: 1.21ms", 7, "f");
  CHECK(r.run == 3);
  CHECK(r.defined == 1);
  CHECK(r.exec_s == doctest::Approx(1.21e-3));
  CHECK(r.operands == std::vector<std::vector<int64_t>>{{100, 1000}, {1000, 500}});
}

TEST_CASE("unit parsing: durations, bytes, counts; NaN and infinity refused") {
  using namespace ingest::text;
  CHECK(*parse_duration_s("241us") == doctest::Approx(241e-6));
  CHECK(*parse_duration_s("708.14ms") == doctest::Approx(0.70814));
  CHECK(*parse_duration_s("1.37sec") == doctest::Approx(1.37));
  CHECK(*parse_bytes("660.00KB") == doctest::Approx(660e3));
  CHECK(*parse_bytes("1.5GB") == doctest::Approx(1.5e9));
  CHECK(*parse_count("1,081") == 1081);
  CHECK(*parse_number("3.451E+05") == 345100);
  CHECK_FALSE(parse_number("nan"));
  CHECK_FALSE(parse_number("inf"));
  CHECK_FALSE(parse_number("1e999"));
  CHECK_FALSE(parse_number("12abc"));
  CHECK_FALSE(parse_duration_s("-3ms"));
  CHECK_FALSE(parse_duration_s("3 parsecs"));
  CHECK_FALSE(parse_count("1,08"));
}

TEST_CASE("an op view with -select input_shapes: the MatMul row becomes shaped GEMMs") {
  // The op view of P1B3's first rows, with the input_type lines tfprof prints under a row
  // when input_shapes is selected (format string of tfprof_show_multi.cc), shapes and
  // times from the P1B3 matrix-sizes listing.
  test::ScratchDir dir;
  const std::string p =
      dir.write("op.txt",
                "tfprof> op -select micros,bytes,input_shapes -order_by micros\n"
                "node name | requested bytes | total execution time\n"
                "MatMul                          121.67MB (100.00%, 33.33%),     115.52ms (100.00%, 40.21%),\n"
                "  input_type: 0:-1x29532,\t1:29532x1000\t(run*1|defined*1)\texec_time: 65.31ms\n"
                "  input_type: 0:100x1000,\t1:1000x500\t(run*1|defined*1)\texec_time: 1.21ms\n"
                "Assign                               0B (0.00%, 0.00%),          73.65ms (59.79%, 25.64%),\n");
  const auto w = ingest_one(p);
  CHECK(w.origin == "tfprof-op");
  REQUIRE(w.ops.size() == 3);  // two GEMMs and Assign
  CHECK(w.batch_size == 100);
  int gemms = 0;
  for (const auto& op : w.ops)
    if (const auto* g = std::get_if<GemmShape>(&op.shape)) {
      ++gemms;
      CHECK(op.name == "MatMul");
      if (g->k == 29532)
        CHECK(*op.self_time_s == doctest::Approx(0.06531));
      else
        CHECK(*g == GemmShape{100, 500, 1000});
    }
  CHECK(gemms == 2);
  CHECK(*op_named(w, "Assign").self_time_s == doctest::Approx(0.07365));
}

TEST_CASE("an op view with TF's 'op occurrence (run|defined)' column: the run count is the calls per pass") {
  // The column later TensorFlow versions print (tfprof_show_multi.cc): "2694|3450" is 2,694
  // of the graph's 3,450 MatMul nodes run in the step. Read as one call per type before,
  // the op view's 11 rows estimated at 4.17 ms on an H100 against 4.02 s measured.
  test::ScratchDir dir;
  const std::string header =
      "tfprof> op -select micros,bytes,occurrence -order_by micros\n"
      "node name | requested bytes | total execution time | accelerator execution time | cpu execution time | "
      "op occurrence (run|defined)\n";
  const std::string p =
      dir.write("op.txt", header +
                              "MatMul   2720.57MB (99.95%, 3.66%),   708.14ms (73.32%, 13.83%),   280.76ms (100.00%, "
                              "41.42%),   427.39ms (69.25%, 9.62%),  2694|3450\n"
                              "ApplyAdam   231.65MB (85.28%, 0.31%),   92.66ms (23.43%, 1.81%),   0us (23.70%, 0.00%),"
                              "   92.66ms (23.38%, 2.09%),   27|27\n");
  const auto w = ingest_one(p);
  const Op& mm = op_named(w, "MatMul");
  CHECK(mm.count == 2694);
  // On the accelerator: its 280.76 ms there; the total (708.14 ms) adds its 427.39 ms of host time.
  CHECK(mm.count * *mm.self_time_s == doctest::Approx(0.28076));
  CHECK(op_named(w, "ApplyAdam").count == 27);
  // ApplyAdam ran on the host (0us on the accelerator): its cpu time.
  CHECK(op_named(w, "ApplyAdam").count * *op_named(w, "ApplyAdam").self_time_s == doctest::Approx(0.09266));
  // A cell that is not two counts is an error naming its line.
  const std::string bad = dir.write(
      "bad.txt", header +
                     "MatMul   2720.57MB (99.95%, 3.66%),   708.14ms (73.32%, 13.83%),   280.76ms (100.00%, 41.42%),   "
                     "427.39ms (69.25%, 9.62%),  2694|many\n");
  CHECK_THROWS_WITH_AS(ingest_one(bad), doctest::Contains("bad.txt:3"), InputError);
}
