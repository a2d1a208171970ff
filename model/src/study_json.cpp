// Study files: the FOM's input. Strict on purpose: a typo in a field name or a zero node
// count would otherwise turn into a silently wrong FOM, so every problem is reported with
// the file and the JSON path of the field.
#include <cmath>
#include <filesystem>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "fomcast/error.hpp"
#include "fomcast/input_checks.hpp"
#include "fomcast/json_input.hpp"
#include "fomcast/model.hpp"
#include "fomcast/text.hpp"

namespace fomcast {
namespace {

using nlohmann::json;

// The fields of a study's top level and of its baseline and target (a problem's are
// kProblemFields below): any other is an error, not ignored.
const std::set<std::string> kStudyFields = {"name", "description", "baseline", "target", "problems"};
const std::set<std::string> kSideFields = {"platform", "nodes", "unit", "devices_per_unit"};

struct Reader {
  std::string file;

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw InputError(file, message, 0, -1, field);
  }

  const json& need(const json& obj, const char* key, const std::string& path) const {
    if (!obj.contains(key)) fail(path + key, "missing");
    return obj.at(key);
  }

  std::string string_at(const json& obj, const char* key, const std::string& path) const {
    const json& v = need(obj, key, path);
    if (!v.is_string()) fail(path + key, "must be a string, not " + std::string(v.type_name()));
    if (v.get<std::string>().empty()) fail(path + key, "must not be empty");
    return v.get<std::string>();
  }

  // A number within its range (fomcast/input_checks.hpp), the same check the flags get.
  double number(const json& v, const std::string& field, const NumberRange& range) const {
    if (!v.is_number()) fail(field, "must be a number, not " + std::string(v.type_name()));
    const double d = v.get<double>();
    if (std::string problem = range_problem(d, range); !problem.empty()) fail(field, problem);
    return d;
  }

  std::optional<double> optional_number(const json& obj, const char* key, const std::string& path,
                                        const NumberRange& range) const {
    if (!obj.contains(key) || obj.at(key).is_null()) return std::nullopt;
    return number(obj.at(key), path + key, range);
  }

  StudySide side(const json& root, const char* key) const {
    const json& s = need(root, key, "");
    if (!s.is_object()) fail(key, "must be an object with \"platform\" and \"nodes\"");
    const std::string path = std::string(key) + ".";
    // A misspelt field would be ignored and change the FOM ("devices_per_units": 8x).
    for (const auto& [field, value] : s.items())
      if (!kSideFields.count(field))
        fail(path + field, unknown_field_message(field, {kSideFields.begin(), kSideFields.end()},
                                                 "platform, nodes, unit, devices_per_unit"));
    StudySide out;
    out.platform = string_at(s, "platform", path);
    out.nodes = number(need(s, "nodes", path), path + "nodes", ranges::nodes);
    if (s.contains("unit")) out.unit = string_at(s, "unit", path);
    if (auto d = optional_number(s, "devices_per_unit", path, ranges::nodes)) {
      out.devices_per_unit = *d;
      out.devices_per_unit_given = true;
    }
    return out;
  }
};

const std::set<std::string> kProblemFields = {
    "name",
    "workload",
    "baseline_hours",
    "target_hours",
    "epochs",
    "baseline_epoch_s",
    "baseline_pass_s",
    "nodes_per_unit",
    "note",
    "description",
    "source",
    "baseline_source",
    "batch_size",
    "samples_per_epoch",
    "precision",
    "parallel",
    "micro_batches",
    "gpus_per_node",
    "global_batch",
    "zero_stage",
    "recompute",
    "recompute_attention",
    "sequence_parallel",
};

}  // namespace

Study parse_study(std::string_view text, std::string_view file) {
  Reader r{std::string(file)};
  const json root = parse_json_input(text, r.file);
  if (!root.is_object()) r.fail("", "a study must be a JSON object");

  for (const auto& [key, value] : root.items())
    if (!kStudyFields.count(key))
      r.fail(key, unknown_field_message(key, {kStudyFields.begin(), kStudyFields.end()},
                                        "name, description, baseline, target, problems"));
  Study study;
  study.file = r.file;
  // The default name is the file's, not the path as typed: history and check key records by
  // name, and the same study run as w/s.json and from w/ as s.json is one study.
  study.name = root.contains("name") ? r.string_at(root, "name", "")
                                     : std::filesystem::path(std::string(file)).filename().string();
  if (root.contains("description") && !root.at("description").is_string())
    r.fail("description", "must be a string, not " + std::string(root.at("description").type_name()));
  study.description = root.value("description", std::string());
  study.baseline = r.side(root, "baseline");
  study.target = r.side(root, "target");

  const json& problems = r.need(root, "problems", "");
  if (!problems.is_array()) r.fail("problems", "must be an array");
  if (problems.empty()) r.fail("problems", "must list at least one problem");

  std::set<std::string> names;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const std::string path = "problems[" + std::to_string(i) + "].";
    const json& p = problems[i];
    if (!p.is_object()) r.fail(path.substr(0, path.size() - 1), "must be an object");
    for (const auto& [key, value] : p.items())
      if (!kProblemFields.count(key))
        r.fail(path + key, unknown_field_message(key, {kProblemFields.begin(), kProblemFields.end()},
                                                 "docs/study-format.md lists them"));

    StudyProblem prob;
    prob.name = r.string_at(p, "name", path);
    if (!names.insert(prob.name).second) r.fail(path + "name", "duplicate problem name '" + prob.name + "'");
    if (p.contains("workload")) prob.workload = r.string_at(p, "workload", path);
    prob.baseline_hours = r.optional_number(p, "baseline_hours", path, ranges::hours);
    prob.target_hours = r.optional_number(p, "target_hours", path, ranges::hours);
    prob.baseline_epoch_s = r.optional_number(p, "baseline_epoch_s", path, ranges::seconds);
    prob.baseline_pass_s = r.optional_number(p, "baseline_pass_s", path, ranges::seconds);
    if (auto npu = r.optional_number(p, "nodes_per_unit", path, ranges::nodes)) {
      prob.nodes_per_unit = *npu;
      prob.nodes_per_unit_given = true;
    }
    for (const auto& [key, member] :
         {std::pair{"baseline_source", &StudyProblem::baseline_source}, std::pair{"note", &StudyProblem::note}}) {
      if (!p.contains(key) || p.at(key).is_null()) continue;
      if (!p.at(key).is_string()) r.fail(path + key, "must be a string, not " + std::string(p.at(key).type_name()));
      prob.*member = p.at(key).get<std::string>();
    }
    // One measured baseline time: a second would be silently dropped.
    if ((prob.baseline_hours ? 1 : 0) + (prob.baseline_epoch_s ? 1 : 0) + (prob.baseline_pass_s ? 1 : 0) > 1)
      r.fail(path + (prob.baseline_pass_s ? "baseline_pass_s" : "baseline_epoch_s"),
             "give one measured baseline time: baseline_hours, baseline_epoch_s or baseline_pass_s");
    if (!prob.baseline_source.empty() && !prob.baseline_hours && !prob.baseline_epoch_s && !prob.baseline_pass_s)
      r.fail(path + "baseline_source", "names the source of a measured baseline time, but none is given");
    for (const auto& [key, member, range] :
         {std::tuple{"epochs", &StudyProblem::epochs, ranges::epochs},
          std::tuple{"batch_size", &StudyProblem::batch_size, ranges::batch},
          std::tuple{"samples_per_epoch", &StudyProblem::samples_per_epoch, ranges::samples}}) {
      if (!p.contains(key)) continue;
      // Read as a double first: an integer past 64 bits (or 2.5) is then a range error,
      // never a wrapped-around count.
      prob.*member = static_cast<int64_t>(r.number(p.at(key), path + key, range));
    }
    if (p.contains("precision")) {
      const json& v = p.at("precision");
      if (!v.is_string()) r.fail(path + "precision", "must be a string, not " + std::string(v.type_name()));
      prob.precision = parse_precision_mode(v.get<std::string>());
      if (!prob.precision)
        r.fail(path + "precision",
               "unknown precision '" + v.get<std::string>() + "' (" + std::string(kPrecisionModeNames) + ")");
    }
    if (p.contains("parallel")) {
      if (!p.at("parallel").is_string() || p.at("parallel").get<std::string>().empty())
        r.fail(path + "parallel", "must be a layout such as \"dp=8,tp=2,pp=2\"");
      prob.parallel = p.at("parallel").get<std::string>();
    }
    for (const auto& [key, member] : {std::pair{"micro_batches", &StudyProblem::micro_batches},
                                      std::pair{"gpus_per_node", &StudyProblem::gpus_per_node},
                                      std::pair{"global_batch", &StudyProblem::global_batch}}) {
      if (!p.contains(key)) continue;
      if (prob.parallel.empty()) r.fail(path + key, "needs \"parallel\"");
      prob.*member = static_cast<int64_t>(r.number(
          p.at(key), path + key, member == &StudyProblem::micro_batches ? ranges::micro_batches : ranges::batch));
    }
    if (p.contains("zero_stage")) {
      if (prob.parallel.empty()) r.fail(path + "zero_stage", "needs \"parallel\"");
      const double z = r.number(p.at("zero_stage"), path + "zero_stage", NumberRange{0, 3, false, true});
      if (z != 0 && z != 1 && z != 2 && z != 3) r.fail(path + "zero_stage", "must be 0, 1, 2 or 3");
      prob.zero_stage = static_cast<int64_t>(z);
    }
    for (const auto& [key, member] : {std::pair{"recompute", &StudyProblem::recompute},
                                      std::pair{"recompute_attention", &StudyProblem::recompute_attention},
                                      std::pair{"sequence_parallel", &StudyProblem::sequence_parallel}}) {
      if (!p.contains(key)) continue;
      if (!p.at(key).is_boolean())
        r.fail(path + key, "must be true or false, not " + std::string(p.at(key).type_name()));
      if (prob.parallel.empty()) r.fail(path + key, "needs \"parallel\"");
      prob.*member = p.at(key).get<bool>();
    }
    // The per-device batch is batch_size (each micro-batch's); global_batch is dp x micro-batches
    // of it. Both given, global_batch won silently (a batch_size of 12 ran at 25), where the
    // CLI refuses --global-batch with --batch-per-gpu.
    if (prob.global_batch && prob.batch_size)
      r.fail(path + "global_batch",
             "one or the other: batch_size is each device's micro-batch, global_batch is dp x micro-batches of it");
    if (prob.recompute && prob.recompute_attention)
      r.fail(path + "recompute_attention", "one or the other: \"recompute\" recomputes whole blocks already");
    if (!prob.parallel.empty() && !prob.workload) r.fail(path + "parallel", "needs a workload to estimate");
    if (!prob.workload && !prob.baseline_hours)
      r.fail(path + "baseline_hours", "missing: give baseline_hours or a workload to estimate");
    if (!prob.workload && !prob.target_hours)
      r.fail(path + "target_hours", "missing: give target_hours or a workload to estimate");
    if (!prob.workload && (prob.baseline_epoch_s || prob.baseline_pass_s || prob.epochs || prob.batch_size ||
                           prob.samples_per_epoch || prob.precision))
      r.fail(path + "workload",
             "missing: baseline_epoch_s, baseline_pass_s, epochs, batch_size, samples_per_epoch and precision describe "
             "a workload");
    study.problems.push_back(std::move(prob));
  }
  return study;
}

json study_to_json(const Study& s) {
  json problems = json::array();
  for (const auto& p : s.problems) {
    json j{{"name", p.name}};
    if (p.workload) j["workload"] = *p.workload;
    if (p.baseline_hours) j["baseline_hours"] = *p.baseline_hours;
    if (p.target_hours) j["target_hours"] = *p.target_hours;
    if (p.epochs) j["epochs"] = *p.epochs;
    if (p.batch_size) j["batch_size"] = *p.batch_size;
    if (p.samples_per_epoch) j["samples_per_epoch"] = *p.samples_per_epoch;
    if (p.precision) j["precision"] = to_string(*p.precision);
    if (p.baseline_epoch_s) j["baseline_epoch_s"] = *p.baseline_epoch_s;
    if (p.baseline_pass_s) j["baseline_pass_s"] = *p.baseline_pass_s;
    if (p.nodes_per_unit_given) j["nodes_per_unit"] = p.nodes_per_unit;
    if (!p.parallel.empty()) j["parallel"] = p.parallel;
    if (p.micro_batches) j["micro_batches"] = *p.micro_batches;
    if (p.gpus_per_node) j["gpus_per_node"] = *p.gpus_per_node;
    if (p.global_batch) j["global_batch"] = *p.global_batch;
    if (p.zero_stage) j["zero_stage"] = *p.zero_stage;
    if (p.recompute) j["recompute"] = true;
    if (p.recompute_attention) j["recompute_attention"] = true;
    if (p.sequence_parallel) j["sequence_parallel"] = true;
    if (!p.baseline_source.empty()) j["baseline_source"] = p.baseline_source;
    if (!p.note.empty()) j["note"] = p.note;
    problems.push_back(j);
  }
  const auto side = [](const StudySide& d) {
    json j{{"platform", d.platform}, {"nodes", d.nodes}};
    if (!d.unit.empty()) j["unit"] = d.unit;
    if (d.devices_per_unit_given) j["devices_per_unit"] = d.devices_per_unit;
    return j;
  };
  return json{{"name", s.name}, {"baseline", side(s.baseline)}, {"target", side(s.target)}, {"problems", problems}};
}

}  // namespace fomcast
