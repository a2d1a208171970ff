// Kineto event categories by what they record: host-side runtime calls, kernel launches,
// and device activity. Kineto names its own categories (libkineto ActivityType: kernel,
// gpu_memcpy, cuda_runtime, mtia_ccp_events, cuda_profiler_range, xpu_scope_profiler, ...),
// and other backends' plugins add theirs; a category fomcast has no rule for is device
// time when it names a device, so an MTIA, HPU, TPU or XPU trace is never read as CPU-only.
#pragma once

#include <string_view>

namespace fomcast::ingest {

// A runtime or driver call that may launch device work (its correlation id links them):
// CUDA's and HIP's (under cuda_runtime), the other backends' (mtia_runtime, xpu_runtime,
// xpu_driver, privateuse1_runtime), PyTorch 1.9's Runtime / Driver.
bool is_runtime_category(std::string_view cat);
// A runtime call that launches, copies or sets memory ("cudaLaunchKernel", "hipMemcpyAsync").
bool is_launch_name(std::string_view name);
// A launch that starts a kernel (not a copy, a memset or a host function).
bool is_kernel_launch_name(std::string_view name);
// Device-side activity of a category without a rule of its own: one naming a device or a
// kernel (mtia_ccp_events, xpu_scope_profiler, an HPU's or TPU's), or, for a category that
// names nothing, an event saying which device it ran on (args "device"); never host-side
// bookkeeping (runtime, driver, annotations, Python, counters, synchronisation).
bool is_device_category(std::string_view cat, bool has_device_arg);

}  // namespace fomcast::ingest
