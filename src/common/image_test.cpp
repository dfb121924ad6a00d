// SPDX-License-Identifier: Apache-2.0
// The filter layout's conversions against a per-sample statement of what they do (docs/SPEC.md: RGB and grey+alpha
// travel as RGBA with the missing channels 255; back, the first channels are kept).
#include "clfilters/image.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

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

// Large blocks are kept when freed and handed to the next image of the same size; what an image promises about its
// bytes must hold for a reused block too.
TEST(HostMemory, AReusedBlockKeepsEachConstructorsPromise) {
  release_cached_host_memory();
  const int w = 2048, h = 2048;  // 16 MiB as RGBA: the first size kept
  const std::uint8_t* first = nullptr;
  {
    Image dirty = Image::uninitialized(w, h, 4);
    std::memset(dirty.data.data(), 0xAB, dirty.byte_size());
    first = dirty.data.data();
  }
  const Image zeroed(w, h, 4);
  EXPECT_EQ(zeroed.data.data(), first) << "the freed block was not reused";
  const auto nonzero = std::count_if(zeroed.data.begin(), zeroed.data.end(), [](std::uint8_t b) { return b != 0; });
  EXPECT_EQ(nonzero, 0) << "Image(w, h, c) must come zero-filled";
  {
    // Another size never gets the block: its size must come back with it when freed.
    Image other = Image::uninitialized(w, h + 1, 4);
    EXPECT_NE(other.data.data(), first);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(other.data.data()) % HostAlignedAllocator<std::uint8_t>::alignment, 0u);
    std::memset(other.data.data(), 1, other.byte_size());
  }
  release_cached_host_memory();
}

}  // namespace
}  // namespace clf
