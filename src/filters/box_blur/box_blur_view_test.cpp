// SPDX-License-Identifier: Apache-2.0
// The box blur on views of the caller's buffers (DeviceImage::view) with a row pitch and an offset: the band
// variants and separable_sliding (their PITCHED builds) and cpu_bands read and write them as they are, every other case
// goes through packed copies; both against the CPU reference, with every byte outside the output view left as it was.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "clfilters/box_blur.hpp"
#include "testing/callers_buffer.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::CallersBuffer;
using testing::test_context;

struct ViewCase {
  std::string variant;
  int channels, d;
  int in_offset, in_stride, out_offset, out_stride;
  int copies;  // packed copies the call enqueues: none on views taken as they are, else one per view
};

void PrintTo(const ViewCase& c, std::ostream* os) {
  *os << fmt::format("{} c={} d={} in {}+{} out {}+{}", c.variant, c.channels, c.d, c.in_offset, c.in_stride,
                     c.out_offset, c.out_stride);
}

class BoxBlurViews : public ::testing::TestWithParam<ViewCase> {};

TEST_P(BoxBlurViews, MatchTheReferenceAndLeaveTheRestOfTheBuffer) {
  const ViewCase& c = GetParam();
  Context& ctx = test_context();
  const int width = 61, height = 23;  // an odd width: the kernels' edge paths next to their aligned ones
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image in = testing::random_image(width, height, c.channels, SampleType::u8, seed);
  const BoxBlurParams params{c.d, testing::kBorders[c.d % 4]};
  CallersBuffer src(ctx, in, c.in_offset, c.in_stride, 0x3C);
  CallersBuffer dst(ctx, Image(width, height, c.channels), c.out_offset, c.out_stride, 0xA5);  // poisoned
  const std::size_t px = std::size_t(c.channels);
  const auto in_view =
      DeviceImage::view(ctx, src.buffer(), width, height, c.channels, c.in_offset * px, c.in_stride * px);
  auto out_view = DeviceImage::view(ctx, dst.buffer(), width, height, c.channels, c.out_offset * px, c.out_stride * px);
  const auto events = box_blur(ctx, in_view, out_view, params, c.variant);
  cl::Event::waitForEvents(events);
  EXPECT_EQ(testing::rect_copies(events), c.copies);
  // Expected: the poisoned buffer with the reference written into the view's rows, nothing else.
  const Image ref = box_blur_reference(in, params);
  std::vector<std::uint8_t> want = dst.bytes;
  for (int y = 0; y < height; ++y)
    std::memcpy(want.data() + (c.out_offset + std::size_t(c.out_stride) * y) * px, ref.row(y), ref.row_bytes());
  const std::vector<std::uint8_t> got = dst.read(ctx);
  ASSERT_EQ(got.size(), want.size());
  std::size_t first = got.size();
  for (std::size_t i = 0; i < got.size() && first == got.size(); ++i)
    if (got[i] != want[i]) first = i;
  EXPECT_EQ(first, got.size()) << "first wrong byte " << first << ": got " << int(got[first]) << ", want "
                               << int(want[first]);
  EXPECT_EQ(src.read(ctx), src.bytes) << "the input buffer changed";
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, BoxBlurViews,
    ::testing::Values(
        // The band variants on strides and offsets of whole 8-pixel blocks: taken as they are.
        ViewCase{"fused_packed", 4, 9, 8, 72, 16, 80, 0}, ViewCase{"fused_wide", 4, 31, 0, 64, 24, 96, 0},
        ViewCase{"fused_prefix", 4, 6, 40, 64, 8, 72, 0},
        // A packed input (61 pixels a row: not whole blocks) with a pitched output, and the other way round: the
        // packed image used as it is, the view through a copy.
        ViewCase{"fused_packed", 4, 3, 0, 61, 8, 72, 1}, ViewCase{"fused_prefix", 4, 17, 8, 72, 0, 61, 1},
        // Not whole 8-pixel blocks, or a variant without a pitched build: through packed copies.
        ViewCase{"fused_packed", 4, 9, 3, 67, 16, 80, 2}, ViewCase{"fused_blocks", 4, 9, 8, 72, 16, 80, 2},
        ViewCase{"local_tile", 1, 9, 8, 72, 16, 80, 2},
        // separable_sliding and fused_sliding, scalar accesses: any whole-pixel layout, grey and RGBA.
        ViewCase{"separable_sliding", 1, 9, 3, 67, 16, 80, 0}, ViewCase{"separable_sliding", 4, 16, 0, 64, 5, 71, 0},
        ViewCase{"fused_sliding", 1, 9, 3, 67, 5, 71, 0}, ViewCase{"fused_sliding", 4, 4, 0, 64, 7, 69, 0},
        // cpu_bands, row pointers from the layout: any whole-pixel layout, grey and RGBA.
        ViewCase{"cpu_bands", 1, 9, 3, 67, 16, 80, 0}, ViewCase{"cpu_bands", 4, 31, 5, 71, 3, 67, 0}),
    [](const auto& test) {
      const ViewCase& c = test.param;
      return fmt::format("{}_c{}_d{}_in{}x{}_out{}x{}", c.variant, c.channels, c.d, c.in_offset, c.in_stride,
                         c.out_offset, c.out_stride);
    });

}  // namespace
}  // namespace clf
