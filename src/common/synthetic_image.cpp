// SPDX-License-Identifier: Apache-2.0
#include "common/synthetic_image.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "common/parallel.hpp"

namespace clf {
namespace {
thread_local SyntheticPhotoCapture* active_capture = nullptr;
}  // namespace

SyntheticPhotoCapture::SyntheticPhotoCapture() : previous_(active_capture) {
  active_capture = this;
}
SyntheticPhotoCapture::~SyntheticPhotoCapture() {
  active_capture = previous_;
}

Image synthetic_photo(int width, int height, int channels, std::uint64_t seed) {
  Image img(width, height, channels);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  struct Shape {
    double cx, cy, rx, ry;
    bool ellipse;
    double value[4];
  };
  std::vector<Shape> shapes(12);
  for (auto& s : shapes) {
    s = {unit(rng) * width,
         unit(rng) * height,
         (0.03 + 0.2 * unit(rng)) * width,
         (0.03 + 0.2 * unit(rng)) * height,
         unit(rng) < 0.5,
         {}};
    for (double& v : s.value) v = 255 * unit(rng);
  }
  double phase[4], tilt[4];
  for (int c = 0; c < 4; ++c) phase[c] = 6.28 * unit(rng), tilt[c] = unit(rng);
  const std::uint64_t noise_seed = rng();
  auto px = img.samples<std::uint8_t>();
  parallel_rows(height, 0, [&](int y0, int y1) {
    std::mt19937_64 noise(noise_seed + static_cast<std::uint64_t>(y0));
    std::normal_distribution<double> gauss(0.0, 6.0);
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < width; ++x) {
        const double u = double(x) / std::max(width - 1, 1), v = double(y) / std::max(height - 1, 1);
        const Shape* top = nullptr;
        for (const auto& s : shapes) {
          const double dx = (x - s.cx) / s.rx, dy = (y - s.cy) / s.ry;
          if (s.ellipse ? dx * dx + dy * dy <= 1 : std::abs(dx) <= 1 && std::abs(dy) <= 1) top = &s;
        }
        for (int c = 0; c < channels; ++c) {
          double value =
              top ? top->value[c % 4] : 40 + 170 * (tilt[c % 4] * u + (1 - tilt[c % 4]) * v);  // gradient background
          value += 18 * std::sin(0.35 * x + 0.21 * y + phase[c % 4]);                          // fine texture
          value += gauss(noise);                                                               // sensor noise
          px[(static_cast<std::size_t>(y) * width + x) * channels + c] =
              static_cast<std::uint8_t>(std::clamp(std::lround(value), 0L, 255L));
        }
      }
  });
  if (active_capture) active_capture->images.push_back(img);
  return img;
}

Image widen_to_u16(const Image& image, std::uint64_t seed) {
  Image out = Image::uninitialized(image.width, image.height, image.channels, SampleType::u16);
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::uniform_int_distribution<int> noise(-128, 128);
  auto* dst = reinterpret_cast<std::uint16_t*>(out.data.data());
  for (std::size_t i = 0; i < image.data.size(); ++i)
    dst[i] = std::uint16_t(std::clamp(257 * int(image.data[i]) + noise(rng), 0, 65535));
  return out;
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace clf
