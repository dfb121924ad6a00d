// SPDX-License-Identifier: Apache-2.0
#include "common/image_compare.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

namespace clf {

double sample_as_double(const Image& img, std::size_t i) {
  switch (img.type) {
    case SampleType::u8: return img.samples<std::uint8_t>()[i];
    case SampleType::u16: return img.samples<std::uint16_t>()[i];
    case SampleType::i16: return img.samples<std::int16_t>()[i];
    case SampleType::f32: return img.samples<float>()[i];
  }
  return 0;
}

std::optional<std::string> compare_images(const Image& expected, const Image& actual, double tolerance) {
  if (expected.width != actual.width || expected.height != actual.height || expected.channels != actual.channels ||
      expected.type != actual.type) {
    return fmt::format("shape differs: expected {}x{}x{} {}, got {}x{}x{} {}", expected.width, expected.height,
                       expected.channels, sample_type_name(expected.type), actual.width, actual.height, actual.channels,
                       sample_type_name(actual.type));
  }
  const std::size_t n = expected.data.size() / sample_size(expected.type);
  std::size_t differing = 0, first = 0;
  double largest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = sample_as_double(expected, i), b = sample_as_double(actual, i);
    const double diff = std::isnan(a) != std::isnan(b) ? INFINITY : std::fabs(a - b);
    if (diff > tolerance) {
      if (differing++ == 0) first = i;
      if (diff > largest) largest = diff;
    }
  }
  if (differing == 0) return std::nullopt;
  const std::size_t c = static_cast<std::size_t>(expected.channels);
  const std::size_t px = first / c;
  return fmt::format(
      "{} of {} samples differ (tolerance {}); largest difference {}; first at x={} y={} channel={}: expected {}, "
      "got {}",
      differing, n, tolerance, largest, px % expected.width, px / expected.width, first % c,
      sample_as_double(expected, first), sample_as_double(actual, first));
}

}  // namespace clf
