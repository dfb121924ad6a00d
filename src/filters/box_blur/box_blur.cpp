// Host launcher for the box blur variants (kernels in box_blur.cl).
#include "clfilters/box_blur.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <stdexcept>

#include "filters/box_blur/box_blur_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {

void check_size(int width, int height) {
  // Kernels index with 32-bit ints.
  if (std::int64_t(width) * height * 4 >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (at most 2^29 pixels)", width, height));
}

ResolvedCall<BoxBlurCall, BoxBlurTarget> resolve(Context& ctx, const BoxBlurCall& call, std::string_view variant,
                                                 const TuningConfig& config) {
  box_blur_check_params(call.params);
  if (call.channels != 1 && call.channels != 4)
    throw std::invalid_argument("box_blur: device images need 1 or 4 channels");
  check_size(call.width, call.height);
  VariantChoice choice = box_blur_choose(ctx, call.params, variant, call.width, call.height, call.channels, config);
  const auto why = box_blur_table().unsupported(choice.variant, ctx.info(), call, choice.config);
  return plan_call(ctx, box_blur_table(), call, std::move(choice), why);
}

}  // namespace

void box_blur_check_params(const BoxBlurParams& p) {
  if (p.diameter < 1 || p.diameter > kMaxBoxDiameter)
    throw std::invalid_argument(fmt::format("diameter must be 1..{}, got {}", kMaxBoxDiameter, p.diameter));
  check_border(p.border);
}

const std::vector<VariantInfo>& box_blur_variants() {
  return box_blur_table().infos();
}

std::optional<std::string> box_blur_unsupported(const DeviceInfo& device, std::string_view variant,
                                                const BoxBlurParams& params, int width, int height, int channels,
                                                const TuningConfig& config) {
  return box_blur_table().unsupported(variant, device, {params, width, height, channels}, config);
}

std::string box_blur_build_key(Context& ctx, const BoxBlurParams& params, std::string_view variant, int width,
                               int height, int channels, const TuningConfig& config) {
  return resolve(ctx, {params, width, height, channels}, variant, config).plan.build_key();
}

void box_blur_prepare(Context& ctx, const BoxBlurParams& params, std::string_view variant, int width, int height,
                      int channels, const TuningConfig& config) {
  const KernelPlan plan = resolve(ctx, {params, width, height, channels}, variant, config).plan;
  for (const auto& pass : plan.passes) ctx.kernel("box_blur.cl", plan.options, pass.kernel);
}

std::vector<cl::Event> box_blur(Context& ctx, const DeviceImage& in, DeviceImage& out, const BoxBlurParams& params,
                                std::string_view variant, const TuningConfig& config,
                                const std::vector<cl::Event>& wait) {
  if (in.width != out.width || in.height != out.height || in.channels != out.channels)
    throw std::invalid_argument("box_blur: output must have the input's size and channels");
  const BoxBlurCall call{params, in.width, in.height, in.channels};
  const auto r = resolve(ctx, call, variant, config);
  return on_packed_images(ctx, in, out, wait, [&](const DeviceImage& packed_in, DeviceImage& packed_out) {
    BoxBlurTarget target{packed_in, packed_out};
    return r.enqueue(ctx, call, target);
  });
}

Image box_blur(Context& ctx, const Image& input, const BoxBlurParams& params, std::string_view variant,
               Timing* timing) {
  if (input.type != SampleType::u8)
    throw std::invalid_argument(fmt::format("box blur needs 8-bit samples, got {}", sample_type_name(input.type)));
  if (input.channels < 1 || input.channels > 4)
    throw std::invalid_argument(fmt::format("box blur takes 1 to 4 channels, got {}", input.channels));
  if (input.width < 1 || input.height < 1) throw std::invalid_argument("box blur needs an image of at least 1x1");
  // Grey+alpha and RGB travel as RGBA (SPEC: RGB gets alpha 255 on the way in, dropped on the way out).
  const Image staged = to_filter_layout(input);
  // Program builds are one-off costs, not part of the call's time (SPEC "Total time").
  box_blur_prepare(ctx, params, variant, input.width, input.height, staged.channels);
  const auto start = std::chrono::steady_clock::now();
  DeviceImage d_in = DeviceImage::upload(ctx, staged);
  DeviceImage d_out = DeviceImage::allocate(ctx, input.width, input.height, staged.channels);
  const auto events = box_blur(ctx, d_in, d_out, params, variant);
  Image result = from_filter_layout(d_out.download(ctx), input.channels);
  if (timing) {
    timing->kernel_ms = kernel_milliseconds(events);
    timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return result;
}

}  // namespace clf
