// SPDX-License-Identifier: Apache-2.0
// Host launcher for the Sobel variants: resolves a call (parameters, variant, plan) and enqueues it through
// the variant's entry (sobel_variants.cpp; kernels in sobel.cl).
#include "clfilters/sobel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <variant>

#include "common/parallel.hpp"
#include "filters/image_call.hpp"
#include "filters/multi_device.hpp"
#include "filters/sobel/sobel_internal.hpp"

namespace clf {
namespace {

// Kernels index pixels with 32-bit ints.
bool indexable(int width, int height) {
  return std::int64_t(width) * height < (std::int64_t(1) << 31);
}

void check_size(int width, int height) {
  if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("Sobel needs an image of at least 1x1, got {}x{}", width, height));
  if (!indexable(width, height))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (below 2^31 pixels)", width, height));
}

ResolvedCall<SobelCall, SobelTarget> resolve(Context& ctx, const SobelCall& call, std::string_view variant,
                                             const TuningConfig& config) {
  sobel_check_params(call.params);
  check_size(call.width, call.height);
  VariantChoice choice = sobel_choose(ctx, call.params, variant, call.width, call.height, config);
  const auto why = sobel_table().unsupported(choice.variant, ctx.info(), call, choice.config);
  return plan_call(ctx, sobel_table(), call, std::move(choice), why);
}

// A call's output: the 8-bit image (a view of the caller's buffer too), the packed gx and gy planes, or the packed
// pairs.
struct SobelOutputs {
  DeviceImage* image;                     // nullptr for gradients
  const DeviceGradients* planes;          // nullptr for the 8-bit outputs and the pairs
  const DeviceGradientPairs* pairs = {};  // nullptr but for the pairs
  const cl::Buffer& out_a() const { return image ? image->buffer : pairs ? pairs->buffer : planes->gx; }
  const cl::Buffer& out_b() const { return image ? image->buffer : pairs ? pairs->buffer : planes->gy; }
  bool shares_buffer_with(const DeviceImage& in) const { return in.buffer() == out_a()() || in.buffer() == out_b()(); }
};

// `call` with the layout of `in` and the 8-bit output view where either is pitched or offset and no output shares
// the input's buffer (an overlap needs the packed copies); else nullopt. Pixels are bytes (grey).
std::optional<SobelCall> views_call(const SobelCall& call, const DeviceImage& in, const SobelOutputs& out) {
  const bool out_packed = !out.image || out.image->packed();
  if ((in.packed() && out_packed) || out.shares_buffer_with(in)) return std::nullopt;
  const std::size_t out_pitch = out.image ? out.image->pitch() : std::size_t(call.width);
  const std::size_t out_offset = out.image ? out.image->offset : 0;
  for (std::size_t bytes : {in.pitch(), out_pitch, in.offset, out_offset})
    if (bytes > std::size_t(std::numeric_limits<int>::max())) return std::nullopt;
  SobelCall c = call;
  c.in_stride = int(in.pitch()), c.out_stride = int(out_pitch);
  c.in_offset = int(in.offset), c.out_offset = int(out_offset);
  return c;
}

using Resolved = ResolvedCall<SobelCall, SobelTarget>;

// Enqueues a resolved call after `wait`: in place on pitched or offset views the variant takes as they are, else
// on packed copies of them. A call of a range of rows needs a variant that takes one, and on views one that takes
// them in place (a packed copy would write the other rows back).
std::vector<cl::Event> run(Context& ctx, Resolved resolved, const SobelCall& call, const DeviceImage& in,
                           const SobelOutputs& out, const std::vector<cl::Event>& wait) {
  const bool part = !call.rows.whole(call.height);
  if (part && !resolved.entry->takes_row_range)
    throw std::invalid_argument(
        fmt::format("sobel: variant {} computes whole images, not a range of rows", resolved.entry->info.name));
  std::vector<cl::Event> events;
  if (const auto on_views = views_call(call, in, out);
      on_views && resolved.entry->takes_views && resolved.entry->takes_views(*on_views)) {
    resolved.plan = resolved.entry->plan(ctx, *on_views, resolved.config);
    enqueue_wait(ctx, wait, events);
    SobelTarget target{in, out.out_a(), out.out_b()};
    for (cl::Event& e : resolved.enqueue(ctx, *on_views, target)) events.push_back(std::move(e));
    return events;
  }
  if (part && (!in.packed() || (out.image && !out.image->packed())))
    throw std::invalid_argument(
        fmt::format("sobel: variant {} takes a range of rows of packed images only", resolved.entry->info.name));
  if (out.image)
    return on_packed_images(ctx, in, *out.image, wait, [&](const DeviceImage& packed_in, DeviceImage& packed_out) {
      SobelTarget target{packed_in, packed_out.buffer, packed_out.buffer};
      return resolved.enqueue(ctx, call, target);
    });
  enqueue_wait(ctx, wait, events);
  const DeviceImage packed_in = packed_input(ctx, in, events);
  SobelTarget target{packed_in, out.out_a(), out.out_b()};
  for (cl::Event& e : resolved.enqueue(ctx, call, target)) events.push_back(std::move(e));
  return events;
}

// Where "auto" goes when `failed` is refused: fallback_variants (the rule's choice, block16x2 for a refused cpu_rows,
// then naive), then the other variants in the table's order. The plain variants (naive to block16x2, and image)
// build one program, so a build they are refused is refused to all of them; row_tile, strip and cpu_rows build
// their own.
std::vector<std::string> fallback_order(Context& ctx, const SobelParams& params, const DeviceImage& in,
                                        const std::string& failed) {
  const auto& infos = sobel_table().infos();
  std::string rule = sobel_auto_variant(ctx.info(), params, in.width, in.height);
  if (rule == failed && failed == "cpu_rows") rule = "block16x2";  // the CPU rule's choice where cpu_rows cannot run
  std::vector<std::string> order = fallback_variants(rule, infos, failed);
  for (const VariantInfo& v : infos)
    if (v.name != failed && std::find(order.begin(), order.end(), v.name) == order.end()) order.push_back(v.name);
  return order;
}

// The enqueue shared by both output kinds, of output rows `rows` (by a variant that takes a row range where they are
// not all). "auto" falls back, as enqueue_image_call does, when the device refuses its choice's build or launch; a
// call whose output shares the input's buffer may have been half written, so it does not.
std::vector<cl::Event> enqueue(Context& ctx, const DeviceImage& in, const SobelOutputs& out, const SobelParams& params,
                               std::string_view variant, const TuningConfig& config, const std::vector<cl::Event>& wait,
                               const RowRange& rows = {}) {
  if (in.channels != 1) throw std::invalid_argument("sobel: the device input must have 1 channel (grey)");
  check_row_range("sobel", rows, in.height, out.shares_buffer_with(in));
  SobelCall call{params, in.width, in.height};
  call.interleaved = out.pairs != nullptr;
  call.rows = rows;
  const auto r = resolve(ctx, call, variant, config);
  try {
    return run(ctx, r, call, in, out, wait);
  } catch (const ClError& e) {
    if (variant != "auto" || !is_variant_refusal(e) || out.shares_buffer_with(in)) throw;
    return run_fallbacks(
        ctx, "sobel", r.entry->info.name, e, fallback_order(ctx, params, in, r.entry->info.name),
        [&](const std::string& next) {
          return (call.rows.whole(call.height) || sobel_table().takes_row_range(next)) &&
                 !sobel_table().unsupported(next, ctx.info(), call, {});
        },
        [&](const std::string& next) {
          return run(ctx, plan_call(ctx, sobel_table(), call, {next, {}, "fallback"}, std::nullopt), call, in, out,
                     wait);
        });
  }
}

}  // namespace

void sobel_check_params(const SobelParams& p) {
  const int output = static_cast<int>(p.output);
  if (output < 0 || output > 2) throw std::invalid_argument(fmt::format("unknown Sobel output {}", output));
  check_border(p.border);
}

const std::vector<VariantInfo>& sobel_variants() {
  return sobel_table().infos();
}

std::optional<std::string> sobel_unsupported(const DeviceInfo& device, std::string_view variant,
                                             const SobelParams& params, int width, int height,
                                             const TuningConfig& config) {
  return sobel_table().unsupported(variant, device, {params, width, height}, config);
}

SobelOutput parse_sobel_output(std::string_view text) {
  if (text == "magnitude") return SobelOutput::magnitude;
  if (text == "l1") return SobelOutput::l1;
  if (text == "gradients") return SobelOutput::gradients;
  throw std::invalid_argument(fmt::format("unknown Sobel output '{}' (expected magnitude, l1 or gradients)", text));
}

std::string to_string(SobelOutput output) {
  switch (output) {
    case SobelOutput::magnitude: return "magnitude";
    case SobelOutput::l1: return "l1";
    case SobelOutput::gradients: return "gradients";
  }
  return "?";
}

DeviceGradients DeviceGradients::allocate(Context& ctx, int width, int height) {
  return allocate_planes<DeviceGradients>(ctx, width, height, sizeof(std::int16_t), "gradient planes need",
                                          &DeviceGradients::gx, &DeviceGradients::gy);
}

Image DeviceGradients::download(Context& ctx) const {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  Image out = Image::uninitialized(width, height, 2, SampleType::i16);
  const auto interleave = [&](const std::int16_t* x, const std::int16_t* y) {
    std::int16_t* s = out.samples<std::int16_t>().data();
    parallel_rows(height, n >= (std::size_t(1) << 18) ? 0 : 1, [&](int y0, int y1) {
      for (std::size_t i = std::size_t(y0) * width; i < std::size_t(y1) * width; ++i) {
        s[2 * i] = x[i];
        s[2 * i + 1] = y[i];
      }
    });
  };
  if (ctx.works_in_host_memory()) {  // the planes are host memory: read them where they are
    cl_int err = CL_SUCCESS;
    cl::CommandQueue& q = ctx.queue();
    void* x = q.enqueueMapBuffer(gx, CL_TRUE, CL_MAP_READ, 0, plane_bytes(), nullptr, nullptr, &err);
    check_cl(err, "clEnqueueMapBuffer");
    void* y = q.enqueueMapBuffer(gy, CL_TRUE, CL_MAP_READ, 0, plane_bytes(), nullptr, nullptr, &err);
    if (err != CL_SUCCESS) q.enqueueUnmapMemObject(gx, x);
    check_cl(err, "clEnqueueMapBuffer");
    interleave(static_cast<const std::int16_t*>(x), static_cast<const std::int16_t*>(y));
    cl::Event unmapped;
    check_cl(q.enqueueUnmapMemObject(gx, x), "clEnqueueUnmapMemObject");
    check_cl(q.enqueueUnmapMemObject(gy, y, nullptr, &unmapped), "clEnqueueUnmapMemObject");
    check_cl(unmapped.wait(), "clWaitForEvents");
    return out;
  }
  std::vector<std::int16_t> x(n), y(n);
  check_cl(ctx.queue().enqueueReadBuffer(gx, CL_TRUE, 0, plane_bytes(), x.data()), "clEnqueueReadBuffer");
  check_cl(ctx.queue().enqueueReadBuffer(gy, CL_TRUE, 0, plane_bytes(), y.data()), "clEnqueueReadBuffer");
  interleave(x.data(), y.data());
  return out;
}

DeviceGradientPairs DeviceGradientPairs::allocate(Context& ctx, int width, int height) {
  return allocate_planes<DeviceGradientPairs>(ctx, width, height, 2 * sizeof(std::int16_t), "gradient pairs need",
                                              &DeviceGradientPairs::buffer);
}

Image DeviceGradientPairs::download(Context& ctx) const {
  Image out = Image::uninitialized(width, height, 2, SampleType::i16);
  check_cl(ctx.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, byte_size(), out.data.data()), "clEnqueueReadBuffer");
  return out;
}

SobelDeviceOutput SobelDeviceOutput::allocate(Context& ctx, int width, int height, const SobelParams& params) {
  if (params.output == SobelOutput::gradients) return {DeviceGradients::allocate(ctx, width, height)};
  return {DeviceImage::allocate(ctx, width, height, 1)};
}

Image SobelDeviceOutput::download(Context& ctx) const {
  return std::visit([&](const auto& out) { return out.download(ctx); }, planes);
}

namespace {
void prepare(Context& ctx, const SobelCall& call, std::string_view variant, const TuningConfig& config) {
  const KernelPlan plan = resolve(ctx, call, variant, config).plan;
  try {
    for (const auto& pass : plan.passes) ctx.kernel("sobel.cl", plan.options, pass.kernel);
  } catch (const ClError& e) {
    // "auto" meets the refusal again at the call, which falls back (enqueue above).
    if (variant != "auto" || !is_variant_refusal(e)) throw;
  }
}
}  // namespace

void sobel_prepare(Context& ctx, const SobelParams& params, std::string_view variant, int width, int height,
                   const TuningConfig& config) {
  prepare(ctx, {params, width, height}, variant, config);
}

std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& in, DeviceImage& out, const SobelParams& params,
                             std::string_view variant, const TuningConfig& config, const std::vector<cl::Event>& wait) {
  if (params.output == SobelOutput::gradients)
    throw std::invalid_argument("sobel: gradients go to a DeviceGradients, not an 8-bit image");
  if (out.width != in.width || out.height != in.height || out.channels != 1)
    throw std::invalid_argument("sobel: the output must be a 1-channel image of the input's size");
  return enqueue(ctx, in, SobelOutputs{&out, nullptr}, params, variant, config, wait);
}

namespace {
// The checks of a call into gradient planes or pairs: `type` names the output's type, `kind` its buffers.
template <class Gradients>
void check_gradients_call(const DeviceImage& in, const Gradients& out, const SobelParams& params, std::string_view type,
                          std::string_view kind) {
  if (params.output != SobelOutput::gradients)
    throw std::invalid_argument(
        fmt::format("sobel: a {} output needs output=gradients, not {}", type, to_string(params.output)));
  if (out.width != in.width || out.height != in.height)
    throw std::invalid_argument(fmt::format("sobel: the gradient {} must have the input's size", kind));
}
}  // namespace

std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& in, DeviceGradients& out, const SobelParams& params,
                             std::string_view variant, const TuningConfig& config, const std::vector<cl::Event>& wait) {
  check_gradients_call(in, out, params, "DeviceGradients", "planes");
  return enqueue(ctx, in, SobelOutputs{nullptr, &out}, params, variant, config, wait);
}

std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& in, DeviceGradientPairs& out, const SobelParams& params,
                             std::string_view variant, const TuningConfig& config, const std::vector<cl::Event>& wait) {
  check_gradients_call(in, out, params, "DeviceGradientPairs", "pairs");
  return enqueue(ctx, in, SobelOutputs{nullptr, nullptr, &out}, params, variant, config, wait);
}

std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& in, SobelDeviceOutput& out, const SobelParams& params,
                             std::string_view variant, const TuningConfig& config, const std::vector<cl::Event>& wait) {
  return std::visit([&](auto& planes) { return sobel(ctx, in, planes, params, variant, config, wait); }, out.planes);
}

std::vector<cl::Event> sobel_host_layout(Context& ctx, const DeviceImage& in, const cl::Buffer& out,
                                         const SobelParams& params, std::string_view variant,
                                         const TuningConfig& config, const std::vector<cl::Event>& wait,
                                         const RowRange& rows) {
  if (params.output == SobelOutput::gradients) {
    const DeviceGradientPairs pairs{out, in.width, in.height};
    return enqueue(ctx, in, SobelOutputs{nullptr, nullptr, &pairs}, params, variant, config, wait, rows);
  }
  DeviceImage image{.buffer = out, .width = in.width, .height = in.height, .channels = 1, .type = SampleType::u8};
  return enqueue(ctx, in, SobelOutputs{&image, nullptr}, params, variant, config, wait, rows);
}

void sobel_prepare_host_call(Context& ctx, const SobelParams& params, std::string_view variant, int width, int height,
                             const TuningConfig& config) {
  SobelCall call{params, width, height};
  call.interleaved = params.output == SobelOutput::gradients;
  prepare(ctx, call, variant, config);
}

Image sobel_host_call(Context& ctx, const Image& input, const SobelParams& params, std::string_view variant,
                      const TuningConfig& config, std::vector<cl::Event>& events) {
  Image converted;
  const Image& grey = input.channels == 1 ? input : (converted = sobel_grey(input));
  const auto call = [&](const DeviceImage& in, auto& out) { return sobel(ctx, in, out, params, variant, config); };
  Image result;
  if (params.output == SobelOutput::gradients) {
    const DeviceImage d_in =
        DeviceImage::over_host(ctx, const_cast<std::uint8_t*>(grey.data.data()), grey.width, grey.height, 1, true);
    result = Image::uninitialized(grey.width, grey.height, 2, SampleType::i16);
    DeviceGradientPairs d_out{buffer_over_host(ctx, result.data.data(), result.byte_size(), false), grey.width,
                              grey.height};
    for (cl::Event& e : call(d_in, d_out)) events.push_back(std::move(e));
    read_to_host(ctx, d_out.buffer, result.data.data(), result.byte_size());
  } else {
    result = filter_host_image(ctx, grey, call, events);
  }
  return result;
}

namespace {

void check_host_input(const Image& input) {
  if (input.type != SampleType::u8 || input.channels < 1 || input.channels > 4)
    throw std::invalid_argument(fmt::format("Sobel takes 8-bit images with 1 to 4 channels, got {} channel(s) of {}",
                                            input.channels, sample_type_name(input.type)));
  if (input.width < 1 || input.height < 1)
    throw std::invalid_argument(
        fmt::format("Sobel needs an image of at least 1x1, got {}x{}", input.width, input.height));
}

// The shape of a banded Sobel call on `input`: its grey plane in, the output's rows out, one row of reach.
BandedImage banded(const Image& input, const SobelParams& params) {
  const std::size_t w = std::size_t(input.width);
  return {nullptr, nullptr,        input.width, input.height,
          1,       SampleType::u8, w,           params.output == SobelOutput::gradients ? 4 * w : w,
          1};
}

// The host call cut into bands of rows, each with the row above and below it, handed out to `devices`: for several
// devices, and for one that cannot hold the image (its result: 4 bytes a pixel for the gradients) or where it has
// 2^29 pixels or more. Each device chooses its variant for a band's size, the largest call it runs; a CPU device
// whose variant takes a row range runs each band as a range of the whole image.
Image sobel_in_bands(const std::vector<Context*>& devices, const Image& input, const SobelParams& params,
                     std::string_view variant, Timing* timing) {
  const bool gradients = params.output == SobelOutput::gradients;
  const int rows =
      multi_device_band_rows(devices, input.width, input.height, 1, banded_bytes(banded(input, params)), 1);
  const int call_rows = std::min(input.height, rows + 2);
  std::vector<VariantChoice> choices(devices.size());
  std::vector<char> on_rows(devices.size());  // whether the device runs row ranges of the whole image
  on_each_device(devices, [&](Context& ctx, std::size_t d) {
    sobel_check_params(params);
    choices[d] = sobel_choose(ctx, params, variant, input.width, call_rows);
    on_rows[d] = ctx.works_in_host_memory() && sobel_table().takes_row_range(choices[d].variant) &&
                 indexable(input.width, input.height);
    sobel_prepare_host_call(ctx, params, choices[d].variant, input.width, call_rows, choices[d].config);
  });
  const HostCallClock clock;
  Image converted;
  const Image& grey = input.channels == 1 ? input : (converted = sobel_grey(input));
  Image result = gradients ? Image::uninitialized(grey.width, grey.height, 2, SampleType::i16)
                           : Image::uninitialized(grey.width, grey.height, 1);
  std::vector<cl::Event> events;
  BandedImage image = banded(input, params);
  image.in = grey.data.data(), image.out = result.data.data();
  const BandCall call{[&](Context& ctx, std::size_t d, const DeviceImage& in, const cl::Buffer& out,
                          const RowRange& band_rows, const std::vector<cl::Event>& wait) {
                        return sobel_host_layout(ctx, in, out, params, choices[d].variant, choices[d].config, wait,
                                                 band_rows);
                      },
                      [&](std::size_t d) { return on_rows[d] != 0; }};
  filter_bands_on_devices(devices, image, call, events);
  clock.finish(timing, events);
  return result;
}

}  // namespace

Image sobel(Context& ctx, const Image& input, const SobelParams& params, std::string_view variant, Timing* timing) {
  check_host_input(input);
  if (host_call_band_rows(ctx.info(), input.width, input.height, 1, banded_bytes(banded(input, params)), 1))
    return sobel_in_bands({&ctx}, input, params, variant, timing);
  // Program builds are one-off costs, not part of the call's time (SPEC "Total time"); the grey
  // conversion on the host is part of it.
  sobel_prepare_host_call(ctx, params, variant, input.width, input.height, {});
  const HostCallClock clock;
  std::vector<cl::Event> events;
  Image result = sobel_host_call(ctx, input, params, variant, {}, events);
  clock.finish(timing, events);
  return result;
}

Image sobel(const std::vector<Context*>& devices, const Image& input, const SobelParams& params,
            std::string_view variant, Timing* timing) {
  check_device_list("Sobel", devices);
  if (devices.size() == 1) return sobel(*devices.front(), input, params, variant, timing);
  check_host_input(input);
  return sobel_in_bands(devices, input, params, variant, timing);
}

std::vector<Image> sobel(const std::vector<Context*>& devices, const std::vector<Image>& inputs,
                         const SobelParams& params, std::string_view variant, Timing* timing) {
  return filter_batch(
      devices, inputs.size(),
      [&](Context& ctx, std::size_t i, Timing* t) { return sobel(ctx, inputs[i], params, variant, t); }, timing);
}

}  // namespace clf
