// simdjson On Demand over one event: fields are visited once, in file order, and only
// the ones named here are decoded; everything else is skipped without being copied.
#include "pytorch/trace_event.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>

#include "decode/json_fields.hpp"

namespace fomcast::ingest {

// A bad number as a message shows it: "1e+308", "-5", not 300 digits.
std::string brief(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// A size past the limits is a damaged or hand-edited trace; read as it is, it would be a GEMM
// of 1e18 rows.
std::string dims_problem(std::string_view text) {
  constexpr double kMaxDim = 1099511627776.0, kMaxElements = 1125899906842624.0;  // 2^40, 2^50
  double elements = 1;
  int depth = 0;
  int64_t input = 0;  // the outer list's element a size is in, from 1
  // Per list open at each depth: whether it has held sizes or lists. A tensor's sizes are
  // numbers, a list's entries are shapes (a GenericList of GenericLists nests them deeper); a
  // list of both ([[[5]], 128]) is no shape. Past kMaxDepth nothing is checked: the JSON
  // scanner bounds nesting.
  constexpr std::size_t kMaxDepth = 16;
  enum class Held : char { nothing, sizes, lists };
  std::array<Held, kMaxDepth + 1> held{};
  auto at = [&](int d) {
    return static_cast<std::size_t>(d) <= kMaxDepth ? &held[static_cast<std::size_t>(d)] : nullptr;
  };
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '[') {
      if (Held* h = at(depth); h && depth >= 1) {
        if (depth > 1 && *h == Held::sizes) return "input " + std::to_string(input) + " mixes sizes and lists of sizes";
        *h = Held::lists;
      }
      if (Held* next = at(depth + 1)) *next = Held::nothing;
      if (++depth == 2) ++input;
      elements = 1;
      ++i;
      continue;
    }
    if (c == ']' && elements > kMaxElements) return "a tensor of " + brief(elements) + " elements is absurd";
    if (c == '"') return "a size is a string, not a whole number";
    if (c == ']') --depth;
    if (c == ']' || c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      ++i;
      continue;
    }
    // Each input is a list of sizes ([] for a scalar): a bare number in the outer list
    // ([[5], 128]) is no tensor's shape, and had been dropped without a word.
    if (depth == 1) {
      std::size_t end = i;
      while (end < text.size() && end - i < 16 && std::strchr(",] \n\r\t", text[end]) == nullptr) ++end;
      return "input " + std::to_string(input + 1) + " is '" + std::string(text.substr(i, end - i)) +
             "', not a list of sizes";
    }
    // Anything else that is not a number (null, true, NaN, Infinity, a word, an object)
    // would have been skipped, leaving the op without a shape and no word said.
    if (c != '-' && c != '.' && (c < '0' || c > '9')) {
      std::size_t end = i;
      while (end < text.size() && end - i < 16 && std::strchr(",] \n\r\t", text[end]) == nullptr) ++end;
      return "size '" + std::string(text.substr(i, end - i)) + "' is not a whole number >= 0";
    }
    std::size_t end = i;
    while (end < text.size() && std::strchr(",] \n\r\t", text[end]) == nullptr) ++end;
    const std::string number(text.substr(i, end - i));
    char* stop = nullptr;
    const double d = std::strtod(number.c_str(), &stop);
    const bool decimal = number.find_first_not_of("0123456789.eE+-") == std::string::npos;  // not 0x40
    if (!decimal || stop != number.c_str() + number.size() || !std::isfinite(d) || d != std::floor(d) || d < 0)
      return "size '" + number + "' is not a whole number >= 0";
    if (d > kMaxDim) return "size " + number + " is absurd (over 2^40)";
    if (Held* h = at(depth)) {
      if (*h == Held::lists) return "input " + std::to_string(input) + " mixes sizes and lists of sizes";
      *h = Held::sizes;
    }
    elements *= d;
    i = end;
  }
  return "";
}

// CUPTI's per-instruction-type SASS counters, as Kineto's range profiler writes them:
// "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" and the like.
constexpr std::string_view kSassOps = "smsp__sass_thread_inst_executed_op_";

struct TraceEventParser::Impl {
  FieldReader r;
  TraceEvent ev;

  // One floating-point instruction counter: a count of thread instructions, each one
  // operation (add, mul) or two (fma). Counters of other instructions are not FLOPs.
  void add_counter(const char* key, od::value v) {
    // A raw key ends at its closing quote (these keys hold no escapes).
    const std::string_view k(key, static_cast<std::size_t>(std::strchr(key, '"') - key));
    const std::string_view op = k.substr(kSassOps.size(), 4);
    static constexpr std::string_view kFlopOps[] = {"dadd", "dmul", "dfma", "fadd", "fmul",
                                                    "ffma", "hadd", "hmul", "hfma"};
    if (std::find(std::begin(kFlopOps), std::end(kFlopOps), op) == std::end(kFlopOps)) return;
    const std::string field = "args." + std::string(k);
    const double n = r.number_of(v, field);
    if (n < 0) r.fail(field, "negative instruction count");
    if (ev.counted_flops < 0) ev.counted_flops = 0;
    ev.counted_flops += op.ends_with("fma") ? 2 * n : n;
  }

  explicit Impl(std::string file) : r(std::move(file), "traceEvents", "event") {}

  // A byte count, informative only: ROCm writes it as a string ("2560"); anything that is
  // not a plain non-negative integer is ignored rather than trusted.
  static int64_t size_of(od::value v) {
    int64_t i = -1;
    if (v.get_int64().get(i) == simdjson::SUCCESS) return i >= 0 ? i : -1;
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS || s.empty() || s.size() > 18) return -1;
    int64_t n = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return -1;
      n = n * 10 + (c - '0');
    }
    return n;
  }

  // External id / correlation: counts from 0. A negative one is read as no id at all (-1 is
  // the parser's "none"), so the kernels it names would silently lose their op; refused.
  int64_t id_of(od::value v, std::string_view field) const {
    const int64_t id = r.integer_of(v, field);
    if (id < 0)
      r.fail(field, "`" + std::string(field) + "` is negative (" + std::to_string(id) + "): ids count from 0");
    return id;
  }

  // args "name" / "op": strings when they are strings (metadata and TF events); other
  // writers put other things there, which fomcast does not need.
  std::string_view optional_string(od::value v, std::string_view field) const {
    return r.type_of(v, field) == od::json_type::string ? r.string_of(v, field) : std::string_view();
  }

  // pid / tid: a number or a string; the digits either way.
  std::string_view token_of(od::value v, std::string_view field) const {
    const od::json_type t = r.type_of(v, field);
    if (t == od::json_type::string) return r.string_of(v, field);
    if (t == od::json_type::number) {
      std::string_view raw = v.raw_json_token();
      while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
        raw.remove_suffix(1);
      return raw;
    }
    r.fail(field, "`" + std::string(field) + "` is neither a number nor a string");
  }

  // A key the reader decodes, given twice in one object: JSON keeps one of the two, and
  // which the writer meant is not known ("dur": 5.8, "dur": 9e8 made a 16.7-minute GEMM).
  void once(uint32_t& seen, uint32_t bit, const char* field) const {
    if (seen & bit) r.fail(field, "`" + std::string(field) + "` given twice in one event");
    seen |= bit;
  }

  void parse_args(od::value v) {
    od::object args;
    if (auto err = v.get_object().get(args)) {
      if (err == simdjson::INCORRECT_TYPE) r.fail("args", "`args` is not an object");
      r.fail_json("args", err);
    }
    uint32_t seen = 0;
    for (auto result : args) {
      od::field field = r.field(std::move(result), "args");
      const char* k = field.key().raw();
      od::value value = field.value();
      switch (k[0]) {
        case 'E':
          if (key_is(k, "External id"))
            once(seen, 1, "args.External id"), ev.external_id = id_of(value, "args.External id");
          break;
        case 'e':
          if (key_is(k, "external id"))
            once(seen, 1, "args.External id"), ev.external_id = id_of(value, "args.External id");
          break;
        case 'c':
          if (key_is(k, "correlation"))
            once(seen, 2, "args.correlation"), ev.correlation = id_of(value, "args.correlation");
          break;
        case 'I':
          if (key_is(k, "Input Dims")) {
            once(seen, 4, "args.Input Dims");
            ev.input_dims = r.array_text(value, "args.Input Dims");
            if (const std::string why = dims_problem(ev.input_dims); !why.empty()) r.fail("args.Input Dims", why);
          } else if (key_is(k, "Input type"))
            ev.input_types = r.array_text(value, "args.Input type");
          else if (key_is(k, "Input Strides"))
            ev.input_strides = r.array_text(value, "args.Input Strides");
          else if (key_is(k, "In msg nelems"))
            ev.comm.in_nelems = r.integer_of(value, "args.In msg nelems");
          break;
        case 'C':
          if (key_is(k, "Concrete Inputs"))
            ev.concrete_inputs = r.array_text(value, "args.Concrete Inputs");
          else if (key_is(k, "Collective name"))
            ev.comm.collective = r.string_of(value, "args.Collective name");
          break;
        case 'b':
          if (key_is(k, "bytes")) once(seen, 8, "args.bytes"), ev.bytes = size_of(value);
          break;
        case 'd':
          if (key_is(k, "dtype"))
            ev.comm.dtype = r.string_of(value, "args.dtype");
          else if (key_is(k, "device"))
            ev.has_device = true;
          break;
        case 's':
          if (std::strncmp(k, kSassOps.data(), kSassOps.size()) == 0) add_counter(k, value);
          break;
        case 'O':
          if (key_is(k, "Out msg nelems")) ev.comm.out_nelems = r.integer_of(value, "args.Out msg nelems");
          break;
        case 'G':
          if (key_is(k, "Group size"))
            once(seen, 16, "args.Group size"), ev.comm.group_size = r.integer_of(value, "args.Group size");
          break;
        case 'n':
          if (key_is(k, "name")) ev.arg_name = optional_string(value, "args.name");
          break;
        case 'o':
          if (key_is(k, "op")) ev.arg_op = optional_string(value, "args.op");
          break;
        default: break;
      }
    }
  }

  const TraceEvent& parse(const JsonElement& e) {
    ev = TraceEvent{};
    uint32_t seen = 0;
    int64_t keys = 0;
    for (auto result : r.parse(e)) {
      ++keys;
      od::field field = r.field(std::move(result), "");
      const char* k = field.key().raw();
      od::value value = field.value();
      switch (k[0]) {
        case 'p':
          if (key_is(k, "ph")) {
            once(seen, 1, "ph");
            const std::string_view ph = r.string_of(value, "ph");
            ev.ph = ph.empty() ? 0 : ph[0];
          } else if (key_is(k, "pid")) {
            once(seen, 2, "pid");
            ev.pid = token_of(value, "pid");
          }
          break;
        case 'c':
          if (key_is(k, "cat")) once(seen, 4, "cat"), ev.cat = r.string_of(value, "cat");
          break;
        case 'n':
          if (key_is(k, "name")) once(seen, 8, "name"), ev.name = r.string_of(value, "name");
          break;
        case 't':
          if (key_is(k, "tid")) {
            once(seen, 16, "tid");
            ev.tid = token_of(value, "tid");
          } else if (key_is(k, "ts")) {
            once(seen, 32, "ts");
            ev.ts = r.number_of(value, "ts");
            ev.has_ts = true;
          }
          break;
        case 'd':
          if (key_is(k, "dur")) {
            once(seen, 64, "dur");
            ev.dur = r.number_of(value, "dur");
            ev.has_dur = true;
          }
          break;
        case 'a':
          if (key_is(k, "args")) once(seen, 128, "args"), parse_args(value);
          break;
        default: break;
      }
    }
    if (ev.has_ts && ev.ts < 0) r.fail("ts", "negative timestamp " + brief(ev.ts) + " us");
    if (ev.has_ts && ev.ts > kMaxTimestampUs)
      r.fail("ts", "timestamp " + brief(ev.ts) + " us is absurd (past the year 5000)");
    // The Chrome trace format's event type: every event has one. Without it the event was
    // dropped without a word; a complete event without a name became an op named "".
    // An empty object is no event: writers end the array with `{}` to spare a trailing comma
    // (TensorFlow's trace viewer export does). Its type is none the readers take.
    if (keys == 0) {
      ev.ph = '-';
      return ev;
    }
    if (ev.ph == 0) r.fail("ph", "event without `ph` (its type: \"X\" for a complete event, ...)");
    // The longest kernel names (CUTLASS templates) run to some kilobytes; a 50 MB "name" is a
    // corrupt record, and classifying it took 23 s.
    if (ev.name.size() > kMaxNameBytes)
      r.fail("name", "a name of " + std::to_string(ev.name.size()) + " bytes: no op or kernel name is that long");
    if (ev.ph == 'X') {
      if (ev.name.empty()) r.fail("name", "complete event ('X') without a name");
      if (!ev.has_ts) r.fail("ts", "complete event ('X') without `ts`");
      if (!ev.has_dur) r.fail("dur", "complete event ('X') without `dur`");
      if (ev.dur < 0) r.fail("dur", "negative duration " + brief(ev.dur) + " us");
      if (ev.dur > kMaxDurationUs) r.fail("dur", "duration " + brief(ev.dur) + " us is absurd (over a year)");
    }
    return ev;
  }
};

TraceEventParser::TraceEventParser(std::string file) : impl_(std::make_unique<Impl>(std::move(file))) {}
TraceEventParser::~TraceEventParser() = default;
const TraceEvent& TraceEventParser::parse(const JsonElement& e) { return impl_->parse(e); }

}  // namespace fomcast::ingest
