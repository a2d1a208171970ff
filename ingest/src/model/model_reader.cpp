// The `model` format: a layer-list model description (docs/model-format.md). The reading
// and expansion live beside this file (layers_*.cpp, fomcast/layers.hpp); this only adapts
// them to the registry.
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/readers.hpp"
#include "fomcast/embedded.hpp"
#include "fomcast/error.hpp"
#include "fomcast/layers.hpp"

namespace fomcast::ingest {
namespace {

int detect_model(std::string_view head, std::string_view) { return model_description_score(head); }

Workload read_model(const InputFile& file, const IngestOptions& options) {
  if (options.progress) options.progress(0, 1, "expanding layers");
  ExpandedModel m = expand_model(file.bytes(), file.path());
  if (options.progress) options.progress(1, 1, "expanding layers");
  // --batch is for inputs that cannot tell; a model states its own (it was ignored).
  if (options.batch_size > 0 && options.batch_size != m.workload.batch_size)
    throw UsageError("--batch: " + file.path() + " states its batch_size (" + std::to_string(m.workload.batch_size) +
                     "): `estimate --batch " + std::to_string(options.batch_size) +
                     "` runs the model at another, or edit the file");
  // Stored with the file's absolute path: a later --batch or --parallel reads the layer list
  // again, from whatever directory it runs in.
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(file.path(), ec);
  if (!ec) m.workload.source = absolute.lexically_normal().string();
  return std::move(m.workload);
}

}  // namespace

const FormatReader kModelFormat{"model", detect_model, read_model};

}  // namespace fomcast::ingest

namespace fomcast {
namespace {

// The layer list a stored model came from: the shipped data for data/models/..., else the
// file it was ingested from.
std::string layer_list_text(const Workload& w, const std::string& why) {
  constexpr std::string_view kShipped = "data/";
  if (w.source.starts_with(kShipped))
    if (auto text = embedded_file(std::string_view(w.source).substr(kShipped.size()))) return std::string(*text);
  try {
    return ingest::InputFile(w.source).bytes();
  } catch (const InputError& e) {
    throw UsageError(why + ": the layer list it was expanded from cannot be read now (" + std::string(e.what()) +
                     "); ingest the model again from where the file is now");
  }
}

double total_flops(const Workload& w) {
  double f = 0;
  for (const auto& op : w.ops) f += op.count * op.flops;
  return f;
}

}  // namespace

Workload expand_model_at_batch(const Workload& stored, int64_t batch) {
  const std::string why = "workload '" + stored.name + "' is a model expanded at batch " +
                          std::to_string(stored.batch_size) + ", and its operations depend on the batch";
  if (stored.origin != "model") throw UsageError("workload '" + stored.name + "' is not a model description");
  const std::string text = layer_list_text(stored, why);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw UsageError(why + ": " + stored.source + " is no longer a model description");
  // The file must still be the model that was stored, else the new batch's pass would be
  // another model's.
  const Workload again = expand_model_document(doc, stored.source).workload;
  const double f0 = total_flops(stored), f1 = total_flops(again);
  if (again.batch_size != stored.batch_size || again.ops.size() != stored.ops.size() ||
      std::fabs(f1 - f0) > 1e-9 * std::max(f0, 1.0))
    throw UsageError(why + ": " + stored.source +
                     " no longer expands to the stored operations (changed since it was ingested); ingest it again");
  doc["batch_size"] = batch;
  Workload w = expand_model_document(doc, stored.source).workload;
  w.name = stored.name;
  w.recorded_on = stored.recorded_on;
  w.device = stored.device;
  w.samples_per_epoch = stored.samples_per_epoch;
  w.epochs = stored.epochs;
  w.notes.push_back("expanded again from " + stored.source + " at batch " + std::to_string(batch) + " (stored at " +
                    std::to_string(stored.batch_size) + ")");
  return w;
}

std::vector<LayerSummary> stored_model_layers(const Workload& stored) {
  const std::string why = "workload '" + stored.name + "' needs its layer list";
  if (stored.origin != "model") throw UsageError("workload '" + stored.name + "' is not a model description");
  nlohmann::json doc = nlohmann::json::parse(layer_list_text(stored, why), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw UsageError(why + ": " + stored.source + " is no longer a model description");
  ExpandedModel m = expand_model_document(doc, stored.source);
  // The file must still be the model that was stored (its parameters do not depend on the
  // batch), else the layers would be another model's.
  if (stored.model && m.workload.model && stored.model->params != m.workload.model->params)
    throw UsageError(why + ": " + stored.source + " now has " + std::to_string(m.workload.model->params) +
                     " parameters, the stored model " + std::to_string(stored.model->params) +
                     " (changed since it was ingested); ingest it again");
  return std::move(m.layers);
}

}  // namespace fomcast
