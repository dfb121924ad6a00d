// SPDX-License-Identifier: Apache-2.0
// The bilateral filter on views of the caller's buffers with a row pitch and an offset: unrolled (its PITCHED
// build; vector stores where both positions are aligned, scalar ones elsewhere) and cpu_rows read and write them as
// they are, other variants through packed copies; all within 1 of the reference.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <ostream>

#include "clfilters/bilateral.hpp"
#include "testing/test_images.hpp"
#include "testing/view_check.hpp"

namespace clf {
namespace {

struct BilateralViewCase {
  std::string variant;
  int channels;
  testing::ViewLayout layout;
};

void PrintTo(const BilateralViewCase& c, std::ostream* os) {
  *os << fmt::format("{} c={} in {}+{} out {}+{}", c.variant, c.channels, c.layout.in_offset, c.layout.in_stride,
                     c.layout.out_offset, c.layout.out_stride);
}

class BilateralViews : public ::testing::TestWithParam<BilateralViewCase> {};

TEST_P(BilateralViews, WithinOneOfTheReferenceAndLeaveTheRestOfTheBuffer) {
  const BilateralViewCase& c = GetParam();
  Context& ctx = testing::test_context();
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  // 150 wide: the default 16 x 4 outputs per work-group row leave whole aligned groups for the vector stores.
  const Image in = testing::random_image(150, 19, c.channels, SampleType::u8, seed);
  BilateralParams params;
  params.sigma_spatial = 1;
  params.radius = 2;
  params.border = testing::kBorders[seed % 4];
  testing::expect_view_call(
      ctx, in, bilateral_reference(in, params), c.layout,
      [&](const DeviceImage& i, DeviceImage& o) { return bilateral(ctx, i, o, params, c.variant); }, 1);
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, BilateralViews,
    ::testing::Values(
        // Offsets and pitches of whole 4-pixel groups: the vector stores.
        BilateralViewCase{"unrolled", 1, {8, 160, 4, 156, 0}}, BilateralViewCase{"unrolled", 4, {4, 152, 12, 164, 0}},
        // Off them: the scalar stores; a packed input with a pitched output.
        BilateralViewCase{"unrolled", 4, {3, 151, 1, 157, 0}}, BilateralViewCase{"unrolled", 1, {0, 150, 5, 155, 0}},
        BilateralViewCase{"range_table", 4, {3, 151, 1, 157, 2}},
        // cpu_rows: row pointers from the strides, any layout.
        BilateralViewCase{"cpu_rows", 1, {5, 153, 2, 161, 0}}, BilateralViewCase{"cpu_rows", 4, {3, 151, 1, 157, 0}}),
    [](const auto& test) {
      const BilateralViewCase& c = test.param;
      return fmt::format("{}_c{}_in{}x{}_out{}x{}", c.variant, c.channels, c.layout.in_offset, c.layout.in_stride,
                         c.layout.out_offset, c.layout.out_stride);
    });

}  // namespace
}  // namespace clf
