// SPDX-License-Identifier: Apache-2.0
// Host launcher for the epsilon filter: checks a call, chooses its variant and dispatches through the variant's
// entry (epsilon_variants.cpp; kernels in epsilon.cl).
#include "clfilters/epsilon.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>

#include "filters/epsilon/epsilon_internal.hpp"
#include "filters/multi_device.hpp"
#include "runtime/launch.hpp"

namespace clf {
namespace {

// A host call's check: larger images than check_image_size allows go through in bands.
void check_not_empty(int width, int height) {
  if (width < 1 || height < 1)
    throw std::invalid_argument(fmt::format("epsilon needs an image of at least 1x1, got {}x{}", width, height));
}

void check_size(int width, int height) {
  check_not_empty(width, height);
  check_image_size(width, height);
}

// The words a missing device feature is reported in, naming the variant, as the command line, the tests and the
// benchmark's skipped runs show them.
std::string missing_feature_reason(const std::string& variant, DeviceFeature feature) {
  if (feature == DeviceFeature::images) return variant + " reads an image object; the device has no image support";
  return variant + " computes in half precision and needs cl_khr_fp16, which the device does not list";
}

}  // namespace

// Its own size check (at least 1x1), which a host call makes before its others too; and the output must not be the
// input, as work-items would read pixels that others have already written.
const ImageFilterApi<EpsilonParams> kEpsilonApi{.name = "epsilon",
                                                .spec_name = "epsilon",
                                                .words = "epsilon",
                                                .kernel_file = "epsilon.cl",
                                                .table = epsilon_table,
                                                .check_params = epsilon_check_params,
                                                .unsupported = epsilon_unsupported,
                                                .param_class = epsilon_param_class,
                                                .auto_variant = epsilon_auto_variant,
                                                .reference = epsilon_reference,
                                                .check_size = check_size,
                                                .output_may_be_input = false,
                                                .reach = [](const EpsilonParams& p) { return p.radius; },
                                                .check_host_size = check_not_empty};

// Every radius fits every variant's sums at 16 bits too: a window's sum of 16-bit samples stays within 32 bits and its
// count within 16 (epsilon.cl), so the sample type only widens the threshold's and the constant's ranges.
static_assert(std::uint64_t(2 * kMaxEpsilonRadius + 1) * (2 * kMaxEpsilonRadius + 1) * 65535 <
              (std::uint64_t(1) << 32));
static_assert((2 * kMaxEpsilonRadius + 1) * (2 * kMaxEpsilonRadius + 1) < 65536);

void epsilon_check_params(const EpsilonParams& p, SampleType type) {
  if (p.radius < kMinEpsilonRadius || p.radius > kMaxEpsilonRadius)
    throw std::invalid_argument(
        fmt::format("epsilon radius must be {}..{}, got {}", kMinEpsilonRadius, kMaxEpsilonRadius, p.radius));
  if (const int max = max_sample_value(type); p.threshold < 0 || p.threshold > max)
    throw std::invalid_argument(fmt::format("epsilon threshold must be 0..{}, got {}", max, p.threshold));
  check_border(p.border, type);
}

std::optional<std::string> epsilon_unsupported(const DeviceInfo& device, std::string_view variant,
                                               const EpsilonParams& params, int width, int height, int channels,
                                               const TuningConfig& config, SampleType type) {
  const ImageTable<EpsilonParams>& table = epsilon_table();
  // The entry's needs, each reported in the filter's own words; then the table's checks.
  if (const ImageTable<EpsilonParams>::Entry* e = table.find(variant))
    for (DeviceFeature f : e->needs)
      if (missing_feature(device, {f})) return missing_feature_reason(e->info.name, f);
  return table.unsupported(variant, device, {params, width, height, channels, type}, config);
}

void epsilon_prepare(Context& ctx, const EpsilonParams& params, std::string_view variant, int width, int height,
                     int channels, const TuningConfig& config, SampleType type) {
  prepare_image_call(ctx, kEpsilonApi, {params, width, height, channels, type}, variant, config);
}

std::vector<cl::Event> epsilon(Context& ctx, const DeviceImage& in, DeviceImage& out, const EpsilonParams& params,
                               std::string_view variant, const TuningConfig& config,
                               const std::vector<cl::Event>& wait) {
  return enqueue_image_call(ctx, kEpsilonApi, in, out, params, variant, config, wait);
}

Image epsilon(Context& ctx, const Image& input, const EpsilonParams& params, std::string_view variant, Timing* timing) {
  return host_image_call(ctx, kEpsilonApi, input, params, variant, Alpha::kept_apart, timing);
}

Image epsilon(const std::vector<Context*>& devices, const Image& input, const EpsilonParams& params,
              std::string_view variant, Timing* timing) {
  return host_image_call(devices, kEpsilonApi, input, params, variant, Alpha::kept_apart, timing);
}

void epsilon(const std::vector<Context*>& devices, const ImageView& input, const MutableImageView& output,
             const EpsilonParams& params, std::string_view variant, Timing* timing) {
  host_view_call(devices, kEpsilonApi, input, output, params, variant, timing);
}

std::vector<Image> epsilon(const std::vector<Context*>& devices, const std::vector<Image>& inputs,
                           const EpsilonParams& params, std::string_view variant, Timing* timing) {
  return filter_batch(
      devices, inputs.size(),
      [&](Context& ctx, std::size_t i, Timing* t) { return epsilon(ctx, inputs[i], params, variant, t); }, timing);
}

}  // namespace clf
