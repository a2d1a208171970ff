// The store: round trips of every shape kind, migrations, refusing files that are not
// fomcast databases, atomic writes, parallel writers losing nothing, and SQLite's own
// failures told apart from bad input.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <sqlite3.h>

#include "fomcast/embedded.hpp"
#include "fomcast/error.hpp"
#include "fomcast/store.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ScratchDir;

namespace {

Workload sample_workload(const std::string& name) {
  Workload w;
  w.name = name;
  w.origin = "test";
  w.source = "unit test";
  w.recorded_on = "NV_K20X";
  w.batch_size = 100;
  w.samples_per_epoch = 2700;
  w.epochs = 3;
  w.passes = 5;
  w.pass_s = 0.125;
  w.events = 1234;
  w.notes = {"made by hand"};
  ModelStats m;
  m.params = 244400085;
  m.forward_macs = 1.5e9;
  m.weights_bytes = 977600340;
  w.model = m;

  Op gemm{"aten::addmm", OpKind::gemm, GemmShape{100, 2000, 60483, 1, false, true}, DType::fp32, Phase::forward, 1,
          0.0123};
  ConvShape cs;
  cs.dims = 2;
  cs.n = 8;
  cs.c = 64;
  cs.k = 128;
  cs.input = {1, 112, 112};
  cs.filter = {1, 3, 3};
  cs.pad = {0, 1, 1};
  cs.direction = ConvDirection::backward_filter;
  Op conv{"ConvolutionBackward0", OpKind::conv, cs, DType::bf16, Phase::backward, 2, 0.004};
  Op rnn{"lstm", OpKind::rnn, RnnShape{RnnCell::lstm, 512, 512, 16, 25}, DType::fp16, Phase::forward, 1, std::nullopt};
  Op add{"aten::add_", OpKind::elementwise, TensorShape{{{100, 2000}, {2000}}}, DType::fp32, Phase::forward, 3, 1e-5};
  Op coll{"nccl:all_reduce",
          OpKind::collective,
          CollectiveShape{CollectiveKind::allreduce, 1 << 20, 8},
          DType::fp32,
          Phase::backward,
          1,
          2e-4};
  Op emb{"embedding", OpKind::embedding, EmbeddingShape{30522, 768, 16384}, DType::fp32, Phase::forward, 1, 1e-4};
  Op other{"prepare", OpKind::other, std::monostate{}, DType::unknown, Phase::other, 1, 0.2};
  w.ops = {gemm, conv, rnn, add, coll, emb, other};
  for (auto& op : w.ops) fill_costs(op);
  return w;
}

// Workloads other than the shipped models a new database is seeded with.
std::size_t user_workloads(const Store& s) {
  std::size_t n = 0;
  for (const auto& w : s.workloads()) n += !w.shipped;
  return n;
}

}  // namespace

TEST_CASE("a new database is created, migrated and seeded from the embedded data") {
  ScratchDir dir;
  Store s = test::open_seeded(dir.file("new.db"));
  CHECK(s.meta("shipped_data_hash") == embedded_data_hash());
  auto k20x = s.platform("NV_K20X");
  REQUIRE(k20x);
  CHECK(to_string(k20x->origin) == "shipped");
  CHECK(k20x->peak_flop_per_s.at(DType::fp32).value == doctest::Approx(3.95e12));
  REQUIRE(k20x->mem_bw_bytes_per_s);
  CHECK(k20x->mem_bw_bytes_per_s->value == doctest::Approx(250e9));
  CHECK(!k20x->mem_bw_bytes_per_s->source.empty());
  CHECK(s.platform("A"));
}

TEST_CASE("workloads round-trip with every shape kind") {
  ScratchDir dir;
  Store s = test::open_seeded(dir.file("w.db"));
  const Workload w = sample_workload("roundtrip");
  s.put_workload(w);
  auto back = s.workload("roundtrip");
  REQUIRE(back);
  CHECK(back->origin == "test");
  CHECK(back->recorded_on == "NV_K20X");
  CHECK(back->passes == 5);
  CHECK(*back->pass_s == doctest::Approx(0.125));
  REQUIRE(back->model);
  CHECK(back->model->params == 244400085);
  REQUIRE(back->ops.size() == w.ops.size());
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    CAPTURE(i);
    CHECK(back->ops[i].name == w.ops[i].name);
    CHECK(back->ops[i].kind == w.ops[i].kind);
    CHECK(back->ops[i].shape == w.ops[i].shape);
    CHECK(back->ops[i].dtype == w.ops[i].dtype);
    CHECK(back->ops[i].phase == w.ops[i].phase);
    CHECK(back->ops[i].count == w.ops[i].count);
    CHECK(back->ops[i].self_time_s == w.ops[i].self_time_s);
    CHECK(back->ops[i].flops == doctest::Approx(w.ops[i].flops));
  }
  // Replacing by name keeps one copy.
  s.put_workload(w);
  CHECK(user_workloads(s) == 1);
  CHECK(s.delete_workload("roundtrip"));
  CHECK(!s.workload("roundtrip"));
}

TEST_CASE("a failed write inside a transaction leaves nothing behind") {
  ScratchDir dir;
  Store s = test::open_seeded(dir.file("t.db"));
  CHECK_THROWS_AS(s.transaction([&] {
    s.put_workload(sample_workload("half"));
    throw InputError("x", "fails midway");
  }),
                  InputError);
  CHECK(!s.workload("half"));
  // A kernel entry with a non-positive time is refused and rolls back the whole batch.
  KernelEntry good{
      OpKind::gemm, GemmShape{64, 64, 64}, DType::fp32, KernelPrecision::fp32, KernelMode::train, 10, 0, "test", "t"};
  KernelEntry bad = good;
  bad.shape = GemmShape{128, 64, 64};
  bad.time_us = 0;
  CHECK_THROWS_AS(s.put_kernel_entries("NV_K20X", {good, bad}, TableOrigin::imported), InputError);
  CHECK(s.kernel_table("NV_K20X").entries.empty());
}

TEST_CASE("files that are not fomcast databases are refused by name") {
  ScratchDir dir;
  const std::string garbage = dir.write("garbage.db", std::string(5000, 'x'));
  try {
    Store::open(garbage);
    FAIL("opened garbage");
  } catch (const InputError& e) {
    CHECK(e.file == garbage);
    CHECK(std::string(e.what()).find("not a fomcast database") != std::string::npos);
  }
  CHECK_THROWS_AS(Store::open(dir.path.string()), InputError);  // a directory
  // An nsys export is an SQLite file with other tables: refused, and left unchanged.
  const std::string nsys =
      fomcast::test::shared_path("traces/nsys_sqlite/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite");
  const std::string copy = dir.file("nsys.sqlite");
  std::filesystem::copy_file(nsys, copy);
  const std::string before = fomcast::test::file_fingerprint(copy);
  CHECK_THROWS_AS(Store::open(copy), InputError);
  CHECK(fomcast::test::file_fingerprint(copy) == before);
}

TEST_CASE("parallel writers in separate processes all land") {
  ScratchDir dir;
  const std::string db = dir.file("p.db");
  constexpr int kWriters = 4, kEach = 15;
  std::vector<pid_t> kids;
  for (int p = 0; p < kWriters; ++p) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int rc = 0;
      try {
        Store s = test::open_seeded(db);  // first-open races included: several may create at once
        for (int i = 0; i < kEach; ++i)
          s.put_workload(sample_workload("w" + std::to_string(p) + "_" + std::to_string(i)));
        s.put_kernel_entries("bench" + std::to_string(p),
                             {KernelEntry{OpKind::gemm, GemmShape{p + 1, 8, 8}, DType::fp32, KernelPrecision::fp32,
                                          KernelMode::train, 1.0, 0, "t", "t"}},
                             TableOrigin::measured);
      } catch (...) {
        rc = 1;
      }
      _exit(rc);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int status = 0;
    waitpid(k, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  Store s = test::open_seeded(db);
  CHECK(user_workloads(s) == kWriters * kEach);
  for (int p = 0; p < kWriters; ++p) CHECK(s.kernel_entry_count("bench" + std::to_string(p)) == 1);
}

TEST_CASE("a placeholder platform is created for an unknown name and reported as such") {
  ScratchDir dir;
  Store s = test::open_seeded(dir.file("pl.db"));
  Platform p = s.ensure_platform("MyCluster");
  CHECK(p.placeholder());
  CHECK(s.platform("MyCluster")->placeholder());
  // ensure_platform never overwrites an existing one.
  CHECK(to_string(s.ensure_platform("NV_K20X").origin) == "shipped");
}

TEST_CASE("an SQLite failure the file does not explain is an internal error (exit 3), not bad input") {
  ScratchDir dir;
  const std::string db = dir.file("broken.db");
  {
    Store s = test::open_seeded(db);
    CHECK(s.fom_records().empty());
  }
  // A fomcast database whose table lost a column by hand: the statements that read it no
  // longer prepare. (A lost table is named when the store opens: database_health_test.)
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "ALTER TABLE fom_records RENAME COLUMN label TO label_was", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
  sqlite3_close(raw);
  {
    Store s = Store::open(db);
    CHECK_THROWS_AS(s.fom_records(), StoreError);
    try {
      s.fom_records();
    } catch (const InputError&) {
      FAIL("a failed prepare reported as bad input");
    } catch (const StoreError& e) {
      CHECK(e.path == db);
      CHECK(std::string(e.what()).find("preparing a query") != std::string::npos);
    }
  }
  const auto r = fomcast::test::run_fomcast("history", db);
  CHECK(r.status == 3);
  CHECK(r.err.find("fomcast: internal error: ") == 0);
  // Bad input stays exit 2: a file that is not a database at all.
  const std::string garbage = dir.write("garbage.db", std::string(5000, 'x'));
  const auto g = fomcast::test::run_fomcast("history", garbage);
  CHECK(g.status == 2);
  CHECK(g.err.find("not a fomcast database") != std::string::npos);
}
