// SPDX-License-Identifier: Apache-2.0
// Host launcher for the box blur variants (kernels in box_blur.cl).
#include "clfilters/box_blur.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "filters/box_blur/box_blur_internal.hpp"
#include "filters/multi_device.hpp"
#include "runtime/launch.hpp"

namespace clf {

void box_blur_check_params(const BoxBlurParams& p, SampleType type) {
  if (p.diameter < 1 || p.diameter > kMaxBoxDiameter)
    throw std::invalid_argument(fmt::format("diameter must be 1..{}, got {}", kMaxBoxDiameter, p.diameter));
  if (type == SampleType::u16 && p.diameter > kMaxBoxDiameter16)
    throw std::invalid_argument(
        fmt::format("diameter must be 1..{} for 16-bit samples, got {}", kMaxBoxDiameter16, p.diameter));
  check_border(p.border, type);
}

std::optional<std::string> box_blur_unsupported(const DeviceInfo& device, std::string_view variant,
                                                const BoxBlurParams& params, int width, int height, int channels,
                                                const TuningConfig& config, SampleType type) {
  return box_blur_table().unsupported(variant, device, {params, width, height, channels, type}, config);
}

const ImageFilterApi<BoxBlurParams> kBoxBlurApi{"box_blur",
                                                "box-blur",
                                                "box blur",
                                                "box_blur.cl",
                                                box_blur_table,
                                                box_blur_check_params,
                                                box_blur_unsupported,
                                                box_blur_param_class,
                                                box_blur_auto_variant,
                                                box_blur_reference,
                                                check_image_size,
                                                true,
                                                [](const BoxBlurParams& p) { return p.diameter / 2; }};

std::string box_blur_build_key(Context& ctx, const BoxBlurParams& params, std::string_view variant, int width,
                               int height, int channels, const TuningConfig& config, SampleType type) {
  return resolve_image_call(ctx, kBoxBlurApi, {params, width, height, channels, type}, variant, config)
      .plan.build_key();
}

void box_blur_prepare(Context& ctx, const BoxBlurParams& params, std::string_view variant, int width, int height,
                      int channels, const TuningConfig& config, SampleType type) {
  prepare_image_call(ctx, kBoxBlurApi, {params, width, height, channels, type}, variant, config);
}

std::vector<cl::Event> box_blur(Context& ctx, const DeviceImage& in, DeviceImage& out, const BoxBlurParams& params,
                                std::string_view variant, const TuningConfig& config,
                                const std::vector<cl::Event>& wait) {
  return enqueue_image_call(ctx, kBoxBlurApi, in, out, params, variant, config, wait);
}

Image box_blur(Context& ctx, const Image& input, const BoxBlurParams& params, std::string_view variant,
               Timing* timing) {
  return host_image_call(ctx, kBoxBlurApi, input, params, variant, Alpha::filtered, timing);
}

Image box_blur(const std::vector<Context*>& devices, const Image& input, const BoxBlurParams& params,
               std::string_view variant, Timing* timing) {
  return host_image_call(devices, kBoxBlurApi, input, params, variant, Alpha::filtered, timing);
}

void box_blur(const std::vector<Context*>& devices, const ImageView& input, const MutableImageView& output,
              const BoxBlurParams& params, std::string_view variant, Timing* timing) {
  host_view_call(devices, kBoxBlurApi, input, output, params, variant, timing);
}

std::vector<Image> box_blur(const std::vector<Context*>& devices, const std::vector<Image>& inputs,
                            const BoxBlurParams& params, std::string_view variant, Timing* timing) {
  return filter_batch(
      devices, inputs.size(),
      [&](Context& ctx, std::size_t i, Timing* t) { return box_blur(ctx, inputs[i], params, variant, t); }, timing);
}

}  // namespace clf
