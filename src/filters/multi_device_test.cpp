// SPDX-License-Identifier: Apache-2.0
// Host calls over several devices: the test device split into two sub-devices (PoCL splits its CPU), bands and
// batches against the CPU references (the bilateral against its one-device call of the same variant), the shared
// queue, and an injected failure that ends the call with its error.
#include "filters/multi_device.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/sobel.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

// Two Contexts over halves of the test device, made once for the process (each builds its own programs); empty
// where the device cannot be split.
const std::vector<Context*>& sub_devices() {
  static const auto contexts = [] {
    std::vector<std::unique_ptr<Context>> out;
    try {
      for (DeviceHandle& part : split_device(device_handle(testing::test_context().device()()), 2))
        out.push_back(std::make_unique<Context>(std::move(part)));
    } catch (const std::invalid_argument&) {
    }
    return out;
  }();
  static const auto pointers = [] {
    std::vector<Context*> out;
    for (const auto& c : contexts) out.push_back(c.get());
    return out;
  }();
  return pointers;
}

#define REQUIRE_SUB_DEVICES() \
  if (sub_devices().size() != 2) GTEST_SKIP() << "the test device does not split into two parts"

// Bands of 5 rows: a 47-row image makes 10 bands, a few a device.
constexpr const char* kBandRows = "5";

// The reference of a filter that takes 1 or 4 channels, for an image of any: through the filter layout, as the host
// calls convert it (alpha filtered).
Image through_layout(const Image& input, const std::function<Image(const Image&)>& reference) {
  Image converted;
  const Image out = reference(in_filter_layout(input, converted));
  return out.channels == input.channels ? out : from_filter_layout(out, input.channels);
}

TEST(MultiDevice, ShareOutGivesEveryDeviceItemsAndEachItemOnce) {
  REQUIRE_SUB_DEVICES();
  // Each device's first item waits until the other device has one: a queue that let one device take every item
  // would time out here, whatever the machine's speed.
  std::mutex mutex;
  std::condition_variable changed;
  std::set<std::size_t> devices_started;
  std::vector<int> runs(20, 0);
  share_out(sub_devices(), runs.size(), 1, [&](Context&, std::size_t d, std::size_t item) {
    std::unique_lock lock(mutex);
    ++runs[item];
    devices_started.insert(d);
    changed.notify_all();
    EXPECT_TRUE(changed.wait_for(lock, std::chrono::seconds(20), [&] { return devices_started.size() == 2; }));
  });
  for (int r : runs) EXPECT_EQ(r, 1);
}

TEST(MultiDevice, ShareOutStopsAtTheFirstErrorAndRethrowsIt) {
  REQUIRE_SUB_DEVICES();
  // The items after the failing one wait for its throw and then take a millisecond each: the lanes stop long before
  // the thousandth.
  std::atomic<int> ran = 0;
  std::atomic<bool> thrown = false;
  try {
    share_out(sub_devices(), 1000, 2, [&](Context&, std::size_t, std::size_t item) {
      ++ran;
      if (item == 3) {
        thrown = true;
        throw std::runtime_error("item 3");
      }
      if (item > 3) {
        while (!thrown) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "item 3");
  }
  EXPECT_LT(ran.load(), 1000);
}

// Every band written, each from its own rows and halo: the output poisoned, bands of 5 rows over two devices; 64
// RGBA pixels a row, so the input is used in place.
TEST(MultiDevice, BandsWriteEveryRowOfTheOutput) {
  REQUIRE_SUB_DEVICES();
  const auto seed = testing::fresh_seed();
  const BoxBlurParams params{7, testing::kBorders[seed % 4]};
  SCOPED_TRACE(fmt::format("seed={} border={}", seed, to_string(params.border)));
  const Image in = testing::random_image(64, 47, 4, SampleType::u8, seed);
  Image out = Image::uninitialized(64, 47, 4);
  testing::poison(out);
  const ScopedEnv rows("CLFILTERS_BAND_ROWS", kBandRows);
  std::vector<cl::Event> events;
  filter_bands_on_devices(
      sub_devices(),
      {in.data.data(), out.data.data(), 64, 47, 4, SampleType::u8, in.row_bytes(), out.row_bytes(),
       params.diameter / 2},
      [&](Context& ctx, std::size_t, const DeviceImage& band, const cl::Buffer& buffer,
          const std::vector<cl::Event>& wait) {
        DeviceImage o{.buffer = buffer, .width = band.width, .height = band.height, .channels = 4};
        return box_blur(ctx, band, o, params, "auto", {}, wait);
      },
      events);
  EXPECT_TRUE(testing::images_equal(box_blur_reference(in, params), out));
  EXPECT_FALSE(events.empty());
}

TEST(MultiDevice, BoxBlurEpsilonAndSobelBandsEqualTheReference) {
  REQUIRE_SUB_DEVICES();
  const ScopedEnv rows("CLFILTERS_BAND_ROWS", kBandRows);
  const auto seed = testing::fresh_seed();
  std::mt19937_64 rng(seed);
  const Border border = testing::kBorders[rng() % 4];
  for (const int channels : {1, 3, 4}) {
    SCOPED_TRACE(fmt::format("seed={} channels={} border={}", seed, channels, to_string(border)));
    const Image in = testing::random_image(61, 47, channels, SampleType::u8, seed + std::uint64_t(channels));
    const BoxBlurParams box{int(rng() % 9) + 2, border};
    Timing timing;
    EXPECT_TRUE(testing::images_equal(through_layout(in, [&](const Image& i) { return box_blur_reference(i, box); }),
                                      box_blur(sub_devices(), in, box, "auto", &timing)))
        << "box blur d=" << box.diameter;
    EXPECT_GT(timing.kernel_ms, 0);
    EXPECT_GE(timing.total_ms, 0);
    if (channels != 3) {  // 3 channels: the same conversion as the box blur's
      const EpsilonParams eps{.radius = int(rng() % 3) + 1, .threshold = int(rng() % 60), .border = border};
      EXPECT_TRUE(testing::images_equal(epsilon_reference(in, eps), epsilon(sub_devices(), in, eps)))
          << "epsilon r=" << eps.radius << " T=" << eps.threshold;
    }
  }
  const Image grey = testing::random_image(61, 47, 1, SampleType::u8, seed + 7);
  for (const SobelOutput output : {SobelOutput::magnitude, SobelOutput::gradients}) {
    const SobelParams params{.output = output, .border = border};
    SCOPED_TRACE(fmt::format("seed={} sobel output={}", seed, to_string(output)));
    EXPECT_TRUE(testing::images_equal(sobel_reference(grey, params), sobel(sub_devices(), grey, params)));
  }
}

// Grey+alpha kept apart: the grey plane through the bands, alpha copied, as the one-device call does.
TEST(MultiDevice, EpsilonOfGreyAndAlphaEqualsTheOneDeviceCall) {
  REQUIRE_SUB_DEVICES();
  const ScopedEnv rows("CLFILTERS_BAND_ROWS", kBandRows);
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image in = testing::random_image(61, 47, 2, SampleType::u8, seed);
  const EpsilonParams eps{.radius = 2, .threshold = 30, .border = {}};
  EXPECT_TRUE(testing::images_equal(epsilon(*sub_devices()[0], in, eps), epsilon(sub_devices(), in, eps)));
}

// The bilateral's variants may differ by 1: the same variant on both devices gives the one-device result exactly.
TEST(MultiDevice, BilateralBandsEqualTheOneDeviceCallOfTheSameVariant) {
  REQUIRE_SUB_DEVICES();
  const ScopedEnv rows("CLFILTERS_BAND_ROWS", kBandRows);
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image in = testing::random_image(61, 47, 4, SampleType::u8, seed);
  BilateralParams params;
  params.sigma_spatial = 1.5;
  params.sigma_range = 30;
  const std::string variant = bilateral_choose(*sub_devices()[0], params, "auto", 61, 47, 4).variant;
  const Image one = bilateral(*sub_devices()[0], in, params, variant);
  EXPECT_TRUE(testing::images_equal(one, bilateral(sub_devices(), in, params, variant))) << variant;
  EXPECT_TRUE(testing::images_equal(bilateral_reference(in, params), one, 1.0)) << variant;
}

TEST(MultiDevice, OneContextIsTheOneDeviceCall) {
  REQUIRE_SUB_DEVICES();
  const Image in = testing::random_image(61, 47, 4, SampleType::u8, testing::fresh_seed());
  const BoxBlurParams box{5, {}};
  EXPECT_TRUE(testing::images_equal(box_blur_reference(in, box), box_blur({sub_devices()[1]}, in, box)));
  EXPECT_THROW(box_blur(std::vector<Context*>{}, in, box), std::invalid_argument);
  EXPECT_THROW(box_blur(std::vector<Context*>{nullptr}, in, box), std::invalid_argument);
}

TEST(MultiDevice, BatchesOfSeveralSizesAndChannelsComeBackInOrder) {
  REQUIRE_SUB_DEVICES();
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const BoxBlurParams box{5, {BorderMode::reflect101, 0}};
  std::vector<Image> inputs;
  const int shapes[][3] = {{61, 47, 4}, {33, 20, 1}, {47, 61, 3}, {20, 9, 2}, {61, 47, 4}, {5, 70, 1}, {40, 40, 4}};
  for (const auto& s : shapes)
    inputs.push_back(testing::random_image(s[0], s[1], s[2], SampleType::u8, seed + inputs.size()));
  Timing timing;
  const std::vector<Image> out = box_blur(sub_devices(), inputs, box, "auto", &timing);
  ASSERT_EQ(out.size(), inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    EXPECT_TRUE(testing::images_equal(
        through_layout(inputs[i], [&](const Image& in) { return box_blur_reference(in, box); }), out[i]))
        << "image " << i;
  EXPECT_GT(timing.kernel_ms, 0);
  const SobelParams edges{};
  const std::vector<Image> grey(inputs.begin() + 1, inputs.begin() + 2);
  const auto sobel_out = sobel(sub_devices(), grey, edges);
  ASSERT_EQ(sobel_out.size(), 1u);
  EXPECT_TRUE(testing::images_equal(sobel_reference(grey[0], edges), sobel_out[0]));
  EXPECT_TRUE(box_blur(sub_devices(), std::vector<Image>{}, box).empty());
}

// A kernel launch failing mid-call (CLFILTERS_FAULT) ends it with that ClError, bands or batch; the devices then
// work again.
TEST(MultiDevice, AnInjectedFailureEndsTheCallWithItsError) {
  REQUIRE_SUB_DEVICES();
  const ScopedEnv rows("CLFILTERS_BAND_ROWS", kBandRows);
  const auto seed = testing::fresh_seed();
  const Image in = testing::random_image(61, 47, 4, SampleType::u8, seed);
  const BoxBlurParams box{3, {}};
  // A named variant: "auto" would fall back from the refusal the fault fakes (CL_OUT_OF_RESOURCES at a launch).
  const std::string variant = box_blur_choose(*sub_devices()[0], box, "auto", 61, 47, 4).variant;
  box_blur(sub_devices(), in, box, variant);  // programs built, so the fault falls on a band's launch
  // Each value once: the hook counts on while CLFILTERS_FAULT keeps its value.
  for (const auto& [fault, batch_fault] : {std::pair{"enqueue:4", "enqueue:5"}, {"enqueue:1", "enqueue:2"}}) {
    SCOPED_TRACE(fault);
    {
      const ScopedEnv failing("CLFILTERS_FAULT", fault);
      try {
        box_blur(sub_devices(), in, box, variant);
        ADD_FAILURE() << "no error";
      } catch (const ClError& e) {
        EXPECT_NE(std::string(e.what()).find("clEnqueueNDRangeKernel"), std::string::npos) << e.what();
      }
    }
    {
      const ScopedEnv failing("CLFILTERS_FAULT", batch_fault);
      EXPECT_THROW(box_blur(sub_devices(), std::vector<Image>(5, in), box, variant), ClError);
    }
    EXPECT_TRUE(testing::images_equal(box_blur_reference(in, box), box_blur(sub_devices(), in, box)));
  }
}

}  // namespace
}  // namespace clf
