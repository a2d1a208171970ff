// Reading one JSON object of a model description with its path ("layers[3]") at hand, so
// every complaint names the field. It remembers which keys were read: finish() rejects
// the rest, because a misspelt "unit" silently falling back to a default is the worst
// kind of wrong answer.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace fomcast::layers {

using Shape = std::vector<int64_t>;

// Sizes beyond these are rejected: they can only be mistakes, and they keep every product
// the expansion forms (batch x elements of one tensor) far from int64 overflow.
inline constexpr int64_t kMaxDim = int64_t{1} << 40;              // one size
inline constexpr int64_t kMaxBatch = int64_t{1} << 24;            // samples per pass
inline constexpr double kMaxElements = double(int64_t{1} << 36);  // one tensor, per sample

// Elements of a shape, in double so that it cannot overflow.
double volume(const Shape&);

class Fields {
 public:
  Fields(const nlohmann::json& obj, std::string path, std::string_view file);

  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const;
  bool has(std::string_view key) const;

  std::string string(std::string_view key);
  std::string string_or(std::string_view key, std::string fallback);
  int64_t positive(std::string_view key);
  int64_t positive_or(std::string_view key, int64_t fallback);
  int64_t non_negative_or(std::string_view key, int64_t fallback);
  int64_t integer_or(std::string_view key, int64_t fallback);  // any sign
  double number_or(std::string_view key, double fallback, double lo, double hi, bool hi_inclusive);
  bool boolean_or(std::string_view key, bool fallback);
  Shape shape(std::string_view key);  // a non-empty array of positive integers
  std::optional<Shape> optional_shape(std::string_view key);
  // An int (the same for every dimension) or a list of exactly `dims` ints >= minimum.
  Shape per_dim(std::string_view key, int dims, int64_t fallback, int64_t minimum);
  std::vector<std::string> strings(std::string_view key);  // a non-empty array of strings
  // The raw value, marked as read; nullptr when absent.
  const nlohmann::json* raw(std::string_view key);

  // Throws on any key not read (keys listed in `ignored` count as read).
  void finish(std::initializer_list<std::string_view> ignored = {});

  // Fails unless `elements` (a tensor's size per sample, or a parameter tensor's) is sane.
  void check_elements(std::string_view key, double elements, std::string_view what) const;

  [[noreturn]] void fail(std::string_view key, const std::string& message) const;
  [[noreturn]] void fail_here(const std::string& message) const;

 private:
  const nlohmann::json& get(std::string_view key);  // marks read; fails when absent
  int64_t to_int(std::string_view key, const nlohmann::json& v, int64_t minimum) const;

  const nlohmann::json& obj_;
  std::string path_;
  std::string file_;
  std::set<std::string, std::less<>> read_;
  mutable std::set<std::string, std::less<>> asked_;  // every key looked for, given or not
};

// "[1, 2, 3]" for messages.
std::string shape_text(const Shape&);

}  // namespace fomcast::layers
