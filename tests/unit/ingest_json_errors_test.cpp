// Bad input to the JSON readers: each is an InputError naming the file and the byte
// offset (and line), exit status 2 from the CLI, and a database left byte-identical. The
// streaming scanner's own corner cases (escapes across 64-byte blocks, elements across
// read chunks) are checked against a file whose elements are known by construction.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "decode/json_scan.hpp"
#include "fomcast/error.hpp"
#include "fomcast/ingest.hpp"
#include "test_support.hpp"

using namespace fomcast;
using fomcast::test::ScratchDir;

namespace {

// A Kineto-looking prefix so that auto-detection picks the kineto reader.
const std::string kHead = R"({"schemaVersion": 1, "deviceProperties": [], "traceEvents": [)"
                          "\n";
std::string op_event(const std::string& ts, const std::string& dur) {
  return R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )" + ts + R"(, "dur": )" + dur +
         R"(, "args": {"External id": 1}})";
}
const std::string kGood = op_event("100", "5");

InputError ingest_error(const std::string& path, const std::string& format = "auto") {
  IngestOptions o;
  o.workload = "bad";
  o.format = format;
  try {
    (void)ingest_files({path}, o);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError for " << path);
  return InputError("", "");
}

bool says(const InputError& e, const std::string& part) {
  return std::string(e.what()).find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("json errors: each bad Kineto input names the file and where") {
  ScratchDir dir;
  struct Case {
    const char* name;
    std::string text;
    const char* message;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"wrong-type.json", kHead + kGood + ",\n" + op_event("200", "\"abc\"") + "]}", "is not a number",
       "traceEvents[1].dur"},
      {"negative.json", kHead + op_event("100", "-5") + "]}", "negative duration", "traceEvents[0].dur"},
      {"absurd-dur.json", kHead + op_event("100", "1e300") + "]}", "is absurd", "traceEvents[0].dur"},
      {"absurd-ts.json", kHead + op_event("1e300", "5") + "]}", "is absurd", "traceEvents[0].ts"},
      {"nan.json", kHead + op_event("100", "NaN") + "]}", "is not a number", "traceEvents[0].dur"},
      {"inf.json", kHead + op_event("100", "1e999") + "]}", "not a valid number", "traceEvents[0].dur"},
      // A GEMM of 1e18 rows was read as such (a 1838-day step on H100); a negative size
      // failed later without a position.
      {"absurd-dims.json",
       kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": )"
               R"({"Input Dims": [[1000000000000000000, 5], [5, 128]]}}]})",
       "is absurd", "traceEvents[0].args.Input Dims"},
      {"negative-dims.json",
       kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": )"
               R"({"Input Dims": [[-5, 5], [5, 128]]}}]})",
       "not a whole number", "traceEvents[0].args.Input Dims"},
      // A size that is not a number (null, NaN, a word, 0x40) was skipped: the op lost its
      // shape and nothing was said.
      {"word-dims.json",
       kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": )"
               R"({"Input Dims": [[hello, 5], [5, 128]]}}]})",
       "not JSON: 'hello' is no JSON value", "traceEvents[0].args.Input Dims"},
      {"null-dims.json",
       kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": )"
               R"({"Input Dims": [[null, 5], [5, 128]]}}]})",
       "size 'null' is not a whole number", "traceEvents[0].args.Input Dims"},
      {"hex-dims.json",
       kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": )"
               R"({"Input Dims": [[0x40, 5], [5, 128]]}}]})",
       "not JSON: '0x40' is no JSON value", "traceEvents[0].args.Input Dims"},
      // A list that mixes sizes and shapes is no shape: it had been read as one (a
      // GenericList of GenericLists nests shapes deeper, as the Chakra trace's
      // record_param_comms outputs do, and reads).
      {"mixed-dims.json",
       kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": )"
               R"({"Input Dims": [[[5], 128], [5, 128]]}}]})",
       "input 1 mixes sizes and lists of sizes", "traceEvents[0].args.Input Dims"},
      {"mixed-deep-dims.json",
       kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 5, "args": )"
               R"({"Input Dims": [[[[5], 6]], [5, 128]]}}]})",
       "input 1 mixes sizes and lists of sizes", "traceEvents[0].args.Input Dims"},
      // A step marker whose number cannot be read, or given twice, was passed over: the
      // steps around it merged into one.
      {"bad-step.json",
       kHead + kGood + ",\n" +
           R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#-1", "pid": 1, "tid": 1, "ts": 90, "dur": 50}]})",
       "not ProfilerStep#<number>", ""},
      {"twice-step.json",
       kHead + kGood + ",\n" +
           R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 90, "dur": 50},)"
           "\n" +
           R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 150, "dur": 50}]})",
       "its number given twice", ""},
      // An op named "" and an event dropped for want of its type.
      {"no-name.json", kHead + R"({"ph": "X", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 100, "dur": 5}]})",
       "without a name", "traceEvents[0].name"},
      {"no-ph.json", kHead + R"({"cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 5}]})",
       "event without `ph`", "traceEvents[0].ph"},
      {"not-array.json", R"({"schemaVersion": 1, "traceEvents": {"ph": "X"}})", "`traceEvents` is not an array", ""},
      {"number-element.json", kHead + kGood + ", 42]}", "each element must be a JSON object", ""},
      {"missing-comma.json", kHead + kGood + " " + kGood + "]}", "missing ','", ""},
      {"trailing-comma.json", kHead + kGood + ",]}", "trailing ','", ""},
      {"trailing-data.json", kHead + kGood + "]} {}", "after the end of the JSON document", ""},
      {"truncated.json", kHead + kGood + ",\n" + kGood.substr(0, 40), "file ends inside", ""},
      {"deep-event.json", kHead + R"({"ph": "X", "args": )" + std::string(100000, '['), "nested deeper than", ""},
      {"deep-top.json", R"({"traceEvents": [], "deviceProperties": )" + std::string(100000, '[') + "]",
       "nested deeper than", ""},
      {"unclosed-string.json", kHead + R"({"ph": "X", "name": "aten::mm}]})", "file ends inside", ""},
  };
  for (const auto& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    const std::string path = dir.write(c.name, c.text);
    const InputError e = ingest_error(path);
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(e.file == path);
    CHECK(e.byte_offset >= 0);
    CHECK(e.line >= 1);
    CHECK(says(e, c.message));
    if (*c.field) CHECK(e.field == std::string(c.field));
  }
}

TEST_CASE("json errors: the recording device's properties, and a file cut before its format shows") {
  ScratchDir dir;
  // A NaN (no JSON) in deviceProperties had dropped the device without a word, and the
  // estimate moved with it; a count of 0 or below made a placeholder platform.
  const auto props = [&](const std::string& name, const std::string& device) {
    return dir.write(name, R"({"schemaVersion": 1, "deviceProperties": [)" + device + R"(], "traceEvents": [)" + "\n" +
                               kGood + "]}");
  };
  const InputError nan = ingest_error(props("nan.json", R"({"name": "AMD Radeon Graphics", "numSms": NaN})"));
  CHECK(says(nan, "`deviceProperties` is not valid JSON"));
  CHECK(nan.field == "deviceProperties");
  const InputError zero = ingest_error(props("zero.json", R"({"name": "AMD Radeon Graphics", "numSms": 0})"));
  CHECK(says(zero, "not a positive whole number"));
  CHECK(zero.field == "deviceProperties[0].numSms");
  const InputError negative =
      ingest_error(props("negative.json", R"({"name": "AMD Radeon Graphics", "totalGlobalMem": -1})"));
  CHECK(negative.field == "deviceProperties[0].totalGlobalMem");
  // A real trace cut at 1,000 bytes, before "traceEvents": truncated, not "not a format".
  const std::string whole =
      test::slurp(test::shared_path("traces/pytorch_kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json"));
  const InputError cut = ingest_error(dir.write("cut.json", whole.substr(0, 1000)));
  CHECK(says(cut, "truncated?"));
  CHECK(cut.byte_offset == 1000);
}

TEST_CASE("json errors: empty, garbage, non-Kineto JSON and a truncated gzip") {
  ScratchDir dir;
  const InputError empty = ingest_error(dir.write("empty.json", ""));
  CHECK(says(empty, "empty file"));
  const InputError blank = ingest_error(dir.write("blank.json", "  \n\n "), "kineto");
  CHECK(says(blank, "empty file"));
  // Garbage is recognised by no reader; forced through the Kineto reader it is not JSON.
  const std::string garbage = dir.write("garbage.json", "this is not a trace\n\x01\x02 at all");
  CHECK(says(ingest_error(garbage), "not a format fomcast reads"));
  const InputError forced = ingest_error(garbage, "kineto");
  CHECK(says(forced, "not JSON"));
  CHECK(forced.byte_offset == 0);
  // 100000 '[' as a whole document, forced as a bare (legacy) event array.
  const InputError brackets = ingest_error(dir.write("brackets.json", std::string(100000, '[')), "kineto");
  CHECK(says(brackets, "is not a JSON object"));
  CHECK(brackets.byte_offset == 1);
  CHECK(says(ingest_error(dir.write("no-events.json", R"({"schemaVersion": 1})"), "kineto"), "no `traceEvents`"));
  // A valid trace whose events hold no operation.
  CHECK(
      says(ingest_error(dir.write("no-ops.json", kHead + R"({"ph": "i", "name": "x", "ts": 1}]})")), "no operations"));
  // A gzip cut in half: the decompressor's error, with the compressed bytes it had and the
  // decompressed byte it stopped at (no compressed offset given as a position in the text).
  const std::string whole =
      test::slurp(test::shared_path("traces/pytorch_kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz"));
  const InputError cut = ingest_error(dir.write("cut.json.gz", whole.substr(0, whole.size() / 2)), "kineto");
  CHECK(says(cut,
             "ends early, after all " + std::to_string(whole.size() / 2) + " compressed bytes, at decompressed byte"));
  CHECK(cut.byte_offset < 0);
}

TEST_CASE("format detection: a trace whose first 64 KiB are one large field is still a Kineto trace") {
  ScratchDir dir;
  const std::string big = dir.write("big-meta.json", R"({"meta": ")" + std::string(100000, 'x') +
                                                         R"(", "schemaVersion": 1, "traceEvents": [)" + kGood + "]}");
  IngestOptions o;
  o.workload = "big";
  const Workload w = ingest_files({big}, o);
  CHECK(w.origin == "kineto");
  CHECK(w.ops.size() == 1);
  // An empty object closing the event array (TensorFlow's trace viewer export ends so) is no event.
  const Workload closed = ingest_files({dir.write("closed.json", kHead + kGood + ", {}]}")}, o);
  CHECK(closed.ops.size() == 1);
  // And a JSON object that is no profile at all is still no format, looked at further.
  CHECK(says(ingest_error(dir.write("other.json", R"({"meta": ")" + std::string(100000, 'x') + R"("})")),
             "not a format fomcast reads"));
}

TEST_CASE("json errors: every duration 0 is no measurement: an error, not ops stored at 0 s") {
  ScratchDir dir;
  const InputError zero =
      ingest_error(dir.write("zero.json", kHead + op_event("100", "0") + ",\n" + op_event("200", "0") + "]}"));
  CHECK(says(zero, "every operation's measured time is 0"));
  // One op of zero time among timed ones is a measurement (a clock's resolution).
  IngestOptions o;
  o.workload = "ok";
  CHECK_NOTHROW(
      (void)ingest_files({dir.write("one-zero.json", kHead + op_event("100", "0") + ",\n" +
                                                         R"({"ph": "X", )"
                                                         R"("cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, )"
                                                         R"("ts": 300, "dur": 4})" +
                                                         "]}")},
                         o));
}

TEST_CASE("json errors: a name of megabytes is a corrupt record, refused before it is classified") {
  ScratchDir dir;
  const InputError long_name = ingest_error(
      dir.write("long.json", kHead + R"({"ph": "X", "cat": "cpu_op", "name": ")" + std::string(100000, 'a') +
                                 R"(", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})"));
  CHECK(says(long_name, "a name of 100000 bytes: no op or kernel name is that long"));
  CHECK(long_name.field == "traceEvents[0].name");
}

TEST_CASE("json errors: the line of an error deep in a file is counted") {
  ScratchDir dir;
  std::string text = kHead;  // line 1: the head, then one event per line
  for (int i = 0; i < 500; ++i) text += kGood + ",\n";
  text += op_event("300", "\"abc\"") + "]}\n";  // the bad event is on line 502
  const InputError e = ingest_error(dir.write("deep.json", text));
  CHECK(e.line == 502);
  CHECK(e.field == "traceEvents[500].dur");
  CHECK(e.byte_offset == static_cast<int64_t>(text.rfind("{\"ph\"")));
}

TEST_CASE("json errors: a big file (read on a second thread) reports the same way") {
  ScratchDir dir;
  // About 12 MB of events (the reading thread starts at 8 MB), the bad one near the end.
  std::string text = kHead;
  const int n = 90000;
  for (int i = 0; i < n; ++i) text += op_event(std::to_string(100 + i), "5") + ",\n";
  REQUIRE(text.size() > (12u << 20) - (2u << 20));
  const std::string bad = text + op_event("7", "-1") + "]}\n";
  const InputError e = ingest_error(dir.write("big-bad.json", bad));
  CHECK(e.field == "traceEvents[" + std::to_string(n) + "].dur");
  CHECK(e.line == n + 2);  // the head is line 1, event i on line i + 2
  CHECK(e.byte_offset == static_cast<int64_t>(text.size()));
  // Cut in the middle of an event: the elements before it are read, then the error.
  const InputError cut = ingest_error(dir.write("big-cut.json", text.substr(0, text.size() - 70)));
  CHECK(says(cut, "file ends inside"));
  CHECK(says(cut, std::to_string(n - 1) + " complete elements"));
  // At the cut element's start (its line and byte), not at the end of the file: a damaged
  // quote ends the file the same way, and the end pointed nowhere near it.
  CHECK(cut.line == n + 1);
  CHECK(cut.byte_offset == static_cast<int64_t>(text.rfind("{\"ph\"", text.size() - 70)));
  std::string flipped = text + kGood + "]}";
  const std::size_t quote = flipped.find("\"name\"", flipped.size() / 2);
  flipped[quote] = '\x02';
  const InputError damaged = ingest_error(dir.write("big-flipped.json", flipped));
  CHECK(says(damaged, "never closes"));
  CHECK(damaged.byte_offset <= static_cast<int64_t>(quote));
  CHECK(damaged.byte_offset > static_cast<int64_t>(quote) - 200);
  // And whole, it reads: one distinct op, n calls.
  IngestOptions o;
  o.workload = "big";
  const Workload w = ingest_files({dir.write("big-good.json", text + kGood + "]}")}, o);
  REQUIRE(w.ops.size() == 1);
  CHECK(w.ops[0].count == n + 1);
}

TEST_CASE("json errors: execution-trace and TF-timeline readers report bad nodes and events") {
  ScratchDir dir;
  const InputError et = ingest_error(
      dir.write("bad-et.json", R"({"schema": "1.0.1", "pid": 1, "nodes": [{"name": "aten::mm", "id": "abc"}]})"));
  CHECK(says(et, "`id` is not an integer"));
  CHECK(et.field == "nodes[0].id");
  // A node's key given twice: JSON keeps one of the two, which is not known.
  const InputError twice = ingest_error(
      dir.write("twice-et.json", R"({"schema": "1.0.1", "pid": 1, "nodes": [{"name": "aten::mm", "id": 1, )"
                                 R"("input_shapes": [[2, 3], [3, 4]], "input_shapes": [[2000, 3], [3, 4000]]}]})"));
  CHECK(says(twice, "`input_shapes` given twice in one node"));
  CHECK(twice.field == "nodes[0].input_shapes");
  const InputError tf = ingest_error(dir.write(
      "bad-tf.json",
      R"({"traceEvents": [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/job:localhost/replica:0/task:0/cpu:0 Compute"}}, )"
      R"({"ph": "X", "cat": "Op", "pid": 1, "tid": 0, "ts": 5, "dur": -1, "name": "MatMul", "args": {"name": "m", "op": "MatMul"}}]})"));
  CHECK(says(tf, "negative duration"));
}

TEST_CASE("json errors: the CLI exits 2 and leaves the database as it was") {
  ScratchDir dir;
  const std::string db = dir.file("f.db");
  // A first, good ingest creates the database.
  auto ok = test::run_fomcast(
      "ingest '" + test::shared_path("traces/pytorch_kineto/hta_triton_example.json.gz") + "' --workload good", db);
  REQUIRE(ok.status == 0);
  const std::string before = test::file_fingerprint(db);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"dur.json", kHead + kGood + ",\n" + op_event("200", "\"abc\"") + "]}"},
      {"cut.json", kHead + kGood + ",\n" + kGood.substr(0, 30)},
      {"empty.json", ""},
      {"deep.json", kHead + R"({"ph": "X", "args": )" + std::string(100000, '[')},
  };
  for (const auto& [name, text] : bad) {
    const std::string file = name;
    CAPTURE(file);
    const std::string path = dir.write(name, text);
    const auto r = test::run_fomcast("ingest '" + path + "' --workload good", db);
    CHECK(r.status == 2);
    CHECK(r.err.find(path) != std::string::npos);
    CHECK(test::file_fingerprint(db) == before);
  }
  // Two files that are not the two halves of one run.
  const auto two = test::run_fomcast(
      "ingest '" + test::shared_path("traces/pytorch_kineto/hta_triton_example.json.gz") + "' '" +
          test::shared_path("traces/tensorflow/tf1_timeline/ikhlestov_CPU_timeline_01.json") + "' --workload good",
      db);
  CHECK(two.status == 2);
  CHECK(test::file_fingerprint(db) == before);
}

TEST_CASE("json scanner: strings, escapes and elements across blocks and read chunks") {
  ScratchDir dir;
  // Element i holds its index, strings with brackets and escaped quotes, a run of
  // backslashes, and (every 23rd) a long string, so that elements straddle the 64-byte
  // blocks and the 4 MiB reads at every possible position.
  std::string text = "{\"other\": {\"a\": [1, 2, {\"b\": \"]}\"}]}, \"traceEvents\": [\n";
  const int n = 60000;
  for (int i = 0; i < n; ++i) {
    if (i) text += (i % 3 ? ",\n" : " ,");
    text += "{\"i\": " + std::to_string(i) + R"(, "s": "a\"}]{[\\", "t": "\\\\\\\"]", "u": [{}, [], ["}"]])";
    if (i % 23 == 0) text += ", \"long\": \"" + std::string(static_cast<std::size_t>(1000 + i % 7001), 'x') + "\"";
    text += "}";
  }
  text += "\n], \"tail\": \"[[[\"}\n";
  const std::string path = dir.write("scan.json", text);
  REQUIRE(text.size() > (8u << 20));
  ingest::JsonStreamSpec spec;
  spec.array_keys = {"traceEvents"};
  spec.capture_keys = {"tail"};
  int64_t count = 0;
  bool in_order = true;
  const auto info = ingest::stream_json_array(ingest::InputFile(path), spec, [&](const ingest::JsonElement& e) {
    const std::string expect = "{\"i\": " + std::to_string(count) + ",";
    in_order &= e.text.substr(0, expect.size()) == expect && e.text.back() == '}';
    in_order &= text.compare(static_cast<std::size_t>(e.offset), e.text.size(), e.text) == 0;
    in_order &= e.readable >= e.text.size() + ingest::kJsonPadding;
    ++count;
  });
  CHECK(count == n);
  CHECK(in_order);
  CHECK(info.elements == n);
  CHECK(info.array_key == "traceEvents");
  CHECK(info.captured.at("tail") == "\"[[[\"");
  CHECK(info.bytes == static_cast<int64_t>(text.size()));
}

TEST_CASE("ingest progress: reported in bytes up to the file's size") {
  const std::string path =
      test::shared_path("traces/pytorch_kineto/hta_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  double last = -1, total = 0;
  int calls = 0;
  bool monotone = true;
  IngestOptions o;
  o.workload = "p";
  o.progress = [&](double done, double of, std::string_view) {
    monotone &= done >= last;
    last = done;
    total = of;
    ++calls;
  };
  (void)ingest_files({path}, o);
  CHECK(calls >= 2);
  CHECK(monotone);
  CHECK(total == doctest::Approx(1152519));  // the .gz's size in bytes (MANIFEST.md)
  CHECK(last == doctest::Approx(total));
}

TEST_CASE("json errors: the arrays a reader takes whole are JSON inside too") {
  // simdjson's on-demand parser hands Input Dims over without checking inside it: a doubled
  // comma read as an op without its shape, a missing one as other sizes.
  ScratchDir dir;
  auto with_dims = [&](const std::string& dims) {
    return dir.write("d.json", kHead +
                                   R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, )"
                                   R"("ts": 100, "dur": 5, "args": {"External id": 1, "Input Dims": )" +
                                   dims + "}}]}");
  };
  for (const auto& c :
       {std::pair{std::string("[[141, 512], [512, 512],, []]"), std::string("a comma with no value before it")},
        std::pair{std::string("[[141 512], [512, 512]]"), std::string("a value where a comma belongs")},
        std::pair{std::string("[[141, 512], [512, 512],]"), std::string("unexpected ']'")}}) {
    const std::string& dims = c.first;
    const std::string& says_what = c.second;
    CAPTURE(dims);
    const InputError e = ingest_error(with_dims(dims));
    CHECK(says(e, says_what));
    CHECK(e.field == "traceEvents[0].args.Input Dims");
    CHECK(e.byte_offset > 0);
  }
  IngestOptions o;
  o.workload = "ok";
  const Workload w = ingest_files({with_dims("[[141, 512], [512, 512]]")}, o);
  REQUIRE(w.ops.size() == 1);
  CHECK(std::holds_alternative<GemmShape>(w.ops[0].shape));
}

TEST_CASE("json errors: a key the reader uses, given twice, is an error: JSON keeps one, which is not known") {
  ScratchDir dir;
  // "dur": 5.8 then 9e8 on one GEMM kernel made a 16.7-minute op in a 4.4 ms pass.
  const InputError dur = ingest_error(dir.write(
      "dur.json", kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, )"
                          R"("dur": 5, "dur": 900000000, "args": {"External id": 1}}]})"));
  CHECK(says(dur, "`dur` given twice in one event"));
  CHECK(dur.field == "traceEvents[0].dur");
  const InputError id = ingest_error(
      dir.write("id.json", kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, )"
                                   R"("dur": 5, "args": {"External id": 1, "External id": 2}}]})"));
  CHECK(says(id, "`args.External id` given twice"));
  // A second, empty traceEvents after the first went unread.
  const InputError top = ingest_error(dir.write("top.json", kHead + kGood + R"(], "traceEvents": []})"));
  CHECK(says(top, "top-level key \"traceEvents\" given twice"));
  CHECK(top.byte_offset > 0);
  // Keys the reader has no use for may repeat (they are skipped unread).
  IngestOptions o;
  o.workload = "ok";
  CHECK_NOTHROW((void)ingest_files(
      {dir.write("other.json",
                 kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, )"
                         R"("dur": 5, "args": {"External id": 1, "Sequence number": 3, "Sequence number": 4}}]})")},
      o));
}

TEST_CASE("json errors: a negative External id or correlation is refused, not read as no id") {
  // -1 is the parser's "no id": a kernel whose correlation was -5 lost its launching op
  // without a word, and an op's External id -3 dropped its ET join.
  ScratchDir dir;
  const InputError ext = ingest_error(dir.write(
      "ext.json", kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, )"
                          R"("dur": 5, "args": {"External id": -3}}]})"));
  CHECK(says(ext, "`args.External id` is negative (-3)"));
  CHECK(ext.field == "traceEvents[0].args.External id");
  CHECK(ext.byte_offset > 0);
  const InputError cor = ingest_error(
      dir.write("cor.json", kHead + kGood +
                                R"(, {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 110, )"
                                R"("dur": 2, "args": {"correlation": -5}}]})"));
  CHECK(says(cor, "`args.correlation` is negative (-5)"));
  CHECK(cor.field == "traceEvents[1].args.correlation");
  // Id 0 is an id.
  IngestOptions o;
  o.workload = "ok";
  CHECK_NOTHROW((void)ingest_files(
      {dir.write("zero.json", kHead + R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, )"
                                      R"("ts": 100, "dur": 5, "args": {"External id": 0}}]})")},
      o));
}

TEST_CASE("json errors: an op a thousand times longer than its pass is a corrupt duration, not a measurement") {
  // One step of 100 us whose op lasts 1,000 s (a "dur" of 1e9): it was read, 16.7 minutes of
  // GEMM in a step. A step's ops may overlap over threads and streams, not a thousand deep.
  ScratchDir dir;
  const InputError e = ingest_error(dir.write(
      "long.json",
      kHead + R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, )"
              R"("dur": 100},)"
              R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 1000000000, )"
              R"("args": {"External id": 1}}]})"));
  CHECK(says(e, "times the pass (100 us): an event's duration is corrupt (the longest: 'aten::mm', 16.7 min"));
}

TEST_CASE("json value check: JSON's grammar, small") {
  using fomcast::ingest::json_value_problem;
  for (const char* ok : {"[]", "[1, -2.5e3, 0, true, null]", R"([["a", {"k": [1, {}]}], "x\"]"])", "{}", "[[], []]"})
    CHECK_MESSAGE(json_value_problem(ok).empty(), ok);
  for (const char* bad : {"[1,,2]", "[1 2]", "[1,]", "[", "[1]]", R"({"a" 1})", R"({"a": 1,})", "[01]", "[NaN]", "[1.]",
                          R"(["open])", "{1: 2}"})
    CHECK_MESSAGE(!json_value_problem(bad).empty(), bad);
}

TEST_CASE("execution traces: a node tree that is no tree is an error naming the node") {
  // The shared simple_add ET (38 nodes, root id 1 its own parent), edited: a cycle or a
  // dangling parent made ops vanish or count twice, a repeated id went unnoticed.
  const nlohmann::json good =
      nlohmann::json::parse(test::slurp(test::shared_path("traces/pytorch_et/hta_benchmark_simple_add_et.json")));
  ScratchDir dir;
  auto error_of = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = good;
    edit(j);
    return ingest_error(dir.write("et.json", j.dump()), "pytorch-et");
  };
  auto nodes = [](nlohmann::json& j) -> nlohmann::json& { return j["nodes"]; };
  const std::size_t last = good["nodes"].size() - 1;
  int64_t last_id = 0;  // the latest node (the file ends with the root, id 1)
  for (const auto& n : good["nodes"]) last_id = std::max(last_id, n["id"].get<int64_t>());
  const InputError twice = error_of([&](nlohmann::json& j) { nodes(j)[last]["id"] = j["nodes"][5]["id"]; });
  CHECK(says(twice, "given twice"));
  CHECK(twice.field == "nodes[" + std::to_string(last) + "]");
  CHECK(twice.byte_offset > 0);
  const InputError later = error_of([&](nlohmann::json& j) { nodes(j)[5]["parent"] = last_id; });
  CHECK(says(later, "is a later node"));
  CHECK(later.field == "nodes[5]");
  const InputError missing = error_of([&](nlohmann::json& j) { nodes(j)[5]["parent"] = 99999; });
  CHECK(says(missing, "parent 99999 of node id"));
  CHECK(says(missing, "is no node of the trace"));
  const InputError root = error_of([&](nlohmann::json& j) { nodes(j)[5]["parent"] = j["nodes"][5]["id"]; });
  CHECK(says(root, "has no parent but itself, a second root"));
  // Every node without a parent (-1), or without the key: each became a root, and the ops a
  // wrapper calls counted beside it (9 ops for 4, the estimate 2.5x).
  const InputError orphans = error_of([&](nlohmann::json& j) {
    for (auto& n : nodes(j)) n["parent"] = -1;
  });
  CHECK(says(orphans, "a second root"));
  const InputError no_parent = error_of([&](nlohmann::json& j) { nodes(j)[5].erase("parent"); });
  CHECK(says(no_parent, "node without a `parent`"));
  CHECK(no_parent.field.find("nodes[5]") == 0);
  const InputError no_name = error_of([&](nlohmann::json& j) { nodes(j)[5].erase("name"); });
  CHECK(says(no_name, "node without a `name`"));
  const InputError negative = error_of([&](nlohmann::json& j) { nodes(j)[5]["id"] = -36; });
  CHECK(says(negative, "a negative id (-36)"));
  CHECK(negative.field == "nodes[5].id");
  // A Chakra JSON trace whose record_param_comms give a world size of 10^15 (the last Int of
  // its arguments): "allgather 4 B x 10^15 ranks" was stored.
  nlohmann::json chakra = nlohmann::json::parse(
      test::slurp(test::shared_path("traces/chakra/chakra_1.0.2-chakra.0.0.4_allgather_et.json")));
  for (auto& n : chakra["nodes"])
    if (n["name"] == "record_param_comms" && n["inputs"]["values"].size() == 8)
      n["inputs"]["values"][7] = 1000000000000000;
  const InputError ranks = ingest_error(dir.write("chakra.json", chakra.dump()), "chakra-json");
  CHECK(says(ranks, "over 1000000000000000 ranks: no job has that many"));
  // An unsigned attribute given as -1 read as "no rf_id" (the node's Kineto join dropped).
  nlohmann::json unsigned_attr = nlohmann::json::parse(
      test::slurp(test::shared_path("traces/chakra/chakra_1.0.2-chakra.0.0.4_allgather_et.json")));
  for (auto& n : unsigned_attr["nodes"])
    for (auto& a : n["attrs"])
      if (a["name"] == "rf_id") a["value"] = -1;
  const InputError negative_rf = ingest_error(dir.write("rf.json", unsigned_attr.dump()), "chakra-json");
  CHECK(says(negative_rf, "a negative value (-1) where the schema's is unsigned"));
  CHECK(negative_rf.field.find("attrs.rf_id") != std::string::npos);
  // The file as it is reads; a format that is none says which are.
  IngestOptions o;
  o.workload = "ok";
  o.format = "KINETO";
  try {
    (void)ingest_files({test::shared_path("traces/pytorch_et/hta_benchmark_simple_add_et.json")}, o);
    FAIL("no error for --format KINETO");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("unknown format 'KINETO' (auto, model, kineto, pytorch-et") != std::string::npos);
  }
  o.format = "auto";
  CHECK_NOTHROW((void)ingest_files({test::shared_path("traces/pytorch_et/hta_benchmark_simple_add_et.json")}, o));
}
