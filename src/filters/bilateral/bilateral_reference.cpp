// SPDX-License-Identifier: Apache-2.0
// CPU reference for the bilateral filter, in double precision as docs/SPEC.md defines it, for both windows
// (square, disk) and both colour distances (l2, l1), on u8 or u16 samples. The weight
// exp(-a - b) is computed as a product of exps from double tables (spatial offsets, and the colour
// distances), which differs from the single exp by a few units in the 16th digit and keeps the
// reference fast enough for the large test images. (The test checks it against a brute-force
// evaluation of the formula.) u8 tables every squared colour distance; u16, whose squared RGB distances
// reach 3 * 65535^2, tables exp(-k^2 / (2 sr^2)) per channel difference k (l2: one factor a channel) or
// per |dR| + |dG| + |dB| (l1).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "clfilters/bilateral.hpp"
#include "common/parallel.hpp"

namespace clf {

namespace {

template <class T>
Image reference(const Image& input, const BilateralParams& params, int threads) {
  constexpr bool u16 = sizeof(T) == 2;
  constexpr int kMax = u16 ? 65535 : 255;
  const int w = input.width, h = input.height, c = input.channels;
  const int r = bilateral_radius(params), d = 2 * r + 1;
  const int colours = c == 4 ? 3 : 1;
  const BorderMode mode = params.border.mode;
  const auto cval = static_cast<T>(params.border.value);
  const auto px = input.samples<T>();

  const double spatial_coef = 1.0 / (2.0 * params.sigma_spatial * params.sigma_spatial);
  const double range_coef = 1.0 / (2.0 * params.sigma_range * params.sigma_range);
  std::vector<double> spatial(std::size_t(d) * d);
  for (int j = 0; j < d; ++j)
    for (int i = 0; i < d; ++i)
      spatial[std::size_t(j) * d + i] = std::exp(-double((i - r) * (i - r) + (j - r) * (j - r)) * spatial_coef);
  // The taps the window keeps, in the order of the loops below.
  std::vector<int> taps;
  for (int j = 0; j < d; ++j)
    for (int i = 0; i < d; ++i)
      if (params.window == BilateralWindow::square || (i - r) * (i - r) + (j - r) * (j - r) <= r * r)
        taps.push_back(j * d + i);
  const bool l1 = params.distance == BilateralDistance::l1;
  // u8: indexed by the squared distance, 0 .. colours * 255^2 (l2), or (|dR| + |dG| + |dB|)^2 up to 765^2 (l1).
  // u16: indexed by a distance k, exp(-k^2 coef): 0..65535 a channel (l2), 0..colours * 65535 (l1).
  std::vector<double> range;
  if (u16) {
    range.resize(std::size_t(l1 ? colours : 1) * kMax + 1);
    for (std::size_t k = 0; k < range.size(); ++k) range[k] = std::exp(-double(k) * double(k) * range_coef);
  } else {
    range.resize((l1 ? std::size_t(colours) * colours : std::size_t(colours)) * 255 * 255 + 1);
    for (std::size_t k = 0; k < range.size(); ++k) range[k] = std::exp(-double(k) * range_coef);
  }

  // Border-resolved column indices for every x and window offset, shared by all rows.
  std::vector<int> columns(std::size_t(w) * d);
  for (int x = 0; x < w; ++x)
    for (int i = 0; i < d; ++i) columns[std::size_t(x) * d + i] = border_index(x - r + i, w, mode);

  Image out(w, h, c, input.type);
  auto o = out.samples<T>();
  parallel_rows(h, threads, [&](int y0, int y1) {
    std::vector<int> rows(d);
    for (int y = y0; y < y1; ++y) {
      for (int j = 0; j < d; ++j) rows[j] = border_index(y - r + j, h, mode);
      for (int x = 0; x < w; ++x) {
        const T* centre = &px[(std::size_t(y) * w + x) * c];
        double sum[3] = {0, 0, 0}, wsum = 0;
        for (const int tap : taps) {
          const int j = tap / d, i = tap % d;
          const int xx = columns[std::size_t(x) * d + i], yy = rows[j];
          const T constant[4] = {cval, cval, cval, cval};
          const T* p = (xx < 0 || yy < 0) ? constant : &px[(std::size_t(yy) * w + xx) * c];
          double range_weight = 1;
          if (u16 && l1) {
            int k = 0;
            for (int ch = 0; ch < colours; ++ch) k += std::abs(p[ch] - centre[ch]);
            range_weight = range[std::size_t(k)];
          } else if (u16) {
            for (int ch = 0; ch < colours; ++ch) range_weight *= range[std::size_t(std::abs(p[ch] - centre[ch]))];
          } else {
            int d2 = 0;
            if (l1) {
              for (int ch = 0; ch < colours; ++ch) d2 += std::abs(p[ch] - centre[ch]);
              d2 *= d2;
            } else {
              for (int ch = 0; ch < colours; ++ch) d2 += (p[ch] - centre[ch]) * (p[ch] - centre[ch]);
            }
            range_weight = range[std::size_t(d2)];
          }
          const double weight = spatial[std::size_t(tap)] * range_weight;
          for (int ch = 0; ch < colours; ++ch) sum[ch] += weight * p[ch];
          wsum += weight;
        }
        T* dst = &o[(std::size_t(y) * w + x) * c];
        // The centre's weight is 1, so wsum >= 1. SPEC rounding: nearest, ties up, clamped.
        for (int ch = 0; ch < colours; ++ch)
          dst[ch] = static_cast<T>(std::clamp(std::floor(sum[ch] / wsum + 0.5), 0.0, double(kMax)));
        if (c == 4) dst[3] = centre[3];
      }
    }
  });
  return out;
}

}  // namespace

Image bilateral_reference(const Image& input, const BilateralParams& params, int threads) {
  const bool u16 = input.type == SampleType::u16;
  if ((input.type != SampleType::u8 && !u16) || (input.channels != 1 && input.channels != 4))
    throw std::invalid_argument("bilateral_reference takes u8 or u16 images with 1 or 4 channels");
  bilateral_check_params(params, input.type);
  return u16 ? reference<std::uint16_t>(input, params, threads) : reference<std::uint8_t>(input, params, threads);
}

}  // namespace clf
