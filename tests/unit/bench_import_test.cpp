// Kernel-table import: the shipped DeepBench CSVs read into entries (with provenance, one
// entry per conv direction and RNN pass), the native CSV, the seed step, and bad input
// refused with file, line and column while the database stays as it was.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "fomcast/bench_import.hpp"
#include "fomcast/error.hpp"
#include "fomcast/store.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
using fomcast::test::slurp;

namespace {

const KernelEntry* find_entry(const std::vector<KernelEntry>& es, const std::string& key, const std::string& precision,
                              const std::string& mode) {
  for (const auto& e : es)
    if (shape_key(e.shape) == key && to_string(e.precision) == precision && to_string(e.mode) == mode) return &e;
  return nullptr;
}

BenchImport shared_table(const char* file, BenchFormat format, const char* platform = "") {
  const std::string path = shared_path(std::string("data/deepbench/") + file);
  return read_bench_csv(slurp(path), path, format, platform);
}

InputError bad(const std::string& text, BenchFormat format, const std::string& platform = "") {
  try {
    read_bench_csv(text, "bad.csv", format, platform);
  } catch (const InputError& e) {
    CHECK(e.file == "bad.csv");
    return e;
  }
  FAIL("no error for: " << text);
  return InputError("", "");
}

const char* kGemmHeader = "platform,mode,precision,m,n,k,a_t,b_t,time_us\n";

}  // namespace

TEST_CASE("DeepBench GEMM results: the README's V100 row, provenance, every platform") {
  const auto t = shared_table("results_gemm.csv", BenchFormat::deepbench_gemm);
  // data/deepbench/README.md, "Two example rows": NV_V100 train fp32 1760x128x1760 NN = 88 us.
  const auto& v100 = t.by_platform.at("NV_V100");
  const auto* e = find_entry(v100, shape_key(GemmShape{1760, 128, 1760}), "fp32", "train");
  REQUIRE(e);
  CHECK(e->time_us == 88);
  CHECK(e->dtype == DType::fp32);
  CHECK(e->provenance.find("DeepBench_NV_V100.xlsx") != std::string::npos);
  CHECK(e->provenance.find("row ") != std::string::npos);
  // fp16_mixed keeps its label and reads as fp16 operands.
  const auto* h = find_entry(v100, shape_key(GemmShape{1760, 128, 1760}), "fp16_mixed", "train");
  REQUIRE(h);
  CHECK(h->dtype == DType::fp16);
  // 2579 data rows (the README's table), none merged: python3 counts no duplicate
  // (platform, mode, precision, m, n, k, a_t, b_t) among them.
  CHECK(t.rows == 2579);
  CHECK(t.entries() == 2579);
  CHECK(t.merged == 0);
  CHECK(t.by_platform.size() == 14);
  CHECK(t.described.at("NV_V100").device_kind == "gpu");
}

TEST_CASE("DeepBench conv results: a training row is three kernels, duplicates merge") {
  const auto t = shared_table("results_conv.csv", BenchFormat::deepbench_conv, "NV_V100");
  REQUIRE(t.by_platform.size() == 1);
  // The README's second example: V100 train fp32, 112x112x64, N=8, K=128, 3x3, pad 1,
  // stride 1 -> fwd 624 us, bwd_data 602 us, bwd_filter 997 us.
  ConvShape c;
  c.n = 8, c.c = 64, c.k = 128, c.input = {1, 112, 112}, c.filter = {1, 3, 3}, c.pad = {0, 1, 1};
  const std::pair<ConvDirection, double> expect[] = {
      {ConvDirection::forward, 624}, {ConvDirection::backward_data, 602}, {ConvDirection::backward_filter, 997}};
  for (const auto& [dir, us] : expect) {
    c.direction = dir;
    const auto* e = find_entry(t.by_platform.at("NV_V100"), shape_key(c), "fp32", "train");
    REQUIRE(e);
    CHECK(e->time_us == us);
    CHECK(e->method.find("WINOGRAD") != std::string::npos);
  }
  // DeepBench lists some shapes twice (the same layer in two applications): those rows
  // merge into one entry per direction whose time is their mean. python3 over the CSV:
  // 185 (platform, shape, direction, precision, mode) keys have two or more rows.
  const auto all = shared_table("results_conv.csv", BenchFormat::deepbench_conv);
  CHECK(all.merged == 185);
}

TEST_CASE("DeepBench RNN and all-reduce results") {
  const auto rnn = shared_table("results_rnn.csv", BenchFormat::deepbench_rnn, "NV_M40");
  const auto& es = rnn.by_platform.at("NV_M40");
  int backward = 0;
  for (const auto& e : es) backward += std::get<RnnShape>(e.shape).backward ? 1 : 0;
  // 53 training rows, each timed forward and backward.
  CHECK(es.size() == 106);
  CHECK(backward == 53);

  const auto ar = shared_table("results_allreduce.csv", BenchFormat::deepbench_allreduce, "NV_M40");
  // results_allreduce.csv: NV_M40, 100000 floats (400000 B) on 2 GPUs: 109.7827 us, std 2.2696.
  const auto* e = find_entry(ar.by_platform.at("NV_M40"),
                             shape_key(CollectiveShape{CollectiveKind::allreduce, 400000, 2}), "fp32", "train");
  REQUIRE(e);
  CHECK(e->time_us == doctest::Approx(109.7827));
  CHECK(e->spread == doctest::Approx(2.2696 / 109.7827));
}

TEST_CASE("the native CSV: every kind, platform from --platform or a column") {
  const std::string text =
      "kind,m,n,k,a_t,b_t,w,h,c,r,s,pad_w,pad_h,wstride,hstride,direction,cell,hidden,batch,timesteps,bytes,ranks,"
      "dtype,time_us\n"
      "gemm,512,64,512,0,1,,,,,,,,,,,,,,,,,fp32,21.5\n"
      "conv,,8,64,,,56,56,64,3,3,1,1,1,1,backward_data,,,,,,,bf16,\"140\"\n"
      "rnn,,,,,,,,,,,,,,,backward,gru,256,32,50,,,fp16_mixed,900\n"
      "allreduce,,,,,,,,,,,,,,,,,,,,1048576,8,fp32,310\n";
  const auto t = read_bench_csv(text, "mine.csv", BenchFormat::csv, "MyBox");
  REQUIRE(t.by_platform.count("MyBox"));
  const auto& es = t.by_platform.at("MyBox");
  REQUIRE(es.size() == 4);
  CHECK(std::get<GemmShape>(es[0].shape).trans_b);
  CHECK(es[0].time_us == 21.5);
  CHECK(std::get<ConvShape>(es[1].shape).direction == ConvDirection::backward_data);
  CHECK(std::get<ConvShape>(es[1].shape).n == 8);  // DeepBench's names: n is the batch for a conv
  CHECK(std::get<ConvShape>(es[1].shape).k == 64);
  CHECK(es[1].dtype == DType::bf16);
  CHECK(std::get<RnnShape>(es[2].shape).backward);
  CHECK(to_string(es[2].precision) == "fp16_mixed");
  CHECK(std::get<CollectiveShape>(es[3].shape).ranks == 8);
  CHECK(es[3].provenance == "mine.csv line 5");
}

TEST_CASE("malformed kernel tables: each error names the file, line and column") {
  const auto g = BenchFormat::deepbench_gemm;
  auto e = bad("", g);
  CHECK(e.message.find("empty") != std::string::npos);
  e = bad(kGemmHeader, g);
  CHECK(e.message.find("no data rows") != std::string::npos);
  e = bad(std::string(kGemmHeader) + "NV_X,train,fp32,10,10,10,0,0,-4\n", g);
  CHECK(e.line == 2);
  CHECK(e.field == "time_us");
  e = bad(std::string(kGemmHeader) + "NV_X,train,fp32,10,10,10,0,0,5\nNV_X,train,fp32,10,ten,10,0,0,5\n", g);
  CHECK(e.line == 3);
  CHECK(e.field == "n");
  e = bad(std::string(kGemmHeader) + "NV_X,train,fp32,10,10,10,0,0,nan\n", g);
  CHECK(e.field == "time_us");
  e = bad(std::string(kGemmHeader) + "NV_X,train,fp32,10,10,10,0,0,inf\n", g);
  CHECK(e.field == "time_us");
  e = bad(std::string(kGemmHeader) + "NV_X,train,fp32,0,10,10,0,0,5\n", g);
  CHECK(e.field == "m");
  e = bad(std::string(kGemmHeader) + "NV_X,train,fp32,99999999999999999999,10,10,0,0,5\n", g);
  CHECK(e.field == "m");
  e = bad(std::string(kGemmHeader) + "NV_X,train,fp64,10,10,10,0,0,5\n", g);
  CHECK(e.field == "precision");
  e = bad(std::string(kGemmHeader) + "NV_X,train,fp32,10,10,10,0,0\n", g);
  CHECK(e.line == 2);
  CHECK(e.message.find("fields") != std::string::npos);
  e = bad(std::string(kGemmHeader) + "\"NV_X,train,fp32,10,10,10,0,0,5\n", g);
  CHECK(e.message.find("unterminated") != std::string::npos);
  e = bad(std::string(kGemmHeader) + "NV_X,train,fp32,10,10,10,0,0,5\n", g, "NV_Y");
  CHECK(e.field == "platform");
  e = bad(std::string("platform,m,n\x00,k\n", 16), g);
  CHECK(e.message.find("NUL") != std::string::npos);
  // A conv file read as GEMM: the header does not have the GEMM columns.
  e = bad(slurp(shared_path("data/deepbench/results_conv.csv")), g);
  CHECK(e.line == 1);
  CHECK(e.field == "m");
  e = bad("kind,dtype,time_us\nfft,fp32,3\n", BenchFormat::csv, "P");
  CHECK(e.field == "kind");
  e = bad("kind,dtype,time_us,m,n,k\ngemm,float99,3,1,1,1\n", BenchFormat::csv, "P");
  CHECK(e.field == "dtype");
  e = bad("kind,dtype,time_us,m,n,k\ngemm,fp32,3,1,1,1\n", BenchFormat::csv);
  CHECK(e.field == "platform");
  // A misspelt column was ignored: every row took its default (no transpose, no padding).
  e = bad("kind,m,n,k,transA,dtype,time_us\ngemm,1760,128,1760,1,fp32,100\n", BenchFormat::csv, "P");
  CHECK(e.line == 1);
  CHECK(e.field == "transA");
  CHECK(e.message.find("unknown column 'transA'") != std::string::npos);
  e = bad("kind,n,k,w,h,c,r,s,padding_w,dtype,time_us\nconv,8,128,112,112,64,3,3,1,fp32,100\n", BenchFormat::csv, "P");
  CHECK(e.field == "padding_w");
}

TEST_CASE("a new database holds every DeepBench table") {
  ScratchDir dir;
  Store store = test::open_seeded(dir.file("seed.db"));
  // Distinct (kind, shape, direction, precision, mode) per platform counted by python3
  // over the four results_*.csv files (a conv row gives up to three kernels, an RNN row
  // two): NV_V100 1052, NV_P100 1100, IA_KNL7250 456, iPhone7 13.
  CHECK(store.kernel_entry_count("NV_V100") == 1052);
  CHECK(store.kernel_entry_count("NV_P100") == 1100);
  CHECK(store.kernel_entry_count("IA_KNL7250") == 456);
  CHECK(store.kernel_entry_count("iPhone7") == 13);
  // And each is attached to a shipped spec, not a placeholder.
  for (const char* p :
       {"NV_TitanX_Maxwell", "NV_M40", "NV_TitanX_Pascal", "NV_TitanXp", "NV_1080Ti", "NV_P100", "NV_V100", "NV_T4",
        "AMD_MI25", "AMD_VegaFE", "IA_KNL7250", "RaspberryPi3", "iPhone6", "iPhone7"}) {
    auto spec = store.platform(p);
    REQUIRE_MESSAGE(spec, p);
    CHECK_MESSAGE(to_string(spec->origin) == "shipped", p);
    CHECK_MESSAGE(store.kernel_entry_count(p) > 0, p);
  }
}

TEST_CASE("fomcast import-bench: good input lands, bad input leaves the database as it was") {
  ScratchDir dir;
  const std::string db = dir.file("i.db");
  REQUIRE(run_fomcast("platforms", db).status == 0);
  const std::string good = dir.write("mine.csv",
                                     "kind,m,n,k,dtype,time_us\n"
                                     "gemm,4096,4096,4096,fp32,9100\n"
                                     "gemm,1024,1024,1024,fp32,160\n"
                                     "gemm,1024,1024,1024,fp32,170\n");
  auto r = run_fomcast("import-bench '" + good + "' --format csv --platform MyBox --json", db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["rows"] == 3);
  CHECK(j["entries"] == 2);  // the two 1024 rows time the same kernel: merged
  CHECK(j["merged"] == 1);
  // A platform the import creates is said: JSON and a note on stderr.
  CHECK(j["new_platforms"] == nlohmann::json::array({"MyBox"}));
  CHECK(r.err.find("note: 'MyBox' is a new platform (2 entries)") != std::string::npos);
  auto p = nlohmann::json::parse(run_fomcast("platforms --json", db).out);
  bool found = false;
  for (const auto& pl : p)
    if (pl["name"] == "MyBox") {
      found = true;
      CHECK(pl["kernel_entries"] == 2);
      CHECK(pl["origin"] == "placeholder");
    }
  CHECK(found);

  // DeepBench rows of one platform only.
  r = run_fomcast("import-bench '" + shared_path("data/deepbench/results_gemm.csv") +
                      "' --format deepbench-gemm --platform iPhone6 --json",
                  db);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(nlohmann::json::parse(r.out)["entries"] == 13);

  const std::string before = test::file_fingerprint(db);
  const std::string broken =
      dir.write("broken.csv", "kind,m,n,k,dtype,time_us\ngemm,8,8,8,fp32,2\ngemm,8,8,x,fp32,2\n");
  r = run_fomcast("import-bench '" + broken + "' --format csv --platform MyBox", db);
  CHECK(r.status == 2);
  CHECK_MESSAGE(r.err.find(broken) != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find(broken + ":3:") != std::string::npos, r.err);
  r = run_fomcast("import-bench '" + good + "' --format deepbench-conv", db);
  CHECK(r.status == 2);
  r = run_fomcast("import-bench '" + good + "' --format xlsx", db);
  CHECK(r.status == 2);
  r = run_fomcast("import-bench '" + dir.file("absent.csv") + "' --format csv --platform P", db);
  CHECK(r.status == 2);
  CHECK(test::file_fingerprint(db) == before);
  // Nothing is created for bad input either.
  const std::string fresh = dir.file("fresh.db");
  CHECK(run_fomcast("import-bench '" + broken + "' --format csv --platform P", fresh).status == 2);
  CHECK(test::file_fingerprint(fresh) == "absent");
}
