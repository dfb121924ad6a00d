// SPDX-License-Identifier: Apache-2.0
// The filter layout's conversions against a per-sample statement of what they do (docs/SPEC.md: RGB and grey+alpha
// travel as RGBA with the missing channels 255; back, the first channels are kept).
#include "clfilters/image.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::fresh_seed;
using testing::random_image;

TEST(FilterLayout, ToRgbaAndBackAtEverySize) {
  for (const auto& [w, h] : {std::pair{1, 1}, {2, 1}, {1, 3}, {5, 4}, {33, 7}, {64, 2}}) {
    for (const int c : {1, 2, 3, 4}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(fmt::format("{}x{}x{} seed {}", w, h, c, seed));
      const Image image = random_image(w, h, c, SampleType::u8, seed);
      const Image staged = to_filter_layout(image);
      const int staged_channels = c == 1 ? 1 : 4;
      ASSERT_EQ(staged.channels, staged_channels);
      ASSERT_EQ(staged.width, w);
      ASSERT_EQ(staged.height, h);
      for (std::size_t i = 0; i < image.pixel_count(); ++i)
        for (int ch = 0; ch < staged_channels; ++ch)
          ASSERT_EQ(staged.data[i * staged_channels + ch], ch < c ? image.data[i * c + ch] : 255)
              << "pixel " << i << " channel " << ch;
      EXPECT_TRUE(testing::images_equal(image, from_filter_layout(staged, c)));
    }
  }
}

TEST(FilterLayout, BackKeepsTheFirstChannelsOfAnyType) {
  for (const SampleType t : {SampleType::u8, SampleType::u16, SampleType::f32}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(fmt::format("{} seed {}", sample_type_name(t), seed));
    const Image image = random_image(9, 5, 4, t, seed);
    for (const int c : {1, 2, 3}) {
      const Image back = from_filter_layout(image, c);
      ASSERT_EQ(back.channels, c);
      const std::size_t bytes = sample_size(t);
      for (std::size_t i = 0; i < image.pixel_count(); ++i)
        ASSERT_EQ(0, std::memcmp(back.data.data() + i * c * bytes, image.data.data() + i * 4 * bytes, c * bytes))
            << "pixel " << i;
    }
  }
}

}  // namespace
}  // namespace clf
