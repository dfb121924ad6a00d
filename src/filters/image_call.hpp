// SPDX-License-Identifier: Apache-2.0
// The device side of a filter that maps one device image (1 or 4 channels) to another of its size: the call and
// target its variant table takes, and the checks, variant choice and dispatch its public calls share. A filter
// describes itself once in an ImageFilterApi; its public calls and its FilterSpec's traits go through it.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/border.hpp"
#include "clfilters/device_image.hpp"
#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"
#include "filters/variant_table.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {

// One call: its parameters and the device images' size, channels (1 or 4) and sample type (u8, or u16 for the
// variants that take it: Variant::takes_u16). A variant that reads and writes the caller's views in place
// (Variant::takes_views) also gets their layout, in pixels; zero strides mean packed images. One that takes a row
// range (Variant::takes_row_range) computes only `rows` of the output; the others get whole calls.
template <class Params>
struct ImageCall {
  Params params;
  int width = 0;
  int height = 0;
  int channels = 4;
  SampleType type = SampleType::u8;
  int in_stride = 0, out_stride = 0;  // pixels from one row's start to the next
  int in_offset = 0, out_offset = 0;  // pixels from the buffer's start to pixel (0, 0)
  RowRange rows = {};                 // the output rows to compute; default: all
  bool on_views() const { return in_stride != 0; }
  int row_begin() const { return rows.begin; }
  int row_end() const { return rows.end_in(height); }
};

struct ImageTarget {
  const DeviceImage& in;
  DeviceImage& out;
};

// The variant table of such a filter.
template <class P>
using ImageTable = VariantTable<ImageCall<P>, ImageTarget>;

// A device output of width x height (DeviceFloatImage, DeviceGradients, ...) with each of its `buffers` a new
// read-write buffer of `bytes_per_pixel` a pixel; throws std::invalid_argument "<what> a size of at least 1x1 (got
// WxH)" for an empty size.
template <class Planes, class... Buffers>
Planes allocate_planes(Context& ctx, int width, int height, std::size_t bytes_per_pixel, std::string_view what,
                       Buffers... buffers) {
  if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("{} a size of at least 1x1 (got {}x{})", what, width, height));
  Planes planes;
  planes.width = width;
  planes.height = height;
  ((planes.*buffers = ctx.buffer(CL_MEM_READ_WRITE, std::size_t(width) * std::size_t(height) * bytes_per_pixel)), ...);
  return planes;
}

// Kernels index with 32-bit ints: throws std::invalid_argument for an image of 2^29 pixels or more.
CLF_API void check_image_size(int width, int height);  // exported: the command line checks files with it

// Whether the device refused a variant's program build or kernel launch (build failure, out of resources, a
// work-group it cannot run), which another variant may not meet.
bool is_variant_refusal(const ClError& e);
// A variant's reason not to run where the temporary buffer it needs, `bytes`, is above the device's largest
// allocation; else nullopt.
std::optional<std::string> temporary_problem(const DeviceInfo& device, std::string_view variant, std::size_t bytes);
// The bands of rows of a variant written for CPUs, one work-item each: `per_unit` per compute unit, so that uneven
// cores still finish together, of `rows` rows each but the last.
struct RowBands {
  int rows;
  int count;
};
RowBands row_bands(const DeviceInfo& device, int per_unit, int height);
// The tunable of those variants (cpu_rows), row_bands' per_unit. Its name, values and their order key the tuning
// database.
const std::vector<Tunable>& row_band_tunables();
// row_bands with the variant's bands_per_unit.
RowBands row_bands(const DeviceInfo& device, const VariantInfo& info, const TuningConfig& config, int height);
// The ring of a cpu_rows variant of an image filter (bilateral, epsilon): each band keeps the window's 2r + 1
// border-padded rows, `planes` planes a row (3 for RGBA, 1 for grey), each `stride` elements of `element_bytes`: r
// columns each side and `overrun` elements more, rounded up to a multiple of `align`.
struct RingRowsShape {
  int overrun, align;
  std::size_t element_bytes;
};
struct RingRowsLayout {
  int band_rows, bands, stride, planes, diameter;
  std::size_t element_bytes;
  std::size_t bytes() const {
    return std::size_t(bands) * std::size_t(diameter) * std::size_t(planes) * std::size_t(stride) * element_bytes;
  }
};
// `rows`: the output rows the call computes, which its bands share.
RingRowsLayout ring_rows_layout(const DeviceInfo& device, const VariantInfo& info, const TuningConfig& config,
                                int width, int rows, int channels, int radius, const RingRowsShape& shape);
// Where "auto" goes when `failed` is refused: the filter's built-in rule's choice `rule`, then its plain first
// variant, without `failed` or repeats.
std::vector<std::string> fallback_variants(const std::string& rule, const std::vector<VariantInfo>& variants,
                                           const std::string& failed);
// Records the fallback on `ctx` (Context::last_fallback) and, the first time this Context meets it, says so in one
// line on stderr: "clfilters: warning: box_blur variant X was refused (CL_...); ran Y instead".
void warn_fallback(Context& ctx, std::string_view filter, const std::string& failed, const ClError& why,
                   const std::string& ran);

// After "auto"'s choice `failed` was refused (`why`): runs `attempt(name)` for each of `candidates` that `runs_here`
// accepts, and returns the first result, with the warning. An attempt's error that `retry` accepts (by default a
// refusal) moves on to the next candidate; any other propagates, and so does `why` when none is left.
template <class Attempt, class RunsHere, class Retry = bool (*)(const ClError&)>
auto run_fallbacks(Context& ctx, std::string_view filter, const std::string& failed, const ClError& why,
                   const std::vector<std::string>& candidates, RunsHere runs_here, Attempt attempt,
                   Retry retry = is_variant_refusal) -> decltype(attempt(std::string())) {
  for (const std::string& next : candidates) {
    if (!runs_here(next)) continue;
    try {
      auto result = attempt(next);
      warn_fallback(ctx, filter, failed, why, next);
      return result;
    } catch (const ClError& again) {
      if (!retry(again)) throw;
    }
  }
  throw why;
}

// The border's constant as the kernels take it: the value in each byte of an RGBA pixel, or the grey value; 0 for
// the other modes.
cl_uint constant_bits(const Border& border, int channels);

// The rows of each band when a host call of a filter whose output row y reads input rows y - reach .. y + reach
// (reach < 0: unknown) is cut into bands, or nothing where it runs in one piece: where the image does not fit the
// device's memory or its allocation limit, or has 2^29 pixels or more (the kernels' 32-bit indexing), it goes up,
// through the kernels and down band by band, each band below 2^29 pixels with its halo. Throws
// std::invalid_argument where not even a band of one row fits. CLFILTERS_BAND_ROWS=N cuts every image of more than
// N rows into bands of N, on any device (for tests). On the NVIDIA H100 machine bands that fit were slower than one
// piece (8192x8192 RGBA box blur, host to host: 19.4-19.8 ms in 8 bands, 13.0-16.1 ms in one), since both
// directions' staging copies share the host's memory bandwidth, so they are not used where one piece fits.
std::optional<int> host_call_band_rows(const DeviceInfo& device, int width, int height, int channels, std::size_t bytes,
                                       int reach);

// Host memory a host call reads and writes: an image of `height` rows, `in_row_bytes` a row of input and
// `out_row_bytes` of output (packed), whose output row y reads input rows y - reach .. y + reach (reach < 0: unknown,
// not cut into bands).
struct BandedImage {
  const std::uint8_t* in;
  std::uint8_t* out;
  int width, height, channels;
  SampleType type;
  std::size_t in_row_bytes, out_row_bytes;
  int reach;
};

// The host-to-host call of a filter from host memory (1 or 4 channels, u8 or u16) into host memory of its shape
// (image.in_row_bytes == image.out_row_bytes): `call` runs on device images over them; its events are appended to
// `events`. On a CPU device those images are the host memory itself (DeviceImage::over_host), so nothing is copied.
// Where host_call_band_rows says so, `call` runs once a band, on device images of the band and its `reach` rows above
// and below (the image's own edges are the band's there), and must then make the same choice of variant for every
// band.
void filter_host_memory(Context& ctx, const BandedImage& image,
                        const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& call,
                        std::vector<cl::Event>& events);
// filter_host_memory from `input` into a new result.
Image filter_host_image(Context& ctx, const Image& input,
                        const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& call,
                        std::vector<cl::Event>& events, int reach = -1);
// How a filter treats a fourth channel: filtered like the colours (box blur), or kept out of the arithmetic and
// copied (epsilon, bilateral).
enum class Alpha { filtered, kept_apart };
// The channels the device call gets for an image of `channels`: grey (and, kept apart, grey+alpha) as 1, the
// rest as RGBA.
constexpr int device_channels(int channels, Alpha alpha) {
  return channels == 1 || (channels == 2 && alpha == Alpha::kept_apart) ? 1 : 4;
}
// filter_host_image from any image of 1 to 4 channels: RGB travels as RGBA with alpha 255 (65535 for u16), dropped on
// the way out; grey+alpha as RGBA, or, with alpha kept apart, as its grey plane with alpha copied.
Image filter_host_image(Context& ctx, const Image& input, Alpha alpha,
                        const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& call,
                        std::vector<cl::Event>& events, int reach = -1);

// RGB (3 samples a pixel, u8 or u16, packed rows) as the filters take it: RGBA with alpha 255 (65535), converted on
// the device by one kernel each way (rgb_layout.cl), so the host makes no pass over the pixels and a GPU moves 3
// samples a pixel rather than 4. `rgb_in` and `rgb_out` are host memory of width * height * 3 samples (used in place on
// a CPU device where aligned, see buffer_over_host); `call` runs on RGBA scratch images of the context. Its events,
// with the conversions', are appended to `events`.
void filter_host_rgb(Context& ctx, const std::uint8_t* rgb_in, std::uint8_t* rgb_out, int width, int height,
                     const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& call,
                     std::vector<cl::Event>& events, SampleType type = SampleType::u8);
// The two conversions on their own, over `pixels` packed pixels of u8 or u16 samples: RGB to RGBA with alpha the
// largest sample, and RGBA to RGB (alpha dropped). Enqueued without waiting.
cl::Event enqueue_rgba_from_rgb(Context& ctx, const cl::Buffer& rgb, const cl::Buffer& rgba, std::size_t pixels,
                                SampleType type = SampleType::u8);
cl::Event enqueue_rgb_from_rgba(Context& ctx, const cl::Buffer& rgba, const cl::Buffer& rgb, std::size_t pixels,
                                SampleType type = SampleType::u8);

// Times a host-to-host call from its construction to finish() (Timing; SPEC "Total time"): layout conversions,
// upload, kernels and download, not the program builds before it.
class HostCallClock {
 public:
  void finish(Timing* timing, const std::vector<cl::Event>& events) const;

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The build options every program of an image call starts with: the channels, and for u16 samples SAMPLE_BITS=16
// (the kernels' 16-bit forms sit in `#if SAMPLE_BITS == 16` blocks, so 8-bit builds are unchanged).
template <class P>
std::string base_options(const ImageCall<P>& call) {
  return fmt::format("-D CHANNELS={}{}", call.channels, call.type == SampleType::u16 ? " -D SAMPLE_BITS=16" : "");
}

template <class P>
struct ImageFilterApi {
  using Params = P;
  using Call = ImageCall<P>;
  using Table = ImageTable<P>;

  const char* name;         // as the device calls' errors name the filter ("box_blur")
  const char* spec_name;    // its FilterSpec's name, which keys its tuning database entries ("box-blur")
  const char* words;        // as a host call's errors name it ("box blur"; check_host_image)
  const char* kernel_file;  // the .cl file its programs are built from
  const Table& (*table)();
  void (*check_params)(const P&, SampleType);
  std::optional<std::string> (*unsupported)(const DeviceInfo&, std::string_view variant, const P&, int width,
                                            int height, int channels, const TuningConfig&, SampleType);
  std::string (*param_class)(const P&, int channels);
  // The built-in rule; for u16 it names a variant that takes u16 samples.
  std::string (*auto_variant)(const DeviceInfo&, const P&, int width, int height, int channels, SampleType);
  Image (*reference)(const Image& input, const P&, int threads);
  void (*check_size)(int width, int height) = check_image_size;
  bool output_may_be_input = true;  // false: refuse a call whose output is its input's buffer
  // The input rows above and below an output row it reads (its window's half height), for banded host calls;
  // null: the filter is not cut into bands.
  int (*reach)(const P&) = nullptr;
  // A host call's size check before its other checks; null: an empty image is refused in `words`.
  void (*check_host_size)(int width, int height) = nullptr;

  // reach(params), or -1 (unknown) where the filter is not cut into bands.
  int reach_of(const P& params) const { return reach ? reach(params) : -1; }
};

// The cpu_rows entry of an image filter (bilateral, epsilon) whose window reaches `radius(params)` rows: refused
// where its ring is above the device's largest allocation; one work-item a band of `kernel` over the call's row
// range, built with -D CPU_ROWS=1; views of any layout of whole pixels, as its row pointers come from the strides and
// offsets. `enqueue(ctx, plan, call, target, layout)` sets the kernel's arguments and launches it.
template <class P, class Radius, class Enqueue>
typename ImageTable<P>::Entry ring_rows_entry(std::string summary, std::string kernel, RingRowsShape shape,
                                              Radius radius, Enqueue enqueue) {
  typename ImageTable<P>::Entry e{{"cpu_rows", std::move(summary), row_band_tunables()}};
  const auto layout_of = [info = e.info, shape, radius](const DeviceInfo& device, const ImageCall<P>& call,
                                                        const TuningConfig& config) {
    return ring_rows_layout(device, info, config, call.width, call.rows.count_in(call.height), call.channels,
                            radius(call.params), shape);
  };
  e.unsupported = [layout_of](const DeviceInfo& device, const ImageCall<P>& call, const TuningConfig& config) {
    return temporary_problem(device, "cpu_rows", layout_of(device, call, config).bytes());
  };
  e.plan = [layout_of, kernel](Context& ctx, const ImageCall<P>& call, const TuningConfig& config) {
    const RingRowsLayout layout = layout_of(ctx.info(), call, config);
    return KernelPlan{base_options(call) + " -D CPU_ROWS=1",
                      {{kernel, cl::NDRange(std::size_t(layout.bands)), cl::NDRange(1)}}};
  };
  e.enqueue = [layout_of, enqueue](Context& ctx, const KernelPlan& plan, const ImageCall<P>& call,
                                   const TuningConfig& config, ImageTarget& t) {
    return enqueue(ctx, plan, call, t, layout_of(ctx.info(), call, config));
  };
  e.takes_views = [](const ImageCall<P>&) { return true; };
  e.takes_row_range = true;
  return e;
}

// Whether one call of the filter takes an image of this size (its check_size), as a range of its rows needs.
template <class P>
bool one_call_takes_size(const ImageFilterApi<P>& api, int width, int height) {
  try {
    api.check_size(width, height);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

// Whether any variant of the filter takes u16 samples.
template <class P>
bool takes_u16(const ImageFilterApi<P>& api) {
  for (const auto& e : api.table().entries())
    if (e.takes_u16) return true;
  return false;
}

// The variant `variant` names for this call: itself, or for "auto" the tuned choice of the call's parameter class
// (u16 calls are a class of their own: " u16" appended), else the filter's own rule.
template <class P>
VariantChoice choose_image_variant(Context& ctx, const ImageFilterApi<P>& api, const P& params,
                                   std::string_view variant, int width, int height, int channels,
                                   const TuningConfig& config, SampleType type) {
  return choose_variant(
      ctx, variant, config, api.spec_name, api.kernel_file,
      api.param_class(params, channels) + (type == SampleType::u16 ? " u16" : ""), width, height,
      [&](const std::string& v, const TuningConfig& c) {
        return !api.unsupported(ctx.info(), v, params, width, height, channels, c, type);
      },
      [&] { return api.auto_variant(ctx.info(), params, width, height, channels, type); });
}

// `call` with the layout of `in` and `out` where either is pitched or offset, in whole pixels, and the two do not
// share a buffer (an overlap needs the packed copies); else nullopt.
template <class P>
std::optional<ImageCall<P>> views_call(const ImageCall<P>& call, const DeviceImage& in, const DeviceImage& out) {
  if ((in.packed() && out.packed()) || in.buffer() == out.buffer()) return std::nullopt;
  const std::size_t px = in.pixel_bytes();
  for (std::size_t bytes : {in.pitch(), out.pitch(), in.offset, out.offset})
    if (bytes % px != 0 || bytes / px > std::size_t(std::numeric_limits<int>::max())) return std::nullopt;
  ImageCall<P> c = call;
  c.in_stride = int(in.pitch() / px), c.out_stride = int(out.pitch() / px);
  c.in_offset = int(in.offset / px), c.out_offset = int(out.offset / px);
  return c;
}

// A call checked, its variant chosen ("auto" resolved) and planned; throws std::invalid_argument where the
// call cannot run.
template <class P>
ResolvedCall<ImageCall<P>, ImageTarget> resolve_image_call(Context& ctx, const ImageFilterApi<P>& api,
                                                           const ImageCall<P>& call, std::string_view variant,
                                                           const TuningConfig& config) {
  if (call.type != SampleType::u8 && !(call.type == SampleType::u16 && takes_u16(api)))
    throw std::invalid_argument(fmt::format("{}: device images need {} samples, got {}", api.name,
                                            takes_u16(api) ? "u8 or u16" : "u8", sample_type_name(call.type)));
  api.check_params(call.params, call.type);
  if (call.channels != 1 && call.channels != 4)
    throw std::invalid_argument(fmt::format("{}: device images need 1 or 4 channels", api.name));
  api.check_size(call.width, call.height);
  VariantChoice choice =
      choose_image_variant(ctx, api, call.params, variant, call.width, call.height, call.channels, config, call.type);
  const auto why = api.unsupported(ctx.info(), choice.variant, call.params, call.width, call.height, call.channels,
                                   choice.config, call.type);
  return plan_call(ctx, api.table(), call, std::move(choice), why);
}

// Builds the programs of a call, so that its first run does not pay for them.
template <class P>
void prepare_image_call(Context& ctx, const ImageFilterApi<P>& api, const ImageCall<P>& call, std::string_view variant,
                        const TuningConfig& config) {
  const KernelPlan plan = resolve_image_call(ctx, api, call, variant, config).plan;
  try {
    for (const auto& pass : plan.passes) ctx.kernel(api.kernel_file, plan.options, pass.kernel);
  } catch (const ClError& e) {
    // "auto" meets the refusal again at the call, which falls back (enqueue_image_call).
    if (variant != "auto" || !is_variant_refusal(e)) throw;
  }
}

// Enqueues a call from `in` to `out` (views of the caller's buffers too: see on_packed_images) after the
// caller's `wait` events; returns every command's event. `rows` less than the whole image: only those output rows,
// by a variant that takes a row range (Variant::takes_row_range), else std::invalid_argument; on views, only by one
// that takes them in place, as a packed copy would write the other rows back.
template <class P>
std::vector<cl::Event> enqueue_image_call(Context& ctx, const ImageFilterApi<P>& api, const DeviceImage& in,
                                          DeviceImage& out, const P& params, std::string_view variant,
                                          const TuningConfig& config, const std::vector<cl::Event>& wait = {},
                                          const RowRange& rows = {}) {
  if (in.width != out.width || in.height != out.height || in.channels != out.channels || in.type != out.type)
    throw std::invalid_argument(
        fmt::format("{}: output must have the input's size, channels and sample type", api.name));
  if (!api.output_may_be_input && in.buffer() == out.buffer())
    throw std::invalid_argument(fmt::format("{}: output must not be the input", api.name));
  check_row_range(api.name, rows, in.height, in.buffer() == out.buffer());
  const bool part = !rows.whole(in.height);
  ImageCall<P> call{params, in.width, in.height, in.channels, in.type};
  call.rows = rows;
  const auto r = resolve_image_call(ctx, api, call, variant, config);
  const auto run = [&](ResolvedCall<ImageCall<P>, ImageTarget> resolved) {
    if (part && !resolved.entry->takes_row_range)
      throw std::invalid_argument(fmt::format("{}: variant {} computes whole images, not a range of rows", api.name,
                                              resolved.entry->info.name));
    // Pitched or offset views the chosen variant reads and writes in place: no packed copies.
    if (const auto on_views = views_call(call, in, out);
        on_views && resolved.entry->takes_views && resolved.entry->takes_views(*on_views)) {
      resolved.plan = resolved.entry->plan(ctx, *on_views, resolved.config);
      std::vector<cl::Event> events;
      enqueue_wait(ctx, wait, events);
      ImageTarget target{in, out};
      for (cl::Event& e : resolved.enqueue(ctx, *on_views, target)) events.push_back(std::move(e));
      return events;
    }
    if (part && !(in.packed() && out.packed()))
      throw std::invalid_argument(fmt::format("{}: variant {} takes a range of rows of packed images only", api.name,
                                              resolved.entry->info.name));
    return on_packed_images(ctx, in, out, wait, [&](const DeviceImage& packed_in, DeviceImage& packed_out) {
      ImageTarget target{packed_in, packed_out};
      return resolved.enqueue(ctx, call, target);
    });
  };
  try {
    return run(r);
  } catch (const ClError& e) {
    // "auto" falls back when the device refuses its choice's build or launch; an in-place call may have been
    // half written, so it does not.
    if (variant != "auto" || !is_variant_refusal(e) || in.buffer() == out.buffer()) throw;
    return run_fallbacks(
        ctx, api.name, r.entry->info.name, e,
        fallback_variants(api.auto_variant(ctx.info(), params, in.width, in.height, in.channels, in.type),
                          api.table().infos(), r.entry->info.name),
        [&](const std::string& next) {
          return (!part || api.table().takes_row_range(next)) &&
                 !api.unsupported(ctx.info(), next, params, in.width, in.height, in.channels, {}, in.type);
        },
        [&](const std::string& next) {
          return run(plan_call(ctx, api.table(), call, {next, {}, "fallback"}, std::nullopt));
        });
  }
}

// `run` on `input` in the layout the device calls take (1 or 4 channels; device_channels), converted on the host:
// RGB and grey+alpha (filtered) as RGBA, grey+alpha kept apart as its grey plane with alpha copied; the result back in
// the input's channels. The conversions are exact: the one-device and several-device host calls use it alike.
Image in_device_layout(const Image& input, Alpha alpha, const std::function<Image(const Image&)>& run);

// The first checks of that call, in the filter's `words` ("box blur"): 8-bit samples (or 16-bit ones, `u16`), 1 to
// 4 channels, then the size: `check_size` where given, else at least 1x1 ("box blur needs an image of at least
// 1x1").
void check_host_image(std::string_view words, const Image& input, void (*check_size)(int width, int height),
                      bool u16 = false);
// The same checks for a host call on the caller's memory, and that `output` has `input`'s shape and sample type, with
// 1 or 4 channels ("box blur on caller memory takes 1 or 4 channels, got 3").
void check_host_views(std::string_view words, const ImageView& input, const MutableImageView& output,
                      void (*check_size)(int width, int height), bool u16 = false);

// Builds the programs of a one-device host call of `width` x `height` x `channels` (the device's layout), untimed
// (SPEC "Total time"), and returns what its device calls run: the whole image's choice where it is cut into bands
// (the same code for every pixel, so the one-piece result bit for bit), else `variant` as given.
template <class P>
VariantChoice prepare_host_call(Context& ctx, const ImageFilterApi<P>& api, const P& params, std::string_view variant,
                                int width, int height, int channels, SampleType type) {
  const int reach = api.reach_of(params);
  VariantChoice choice{std::string(variant), {}, {}};
  const auto band_rows = host_call_band_rows(ctx.info(), width, height, channels,
                                             Image::byte_size_for(width, height, channels, type), reach);
  int call_rows = height;  // the device images' rows: a band's with its halo, where it is cut
  if (band_rows) {
    choice = choose_image_variant(ctx, api, params, variant, width, height, channels, {}, type);
    call_rows = std::min(height, *band_rows + 2 * reach);
  }
  prepare_image_call(ctx, api, {params, width, call_rows, channels, type}, choice.variant, choice.config);
  return choice;
}

// The public call of an image filter on a host image (box_blur(ctx, image, ...) and its kin): its first checks
// (check_host_image), the programs built (prepare_host_call), then filter_host_image, timed into `timing`.
template <class P>
Image host_image_call(Context& ctx, const ImageFilterApi<P>& api, const Image& input, const P& params,
                      std::string_view variant, Alpha alpha, Timing* timing) {
  check_host_image(api.words, input, api.check_host_size, takes_u16(api));
  const VariantChoice choice = prepare_host_call(ctx, api, params, variant, input.width, input.height,
                                                 device_channels(input.channels, alpha), input.type);
  const HostCallClock clock;
  std::vector<cl::Event> events;
  Image result = filter_host_image(
      ctx, input, alpha,
      [&](const DeviceImage& in, DeviceImage& out) {
        return enqueue_image_call(ctx, api, in, out, params, choice.variant, choice.config);
      },
      events, api.reach_of(params));
  clock.finish(timing, events);
  return result;
}

}  // namespace clf
