// JSON forms of shapes, operations and model statistics. The store keeps them as text and
// `--json` output prints the same objects, so a user sees exactly what is stored.
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "fomcast/model.hpp"

namespace fomcast {
namespace {

using nlohmann::json;

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

json triple(const std::array<int64_t, 3>& a) { return json::array({a[0], a[1], a[2]}); }

std::array<int64_t, 3> triple_from(const json& j, const char* key, std::array<int64_t, 3> fallback) {
  if (!j.contains(key)) return fallback;
  const auto& a = j.at(key);
  if (!a.is_array() || a.size() != 3) throw std::invalid_argument(std::string(key) + " must be an array of 3");
  return {a[0].get<int64_t>(), a[1].get<int64_t>(), a[2].get<int64_t>()};
}

template <class T>
T must(std::optional<T> v, const std::string& what) {
  if (!v) throw std::invalid_argument("unknown " + what);
  return *v;
}

}  // namespace

json shape_to_json(const OpShape& shape) {
  return std::visit(
      Overloaded{
          [](std::monostate) { return json(nullptr); },
          [](const GemmShape& g) {
            return json{
                {"type", "gemm"},      {"m", g.m}, {"n", g.n}, {"k", g.k}, {"batch", g.batch}, {"trans_a", g.trans_a},
                {"trans_b", g.trans_b}};
          },
          [](const ConvShape& c) {
            return json{{"type", "conv"},
                        {"dims", c.dims},
                        {"n", c.n},
                        {"c", c.c},
                        {"k", c.k},
                        {"groups", c.groups},
                        {"input", triple(c.input)},
                        {"filter", triple(c.filter)},
                        {"stride", triple(c.stride)},
                        {"pad", triple(c.pad)},
                        {"dilation", triple(c.dilation)},
                        {"direction", to_string(c.direction)}};
          },
          [](const RnnShape& r) {
            json j{{"type", "rnn"},    {"cell", to_string(r.cell)}, {"hidden", r.hidden},
                   {"input", r.input}, {"batch", r.batch},          {"timesteps", r.timesteps}};
            if (r.backward) j["direction"] = "backward";
            return j;
          },
          [](const TensorShape& t) {
            return json{{"type", "tensor"}, {"inputs", t.inputs}};
          },
          [](const CollectiveShape& c) {
            return json{{"type", "collective"}, {"op", to_string(c.op)}, {"bytes", c.bytes}, {"ranks", c.ranks}};
          },
          [](const EmbeddingShape& e) {
            return json{{"type", "embedding"}, {"rows", e.rows}, {"dim", e.dim}, {"lookups", e.lookups}};
          },
      },
      shape);
}

OpShape shape_from_json(const json& j) {
  if (j.is_null()) return std::monostate{};
  if (!j.is_object()) throw std::invalid_argument("shape must be an object or null");
  const std::string type = j.at("type").get<std::string>();
  if (type == "gemm") {
    GemmShape g;
    g.m = j.at("m").get<int64_t>();
    g.n = j.at("n").get<int64_t>();
    g.k = j.at("k").get<int64_t>();
    g.batch = j.value("batch", int64_t{1});
    g.trans_a = j.value("trans_a", false);
    g.trans_b = j.value("trans_b", false);
    return g;
  }
  if (type == "conv") {
    ConvShape c;
    c.dims = j.value("dims", 2);
    c.n = j.at("n").get<int64_t>();
    c.c = j.at("c").get<int64_t>();
    c.k = j.at("k").get<int64_t>();
    c.groups = j.value("groups", int64_t{1});
    c.input = triple_from(j, "input", c.input);
    c.filter = triple_from(j, "filter", c.filter);
    c.stride = triple_from(j, "stride", c.stride);
    c.pad = triple_from(j, "pad", c.pad);
    c.dilation = triple_from(j, "dilation", c.dilation);
    c.direction = must(parse_conv_direction(j.value("direction", std::string("forward"))), "conv direction");
    return c;
  }
  if (type == "rnn") {
    RnnShape r;
    r.cell = must(parse_rnn_cell(j.at("cell").get<std::string>()), "rnn cell");
    r.hidden = j.at("hidden").get<int64_t>();
    r.input = j.value("input", r.hidden);
    r.batch = j.at("batch").get<int64_t>();
    r.timesteps = j.at("timesteps").get<int64_t>();
    const std::string direction = j.value("direction", std::string("forward"));
    if (direction != "forward" && direction != "backward") throw std::invalid_argument("unknown rnn direction");
    r.backward = direction == "backward";
    return r;
  }
  if (type == "tensor") return TensorShape{j.at("inputs").get<std::vector<std::vector<int64_t>>>()};
  if (type == "collective") {
    CollectiveShape c;
    c.op = must(parse_collective_kind(j.at("op").get<std::string>()), "collective");
    c.bytes = j.at("bytes").get<int64_t>();
    c.ranks = j.value("ranks", int64_t{0});
    return c;
  }
  if (type == "embedding")
    return EmbeddingShape{j.at("rows").get<int64_t>(), j.at("dim").get<int64_t>(), j.at("lookups").get<int64_t>()};
  throw std::invalid_argument("unknown shape type '" + type + "'");
}

namespace {
// An op without a shape has 0 flops and bytes because nobody knows them (a tfprof op view's
// MatMul): null, as the text's "-", not a zero a reader would take for a measurement. With a
// shape a 0 is computed (a copy does no arithmetic).
json unknown_when_zero(const Op& op, double value) {
  return value == 0 && std::holds_alternative<std::monostate>(op.shape) ? json(nullptr) : json(value);
}
double number_or_zero(const json& j, const char* key) {
  return j.contains(key) && !j.at(key).is_null() ? j.at(key).get<double>() : 0.0;
}
}  // namespace

json op_to_json(const Op& op) {
  json j{{"name", op.name},
         {"kind", to_string(op.kind)},
         {"shape", shape_to_json(op.shape)},
         {"shape_text", describe(op.shape)},
         {"dtype", to_string(op.dtype)},
         {"phase", to_string(op.phase)},
         {"count", op.count},
         {"self_time_s", op.self_time_s ? json(*op.self_time_s) : json(nullptr)},
         {"flops", unknown_when_zero(op, op.flops)},
         {"bytes", unknown_when_zero(op, op.bytes)}};
  // Which implementation ran it, where the trace says (null when it does not).
  j["implementation"] =
      op.implementation == Implementation::unknown ? json(nullptr) : json(to_string(op.implementation));
  return j;
}

Op op_from_json(const json& j) {
  Op op;
  op.name = j.at("name").get<std::string>();
  op.kind = must(parse_op_kind(j.at("kind").get<std::string>()), "op kind");
  op.shape = shape_from_json(j.value("shape", json(nullptr)));
  op.dtype = must(parse_dtype(j.value("dtype", std::string("fp32"))), "dtype");
  op.phase = must(parse_phase(j.value("phase", std::string("forward"))), "phase");
  op.count = j.value("count", 1.0);
  if (j.contains("self_time_s") && !j.at("self_time_s").is_null()) op.self_time_s = j.at("self_time_s").get<double>();
  op.flops = number_or_zero(j, "flops");
  op.bytes = number_or_zero(j, "bytes");
  if (j.contains("implementation") && j.at("implementation").is_string())
    op.implementation = must(parse_implementation(j.at("implementation").get<std::string>()), "implementation");
  return op;
}

json model_stats_to_json(const ModelStats& m) {
  return json{{"params", m.params},
              {"forward_macs", m.forward_macs},
              {"weights_bytes", m.weights_bytes},
              {"gradients_bytes", m.gradients_bytes},
              {"optimizer_bytes", m.optimizer_bytes},
              {"activations_bytes", m.activations_bytes}};
}

ModelStats model_stats_from_json(const json& j) {
  ModelStats m;
  m.params = j.value("params", int64_t{0});
  m.forward_macs = j.value("forward_macs", 0.0);
  m.weights_bytes = j.value("weights_bytes", 0.0);
  m.gradients_bytes = j.value("gradients_bytes", 0.0);
  m.optimizer_bytes = j.value("optimizer_bytes", 0.0);
  m.activations_bytes = j.value("activations_bytes", 0.0);
  return m;
}

}  // namespace fomcast
