// Sparse and gather ops cost the rows they touch (indices x row width x element size), not
// the whole table; FBGEMM ops that multiply no matrices are never GEMMs. Minimal Kineto
// traces written here, and the DLRM rank-0 files of the external corpus (a 640,649,648-
// element embedding table read through 768 indices).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/ops.hpp"
#include "fomcast/ingest.hpp"
#include "test_support.hpp"
#include "workload_queries.hpp"

using namespace fomcast;
using fomcast::test::find_one;
using fomcast::test::has_note;
using fomcast::test::ScratchDir;

namespace {

// One CPU-only op event with the given Input Dims / Input type / Concrete Inputs.
std::string op(const std::string& name, double ts, const std::string& dims, const std::string& types,
               const std::string& concrete = "") {
  std::string args = R"("Input Dims": )" + dims + R"(, "Input type": )" + types;
  if (!concrete.empty()) args += R"(, "Concrete Inputs": )" + concrete;
  return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) +
         R"(, "dur": 5, "args": {)" + args + "}}";
}

Workload read_trace(const ScratchDir& dir, const std::vector<std::string>& events) {
  std::string text = R"({"schemaVersion": 1, "traceEvents": [)";
  for (std::size_t i = 0; i < events.size(); ++i) text += (i ? ",\n" : "\n") + events[i];
  IngestOptions o;
  o.workload = "t";
  return ingest_files({dir.write("sparse.json", text + "]}")}, o);
}

const EmbeddingShape& rows(const Op& o) {
  REQUIRE(std::holds_alternative<EmbeddingShape>(o.shape));
  return std::get<EmbeddingShape>(o.shape);
}

}  // namespace

TEST_CASE("sparse ops: lookups, index_select, gather and scatter cost the rows they touch") {
  ScratchDir dir;
  const Workload w = read_trace(
      dir, {
               // a 10M x 64 float table, 4096 indices: 2 x 4096 x 64 x 4 bytes, not 2.5 GB
               op("aten::embedding", 0, "[[10000000, 64], [4096]]", R"(["float", "long int"])"),
               op("aten::embedding_bag", 10, "[[10000000, 64], [2048], [33]]", R"(["float", "long int", "long int"])"),
               // index_select along dim 1 of [32, 1000000, 8]: 500 slices of 32 x 8
               op("aten::index_select", 20, "[[32, 1000000, 8], [], [500]]", R"(["float", "Scalar", "long int"])",
                  R"(["", "1", ""])"),
               // gather / scatter_add: one element per index
               op("aten::gather", 30, "[[50000000], [], [1000], []]", R"(["float", "Scalar", "long int", "Scalar"])"),
               op("aten::scatter_add_", 40, "[[50000000], [], [1000], [1000]]",
                  R"(["float", "Scalar", "long int", "float"])"),
           });
  const Op& e = find_one(w, "aten::embedding");
  CHECK(e.kind == OpKind::embedding);
  CHECK(e.bytes == doctest::Approx(2.0 * 4096 * 64 * 4));
  CHECK(find_one(w, "aten::embedding_bag").bytes == doctest::Approx(2.0 * 2048 * 64 * 4));
  const Op& is = find_one(w, "aten::index_select");
  CHECK(rows(is).rows == 1000000);
  CHECK(rows(is).dim == 32 * 8);
  CHECK(rows(is).lookups == 500);
  CHECK(is.bytes == doctest::Approx(2.0 * 500 * 256 * 4));
  CHECK(find_one(w, "aten::gather").bytes == doctest::Approx(2.0 * 1000 * 4));
  CHECK(find_one(w, "aten::scatter_add_").bytes == doctest::Approx(2.0 * 1000 * 4));
}

TEST_CASE("sparse ops: FBGEMM lookups touch their indices' rows; its other ops are not GEMMs") {
  ScratchDir dir;
  // The DLRM worker0 call's recorded inputs (Kineto keeps no scalar values): 768 indices
  // into a 640,649,648-element table of 3 tables (D_offsets [4]); and with the values an
  // execution trace records, total_D = 48 over 3 tables: rows of 16.
  const std::string dims =
      "[[0], [640649648], [0], [0, 0], [3], [3], [4], [], [], [4], [], [768], [385], [], [], [], [0], [], [], [], "
      "[640649648], [0], [3], [3], [], [], []]";
  const std::string types =
      R"(["float", "float", "float", "float", "int", "long int", "int", "Scalar", "Scalar", "long int", "Scalar", )"
      R"("long int", "long int", "Scalar", "", "", "int", "Scalar", "Scalar", "Scalar", "float", "float", "int", )"
      R"("long int", "Scalar", "Scalar", "Scalar"])";
  const std::string values =
      R"(["", "", "", "", "", "", "", "48", "16", "", "26", "", "", "0", "", "", "", "False", "1.0", "True", "", "", )"
      R"("", "", "0.0", "0.005", "0"])";
  const Workload w =
      read_trace(dir, {
                          op("fbgemm::split_embedding_codegen_lookup_adagrad_function", 0, dims, types),
                          op("fbgemm::split_embedding_codegen_lookup_sgd_function", 10, dims, types, values),
                          op("fbgemm::permute_2D_sparse_data", 20, "[[24], [24, 16], [768], [], []]",
                             R"(["int", "int", "int", "", "Scalar"])"),
                          op("fbgemm::asynchronous_complete_cumsum", 30, "[[384]]", R"(["int"])"),
                          op("fbgemm::bounds_check_indices", 40, "[[3], [768], [385], [], [1], []]",
                             R"(["long int", "long int", "long int", "Scalar", "long int", ""])"),
                      });
  const Op& assumed = find_one(w, "fbgemm::split_embedding_codegen_lookup_adagrad_function");
  CHECK(assumed.kind == OpKind::embedding);
  CHECK(rows(assumed).lookups == 768);
  CHECK(rows(assumed).dim == 128);  // not recorded: assumed, and said
  CHECK(assumed.bytes < 1e8);
  CHECK(has_note(w, "do not record their row width"));
  const Op& known = find_one(w, "fbgemm::split_embedding_codegen_lookup_sgd_function");
  CHECK(rows(known).dim == 16);
  CHECK(rows(known).rows == 640649648 / 16);
  CHECK(known.bytes == doctest::Approx(2.0 * 768 * 16 * 4));
  for (const char* name :
       {"fbgemm::permute_2D_sparse_data", "fbgemm::asynchronous_complete_cumsum", "fbgemm::bounds_check_indices"}) {
    INFO(name);
    CHECK(find_one(w, name).kind != OpKind::gemm);
  }
  // The library's name does not make a kernel a GEMM either; its quantized GEMMs still are.
  CHECK(ingest::classify_name("void fbgemm_gpu::permute_2D_data_kernel<int, long>(int)") != OpKind::gemm);
  CHECK(ingest::classify_name("fbgemm::f8f8bf16_rowwise") == OpKind::gemm);
  CHECK(ingest::classify_name("cublasGemmEx") == OpKind::gemm);
}

TEST_CASE("sparse ops: the DLRM rank-0 lookup from its Kineto trace and from its execution trace") {
  const std::string dir = "traces-external/param_dlrm_8ranks/";
  IngestOptions o;
  o.workload = "t";
  // Kineto alone: 768 indices, the row width assumed.
  const Workload k = ingest_files({test::shared_path(dir + "worker0_step_12.1694128201545.pt.trace.json.gz")}, o);
  const Op& lookup = find_one(k, "fbgemm::split_embedding_codegen_lookup_adagrad_function");
  CHECK(rows(lookup).lookups == 768);
  CHECK(lookup.bytes < 1e8);  // was the whole table, 640,649,648 x 4 bytes, read and written
  // The ET alone records total_D = 48 over D_offsets [4] (3 tables): 768 rows of 16 floats.
  const Workload et = ingest_files({test::shared_path(dir + "dlrm_eg_0.json.gz")}, o);
  const Op& l = find_one(et, "fbgemm::split_embedding_codegen_lookup_adagrad_function");
  CHECK(rows(l).dim == 16);
  CHECK(rows(l).lookups == 768);
  CHECK(l.bytes == doctest::Approx(2.0 * 768 * 16 * 4));
  // and dense_embedding_codegen_lookup_function: total_D 32 over 2 tables, 32 indices.
  const Op& d = find_one(et, "fbgemm::dense_embedding_codegen_lookup_function");
  CHECK(rows(d).dim == 16);
  CHECK(rows(d).lookups == 32);
}
