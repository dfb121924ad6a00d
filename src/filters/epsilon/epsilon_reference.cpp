// SPDX-License-Identifier: Apache-2.0
// CPU reference for the epsilon filter, straight from docs/SPEC.md: for each pixel and colour channel, the
// window pixels p with |p - c| <= T are summed and counted in integers, and the output is
// (s + n/2) / n. Rows of the border-extended image are built once per output row, so the inner loop
// has no border logic. (The test checks this against a brute-force version with border_index per tap.)
// u8 and u16 samples share the arithmetic: a 65x65 window of 16-bit samples sums to less than 2^32.

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "clfilters/epsilon.hpp"
#include "common/parallel.hpp"

namespace clf {

namespace {

template <class Sample>
Image epsilon_reference_of(const Image& input, const EpsilonParams& params, int threads) {
  const int w = input.width, h = input.height, c = input.channels, r = params.radius, T = params.threshold;
  const int colours = c == 4 ? 3 : 1;  // RGBA: alpha is copied, not filtered
  const BorderMode mode = params.border.mode;
  const auto cval = static_cast<Sample>(params.border.value);
  const auto src = input.samples<Sample>();
  const int ext_w = w + 2 * r;  // extended row: image columns -r .. w-1+r

  Image out(w, h, c, input.type);
  auto dst = out.samples<Sample>();
  parallel_rows(h, threads, [&](int y0, int y1) {
    // The 2r+1 border-extended rows of one output row, channel-interleaved like the image.
    std::vector<Sample> window_rows(static_cast<std::size_t>(2 * r + 1) * ext_w * c);
    for (int y = y0; y < y1; ++y) {
      for (int j = 0; j <= 2 * r; ++j) {
        const int yy = border_index(y - r + j, h, mode);
        for (int k = 0; k < ext_w; ++k) {
          const int xx = border_index(k - r, w, mode);
          for (int ch = 0; ch < c; ++ch)
            window_rows[(static_cast<std::size_t>(j) * ext_w + k) * c + ch] =
                (xx < 0 || yy < 0) ? cval : src[(static_cast<std::size_t>(yy) * w + xx) * c + ch];
        }
      }
      for (int x = 0; x < w; ++x) {
        const std::size_t at = (static_cast<std::size_t>(y) * w + x) * c;
        for (int ch = 0; ch < colours; ++ch) {
          const int centre = src[at + ch];
          std::uint32_t sum = 0, count = 0;
          for (int j = 0; j <= 2 * r; ++j) {
            const Sample* row = window_rows.data() + (static_cast<std::size_t>(j) * ext_w + x) * c + ch;
            for (int i = 0; i <= 2 * r; ++i) {
              const int p = row[static_cast<std::size_t>(i) * c];
              // |p - centre| <= T, written without a branch (random data defeats branch prediction).
              const std::uint32_t in = std::abs(p - centre) <= T ? 1u : 0u;
              sum += in * static_cast<std::uint32_t>(p);
              count += in;
            }
          }
          // The centre always qualifies, so count >= 1; the mean of samples needs no clamp.
          dst[at + ch] = static_cast<Sample>((sum + count / 2) / count);
        }
        if (c == 4) dst[at + 3] = src[at + 3];
      }
    }
  });
  return out;
}

}  // namespace

Image epsilon_reference(const Image& input, const EpsilonParams& params, int threads) {
  if ((input.type != SampleType::u8 && input.type != SampleType::u16) || (input.channels != 1 && input.channels != 4))
    throw std::invalid_argument("epsilon_reference takes u8 or u16 images with 1 or 4 channels");
  epsilon_check_params(params, input.type);
  return input.type == SampleType::u16 ? epsilon_reference_of<std::uint16_t>(input, params, threads)
                                       : epsilon_reference_of<std::uint8_t>(input, params, threads);
}

}  // namespace clf
