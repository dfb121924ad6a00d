// Host launcher for the epsilon filter: checks a call, chooses its variant and dispatches through the variant's
// entry (epsilon_variants.cpp; kernels in epsilon.cl).
#include "clfilters/epsilon.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>

#include "filters/epsilon/epsilon_internal.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {

constexpr const char* kKernelFile = "epsilon.cl";

void check_size(int width, int height) {
  if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("epsilon needs an image of at least 1x1, got {}x{}", width, height));
  // Kernels index with 32-bit ints.
  if (std::int64_t(width) * height * 4 >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (at most 2^29 pixels)", width, height));
}

// The words a missing device feature is reported in, naming the variant, as the command line, the tests and the
// benchmark's skipped runs show them.
std::string missing_feature_reason(const std::string& variant, DeviceFeature feature) {
  if (feature == DeviceFeature::images) return variant + " reads an image object; the device has no image support";
  return variant + " computes in half precision and needs cl_khr_fp16, which the device does not list";
}

ResolvedCall<EpsilonCall, EpsilonTarget> resolve(Context& ctx, const EpsilonCall& call, std::string_view variant,
                                                 const TuningConfig& config) {
  epsilon_check_params(call.params);
  if (call.channels != 1 && call.channels != 4)
    throw std::invalid_argument("epsilon: device images need 1 or 4 channels");
  check_size(call.width, call.height);
  VariantChoice choice = epsilon_choose(ctx, call.params, variant, call.width, call.height, call.channels, config);
  const auto why = epsilon_unsupported(ctx.info(), choice.variant, call.params, call.width, call.height, call.channels,
                                       choice.config);
  return plan_call(ctx, epsilon_table(), call, std::move(choice), why);
}

}  // namespace

void epsilon_check_params(const EpsilonParams& p) {
  if (p.radius < kMinEpsilonRadius || p.radius > kMaxEpsilonRadius)
    throw std::invalid_argument(
        fmt::format("epsilon radius must be {}..{}, got {}", kMinEpsilonRadius, kMaxEpsilonRadius, p.radius));
  if (p.threshold < 0 || p.threshold > 255)
    throw std::invalid_argument(fmt::format("epsilon threshold must be 0..255, got {}", p.threshold));
  check_border(p.border);
}

const std::vector<VariantInfo>& epsilon_variants() {
  return epsilon_table().infos();
}

std::optional<std::string> epsilon_unsupported(const DeviceInfo& device, std::string_view variant,
                                               const EpsilonParams& params, int width, int height, int channels,
                                               const TuningConfig& config) {
  const EpsilonTable& table = epsilon_table();
  // The entry's needs, each reported in the filter's own words; then the table's checks.
  if (const EpsilonTable::Entry* e = table.find(variant))
    for (DeviceFeature f : e->needs)
      if (missing_feature(device, {f})) return missing_feature_reason(e->info.name, f);
  return table.unsupported(variant, device, {params, width, height, channels}, config);
}

void epsilon_prepare(Context& ctx, const EpsilonParams& params, std::string_view variant, int width, int height,
                     int channels, const TuningConfig& config) {
  const KernelPlan plan = resolve(ctx, {params, width, height, channels}, variant, config).plan;
  for (const auto& pass : plan.passes) ctx.kernel(kKernelFile, plan.options, pass.kernel);
}

std::vector<cl::Event> epsilon(Context& ctx, const DeviceImage& in, DeviceImage& out, const EpsilonParams& params,
                               std::string_view variant, const TuningConfig& config,
                               const std::vector<cl::Event>& wait) {
  if (in.width != out.width || in.height != out.height || in.channels != out.channels)
    throw std::invalid_argument("epsilon: output must have the input's size and channels");
  if (in.buffer() == out.buffer()) throw std::invalid_argument("epsilon: output must not be the input");
  const EpsilonCall call{params, in.width, in.height, in.channels};
  const auto r = resolve(ctx, call, variant, config);
  return on_packed_images(ctx, in, out, wait, [&](const DeviceImage& packed_in, DeviceImage& packed_out) {
    EpsilonTarget target{packed_in, packed_out};
    return r.enqueue(ctx, call, target);
  });
}

Image epsilon(Context& ctx, const Image& input, const EpsilonParams& params, std::string_view variant, Timing* timing) {
  if (input.type != SampleType::u8)
    throw std::invalid_argument(fmt::format("epsilon needs 8-bit samples, got {}", sample_type_name(input.type)));
  if (input.channels < 1 || input.channels > 4)
    throw std::invalid_argument(fmt::format("epsilon takes 1 to 4 channels, got {}", input.channels));
  check_size(input.width, input.height);
  // RGB travels as RGBA (alpha 255, dropped again on the way out). Grey+alpha filters the grey plane
  // alone and keeps alpha, as RGBA does.
  Image staged;
  if (input.channels == 2) {
    staged = Image(input.width, input.height, 1);
    for (std::size_t i = 0; i < input.pixel_count(); ++i) staged.data[i] = input.data[2 * i];
  } else {
    staged = to_filter_layout(input);
  }
  // Program builds are one-off costs, not part of the call's time (SPEC "Total time").
  epsilon_prepare(ctx, params, variant, staged.width, staged.height, staged.channels);
  const auto start = std::chrono::steady_clock::now();
  DeviceImage d_in = DeviceImage::upload(ctx, staged);
  DeviceImage d_out = DeviceImage::allocate(ctx, staged.width, staged.height, staged.channels);
  const auto events = epsilon(ctx, d_in, d_out, params, variant);
  Image filtered = d_out.download(ctx);
  Image result;
  if (input.channels == 2) {
    result = input;
    for (std::size_t i = 0; i < input.pixel_count(); ++i) result.data[2 * i] = filtered.data[i];
  } else {
    result = from_filter_layout(filtered, input.channels);
  }
  if (timing) {
    timing->kernel_ms = kernel_milliseconds(events);
    timing->total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  return result;
}

}  // namespace clf
