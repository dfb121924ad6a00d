// SPDX-License-Identifier: Apache-2.0
// Host launcher for the Sobel variants: resolves a call (parameters, variant, plan) and enqueues it through
// the variant's entry (sobel_variants.cpp; kernels in sobel.cl).
#include "clfilters/sobel.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <variant>

#include "filters/sobel/sobel_internal.hpp"

namespace clf {
namespace {

void check_size(int width, int height) {
  if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("Sobel needs an image of at least 1x1, got {}x{}", width, height));
  // Kernels index pixels with 32-bit ints.
  if (std::int64_t(width) * height >= (std::int64_t(1) << 31))
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

// The enqueue shared by both output kinds: `out_a`/`out_b` are gx/gy, or the 8-bit output twice.
std::vector<cl::Event> enqueue(Context& ctx, const DeviceImage& in, const cl::Buffer& out_a, const cl::Buffer& out_b,
                               const SobelParams& params, std::string_view variant, const TuningConfig& config) {
  if (in.channels != 1) throw std::invalid_argument("sobel: the device input must have 1 channel (grey)");
  const SobelCall call{params, in.width, in.height};
  const auto r = resolve(ctx, call, variant, config);
  SobelTarget target{in, out_a, out_b};
  return r.enqueue(ctx, call, target);
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
  if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("gradient planes need a size of at least 1x1 (got {}x{})", width, height));
  DeviceGradients g;
  g.width = width;
  g.height = height;
  g.gx = ctx.buffer(CL_MEM_READ_WRITE, g.plane_bytes());
  g.gy = ctx.buffer(CL_MEM_READ_WRITE, g.plane_bytes());
  return g;
}

Image DeviceGradients::download(Context& ctx) const {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  std::vector<std::int16_t> x(n), y(n);
  check_cl(ctx.queue().enqueueReadBuffer(gx, CL_TRUE, 0, plane_bytes(), x.data()), "clEnqueueReadBuffer");
  check_cl(ctx.queue().enqueueReadBuffer(gy, CL_TRUE, 0, plane_bytes(), y.data()), "clEnqueueReadBuffer");
  Image out(width, height, 2, SampleType::i16);
  auto s = out.samples<std::int16_t>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    s[2 * i] = x[i];
    s[2 * i + 1] = y[i];
  }
  return out;
}

SobelDeviceOutput SobelDeviceOutput::allocate(Context& ctx, int width, int height, const SobelParams& params) {
  if (params.output == SobelOutput::gradients) return {DeviceGradients::allocate(ctx, width, height)};
  return {DeviceImage::allocate(ctx, width, height, 1)};
}

Image SobelDeviceOutput::download(Context& ctx) const {
  return std::visit([&](const auto& out) { return out.download(ctx); }, planes);
}

void sobel_prepare(Context& ctx, const SobelParams& params, std::string_view variant, int width, int height,
                   const TuningConfig& config) {
  const KernelPlan plan = resolve(ctx, {params, width, height}, variant, config).plan;
  for (const auto& pass : plan.passes) ctx.kernel("sobel.cl", plan.options, pass.kernel);
}

std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& in, DeviceImage& out, const SobelParams& params,
                             std::string_view variant, const TuningConfig& config, const std::vector<cl::Event>& wait) {
  if (params.output == SobelOutput::gradients)
    throw std::invalid_argument("sobel: gradients go to a DeviceGradients, not an 8-bit image");
  if (out.width != in.width || out.height != in.height || out.channels != 1)
    throw std::invalid_argument("sobel: the output must be a 1-channel image of the input's size");
  return on_packed_images(ctx, in, out, wait, [&](const DeviceImage& packed_in, DeviceImage& packed_out) {
    return enqueue(ctx, packed_in, packed_out.buffer, packed_out.buffer, params, variant, config);
  });
}

std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& in, DeviceGradients& out, const SobelParams& params,
                             std::string_view variant, const TuningConfig& config, const std::vector<cl::Event>& wait) {
  if (params.output != SobelOutput::gradients)
    throw std::invalid_argument(
        fmt::format("sobel: a DeviceGradients output needs output=gradients, not {}", to_string(params.output)));
  if (out.width != in.width || out.height != in.height)
    throw std::invalid_argument("sobel: the gradient planes must have the input's size");
  std::vector<cl::Event> events;
  enqueue_wait(ctx, wait, events);
  const DeviceImage packed_in = packed_input(ctx, in, events);
  for (auto& e : enqueue(ctx, packed_in, out.gx, out.gy, params, variant, config)) events.push_back(std::move(e));
  return events;
}

std::vector<cl::Event> sobel(Context& ctx, const DeviceImage& in, SobelDeviceOutput& out, const SobelParams& params,
                             std::string_view variant, const TuningConfig& config, const std::vector<cl::Event>& wait) {
  return std::visit([&](auto& planes) { return sobel(ctx, in, planes, params, variant, config, wait); }, out.planes);
}

Image sobel(Context& ctx, const Image& input, const SobelParams& params, std::string_view variant, Timing* timing) {
  if (input.type != SampleType::u8 || input.channels < 1 || input.channels > 4)
    throw std::invalid_argument(fmt::format("Sobel takes 8-bit images with 1 to 4 channels, got {} channel(s) of {}",
                                            input.channels, sample_type_name(input.type)));
  // Program builds are one-off costs, not part of the call's time (SPEC "Total time"); the grey
  // conversion on the host is part of it.
  sobel_prepare(ctx, params, variant, input.width, input.height);
  const auto start = std::chrono::steady_clock::now();
  const Image grey = sobel_grey(input);
  DeviceImage d_in = DeviceImage::upload(ctx, grey);
  SobelDeviceOutput d_out = SobelDeviceOutput::allocate(ctx, grey.width, grey.height, params);
  const auto events = sobel(ctx, d_in, d_out, params, variant);
  const Image result = d_out.download(ctx);
  if (timing) {
    timing->kernel_ms = kernel_milliseconds(events);
    timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return result;
}

}  // namespace clf
