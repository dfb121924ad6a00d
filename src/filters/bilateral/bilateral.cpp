// SPDX-License-Identifier: Apache-2.0
// Host launcher for the bilateral variants (kernels in bilateral.cl; the variants' entries in
// bilateral_variants.cpp) and the weight tables it uploads.
#include "clfilters/bilateral.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "filters/bilateral/bilateral_internal.hpp"
#include "filters/multi_device.hpp"

namespace clf {

using namespace bilateral_detail;

int bilateral_radius(const BilateralParams& params) {
  if (params.radius >= 0) return params.radius;
  return static_cast<int>(std::min<double>(kMaxBilateralRadius, std::ceil(2.0 * params.sigma_spatial)));
}

BilateralWindow parse_bilateral_window(std::string_view text) {
  if (text == "square") return BilateralWindow::square;
  if (text == "disk") return BilateralWindow::disk;
  throw std::invalid_argument(fmt::format("unknown bilateral window '{}' (expected square or disk)", text));
}

BilateralDistance parse_bilateral_distance(std::string_view text) {
  if (text == "l2") return BilateralDistance::l2;
  if (text == "l1") return BilateralDistance::l1;
  throw std::invalid_argument(fmt::format("unknown bilateral distance '{}' (expected l2 or l1)", text));
}

std::string to_string(BilateralWindow window) {
  return window == BilateralWindow::disk ? "disk" : "square";
}

std::string to_string(BilateralDistance distance) {
  return distance == BilateralDistance::l1 ? "l1" : "l2";
}

void bilateral_check_params(const BilateralParams& p, SampleType type) {
  // Written as !(a >= b) so that NaN is refused too.
  if (!(p.sigma_spatial >= kMinBilateralSigma) || !std::isfinite(p.sigma_spatial))
    throw std::invalid_argument(
        fmt::format("sigma_spatial must be finite and at least {}, got {}", kMinBilateralSigma, p.sigma_spatial));
  if (!(p.sigma_range >= kMinBilateralSigma) || !std::isfinite(p.sigma_range))
    throw std::invalid_argument(
        fmt::format("sigma_range must be finite and at least {}, got {}", kMinBilateralSigma, p.sigma_range));
  if (p.radius < -1 || p.radius > kMaxBilateralRadius)
    throw std::invalid_argument(fmt::format("radius must be 0..{}, got {}", kMaxBilateralRadius, p.radius));
  check_border(p.border, type);
  // Enums cast from integers (the Python binding, fuzzers) can hold anything.
  if (p.window != BilateralWindow::square && p.window != BilateralWindow::disk)
    throw std::invalid_argument(fmt::format("window must be square or disk, got {}", static_cast<int>(p.window)));
  if (p.distance != BilateralDistance::l2 && p.distance != BilateralDistance::l1)
    throw std::invalid_argument(fmt::format("distance must be l2 or l1, got {}", static_cast<int>(p.distance)));
}

std::optional<std::string> bilateral_unsupported(const DeviceInfo& device, std::string_view variant,
                                                 const BilateralParams& params, int width, int height, int channels,
                                                 const TuningConfig& config, SampleType type) {
  const ImageTable<BilateralParams>& table = bilateral_table();
  const ImageTable<BilateralParams>::Entry* entry = table.find(variant);
  if (!entry) return fmt::format("unknown bilateral variant '{}'", variant);
  try {
    bilateral_check_params(params, type);
  } catch (const std::invalid_argument& e) {
    return std::string(e.what());
  }
  if (channels != 1 && channels != 4) return fmt::format("bilateral runs on 1 or 4 channels, not {}", channels);
  // Every variant whose work-group is local_x x local_y (a tunable, or set in `config`).
  const int lx = tunable_value(config, entry->info, "local_x"), ly = tunable_value(config, entry->info, "local_y");
  if (lx > 0 && std::size_t(lx) * std::size_t(ly) > device.max_work_group_size)
    return fmt::format("work-group {}x{} exceeds the device's {} work-items", lx, ly, device.max_work_group_size);
  return table.unsupported(variant, device, {params, width, height, channels, type}, config);
}

namespace bilateral_detail {

ColourRangeTable colour_range_table(double sigma_range) {
  const double coef = gaussian_coefficient(sigma_range);
  // Bin width q (bilateral.cl): bins of one distance each while 8192 of them reach exp(-16); wider
  // bins beyond, never wider than the whole distance range needs.
  const double extent = std::min(32.0 * sigma_range * sigma_range, double(kMaxColourDistance2) + 1.0);
  const double q = std::max(1.0, extent / kColourTableSize);
  ColourRangeTable table;
  table.scale = static_cast<std::uint32_t>(std::floor(double(1u << 18) / q));
  // Each entry is the weight at the middle of the distances that land in it (smallest relative error).
  std::vector<std::uint32_t> lo(kColourTableSize, UINT32_MAX), hi(kColourTableSize, 0);
  for (std::uint32_t d2 = 0; d2 <= kMaxColourDistance2; ++d2) {
    const std::uint32_t bin = colour_bin(d2, table.scale);
    if (bin >= std::uint32_t(kColourTableSize)) break;  // bins grow with d2: the rest are dropped too
    lo[bin] = std::min(lo[bin], d2);
    hi[bin] = std::max(hi[bin], d2);
  }
  table.weights.assign(kColourTableSize, 0.0f);
  for (int k = 0; k < kColourTableSize; ++k)
    if (lo[k] <= hi[k]) table.weights[k] = static_cast<float>(std::exp(-0.5 * (double(lo[k]) + hi[k]) * coef));
  return table;
}

std::vector<float> grey_range_table(double sigma_range) {
  const double coef = gaussian_coefficient(sigma_range);
  std::vector<float> table(256);
  for (int k = 0; k < 256; ++k) table[k] = static_cast<float>(std::exp(-double(k) * k * coef));
  return table;
}

std::vector<float> l1_range_table(double sigma_range) {
  const double coef = gaussian_coefficient(sigma_range);
  std::vector<float> table(3 * 255 + 1);
  for (std::size_t k = 0; k < table.size(); ++k) table[k] = static_cast<float>(std::exp(-double(k) * double(k) * coef));
  return table;
}

std::vector<float> spatial_table(double sigma_spatial, int radius, BilateralWindow window) {
  const double coef = gaussian_coefficient(sigma_spatial);
  const int d = 2 * radius + 1;
  std::vector<float> table(std::size_t(d) * d);
  for (int j = 0; j < d; ++j)
    for (int i = 0; i < d; ++i) {
      const int dx = i - radius, dy = j - radius;
      // A zero weight adds exactly nothing to either sum, so the disk needs no other change in the kernels.
      const bool kept = window_keeps(dx, dy, radius, window);
      table[std::size_t(j) * d + i] = kept ? static_cast<float>(std::exp(-double(dx * dx + dy * dy) * coef)) : 0.0f;
    }
  return table;
}

float unrolled_range_scale(double sigma_range) {
  const double scale = std::sqrt(kLog2e * gaussian_coefficient(sigma_range));
  int exponent = 0;
  std::frexp(scale, &exponent);  // scale = m 2^exponent, m in [0.5, 1)
  return static_cast<float>(std::ldexp(std::round(std::ldexp(scale, 16 - exponent)), exponent - 16));
}

float range_scale(double sigma_range, SampleType type) {
  if (type != SampleType::u16) return unrolled_range_scale(sigma_range);
  return static_cast<float>(std::sqrt(kLog2e * gaussian_coefficient(sigma_range)));
}

bool unrolled_needs_clamp(double sigma_spatial, double sigma_range, int radius, int channels, SampleType type) {
  const double colours = channels == 4 ? 3 : 1, top = max_sample_value(type);
  const double lowest = colours * top * top * kLog2e * gaussian_coefficient(sigma_range) +
                        2.0 * radius * radius * kLog2e * gaussian_coefficient(sigma_spatial);
  return lowest > 120.0;  // margin below -125 for the float rounding of the exponent
}

bool unrolled_expanded(const BilateralParams& params, int channels, SampleType type) {
  if (channels != 4 || type == SampleType::u16) return false;
  const double scale = unrolled_range_scale(params.sigma_range);
  const int r = bilateral_radius(params);
  const double colour = 3.0 * 255.0 * 255.0 * scale * scale;
  const double spatial = 2.0 * r * r * kLog2e * gaussian_coefficient(params.sigma_spatial);
  return colour + spatial <= 256.0;
}

}  // namespace bilateral_detail

const ImageFilterApi<BilateralParams> kBilateralApi{
    "bilateral",           "bilateral",           "bilateral",
    "bilateral.cl",        bilateral_table,       bilateral_check_params,
    bilateral_unsupported, bilateral_param_class, bilateral_auto_variant,
    bilateral_reference,   check_image_size,      true,
    bilateral_radius};

void bilateral_prepare(Context& ctx, const BilateralParams& params, std::string_view variant, int width, int height,
                       int channels, const TuningConfig& config, SampleType type) {
  prepare_image_call(ctx, kBilateralApi, {params, width, height, channels, type}, variant, config);
}

std::vector<cl::Event> bilateral(Context& ctx, const DeviceImage& in, DeviceImage& out, const BilateralParams& params,
                                 std::string_view variant, const TuningConfig& config,
                                 const std::vector<cl::Event>& wait) {
  return enqueue_image_call(ctx, kBilateralApi, in, out, params, variant, config, wait);
}

Image bilateral(Context& ctx, const Image& input, const BilateralParams& params, std::string_view variant,
                Timing* timing) {
  return host_image_call(ctx, kBilateralApi, input, params, variant, Alpha::kept_apart, timing);
}

Image bilateral(const std::vector<Context*>& devices, const Image& input, const BilateralParams& params,
                std::string_view variant, Timing* timing) {
  return host_image_call(devices, kBilateralApi, input, params, variant, Alpha::kept_apart, timing);
}

void bilateral(const std::vector<Context*>& devices, const ImageView& input, const MutableImageView& output,
               const BilateralParams& params, std::string_view variant, Timing* timing) {
  host_view_call(devices, kBilateralApi, input, output, params, variant, timing);
}

std::vector<Image> bilateral(const std::vector<Context*>& devices, const std::vector<Image>& inputs,
                             const BilateralParams& params, std::string_view variant, Timing* timing) {
  return filter_batch(
      devices, inputs.size(),
      [&](Context& ctx, std::size_t i, Timing* t) { return bilateral(ctx, inputs[i], params, variant, t); }, timing);
}

}  // namespace clf
