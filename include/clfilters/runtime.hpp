// SPDX-License-Identifier: Apache-2.0
// The OpenCL runtime: device selection, a context with a profiling queue, and a program cache
// kept in memory and on disk.
#pragma once

#include <CL/opencl.hpp>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/export.hpp"

namespace CLF_API clf {

// The one error type for OpenCL failures: carries the error code, its name, the failing call and,
// for program builds, the build log.
class ClError : public std::runtime_error {
 public:
  ClError(cl_int code, std::string call, std::string build_log = {});
  cl_int code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }
  const std::string& build_log() const noexcept { return build_log_; }

 private:
  cl_int code_;
  std::string call_;
  std::string build_log_;
};

// "CL_OUT_OF_RESOURCES" for -5, etc.
const char* cl_error_name(cl_int code);
// Throws ClError when `code` is not CL_SUCCESS.
void check_cl(cl_int code, const char* call);

// No OpenCL platform at all: the tool explains how to install PoCL.
class NoOpenClError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DeviceInfo {
  int platform_index = 0;
  int device_index = 0;
  std::string platform_name;
  std::string platform_version;
  std::string name;
  std::string vendor;
  std::string driver_version;
  std::string device_version;
  std::string opencl_c_version;
  cl_device_type type = 0;
  unsigned compute_units = 0;
  // The two memory limits, each at most $CLFILTERS_DEVICE_MEMORY (bytes, or with a K, M or G suffix) where that is set.
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t local_mem_bytes = 0;
  std::uint64_t max_alloc_bytes = 0;
  std::size_t max_work_group_size = 0;
  bool image_support = false;
  std::size_t image2d_max_width = 0;
  std::size_t image2d_max_height = 0;
  std::string extensions;
  // Which part of its parent this device is (split_device), or -1 for a whole device. A sub-device reports its
  // parent's name, indices and tuning; its compute units are its own.
  int sub_device_index = -1;

  bool has_extension(std::string_view ext) const;
  bool has_fp16() const { return has_extension("cl_khr_fp16"); }
  bool has_intel_subgroups() const { return has_extension("cl_intel_subgroups"); }
  // NVIDIA's compiler, which takes inline PTX (asm) in OpenCL C.
  bool takes_nvidia_ptx() const;
  // Build options for kernels that use border.cl's fast_exp2/fast_sqrt: their one-instruction .ftz
  // PTX forms on NVIDIA (" -D NV_PTX_FTZ=1"), else "" (native_exp2/native_sqrt).
  std::string fast_math_options() const { return takes_nvidia_ptx() ? " -D NV_PTX_FTZ=1" : ""; }
  std::vector<std::string> subgroup_extensions() const;
  std::string type_name() const;   // "GPU", "CPU", "accelerator", ...
  std::string index_name() const;  // "1:0"; a sub-device "1:0.2"
};

struct DeviceHandle {
  cl::Platform platform;
  cl::Device device;
  DeviceInfo info;
};

// Every device of every platform, in platform order. Throws NoOpenClError if there is no platform.
std::vector<DeviceHandle> list_devices();

// Picks a device. `selector` is an index ("0" = first device overall, "1:0" = platform 1 device 0)
// or a case-insensitive substring of the platform or device name ("nvidia", "pocl", "cpu").
// Empty: $CLFILTERS_DEVICE if set, else the first GPU, else the first CPU, else the first device.
DeviceHandle select_device(std::string_view selector = {});
// Several devices, for the calls that spread one image's bands or a batch's images over them: a comma-separated list
// of what select_device takes ("0,1", "1:0,pocl"), or of all, all-gpus, all-cpus (every device, GPU or CPU, in
// list_devices' order). An item "SEL/N" stands for the device SEL split into N sub-devices (split_device), so one CPU
// can act as several devices. Empty: {select_device()}. Throws std::invalid_argument naming the item for an empty
// item, one that names no device, a class with no device, or a device named twice (whole, or split and also named).
std::vector<DeviceHandle> select_devices(std::string_view list);
// `device` cut into `parts` sub-devices with equal compute units (clCreateSubDevices with
// CL_DEVICE_PARTITION_EQUALLY, compute_units / parts each), numbered by DeviceInfo::sub_device_index. Throws
// std::invalid_argument where the device cannot be split so: its driver offers no equal partition (most GPU
// drivers), or it has fewer than `parts` compute units; ClError where the driver refuses.
std::vector<DeviceHandle> split_device(const DeviceHandle& device, int parts);
// The handle of a device the caller has; its indices are those of list_devices(), or -1 where it is not listed.
DeviceHandle device_handle(cl_device_id device);

// The device's OpenCL C version as major * 10 + minor ("OpenCL C 1.2 pocl" -> 12), 0 when unreadable.
int opencl_c_version(const DeviceInfo& device);
// The OpenCL C version the kernels need (1.2).
inline constexpr int kMinOpenClC = 12;

// A variant the device refused (its build or its launch) and the one that ran instead, when "auto" fell back.
struct VariantFallback {
  std::string filter;
  std::string refused;
  std::string ran;
  std::string reason;  // the refusal, e.g. "CL_OUT_OF_RESOURCES in clEnqueueNDRangeKernel"
};

// A device with its context, an in-order profiling queue, and cached programs and kernels.
// Both constructors refuse (std::invalid_argument) a device whose OpenCL C version is below 1.2.
//
// Threads: a Context may be used from several threads at once. Every filter call may run on one Context from
// several threads, each getting the result it would get alone (a Python binding releases the GIL around them).
// Programs are built once and shared (a build holds the Context's lock, so threads wanting programs wait for it);
// kernel objects and scratch buffers are each thread's own, since kernel arguments are set per call; commands of
// all threads go to the one in-order queue, each call's in the order it enqueues them. Device images and events are
// the caller's: two threads must not write one image at once. set_profiling waits for the queue; switching it while
// another thread enqueues is allowed but moves that thread's later commands to the other queue.
class Context {
 public:
  explicit Context(std::string_view device_selector = {});
  explicit Context(DeviceHandle device);
  // Works inside an OpenCL setup the caller made (OpenCV's, ffmpeg's, pyopencl's, its own): adopts
  // `context`, `device` and the in-order `queue`, retaining them and releasing them when done, and never
  // destroys what it did not create. Commands go to `queue`. A queue without profiling is used as it
  // is: profiling() is then false and kernel_milliseconds gives NaN. Throws std::invalid_argument for
  // an out-of-order queue or one of another context or device.
  Context(cl_context context, cl_device_id device, cl_command_queue queue);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& info() const { return device_.info; }
  // Whether the device computes in host memory (a CPU device), so buffers over host memory are used in place.
  bool works_in_host_memory() const { return (device_.info.type & CL_DEVICE_TYPE_CPU) != 0; }
  const cl::Device& device() const { return device_.device; }
  cl::Context& context() { return context_; }
  // The queue every command goes to: profiling-enabled unless set_profiling(false).
  cl::CommandQueue& queue() { return profiling_ ? profiling_queue() : plain_queue(); }
  // Profiling events cost time on some drivers: on the H200 a 1080p call took ~7 us more on a
  // profiling queue. With profiling off, commands go to a
  // second in-order queue without it and kernel_milliseconds gives NaN. Switching finishes the queue
  // switched from, so commands stay in order across the switch.
  void set_profiling(bool on);
  bool profiling() const { return profiling_; }
  // In-order queues of the device beside queue() (index 0 or 1), without profiling, kept while the Context lives: a
  // large host call on a GPU moves its bands up on one and down on the other while queue() runs the kernels.
  cl::CommandQueue& side_queue(int index);

  // A built program for an embedded kernel file ("box_blur.cl") with build options.
  // The shared helper file common/border.cl is prepended. Cached in memory and on disk.
  cl::Program& program(std::string_view kernel_file, const std::string& options);
  // The same for a source string given by the caller; `name` labels it in errors.
  cl::Program& program_from_source(std::string_view name, const std::string& source, const std::string& options);
  // A kernel object from that program, cached (per thread) so repeated calls skip clCreateKernel.
  cl::Kernel& kernel(std::string_view kernel_file, const std::string& options, const std::string& name);
  // The tuning database's key for a kernel file on this device: the hash of its code as built (with the shared
  // header), comments and layout aside (kernel_code_hash), so a comment edit keeps the file's tuned entries; on a
  // GPU without the CPU variants' files, and with the 16-bit forms only for 16-bit classes (`sixteen_bit`).
  std::uint64_t source_hash(std::string_view kernel_file, bool sixteen_bit = false) const;

  // Allocates a device buffer (over `host` with CL_MEM_USE_HOST_PTR); throws ClError naming the size on failure.
  cl::Buffer buffer(cl_mem_flags flags, std::size_t bytes, void* host = nullptr);
  // Per-context memo of whether a device feature really works, for features a driver advertises but
  // cannot build (PoCL 5 lists cl_intel_subgroups yet lacks its block reads): `probe` runs once per context,
  // under its lock, and its answer is kept.
  bool feature_works(std::string_view feature, const std::function<bool()>& probe);

  // A read-write temporary kept between calls under `name`, grown when too small; filters use it
  // for intermediates so repeated calls allocate nothing. Each thread has its own; valid until the thread's next
  // call with that name.
  cl::Buffer& scratch_buffer(std::string_view name, std::size_t bytes);

  // Host memory the device copies to and from at full speed (page-locked on discrete GPUs): a buffer allocated with
  // CL_MEM_ALLOC_HOST_PTR and mapped until the Context goes.
  struct PinnedBuffer {
    cl::Buffer buffer;
    std::uint8_t* data = nullptr;
    std::size_t bytes = 0;
    cl::Event last_copy;  // the last copy from or to `data`: wait for it before touching `data` again
  };
  // A pinned staging buffer kept between calls under `name`, grown when too small; each thread has its own, valid
  // until the thread's next call with that name. Host-to-host calls on GPUs stage their transfers through these.
  PinnedBuffer& pinned_buffer(std::string_view name, std::size_t bytes);

  // The last fallback of this thread's calls on this Context, for a caller that reports which variant ran. The
  // filters record each one when "auto" falls back; record_fallback says whether this Context has not met it before
  // (the filters warn once, not at every frame of a video).
  bool record_fallback(VariantFallback fallback);
  std::optional<VariantFallback> last_fallback() const;

 private:
  struct Cached;
  DeviceHandle device_;
  cl::Context context_;
  cl::CommandQueue& plain_queue();
  void unmap_pinned(PinnedBuffer& pinned);
  cl::CommandQueue& profiling_queue();
  cl::CommandQueue queue_;        // with profiling; created on first use when the caller's queue has none
  cl::CommandQueue plain_queue_;  // without; created on first use
  std::atomic<bool> profiling_ = true;
  std::unique_ptr<Cached> cached_;
};

// Directory for on-disk caches: $XDG_CACHE_HOME/clfilters, else ~/.cache/clfilters.
std::string cache_directory();

}  // namespace clf
