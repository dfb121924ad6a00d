// SPDX-License-Identifier: Apache-2.0
// CPU reference for Sobel, straight from docs/SPEC.md: the grey conversion, the border applied to each
// coordinate on its own, gx and gy in integers, and the exact rounded magnitude. The image is first
// extended by one pixel on each side with the border, then each pixel takes the separable form.
// (The test checks this against a brute-force 3x3 correlation.)
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "clfilters/sobel.hpp"
#include "common/parallel.hpp"

namespace clf {

int sobel_rounded_sqrt(int s) {
  if (s < 0 || s >= (1 << 24)) throw std::invalid_argument(fmt::format("sobel_rounded_sqrt: {} out of range", s));
  // The rounded root q satisfies q^2 - q < s <= q^2 + q (q > 0); start from the float root and step.
  auto q = static_cast<std::int64_t>(std::sqrt(static_cast<double>(s)));
  while (q * q + q < s) ++q;
  while (q > 0 && q * q - q >= s) --q;
  return static_cast<int>(q);
}

std::uint8_t sobel_magnitude(int gx, int gy) {
  // Past 255^2 + 255 the rounded root is at least 256 and clamps to 255.
  const int s = std::min(gx * gx + gy * gy, 65281);
  return static_cast<std::uint8_t>(std::min(sobel_rounded_sqrt(s), 255));
}

Image sobel_grey(const Image& input) {
  if (input.type != SampleType::u8 || input.channels < 1 || input.channels > 4)
    throw std::invalid_argument(fmt::format("Sobel takes 8-bit images with 1 to 4 channels, got {} channel(s) of {}",
                                            input.channels, sample_type_name(input.type)));
  if (input.channels == 1) return input;
  Image grey(input.width, input.height, 1);
  const auto src = input.samples<std::uint8_t>();
  auto dst = grey.samples<std::uint8_t>();
  const std::size_t c = static_cast<std::size_t>(input.channels);
  for (std::size_t i = 0; i < grey.pixel_count(); ++i) {
    const std::uint8_t* p = &src[i * c];
    dst[i] = c == 2 ? p[0] : static_cast<std::uint8_t>((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8);
  }
  return grey;
}

Image sobel_reference(const Image& input, const SobelParams& params, int threads) {
  const Image grey = sobel_grey(input);
  const int w = grey.width, h = grey.height;
  const BorderMode mode = params.border.mode;
  const int cval = params.border.value;
  const auto px = grey.samples<std::uint8_t>();

  // ext[(y + 1) * (w + 2) + (x + 1)] is pixel (x, y) after the border, for x in -1..w and y in -1..h.
  const std::size_t ew = static_cast<std::size_t>(w) + 2;
  std::vector<int> ext(ew * (static_cast<std::size_t>(h) + 2));
  for (int y = -1; y <= h; ++y)
    for (int x = -1; x <= w; ++x) {
      const int xx = border_index(x, w, mode), yy = border_index(y, h, mode);
      ext[(y + 1) * ew + (x + 1)] = (xx < 0 || yy < 0) ? cval : px[static_cast<std::size_t>(yy) * w + xx];
    }

  const bool gradients = params.output == SobelOutput::gradients;
  Image out(w, h, gradients ? 2 : 1, gradients ? SampleType::i16 : SampleType::u8);
  parallel_rows(h, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const int* top = &ext[static_cast<std::size_t>(y) * ew];
      const int* mid = top + ew;
      const int* bottom = mid + ew;
      for (int x = 0; x < w; ++x) {
        // Columns x-1, x, x+1 are ext columns x, x+1, x+2.
        const int gx = (top[x + 2] + 2 * mid[x + 2] + bottom[x + 2]) - (top[x] + 2 * mid[x] + bottom[x]);
        const int gy = (bottom[x] - top[x]) + 2 * (bottom[x + 1] - top[x + 1]) + (bottom[x + 2] - top[x + 2]);
        const std::size_t i = static_cast<std::size_t>(y) * w + x;
        if (gradients) {
          auto g = out.samples<std::int16_t>();
          g[2 * i] = static_cast<std::int16_t>(gx);
          g[2 * i + 1] = static_cast<std::int16_t>(gy);
        } else if (params.output == SobelOutput::l1) {
          out.samples<std::uint8_t>()[i] = static_cast<std::uint8_t>(std::min(255, std::abs(gx) + std::abs(gy)));
        } else {
          out.samples<std::uint8_t>()[i] = sobel_magnitude(gx, gy);
        }
      }
    }
  });
  return out;
}

}  // namespace clf
