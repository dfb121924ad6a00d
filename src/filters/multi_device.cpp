// SPDX-License-Identifier: Apache-2.0
#include "filters/multi_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "filters/band_dispenser.hpp"
#include "runtime/cache_slot.hpp"
#include "runtime/host_transfer.hpp"

namespace clf {
namespace {

// The first exception of several threads, kept until they have all ended.
class FirstError {
 public:
  void keep(std::exception_ptr e) {
    const std::lock_guard lock(mutex_);
    if (!error_) error_ = std::move(e);
    failed_ = true;
  }
  bool failed() const { return failed_; }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> failed_ = false;
};

// Waits for every command a failed band may have left on the device: its kernels may still read the caller's input,
// and the call's memory must outlive them. Errors here are the device's and already on their way.
void finish_quietly(Context& ctx) noexcept {
  try {
    ctx.queue().finish();
    if (!ctx.works_in_host_memory()) {
      ctx.side_queue(0).finish();
      ctx.side_queue(1).finish();
    }
  } catch (...) {
  }
}

// The caller's whole input and output as buffers of a CPU device that computes bands as row ranges of them.
struct WholeImage {
  cl::Buffer in, out;
};

// Whether `ctx` computes in the caller's memory itself: a CPU device, both images aligned (buffer_over_host uses them
// in place) and each within its allocation limit.
bool works_on_whole_image(const Context& ctx, const BandedImage& image) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % kHostBufferAlignment == 0; };
  const std::size_t rows = std::size_t(image.height);
  return ctx.works_in_host_memory() && aligned(image.in) && aligned(image.out) &&
         std::max(image.in_row_bytes, image.out_row_bytes) * rows <= ctx.info().max_alloc_bytes;
}

// Makes the device's writes to `bytes` of `buffer` from `offset` on visible in the host memory it is over (OpenCL 1.2,
// 5.4.3: a map), once the commands before are done.
void map_to_host(Context& ctx, const cl::Buffer& buffer, std::size_t offset, std::size_t bytes) {
  cl_int err = CL_SUCCESS;
  void* mapped = ctx.queue().enqueueMapBuffer(buffer, CL_TRUE, CL_MAP_READ, offset, bytes, nullptr, nullptr, &err);
  check_cl(err, "clEnqueueMapBuffer");
  cl::Event unmapped;
  check_cl(ctx.queue().enqueueUnmapMemObject(buffer, mapped, nullptr, &unmapped), "clEnqueueUnmapMemObject");
  check_cl(unmapped.wait(), "clWaitForEvents");
}

}  // namespace

void check_device_list(std::string_view words, const std::vector<Context*>& devices) {
  if (devices.empty()) throw std::invalid_argument(fmt::format("{} needs at least one device", words));
  for (const Context* ctx : devices)
    if (!ctx) throw std::invalid_argument(fmt::format("{}: a device of the list is null", words));
}

namespace {

// `lanes` threads a device, each running lane(ctx, device, worker, error) once (worker: the lane's index over every
// device's lanes); `error.failed()` turns true once any lane has thrown. Rethrows the first error after all have
// ended.
void run_lanes(
    const std::vector<Context*>& devices, int lanes,
    const std::function<void(Context& ctx, std::size_t device, std::size_t worker, const FirstError& error)>& lane) {
  FirstError error;
  // Taken in the same order at every call, so that a device's lanes find the buffers and kernels of the call before.
  const std::vector<CacheSlot> slots(devices.size() * std::size_t(lanes));
  {
    std::vector<std::jthread> threads;
    for (std::size_t d = 0; d < devices.size(); ++d)
      for (std::size_t w = d * std::size_t(lanes); w < (d + 1) * std::size_t(lanes); ++w)
        threads.emplace_back([&, d, w] {
          const WorkOnSlot working(slots[w]);
          try {
            lane(*devices[d], d, w, error);
          } catch (...) {
            error.keep(std::current_exception());
          }
        });
  }
  error.rethrow();
}

}  // namespace

void share_out(const std::vector<Context*>& devices, std::size_t count, int lanes,
               const std::function<void(Context& ctx, std::size_t device, std::size_t item)>& work) {
  std::atomic<std::size_t> next = 0;
  run_lanes(devices, lanes, [&](Context& ctx, std::size_t d, std::size_t, const FirstError& error) {
    for (std::size_t i = next++; i < count && !error.failed(); i = next++) work(ctx, d, i);
  });
}

void on_each_device(const std::vector<Context*>& devices,
                    const std::function<void(Context& ctx, std::size_t device)>& work) {
  // One lane a device, in share_out's order: each lane finds the kernels built here.
  run_lanes(devices, 1, [&](Context& ctx, std::size_t d, std::size_t, const FirstError&) { work(ctx, d); });
}

std::size_t banded_bytes(const BandedImage& image) {
  return std::max(image.in_row_bytes, image.out_row_bytes) * std::size_t(image.height);
}

int multi_device_band_rows(const std::vector<Context*>& devices, int width, int height, int channels, std::size_t bytes,
                           int reach, int bands_per_device) {
  if (const char* forced = std::getenv("CLFILTERS_BAND_ROWS"); forced && *forced)
    return std::clamp(std::atoi(forced), 1, std::max(1, height));
  const int bands = bands_per_device * int(devices.size());
  const int wanted = (height + bands - 1) / bands;
  int rows = std::max({wanted, 3 * reach, 16});
  for (const Context* ctx : devices)
    if (const auto fits = host_call_band_rows(ctx->info(), width, height, channels, bytes, reach))
      rows = std::min(rows, *fits);
  return std::clamp(rows, 1, std::max(1, height));
}

void filter_bands_on_devices(const std::vector<Context*>& devices, const BandedImage& image, const BandCall& call,
                             std::vector<cl::Event>& events) {
  bool any_gpu = false, all_in_place = true;
  for (const Context* ctx : devices) any_gpu = any_gpu || !ctx->works_in_host_memory();
  // Made before the lanes start: buffers over host memory cost no copy, and one a device serves all its bands.
  std::vector<std::optional<WholeImage>> whole(devices.size());
  for (std::size_t d = 0; d < devices.size(); ++d) {
    Context& ctx = *devices[d];
    if (!works_on_whole_image(ctx, image) || !call.takes_row_range || !call.takes_row_range(d)) {
      all_in_place = false;
      continue;
    }
    // The filter only reads its input: the buffer never writes through the const_cast.
    whole[d] = WholeImage{buffer_over_host(ctx, const_cast<std::uint8_t*>(image.in),
                                           image.in_row_bytes * std::size_t(image.height), true),
                          buffer_over_host(ctx, image.out, image.out_row_bytes * std::size_t(image.height), false)};
  }
  // Devices alike (sub-devices of one, or twin GPUs) run at one speed: bands of equal size from the start, one a
  // device where all compute in place, since every band costs a launch and a wait. Otherwise each lane's first band
  // is short (a slow device's first band must not outlast the rest), and later ones follow its measured speed.
  const bool alike = std::all_of(devices.begin(), devices.end(), [&](const Context* ctx) {
    const DeviceInfo &a = ctx->info(), &b = devices.front()->info();
    return a.name == b.name && a.type == b.type && a.compute_units == b.compute_units;
  });
  const int band_rows = multi_device_band_rows(devices, image.width, image.height, image.channels, banded_bytes(image),
                                               image.reach, all_in_place ? (alike ? 1 : 2) : 8);
  const int lanes = any_gpu ? 2 : 1;
  // At most band_rows a band: what every device holds, and what the programs were built for.
  const int min_rows = std::min(band_rows, std::max(16, 3 * image.reach));
  BandDispenser dispenser(image.height, devices.size() * std::size_t(lanes), alike ? band_rows : min_rows, min_rows,
                          band_rows);
  std::mutex events_mutex;
  const auto filter_band = [&](Context& ctx, std::size_t d, int y0, int y1) {
    const int in0 = std::max(0, y0 - image.reach), in1 = std::min(image.height, y1 + image.reach);
    const std::size_t in_bytes = std::size_t(in1 - in0) * image.in_row_bytes;
    const std::uint8_t* src = image.in + std::size_t(in0) * image.in_row_bytes;
    std::uint8_t* dst = image.out + std::size_t(y0) * image.out_row_bytes;
    const std::size_t out_offset = std::size_t(y0 - in0) * image.out_row_bytes;
    const std::size_t out_bytes = std::size_t(y1 - y0) * image.out_row_bytes;
    DeviceImage in{
        .buffer = {}, .width = image.width, .height = in1 - in0, .channels = image.channels, .type = image.type};
    std::vector<cl::Event> band_events;
    try {
      if (whole[d]) {
        in.buffer = whole[d]->in;
        in.height = image.height;
        band_events = call.run(ctx, d, in, whole[d]->out, {y0, y1}, {});
        map_to_host(ctx, whole[d]->out, std::size_t(y0) * image.out_row_bytes, out_bytes);
      } else {
        // The band's output rows beside its own are computed against a cut image: they stay on the device.
        const cl::Buffer out = ctx.scratch_buffer("multi_device.out", std::size_t(in1 - in0) * image.out_row_bytes);
        const RowRange all_rows{0, in1 - in0};
        if (ctx.works_in_host_memory()) {
          // The filter only reads its input: the buffer never writes through the const_cast.
          in.buffer = buffer_over_host(ctx, const_cast<std::uint8_t*>(src), in_bytes, true, "multi_device.in");
          band_events = call.run(ctx, d, in, out, all_rows, {});
          check_cl(ctx.queue().enqueueReadBuffer(out, CL_TRUE, out_offset, out_bytes, dst), "clEnqueueReadBuffer");
        } else {
          in.buffer = ctx.scratch_buffer("multi_device.in", in_bytes);
          const cl::Event uploaded = write_staged(ctx, in.buffer, src, in_bytes, {.queue = &ctx.side_queue(0)});
          band_events = call.run(ctx, d, in, out, all_rows, {uploaded});
          std::vector<cl::Event> computed;
          if (!band_events.empty()) computed.push_back(band_events.back());
          read_staged(ctx, out, dst, out_bytes,
                      {.device_offset = out_offset, .queue = &ctx.side_queue(1), .wait = std::move(computed)});
        }
      }
    } catch (...) {
      finish_quietly(ctx);
      throw;
    }
    const std::lock_guard lock(events_mutex);
    for (cl::Event& e : band_events) events.push_back(std::move(e));
  };
  run_lanes(devices, lanes, [&](Context& ctx, std::size_t d, std::size_t w, const FirstError& error) {
    while (!error.failed()) {
      const auto band = dispenser.take(w);
      if (!band) return;
      const auto start = std::chrono::steady_clock::now();
      filter_band(ctx, d, band->y0, band->y1);
      dispenser.done(w, band->y1 - band->y0,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  });
}

std::vector<Image> filter_batch(const std::vector<Context*>& devices, std::size_t count,
                                const std::function<Image(Context& ctx, std::size_t item, Timing* timing)>& run,
                                Timing* timing) {
  check_device_list("a batch", devices);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Image> results(count);
  std::vector<Timing> timings(count);
  share_out(devices, count, 2, [&](Context& ctx, std::size_t, std::size_t i) {
    results[i] = run(ctx, i, timing ? &timings[i] : nullptr);
  });
  if (timing) {
    timing->kernel_ms = 0;
    for (const Timing& t : timings) timing->kernel_ms += t.kernel_ms;
    timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return results;
}

}  // namespace clf
