// SPDX-License-Identifier: Apache-2.0
// RGB host calls (filter_host_rgb): the device's RGB -> RGBA and RGBA -> RGB conversions against the host's
// to_filter_layout and from_filter_layout, at sizes around the kernels' 16- and 4-pixel groups, from aligned and
// misaligned host memory.
#include "filters/image_call.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

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
  for (auto [w, h] : {std::pair{1, 1}, {15, 1}, {16, 1}, {17, 1}, {5, 3}, {33, 7}, {640, 361}})
    for (std::size_t shift : {0, 1, 4}) {
      const auto seed = testing::fresh_seed();
      SCOPED_TRACE(fmt::format("{}x{} shift={} seed={}", w, h, shift, seed));
      const Image rgb = testing::random_image(w, h, 3, SampleType::u8, seed);
      const Image result = testing::random_image(w, h, 4, SampleType::u8, seed + 1);
      const ShiftedCopy in(rgb, shift);
      // The output poisoned, so that pixels the conversion leaves unwritten show.
      ShiftedCopy out(testing::random_image(w, h, 3, SampleType::u8, seed + 2), shift);
      RecordingCall call{ctx, result, {}};
      std::vector<cl::Event> events;
      filter_host_rgb(ctx, in.data, out.data, w, h, std::ref(call), events);
      ASSERT_TRUE(testing::images_equal(to_filter_layout(rgb), call.seen));
      Image got = Image::uninitialized(w, h, 3);
      std::memcpy(got.data.data(), out.data, got.byte_size());
      ASSERT_TRUE(testing::images_equal(from_filter_layout(result, 3), got));
      ASSERT_EQ(std::memcmp(in.data, rgb.data.data(), rgb.byte_size()), 0) << "the input changed";
    }
}

}  // namespace
}  // namespace clf
