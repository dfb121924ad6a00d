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

inline double mean_abs_difference(const Image& a, const Image& b) {
  const auto x = a.samples<std::uint8_t>(), y = b.samples<std::uint8_t>();
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += std::abs(int(x[i]) - int(y[i]));
  return x.empty() ? 0 : sum / double(x.size());
}

// Mean |difference| per variant over everything a test ran, printed at its end.
struct DifferenceLog {
  std::map<std::string, std::pair<double, std::size_t>> by_variant;  // sum of |diff|, samples
  void add(const std::string& variant, const Image& expected, const Image& got) {
    auto& [sum, n] = by_variant[variant];
    sum += mean_abs_difference(expected, got) * double(expected.data.size());
    n += expected.data.size();
  }
  void print(const std::string& what) const {
    for (const auto& [variant, entry] : by_variant)
      std::cout << fmt::format("[ accuracy ] {} {:<12} mean |difference| {:.6f} over {} samples\n", what, variant,
                               entry.second ? entry.first / double(entry.second) : 0.0, entry.second);
  }
};

// Runs `variant` with a poisoned output (so unwritten pixels show) and returns what it wrote.
inline Image run_device(const std::string& variant, DeviceImage& d_in, const BilateralParams& params,
                        const TuningConfig& config = {}) {
  Context& ctx = test_context();
  return testing::run_poisoned(ctx, d_in,
                               [&](DeviceImage& out) { bilateral(ctx, d_in, out, params, variant, config); });
}

// Within 1 of the reference at every sample, and the mean difference small: a float kernel only lands
// on the other side of a rounding tie now and then. The mean is only meaningful over many samples: on a
// 1x1 RGBA image one tie already makes it 0.25.
constexpr double kMaxMeanDifference = 0.05;
constexpr std::size_t kMinSamplesForMean = 1000;

// docs/SPEC.md's formula with one exp per tap, written from the definitions: taps with dx^2 + dy^2 <= r^2 for
// the disk, and (|dR| + |dG| + |dB|)^2 as the squared colour distance for l1. The exact (unrounded) mean of
// every colour sample; alpha samples hold the input's alpha.
inline std::vector<double> brute_force_means(const Image& in, const BilateralParams& p) {
  const int w = in.width, h = in.height, c = in.channels, r = bilateral_radius(p);
  const int colours = c == 4 ? 3 : 1;
  const auto src = in.samples<std::uint8_t>();
  auto sample = [&](int x, int y, int ch) -> double {
    const int xx = border_index(x, w, p.border.mode), yy = border_index(y, h, p.border.mode);
    return (xx < 0 || yy < 0) ? p.border.value : src[(std::size_t(yy) * w + xx) * c + ch];
  };
  std::vector<double> means(src.size());
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
      if (c == 4) means[at + 3] = src[at + 3];
    }
  return means;
}

}  // namespace clf::bilateral_testing
