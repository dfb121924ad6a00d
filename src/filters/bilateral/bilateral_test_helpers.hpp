// SPDX-License-Identifier: Apache-2.0
// What the bilateral's two test files share: the parameter matrix, the device they run on, a device run into a
// poisoned output, and the log of mean differences each accuracy test prints.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "clfilters/bilateral.hpp"
#include "clfilters/border.hpp"
#include "clfilters/runtime.hpp"
#include "testing/test_images.hpp"

namespace clf::bilateral_testing {

using testing::kBorders;
using testing::test_context;

struct SigmaPair {
  double spatial;
  double range;
};
const SigmaPair kSigmaPairs[] = {{1, 10}, {3, 30}, {5, 80}};
const int kRadii[] = {1, 3, 6, 16};

inline BilateralParams make_params(SigmaPair s, int radius, Border border) {
  BilateralParams p;
  p.sigma_spatial = s.spatial;
  p.sigma_range = s.range;
  p.radius = radius;
  p.border = border;
  return p;
}

inline std::string describe(const BilateralParams& p) {
  return fmt::format("sigma_spatial={} sigma_range={} radius={} border={}", p.sigma_spatial, p.sigma_range,
                     bilateral_radius(p), to_string(p.border));
}

// Sample i of a u8 or u16 image.
inline int sample_at(const Image& image, std::size_t i) {
  return image.type == SampleType::u16 ? int(image.samples<std::uint16_t>()[i]) : int(image.samples<std::uint8_t>()[i]);
}

inline double mean_abs_difference(const Image& a, const Image& b) {
  const std::size_t n = a.data.size() / sample_size(a.type);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += std::abs(sample_at(a, i) - sample_at(b, i));
  return n == 0 ? 0 : sum / double(n);
}

// Mean |difference| per variant over everything a test ran, printed at its end.
struct DifferenceLog {
  std::map<std::string, std::pair<double, std::size_t>> by_variant;  // sum of |diff|, samples
  void add(const std::string& variant, const Image& expected, const Image& got) {
    auto& [sum, n] = by_variant[variant];
    const std::size_t samples = expected.data.size() / sample_size(expected.type);
    sum += mean_abs_difference(expected, got) * double(samples);
    n += samples;
  }
  void print(const std::string& what) const {
    for (const auto& [variant, entry] : by_variant)
      std::cout << fmt::format("[ accuracy ] {} {:<12} mean |difference| {:.6f} over {} samples\n", what, variant,
                               entry.second ? entry.first / double(entry.second) : 0.0, entry.second);
  }
};

// Runs `variant` with a poisoned output (so unwritten pixels show) and returns what it wrote. u16 outputs are
// poisoned with 0xA5A5 in every sample.
inline Image run_device(const std::string& variant, DeviceImage& d_in, const BilateralParams& params,
                        const TuningConfig& config = {}) {
  Context& ctx = test_context();
  if (d_in.type != SampleType::u16)
    return testing::run_poisoned(ctx, d_in,
                                 [&](DeviceImage& out) { bilateral(ctx, d_in, out, params, variant, config); });
  Image poisoned(d_in.width, d_in.height, d_in.channels, SampleType::u16);
  testing::poison(poisoned);
  DeviceImage out = DeviceImage::upload(ctx, poisoned);
  bilateral(ctx, d_in, out, params, variant, config);
  return out.download(ctx);
}

// Within 1 of the reference at every sample, and the mean difference small: a float kernel only lands
// on the other side of a rounding tie now and then. The mean is only meaningful over many samples: on a
// 1x1 RGBA image one tie already makes it 0.25.
constexpr double kMaxMeanDifference = 0.05;
constexpr std::size_t kMinSamplesForMean = 1000;

// docs/SPEC.md's formula with one exp per tap, written from the definitions: taps with dx^2 + dy^2 <= r^2 for
// the disk, and (|dR| + |dG| + |dB|)^2 as the squared colour distance for l1. The exact (unrounded) mean of
// every colour sample; alpha samples hold the input's alpha. u8 or u16 samples.
inline std::vector<double> brute_force_means(const Image& in, const BilateralParams& p) {
  const int w = in.width, h = in.height, c = in.channels, r = bilateral_radius(p);
  const int colours = c == 4 ? 3 : 1;
  auto sample = [&](int x, int y, int ch) -> double {
    const int xx = border_index(x, w, p.border.mode), yy = border_index(y, h, p.border.mode);
    return (xx < 0 || yy < 0) ? p.border.value : sample_at(in, (std::size_t(yy) * w + xx) * c + ch);
  };
  std::vector<double> means(in.data.size() / sample_size(in.type));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double sum[3] = {0, 0, 0}, wsum = 0;
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
          if (p.window == BilateralWindow::disk && std::hypot(dx, dy) > r) continue;
          double l1 = 0, l2 = 0;
          for (int ch = 0; ch < colours; ++ch) {
            const double diff = sample(x + dx, y + dy, ch) - sample(x, y, ch);
            l1 += std::fabs(diff);
            l2 += diff * diff;
          }
          const double distance2 = p.distance == BilateralDistance::l1 ? l1 * l1 : l2;
          const double weight = std::exp(-(dx * dx + dy * dy) / (2 * p.sigma_spatial * p.sigma_spatial) -
                                         distance2 / (2 * p.sigma_range * p.sigma_range));
          for (int ch = 0; ch < colours; ++ch) sum[ch] += weight * sample(x + dx, y + dy, ch);
          wsum += weight;
        }
      const std::size_t at = (std::size_t(y) * w + x) * c;
      for (int ch = 0; ch < colours; ++ch) means[at + ch] = sum[ch] / wsum;
      if (c == 4) means[at + 3] = sample_at(in, at + 3);
    }
  return means;
}

}  // namespace clf::bilateral_testing
