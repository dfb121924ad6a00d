// SPDX-License-Identifier: Apache-2.0
// RGB host calls (filter_host_rgb): the device's RGB -> RGBA and RGBA -> RGB conversions against the host's
// to_filter_layout and from_filter_layout, at sizes around the kernels' 16- and 4-pixel groups, from aligned and
// misaligned host memory. Banded host calls against the one-piece call and the CPU reference.
#include "filters/image_call.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/sobel.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

// A filter call that checks what it is given and writes `result` (RGBA) as its output.
struct RecordingCall {
  Context& ctx;
  const Image& result;
  Image seen;
  std::vector<cl::Event> operator()(const DeviceImage& in, DeviceImage& out) {
    seen = in.download(ctx);
    check_cl(ctx.queue().enqueueWriteBuffer(out.buffer, CL_TRUE, 0, out.byte_size(), result.data.data()),
             "clEnqueueWriteBuffer");
    return {};
  }
};

// Host memory holding `image`'s bytes `shift` bytes past a 128-byte boundary.
struct ShiftedCopy {
  std::vector<std::uint8_t> bytes;
  std::uint8_t* data;
  ShiftedCopy(const Image& image, std::size_t shift) : bytes(image.byte_size() + 256) {
    const auto base = reinterpret_cast<std::uintptr_t>(bytes.data());
    data = bytes.data() + (128 - base % 128) % 128 + shift;
    std::memcpy(data, image.data.data(), image.byte_size());
  }
};

TEST(FilterHostRgb, ConvertsToRgbaAndBackOnTheDevice) {
  Context& ctx = testing::test_context();
  for (const SampleType type : {SampleType::u8, SampleType::u16})
    for (auto [w, h] : {std::pair{1, 1}, {15, 1}, {16, 1}, {17, 1}, {5, 3}, {33, 7}, {640, 361}})
      for (std::size_t shift : {0, 1, 4}) {
        const auto seed = testing::fresh_seed();
        SCOPED_TRACE(fmt::format("{} {}x{} shift={} seed={}", sample_type_name(type), w, h, shift, seed));
        const Image rgb = testing::random_image(w, h, 3, type, seed);
        const Image result = testing::random_image(w, h, 4, type, seed + 1);
        const ShiftedCopy in(rgb, shift);
        // The output poisoned, so that pixels the conversion leaves unwritten show.
        ShiftedCopy out(testing::random_image(w, h, 3, type, seed + 2), shift);
        RecordingCall call{ctx, result, {}};
        std::vector<cl::Event> events;
        filter_host_rgb(ctx, in.data, out.data, w, h, std::ref(call), events, type);
        ASSERT_TRUE(testing::images_equal(to_filter_layout(rgb), call.seen));
        Image got = Image::uninitialized(w, h, 3, type);
        std::memcpy(got.data.data(), out.data, got.byte_size());
        ASSERT_TRUE(testing::images_equal(from_filter_layout(result, 3), got));
        ASSERT_EQ(std::memcmp(in.data, rgb.data.data(), rgb.byte_size()), 0) << "the input changed";
      }
}

// Host calls cut into bands (CLFILTERS_BAND_ROWS forces them on any device; on a GPU large images are cut so): bands of
// one row, of fewer rows than the window's reach and of more, a last band shorter than the rest, each filter with a
// band count above its slots (2 inputs, 3 outputs) so that every slot is reused. Box blur and epsilon against the
// CPU reference (exact); the bilateral filter against its one-piece call bit for bit, since its variants may differ
// from the reference by 1 and the bands run the one-piece call's variant. The result memory is poisoned first: the
// last image freed of that size is one filled with 0xA5.
TEST(HostBands, EveryBandHeightGivesTheOnePieceResult) {
  Context& ctx = testing::test_context();
  const auto seed = testing::fresh_seed();
  for (const int channels : {1, 4}) {
    const Image in = testing::random_image(61, 23, channels, SampleType::u8, seed + std::uint64_t(channels));
    const auto poisoned = [&] {
      Image freed = Image::uninitialized(61, 23, channels);
      testing::poison(freed);
    };
    ASSERT_FALSE(host_call_band_rows(ctx.info(), in.width, in.height, channels, in.byte_size(), 4))
        << "bands without being asked";
    const BilateralParams bilateral_params{.sigma_spatial = 2, .sigma_range = 30, .radius = 3, .border = {}};
    const Image bilateral_whole = bilateral(ctx, in, bilateral_params);
    for (const char* rows : {"1", "2", "5", "9"}) {
      SCOPED_TRACE(fmt::format("channels={} band rows={} seed={}", channels, rows, seed));
      const ScopedEnv bands("CLFILTERS_BAND_ROWS", rows);
      ASSERT_EQ(host_call_band_rows(ctx.info(), in.width, in.height, channels, in.byte_size(), 4), std::atoi(rows));
      for (const int d : {1, 4, 9}) {
        const BoxBlurParams params{d, testing::kBorders[d % 4]};
        poisoned();
        ASSERT_TRUE(testing::images_equal(box_blur_reference(in, params), box_blur(ctx, in, params))) << "d=" << d;
      }
      const EpsilonParams epsilon_params{.radius = 2, .threshold = 40, .border = testing::kBorders[3]};
      poisoned();
      ASSERT_TRUE(testing::images_equal(epsilon_reference(in, epsilon_params), epsilon(ctx, in, epsilon_params)));
      poisoned();
      ASSERT_TRUE(testing::images_equal(bilateral_whole, bilateral(ctx, in, bilateral_params)));
    }
  }
}

// A device capped by CLFILTERS_DEVICE_MEMORY cuts a call that would fit it whole into bands, with the same result.
TEST(HostBands, AMemoryCapCutsTheCallIntoBands) {
  const Image in = testing::random_image(200, 150, 4, SampleType::u8, testing::fresh_seed());
  const BoxBlurParams params{7, testing::kBorders[2]};
  const ScopedEnv cap("CLFILTERS_DEVICE_MEMORY", "64K");
  Context ctx;  // the cap is read where the device is described
  EXPECT_EQ(ctx.info().max_alloc_bytes, 64u << 10);
  const auto rows = host_call_band_rows(ctx.info(), in.width, in.height, 4, in.byte_size(), 3);
  ASSERT_TRUE(rows) << "not cut into bands";
  EXPECT_LT(*rows, 20);
  ASSERT_TRUE(testing::images_equal(box_blur_reference(in, params), box_blur(ctx, in, params)));
  // Sobel's bands: one row of reach; its gradients take 4 bytes a pixel, so they are cut by the output's size.
  for (const SobelOutput output : {SobelOutput::magnitude, SobelOutput::gradients}) {
    const SobelParams sobel_params{output, testing::kBorders[3]};
    ASSERT_TRUE(testing::images_equal(sobel_reference(in, sobel_params), sobel(ctx, in, sobel_params)))
        << "output " << int(output);
  }
}

// A failure in any band (an allocation of the bands' buffers or staging, on the calling thread or the downloading
// one, or a band's kernel launch) ends the call with that error: no hang, no result.
TEST(HostBands, AFailureInAnyBandEndsTheCallWithItsError) {
  const Image in = testing::random_image(40, 30, 4, SampleType::u8, testing::fresh_seed());
  const BoxBlurParams params{5, {}};
  const Image expected = box_blur_reference(in, params);
  const ScopedEnv bands("CLFILTERS_BAND_ROWS", "4");
  int failed = 0;
  for (const char* fault :
       {"alloc:1", "alloc:2", "alloc:3", "alloc:5", "alloc:8", "alloc:11", "enqueue:1", "enqueue:4"}) {
    SCOPED_TRACE(fault);
    Context ctx;  // fresh: every buffer of the call is allocated anew
    const ScopedEnv injected("CLFILTERS_FAULT", fault);
    try {
      ASSERT_TRUE(testing::images_equal(expected, box_blur(ctx, in, params)));
    } catch (const ClError&) {
      ++failed;
    }
  }
  EXPECT_GE(failed, 6) << "the faults did not reach the bands";
}

// Where one piece does not fit the device (its allocation limit or half its memory), the bands' five slots do.
TEST(HostBands, AnImageTooLargeForTheDeviceIsCutIntoBandsThatFit) {
  DeviceInfo small;
  small.max_alloc_bytes = std::uint64_t(1) << 20;
  small.global_mem_bytes = std::uint64_t(64) << 20;
  const std::size_t row = 3840 * 4, bytes = row * 2160;
  EXPECT_FALSE(host_call_band_rows(small, 3840, 60, 4, row * 60, 4)) << "fits in one piece";
  EXPECT_FALSE(host_call_band_rows(small, 3840, 2160, 4, bytes, -1)) << "a filter that cannot be cut";
  EXPECT_EQ(host_call_band_rows(small, 3840, 2160, 4, bytes, 4), int((std::size_t(1) << 20) / row) - 8);
  // Within the allocation limit, but input and output are more than the memory: half of it in five slots.
  small.max_alloc_bytes = std::uint64_t(1) << 30;
  small.global_mem_bytes = std::uint64_t(48) << 20;
  EXPECT_EQ(host_call_band_rows(small, 3840, 2160, 4, bytes, 4), int((std::size_t(48) << 20) / 10 / row) - 8);
  small.global_mem_bytes = row * 10 * 8;  // a slot of 8 rows: not one row with 4 each side
  EXPECT_THROW(host_call_band_rows(small, 3840, 2160, 4, bytes, 4), std::invalid_argument);
}

// An image of 2^29 pixels or more, beyond the kernels' 32-bit indexing, goes through in bands below it, wherever it
// would fit: rows of the largest band with its halo, and a refusal where one row's band is already too many pixels.
TEST(HostBands, ImagesOfTwoToTheTwentyNinePixelsOrMoreAreCutBelowIt) {
  DeviceInfo large;
  large.max_alloc_bytes = std::uint64_t(1) << 40;
  large.global_mem_bytes = std::uint64_t(1) << 42;
  const auto band = [&](int w, int h, int reach) {
    return host_call_band_rows(large, w, h, 4, std::size_t(w) * std::size_t(h) * 4, reach);
  };
  EXPECT_FALSE(band(8192, 8192, 4)) << "below 2^29 pixels: one piece";
  EXPECT_FALSE(band(32768, 16383, 4));
  EXPECT_EQ(band(32768, 32768, 4), (((1 << 29) - 1) / 32768) - 8);
  EXPECT_EQ(band(32768, 16384, 0), ((1 << 29) - 1) / 32768);
  EXPECT_FALSE(band(32768, 32768, -1)) << "a filter that cannot be cut is refused by its own size check";
  EXPECT_THROW(band((1 << 28) - 1, 3, 1), std::invalid_argument) << "three rows are already 2^29 pixels";
}

// Bytes from a counter-based generator (splitmix64): fast enough to fill half a gigabyte, and never zeros.
Image large_random_grey(int width, int height, std::uint64_t seed) {
  Image image = Image::uninitialized(width, height, 1);
  std::uint8_t* p = image.data.data();
  const std::size_t n = image.byte_size();
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t z = seed + (i >> 3) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    std::memcpy(p + i, &z, std::min<std::size_t>(8, n - i));
  }
  return image;
}

// Rows [y0, y1) of `image`.
Image rows_of(const Image& image, int y0, int y1) {
  Image crop = Image::uninitialized(image.width, y1 - y0, image.channels, image.type);
  std::memcpy(crop.data.data(), image.row(y0), crop.byte_size());
  return crop;
}

// A grey image of just over 2^29 pixels through the box blur and epsilon, in bands on this device: rows at the image's
// edges and around each band's seam against the CPU reference of the input rows they read (a crop of the rows within
// reach gives the same row: the window never leaves it except at the image's own edges). The result's memory is
// poisoned first, as the last freed image of that size.
TEST(HostBands, AnImageBeyondTheKernelsIndexingGivesTheReferenceAtEverySeam) {
  Context& ctx = testing::test_context();
  const auto seed = testing::fresh_seed();
  const int width = 32768, height = (1 << 29) / width + 1, radius = 2;
  const Image in = large_random_grey(width, height, seed);
  const auto rows = host_call_band_rows(ctx.info(), width, height, 1, in.byte_size(), radius);
  ASSERT_TRUE(rows) << "not cut into bands";
  std::vector<int> checked = {0, 1, 2, height - 3, height - 2, height - 1};
  for (int seam = *rows; seam < height; seam += *rows)
    for (int y = seam - radius - 1; y <= seam + radius; ++y) checked.push_back(y);
  const auto expect_rows = [&](const Image& got, const auto& reference, const char* filter) {
    for (const int y : checked) {
      const int y0 = std::max(0, y - radius), y1 = std::min(height, y + radius + 1);
      const Image want = reference(rows_of(in, y0, y1));
      ASSERT_EQ(std::memcmp(got.row(y), want.row(y - y0), got.row_bytes()), 0)
          << filter << ": row " << y << " of " << height << ", bands of " << *rows << " rows, seed " << seed;
    }
  };
  {
    Image freed = Image::uninitialized(width, height, 1);
    testing::poison(freed);
  }
  const BoxBlurParams box{2 * radius + 1, testing::kBorders[1]};
  expect_rows(
      box_blur(ctx, in, box), [&](const Image& crop) { return box_blur_reference(crop, box); }, "box blur");
  const EpsilonParams eps{.radius = radius, .threshold = 30, .border = testing::kBorders[2]};
  expect_rows(
      epsilon(ctx, in, eps), [&](const Image& crop) { return epsilon_reference(crop, eps); }, "epsilon");
}

}  // namespace
}  // namespace clf
