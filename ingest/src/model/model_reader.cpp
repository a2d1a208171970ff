// The `model` format: a layer-list model description (docs/model-format.md). The reading
// and expansion live beside this file (layers_*.cpp, fomcast/layers.hpp); this only adapts
// them to the registry.
#include "common/readers.hpp"
#include "fomcast/layers.hpp"

namespace fomcast::ingest {
namespace {

int detect_model(std::string_view head, std::string_view) { return model_description_score(head); }

Workload read_model(const InputFile& file, const IngestOptions& options) {
  if (options.progress) options.progress(0, 1, "expanding layers");
  ExpandedModel m = expand_model(file.bytes(), file.path());
  if (options.progress) options.progress(1, 1, "expanding layers");
  return std::move(m.workload);
}

}  // namespace

const FormatReader kModelFormat{"model", detect_model, read_model};

}  // namespace fomcast::ingest
