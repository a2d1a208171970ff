// Recognising platforms by name: the device a trace names ("Tesla V100-SXM2-32GB") matched
// to the device-name patterns of the platforms fomcast knows, the placeholder name of a
// device it has no spec for, and the near misses of a platform's name ("nv_v100" for
// NV_V100) that are typos, not new platforms. Pure functions of their arguments.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fomcast/platform.hpp"
#include "fomcast/workload.hpp"

namespace fomcast {

// The words of a device name or pattern: lower case, every run of characters other than
// ASCII letters and digits a boundary, the trademark marks "(R)" and "(TM)" dropped.
// "Intel(R) Xeon(R) Platinum 8480+" -> intel xeon platinum 8480.
std::vector<std::string> device_words(std::string_view);

struct DeviceMatch {
  std::string platform;  // the platform's name
  std::string pattern;   // its device_names entry that matched
};

// The platform one of whose device_names patterns occurs in `device`: all the pattern's
// words, in order and next to each other, matched whole ("V100" matches "Tesla
// V100-SXM2-32GB", "H200" does not match "GH200"). The most specific pattern wins (more
// words, then more characters: "TITAN X Pascal" over "TITAN X"). nullopt when no pattern
// matches, or when two platforms' equally specific patterns do (ambiguous: better none than
// a guess).
std::optional<DeviceMatch> match_device(std::string_view device, const std::vector<Platform>&);

// The platform a device's figures describe where its name is no model (XPlane's "AMD GPU"):
// the one platform of that vendor (case aside) with that many compute units and memory within
// 5% of its spec's. nullopt when a figure is unknown, or none or several platforms fit: an
// MI300X and an MI325X share a die and tell apart by memory alone.
std::optional<std::string> match_device_figures(const DeviceFigures&, const std::vector<Platform>&);

// The name of a placeholder platform for a device with no spec: its words, case kept,
// joined by '_' ("NVIDIA GeForce RTX 2080 Ti" -> NVIDIA_GeForce_RTX_2080_Ti), at most 64
// characters. "" when the device name has no letter or digit.
std::string placeholder_platform_name(std::string_view device);

// The known platform that `name` is a near miss of: the same letters and digits in another
// case or with other punctuation ("nv_v100", "NV-V100" for NV_V100), or a name that is
// exactly one platform's device-name pattern ("v100", "mi250x"). nullopt when `name` is a
// known platform itself, or near none.
std::optional<std::string> near_platform_name(std::string_view name, const std::vector<Platform>&);

// The one of `names` that `name` is a near miss of: the same letters and digits in another
// case or with other punctuation ("resnet-50" for resnet50). nullopt when `name` is one of
// them, or near none or several.
std::optional<std::string> near_name(std::string_view name, const std::vector<std::string>& names);

// "unknown platform 'h100x': did you mean H100X? (see `fomcast platforms`)", the hint only for
// a near miss; the same for a workload among the stored ones' names.
std::string unknown_platform_message(std::string_view name, const std::vector<Platform>&);
std::string unknown_workload_message(std::string_view name, const std::vector<std::string>& names);

// Throws UsageError ("--platform: no platform named 'nv_v100': did you mean NV_V100?")
// when `name` is a near miss of a known platform. `ingest`, `estimate`, `calibrate`,
// `whatif` and `bench` call it before they use or create a platform of that name.
void check_platform_name(std::string_view name, const std::vector<Platform>&, std::string_view flag = "--platform");
// The same, for a name about to become a new platform (a placeholder `ingest --platform` or
// an imported table creates): also a UsageError unless it is a valid name, as `platforms
// add` and workload names require (printable, no leading '-', at most 128 bytes). The name
// is not echoed: it may hold escape sequences.
void check_new_platform_name(std::string_view name, const std::vector<Platform>&, std::string_view flag = "--platform");

// The words of the note set_recording_platform leaves when --platform names another platform
// than the device the trace names: `estimate` repeats that note as a warning.
inline constexpr std::string_view kGivenPlatformContradictsTrace = " (--platform), though the trace names ";

// Where a trace's measured times were taken, decided at ingest.
struct RecordingPlatform {
  std::string name;                 // "" when neither --platform nor the trace names one
  bool create_placeholder = false;  // `name` is new: store a placeholder for it
  std::string note;                 // said in the workload's notes ("" when nothing to say)
};

// Decides it and sets w.recorded_on, with the note in w.notes: `given` (--platform) wins
// when set (a near miss of a known platform is a UsageError); else the platform whose
// device names match w.device; else a placeholder named after the device; else none.
RecordingPlatform set_recording_platform(Workload& w, std::string_view given, const std::vector<Platform>& known);

}  // namespace fomcast
