// SPDX-License-Identifier: Apache-2.0
// Pieces of the bilateral filter shared by its launcher, variant table, spec and tests: a call's description,
// the variant table, the weight tables the host computes for the kernels, and the work-group shapes the
// variants derive from their tunables.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "clfilters/bilateral.hpp"
#include "filters/image_call.hpp"

namespace clf {

using BilateralCall = ImageCall<BilateralParams>;
// The filter's public device calls, as its launcher (bilateral.cpp) and FilterSpec run them.
extern const ImageFilterApi<BilateralParams> kBilateralApi;
// Every bilateral variant: the seed's four phases, then those that go beyond it (bilateral_variants.cpp).
const ImageTable<BilateralParams>& bilateral_table();

}  // namespace clf

namespace clf::bilateral_detail {

// 1 / (2 sigma^2) as the kernels use it.
inline double gaussian_coefficient(double sigma) {
  return 1.0 / (2.0 * sigma * sigma);
}

// log2(e): the unrolled variant computes exp as exp2.
inline const double kLog2e = std::log2(std::exp(1.0));

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
// The colour table of the L1 distance: exp(-k^2 / (2 sigma_range^2)) for k = |dR| + |dG| + |dB| in 0..765,
// exact up to float rounding (OpenCV's table of 3 * 256 entries).
std::vector<float> l1_range_table(double sigma_range);

// Whether the window keeps the tap at offset (dx, dy).
inline bool window_keeps(int dx, int dy, int radius, BilateralWindow window) {
  return window == BilateralWindow::square || dx * dx + dy * dy <= radius * radius;
}
// The largest dx^2 + dy^2 the window keeps: the naive kernel's bound.
inline int window_max_distance2(int radius, BilateralWindow window) {
  return window == BilateralWindow::square ? 2 * radius * radius : radius * radius;
}

// exp(-(dx^2 + dy^2) / (2 sigma_spatial^2)), row-major over the (2r+1)^2 window, dy outermost; 0 for the taps
// the window leaves out.
std::vector<float> spatial_table(double sigma_spatial, int radius, BilateralWindow window = BilateralWindow::square);

// The unrolled variant is built for one radius with every window loop unrolled; its code grows with
// the window, so it stops here.
inline constexpr int kMaxUnrolledRadius = 8;

// The unrolled variant's build-time shape (bilateral.cl, "unrolled").
struct UnrolledShape {
  int local_x = 16;
  int local_y = 8;
  int block_x = 4;     // outputs per work-item in x
  int rows = 2;        // output rows per work-item
  int soft_exp = 0;    // of every 16 taps, how many use the FMA-pipe exp2 (0..16)
  int table_taps = 0;  // grey: of every 16 taps, how many use the range table (soft_exp + table_taps <= 16)
  int int_exp = 0;     // colour, expanded: the exponent's colour term from a dp4a on packed bytes (0 or 1)
};
// 16-bit samples: table_taps defaults to 0 (the table has an entry per 8-bit difference).
UnrolledShape unrolled_shape(const VariantInfo& variant, const TuningConfig& config, int channels,
                             SampleType type = SampleType::u8);
// Local memory of its tile: `planes` float planes of (local_x * block_x + 2r) x (local_y * rows + 2r).
std::size_t unrolled_tile_bytes(const UnrolledShape& shape, int radius, int planes);
// Its tile planes: the colours, q = -|p'|^2 where the expanded exponent is built (with int_exp: 2^23 + 2^22 -
// |p|^2 as float bits, and the packed bytes), and the grey byte offsets 4p where table taps are built.
int unrolled_planes(const BilateralParams& params, int channels, const UnrolledShape& shape,
                    SampleType type = SampleType::u8);

// The colour scale of the unrolled variant, sqrt(log2(e) / (2 sr^2)), rounded to 16 significant bits
// (relative error <= 2^-16) so that every p * scale (p <= 255) and (p - c) * scale is exact in float.
float unrolled_range_scale(double sigma_range);
// The colour scale cpu_rows and unrolled take: unrolled_range_scale for u8; for u16 the exact scale rounded once to
// float, as their 16-bit forms scale exact differences, and an error of 2^-16 common to every exponent would move
// 16-bit means by up to 65535 * 2.12e-5 * 0.531 (the 8-bit analysis in bilateral_unrolled.cl): 0.74.
float range_scale(double sigma_range, SampleType type);
// Whether an exponent of the unrolled variant can fall below -125 (soft_exp2 then clamps it).
bool unrolled_needs_clamp(double sigma_spatial, double sigma_range, int radius, int channels,
                          SampleType type = SampleType::u8);
// Whether it computes the colour exponent expanded (bilateral.cl): colour, with every term of the
// exponent at most 256 in magnitude, which bounds its cancellation error; never for 16-bit samples, where that
// error times 65535 would break the contract.
bool unrolled_expanded(const BilateralParams& params, int channels, SampleType type = SampleType::u8);

}  // namespace clf::bilateral_detail
