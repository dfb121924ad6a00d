// SPDX-License-Identifier: Apache-2.0
// Images that live on the device, so filters can be chained with no host round trip.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/export.hpp"
#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace CLF_API clf {

// A row-major image in a device buffer: 1 channel or 4 (RGBA, R first) of u8 samples (RGBA8: one 32-bit word per
// pixel, R in the low byte) or u16 samples (little-endian uint16; RGBA16: 8 bytes a pixel). Images clfilters
// allocates are packed; a view of the caller's buffer (view()) may start at an offset and have a row pitch, as an
// OpenCV UMat or an ffmpeg frame does.
struct DeviceImage {
  cl::Buffer buffer;
  int width = 0;
  int height = 0;
  int channels = 1;
  std::size_t offset = 0;            // bytes from the buffer's start to pixel (0, 0)
  std::size_t row_pitch = 0;         // bytes from one row's start to the next; 0 means packed (width * pixel_bytes())
  SampleType type = SampleType::u8;  // u8 or u16

  std::size_t pixel_bytes() const { return static_cast<std::size_t>(channels) * sample_size(type); }
  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * pixel_bytes(); }
  std::size_t pitch() const { return row_pitch ? row_pitch : row_bytes(); }
  // The bytes of the pixels alone: height * row_bytes().
  std::size_t byte_size() const { return row_bytes() * height; }
  bool packed() const { return offset == 0 && pitch() == row_bytes(); }

  static DeviceImage allocate(Context& ctx, int width, int height, int channels, SampleType type = SampleType::u8);
  // Blocking upload of a u8 or u16 image with 1 or 4 channels.
  static DeviceImage upload(Context& ctx, const Image& image);
  // A view of the caller's buffer, which must belong to ctx's context; retained while the view lives. Throws
  // std::invalid_argument for a buffer of another context, a pitch below a row, or a buffer smaller than the
  // view reaches. Filters take views as they take their own images: a packed view with no copy; a pitched or
  // offset one in place where the variant reads the layout itself (the box blur's separable_sliding, fused_sliding and
  // cpu_bands, and its RGBA fused_prefix, fused_packed and fused_wide for rows and offsets of whole 8-pixel blocks;
  // Sobel's buffer variants, row_tile and strip where docs/variants.md says; epsilon's regblock; the bilateral
  // unrolled), else through a packed copy on the device (clEnqueueCopyBufferRect), in and out.
  static DeviceImage view(Context& ctx, cl_mem buffer, int width, int height, int channels, std::size_t offset = 0,
                          std::size_t row_pitch = 0, SampleType type = SampleType::u8);
  // A packed image over host memory at `data` (buffer_over_host). The memory must outlive the image.
  static DeviceImage over_host(Context& ctx, void* data, int width, int height, int channels, bool upload,
                               std::string_view scratch = {}, SampleType type = SampleType::u8);
  Image download(Context& ctx) const;
};

// Host memory the kernels may use in place must be aligned to 16 bytes: the widest type they access through a
// pointer is uint4. NumPy and malloc give 16; Image memory is aligned to 128.
inline constexpr std::size_t kHostBufferAlignment = 16;
// A device buffer over `bytes` of host memory at `data`: that memory itself (CL_MEM_USE_HOST_PTR) where the
// device computes in host memory (Context::works_in_host_memory) and `data` is aligned to kHostBufferAlignment;
// else a device buffer, filled from `data` when `upload` (done reading `data` when it returns, so that a call failing
// later leaves no copy from the caller's memory in flight; large copies go through pinned staging). That buffer is
// new, or with `scratch` named, the calling thread's Context::scratch_buffer of that name, kept for the next call of
// the size. The memory must outlive the buffer.
cl::Buffer buffer_over_host(Context& ctx, void* data, std::size_t bytes, bool upload, std::string_view scratch = {});
// Makes the device's writes to `buffer` visible at `data`: a map and unmap where the buffer is that memory
// (buffer_over_host in place), else a blocking read of its first `bytes` (through pinned staging when large).
void read_to_host(Context& ctx, const cl::Buffer& buffer, void* data, std::size_t bytes);

// How a device-resident call works with the caller's buffers and queue: it first waits for the caller's
// events (enqueue_wait), then runs on packed images; a packed view is used as it is, a pitched or offset one
// through a packed scratch copy before (packed_input) or after (on_packed_images) the filter. Every event
// the call enqueued, copies included, is returned, last one last: the caller's queue can wait on it with no
// clFinish.

// Makes the commands enqueued next on ctx.queue() wait for `wait` (events of any queue of ctx's context),
// appending the barrier's event to `events`. Nothing when `wait` is empty.
void enqueue_wait(Context& ctx, const std::vector<cl::Event>& wait, std::vector<cl::Event>& events);
// `view` itself when packed; else a packed copy of it (the copy's event appended to `events`) in the scratch
// buffer named `scratch` (Context::scratch_buffer), valid until its next use.
DeviceImage packed_input(Context& ctx, const DeviceImage& view, std::vector<cl::Event>& events,
                         std::string_view scratch = "view input");
// Copies a packed image back into the region of `view` (the copy's event appended to `events`); nothing when
// they are the same image.
void unpack_output(Context& ctx, const DeviceImage& packed, const DeviceImage& view, std::vector<cl::Event>& events);
// enqueue_wait, then `enqueue(packed input, packed output)`, then the copy back into a pitched or offset output.
std::vector<cl::Event> on_packed_images(
    Context& ctx, const DeviceImage& input, DeviceImage& output, const std::vector<cl::Event>& wait,
    const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& enqueue);

// Timings of one filter call (docs/SPEC.md "Timing").
struct Timing {
  double kernel_ms = 0;  // sum of the profiling intervals of every kernel the call enqueued
  double total_ms = 0;   // host wall clock from host input to host output (upload, kernels, download)
};

// The public functions of a filter from one image to another of its size, channels and sample type (u8, or u16
// where the filter takes it), whole, for code that runs any such filter: kBoxBlurCalls holds box_blur_variants,
// box_blur_choose, ... (likewise kBilateralCalls, kEpsilonCalls).
template <class Params>
struct ImageFilterCalls {
  const char* name;  // the filter's command-line name, "box-blur"
  const std::vector<VariantInfo>& (*variants)();
  VariantChoice (*choose)(Context&, const Params&, std::string_view variant, int width, int height, int channels,
                          const TuningConfig&, SampleType);
  std::optional<std::string> (*unsupported)(const DeviceInfo&, std::string_view variant, const Params&, int width,
                                            int height, int channels, const TuningConfig&, SampleType);
  void (*prepare)(Context&, const Params&, std::string_view variant, int width, int height, int channels,
                  const TuningConfig&, SampleType);
  std::vector<cl::Event> (*on_device)(Context&, const DeviceImage& input, DeviceImage& output, const Params&,
                                      std::string_view variant, const TuningConfig&,
                                      const std::vector<cl::Event>& wait);
  Image (*on_host)(Context&, const Image& input, const Params&, std::string_view variant, Timing*);
  // The host call over several devices (box_blur(devices, ...)).
  Image (*on_devices)(const std::vector<Context*>&, const Image& input, const Params&, std::string_view variant,
                      Timing*) = nullptr;
};

// Sum of END - START over the events, in milliseconds. Waits for them. NaN for commands enqueued with
// profiling off (Context::set_profiling).
double kernel_milliseconds(const std::vector<cl::Event>& events);

// How a synchronous call waits: clFinish, or a flush and then polling the last event's status (a busy wait: one
// host core spins, a short call can return sooner than clFinish lets it; on a CPU device, clFinish as well).
enum class WaitMode { finish, spin };
// Waits until the commands behind `events` (enqueued in order on ctx.queue()) have completed.
void wait_for(Context& ctx, const std::vector<cl::Event>& events, WaitMode mode);

// Profiling off for a scope, back on when it ends, exceptions included: how a latency-minded user runs a call
// (profiling events cost the H200 ~7 us per 1080p call).
class ProfilingOff {
 public:
  explicit ProfilingOff(Context& ctx);
  ~ProfilingOff();
  ProfilingOff(const ProfilingOff&) = delete;
  ProfilingOff& operator=(const ProfilingOff&) = delete;

 private:
  Context& ctx_;
};

}  // namespace clf
