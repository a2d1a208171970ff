// The BERT-small pair (../shared/traces/pytorch_kineto/tracelens_{h100,mi300x}_*): each
// platform's step predicted from the other's trace, without calibration (the modelled
// kernels alone) and with it (the source trace's step split into modelled and residual,
// the residual carried). The errors must be the ones docs/accuracy.md prints, read from
// that file, so the documentation and the code cannot drift apart.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using json = nlohmann::json;
using fomcast::test::run_fomcast;
using fomcast::test::ScratchDir;
using fomcast::test::shared_path;
using fomcast::test::slurp;
using fomcast::test::source_path;

namespace {

struct DocRow {
  double measured_us, uncalibrated_us, uncalibrated_error_pct, calibrated_us, calibrated_error_pct;
};

double number(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  return std::stod(s);
}

// "| H100 -> MI300X | 4,007.3 us | 195.6 us | -95.1% | 4,312.3 us | +7.6% | ..."
std::map<std::string, DocRow> documented() {
  const std::string doc = slurp(source_path("docs/accuracy.md"));
  const std::regex row(
      R"(\|\s*(H100|MI300X) -> (H100|MI300X)\s*\|\s*([0-9,.]+) us\s*\|\s*([0-9,.]+) us\s*\|\s*([+-]?[0-9.]+)%\s*\|\s*([0-9,.]+) us\s*\|\s*([+-]?[0-9.]+)%\s*\|)");
  std::map<std::string, DocRow> out;
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it)
    out[std::string((*it)[1]) + "->" + std::string((*it)[2])] =
        DocRow{number((*it)[3]), number((*it)[4]), number((*it)[5]), number((*it)[6]), number((*it)[7])};
  return out;
}

}  // namespace

TEST_CASE("BERT-small H100 <-> MI300X: errors with and without calibration are the documented ones") {
  ScratchDir dir;
  const std::string db = dir.file("bert.db");
  for (const auto& [name, platform] : {std::pair{"h100", "H100"}, std::pair{"mi300x", "MI300X"}}) {
    const auto r = run_fomcast(
        "ingest '" +
            shared_path(std::string("traces/pytorch_kineto/tracelens_") + name + "_bert-small-uncased.json.gz") +
            "' --workload bert-" + name + " --platform " + platform,
        db);
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }
  const auto v =
      run_fomcast("validate --no-tables --pair bert-h100,bert-mi300x --pair bert-mi300x,bert-h100 --json", db);
  REQUIRE_MESSAGE(v.status == 0, v.err);
  const json pairs = json::parse(v.out).at("cross_hardware");
  REQUIRE(pairs.size() == 2);

  // Measured steps, from a python3 look at the traces: the ProfilerStep#6 user_annotation's
  // dur is 4426.114 us in the H100 trace and 4007.334 us in the MI300X trace.
  const std::map<std::string, double> measured_us = {{"H100", 4426.114}, {"MI300X", 4007.334}};
  const auto doc = documented();
  REQUIRE_MESSAGE(doc.size() == 2, "docs/accuracy.md lacks the BERT calibration table");
  for (const auto& p : pairs) {
    const std::string from = p["from_platform"], to = p["to_platform"];
    CAPTURE(from);
    CAPTURE(to);
    const DocRow& d = doc.at(from + "->" + to);
    const double measured = p["measured_pass_s"].get<double>() * 1e6;
    CHECK(measured == doctest::Approx(measured_us.at(to)).epsilon(1e-9));
    CHECK(std::fabs(measured - d.measured_us) <= 0.051);
    CHECK(std::fabs(p["uncalibrated_pass_s"].get<double>() * 1e6 - d.uncalibrated_us) <= 0.051);
    CHECK(std::fabs(p["predicted_pass_s"].get<double>() * 1e6 - d.calibrated_us) <= 0.051);
    CHECK(std::fabs(100 * p["uncalibrated_error"].get<double>() - d.uncalibrated_error_pct) <= 0.051);
    CHECK(std::fabs(100 * p["error"].get<double>() - d.calibrated_error_pct) <= 0.051);
    // The errors follow from the passes: (predicted - measured) / measured.
    CHECK(p["error"].get<double>() ==
          doctest::Approx((p["predicted_pass_s"].get<double>() - p["measured_pass_s"].get<double>()) /
                          p["measured_pass_s"].get<double>()));
    // Calibration is what makes these projections usable: the kernels alone miss by far.
    CHECK(std::fabs(p["error"].get<double>()) < 0.1);
    CHECK(std::fabs(p["uncalibrated_error"].get<double>()) > 0.8);
    CHECK(p["residual_share"].get<double>() > 0.5);  // host-bound both ways
  }

  // The estimate says it is host-bound, in text and JSON.
  const auto e = run_fomcast("estimate --workload bert-h100 --platform MI300X", db);
  REQUIRE(e.status == 0);
  CHECK(e.out.find("WARNING host-bound") != std::string::npos);
  CHECK(e.out.find("residual carried unscaled: no host_speed figure for H100 or MI300X") != std::string::npos);
  const json ej = json::parse(run_fomcast("estimate --workload bert-h100 --platform MI300X --json", db).out);
  CHECK(ej["host_bound"] == true);
  CHECK(ej["modelled_s"].get<double>() + ej["residual_s"].get<double>() == doctest::Approx(ej["pass_s"].get<double>()));

  // What-if on the trace: kind:gemm leaves the flash-attention batched GEMMs alone and says
  // so; with 93% of the step host time, GEMMs twice as fast gain little, and it says why.
  const auto w = run_fomcast("whatif --workload bert-h100 --platform H100 --scale kind:gemm=2 --json", db);
  REQUIRE_MESSAGE(w.status == 0, w.err);
  const json wj = json::parse(w.out);
  std::string notes;
  for (const auto& n : wj["notes"]) notes += n.get<std::string>() + "\n";
  CHECK_MESSAGE(notes.find("kind:gemm does not include the") != std::string::npos, notes);
  CHECK(notes.find("host-bound") != std::string::npos);
  double gemm = 0;
  for (const auto& c : wj["classes"])
    if (c["name"] == "gemm") gemm = c["reference_s"].get<double>();
  const double ref = wj["reference_pass_s"].get<double>();
  CHECK(ref == doctest::Approx(measured_us.at("H100") * 1e-6));  // on its own platform: the measured step
  CHECK(wj["speedup"].get<double>() == doctest::Approx(ref / (ref - gemm / 2)));
  CHECK(wj["speedup"].get<double>() < 1.1);
}
