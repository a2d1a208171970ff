// Category rules by words in the names: what Kineto and its plugins write is open-ended,
// so the words decide, host-side ones first.
#include "pytorch/kineto_categories.hpp"

#include <string>

#include "fomcast/text.hpp"

namespace fomcast::ingest {

bool is_runtime_category(std::string_view cat) {
  return cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime" || cat == "Driver" ||
         cat.ends_with("_runtime") || cat.ends_with("_driver");
}

bool is_launch_name(std::string_view n) {
  return contains(n, "Launch") || contains(n, "Memcpy") || contains(n, "Memset") || contains(n, "memcpy") ||
         contains(n, "memset");
}

bool is_kernel_launch_name(std::string_view n) {
  return contains(n, "LaunchKernel") || contains(n, "LaunchCooperativeKernel");
}

bool is_device_category(std::string_view cat, bool has_device_arg) {
  const std::string c = lowercase(cat);
  if (c == "hpu_op") return false;  // Kineto's HPU_OP: "HPU host side runtime event"
  for (std::string_view host : {"runtime", "driver", "annotation", "python", "instant", "sync", "counter", "overhead",
                                "trace", "correlation", "cpu", "insight", "cuda_event", "memory"})
    if (contains(c, host)) return false;
  for (std::string_view device :
       {"gpu", "mtia", "hpu", "gaudi", "tpu", "xpu", "npu", "ipu", "mlu", "device", "accelerator", "kernel"})
    if (contains(c, device)) return true;
  return has_device_arg;
}

}  // namespace fomcast::ingest
