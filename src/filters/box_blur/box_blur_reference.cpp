// CPU reference for the box blur: exact integer sums, separable (a window sum is the sum of its
// rows' sums), with the border applied to each coordinate on its own as SPEC.md defines.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "clfilters/box_blur.hpp"
#include "common/parallel.hpp"

namespace clf {

Image box_blur_reference(const Image& input, const BoxBlurParams& params, int threads) {
  if (input.type != SampleType::u8 || (input.channels != 1 && input.channels != 4))
    throw std::invalid_argument("box_blur_reference takes u8 images with 1 or 4 channels");
  const int w = input.width, h = input.height, c = input.channels, d = params.diameter;
  if (d < 1) throw std::invalid_argument("diameter must be at least 1");
  const int r = d / 2;
  const BorderMode mode = params.border.mode;
  const std::uint64_t cval = static_cast<std::uint64_t>(params.border.value);
  const auto px = input.samples<std::uint8_t>();

  // Row sums of every real row: rowsum[(y*w + x)*c + ch] = sum over the d columns of x's window.
  std::vector<std::uint64_t> rowsum(static_cast<std::size_t>(w) * h * c);
  parallel_rows(h, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < w; ++x)
        for (int ch = 0; ch < c; ++ch) {
          std::uint64_t s = 0;
          for (int k = 0; k < d; ++k) {
            const int xx = border_index(x - r + k, w, mode);
            s += xx < 0 ? cval : px[(static_cast<std::size_t>(y) * w + xx) * c + ch];
          }
          rowsum[(static_cast<std::size_t>(y) * w + x) * c + ch] = s;
        }
  });

  Image out(w, h, c);
  auto o = out.samples<std::uint8_t>();
  const std::uint64_t n = static_cast<std::uint64_t>(d) * d;
  parallel_rows(h, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < w; ++x)
        for (int ch = 0; ch < c; ++ch) {
          std::uint64_t s = 0;
          for (int k = 0; k < d; ++k) {
            const int yy = border_index(y - r + k, h, mode);
            s += yy < 0 ? cval * d : rowsum[(static_cast<std::size_t>(yy) * w + x) * c + ch];
          }
          const std::uint64_t v = (s + n / 2) / n;  // SPEC: round half up, then clamp
          o[(static_cast<std::size_t>(y) * w + x) * c + ch] = static_cast<std::uint8_t>(v > 255 ? 255 : v);
        }
  });
  return out;
}

}  // namespace clf
