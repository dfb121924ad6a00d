// SPDX-License-Identifier: Apache-2.0
// Photograph-like test and benchmark inputs: smooth gradients, hard-edged shapes, fine texture and
// noise, so filters meet the structure of real images (not zeros, not only uniform noise).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "clfilters/export.hpp"
#include "clfilters/image.hpp"

namespace CLF_API clf {

Image synthetic_photo(int width, int height, int channels, std::uint64_t seed);
// A u8 image as u16 samples: each value v becomes 257 v plus noise of up to +-128 drawn by `seed` (clamped), so
// the low byte carries information and a 16-bit filter that drops it shows.
Image widen_to_u16(const Image& image, std::uint64_t seed);

// n floats drawn uniformly from [-1000, 1000) by `seed`: the guide samples' inputs.
std::vector<float> random_floats(std::size_t n, std::uint64_t seed);

// While one lives, every image synthetic_photo() draws on this thread is also copied into `images`,
// so the benchmark can save and hash the exact input a FilterInstance was set up with (so that
// bench/peers.py runs the peers on the same bytes) without every filter exposing its input. Captures nest.
class SyntheticPhotoCapture {
 public:
  SyntheticPhotoCapture();
  ~SyntheticPhotoCapture();
  SyntheticPhotoCapture(const SyntheticPhotoCapture&) = delete;
  SyntheticPhotoCapture& operator=(const SyntheticPhotoCapture&) = delete;

  std::vector<Image> images;

 private:
  SyntheticPhotoCapture* previous_;
};

}  // namespace clf
