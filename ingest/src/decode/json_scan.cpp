// The structural scan behind stream_json_array (big files get it on a reading thread:
// json_reading_thread.cpp). Inside the streamed array the bytes are looked at 64 at a
// time: bit masks of quotes, backslashes and brackets; a quote preceded by an odd run of
// backslashes is escaped; a prefix XOR of the real quotes gives the bytes inside strings;
// the brackets left over are walked bit by bit to follow the nesting depth. Only the few
// bytes between elements are looked at one by one, to check they are whitespace and one
// comma. The rest of the document (a few small top-level values) is read with a plain
// byte loop. The masks use AVX2 where the CPU has it (checked at run time) and SSE2
// otherwise.
#include "decode/json_scan.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "decode/json_reading_thread.hpp"
#include "fomcast/error.hpp"
#include "fomcast/text.hpp"

namespace fomcast::ingest {
namespace {

constexpr std::size_t kChunk = 4 << 20;
constexpr int64_t kThreadedFrom = 8 << 20;  // (expected) JSON bytes from which a reading thread is used
constexpr std::size_t kBlock = 64;
constexpr std::size_t kSlack = kBlock + kJsonPadding;

struct Masks {
  uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

#if defined(__x86_64__)
inline uint64_t movemask16(__m128i v) { return static_cast<uint32_t>(_mm_movemask_epi8(v)) & 0xffffu; }

Masks block_masks_sse2(const char* p) {
  const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), lb = _mm_set1_epi8('{'), ls = _mm_set1_epi8('['),
                rb = _mm_set1_epi8('}'), rs = _mm_set1_epi8(']');
  Masks m;
  for (int i = 0; i < 4; ++i) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    const int shift = 16 * i;
    m.quote |= movemask16(_mm_cmpeq_epi8(v, q)) << shift;
    m.backslash |= movemask16(_mm_cmpeq_epi8(v, bs)) << shift;
    m.open |= movemask16(_mm_or_si128(_mm_cmpeq_epi8(v, lb), _mm_cmpeq_epi8(v, ls))) << shift;
    m.close |= movemask16(_mm_or_si128(_mm_cmpeq_epi8(v, rb), _mm_cmpeq_epi8(v, rs))) << shift;
  }
  return m;
}

__attribute__((target("avx2"))) Masks block_masks_avx2(const char* p) {
  const __m256i q = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\'), lb = _mm256_set1_epi8('{'),
                ls = _mm256_set1_epi8('['), rb = _mm256_set1_epi8('}'), rs = _mm256_set1_epi8(']');
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
  // (No lambda here: it would not inherit the avx2 target.)
#define FOMCAST_MASK64(a, b)                                               \
  (static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(a))) | \
   static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(b))) << 32)
  Masks m;
  m.quote = FOMCAST_MASK64(_mm256_cmpeq_epi8(lo, q), _mm256_cmpeq_epi8(hi, q));
  m.backslash = FOMCAST_MASK64(_mm256_cmpeq_epi8(lo, bs), _mm256_cmpeq_epi8(hi, bs));
  m.open = FOMCAST_MASK64(_mm256_or_si256(_mm256_cmpeq_epi8(lo, lb), _mm256_cmpeq_epi8(lo, ls)),
                          _mm256_or_si256(_mm256_cmpeq_epi8(hi, lb), _mm256_cmpeq_epi8(hi, ls)));
  m.close = FOMCAST_MASK64(_mm256_or_si256(_mm256_cmpeq_epi8(lo, rb), _mm256_cmpeq_epi8(lo, rs)),
                           _mm256_or_si256(_mm256_cmpeq_epi8(hi, rb), _mm256_cmpeq_epi8(hi, rs)));
#undef FOMCAST_MASK64
  return m;
}

using MaskFn = Masks (*)(const char*);
MaskFn pick_masks() { return __builtin_cpu_supports("avx2") ? block_masks_avx2 : block_masks_sse2; }
#else
Masks block_masks_scalar(const char* p) {
  Masks m;
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    switch (p[i]) {
      case '"': m.quote |= bit; break;
      case '\\': m.backslash |= bit; break;
      case '{':
      case '[': m.open |= bit; break;
      case '}':
      case ']': m.close |= bit; break;
      default: break;
    }
  }
  return m;
}
using MaskFn = Masks (*)(const char*);
MaskFn pick_masks() { return block_masks_scalar; }
#endif

inline uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// The characters escaped by a backslash (simdjson's odd-sequence trick): a run of
// backslashes escapes the byte after it when the run is odd. `carry` says the first byte
// of this block is escaped by the previous block's last backslash.
inline uint64_t escaped_bits(uint64_t backslash, uint64_t& carry) {
  if (!backslash) {
    const uint64_t escaped = carry;
    carry = 0;
    return escaped;
  }
  backslash &= ~carry;
  const uint64_t follows_escape = backslash << 1 | carry;
  constexpr uint64_t kEven = 0x5555555555555555ull;
  const uint64_t odd_starts = backslash & ~kEven & ~follows_escape;
  uint64_t even_starts = 0;
  carry = __builtin_add_overflow(odd_starts, backslash, &even_starts) ? 1 : 0;
  const uint64_t invert = even_starts << 1;
  return (kEven ^ invert) & follows_escape;
}

inline bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

std::string printable(char c) {
  if (c >= 32 && c < 127) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned char>(c));
  return buf;
}

class Scanner {
 public:
  Scanner(const InputFile& file, const JsonStreamSpec& spec, const ProgressFn& progress)
      : file_(file), spec_(spec), progress_(progress), stream_(file.stream()), masks_(pick_masks()) {
    cap_ = kChunk;
    buf_.assign(cap_ + kSlack, ' ');
  }

  JsonStreamInfo run(const std::function<void(const JsonElement&)>& on_element) {
    int c = peek();
    if (c < 0) fail_at(pos_, "empty file (no JSON document)");
    // A byte-order mark said "found 0xef", which named no cause.
    if (const std::size_t bom = utf8_bom_length(std::string_view(buf_.data() + pos_, end_ - pos_)); bom > 0) {
      pos_ += bom;
      c = peek();
    }
    if (c == '[') {
      if (!spec_.accept_bare_array) fail_at(pos_, "expected a JSON object with " + wanted_keys() + ", found an array");
      info_.found_array = true;
      ++pos_;
      stream_array(on_element, "the top-level array");
    } else if (c == '{') {
      ++pos_;
      read_object(on_element);
    } else {
      fail_at(pos_, "not JSON: expected '{' or '[' but found " + printable(static_cast<char>(c)));
    }
    c = peek();
    if (c >= 0) fail_at(pos_, "unexpected " + printable(static_cast<char>(c)) + " after the end of the JSON document");
    info_.bytes = base_ + static_cast<int64_t>(end_);
    report_progress();
    return info_;
  }

 private:
  const InputFile& file_;
  const JsonStreamSpec& spec_;
  const ProgressFn& progress_;
  std::unique_ptr<ChunkStream> stream_;
  MaskFn masks_;
  std::vector<char> buf_;
  std::size_t cap_ = 0;  // data capacity; buf_ has kSlack more
  std::size_t pos_ = 0;  // scalar cursor
  std::size_t end_ = 0;  // valid bytes in buf_
  int64_t base_ = 0;     // decompressed offset of buf_[0]
  bool eof_ = false;
  JsonStreamInfo info_;
  std::set<std::string> read_keys_;  // the streamed and captured top-level keys met so far

  [[noreturn]] void fail_at(std::size_t index, const std::string& message) const {
    throw InputError(file_.path(), message + (stream_->gzip() ? " (offset counted in the decompressed data)" : ""), 0,
                     base_ + static_cast<int64_t>(index));
  }

  std::string wanted_keys() const {
    std::string s;
    for (const auto& k : spec_.array_keys) s += (s.empty() ? "a `" : "` or `") + k;
    return s.empty() ? "an array" : s + "` array";
  }

  void report_progress() const {
    if (progress_)
      progress_(static_cast<double>(stream_->compressed_offset()), static_cast<double>(stream_->file_size()),
                "reading " + file_.path());
  }

  // Moves [keep, end_) to the front and reads more; returns how far indices moved.
  // Sets eof_ when nothing more comes.
  std::size_t refill(std::size_t keep) {
    const std::size_t kept = end_ - keep;
    if (keep > 0) {
      std::memmove(buf_.data(), buf_.data() + keep, kept);
      base_ += static_cast<int64_t>(keep);
      end_ = kept;
      pos_ = pos_ >= keep ? pos_ - keep : 0;
    }
    if (end_ + kChunk / 2 > cap_) {
      if (cap_ >= spec_.max_element_bytes + kChunk)
        fail_at(0, "one JSON element is larger than " + std::to_string(spec_.max_element_bytes >> 20) +
                       " MiB; refusing to buffer it");
      cap_ *= 2;
      buf_.resize(cap_ + kSlack, ' ');
    }
    const std::size_t got = stream_->read(buf_.data() + end_, cap_ - end_);
    if (got == 0) eof_ = true;
    end_ += got;
    std::memset(buf_.data() + end_, ' ', kSlack);
    report_progress();
    return keep;
  }

  // Ensures at least one byte at pos_; false at the end of the file.
  bool have_byte() {
    if (pos_ < end_) return true;
    if (eof_) return false;
    refill(pos_);
    return pos_ < end_;
  }

  int peek() {
    for (;;) {
      if (!have_byte()) return -1;
      const char c = buf_[pos_];
      if (!is_ws(c)) return static_cast<unsigned char>(c);
      ++pos_;
    }
  }

  // A string at pos_ (which is '"'); its raw content (escapes kept) goes to out when
  // given. Past `limit` bytes a key is an error; a captured value is just no longer kept.
  void read_string(std::string* out, std::size_t limit, const char* what, bool long_is_error = true) {
    ++pos_;
    bool escape = false;
    std::size_t n = 0;
    for (;;) {
      if (!have_byte()) fail_at(pos_, std::string("file ends inside a string (") + what + ", truncated?)");
      const char c = buf_[pos_];
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        ++pos_;
        return;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        fail_at(pos_, "control character " + printable(c) + " inside a string");
      }
      if (out) {
        if (++n > limit) {
          if (long_is_error) fail_at(pos_, std::string(what) + " is longer than " + std::to_string(limit) + " bytes");
          out->clear();
          out = nullptr;
        } else {
          out->push_back(c);
        }
      }
      ++pos_;
    }
  }

  // Skips one value (any kind), keeping its raw text in capture when not null.
  void skip_value(std::string* capture) {
    const int c = peek();
    if (c < 0) fail_at(pos_, "file ends where a value was expected (truncated?)");
    const std::size_t limit = spec_.max_capture_bytes;
    auto keep = [&](char ch) {
      if (!capture) return;
      if (capture->size() >= limit) {
        capture->clear();
        capture = nullptr;  // too big to keep: skip only
        return;
      }
      capture->push_back(ch);
    };
    if (c == '"') {
      std::string s;
      read_string(capture ? &s : nullptr, limit, "a top-level string value", false);
      if (capture && !s.empty()) *capture = "\"" + s + "\"";
      return;
    }
    if (c == '{' || c == '[') {
      int depth = 0;
      bool in_string = false, escape = false;
      for (;;) {
        if (!have_byte()) fail_at(pos_, "file ends inside a top-level value (truncated?)");
        const char ch = buf_[pos_++];
        keep(ch);
        if (in_string) {
          if (escape)
            escape = false;
          else if (ch == '\\')
            escape = true;
          else if (ch == '"')
            in_string = false;
          continue;
        }
        if (ch == '"') {
          in_string = true;
        } else if (ch == '{' || ch == '[') {
          if (++depth > spec_.max_depth)
            fail_at(pos_ - 1, "JSON nested deeper than " + std::to_string(spec_.max_depth) + " levels");
        } else if (ch == '}' || ch == ']') {
          if (--depth == 0) return;
        }
      }
    }
    // Number or literal: the characters JSON allows in them, up to a delimiter.
    bool any = false;
    while (have_byte()) {
      const char ch = buf_[pos_];
      if (is_ws(ch) || ch == ',' || ch == '}' || ch == ']') break;
      if (ch == '\0' || !std::strchr("0123456789+-.eEtruefalsn", ch))
        fail_at(pos_, "unexpected " + printable(ch) + " where a JSON value was expected");
      keep(ch);
      ++pos_;
      any = true;
    }
    if (!any) fail_at(pos_, "a JSON value was expected");
  }

  void read_object(const std::function<void(const JsonElement&)>& on_element) {
    int c = peek();
    if (c == '}') {
      ++pos_;
      return;
    }
    for (;;) {
      if (c != '"')
        fail_at(pos_, c < 0 ? "file ends inside the top-level object (truncated?)"
                            : "expected a key string but found " + printable(static_cast<char>(c)));
      std::string key;
      read_string(&key, 4096, "a top-level key");
      c = peek();
      if (c != ':')
        fail_at(pos_, c < 0 ? "file ends after a key (truncated?)" : "expected ':' after key \"" + key + "\"");
      ++pos_;
      const bool streamed = std::find(spec_.array_keys.begin(), spec_.array_keys.end(), key) != spec_.array_keys.end();
      const bool captured =
          std::find(spec_.capture_keys.begin(), spec_.capture_keys.end(), key) != spec_.capture_keys.end();
      // A key the reader uses, twice: JSON keeps one, and which the writer meant is not known
      // (a second, empty `traceEvents` went unread).
      if ((streamed || captured) && !read_keys_.insert(key).second)
        fail_at(pos_, "top-level key \"" + key + "\" given twice");
      if (streamed) {
        c = peek();
        if (c != '[') fail_at(pos_, "`" + key + "` is not an array");
        ++pos_;
        info_.found_array = true;
        info_.array_key = key;
        stream_array(on_element, "the `" + key + "` array");
      } else if (captured) {
        std::string raw;
        skip_value(&raw);
        if (!raw.empty()) info_.captured[key] = std::move(raw);
      } else {
        skip_value(nullptr);
      }
      c = peek();
      if (c == '}') {
        ++pos_;
        return;
      }
      if (c != ',')
        fail_at(pos_, c < 0 ? "file ends inside the top-level object (truncated?)"
                            : "expected ',' or '}' but found " + printable(static_cast<char>(c)));
      ++pos_;
      c = peek();
    }
  }

  // The hot loop: pos_ is just past the array's '['. Returns with pos_ just past its ']'.
  void stream_array(const std::function<void(const JsonElement&)>& on_element, const std::string& what) {
    std::size_t p = pos_;  // start of the next block
    uint64_t in_string_carry = 0, escape_carry = 0;
    int depth = 0;
    std::size_t elem_start = 0;
    std::size_t gap = p;  // bytes [gap, next element) must be whitespace and one comma
    bool gap_comma = false, first = true;

    auto check_gap = [&](std::size_t from, std::size_t to) {
      for (std::size_t i = from; i < to; ++i) {
        const char ch = buf_[i];
        if (is_ws(ch)) continue;
        if (ch == ',' && !first && !gap_comma) {
          gap_comma = true;
          continue;
        }
        fail_at(i, "unexpected " + printable(ch) + " in " + what + " (each element must be a JSON object)");
      }
    };
    // Inside an element, the position is the element's start: a file cut short and a
    // file with one damaged quote both end there (a flipped quote turns every string after it
    // inside out), and the end of a whole file pointed nowhere near the damage.
    auto truncated = [&] {
      if (depth > 0)
        fail_at(elem_start, "file ends inside " + what + " after " + std::to_string(info_.elements) +
                                " complete elements: the element that starts here never closes (the file cut short, "
                                "or a quote or bracket in this element damaged)");
      fail_at(end_, "file ends inside " + what + " after " + std::to_string(info_.elements) +
                        " complete elements (truncated?)");
    };

    for (;;) {
      if (p + kBlock > end_ && !eof_) {
        std::size_t keep = p;
        if (depth > 0) {
          keep = elem_start;
          if (p - elem_start > spec_.max_element_bytes)
            fail_at(elem_start, "element " + std::to_string(info_.elements) + " of " + what + " is larger than " +
                                    std::to_string(spec_.max_element_bytes >> 20) + " MiB");
        } else {
          check_gap(gap, p);
          gap = p;
        }
        pos_ = p;
        const std::size_t shift = refill(keep);
        p -= shift;
        gap -= std::min(gap, shift);
        elem_start -= std::min(elem_start, shift);
        continue;
      }
      if (p >= end_) truncated();
      const Masks m = masks_(buf_.data() + p);
      const uint64_t escaped = escaped_bits(m.backslash, escape_carry);
      const uint64_t in_string = prefix_xor(m.quote & ~escaped) ^ in_string_carry;
      in_string_carry = static_cast<uint64_t>(static_cast<int64_t>(in_string) >> 63);
      uint64_t structural = (m.open | m.close) & ~in_string;
      while (structural) {
        const int bit = std::countr_zero(structural);
        structural &= structural - 1;
        const std::size_t at = p + static_cast<std::size_t>(bit);
        const char ch = buf_[at];
        if (ch == '{' || ch == '[') {
          if (depth == 0) {
            if (ch != '{')
              fail_at(at, "element " + std::to_string(info_.elements) + " of " + what + " is not a JSON object");
            check_gap(gap, at);
            if (!first && !gap_comma) fail_at(at, "missing ',' between elements of " + what);
            elem_start = at;
          }
          if (++depth > spec_.max_depth)
            fail_at(at, "JSON nested deeper than " + std::to_string(spec_.max_depth) + " levels inside " + what);
          continue;
        }
        if (depth == 0) {
          if (ch != ']') fail_at(at, "unexpected '}' in " + what);
          check_gap(gap, at);
          if (gap_comma) fail_at(at, "trailing ',' before the end of " + what);
          pos_ = at + 1;  // done: the scalar cursor goes on after ']'
          return;
        }
        if (--depth == 0) {
          JsonElement e;
          e.text = std::string_view(buf_.data() + elem_start, at + 1 - elem_start);
          e.readable = buf_.size() - elem_start;
          e.offset = base_ + static_cast<int64_t>(elem_start);
          e.index = info_.elements++;
          on_element(e);
          gap = at + 1;
          gap_comma = false;
          first = false;
        }
      }
      p += kBlock;
      if (eof_ && p >= end_) truncated();
    }
  }
};

}  // namespace

JsonStreamInfo scan_json_array(const InputFile& file, const JsonStreamSpec& spec,
                               const std::function<void(const JsonElement&)>& on_element, const ProgressFn& progress) {
  Scanner s(file, spec, progress);
  return s.run(on_element);
}

JsonStreamInfo stream_json_array(const InputFile& file, const JsonStreamSpec& spec,
                                 const std::function<void(const JsonElement&)>& on_element,
                                 const ProgressFn& progress) {
  try {
    // A second thread pays off on big files with a second core; small ones stay on one.
    // (A gzip'd trace is some ten times its size once inflated.)
    const int64_t expected = file.file_size() * (file.gzip() ? 10 : 1);
    if (expected > kThreadedFrom && std::thread::hardware_concurrency() > 1)
      return scan_json_array_on_reading_thread(file, spec, on_element, progress);
    return scan_json_array(file, spec, on_element, progress);
  } catch (const InputError& e) {
    if (e.line > 0 || e.byte_offset < 0 || e.file != file.path()) throw;
    int64_t line = 0;
    try {
      line = line_at_offset(file, e.byte_offset);
    } catch (const InputError&) {
      throw e;  // the file cannot be read again (a truncated gzip): no line then
    }
    throw InputError(e.file, e.message, line, e.byte_offset, e.field);
  }
}

std::string json_value_problem(std::string_view text) {
  // Contexts: 'a' an array, 'o' an object. States: what may come next.
  enum class Next { value, value_or_close, comma_or_close, key, key_or_close, colon, end };
  std::vector<char> stack;
  Next next = Next::value;
  auto at = [&](std::size_t i) { return " at character " + std::to_string(i + 1) + " of the value"; };
  auto after_value = [&] { next = stack.empty() ? Next::end : Next::comma_or_close; };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    const bool want_value = next == Next::value || next == Next::value_or_close;
    if (c == '[' || c == '{') {
      if (!want_value) return std::string("unexpected '") + c + "'" + at(i);
      stack.push_back(c == '[' ? 'a' : 'o');
      next = c == '[' ? Next::value_or_close : Next::key_or_close;
    } else if (c == ']' || c == '}') {
      const char ctx = c == ']' ? 'a' : 'o';
      const bool may_close = next == Next::comma_or_close || (ctx == 'a' && next == Next::value_or_close) ||
                             (ctx == 'o' && next == Next::key_or_close);
      if (stack.empty() || stack.back() != ctx || !may_close) return std::string("unexpected '") + c + "'" + at(i);
      stack.pop_back();
      after_value();
    } else if (c == ',') {
      if (next != Next::comma_or_close) return "a comma with no value before it" + at(i);
      next = stack.back() == 'a' ? Next::value : Next::key;
    } else if (c == ':') {
      if (next != Next::colon) return "unexpected ':'" + at(i);
      next = Next::value;
    } else if (c == '"') {
      const bool key = next == Next::key || next == Next::key_or_close;
      if (!want_value && !key) return "a value where a comma belongs" + at(i);
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      if (j >= text.size()) return "an unclosed string" + at(i);
      i = j;
      if (key)
        next = Next::colon;
      else
        after_value();
    } else {
      if (!want_value) return "a value where a comma belongs" + at(i);
      std::size_t j = i;
      while (j < text.size() && std::strchr(",]}: \n\r\t", text[j]) == nullptr) ++j;
      const std::string_view token = text.substr(i, j - i);
      const bool literal = token == "true" || token == "false" || token == "null";
      // A JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
      std::size_t k = 0;
      auto digits = [&] {
        const std::size_t from = k;
        while (k < token.size() && token[k] >= '0' && token[k] <= '9') ++k;
        return k > from;
      };
      bool number = true;
      if (k < token.size() && token[k] == '-') ++k;
      if (k < token.size() && token[k] == '0')
        ++k;
      else
        number = digits();
      if (number && k < token.size() && token[k] == '.') ++k, number = digits();
      if (number && k < token.size() && (token[k] == 'e' || token[k] == 'E')) {
        ++k;
        if (k < token.size() && (token[k] == '+' || token[k] == '-')) ++k;
        number = digits();
      }
      if (!literal && !(number && k == token.size()))
        return "'" + std::string(token.substr(0, 16)) + "' is no JSON value" + at(i);
      i = j - 1;
      after_value();
    }
  }
  if (!stack.empty() || next != Next::end) return "the value ends early";
  return "";
}

int64_t line_at_offset(const InputFile& file, int64_t offset) {
  auto stream = file.stream();
  std::vector<char> buf(1 << 20);
  int64_t line = 1, at = 0;
  while (at < offset) {
    std::size_t n = 0;
    try {
      n = stream->read(buf.data(), buf.size());
    } catch (const InputError&) {
      break;  // a gzip that ends early: the lines read so far are the answer
    }
    if (n == 0) break;
    const std::size_t upto = static_cast<std::size_t>(std::min<int64_t>(static_cast<int64_t>(n), offset - at));
    line += std::count(buf.data(), buf.data() + upto, '\n');
    at += static_cast<int64_t>(n);
  }
  return line;
}

}  // namespace fomcast::ingest
