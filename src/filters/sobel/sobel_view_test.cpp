// SPDX-License-Identifier: Apache-2.0
// Sobel on views of the caller's buffers (DeviceImage::view) with a row pitch and an offset: the buffer variants
// read (and for the 8-bit outputs write) them as they are (their PITCHED builds), row_tile and strip where the
// layout keeps their aligned accesses aligned; every other case goes through packed copies. All against the CPU
// reference, with every byte outside the output view and the whole input buffer left as they were.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "clfilters/sobel.hpp"
#include "testing/callers_buffer.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::CallersBuffer;
using testing::rect_copies;
using testing::test_context;

struct ViewCase {
  std::string variant;
  SobelOutput output;
  int width;
  int in_offset, in_stride, out_offset, out_stride;  // bytes; the gradient planes are packed (out unused)
  int copies;  // packed copies the call enqueues: none on views taken as they are, else one per view
  TuningConfig config = {};
};

// strip with 2 rows per work-item: its programs build in a fraction of the default 8 rows' time.
const TuningConfig kShortStrip = {{"rows", 2}};

void PrintTo(const ViewCase& c, std::ostream* os) {
  *os << fmt::format("{} {} w={} in {}+{} out {}+{}", c.variant, to_string(c.output), c.width, c.in_offset, c.in_stride,
                     c.out_offset, c.out_stride);
}

// The index of the first byte where `got` and `want` differ, or their size.
std::size_t first_difference(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) return i;
  return got.size();
}

class SobelViews : public ::testing::TestWithParam<ViewCase> {};

TEST_P(SobelViews, MatchTheReferenceAndLeaveTheRestOfTheBuffer) {
  const ViewCase& c = GetParam();
  Context& ctx = test_context();
  const int height = 23;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image in = testing::random_image(c.width, height, 1, SampleType::u8, seed);
  const SobelParams params{.output = c.output, .border = testing::kBorders[seed % 4]};
  CallersBuffer src(ctx, in, c.in_offset, c.in_stride, 0x3C);
  const auto in_view = DeviceImage::view(ctx, src.buffer(), c.width, height, 1, c.in_offset, c.in_stride);
  const Image ref = sobel_reference(in, params);
  if (c.output == SobelOutput::gradients) {
    DeviceGradients planes = DeviceGradients::allocate(ctx, c.width, height);
    const std::vector<std::int16_t> poison(std::size_t(c.width) * height, std::int16_t(-21846));
    for (const cl::Buffer* b : {&planes.gx, &planes.gy})
      check_cl(ctx.queue().enqueueWriteBuffer(*b, CL_TRUE, 0, planes.plane_bytes(), poison.data()),
               "clEnqueueWriteBuffer");
    const auto events = sobel(ctx, in_view, planes, params, c.variant, c.config);
    cl::Event::waitForEvents(events);
    EXPECT_EQ(rect_copies(events), c.copies);
    EXPECT_TRUE(testing::images_equal(ref, planes.download(ctx)));
    // The same as interleaved pairs, which take the input view as the planes do.
    DeviceGradientPairs pairs = DeviceGradientPairs::allocate(ctx, c.width, height);
    const std::vector<std::int16_t> pair_poison(2 * std::size_t(c.width) * height, std::int16_t(-21846));
    check_cl(ctx.queue().enqueueWriteBuffer(pairs.buffer, CL_TRUE, 0, pairs.byte_size(), pair_poison.data()),
             "clEnqueueWriteBuffer");
    const auto pair_events = sobel(ctx, in_view, pairs, params, c.variant, c.config);
    cl::Event::waitForEvents(pair_events);
    EXPECT_EQ(rect_copies(pair_events), c.copies);
    EXPECT_TRUE(testing::images_equal(ref, pairs.download(ctx))) << "the interleaved gradients";
  } else {
    CallersBuffer dst(ctx, Image(c.width, height, 1), c.out_offset, c.out_stride, 0xA5);  // poisoned
    auto out_view = DeviceImage::view(ctx, dst.buffer(), c.width, height, 1, c.out_offset, c.out_stride);
    const auto events = sobel(ctx, in_view, out_view, params, c.variant, c.config);
    cl::Event::waitForEvents(events);
    EXPECT_EQ(rect_copies(events), c.copies);
    // Expected: the poisoned buffer with the reference written into the view's rows, nothing else.
    std::vector<std::uint8_t> want = dst.bytes;
    for (int y = 0; y < height; ++y)
      std::memcpy(want.data() + c.out_offset + std::size_t(c.out_stride) * y, ref.row(y), ref.row_bytes());
    const std::vector<std::uint8_t> got = dst.read(ctx);
    ASSERT_EQ(got.size(), want.size());
    const std::size_t first = first_difference(got, want);
    EXPECT_EQ(first, got.size()) << "first wrong byte " << first << ": got " << int(got[first]) << ", want "
                                 << int(want[first]);
  }
  EXPECT_EQ(src.read(ctx), src.bytes) << "the input buffer changed";
}

constexpr SobelOutput kMagnitude = SobelOutput::magnitude, kL1 = SobelOutput::l1, kGradients = SobelOutput::gradients;

INSTANTIATE_TEST_SUITE_P(
    Layouts, SobelViews,
    ::testing::Values(
        // Scalar and vloadn/vstoren accesses: any layout, taken as it is.
        ViewCase{"naive", kMagnitude, 61, 3, 67, 5, 71, 0}, ViewCase{"separable", kL1, 61, 0, 64, 7, 61, 0},
        ViewCase{"row16", kGradients, 61, 3, 67, 0, 0, 0}, ViewCase{"block16x2", kMagnitude, 61, 9, 70, 1, 62, 0},
        // row_tile and strip, aligned builds (w % 16 == 0), on whole 16-pixel strips: taken as they are.
        ViewCase{"row_tile", kL1, 64, 16, 80, 32, 96, 0},
        ViewCase{"strip", kMagnitude, 64, 48, 96, 16, 80, 0, kShortStrip},
        ViewCase{"strip", kGradients, 64, 16, 80, 0, 0, 0, kShortStrip},
        // Unaligned builds (w % 4 != 0): any layout.
        ViewCase{"row_tile", kMagnitude, 61, 3, 67, 5, 71, 0}, ViewCase{"strip", kL1, 61, 3, 67, 5, 71, 0, kShortStrip},
        // A packed input with a pitched output, and the other way round: taken as they are, or for strip off whole
        // strips, the view through a copy.
        ViewCase{"strip", kMagnitude, 64, 0, 64, 16, 80, 0, kShortStrip},
        ViewCase{"strip", kMagnitude, 64, 0, 64, 5, 69, 1, kShortStrip}, ViewCase{"row_tile", kL1, 64, 3, 67, 0, 64, 1},
        // Off whole strips on aligned builds, or a variant without a pitched build: through packed copies.
        ViewCase{"strip", kMagnitude, 64, 3, 67, 16, 80, 2, kShortStrip},
        ViewCase{"strip", kGradients, 64, 8, 72, 0, 0, 1, kShortStrip},
        ViewCase{"image", kMagnitude, 61, 3, 67, 5, 71, 2},
        // cpu_rows: row pointers from the layout, unaligned vectors: any layout, taken as it is.
        ViewCase{"cpu_rows", kMagnitude, 61, 3, 67, 5, 71, 0}, ViewCase{"cpu_rows", kGradients, 37, 7, 50, 0, 0, 0}),
    [](const auto& test) {
      const ViewCase& c = test.param;
      return fmt::format("{}_{}_w{}_in{}x{}_out{}x{}", c.variant, to_string(c.output), c.width, c.in_offset,
                         c.in_stride, c.out_offset, c.out_stride);
    });

}  // namespace
}  // namespace clf
