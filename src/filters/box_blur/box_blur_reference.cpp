// SPDX-License-Identifier: Apache-2.0
// CPU reference for the box blur: exact integer sums with the border applied to each coordinate on
// its own, as docs/SPEC.md defines. A window sum is the sum of its rows' sums. Row sums come from prefix
// sums over the border-extended row, column sums from a running sum down each column, so any
// diameter costs O(1) per pixel. (The test checks this against a brute-force d*d sum.) u8 and u16 samples share
// the arithmetic; only the clamp differs.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "clfilters/box_blur.hpp"
#include "common/parallel.hpp"

namespace clf {

namespace {

template <class T>
Image reference(const Image& input, const BoxBlurParams& params, int threads) {
  const int w = input.width, h = input.height, c = input.channels, d = params.diameter;
  if (d < 1) throw std::invalid_argument("diameter must be at least 1");
  const int r = d / 2;
  const BorderMode mode = params.border.mode;
  const std::uint64_t cval = static_cast<std::uint64_t>(params.border.value);
  const auto px = input.samples<T>();
  const std::uint64_t max = std::numeric_limits<T>::max();
  const std::size_t lanes = static_cast<std::size_t>(w) * c;  // samples per row

  // rowsum[y * lanes + x * c + ch]: sum over the d columns of x's window in row y.
  std::vector<std::uint64_t> rowsum(lanes * h);
  parallel_rows(h, threads, [&](int y0, int y1) {
    std::vector<std::uint64_t> prefix(static_cast<std::size_t>(w) + d);
    for (int y = y0; y < y1; ++y)
      for (int ch = 0; ch < c; ++ch) {
        // Extended column k is image column k - r; window of x is extended columns x .. x+d-1.
        for (int k = 0; k < w + d - 1; ++k) {
          const int xx = border_index(k - r, w, mode);
          prefix[k + 1] = prefix[k] + (xx < 0 ? cval : px[y * lanes + static_cast<std::size_t>(xx) * c + ch]);
        }
        for (int x = 0; x < w; ++x)
          rowsum[y * lanes + static_cast<std::size_t>(x) * c + ch] = prefix[x + d] - prefix[x];
      }
  });

  Image out(w, h, c, input.type);
  auto o = out.samples<T>();
  const std::uint64_t n = static_cast<std::uint64_t>(d) * d;
  // Threads take disjoint ranges of (column, channel) lanes and walk down the rows together.
  parallel_rows(static_cast<int>(lanes), threads, [&](int l0, int l1) {
    auto row_value = [&](int y, int lane) {
      const int yy = border_index(y, h, mode);
      return yy < 0 ? cval * d : rowsum[yy * lanes + lane];
    };
    std::vector<std::uint64_t> acc(static_cast<std::size_t>(l1 - l0), 0);
    for (int lane = l0; lane < l1; ++lane)
      for (int k = 0; k < d; ++k) acc[lane - l0] += row_value(k - r, lane);
    for (int y = 0; y < h; ++y)
      for (int lane = l0; lane < l1; ++lane) {
        std::uint64_t& s = acc[lane - l0];
        if (y > 0) s = s + row_value(y - r + d - 1, lane) - row_value(y - r - 1, lane);
        const std::uint64_t v = (s + n / 2) / n;  // SPEC: round half up, then clamp
        o[y * lanes + lane] = static_cast<T>(v > max ? max : v);
      }
  });
  return out;
}

}  // namespace

Image box_blur_reference(const Image& input, const BoxBlurParams& params, int threads) {
  if ((input.type != SampleType::u8 && input.type != SampleType::u16) || (input.channels != 1 && input.channels != 4))
    throw std::invalid_argument("box_blur_reference takes u8 or u16 images with 1 or 4 channels");
  return input.type == SampleType::u8 ? reference<std::uint8_t>(input, params, threads)
                                      : reference<std::uint16_t>(input, params, threads);
}

}  // namespace clf
