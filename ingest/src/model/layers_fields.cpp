// Field-by-field reading of model-description objects; every error names file and JSON path.
#include "layers_fields.hpp"

#include <cmath>
#include <cstdio>

#include "fomcast/error.hpp"
#include "fomcast/text.hpp"

namespace fomcast::layers {

using nlohmann::json;

namespace {

std::string type_name(const json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  return std::string("a ") + v.type_name();
}

}  // namespace

std::string shape_text(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

double volume(const Shape& s) {
  double v = 1;
  for (int64_t d : s) v *= double(d);
  return v;
}

void Fields::check_elements(std::string_view key, double elements, std::string_view what) const {
  if (elements > kMaxElements) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", elements);
    const std::string message = std::string(what) + " of " + buf + " elements per sample is too large";
    if (key.empty()) fail_here(message);
    fail(key, message);
  }
}

Fields::Fields(const json& obj, std::string path, std::string_view file)
    : obj_(obj), path_(std::move(path)), file_(file) {
  if (!obj_.is_object()) fail_here("expected a JSON object, found " + type_name(obj_));
}

std::string Fields::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void Fields::fail(std::string_view key, const std::string& message) const {
  throw InputError(file_, message, 0, -1, path_of(key));
}

void Fields::fail_here(const std::string& message) const {
  throw InputError(file_, message, 0, -1, path_.empty() ? "(top level)" : path_);
}

bool Fields::has(std::string_view key) const {
  asked_.emplace(key);
  return obj_.contains(key);
}

const json* Fields::raw(std::string_view key) {
  asked_.emplace(key);
  auto it = obj_.find(key);
  if (it == obj_.end()) return nullptr;
  read_.emplace(key);
  return &*it;
}

const json& Fields::get(std::string_view key) {
  const json* v = raw(key);
  if (!v) {
    // A misspelt key is missing under its right name: say which one it likely was.
    std::vector<std::string> given;
    for (const auto& [k, value] : obj_.items())
      if (!read_.count(k)) given.push_back(k);
    const std::string near = nearest_key(key, given);
    fail(key, "required field is missing" + (near.empty() ? std::string() : " (given: '" + near + "', misspelt?)"));
  }
  return *v;
}

int64_t Fields::to_int(std::string_view key, const json& v, int64_t minimum) const {
  if (!v.is_number_integer()) fail(key, "expected an integer, found " + type_name(v));
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kMaxDim))
    fail(key, "value " + v.dump() + " is too large");
  const int64_t i = v.get<int64_t>();
  if (i < minimum) fail(key, "expected an integer >= " + std::to_string(minimum) + ", found " + std::to_string(i));
  if (i > kMaxDim || i < -kMaxDim) fail(key, "value " + std::to_string(i) + " is too large");
  return i;
}

std::string Fields::string(std::string_view key) {
  const json& v = get(key);
  if (!v.is_string()) fail(key, "expected a string, found " + type_name(v));
  std::string s = v.get<std::string>();
  if (s.empty()) fail(key, "must not be empty");
  return s;
}

std::string Fields::string_or(std::string_view key, std::string fallback) {
  return has(key) ? string(key) : std::move(fallback);
}

int64_t Fields::positive(std::string_view key) { return to_int(key, get(key), 1); }

int64_t Fields::positive_or(std::string_view key, int64_t fallback) { return has(key) ? positive(key) : fallback; }

int64_t Fields::non_negative_or(std::string_view key, int64_t fallback) {
  return has(key) ? to_int(key, get(key), 0) : fallback;
}

int64_t Fields::integer_or(std::string_view key, int64_t fallback) {
  return has(key) ? to_int(key, get(key), -kMaxDim) : fallback;
}

double Fields::number_or(std::string_view key, double fallback, double lo, double hi, bool hi_inclusive) {
  if (!has(key)) return fallback;
  const json& v = get(key);
  if (!v.is_number()) fail(key, "expected a number, found " + type_name(v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < lo || d > hi || (!hi_inclusive && d == hi))
    fail(key, "expected a number in [" + json(lo).dump() + ", " + json(hi).dump() + (hi_inclusive ? "]" : ")") +
                  ", found " + v.dump());
  return d;
}

bool Fields::boolean_or(std::string_view key, bool fallback) {
  if (!has(key)) return fallback;
  const json& v = get(key);
  if (!v.is_boolean()) fail(key, "expected true or false, found " + type_name(v));
  return v.get<bool>();
}

Shape Fields::shape(std::string_view key) {
  const json& v = get(key);
  if (!v.is_array() || v.empty()) fail(key, "expected a non-empty array of positive integers");
  Shape s;
  for (std::size_t i = 0; i < v.size(); ++i)
    s.push_back(to_int(std::string(key) + "[" + std::to_string(i) + "]", v[i], 1));
  return s;
}

std::optional<Shape> Fields::optional_shape(std::string_view key) {
  if (!has(key)) return std::nullopt;
  return shape(key);
}

Shape Fields::per_dim(std::string_view key, int dims, int64_t fallback, int64_t minimum) {
  if (!has(key)) return Shape(static_cast<std::size_t>(dims), fallback);
  const json& v = get(key);
  if (v.is_number_integer()) return Shape(static_cast<std::size_t>(dims), to_int(key, v, minimum));
  if (!v.is_array() || v.size() != static_cast<std::size_t>(dims))
    fail(key, "expected an integer or a list of " + std::to_string(dims) + " integers");
  Shape s;
  for (std::size_t i = 0; i < v.size(); ++i)
    s.push_back(to_int(std::string(key) + "[" + std::to_string(i) + "]", v[i], minimum));
  return s;
}

std::vector<std::string> Fields::strings(std::string_view key) {
  const json& v = get(key);
  if (!v.is_array() || v.empty()) fail(key, "expected a non-empty array of names");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || v[i].get<std::string>().empty())
      fail(std::string(key) + "[" + std::to_string(i) + "]", "expected a name (a non-empty string)");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

void Fields::finish(std::initializer_list<std::string_view> ignored) {
  for (const auto& [key, value] : obj_.items()) {
    if (read_.count(key)) continue;
    bool skip = false;
    for (auto i : ignored) skip = skip || i == key;
    if (skip) continue;
    std::vector<std::string> known(asked_.begin(), asked_.end());
    const std::string near = nearest_key(key, known);
    fail(key, "unknown field" + (near.empty() ? std::string() : " (did you mean '" + near + "'?)") +
                  " (see docs/model-format.md for the fields of " +
                  (path_.empty() ? "a model description" : "this layer type") + ")");
  }
}

}  // namespace fomcast::layers
