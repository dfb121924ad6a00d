// The box blur's description: its variants, what each needs from the device, and the auto rule.
// Tests, the CLI (and later the benchmark and tuner) iterate over this.
#include <fmt/format.h>

#include "clfilters/box_blur.hpp"
#include "filters/box_blur/box_blur_internal.hpp"

namespace clf {

const std::vector<VariantInfo>& box_blur_variants() {
  static const std::vector<VariantInfo> all = {
      {"naive", "one pixel per work-item, d*d packed loads (seed 004 baseline)"},
      {"block4x4",
       "16 pixels per work-item in a 4x4 block with uint4 vector loads; cl_intel_subgroups block reads "
       "and writes where offered (seed 004)"},
      {"two_pass", "even d only: 2x2 sums into an integer temporary, then (d/2)^2 samples (seed 003 9.1.1)"},
      {"separable_sliding", "row pass and coalesced column pass with running sums: O(1) per pixel for any d"},
      {"local_tile", "tile plus halo loaded once into local memory per work-group"},
  };
  return all;
}

std::optional<std::string> box_blur_unsupported(const DeviceInfo& device, std::string_view variant,
                                                const BoxBlurParams& params, int width, int height, int channels) {
  const int d = params.diameter;
  const std::size_t pixel_bytes = channels == 4 ? 4 : 1;
  if (variant == "naive" || variant == "block4x4") return std::nullopt;
  if (variant == "two_pass") {
    if (d % 2 != 0) return fmt::format("two_pass needs an even diameter (got {})", d);
    const std::size_t bytes = std::size_t(width + d - 2) * std::size_t(height + d - 2) * 2 * pixel_bytes;
    if (bytes > device.max_alloc_bytes)
      return fmt::format("two_pass needs a {} MiB temporary, above the device's {} MiB allocation limit",
                         bytes >> 20, device.max_alloc_bytes >> 20);
    return std::nullopt;
  }
  if (variant == "separable_sliding") {
    const std::size_t bytes = std::size_t(width) * height * pixel_bytes * (d > 257 ? 4 : 2);
    if (bytes > device.max_alloc_bytes)
      return fmt::format("separable_sliding needs a {} MiB temporary, above the device's {} MiB allocation limit",
                         bytes >> 20, device.max_alloc_bytes >> 20);
    return std::nullopt;
  }
  if (variant == "local_tile") {
    const auto tile = box_local_tile_shape(device);
    const std::size_t bytes = std::size_t(tile.width + d - 1) * std::size_t(tile.height + d - 1) * pixel_bytes;
    if (bytes > device.local_mem_bytes)
      return fmt::format("local_tile needs {} bytes of local memory for d={}, the device has {}", bytes, d,
                         device.local_mem_bytes);
    return std::nullopt;
  }
  return fmt::format("unknown box blur variant '{}'", variant);
}

// The rule until the tuner exists. block4x4 reads each input row once per 4 output rows but still
// costs O(d^2) per pixel; separable_sliding costs O(1) per pixel plus an intermediate's traffic.
// Crossovers measured (bench/results/2026-11-22-*.md): PoCL on 2 cores, d <= 3; NVIDIA H200, d <= 9.
std::string box_blur_auto_variant(const DeviceInfo& device, const BoxBlurParams& params, int width, int height,
                                  int channels) {
  const int block_limit = (device.type & CL_DEVICE_TYPE_GPU) ? 9 : 3;
  if (params.diameter <= block_limit) return "block4x4";
  if (!box_blur_unsupported(device, "separable_sliding", params, width, height, channels))
    return "separable_sliding";
  return "block4x4";
}

}  // namespace clf
