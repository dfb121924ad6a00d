// SPDX-License-Identifier: Apache-2.0
// cpu_bands against the CPU reference beyond the every-variant tests: odd and prime sizes, both channel counts,
// every border, diameters across its three roundings (FP32 to d = 128, the integer multiply to 2047, a division
// beyond) and windows wider than the image, every band height, and saturated images at each rounding's edges.
// Every call of one channel count shares one program build.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "clfilters/box_blur.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::test_context;

// `in` blurred by cpu_bands into a poisoned output (an unwritten pixel shows) equals the reference.
void expect_matches_reference(Context& ctx, const Image& in, const BoxBlurParams& params,
                              const TuningConfig& config = {}) {
  ASSERT_FALSE(box_blur_unsupported(ctx.info(), "cpu_bands", params, in.width, in.height, in.channels, config));
  const DeviceImage d_in = DeviceImage::upload(ctx, in);
  const Image got = testing::run_poisoned(
      ctx, d_in, [&](DeviceImage& out) { box_blur(ctx, d_in, out, params, "cpu_bands", config); });
  ASSERT_TRUE(testing::images_equal(box_blur_reference(in, params), got));
}

TEST(BoxBlurCpuBands, OddSizesEveryBorderAndDiameterMatchTheReference) {
  Context& ctx = test_context();
  for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {31, 7}, {5, 40}, {97, 61}})
    for (int c : {1, 4}) {
      const auto seed = testing::fresh_seed();
      const Image in = testing::random_image(w, h, c, SampleType::u8, seed);
      // 130: the integer rounding; 2100: the division, and wider than every image here.
      for (int d : {1, 2, 3, 8, 63, 64, 130, std::max(w, h) + 2, 2100})
        for (const Border& border : testing::kBorders) {
          SCOPED_TRACE(fmt::format("{}x{}x{} d={} border={} seed={}", w, h, c, d, to_string(border), seed));
          expect_matches_reference(ctx, in, {d, border});
        }
    }
}

// Band heights that do and do not divide the height; the last band is short.
TEST(BoxBlurCpuBands, EveryBandHeightMatchesTheReference) {
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(83, 61, c, SampleType::u8, seed);
    for (int rows : {8, 16, 32, 64, 128})
      for (int d : {4, 31}) {
        const Border border = testing::kBorders[(rows / 8 + d) % 4];
        SCOPED_TRACE(fmt::format("channels={} rows={} d={} border={} seed={}", c, rows, d, to_string(border), seed));
        expect_matches_reference(ctx, in, {d, border}, {{"rows", rows}});
      }
  }
}

// The largest window sums, at the edges of each rounding: 255 everywhere stays 255, and a constant border of 0
// gives the smaller means near the edges.
TEST(BoxBlurCpuBands, SaturatedImagesMatchTheReferenceAtEachRoundingsEdge) {
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    Image in(19, 6, c);
    for (auto& v : in.samples<std::uint8_t>()) v = 255;
    for (int d : {127, 128, 129, 2047, 2048})
      for (const Border& border : {Border{BorderMode::replicate, 0}, Border{BorderMode::constant, 0}}) {
        SCOPED_TRACE(fmt::format("channels={} d={} border={}", c, d, to_string(border)));
        expect_matches_reference(ctx, in, {d, border});
      }
  }
}

}  // namespace
}  // namespace clf
