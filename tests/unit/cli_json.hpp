// Driving the binary for its JSON: the helpers the CLI-level tests share.
#pragma once

#include <doctest/doctest.h>

#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fomcast::test {

// `fomcast ARGS --json` on DB, parsed; the test stops with the command and its stderr when
// it fails.
inline nlohmann::json run_json(const std::string& args, const std::string& db) {
  const auto r = run_fomcast(args + " --json", db);
  REQUIRE_MESSAGE(r.status == 0, args << "\n" << r.err);
  return nlohmann::json::parse(r.out);
}

// Whether any of a JSON array of notes contains `text`.
inline bool any_note_contains(const nlohmann::json& notes, const std::string& text) {
  for (const auto& n : notes)
    if (n.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// No number of more than 20 digits in a row (a 1e308 printed with "%f" has 309).
inline bool has_huge_number(const std::string& text) { return std::regex_search(text, std::regex("[0-9,]{28,}")); }

// `fomcast ARGS` on DB refused as a person's mistake: exit 2 with `says` on stderr, no
// internal error and no 300-digit number, nothing on stdout, the database as it was.
inline void check_refused(const std::string& args, const std::string& db, const std::string& says) {
  CAPTURE(args);
  const std::string before = file_fingerprint(db);
  const auto out = run_fomcast(args, db);
  CHECK(out.status == 2);
  CHECK_MESSAGE(out.err.find(says) != std::string::npos, out.err);
  CHECK(out.err.find("internal error") == std::string::npos);
  CHECK_FALSE(has_huge_number(out.err));
  CHECK(out.out.empty());
  CHECK(file_fingerprint(db) == before);
}

}  // namespace fomcast::test
