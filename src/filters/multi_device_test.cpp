// SPDX-License-Identifier: Apache-2.0
// Host calls over several devices: the test device split into two and three sub-devices (PoCL splits its CPU), bands
// and batches against the CPU references (the bilateral against its one-device call of the same variant), bands as
// row ranges of the whole image against the one-device call, the shared queue, and an injected failure that ends the
// call with its error.
#include "filters/multi_device.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/sobel.hpp"
#include "filters/bilateral/bilateral_internal.hpp"
#include "filters/box_blur/box_blur_internal.hpp"
#include "filters/epsilon/epsilon_internal.hpp"
#include "filters/sobel/sobel_internal.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

// PoCL gives its CPU device a compute unit a core; 6, where the environment sets no count, lets a 2-core machine split
// into 2 and into 3 sub-devices as larger ones do. Set before the first OpenCL call, which reads it.
[[maybe_unused]] const int kPoclComputeUnits = ::setenv("POCL_MAX_PTHREAD_COUNT", "6", 0);

// Contexts over `parts` equal parts of the test device, made once for the process (each builds its own programs);
// empty where the device cannot be split so.
const std::vector<Context*>& sub_devices(int parts = 2) {
  static std::map<int, std::vector<std::unique_ptr<Context>>> contexts;
  static std::map<int, std::vector<Context*>> pointers;
  if (!contexts.count(parts)) {
    std::vector<std::unique_ptr<Context>>& made = contexts[parts];
    try {
      for (DeviceHandle& part : split_device(device_handle(testing::test_context().device()()), parts))
        made.push_back(std::make_unique<Context>(std::move(part)));
    } catch (const std::invalid_argument&) {
      made.clear();
    }
    for (const auto& c : made) pointers[parts].push_back(c.get());
  }
  return pointers[parts];
}

#define REQUIRE_SUB_DEVICES(parts)                     \
  if (sub_devices(parts).size() != std::size_t(parts)) \
  GTEST_SKIP() << "the test device does not split into " << parts << " parts"

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
  REQUIRE_SUB_DEVICES(2);
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
  REQUIRE_SUB_DEVICES(2);
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
  REQUIRE_SUB_DEVICES(2);
  const auto seed = testing::fresh_seed();
  const BoxBlurParams params{7, testing::kBorders[seed % 4]};
  SCOPED_TRACE(fmt::format("seed={} border={}", seed, to_string(params.border)));
  const Image in = testing::random_image(64, 47, 4, SampleType::u8, seed);
  Image out = Image::uninitialized(64, 47, 4);
  testing::poison(out);
  const ScopedEnv rows("CLFILTERS_BAND_ROWS", kBandRows);
  std::vector<cl::Event> events;
  filter_bands_on_devices(sub_devices(),
                          {in.data.data(), out.data.data(), 64, 47, 4, SampleType::u8, in.row_bytes(), out.row_bytes(),
                           params.diameter / 2},
                          {[&](Context& ctx, std::size_t, const DeviceImage& band, const cl::Buffer& buffer,
                               const RowRange&, const std::vector<cl::Event>& wait) {
                            DeviceImage o{.buffer = buffer, .width = band.width, .height = band.height, .channels = 4};
                            return box_blur(ctx, band, o, params, "auto", {}, wait);
                          }},
                          events);
  EXPECT_TRUE(testing::images_equal(box_blur_reference(in, params), out));
  EXPECT_FALSE(events.empty());
}

TEST(MultiDevice, BoxBlurEpsilonAndSobelBandsEqualTheReference) {
  REQUIRE_SUB_DEVICES(2);
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
  REQUIRE_SUB_DEVICES(2);
  const ScopedEnv rows("CLFILTERS_BAND_ROWS", kBandRows);
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image in = testing::random_image(61, 47, 2, SampleType::u8, seed);
  const EpsilonParams eps{.radius = 2, .threshold = 30, .border = {}};
  EXPECT_TRUE(testing::images_equal(epsilon(*sub_devices()[0], in, eps), epsilon(sub_devices(), in, eps)));
}

// The bilateral's variants may differ by 1: the same variant on both devices gives the one-device result exactly.
TEST(MultiDevice, BilateralBandsEqualTheOneDeviceCallOfTheSameVariant) {
  REQUIRE_SUB_DEVICES(2);
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

// Devices of unlike sizes (halves and thirds of the test device) take short first bands and then bands by their
// measured speed: every row still written once, from its own window, into a poisoned output. 400 rows make bands of
// several sizes.
TEST(MultiDevice, DevicesOfUnlikeSizesShareTheBandsExactly) {
  REQUIRE_SUB_DEVICES(2);
  REQUIRE_SUB_DEVICES(3);
  const auto seed = testing::fresh_seed();
  const BoxBlurParams box{9, testing::kBorders[seed % 4]};
  SCOPED_TRACE(fmt::format("seed={} border={}", seed, to_string(box.border)));
  const Image in = testing::random_image(53, 400, 4, SampleType::u8, seed);
  Image out = Image::uninitialized(53, 400, 4);
  testing::poison(out);
  const std::vector<Context*> unlike{sub_devices(2)[0], sub_devices(3)[0], sub_devices(3)[1]};
  box_blur(unlike, ImageView{in.data.data(), 53, 400, 4, SampleType::u8},
           MutableImageView{out.data.data(), 53, 400, 4, SampleType::u8}, box);
  EXPECT_TRUE(testing::images_equal(box_blur_reference(in, box), out));
}

TEST(MultiDevice, OneContextIsTheOneDeviceCall) {
  REQUIRE_SUB_DEVICES(2);
  const Image in = testing::random_image(61, 47, 4, SampleType::u8, testing::fresh_seed());
  const BoxBlurParams box{5, {}};
  EXPECT_TRUE(testing::images_equal(box_blur_reference(in, box), box_blur({sub_devices()[1]}, in, box)));
  EXPECT_THROW(box_blur(std::vector<Context*>{}, in, box), std::invalid_argument);
  EXPECT_THROW(box_blur(std::vector<Context*>{nullptr}, in, box), std::invalid_argument);
}

TEST(MultiDevice, BatchesOfSeveralSizesAndChannelsComeBackInOrder) {
  REQUIRE_SUB_DEVICES(2);
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
  REQUIRE_SUB_DEVICES(2);
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

// ---------------------------------------------------------------------------------------------
// Bands as row ranges of the whole image: each filter's CPU variant on 2 and 3 sub-devices, in bands of 1 row and of
// d - 1 (less than the window), on odd sizes, against the one-device call; and a call of a range of rows on its own.

// A band's device call: the filter from `in` into `out` after `wait`, writing output rows `rows` only.
using RowsCall = std::function<std::vector<cl::Event>(Context& ctx, const DeviceImage& in, const cl::Buffer& out,
                                                      const RowRange& rows, const std::vector<cl::Event>& wait)>;

// filter_bands_on_devices with every device taking row ranges, into an output of `out_like`'s shape poisoned first:
// each band must come as a range of the whole image, and every row must be some band's once.
Image bands_as_row_ranges(const std::vector<Context*>& devices, const Image& in, const Image& out_like, int reach,
                          const RowsCall& call) {
  Image out = Image::uninitialized(out_like.width, out_like.height, out_like.channels, out_like.type);
  testing::poison(out);
  std::mutex mutex;
  std::vector<int> written(std::size_t(in.height), 0);
  std::vector<cl::Event> events;
  filter_bands_on_devices(devices,
                          {in.data.data(), out.data.data(), in.width, in.height, in.channels, in.type, in.row_bytes(),
                           out.row_bytes(), reach},
                          {[&](Context& ctx, std::size_t, const DeviceImage& whole, const cl::Buffer& buffer,
                               const RowRange& rows, const std::vector<cl::Event>& wait) {
                             EXPECT_EQ(whole.height, in.height);
                             const std::lock_guard lock(mutex);
                             for (int y = rows.begin; y < rows.end_in(in.height); ++y) ++written[std::size_t(y)];
                             return call(ctx, whole, buffer, rows, wait);
                           },
                           [](std::size_t) { return true; }},
                          events);
  for (int y = 0; y < in.height; ++y) EXPECT_EQ(written[std::size_t(y)], 1) << "row " << y;
  return out;
}

// Rows `rows` of `call` on `ctx` into an output poisoned first: those rows of `whole`, the whole call's result, byte
// for byte, and every other byte still poison.
void expect_only_rows_written(Context& ctx, const Image& in, const Image& whole, const RowRange& rows,
                              const RowsCall& call) {
  const DeviceImage d_in = DeviceImage::upload(ctx, in);
  const std::size_t row_bytes = whole.row_bytes();
  std::vector<std::uint8_t> got(whole.byte_size(), 0xA5);
  const cl::Buffer out = ctx.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, got.size(), got.data());
  call(ctx, d_in, out, rows, {});
  ASSERT_EQ(ctx.queue().enqueueReadBuffer(out, CL_TRUE, 0, got.size(), got.data()), CL_SUCCESS);
  const std::vector<std::uint8_t> poison(row_bytes, 0xA5);
  for (int y = 0; y < whole.height; ++y) {
    const bool inside = y >= rows.begin && y < rows.end;
    const std::uint8_t* expected = inside ? whole.data.data() + std::size_t(y) * row_bytes : poison.data();
    ASSERT_EQ(std::memcmp(got.data() + std::size_t(y) * row_bytes, expected, row_bytes), 0)
        << "row " << y << (inside ? " differs from the whole call's" : " was written") << " (rows " << rows.begin
        << ".." << rows.end << ")";
  }
}

// The checks above for one filter's call on `in`, whose one-device result is `whole`: a range of rows on one of
// `parts` sub-devices, then bands of 1 row and of `window` - 1 on all of them, in place and through the filter's
// public call (`public_call`). The one device is the first part, whose programs the bands build anyway.
void expect_bands_equal_whole(int parts, const Image& in, const Image& whole, int window, std::uint64_t seed,
                              const RowsCall& call,
                              const std::function<Image(const std::vector<Context*>&)>& public_call, int reach) {
  std::mt19937_64 rng(seed);
  // Either edge of the image, or neither, in the range; never all of it.
  const int begin = int(rng() % std::uint64_t(in.height / 2 + 1));
  const int end = begin + 1 + int(rng() % std::uint64_t(in.height - begin));
  expect_only_rows_written(*sub_devices(parts)[0], in, whole, {begin, begin == 0 && end == in.height ? end - 1 : end},
                           call);
  for (const int band_rows : {1, window - 1}) {
    SCOPED_TRACE(fmt::format("parts={} band rows={}", parts, band_rows));
    const ScopedEnv env("CLFILTERS_BAND_ROWS", std::to_string(band_rows).c_str());
    EXPECT_TRUE(testing::images_equal(whole, bands_as_row_ranges(sub_devices(parts), in, whole, reach, call)));
    EXPECT_TRUE(testing::images_equal(whole, public_call(sub_devices(parts))));
  }
}

// An image filter's RowsCall: enqueue_image_call with the row range.
template <class P>
RowsCall image_rows_call(const ImageFilterApi<P>& api, const P& params) {
  return [&api, params](Context& ctx, const DeviceImage& in, const cl::Buffer& out, const RowRange& rows,
                        const std::vector<cl::Event>& wait) {
    DeviceImage o{.buffer = out, .width = in.width, .height = in.height, .channels = in.channels, .type = in.type};
    return enqueue_image_call(ctx, api, in, o, params, "auto", {}, wait, rows);
  };
}

// The sample of cases of each filter: each of its programs (channels, sample type, output) is a build on each device
// it runs on, 0.3-1 s on PoCL, so each is tried on one split; borders, sizes and parameters are kernel arguments.
struct Sample {
  int parts;
  int channels;
  SampleType type;
};

TEST(MultiDevice, BoxBlurBandsAsRowRangesEqualTheOneDeviceCall) {
  REQUIRE_SUB_DEVICES(3);
  const ScopedEnv whole_image("CLFILTERS_BAND_ROWS", nullptr);
  const auto seed = testing::fresh_seed();
  std::mt19937_64 rng(seed);
  for (const Sample& s : {Sample{2, 4, SampleType::u8}, Sample{2, 1, SampleType::u16}, Sample{3, 1, SampleType::u8},
                          Sample{3, 4, SampleType::u16}}) {
    const Image in = testing::random_image(37 + int(rng() % 20), 23 + int(rng() % 9), s.channels, s.type, rng());
    ASSERT_TRUE(kBoxBlurApi.table().takes_row_range(
        box_blur_choose(*sub_devices(s.parts)[0], {}, "auto", in.width, in.height, s.channels, {}, s.type).variant));
    for (const Border& border : testing::kBorders) {
      const BoxBlurParams params{3 + int(rng() % 7), border};
      SCOPED_TRACE(fmt::format("seed={} {}x{}x{} {} d={} {}", seed, in.width, in.height, s.channels,
                               sample_type_name(s.type), params.diameter, to_string(border)));
      expect_bands_equal_whole(
          s.parts, in, box_blur(*sub_devices(s.parts)[0], in, params), params.diameter, rng(),
          image_rows_call(kBoxBlurApi, params),
          [&](const std::vector<Context*>& devices) { return box_blur(devices, in, params); }, params.diameter / 2);
    }
  }
}

TEST(MultiDevice, BilateralBandsAsRowRangesEqualTheOneDeviceCall) {
  REQUIRE_SUB_DEVICES(3);
  const ScopedEnv whole_image("CLFILTERS_BAND_ROWS", nullptr);
  const auto seed = testing::fresh_seed();
  std::mt19937_64 rng(seed);
  // Radius 3 weighs pairs of pixels (bilateral_cpu_pairs.cl), radius 2 each tap (bilateral_cpu_rows.cl).
  for (const auto& [s, radius] : {std::pair{Sample{2, 1, SampleType::u8}, 3},
                                  {Sample{2, 4, SampleType::u8}, 2},
                                  {Sample{3, 1, SampleType::u8}, 2},
                                  {Sample{3, 4, SampleType::u8}, 3}}) {
    const Image in = testing::random_image(37 + int(rng() % 20), 23 + int(rng() % 9), s.channels, s.type, rng());
    for (const Border& border : testing::kBorders) {
      BilateralParams params;
      params.sigma_spatial = 1.5;
      params.sigma_range = 10 + double(rng() % 40);
      params.radius = radius;
      params.border = border;
      params.window = rng() % 2 ? BilateralWindow::disk : BilateralWindow::square;
      params.distance = rng() % 2 ? BilateralDistance::l1 : BilateralDistance::l2;
      ASSERT_TRUE(kBilateralApi.table().takes_row_range(
          bilateral_choose(*sub_devices(s.parts)[0], params, "auto", in.width, in.height, s.channels).variant));
      SCOPED_TRACE(fmt::format("seed={} {}x{}x{} r={} sigma_range={} {} {} {}", seed, in.width, in.height, s.channels,
                               radius, params.sigma_range, to_string(params.window), to_string(params.distance),
                               to_string(border)));
      expect_bands_equal_whole(
          s.parts, in, bilateral(*sub_devices(s.parts)[0], in, params), 2 * radius + 1, rng(),
          image_rows_call(kBilateralApi, params),
          [&](const std::vector<Context*>& devices) { return bilateral(devices, in, params); }, radius);
    }
  }
}

TEST(MultiDevice, EpsilonBandsAsRowRangesEqualTheOneDeviceCall) {
  REQUIRE_SUB_DEVICES(3);
  const ScopedEnv whole_image("CLFILTERS_BAND_ROWS", nullptr);
  const auto seed = testing::fresh_seed();
  std::mt19937_64 rng(seed);
  for (const Sample& s : {Sample{2, 4, SampleType::u8}, Sample{3, 1, SampleType::u8}, Sample{3, 4, SampleType::u16}}) {
    const Image in = testing::random_image(37 + int(rng() % 20), 23 + int(rng() % 9), s.channels, s.type, rng());
    for (const Border& border : testing::kBorders) {
      const int top = s.type == SampleType::u16 ? 65535 : 255;
      const EpsilonParams params{
          .radius = 1 + int(rng() % 3), .threshold = int(rng() % std::uint64_t(top / 4)), .border = border};
      ASSERT_TRUE(kEpsilonApi.table().takes_row_range(
          epsilon_choose(*sub_devices(s.parts)[0], params, "auto", in.width, in.height, s.channels, {}, s.type)
              .variant));
      SCOPED_TRACE(fmt::format("seed={} {}x{}x{} {} r={} T={} {}", seed, in.width, in.height, s.channels,
                               sample_type_name(s.type), params.radius, params.threshold, to_string(border)));
      expect_bands_equal_whole(
          s.parts, in, epsilon(*sub_devices(s.parts)[0], in, params), 2 * params.radius + 1, rng(),
          image_rows_call(kEpsilonApi, params),
          [&](const std::vector<Context*>& devices) { return epsilon(devices, in, params); }, params.radius);
    }
  }
}

TEST(MultiDevice, SobelBandsAsRowRangesEqualTheOneDeviceCall) {
  REQUIRE_SUB_DEVICES(3);
  const ScopedEnv whole_image("CLFILTERS_BAND_ROWS", nullptr);
  const auto seed = testing::fresh_seed();
  std::mt19937_64 rng(seed);
  // Gradients: 4 bytes a pixel out for 1 in.
  for (const auto& [parts, output] : {std::pair{2, SobelOutput::gradients}, {3, SobelOutput::magnitude}}) {
    const Image in = testing::random_image(37 + int(rng() % 20), 23 + int(rng() % 9), 1, SampleType::u8, rng());
    for (const Border& border : testing::kBorders) {
      const SobelParams params{.output = output, .border = border};
      ASSERT_TRUE(sobel_table().takes_row_range(
          sobel_choose(*sub_devices(parts)[0], params, "auto", in.width, in.height).variant));
      SCOPED_TRACE(fmt::format("seed={} {}x{} {} {}", seed, in.width, in.height, to_string(output), to_string(border)));
      expect_bands_equal_whole(
          parts, in, sobel(*sub_devices(parts)[0], in, params), 3, rng(),
          [&](Context& ctx, const DeviceImage& d_in, const cl::Buffer& out, const RowRange& rows,
              const std::vector<cl::Event>& wait) {
            return sobel_host_layout(ctx, d_in, out, params, "auto", {}, wait, rows);
          },
          [&](const std::vector<Context*>& devices) { return sobel(devices, in, params); }, 1);
    }
  }
}

// A range of rows outside the image, or of a variant that computes whole images, or in place, is refused before
// anything is built or runs.
TEST(MultiDevice, RowRangesOutsideTheImageOrOfWholeImageVariantsAreRefused) {
  Context& ctx = testing::test_context();
  const Image in = testing::random_image(40, 20, 4, SampleType::u8, testing::fresh_seed());
  const DeviceImage d_in = DeviceImage::upload(ctx, in);
  DeviceImage out = DeviceImage::allocate(ctx, 40, 20, 4);
  const BoxBlurParams params{5, {}};
  const auto refusal = [&](const RowRange& rows, const std::string& variant, DeviceImage& to) -> std::string {
    try {
      enqueue_image_call(ctx, kBoxBlurApi, d_in, to, params, variant, {}, {}, rows);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  for (const RowRange& rows : {RowRange{-1, 5}, RowRange{5, 5}, RowRange{0, 21}, RowRange{12, 8}})
    EXPECT_NE(refusal(rows, "cpu_bands", out).find("not a range of the image's 20 rows"), std::string::npos)
        << refusal(rows, "cpu_bands", out);
  EXPECT_NE(refusal({2, 9}, "naive", out).find("variant naive computes whole images"), std::string::npos)
      << refusal({2, 9}, "naive", out);
  DeviceImage same = d_in;
  EXPECT_NE(refusal({2, 9}, "cpu_bands", same).find("needs an output apart from the input"), std::string::npos)
      << refusal({2, 9}, "cpu_bands", same);
}

}  // namespace
}  // namespace clf
