// Format `chakra-json`: an execution trace that Chakra's tools rewrote in JSON (schema
// "1.0.2-chakra..."). Its nodes are PyTorch ET nodes, read by the same rules as
// `pytorch-et` (pytorch/execution_trace.hpp); only the schema tells the two apart.
#include "common/readers.hpp"
#include "pytorch/execution_trace.hpp"

namespace fomcast::ingest {
namespace {

// The "schema" value in a head, or "" when the head does not show one.
std::string schema_in(std::string_view head) {
  const auto at = head.find("\"schema\"");
  if (at == std::string_view::npos) return {};
  const auto q1 = head.find('"', head.find(':', at) + 1);
  if (q1 == std::string_view::npos) return {};
  const auto q2 = head.find('"', q1 + 1);
  if (q2 == std::string_view::npos) return {};
  return std::string(head.substr(q1 + 1, q2 - q1 - 1));
}

int detect_chakra_json(std::string_view head, std::string_view) {
  return is_et_json_head(head) && schema_in(head).starts_with("1.0.2-chakra") ? 95 : 0;
}

Workload read_chakra_json(const InputFile& file, const IngestOptions& options) {
  return read_execution_trace(file, options, "chakra-json");
}

}  // namespace

const FormatReader kChakraJsonFormat{"chakra-json", detect_chakra_json, read_chakra_json};

}  // namespace fomcast::ingest
