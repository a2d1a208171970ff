// A bounded Python marshal decoder (format version 2-4, as CPython 3 writes it) and the
// pstats layout on top. Every length is checked against the bytes left, nesting is limited
// and references must point back, so a corrupt or hostile file is an error, never a crash.
#include "python/pstats_marshal.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "decode/text_scan.hpp"
#include "fomcast/error.hpp"

namespace fomcast::ingest::pstats {
namespace {

constexpr int kMaxDepth = 32;                // pstats nests 4 deep
constexpr unsigned char kFlagRef = 0x80;     // "remember this object" (marshal version 3+)
constexpr std::size_t kMaxItems = 1u << 24;  // far beyond any profile

struct Value {
  enum class Type { none, boolean, number, text, sequence, dict, other } type = Type::none;
  double number = 0;
  std::string text;
  std::vector<std::shared_ptr<const Value>> items;  // dict: key, value, key, value, ...
};
using ValuePtr = std::shared_ptr<const Value>;

class Decoder {
 public:
  Decoder(std::string_view in, const std::string& file) : in_(in), file_(file) {}

  ValuePtr read(int depth = 0) {
    if (depth > kMaxDepth) fail("nested too deeply");
    const std::size_t at = pos_;
    const unsigned char code = byte();
    const bool ref = code & kFlagRef;
    auto v = std::make_shared<Value>();
    std::size_t slot = 0;
    auto reserve = [&] {  // containers take their reference slot before their items
      if (ref) {
        slot = refs_.size();
        refs_.push_back(nullptr);
      }
    };
    bool singleton = false;  // None, True, ...: never remembered, flag or not (as CPython)
    switch (code & ~kFlagRef) {
      case 'N':
      case 'S':
      case '.': singleton = true; break;
      case 'F':
      case 'T':
        singleton = true;
        v->type = Value::Type::boolean;
        v->number = (code & ~kFlagRef) == 'T';
        break;
      case 'i':
        v->type = Value::Type::number;
        v->number = static_cast<int32_t>(u32());
        break;
      case 'I':
        v->type = Value::Type::number;
        v->number = static_cast<double>(static_cast<int64_t>(u64()));
        break;
      case 'l': {  // arbitrary precision: signed digit count, 15-bit digits, least significant first
        const auto n = static_cast<int32_t>(u32());
        if (n < -1000 || n > 1000) fail("implausible integer size");
        double value = 0, scale = 1;
        for (int32_t k = 0; k < std::abs(n); ++k, scale *= 32768.0) {
          const unsigned d = u16();
          if (d >= 32768) fail("bad integer digit");
          value += d * scale;
        }
        v->type = Value::Type::number;
        v->number = n < 0 ? -value : value;
        break;
      }
      case 'g': {
        const uint64_t bits = u64();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        v->type = Value::Type::number;
        v->number = d;
        break;
      }
      case 'f': {
        const auto f = text::parse_number(take(byte()));
        if (!f) fail("bad float");
        v->type = Value::Type::number;
        v->number = *f;
        break;
      }
      case 'y':
        take(16);
        v->type = Value::Type::other;
        break;
      case 'x':
        take(byte());
        take(byte());
        v->type = Value::Type::other;
        break;
      case 's':
      case 't':
      case 'u':
      case 'a':
      case 'A':
        v->type = Value::Type::text;
        v->text = std::string(take(u32()));
        break;
      case 'z':
      case 'Z':
        v->type = Value::Type::text;
        v->text = std::string(take(byte()));
        break;
      case '(':
      case '[':
      case '<':
      case '>':
      case ')': {
        const std::size_t n = (code & ~kFlagRef) == ')' ? byte() : u32();
        if (n > kMaxItems || n > in_.size() - pos_) fail("implausible item count");
        reserve();
        v->type = Value::Type::sequence;
        for (std::size_t k = 0; k < n; ++k) v->items.push_back(read(depth + 1));
        if (ref) refs_[slot] = v;
        return v;
      }
      case '{': {
        reserve();
        v->type = Value::Type::dict;
        while (true) {
          if (pos_ < in_.size() && static_cast<unsigned char>(in_[pos_]) == '0') {
            ++pos_;
            break;
          }
          if (v->items.size() / 2 >= kMaxItems) fail("implausible dict size");
          v->items.push_back(read(depth + 1));
          v->items.push_back(read(depth + 1));
        }
        if (ref) refs_[slot] = v;
        return v;
      }
      case 'r': {
        const uint32_t index = u32();
        if (index >= refs_.size() || !refs_[index]) fail("reference to an unknown object");
        return refs_[index];
      }
      default:
        pos_ = at;
        fail("unsupported marshal type '" + std::string(1, static_cast<char>(code & ~kFlagRef)) + "'");
    }
    if (ref && !singleton) refs_.push_back(v);
    return v;
  }

  std::size_t pos() const { return pos_; }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(file_, "malformed .pstats (Python marshal): " + what, 0, static_cast<int64_t>(pos_));
  }

 private:
  std::string_view take(std::size_t n) {
    if (n > in_.size() - pos_) fail("the data ends early (truncated?)");
    const std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  unsigned byte() { return static_cast<unsigned char>(take(1)[0]); }
  uint64_t le(std::size_t n) {
    const std::string_view s = take(n);
    uint64_t v = 0;
    for (std::size_t k = n; k-- > 0;) v = (v << 8) | static_cast<unsigned char>(s[k]);
    return v;
  }
  unsigned u16() { return static_cast<unsigned>(le(2)); }
  uint32_t u32() { return static_cast<uint32_t>(le(4)); }
  uint64_t u64() { return le(8); }

  std::string_view in_;
  const std::string& file_;
  std::size_t pos_ = 0;
  std::vector<ValuePtr> refs_;
};

// pstats.func_std_string: built-ins are ('~', 0, '<name>') and print as {name}.
std::string display_name(const Value& key) {
  const auto& file = key.items[0]->text;
  const auto& func = key.items[2]->text;
  const double line = key.items[1]->number;
  if (file == "~" && line == 0) {
    if (func.size() >= 2 && func.front() == '<' && func.back() == '>')
      return "{" + func.substr(1, func.size() - 2) + "}";
    return func;
  }
  const auto l = text::to_integer(line);
  return file + ":" + (l ? std::to_string(*l) : std::string("?")) + "(" + func + ")";
}

}  // namespace

bool looks_like_marshal(std::string_view head) {
  if (head.size() < 2) return false;
  const auto b0 = static_cast<unsigned char>(head[0]), b1 = static_cast<unsigned char>(head[1]);
  // A dict ('{', perhaps flagged) whose first key is a tuple, or an empty dict.
  return (b0 == '{' || b0 == ('{' | kFlagRef)) && ((b1 & ~kFlagRef) == '(' || (b1 & ~kFlagRef) == ')' || b1 == '0');
}

std::vector<Entry> read_marshal(std::string_view bytes, const std::string& file) {
  Decoder d(bytes, file);
  const ValuePtr top = d.read();
  if (d.pos() != bytes.size()) d.fail(std::to_string(bytes.size() - d.pos()) + " bytes after the statistics");
  if (top->type != Value::Type::dict) d.fail("not a dict of function statistics");
  std::vector<Entry> out;
  for (std::size_t k = 0; k + 1 < top->items.size(); k += 2) {
    const Value& key = *top->items[k];
    const Value& val = *top->items[k + 1];
    if (key.type != Value::Type::sequence || key.items.size() != 3 || key.items[0]->type != Value::Type::text ||
        key.items[1]->type != Value::Type::number || key.items[2]->type != Value::Type::text)
      d.fail("entry " + std::to_string(k / 2) + ": the key is not (file, line, function)");
    Entry e;
    e.name = display_name(key);
    if (val.type != Value::Type::sequence || val.items.size() < 4)
      d.fail("'" + e.name + "': the statistics are not (primitive calls, calls, tottime, cumtime, ...)");
    double n[4];
    for (int i = 0; i < 4; ++i) {
      const Value& x = *val.items[static_cast<std::size_t>(i)];
      if (x.type != Value::Type::number || !std::isfinite(x.number) || x.number < 0 || x.number > 1e15)
        d.fail("'" + e.name + "': statistic " + std::to_string(i) + " is not a plausible non-negative number");
      n[i] = x.number;
    }
    e.primitive_calls = n[0], e.calls = n[1], e.tottime_s = n[2], e.cumtime_s = n[3];
    if (e.primitive_calls > e.calls) d.fail("'" + e.name + "': more primitive calls than calls");
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace fomcast::ingest::pstats
