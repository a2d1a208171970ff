// cProfile/pstats, TAU profile.N.C.T and pprof text on the real files. Expected numbers are
// the files' own rows (quoted), or sums over them as noted.
#include <doctest/doctest.h>

#include <cmath>

#include "fomcast/error.hpp"
#include "ingest_text_support.hpp"
#include "test_support.hpp"
#include "workload_queries.hpp"

using namespace fomcast;
using fomcast::test::has_note;
using fomcast::test::ingest_one;
using fomcast::test::op_named;
using fomcast::test::shared_path;

TEST_CASE("cProfile of tuned Chainer on the K computer: dot is the GEMM, passes from the backward pass") {
  const auto w = ingest_one(shared_path("fixtures/seed-formats/cprofile_chainer_tuned.txt"));
  CHECK(w.origin == "cprofile");
  CHECK(w.ops.size() == 5);
  // "12000   18.170 ... variable.py:968(_backward_main)": one backward per training step.
  CHECK(w.passes == 12000);
  // "102000  166.800  0.002  166.800  0.002 {method 'dot' of 'numpy.ndarray' objects}"
  const Op& dot = op_named(w, "{method 'dot' of 'numpy.ndarray' objects}");
  CHECK(dot.kind == OpKind::gemm);
  CHECK(dot.count * w.passes == doctest::Approx(102000));
  CHECK(*dot.self_time_s * 102000 == doctest::Approx(166.8));
  CHECK(dot.count == doctest::Approx(8.5));  // 3 forward + 5 backward GEMMs, plus evaluation passes
  // "72000   60.730 ... optimizers/adam.py:53(adam_kro2)": Adam, 6 parameter arrays per step.
  const Op& adam = op_named(w, "optimizers/adam.py:53(adam_kro2)");
  CHECK(adam.kind == OpKind::optimizer);
  CHECK(adam.phase == Phase::optimizer);
  CHECK(adam.count == doctest::Approx(6));
  CHECK(op_named(w, "variable.py:968(_backward_main)").phase == Phase::backward);
  CHECK(op_named(w, "function_node.py:201(apply)").kind == OpKind::other);
  // Self times per pass add up to the sum of tottime over passes.
  CHECK(w.measured_op_time_s() * 12000 == doctest::Approx(166.8 + 60.73 + 38.49 + 18.17 + 16.73));
}

TEST_CASE("pstats listing with header lines and the total/primitive ncalls form") {
  const auto w = ingest_one(shared_path("traces/cprofile/hatchet_cprofile-cycle.pstats.cumulative.txt"));
  CHECK(w.ops.size() == 9);
  CHECK(w.passes == 1);
  // "101204007 function calls (1004007 primitive calls) in 23.045 seconds"
  REQUIRE(w.pass_s);
  CHECK(*w.pass_s == doctest::Approx(23.045));
  // "101202000/1002000   22.739    0.000   22.739    0.000 pstats_reader_test.py:27(recursive)"
  const Op& rec = op_named(w, "pstats_reader_test.py:27(recursive)");
  CHECK(rec.count == 101202000);
  CHECK(*rec.self_time_s * rec.count == doctest::Approx(22.739));
  CHECK(op_named(w, "{method 'disable' of '_lsprof.Profiler' objects}").count == 1);
}

TEST_CASE("a pstats listing printed into a program's log: the log before it and after its table is not read") {
  // The shared listing with a training log around it, its "Ordered by" line pasted into
  // Markdown ("##    Ordered by"), as a cluster job's output file keeps it.
  const std::string listing = test::slurp(shared_path("traces/cprofile/hatchet_cprofile-cycle.pstats.cumulative.txt"));
  test::ScratchDir dir;
  std::string text = "# Parameters\n\n    Play for :   4000 games.\n    epoch 1 loss 0.31\n    epoch 2 loss 0.29\n\n";
  std::string body = listing;
  if (const auto at = body.find("Ordered by:"); at != std::string::npos) body.insert(at, "##    ");
  text += body + "\n\n    Run time :     74430 sec.\n    Turnaround time :   141799 sec.\n";
  const auto w = ingest_one(dir.write("job.out", text), "cprofile");
  CHECK(w.ops.size() == 9);
  REQUIRE(w.pass_s);
  CHECK(*w.pass_s == doctest::Approx(23.045));
  CHECK(has_note(w, "lines before the pstats listing (the program's own output) skipped"));
  CHECK(has_note(w, "2 lines after the listing's table (past its blank line) ignored"));
}

TEST_CASE("pstats callers listing: per-caller lines summed give the same totals") {
  const auto w = ingest_one(shared_path("traces/cprofile/hatchet_cprofile-cycle.pstats.callers.txt"));
  // 9 functions, of which e() and contextlib __exit__ have no caller lines: 7 ops.
  CHECK(w.ops.size() == 7);
  // recursive <- 1001000 0.238 (g), 1000 0.000 (f), 100200000/1002000 22.501 (itself):
  // 101202000 calls and 22.739 s, as the cumulative listing of the same profile says.
  const Op& rec = op_named(w, "pstats_reader_test.py:27(recursive)");
  CHECK(rec.count == 1001000 + 1000 + 100200000);
  CHECK(*rec.self_time_s * rec.count == doctest::Approx(0.238 + 0.000 + 22.501));
  CHECK(*op_named(w, "pstats_reader_test.py:12(g)").self_time_s * 1000 == doctest::Approx(0.257));
}

TEST_CASE("the binary .pstats (Python marshal) reads like its rendered listing") {
  const auto bin = ingest_one(shared_path("traces/cprofile/hatchet_cprofile-cycle.pstats"));
  const auto txt = ingest_one(shared_path("traces/cprofile/hatchet_cprofile-cycle.pstats.cumulative.txt"));
  CHECK(bin.origin == "cprofile");
  // marshal.load gives 9 entries; ('pstats_reader_test.py', 27, 'recursive'):
  // (1002000, 101202000, 22.7388, 22.7388); the sum of all tottime is 23.045403 s.
  REQUIRE(bin.ops.size() == 9);
  const Op& rec = op_named(bin, "pstats_reader_test.py:27(recursive)");
  CHECK(rec.count == 101202000);
  CHECK(*rec.self_time_s * rec.count == doctest::Approx(22.7388));
  REQUIRE(bin.pass_s);
  CHECK(*bin.pass_s == doctest::Approx(23.045403));
  // Built-ins ('~', 0, '<...>') print as {...}, as pstats does.
  CHECK(op_named(bin, "{built-in method builtins.next}").count == 1);
  // Same names and counts as the text pstats rendered from it (times there are rounded).
  for (const auto& op : txt.ops) {
    CAPTURE(op.name);
    CHECK(op_named(bin, op.name).count == op.count);
    // pstats prints tottime to 3 decimals: within half a millisecond.
    CHECK(std::abs(*op_named(bin, op.name).self_time_s * op.count - *op.self_time_s * op.count) <= 0.0005);
  }
}

TEST_CASE("a corrupt or truncated .pstats is an error at a byte offset") {
  test::ScratchDir dir;
  const std::string whole = test::slurp(shared_path("traces/cprofile/hatchet_cprofile-cycle.pstats"));
  for (const std::size_t cut : {std::size_t{3}, whole.size() / 2, whole.size() - 1}) {
    const std::string p = dir.write("cut.pstats", whole.substr(0, cut));
    try {
      (void)ingest_one(p);
      FAIL("no error at " << cut);
    } catch (const InputError& e) {
      CHECK(e.file == p);
      CHECK(e.byte_offset >= 0);
    }
  }
  // A reference to an object not yet read, and a code object: refused.
  for (const auto& bad : {std::string("\xfb\x29\x03r\x05\x00\x00\x00", 8), std::string("{)<\0\0", 5)}) {
    const std::string p = dir.write("bad.pstats", bad);
    CHECK_THROWS_AS((void)ingest_one(p, "cprofile"), InputError);
  }
}

TEST_CASE("TAU 2.29 profile with call paths and message-size user events") {
  const auto w = ingest_one(shared_path("traces/tau/hatchet_tau-cpi-mpi_profile.0.0.0"));
  CHECK(w.origin == "tau");
  // 23 timers: .TAU application, 11 flat timers and 11 "A => B" call paths.
  CHECK(w.events == 23 + 2);
  CHECK(w.ops.size() == 11);
  CHECK(w.passes == 1);
  // ".TAU application" 1 7 449 51781: the run is 51781 us.
  REQUIRE(w.pass_s);
  CHECK(*w.pass_s == doctest::Approx(51781e-6));
  // "MPI_File_open()" 1 0 27490 27490
  CHECK(*op_named(w, "MPI_File_open()").self_time_s == doctest::Approx(27490e-6));
  // "Message size for broadcast" 1 4 4 4 16 -> MPI_Bcast carries 4 bytes; reduce 8.
  const Op& bcast = op_named(w, "MPI_Bcast()");
  CHECK(bcast.kind == OpKind::collective);
  CHECK(std::get<CollectiveShape>(bcast.shape).op == CollectiveKind::broadcast);
  CHECK(std::get<CollectiveShape>(bcast.shape).bytes == 4);
  CHECK(std::get<CollectiveShape>(op_named(w, "MPI_Reduce()").shape).bytes == 8);
  // Flat exclusive times (root excluded): 17983+31+25+298+218+473+4458+296+27490+33+27 us.
  CHECK(w.measured_op_time_s() == doctest::Approx(51332e-6));
}

TEST_CASE("TAU point-to-point sizes per destination size the timer their call path ends in") {
  // TAU 2.22 writes "Message size sent to node 7 : ... => MPI_Sendrecv()" (mpi-factoring's
  // profile.0.0.0): the Sendrecv had no payload before.
  test::ScratchDir dir;
  const std::string p =
      dir.write("profile.0.0.0",
                "2 templated_functions_MULTI_TIME\n"
                "# Name Calls Subrs Excl Incl ProfileCalls #\n"
                "\".TAU application\" 1 1 10 1000 0 GROUP=\"TAU_DEFAULT\"\n"
                "\"MPI_Sendrecv() \" 64 0 990 990 0 GROUP=\"MPI\"\n"
                "0 aggregates\n"
                "2 userevents\n"
                "# eventname numevents max min mean sumsqr\n"
                "\"Message size sent to all nodes\" 64 500000 500000 500000 16000000000000\n"
                "\"Message size sent to node 7 : .TAU application => main [{main.cpp} {31,0}] => MPI_Sendrecv()  \" 64 "
                "500000 500000 500000 16000000000000\n");
  const auto w = ingest_one(p);
  const Op& sr = op_named(w, "MPI_Sendrecv()");
  REQUIRE(std::holds_alternative<CollectiveShape>(sr.shape));
  CHECK(std::get<CollectiveShape>(sr.shape).bytes == 500000);
}

TEST_CASE("TAU 2.18 profile: quoted C signatures with commas and parentheses") {
  const auto w = ingest_one(shared_path("traces/tau/tau2_opencl_fft_profile.0.0.0"));
  CHECK(w.ops.size() == 20);  // 21 timers less .TAU application
  // "cl_int clBuildProgram(cl_program, cl_uint, const cl_device_id *, const char *, void (*)(cl_program, void *) C,
  // void *) C" 1 0 3714749
  const Op& build = op_named(w,
                             "cl_int clBuildProgram(cl_program, cl_uint, const cl_device_id *, const char *, void "
                             "(*)(cl_program, void *) C, void *) C");
  CHECK(*build.self_time_s == doctest::Approx(3.714749));
  // "... clEnqueueReadBuffer(...) C" 10 0 56292: a device-to-host copy, 10 calls.
  const Op& rd = op_named(w,
                          "cl_int clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, "
                          "cl_uint, const cl_event *, cl_event *) C");
  CHECK(rd.kind == OpKind::memcpy);
  CHECK(rd.count == 10);
  CHECK(*w.pass_s == doctest::Approx(5.963579));
}

TEST_CASE("TAU thread profile (profile.0.0.1) and a 2.26 profile with MAX/MIN markers") {
  const auto t = ingest_one(shared_path("traces/tau/tau2_taudb_test_profile.0.0.1"));
  CHECK(t.ops.size() == 1);
  CHECK(*op_named(t, "compute OpenMP region").self_time_s == doctest::Approx(1.120473));
  CHECK(*t.pass_s == doctest::Approx(2.581083));

  const auto w = ingest_one(shared_path("traces/tau/tau2_workflow_consolidation_xmain_0_profile.0.0.0"));
  CHECK(w.ops.size() == 26);  // 27 timers less .TAU application
  // "MPI_Allreduce()  " 1016 0 11858110: the top op, an all-reduce of 16 bytes on average
  // ("Message size for all-reduce" 1016 48 4 16.2244094488189 ...).
  const Op& ar = op_named(w, "MPI_Allreduce()");
  CHECK(ar.count == 1016);
  CHECK(*ar.self_time_s * 1016 == doctest::Approx(11.858110));
  CHECK(std::get<CollectiveShape>(ar.shape).op == CollectiveKind::allreduce);
  CHECK(std::get<CollectiveShape>(ar.shape).bytes == 16);
  CHECK(op_named(w, "MPI_Barrier()").kind == OpKind::collective);
  CHECK(op_named(w, "ADIOS write").kind == OpKind::other);
  const auto ranked = rank_ops(w);
  CHECK(w.ops[ranked.front().index].name == "MPI_Allreduce()");
}

TEST_CASE("pprof text of Neon AlexNet on a P100: GPU kernels classified, unmeasured ones say so") {
  const auto w = ingest_one(shared_path("fixtures/seed-formats/tau_pprof_neon_alexnet.txt"));
  CHECK(w.origin == "pprof");
  CHECK(w.events == 29);
  CHECK(w.ops.size() == 28);  // .TAU application is the run, not an op
  for (const char* n : {"sgemm_nn_128x128_vec", "sgemm_nt_128x128_vec", "sgemm_tn_128x128_vec"}) {
    CHECK(op_named(w, n).kind == OpKind::gemm);
    CHECK(op_named(w, n).count == 15);
    CHECK_FALSE(op_named(w, n).self_time_s);  // printed "0 0": not measured
  }
  for (const char* n : {"sconv_direct_fprop_64x128", "sconv_direct_bprop_64x128", "sconv_winograd_3x3_4x4_32x32",
                        "sconv_direct_updat_64x32"})
    CHECK(op_named(w, n).kind == OpKind::conv);
  CHECK(op_named(w, "sconv_direct_bprop_64x128").phase == Phase::backward);
  CHECK(op_named(w, "spool_fprop_max").kind == OpKind::pooling);
  CHECK(op_named(w, "Memory copy Host to Device").kind == OpKind::memcpy);
  // "50.0    1.725E+05    1.725E+05          10           0      17253 sconv_direct_fprop_64x128"
  const Op& conv = op_named(w, "sconv_direct_fprop_64x128");
  CHECK(conv.count == 10);
  CHECK(*conv.self_time_s * 10 == doctest::Approx(0.1725));
  // "100.0    3.451E+05    3.451E+05           5  ... copy transpose"
  CHECK(*op_named(w, "copy transpose").self_time_s * 5 == doctest::Approx(0.3451));
}

TEST_CASE("pprof -s of threads that ran side by side: the pass is the root's time per thread, not its total") {
  // A FUNCTION SUMMARY (total) over four pthreads adds their root timers: '.TAU application'
  // 11,900 ms over 4 calls (one a thread) for a run whose main thread took 2,982 ms. Read as
  // the total, the pass was 4x the run.
  test::ScratchDir dir;
  const std::string p =
      dir.write("pprof.txt",
                "FUNCTION SUMMARY (total):\n"
                "-----------------------------------------------------------------------------\n"
                "%Time    Exclusive    Inclusive       #Call      #Subrs  Inclusive Name\n"
                "              msec   total msec                          usec/call \n"
                "-----------------------------------------------------------------------------\n"
                "100.0        0.593       11,900           4           4    2975091 .TAU application\n"
                " 57.6        6,860        6,860           4           0    1715062 compute\n"
                " 40.0        4,762        4,762           4           0    1190562 compute_interchange\n"
                " 25.1        0.398        2,982           1           7    2982759 main\n");
  const auto w = ingest_one(p);
  CHECK(*w.pass_s == doctest::Approx(11.900 / 4));
  CHECK(test::has_note(w, "over the 4 threads that entered it"));
  // The ops keep the threads' summed time: the work done, on four threads at once.
  CHECK(op_named(w, "compute").count * *op_named(w, "compute").self_time_s == doctest::Approx(6.860));
}

TEST_CASE("cProfile: a function named for nothing in an optimizer's module is the optimizer") {
  // "update" says nothing; "chainer/optimizer.py" does (read as kind other, phase forward).
  test::ScratchDir dir;
  const std::string p = dir.write("opt.txt",
                                  "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
                                  "      100    2.000    0.020    2.000    0.020 chainer/optimizer.py:30(update)\n"
                                  "      100    1.000    0.010    1.000    0.010 model.py:12(forward)\n");
  const auto w = ingest_one(p);
  const Op& update = op_named(w, "chainer/optimizer.py:30(update)");
  CHECK(update.kind == OpKind::optimizer);
  CHECK(update.phase == Phase::optimizer);
  CHECK(op_named(w, "model.py:12(forward)").kind == OpKind::other);
}
