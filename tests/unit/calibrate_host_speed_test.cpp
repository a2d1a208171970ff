// Issue 14, host speed: every shipped spec that names its host CPU either gives that host's
// host_speed with its source or says in its "Left out:" sentence that it does not (no figure
// is invented: docs/calibration.md, "Host speed"). A residual carried between platforms
// without one says so (calibrate_cli_test).
#include <doctest/doctest.h>

#include <string>

#include "shipped_catalog.hpp"

using namespace fomcast;

TEST_CASE("every spec naming its host CPU gives its host_speed with a source or names it left out") {
  int hosts = 0;
  for (const auto& entry : test::catalog().platforms) {
    const Platform& p = entry.second;
    if (p.host_cpu.empty()) continue;
    ++hosts;
    CAPTURE(p.name);
    if (p.host_speed) {
      CHECK(p.host_speed->value > 0);
      CHECK(!p.host_speed->source.empty());
      continue;
    }
    const auto left_out = p.description.find("Left out: host_speed");
    CHECK(left_out != std::string::npos);
    // The sentence names the host it could not find a figure for.
    CHECK(p.description.find(p.host_cpu, left_out) != std::string::npos);
  }
  CHECK(hosts >= 16);
}
