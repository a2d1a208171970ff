// Driving the binary for its JSON: the helpers the CLI-level tests share.
#pragma once

#include <doctest/doctest.h>

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

}  // namespace fomcast::test
