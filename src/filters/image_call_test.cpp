// SPDX-License-Identifier: Apache-2.0
// RGB host calls (filter_host_rgb): the device's RGB -> RGBA and RGBA -> RGB conversions against the host's
// to_filter_layout and from_filter_layout, at sizes around the kernels' 16- and 4-pixel groups, from aligned and
// misaligned host memory. Banded host calls against the one-piece call and the CPU reference.
#include "filters/image_call.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
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
    ASSERT_FALSE(host_call_band_rows(ctx.info(), in.height, channels, in.byte_size(), 4))
        << "bands without being asked";
    const BilateralParams bilateral_params{.sigma_spatial = 2, .sigma_range = 30, .radius = 3, .border = {}};
    const Image bilateral_whole = bilateral(ctx, in, bilateral_params);
    for (const char* rows : {"1", "2", "5", "9"}) {
      SCOPED_TRACE(fmt::format("channels={} band rows={} seed={}", channels, rows, seed));
      const ScopedEnv bands("CLFILTERS_BAND_ROWS", rows);
      ASSERT_EQ(host_call_band_rows(ctx.info(), in.height, channels, in.byte_size(), 4), std::atoi(rows));
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
  const auto rows = host_call_band_rows(ctx.info(), in.height, 4, in.byte_size(), 3);
  ASSERT_TRUE(rows) << "not cut into bands";
  EXPECT_LT(*rows, 20);
  ASSERT_TRUE(testing::images_equal(box_blur_reference(in, params), box_blur(ctx, in, params)));
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
  EXPECT_FALSE(host_call_band_rows(small, 60, 4, row * 60, 4)) << "fits in one piece";
  EXPECT_FALSE(host_call_band_rows(small, 2160, 4, bytes, -1)) << "a filter that cannot be cut";
  EXPECT_EQ(host_call_band_rows(small, 2160, 4, bytes, 4), int((std::size_t(1) << 20) / row) - 8);
  // Within the allocation limit, but input and output are more than the memory: half of it in five slots.
  small.max_alloc_bytes = std::uint64_t(1) << 30;
  small.global_mem_bytes = std::uint64_t(48) << 20;
  EXPECT_EQ(host_call_band_rows(small, 2160, 4, bytes, 4), int((std::size_t(48) << 20) / 10 / row) - 8);
  small.global_mem_bytes = row * 10 * 8;  // a slot of 8 rows: not one row with 4 each side
  EXPECT_THROW(host_call_band_rows(small, 2160, 4, bytes, 4), std::invalid_argument);
}

}  // namespace
}  // namespace clf
