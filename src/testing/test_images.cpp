#include "testing/test_images.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace clf::testing {

std::uint64_t fresh_seed() {
  if (const char* pinned = std::getenv("CLF_TEST_SEED")) return std::strtoull(pinned, nullptr, 10);
  static std::uint64_t counter = 0;
  const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return now ^ (0x9E3779B97F4A7C15ull * ++counter);
}

Image random_image(int width, int height, int channels, SampleType type, std::uint64_t seed) {
  Image img(width, height, channels, type);
  std::mt19937_64 rng(seed);
  switch (type) {
    case SampleType::u8:
      for (auto& v : img.samples<std::uint8_t>()) v = static_cast<std::uint8_t>(rng() & 0xFF);
      break;
    case SampleType::u16:
      for (auto& v : img.samples<std::uint16_t>()) v = static_cast<std::uint16_t>(rng() & 0xFFFF);
      break;
    case SampleType::i16:
      for (auto& v : img.samples<std::int16_t>()) v = static_cast<std::int16_t>(rng() & 0xFFFF);
      break;
    case SampleType::f32: {
      std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
      for (auto& v : img.samples<float>()) v = dist(rng);
      break;
    }
  }
  // A tiny image could come out all zeros; make sure at least one sample is not.
  bool all_zero = true;
  for (auto b : img.data) all_zero = all_zero && b == 0;
  if (all_zero && !img.data.empty()) img.data[0] = 1;
  return img;
}

void poison(Image& image, std::uint8_t value) { std::memset(image.data.data(), value, image.data.size()); }

namespace {
double sample_at(const Image& img, std::size_t i) {
  switch (img.type) {
    case SampleType::u8: return img.samples<std::uint8_t>()[i];
    case SampleType::u16: return img.samples<std::uint16_t>()[i];
    case SampleType::i16: return img.samples<std::int16_t>()[i];
    case SampleType::f32: return img.samples<float>()[i];
  }
  return 0;
}
}  // namespace

::testing::AssertionResult images_equal(const Image& expected, const Image& actual, double tolerance) {
  if (expected.width != actual.width || expected.height != actual.height ||
      expected.channels != actual.channels || expected.type != actual.type) {
    return ::testing::AssertionFailure() << fmt::format(
               "shape differs: expected {}x{}x{} {}, got {}x{}x{} {}", expected.width, expected.height,
               expected.channels, sample_type_name(expected.type), actual.width, actual.height,
               actual.channels, sample_type_name(actual.type));
  }
  const std::size_t n = expected.data.size() / sample_size(expected.type);
  std::size_t differing = 0, first = 0;
  double largest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = sample_at(expected, i), b = sample_at(actual, i);
    const double diff = std::isnan(a) != std::isnan(b) ? INFINITY : std::fabs(a - b);
    if (diff > tolerance) {
      if (differing++ == 0) first = i;
      if (diff > largest) largest = diff;
    }
  }
  if (differing == 0) return ::testing::AssertionSuccess();
  const std::size_t c = static_cast<std::size_t>(expected.channels);
  const std::size_t px = first / c;
  return ::testing::AssertionFailure() << fmt::format(
             "{} of {} samples differ (tolerance {}); largest difference {}; first at x={} y={} channel={}: "
             "expected {}, got {}",
             differing, n, tolerance, largest, px % expected.width, px / expected.width, first % c,
             sample_at(expected, first), sample_at(actual, first));
}

}  // namespace clf::testing
