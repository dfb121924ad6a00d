// SPDX-License-Identifier: Apache-2.0
// Host calls on the caller's memory (box_blur(devices, ImageView, MutableImageView, ...) and its kin): in one piece, in
// bands and over two sub-devices, against the CPU reference, with the output poisoned and the input left as it was;
// and the shapes they refuse.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

ImageView view_of(const Image& image) {
  return {image.data.data(), image.width, image.height, image.channels, image.type};
}
MutableImageView view_of(Image& image) {
  return {image.data.data(), image.width, image.height, image.channels, image.type};
}

// The test device whole, and split in two where it can be (the bands then go to both halves).
std::vector<std::vector<Context*>> device_lists() {
  static std::vector<std::unique_ptr<Context>> parts = [] {
    std::vector<std::unique_ptr<Context>> out;
    try {
      for (DeviceHandle& part : split_device(device_handle(testing::test_context().device()()), 2))
        out.push_back(std::make_unique<Context>(std::move(part)));
    } catch (const std::invalid_argument&) {
    }
    return out;
  }();
  std::vector<std::vector<Context*>> lists{{&testing::test_context()}};
  if (parts.size() == 2) lists.push_back({parts[0].get(), parts[1].get()});
  return lists;
}

TEST(HostViews, TheCallOnCallerMemoryGivesTheReferenceInOnePieceInBandsAndOnSeveralDevices) {
  for (const char* band_rows : {static_cast<const char*>(nullptr), "3"}) {
    const ScopedEnv bands("CLFILTERS_BAND_ROWS", band_rows);
    for (const auto& devices : device_lists()) {
      for (const int channels : {1, 4}) {
        const auto seed = testing::fresh_seed();
        SCOPED_TRACE(fmt::format("bands {}, {} device(s), {} channel(s), seed {}", band_rows ? band_rows : "none",
                                 devices.size(), channels, seed));
        const Image in = testing::random_image(37, 29, channels, SampleType::u8, seed);
        const Image kept = in;
        const auto check = [&](const Image& expected, const auto& call) {
          Image out = testing::random_image(in.width, in.height, channels, in.type, seed + 1);
          testing::poison(out);
          call(view_of(in), view_of(out));
          EXPECT_TRUE(testing::images_equal(expected, out));
          EXPECT_TRUE(testing::images_equal(kept, in)) << "the input was written";
        };
        const BoxBlurParams box{5, testing::kBorders[1]};
        check(box_blur_reference(in, box), [&](auto i, auto o) { box_blur(devices, i, o, box); });
        const EpsilonParams eps{.radius = 2, .threshold = 20, .border = testing::kBorders[2]};
        check(epsilon_reference(in, eps), [&](auto i, auto o) { epsilon(devices, i, o, eps); });
        // The bilateral's variants agree with its reference to within 1: against the one-device Image call of the
        // same variant, bit for bit.
        const BilateralParams bil{.sigma_spatial = 2, .sigma_range = 30, .radius = 2, .border = testing::kBorders[0]};
        const std::string variant = bilateral_choose(*devices[0], bil, "auto", in.width, in.height, channels).variant;
        check(bilateral(*devices[0], in, bil, variant),
              [&](auto i, auto o) { bilateral(devices, i, o, bil, variant); });
      }
    }
  }
}

TEST(HostViews, SixteenBitSamplesInBands) {
  const ScopedEnv bands("CLFILTERS_BAND_ROWS", "4");
  const Image in = testing::random_image(23, 31, 4, SampleType::u16, testing::fresh_seed());
  Image out = testing::random_image(23, 31, 4, SampleType::u16, testing::fresh_seed());
  const BoxBlurParams box{7, testing::kBorders[3]};
  box_blur({&testing::test_context()}, view_of(in), view_of(out), box);
  EXPECT_TRUE(testing::images_equal(box_blur_reference(in, box), out));
}

TEST(HostViews, RefusesOtherChannelsAndAnOutputOfAnotherShape) {
  const std::vector<Context*> one{&testing::test_context()};
  const BoxBlurParams box{3, {}};
  const Image rgb = testing::random_image(8, 8, 3, SampleType::u8, testing::fresh_seed());
  Image rgb_out = rgb;
  try {
    box_blur(one, view_of(rgb), view_of(rgb_out), box);
    FAIL() << "RGB on caller memory was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "box blur on the caller's memory takes 1 or 4 channels, got 3");
  }
  const Image grey = testing::random_image(8, 8, 1, SampleType::u8, testing::fresh_seed());
  Image narrow = testing::random_image(7, 8, 1, SampleType::u8, testing::fresh_seed());
  EXPECT_THROW(box_blur(one, view_of(grey), view_of(narrow), box), std::invalid_argument);
  Image wide_samples = testing::random_image(8, 8, 1, SampleType::u16, testing::fresh_seed());
  EXPECT_THROW(box_blur(one, view_of(grey), view_of(wide_samples), box), std::invalid_argument);
  EXPECT_THROW(box_blur(one, ImageView{nullptr, 8, 8, 1, SampleType::u8}, view_of(narrow), box), std::invalid_argument);
}

}  // namespace
}  // namespace clf
