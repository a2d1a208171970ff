// Reading the fields of one streamed JSON element with simdjson On Demand, for every
// reader: each accessor checks the value's type and throws an InputError naming the file,
// the element's byte offset and the field ("traceEvents[12].dur", "nodes[3].id").
#pragma once

#include <simdjson.h>

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include "decode/json_scan.hpp"
#include "fomcast/error.hpp"

namespace fomcast::ingest {

namespace od = simdjson::ondemand;

// A field's key (raw: escapes unexpanded; no key fomcast reads has any) against a
// literal; the literal's length is known at compile time, so this is a few loads.
template <std::size_t N>
inline bool key_is(const char* key, const char (&literal)[N]) {
  return std::memcmp(key, literal, N - 1) == 0 && key[N - 1] == '"';
}

class FieldReader {
 public:
  // array: the streamed array's name ("traceEvents"); noun: what one element is ("event").
  FieldReader(std::string file, std::string array, std::string noun)
      : file_(std::move(file)), array_(std::move(array)), noun_(std::move(noun)) {}

  // Parses the element in place; the document lives until the next parse.
  od::object parse(const JsonElement& e) {
    element_ = &e;
    if (auto err = parser_.iterate(simdjson::padded_string_view(e.text.data(), e.text.size(), e.readable)).get(doc_))
      fail_json("", err);
    od::object obj;
    if (auto err = doc_.get_object().get(obj)) fail_json("", err);
    return obj;
  }

  const std::string& file() const { return file_; }

  [[noreturn]] void fail(std::string_view field, const std::string& message) const {
    const std::string where = array_ + "[" + std::to_string(element_->index) + "]";
    throw InputError(file_, noun_ + " " + std::to_string(element_->index) + ": " + message, 0, element_->offset,
                     field.empty() ? where : where + "." + std::string(field));
  }
  [[noreturn]] void fail_json(std::string_view field, simdjson::error_code code) const {
    fail(field, std::string("malformed JSON (") + simdjson::error_message(code) + ")");
  }

  od::field field(simdjson::simdjson_result<od::field> result, std::string_view where) const {
    od::field f;
    if (auto err = std::move(result).get(f)) fail_json(where, err);
    return f;
  }

  std::string_view string_of(od::value v, std::string_view field) const {
    std::string_view s;
    if (auto err = v.get_string().get(s)) {
      if (err == simdjson::INCORRECT_TYPE) fail(field, "`" + std::string(field) + "` is not a string");
      fail_json(field, err);
    }
    return s;
  }

  double number_of(od::value v, std::string_view field) const {
    double d = 0;
    if (auto err = v.get_double().get(d)) {
      if (err == simdjson::INCORRECT_TYPE) fail(field, "`" + std::string(field) + "` is not a number");
      fail(field, "`" + std::string(field) + "` is not a valid number (" + simdjson::error_message(err) + ")");
    }
    if (!std::isfinite(d)) fail(field, "`" + std::string(field) + "` is not finite");
    return d;
  }

  // Whole numbers only; some writers print ids as 12.0, which is accepted.
  int64_t integer_of(od::value v, std::string_view field) const {
    int64_t i = 0;
    if (v.get_int64().get(i) == simdjson::SUCCESS) return i;
    od::json_type t;
    if (v.type().get(t) != simdjson::SUCCESS || t != od::json_type::number)
      fail(field, "`" + std::string(field) + "` is not an integer");
    const double d = number_of(v, field);
    if (d != std::floor(d) || std::fabs(d) > 9e15) fail(field, "`" + std::string(field) + "` is not an integer");
    return static_cast<int64_t>(d);
  }

  // The raw text of an array value.
  std::string_view array_text(od::value v, std::string_view field) const {
    od::array a;
    if (auto err = v.get_array().get(a)) {
      if (err == simdjson::INCORRECT_TYPE) fail(field, "`" + std::string(field) + "` is not an array");
      fail_json(field, err);
    }
    std::string_view raw;
    if (auto err = a.raw_json().get(raw)) fail_json(field, err);
    if (const std::string why = json_value_problem(raw); !why.empty()) fail(field, "not JSON: " + why);
    return raw;
  }

  od::json_type type_of(od::value v, std::string_view field) const {
    od::json_type t;
    if (auto err = v.type().get(t)) fail_json(field, err);
    return t;
  }

 private:
  std::string file_, array_, noun_;
  od::parser parser_;
  od::document doc_;
  const JsonElement* element_ = nullptr;
};

}  // namespace fomcast::ingest
