// XPlane protobufs (.xplane.pb): what the TensorFlow and JAX profilers write (tensorboard
// plugins/profile/<run>/<host>.xplane.pb). An XSpace holds planes; each device plane
// (/device:GPU:N, /device:TPU:N) holds lines of events (kernels) with metadata and stats.
// A kernel's stats name the XLA HLO op it runs for (hlo_op) and the framework op
// (tf_op, "jit(train_step)/.../conv_general_dilated"), so ops are the HLO ops with their
// kernels' summed time. The /host:metadata plane carries each compiled module's HloProto:
// from it an HLO op gets its shape (convolutions and dots as ConvShape / GemmShape, other
// ops the tensors they read and write), so the estimator can time it on another machine.
#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "common/ops.hpp"
#include "common/readers.hpp"
#include "decode/protobuf_wire.hpp"
#include "fomcast/error.hpp"
#include "fomcast/format.hpp"
#include "tensorflow/xla_hlo.hpp"

namespace fomcast::ingest {
namespace {

namespace pb = protobuf;

// xplane.proto field numbers.
constexpr uint32_t kSpacePlanes = 1;
constexpr uint32_t kPlaneName = 2, kPlaneLines = 3, kPlaneEventMetadata = 4, kPlaneStatMetadata = 5, kPlaneStats = 6;
constexpr uint32_t kLineName = 2, kLineEvents = 4, kLineDisplayName = 11;
constexpr uint32_t kEventMetadataId = 1, kEventDurationPs = 3, kEventStats = 4;
constexpr uint32_t kStatMetadataId = 1, kStatStr = 5, kStatRef = 7;
constexpr uint32_t kMetadataName = 2;  // XEventMetadata.name and XStatMetadata.name

// A map<int64, XEventMetadata / XStatMetadata> entry: key and the value's name.
std::pair<uint64_t, std::string_view> map_entry_name(const pb::Field& entry, const std::string& file) {
  uint64_t key = 0;
  std::string_view name;
  pb::Reader r(entry.bytes, file, entry.offset);
  pb::Field f;
  while (r.next(f)) {
    if (f.number == 1 && f.wire == pb::Wire::varint) key = f.value;
    if (f.number == 2 && f.wire == pb::Wire::bytes) {
      pb::Reader v(f.bytes, file, f.offset);
      pb::Field g;
      while (v.next(g))
        if (g.number == kMetadataName && g.wire == pb::Wire::bytes) name = g.bytes;
    }
  }
  return {key, name};
}

struct Kernel {
  std::string_view name, hlo_op, tf_op, hlo_module;
  int64_t program_id = -1;
  double seconds = 0;
};

// What a device plane's stats say the device is (describe_device).
struct PlaneDevice {
  std::string text;  // "AMD GPU, compute capability 9.4, 304 cores, 192 GiB"; "" when nothing
  DeviceFigures figures;
};

struct Plane {
  std::string_view name;
  PlaneDevice device;  // what the plane's stats say the device is ("AMD GPU, compute capability 9.4, ...")
  std::vector<Kernel> kernels;
  std::vector<std::pair<std::string_view, pb::Field>> modules;  // /host:metadata: name, HloProto
};

// /host:metadata: each event metadata entry is a compiled module, named "jit_f(15)" (its
// program id in brackets), with its HloProto as the bytes of a stat "Hlo Proto".
void read_module_protos(const std::vector<pb::Field>& entries,
                        const std::unordered_map<uint64_t, std::string_view>& stats, const std::string& file,
                        Plane& p) {
  for (const auto& entry : entries) {
    pb::Reader r(entry.bytes, file, entry.offset);
    pb::Field f;
    while (r.next(f)) {
      if (f.number != 2 || f.wire != pb::Wire::bytes) continue;
      std::string_view name;
      pb::Reader v(f.bytes, file, f.offset);
      pb::Field g;
      while (v.next(g)) {
        if (g.number == kMetadataName && g.wire == pb::Wire::bytes) name = g.bytes;
        if (g.number != 5 || g.wire != pb::Wire::bytes) continue;  // XEventMetadata.stats
        std::string_view stat;
        pb::Field proto;
        bool has_proto = false;
        pb::Reader sr(g.bytes, file, g.offset);
        pb::Field h;
        while (sr.next(h)) {
          if (h.number == kStatMetadataId && h.wire == pb::Wire::varint) {
            if (auto it = stats.find(h.value); it != stats.end()) stat = it->second;
          } else if (h.number == 6 && h.wire == pb::Wire::bytes) {
            proto = h;
            has_proto = true;
          }
        }
        if (has_proto && stat == "Hlo Proto" && !name.empty()) p.modules.emplace_back(name, proto);
      }
    }
  }
}

// The device a plane describes, from its stats (device_vendor, device_type, compute_cap_*,
// core_count, memory_size): "AMD GPU, compute capability 9.4, 304 cores, 192 GiB", and the
// figures to recognise it by. An empty text when it says nothing.
PlaneDevice describe_device(std::string_view plane_name, const std::vector<pb::Field>& plane_stats,
                            const std::unordered_map<uint64_t, std::string_view>& stats, const std::string& file) {
  std::string vendor, type;
  std::optional<int64_t> major, minor, cores, memory;
  for (const auto& stat : plane_stats) {
    std::string_view name, text;
    std::optional<int64_t> number;
    pb::Reader r(stat.bytes, file, stat.offset);
    pb::Field f;
    while (r.next(f)) {
      if (f.number == kStatMetadataId && f.wire == pb::Wire::varint) {
        if (auto it = stats.find(f.value); it != stats.end()) name = it->second;
      } else if (f.number == kStatStr && f.wire == pb::Wire::bytes) {
        text = f.bytes;
      } else if ((f.number == 3 || f.number == 4) && f.wire == pb::Wire::varint) {
        number = static_cast<int64_t>(f.value);
      }
    }
    if (name == "device_vendor") vendor = std::string(text);
    if ((name == "device_type" || name == "device_type_string" || name == "device_name") && !text.empty())
      type = std::string(text);
    if (name == "compute_cap_major") major = number;
    if (name == "compute_cap_minor") minor = number;
    if (name == "core_count") cores = number;
    if (name == "memory_size") memory = number;
  }
  PlaneDevice d;
  if (vendor.empty() && type.empty()) return d;
  // "/device:GPU:3" -> "GPU" when the stats name no type.
  std::string kind = type;
  if (kind.empty()) {
    std::string_view rest = plane_name.substr(std::min(plane_name.size(), std::string_view("/device:").size()));
    kind = std::string(rest.substr(0, rest.find(':')));
  }
  std::string out = vendor.empty() || kind.starts_with(vendor) ? kind : vendor + " " + kind;
  if (major && minor) out += ", compute capability " + std::to_string(*major) + "." + std::to_string(*minor);
  if (cores) out += ", " + std::to_string(*cores) + " cores";
  // The memory tells apart chips of one die: an MI300X and an MI325X are both gfx 9.4 with
  // 304 CUs, with 192 and 256 GB.
  if (memory && *memory > 0) out += ", " + format_significant(static_cast<double>(*memory) / 1073741824.0, 3) + " GiB";
  d.text = std::move(out);
  d.figures.vendor = vendor;
  d.figures.compute_units = cores && *cores > 0 ? *cores : 0;
  d.figures.mem_bytes = memory && *memory > 0 ? static_cast<double>(*memory) : 0;
  return d;
}

Plane read_plane(const pb::Field& field, const std::string& file) {
  Plane p;
  std::unordered_map<uint64_t, std::string_view> events, stats;
  std::vector<pb::Field> lines, event_entries, plane_stats;
  pb::Reader r(field.bytes, file, field.offset);
  pb::Field f;
  while (r.next(f)) {
    if (f.wire != pb::Wire::bytes) continue;
    if (f.number == kPlaneName)
      p.name = f.bytes;
    else if (f.number == kPlaneLines)
      lines.push_back(f);
    else if (f.number == kPlaneEventMetadata)
      events.insert(map_entry_name(f, file)), event_entries.push_back(f);
    else if (f.number == kPlaneStatMetadata)
      stats.insert(map_entry_name(f, file));
    else if (f.number == kPlaneStats)
      plane_stats.push_back(f);
  }
  if (p.name == "/host:metadata") read_module_protos(event_entries, stats, file, p);
  if (!p.name.starts_with("/device:")) return p;
  p.device = describe_device(p.name, plane_stats, stats, file);
  // GPU planes hold one line per stream ("Stream #17(Kernel)"); post-processed profiles
  // add derived lines ("XLA Ops", "XLA Modules", "Steps") that repeat the same time. Streams
  // when there are any, else the "XLA Ops" line (TPU), else every line.
  std::vector<std::string_view> line_names;
  for (const auto& line : lines) {
    std::string_view name, display;
    pb::Reader lr(line.bytes, file, line.offset);
    pb::Field g;
    while (lr.next(g)) {
      if (g.number == kLineName && g.wire == pb::Wire::bytes) name = g.bytes;
      if (g.number == kLineDisplayName && g.wire == pb::Wire::bytes) display = g.bytes;
    }
    line_names.push_back(name.empty() ? display : name);
  }
  const bool streams =
      std::any_of(line_names.begin(), line_names.end(), [](std::string_view n) { return n.starts_with("Stream #"); });
  const bool xla_ops =
      std::any_of(line_names.begin(), line_names.end(), [](std::string_view n) { return n == "XLA Ops"; });
  for (std::size_t li = 0; li < lines.size(); ++li) {
    const pb::Field& line = lines[li];
    const std::string_view lname = line_names[li];
    if (streams ? !lname.starts_with("Stream #") : xla_ops && lname != "XLA Ops") continue;
    pb::Reader lr(line.bytes, file, line.offset);
    pb::Field g;
    while (lr.next(g)) {
      if (g.number != kLineEvents || g.wire != pb::Wire::bytes) continue;
      Kernel k;
      uint64_t duration_ps = 0;
      pb::Reader er(g.bytes, file, g.offset);
      pb::Field e;
      while (er.next(e)) {
        if (e.number == kEventMetadataId && e.wire == pb::Wire::varint) {
          if (auto it = events.find(e.value); it != events.end()) k.name = it->second;
        } else if (e.number == kEventDurationPs && e.wire == pb::Wire::varint) {
          duration_ps = e.value;
        } else if (e.number == kEventStats && e.wire == pb::Wire::bytes) {
          std::string_view stat_name, text;
          std::optional<int64_t> number;
          pb::Reader sr(e.bytes, file, e.offset);
          pb::Field s;
          while (sr.next(s)) {
            if (s.number == kStatMetadataId && s.wire == pb::Wire::varint) {
              if (auto it = stats.find(s.value); it != stats.end()) stat_name = it->second;
            } else if (s.number == kStatStr && s.wire == pb::Wire::bytes) {
              text = s.bytes;
            } else if (s.number == kStatRef && s.wire == pb::Wire::varint) {
              if (auto it = stats.find(s.value); it != stats.end()) text = it->second;
            } else if ((s.number == 3 || s.number == 4) && s.wire == pb::Wire::varint) {  // uint64 / int64 value
              number = static_cast<int64_t>(s.value);
            }
          }
          if (stat_name == "hlo_op")
            k.hlo_op = text;
          else if (stat_name == "tf_op")
            k.tf_op = text;
          else if (stat_name == "hlo_module")
            k.hlo_module = text;
          else if (stat_name == "program_id" && number)
            k.program_id = *number;
        }
      }
      // A kernel longer than a day is corrupt, not slow.
      if (duration_ps > 86'400'000'000'000'000ull)
        throw InputError(file, "a kernel lasting " + std::to_string(duration_ps) + " ps", 0, g.offset);
      k.seconds = static_cast<double>(duration_ps) * 1e-12;
      if (k.name.empty() && k.hlo_op.empty()) continue;  // no name to file it under
      p.kernels.push_back(k);
    }
  }
  return p;
}

bool is_plane_name(std::string_view s) { return s.starts_with("/device:") || s.starts_with("/host:"); }

int detect_xplane(std::string_view head, std::string_view) {
  // The first field of an XSpace is a plane whose first field is its name ("/host:...",
  // "/device:..."). A plane is often longer than the head, so read what the head holds.
  static const std::string kName = "<head>";
  try {
    std::size_t pos = 0;
    const uint64_t key = pb::read_varint(head, pos, kName, 0);
    if (key != ((uint64_t{kSpacePlanes} << 3) | 2)) return 0;
    const uint64_t n = pb::read_varint(head, pos, kName, 0);
    pb::Reader r(head.substr(pos, static_cast<std::size_t>(std::min<uint64_t>(n, head.size() - pos))), kName, 0);
    pb::Field f;
    while (r.next(f))
      if (f.number == kPlaneName && f.wire == pb::Wire::bytes) return is_plane_name(f.bytes) ? 95 : 0;
  } catch (const std::exception&) {}
  return 0;
}

Workload read_xplane(const InputFile& file, const IngestOptions& options) {
  const std::string& path = file.path();
  const std::string& data = file.bytes();
  std::vector<Plane> planes;
  pb::Reader r(data, path, 0);
  pb::Field f;
  int64_t events = 0;
  while (r.next(f)) {
    if (f.number != kSpacePlanes) continue;
    if (f.wire != pb::Wire::bytes) throw InputError(path, "an XSpace plane that is not a message", 0, f.offset);
    planes.push_back(read_plane(f, path));
    events += static_cast<int64_t>(planes.back().kernels.size());
    if (options.progress) options.progress(static_cast<double>(r.offset()), static_cast<double>(data.size()), "XPlane");
  }
  if (planes.empty() ||
      std::none_of(planes.begin(), planes.end(), [](const Plane& p) { return is_plane_name(p.name); }))
    throw InputError(path, "no /host: or /device: planes: not an XPlane profile", 0, 0);

  // Compiled modules by name ("jit_f(15)"), and by bare name ("jit_f") where that is unique
  // (empty where two modules share it).
  std::map<std::string, pb::Field> module_protos;
  std::map<std::string, std::string> by_bare_name;
  for (const auto& p : planes)
    for (const auto& [name, proto] : p.modules) {
      module_protos.emplace(std::string(name), proto);
      const std::string bare(name.substr(0, std::min(name.rfind('('), name.size())));
      auto [it, fresh] = by_bare_name.try_emplace(bare, name);
      if (!fresh) it->second.clear();
    }
  std::map<std::string, std::unordered_map<std::string, HloOpInfo>> module_ops;  // read on first use
  auto hlo_info = [&](const Kernel& k) -> const HloOpInfo* {
    if (k.hlo_op.empty() || k.hlo_module.empty()) return nullptr;
    std::string key = std::string(k.hlo_module) + "(" + std::to_string(k.program_id) + ")";
    if (!module_protos.count(key))
      if (auto b = by_bare_name.find(std::string(k.hlo_module)); b != by_bare_name.end()) key = b->second;
    auto m = module_protos.find(key);
    if (m == module_protos.end()) return nullptr;
    auto [it, fresh] = module_ops.try_emplace(key);
    if (fresh) it->second = read_hlo_module(m->second.bytes, path, m->second.offset);
    auto op = it->second.find(std::string(k.hlo_op));
    return op == it->second.end() ? nullptr : &op->second;
  };

  // Ops are HLO ops (a kernel without one files under its own short name), per device.
  struct Sum {
    std::string name;
    double calls = 0, seconds = 0;
    std::string tf_op, kernel;
    DType dtype = DType::unknown;  // from the first kernel whose name says it
    const HloOpInfo* hlo = nullptr;
    bool named = false;  // an HLO op, not a bare kernel
  };
  std::map<std::string, Sum> ops;  // by module and HLO op: two modules may share a name
  int64_t devices = 0, unnamed = 0, copy_only_planes = 0, copy_only_kernels = 0;
  double copy_only_s = 0;
  std::vector<int64_t> hlo_counts;
  // The devices that ran the module: planes with kernels of HLO ops. A plane whose kernels
  // are all runtime copies ran no part of it; averaging it in would halve every count.
  auto runs_module = [](const Plane& p) {
    return std::any_of(p.kernels.begin(), p.kernels.end(), [](const Kernel& k) { return !k.hlo_op.empty(); });
  };
  const bool any_module = std::any_of(planes.begin(), planes.end(), runs_module);
  PlaneDevice device;
  for (const auto& p : planes) {
    if (p.kernels.empty()) continue;
    if (any_module && !runs_module(p)) {
      ++copy_only_planes;
      copy_only_kernels += static_cast<int64_t>(p.kernels.size());
      for (const auto& k : p.kernels) copy_only_s += k.seconds;
      continue;
    }
    ++devices;
    if (device.text.empty()) device = p.device;
    // An HLO op's executions on a device: its most frequent kernel's count (a cuDNN
    // convolution runs an im2col and a GEMM kernel per execution, not two executions).
    std::map<std::string, std::map<std::string_view, int64_t>> per_device;
    for (const auto& k : p.kernels) {
      const std::string name = k.hlo_op.empty() ? short_kernel_name(k.name) : std::string(k.hlo_op);
      const std::string key = std::string(k.hlo_module) + "\x1f" + std::to_string(k.program_id) + "\x1f" + name;
      if (k.hlo_op.empty()) ++unnamed;
      ++per_device[key][k.name];
      Sum& s = ops[key];
      s.name = name;
      s.named = !k.hlo_op.empty();
      if (!s.hlo) s.hlo = hlo_info(k);
      s.seconds += k.seconds;
      if (s.tf_op.empty()) s.tf_op = k.tf_op;
      if (s.kernel.empty()) s.kernel = k.name;
      if (s.dtype == DType::unknown) s.dtype = dtype_from_kernel_name(k.name);
    }
    for (const auto& [key, kernels] : per_device) {
      int64_t runs = 0;
      for (const auto& [kernel, n] : kernels) runs = std::max(runs, n);
      ops[key].calls += static_cast<double>(runs);
      if (ops[key].named) hlo_counts.push_back(runs);
    }
  }
  if (ops.empty()) throw InputError(path, "no kernel events on any device plane", 0, 0);
  // The module ran k times when every HLO op ran a multiple of k times on each device; else
  // k is what most of its ops ran, where that holds for at least half of them. One fusion run
  // 4 times on one of 8 devices (the others 5) had made the gcd 1: five runs of a JAX module
  // read as one pass, every op x5.
  int64_t runs = 0;
  for (int64_t n : hlo_counts) runs = std::gcd(runs, n);
  bool by_mode = false;
  if (runs <= 1 && !hlo_counts.empty()) {
    std::map<int64_t, std::size_t> seen;
    for (int64_t n : hlo_counts) ++seen[n];
    const auto mode =
        std::max_element(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    if (mode->first > 1 && 2 * mode->second >= hlo_counts.size()) runs = mode->first, by_mode = true;
  }
  if (runs < 1) runs = 1;

  OpAggregator agg;
  int64_t shaped = 0;
  for (const auto& [key, s] : ops) {
    const std::string& name = s.name;
    Op op;
    op.name = name;
    // The HLO op says what it is ("cudnn-conv.1", "dot.3", "loop_add_fusion", "all-reduce");
    // the kernel name when it does not.
    op.kind = classify_name(name);
    if (op.kind == OpKind::other) op.kind = classify_name(s.kernel);
    op.dtype = s.dtype;
    if (s.hlo) {
      ++shaped;
      if (s.hlo->kind != OpKind::other) op.kind = s.hlo->kind;
      op.shape = s.hlo->shape;
      if (s.hlo->dtype != DType::unknown) op.dtype = s.hlo->dtype;
      op.bytes = s.hlo->bytes;
      // A fusion named for a transpose is memory-bound whatever its name's first word.
      if (op.kind == OpKind::other && std::holds_alternative<TensorShape>(op.shape)) op.kind = OpKind::elementwise;
    }
    // JAX names gradients transpose(jvp(...)).
    op.phase =
        s.tf_op.find("transpose(") != std::string::npos ? Phase::backward : phase_from_name(s.tf_op + " " + name);
    agg.add(op, s.calls / static_cast<double>(devices), s.seconds / static_cast<double>(devices));
  }
  Workload w;
  w.origin = "xplane";
  w.device = device.text;
  w.device_figures = device.figures;
  w.events = events;
  w.passes = runs;
  w.ops = agg.finish(static_cast<double>(runs));
  std::stable_sort(w.ops.begin(), w.ops.end(), [](const Op& a, const Op& b) {
    return a.count * a.self_time_s.value_or(0) > b.count * b.self_time_s.value_or(0);
  });
  w.notes.push_back("XPlane profile: " + std::to_string(events) + " kernels on " + std::to_string(devices) +
                    " device(s) that ran the module; an op is an XLA HLO op with its kernels' summed time, per device "
                    "(the mean over those devices)");
  if (copy_only_planes > 0)
    w.notes.push_back(std::to_string(copy_only_planes) + " device plane(s) held only runtime copies (" +
                      std::to_string(copy_only_kernels) + " kernels, " + format_duration(copy_only_s) +
                      ") and ran no part of the module: not averaged in");
  if (!device.text.empty()) w.notes.push_back("device: " + device.text + " (the device plane's stats)");
  w.notes.push_back(std::to_string(shaped) + " of " + std::to_string(ops.size()) + " ops shaped from the HLO of " +
                    std::to_string(module_ops.size()) + " compiled module(s) in /host:metadata" +
                    (module_protos.empty() ? " (the profile carries none)" : ""));
  if (unnamed > 0)
    w.notes.push_back(std::to_string(unnamed) +
                      " kernels carry no hlo_op (runtime copies and the like): listed by kernel name");
  w.notes.push_back(runs > 1 ? "the XLA module ran " + std::to_string(runs) +
                                   (by_mode ? " times (what most of its HLO ops ran on each device; some ran fewer): "
                                            : " times (every HLO op a multiple of that): ") +
                                   "counts are per run"
                             : "no repeated module runs found: the capture counts as one pass");
  return w;
}

}  // namespace

const FormatReader kXplaneFormat{"xplane", detect_xplane, read_xplane};

}  // namespace fomcast::ingest
