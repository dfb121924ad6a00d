// 8-bit images that live on the device, so filters can be chained with no host round trip.
#pragma once

#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"

namespace clf {

// A packed, row-major u8 image in a device buffer: 1 channel (uchar per pixel) or 4 (RGBA, one
// 32-bit word per pixel, R in the low byte).
struct DeviceImage {
  cl::Buffer buffer;
  int width = 0;
  int height = 0;
  int channels = 1;

  std::size_t byte_size() const { return static_cast<std::size_t>(width) * height * channels; }

  static DeviceImage allocate(Context& ctx, int width, int height, int channels);
  // Blocking upload of a u8 image with 1 or 4 channels.
  static DeviceImage upload(Context& ctx, const Image& image);
  Image download(Context& ctx) const;
};

// Timings of one filter call (docs/SPEC.md "Timing").
struct Timing {
  double kernel_ms = 0;  // sum of the profiling intervals of every kernel the call enqueued
  double total_ms = 0;   // host wall clock from host input to host output (upload, kernels, download)
};

// Sum of END - START over the events, in milliseconds. Waits for them. NaN for commands enqueued with
// profiling off (Context::set_profiling).
double kernel_milliseconds(const std::vector<cl::Event>& events);

// How a synchronous call waits for its commands: clFinish, or a flush and then polling the last event's
// status (a busy wait: one host core spins, and a short call can return sooner than clFinish lets it).
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
