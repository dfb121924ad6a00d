// SPDX-License-Identifier: Apache-2.0
// The epsilon filter written straight from docs/SPEC.md, which the tests hold the CPU reference to.
#pragma once

#include <cstdlib>

#include "clfilters/border.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/image.hpp"

namespace clf::testing {

// Every tap through border_index, the compare and the rounding as written; samples of type T (std::uint8_t for u8
// images, std::uint16_t for u16 ones). Alpha is copied.
template <class T>
Image epsilon_brute_force(const Image& in, const EpsilonParams& p) {
  Image out(in.width, in.height, in.channels, in.type);
  const auto src = in.samples<T>();
  auto dst = out.samples<T>();
  const int c = in.channels, r = p.radius;
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x)
      for (int ch = 0; ch < c; ++ch) {
        const std::size_t at = (std::size_t(y) * in.width + x) * c + ch;
        if (c == 4 && ch == 3) {
          dst[at] = src[at];
          continue;
        }
        const long long centre = src[at];
        long long sum = 0, n = 0;
        for (int dy = -r; dy <= r; ++dy)
          for (int dx = -r; dx <= r; ++dx) {
            const int xx = border_index(x + dx, in.width, p.border.mode);
            const int yy = border_index(y + dy, in.height, p.border.mode);
            const long long v = (xx < 0 || yy < 0) ? p.border.value : src[(std::size_t(yy) * in.width + xx) * c + ch];
            if (std::llabs(v - centre) <= p.threshold) {
              sum += v;
              ++n;
            }
          }
        dst[at] = T((sum + n / 2) / n);
      }
  return out;
}

}  // namespace clf::testing
