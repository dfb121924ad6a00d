// SPDX-License-Identifier: Apache-2.0
#include "filters/image_call.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <limits>
#include <thread>

#include "runtime/host_transfer.hpp"
#include "runtime/launch.hpp"

namespace clf {

void check_image_size(int width, int height) {
  if (std::int64_t(width) * height * 4 >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (at most 2^29 pixels)", width, height));
}

bool is_variant_refusal(const ClError& e) {
  const std::string& call = e.call();
  if (call.starts_with("clBuildProgram")) return e.code() == CL_BUILD_PROGRAM_FAILURE;
  if (!call.starts_with("clEnqueueNDRangeKernel")) return false;
  return e.code() == CL_OUT_OF_RESOURCES || e.code() == CL_INVALID_WORK_GROUP_SIZE ||
         e.code() == CL_INVALID_WORK_ITEM_SIZE || e.code() == CL_MEM_OBJECT_ALLOCATION_FAILURE;
}

std::optional<std::string> temporary_problem(const DeviceInfo& device, std::string_view variant, std::size_t bytes) {
  if (bytes > device.max_alloc_bytes)
    return fmt::format("{} needs a {} MiB temporary, above the device's {} MiB allocation limit", variant, bytes >> 20,
                       device.max_alloc_bytes >> 20);
  return std::nullopt;
}

RowBands row_bands(const DeviceInfo& device, int per_unit, int height) {
  const int wanted = std::max(1, int(device.compute_units) * per_unit);
  const int rows = std::max(1, (height + wanted - 1) / wanted);
  return {rows, (height + rows - 1) / rows};
}

const std::vector<Tunable>& row_band_tunables() {
  static const std::vector<Tunable> tunables{
      {"bands_per_unit", {4, 2, 8, 16}, "bands of rows per compute unit, one work-item each"}};
  return tunables;
}

RowBands row_bands(const DeviceInfo& device, const VariantInfo& info, const TuningConfig& config, int height) {
  return row_bands(device, tunable_value(config, info, "bands_per_unit"), height);
}

RingRowsLayout ring_rows_layout(const DeviceInfo& device, const VariantInfo& info, const TuningConfig& config,
                                int width, int rows, int channels, int radius, const RingRowsShape& shape) {
  // Each band's first 2r rows are padded twice (a band's rows and its halo), a small share of the taps' work.
  const RowBands bands = row_bands(device, info, config, rows);
  return {bands.rows,
          bands.count,
          int(round_up(std::size_t(width + 2 * radius + shape.overrun), std::size_t(shape.align))),
          channels == 4 ? 3 : 1,
          2 * radius + 1,
          shape.element_bytes};
}

std::vector<std::string> fallback_variants(const std::string& rule, const std::vector<VariantInfo>& variants,
                                           const std::string& failed) {
  std::vector<std::string> out;
  for (const std::string& v : {rule, variants.empty() ? rule : variants.front().name})
    if (v != failed && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

void warn_fallback(Context& ctx, std::string_view filter, const std::string& failed, const ClError& why,
                   const std::string& ran) {
  const std::string reason =
      fmt::format("{} in {}", cl_error_name(why.code()), why.call().substr(0, why.call().find('(')));
  if (ctx.record_fallback({std::string(filter), failed, ran, reason}))
    fmt::print(stderr, "clfilters: warning: {} variant {} was refused ({}); ran {} instead\n", filter, failed, reason,
               ran);
}

cl_uint constant_bits(const Border& border, int channels) {
  const cl_uint v = border.mode == BorderMode::constant ? cl_uint(border.value) : 0u;
  return channels == 4 ? v | (v << 8) | (v << 16) | (v << 24) : v;
}

namespace {

// Device buffers a band goes through: its input is uploaded into one of two while the other's kernels run; its
// output waits in one of three for its download.
constexpr int kInputSlots = 2, kOutputSlots = 3;

struct Band {
  int y0, y1;    // the output rows it gives
  int in0, in1;  // the input rows it reads: `reach` more on each side, within the image
};

using DeviceCall = std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>;

// Runs `call` on `input` band by band into `result` (same shape): band b's upload (side queue 0) overlaps the
// kernels of band b - 1 (ctx.queue()) and the download of band b - 2 (side queue 1, on a thread of its own, since
// the staged copies keep host threads busy). Band b's kernels wait for its upload and for the output slot's last
// download; its upload waits for the input slot's last kernels.
void filter_host_bands(Context& ctx, const BandedImage& input, int band_rows, const DeviceCall& call,
                       std::vector<cl::Event>& events) {
  const std::size_t row_bytes = input.in_row_bytes;
  const int reach = input.reach;
  const int count = (input.height + band_rows - 1) / band_rows;
  const auto band = [&](int b) {
    const int y0 = b * band_rows, y1 = std::min(input.height, y0 + band_rows);
    return Band{y0, y1, std::max(0, y0 - reach), std::min(input.height, y1 + reach)};
  };
  const std::size_t slot_bytes = std::size_t(std::min(input.height, band_rows + 2 * reach)) * row_bytes;
  std::vector<cl::Buffer> in_slots, out_slots;
  for (int k = 0; k < kInputSlots; ++k)
    in_slots.push_back(ctx.scratch_buffer(fmt::format("host_bands.in.{}", k), slot_bytes));
  for (int k = 0; k < kOutputSlots; ++k)
    out_slots.push_back(ctx.scratch_buffer(fmt::format("host_bands.out.{}", k), slot_bytes));
  cl::CommandQueue& up = ctx.side_queue(0);
  cl::CommandQueue& down = ctx.side_queue(1);

  // computed[b]: band b's kernels are enqueued (the marker after them); downloaded[b]: its rows are in `result`.
  std::vector<std::promise<cl::Event>> computed(static_cast<std::size_t>(count));
  std::vector<std::promise<void>> downloaded(static_cast<std::size_t>(count));
  std::vector<std::future<void>> downloads;
  for (auto& d : downloaded) downloads.push_back(d.get_future());
  std::vector<cl::Event> kernels_done(static_cast<std::size_t>(count));
  int next_computed = 0;
  {
    std::jthread downloader([&] {
      int b = 0;
      try {
        for (; b < count; ++b) {
          cl::Event after = computed[std::size_t(b)].get_future().get();
          const Band k = band(b);
          read_staged(ctx, out_slots[std::size_t(b % kOutputSlots)], input.out + std::size_t(k.y0) * row_bytes,
                      std::size_t(k.y1 - k.y0) * row_bytes,
                      {.device_offset = std::size_t(k.y0 - k.in0) * row_bytes, .queue = &down, .wait = {after}});
          downloaded[std::size_t(b)].set_value();
        }
      } catch (...) {
        for (; b < count; ++b) downloaded[std::size_t(b)].set_exception(std::current_exception());
      }
    });
    try {
      for (int b = 0; b < count; ++b) {
        const Band k = band(b);
        std::vector<cl::Event> slot_read;
        if (b >= kInputSlots) slot_read.push_back(kernels_done[std::size_t(b - kInputSlots)]);
        cl::Event uploaded =
            write_staged(ctx, in_slots[std::size_t(b % kInputSlots)], input.in + std::size_t(k.in0) * row_bytes,
                         std::size_t(k.in1 - k.in0) * row_bytes, {.queue = &up, .wait = std::move(slot_read)});
        if (b >= kOutputSlots) downloads[std::size_t(b - kOutputSlots)].get();
        std::vector<cl::Event> before{uploaded};
        check_cl(ctx.queue().enqueueBarrierWithWaitList(&before), "clEnqueueBarrierWithWaitList");
        const DeviceImage in{.buffer = in_slots[std::size_t(b % kInputSlots)],
                             .width = input.width,
                             .height = k.in1 - k.in0,
                             .channels = input.channels,
                             .type = input.type};
        DeviceImage out{.buffer = out_slots[std::size_t(b % kOutputSlots)],
                        .width = input.width,
                        .height = k.in1 - k.in0,
                        .channels = input.channels,
                        .type = input.type};
        for (cl::Event& e : call(in, out)) events.push_back(std::move(e));
        // The queue is in order: the marker completes after the band's kernels, however many they are.
        check_cl(ctx.queue().enqueueMarkerWithWaitList(nullptr, &kernels_done[std::size_t(b)]),
                 "clEnqueueMarkerWithWaitList");
        check_cl(ctx.queue().flush(), "clFlush");
        computed[std::size_t(b)].set_value(kernels_done[std::size_t(b)]);
        next_computed = b + 1;
      }
    } catch (...) {
      // The downloader waits for bands that will not come.
      for (int b = next_computed; b < count; ++b) computed[std::size_t(b)].set_exception(std::current_exception());
      throw;
    }
  }
  for (auto& d : downloads)
    if (d.valid()) d.get();  // the first download error, if any
}

}  // namespace

std::optional<int> host_call_band_rows(const DeviceInfo& device, int width, int height, int channels, std::size_t bytes,
                                       int reach) {
  if (reach < 0 || (channels != 1 && channels != 4) || height < 1 || width < 1) return std::nullopt;
  // The kernels index pixels in 32 bits (check_image_size): a band with its halo stays below 2^29 pixels, so an image
  // of more goes through in bands wherever it is.
  constexpr std::int64_t kMostPixels = (std::int64_t(1) << 29) - 1;
  const std::int64_t index_rows = kMostPixels / width - 2 * std::int64_t(reach);
  const bool indexable = std::int64_t(width) * height <= kMostPixels;
  std::int64_t rows = height;
  if (const char* forced = std::getenv("CLFILTERS_BAND_ROWS"); forced && *forced) {
    rows = std::max(1, std::atoi(forced));
  } else if (bytes > device.max_alloc_bytes || 2 * bytes > device.global_mem_bytes) {
    // One piece needs its input and its output on the device, each one allocation. The bands' slots together take
    // at most half the device's memory, each within the allocation limit.
    const std::uint64_t slot_bytes = std::min<std::uint64_t>(
        device.max_alloc_bytes, device.global_mem_bytes / (2 * std::uint64_t(kInputSlots + kOutputSlots)));
    const std::uint64_t slot_rows = slot_bytes / (bytes / std::size_t(height));
    if (slot_rows < std::uint64_t(2 * reach + 1))
      throw std::invalid_argument(fmt::format(
          "an image of {} bytes does not fit the device ({} bytes, {} an allocation), nor does a band of one row "
          "and the {} rows each side its window reads",
          bytes, device.global_mem_bytes, device.max_alloc_bytes, reach));
    rows = std::int64_t(std::min<std::uint64_t>(slot_rows - std::uint64_t(2 * reach), std::uint64_t(height)));
  } else if (indexable) {
    return std::nullopt;
  }
  if (!indexable && index_rows < 1)
    throw std::invalid_argument(fmt::format(
        "an image of {}x{} pixels is cut into bands of at most 2^29 pixels, but rows of {} pixels with the {} rows "
        "each side the window reads do not fit one",
        width, height, width, reach));
  if (!indexable) rows = std::min(rows, index_rows);
  if (rows >= height) return std::nullopt;
  return int(rows);
}

void filter_host_memory(Context& ctx, const BandedImage& image, const DeviceCall& call,
                        std::vector<cl::Event>& events) {
  const std::size_t bytes = image.in_row_bytes * std::size_t(image.height);
  if (const auto rows =
          host_call_band_rows(ctx.info(), image.width, image.height, image.channels, bytes, image.reach)) {
    filter_host_bands(ctx, image, *rows, call, events);
    return;
  }
  // The filter only reads its input: over_host's buffer never writes through the const_cast.
  // On a GPU the device images are kept between calls (scratch buffers), so a stream of same-sized calls allocates
  // nothing.
  const DeviceImage d_in = DeviceImage::over_host(ctx, const_cast<std::uint8_t*>(image.in), image.width, image.height,
                                                  image.channels, true, "host_call.in", image.type);
  DeviceImage d_out = DeviceImage::over_host(ctx, image.out, image.width, image.height, image.channels, false,
                                             "host_call.out", image.type);
  for (cl::Event& e : call(d_in, d_out)) events.push_back(std::move(e));
  read_to_host(ctx, d_out.buffer, image.out, d_out.byte_size());
}

Image filter_host_image(Context& ctx, const Image& input, const DeviceCall& call, std::vector<cl::Event>& events,
                        int reach) {
  Image result = Image::uninitialized(input.width, input.height, input.channels, input.type);
  filter_host_memory(ctx,
                     {input.data.data(), result.data.data(), input.width, input.height, input.channels, input.type,
                      input.row_bytes(), result.row_bytes(), reach},
                     call, events);
  return result;
}

namespace {

// Enqueues `kernel` of rgb_layout.cl over `pixels`, `group` pixels a work-item.
cl::Event convert_rgb(Context& ctx, const char* kernel, std::size_t group, const cl::Buffer& in, const cl::Buffer& out,
                      std::size_t pixels) {
  // The kernels count pixels in 32 bits (the filters' own limit, check_image_size, is far below).
  if (pixels > std::numeric_limits<cl_uint>::max())
    throw std::invalid_argument(fmt::format("an RGB image of {} pixels is too large (below 2^32)", pixels));
  cl::Kernel& k = ctx.kernel("rgb_layout.cl", "", kernel);
  check_cl(k.setArg(0, in), "clSetKernelArg");
  check_cl(k.setArg(1, out), "clSetKernelArg");
  check_cl(k.setArg(2, cl_uint(pixels)), "clSetKernelArg");
  cl::Event e;
  check_cl(ctx.queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange((pixels + group - 1) / group), cl::NullRange,
                                            nullptr, &e),
           "clEnqueueNDRangeKernel");
  return e;
}

}  // namespace

cl::Event enqueue_rgba_from_rgb(Context& ctx, const cl::Buffer& rgb, const cl::Buffer& rgba, std::size_t pixels,
                                SampleType type) {
  return type == SampleType::u16 ? convert_rgb(ctx, "rgba16_from_rgb16", 4, rgb, rgba, pixels)
                                 : convert_rgb(ctx, "rgba_from_rgb", 16, rgb, rgba, pixels);
}

cl::Event enqueue_rgb_from_rgba(Context& ctx, const cl::Buffer& rgba, const cl::Buffer& rgb, std::size_t pixels,
                                SampleType type) {
  return convert_rgb(ctx, type == SampleType::u16 ? "rgb16_from_rgba16" : "rgb_from_rgba", 4, rgba, rgb, pixels);
}

void filter_host_rgb(Context& ctx, const std::uint8_t* rgb_in, std::uint8_t* rgb_out, int width, int height,
                     const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& call,
                     std::vector<cl::Event>& events, SampleType type) {
  const std::size_t pixels = std::size_t(width) * height, bytes = sample_size(type);
  // The filter only reads its input: the buffer never writes through the const_cast.
  const cl::Buffer in =
      buffer_over_host(ctx, const_cast<std::uint8_t*>(rgb_in), pixels * 3 * bytes, true, "host_call.in");
  const cl::Buffer out = buffer_over_host(ctx, rgb_out, pixels * 3 * bytes, false, "host_call.out");
  const DeviceImage rgba_in{.buffer = ctx.scratch_buffer("rgb input as rgba", pixels * 4 * bytes),
                            .width = width,
                            .height = height,
                            .channels = 4,
                            .type = type};
  DeviceImage rgba_out{.buffer = ctx.scratch_buffer("rgb output as rgba", pixels * 4 * bytes),
                       .width = width,
                       .height = height,
                       .channels = 4,
                       .type = type};
  events.push_back(enqueue_rgba_from_rgb(ctx, in, rgba_in.buffer, pixels, type));
  for (cl::Event& e : call(rgba_in, rgba_out)) events.push_back(std::move(e));
  events.push_back(enqueue_rgb_from_rgba(ctx, rgba_out.buffer, out, pixels, type));
  read_to_host(ctx, out, rgb_out, pixels * 3 * bytes);
}

Image in_device_layout(const Image& input, Alpha alpha, const std::function<Image(const Image&)>& run) {
  if (input.channels != 2 || alpha == Alpha::filtered) {
    Image converted;
    Image result = run(in_filter_layout(input, converted));
    return result.channels == input.channels ? result : from_filter_layout(result, input.channels);
  }
  // Grey and alpha samples of `bytes` each, interleaved: the grey plane is filtered, alpha is copied.
  const std::size_t bytes = sample_size(input.type);
  Image grey = Image::uninitialized(input.width, input.height, 1, input.type);
  for (std::size_t i = 0; i < input.pixel_count(); ++i)
    std::memcpy(grey.data.data() + i * bytes, input.data.data() + 2 * i * bytes, bytes);
  const Image filtered = run(grey);
  Image result = input;
  for (std::size_t i = 0; i < input.pixel_count(); ++i)
    std::memcpy(result.data.data() + 2 * i * bytes, filtered.data.data() + i * bytes, bytes);
  return result;
}

Image filter_host_image(Context& ctx, const Image& input, Alpha alpha,
                        const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& call,
                        std::vector<cl::Event>& events, int reach) {
  // RGB is converted on the device in one piece; where bands are needed, on the host (in_filter_layout) before them.
  if (input.channels == 3 && (input.type == SampleType::u8 || input.type == SampleType::u16) &&
      !host_call_band_rows(ctx.info(), input.width, input.height, 4,
                           Image::byte_size_for(input.width, input.height, 4, input.type), reach)) {
    Image result = Image::uninitialized(input.width, input.height, 3, input.type);
    filter_host_rgb(ctx, input.data.data(), result.data.data(), input.width, input.height, call, events, input.type);
    return result;
  }
  return in_device_layout(input, alpha,
                          [&](const Image& in) { return filter_host_image(ctx, in, call, events, reach); });
}

namespace {

void check_host_samples(std::string_view words, SampleType type, int channels, int width, int height,
                        void (*check_size)(int width, int height), bool u16) {
  if (type != SampleType::u8 && !(u16 && type == SampleType::u16))
    throw std::invalid_argument(
        fmt::format("{} needs {} samples, got {}", words, u16 ? "8- or 16-bit" : "8-bit", sample_type_name(type)));
  if (channels < 1 || channels > 4)
    throw std::invalid_argument(fmt::format("{} takes 1 to 4 channels, got {}", words, channels));
  if (check_size)
    check_size(width, height);
  else if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("{} needs an image of at least 1x1", words));
}

}  // namespace

void check_host_image(std::string_view words, const Image& input, void (*check_size)(int width, int height), bool u16) {
  check_host_samples(words, input.type, input.channels, input.width, input.height, check_size, u16);
}

void check_host_views(std::string_view words, const ImageView& input, const MutableImageView& output,
                      void (*check_size)(int width, int height), bool u16) {
  check_host_samples(words, input.type, input.channels, input.width, input.height, check_size, u16);
  if (input.channels != 1 && input.channels != 4)
    throw std::invalid_argument(
        fmt::format("{} on the caller's memory takes 1 or 4 channels, got {}", words, input.channels));
  if (output.width != input.width || output.height != input.height || output.channels != input.channels ||
      output.type != input.type)
    throw std::invalid_argument(
        fmt::format("{}: the output ({}x{}, {} channels of {}) must have the input's shape "
                    "({}x{}, {} channels of {})",
                    words, output.width, output.height, output.channels, sample_type_name(output.type), input.width,
                    input.height, input.channels, sample_type_name(input.type)));
  if (!input.data || !output.data) throw std::invalid_argument(fmt::format("{}: null image memory", words));
}

void HostCallClock::finish(Timing* timing, const std::vector<cl::Event>& events) const {
  if (!timing) return;
  timing->kernel_ms = kernel_milliseconds(events);
  timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace clf
