// Model descriptions: a Keras-like JSON layer list (docs/model-format.md) expanded into the
// operations of one training pass, Paleo-style: forward GEMMs and convolutions per layer,
// their data and weight gradients, one optimizer update per parameter tensor, the
// memory-bound ops with their bytes, each op marked with its phase. Also the figures a
// co-design study starts from: parameters, forward MACs and the memory footprint.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fomcast/model.hpp"

namespace fomcast {

// One layer as the expansion saw it, after shape inference.
struct LayerSummary {
  std::string name;
  std::string type;
  std::vector<std::vector<int64_t>> input_shapes;  // per sample (no batch dimension)
  std::vector<int64_t> output_shape;               // per sample
  // Parameters this layer owns, non-trainable ones (BatchNorm moving statistics) included,
  // as Keras counts them; a layer that reuses another's weights owns only what it adds.
  int64_t params = 0;
  int64_t trainable_params = 0;
  double forward_macs = 0;              // per sample, one application of the layer
  double share = 1;                     // fraction of the passes the layer runs in (multi-task models)
  std::string shares_weights_of;        // "" unless it reuses another layer's weights
  double kept_elements = 0;             // per sample: activation elements its forward keeps for the backward
  double kept_attention_elements = 0;   // of them, attention's core (scores to context)
  double kept_replicated_elements = 0;  // of them, a block's norms, dropouts and residuals: whole on every TP rank
  // Dropout masks it keeps, one byte per element whatever the activations' type: all of them,
  // attention's core's, and the replicated ones (a block's hidden-size dropouts).
  double kept_mask_bytes = 0, kept_attention_mask_bytes = 0, kept_replicated_mask_bytes = 0;
  // What Megatron's tensor parallel splits (0 where the layer has none): attention heads, and
  // a transformer block's MLP width.
  int64_t heads = 0, ff_units = 0;
};

struct ExpandedModel {
  // name = the file's "name" ("" when it has none), origin "model", batch, samples per
  // epoch and epochs from the file, ModelStats filled, ops aggregated (identical
  // operations merged, counts added).
  Workload workload;
  std::vector<LayerSummary> layers;
  std::string optimizer;  // sgd, momentum, rmsprop, adagrad or adam
};

// Parses a model description and expands it into one training pass. `file` names the
// source in errors: every InputError carries the JSON path of the bad field
// ("layers[3].units"), or the line and byte offset when the text is not JSON.
ExpandedModel expand_model(std::string_view json_text, std::string_view file);
ExpandedModel expand_model_document(const nlohmann::json& doc, std::string_view file);

// A stored model workload expanded again at another batch size: its operations (GEMM rows,
// activations, bytes) depend on the batch, so `estimate --batch` and a study problem's
// batch_size re-read the layer list its `source` names (a shipped model's from the data
// compiled in, data/models/NAME.json) and expand it at `batch`, keeping the stored name,
// recording platform and epoch figures. Throws UsageError when the layer list cannot be
// read, or no longer expands to the stored operations at the stored batch (the file
// changed since it was ingested): better refused than a pass of another model.
Workload expand_model_at_batch(const Workload& stored, int64_t batch);
// A stored model's layers as the expansion sees them (per sample), read again from its
// layer list as expand_model_at_batch does (parallel layouts cut and spread by layer).
std::vector<LayerSummary> stored_model_layers(const Workload& stored);

// How sure we are that a file's head is a model description, 0 to 100: a JSON object
// with a "layers" array and no "traceEvents". Cheap; never throws.
int model_description_score(std::string_view head);

}  // namespace fomcast
