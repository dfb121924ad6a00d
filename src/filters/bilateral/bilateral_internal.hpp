// Pieces of the bilateral filter shared by its launcher, spec and tests: the weight tables the host
// computes for the kernels, and the work-group shapes of the tiled variants.
#pragma once

#include <cstdint>
#include <vector>

#include "clfilters/bilateral.hpp"

namespace clf::bilateral_detail {

// Entries of the colour range-weight table; must match COLOUR_TABLE_SIZE in bilateral.cl.
inline constexpr int kColourTableSize = 8192;
// The largest squared RGB distance, 3 * 255^2.
inline constexpr std::uint32_t kMaxColourDistance2 = 3 * 255 * 255;

// The bin of squared distance d2 in the colour table: mul_hi(d2 << 14, scale), as the kernel computes it.
inline std::uint32_t colour_bin(std::uint32_t d2, std::uint32_t scale) {
  return static_cast<std::uint32_t>((std::uint64_t(d2 << 14) * scale) >> 32);
}

struct ColourRangeTable {
  std::vector<float> weights;  // kColourTableSize entries; bins past the table mean weight 0
  std::uint32_t scale = 0;     // the `range_scale` kernel argument
};

// The colour table for sigma_range (derivation and error bound at the top of bilateral.cl).
ColourRangeTable colour_range_table(double sigma_range);
// exp(-k^2 / (2 sigma_range^2)) for k = |p - c| in 0..255.
std::vector<float> grey_range_table(double sigma_range);
// exp(-(dx^2 + dy^2) / (2 sigma_spatial^2)), row-major over the (2r+1)^2 window, dy outermost.
std::vector<float> spatial_table(double sigma_spatial, int radius);

struct TileShape {
  int width;
  int height;
};

// Work-group (tile) shape of the local, local_image and range_table variants for these tunables.
TileShape tile_shape(const DeviceInfo& device, const VariantInfo& variant, const TuningConfig& config);

}  // namespace clf::bilateral_detail
