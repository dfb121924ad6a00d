// SPDX-License-Identifier: Apache-2.0
// Epsilon on views of the caller's buffers with a row pitch and an offset: regblock (its PITCHED build) and
// cpu_rows read and write them as they are, other variants through packed copies; all against the CPU reference.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <ostream>

#include "clfilters/epsilon.hpp"
#include "testing/test_images.hpp"
#include "testing/view_check.hpp"

namespace clf {
namespace {

struct EpsilonViewCase {
  std::string variant;
  int channels;
  testing::ViewLayout layout;
};

void PrintTo(const EpsilonViewCase& c, std::ostream* os) {
  *os << fmt::format("{} c={} in {}+{} out {}+{}", c.variant, c.channels, c.layout.in_offset, c.layout.in_stride,
                     c.layout.out_offset, c.layout.out_stride);
}

class EpsilonViews : public ::testing::TestWithParam<EpsilonViewCase> {};

TEST_P(EpsilonViews, MatchTheReferenceAndLeaveTheRestOfTheBuffer) {
  const EpsilonViewCase& c = GetParam();
  Context& ctx = testing::test_context();
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image in = testing::random_image(37, 29, c.channels, SampleType::u8, seed);
  const EpsilonParams params{.radius = 2, .threshold = int(seed % 64), .border = testing::kBorders[seed % 4]};
  testing::expect_view_call(
      ctx, in, epsilon_reference(in, params), c.layout,
      [&](const DeviceImage& i, DeviceImage& o) { return epsilon(ctx, i, o, params, c.variant); });
}

INSTANTIATE_TEST_SUITE_P(Layouts, EpsilonViews,
                         ::testing::Values(EpsilonViewCase{"regblock", 1, {3, 41, 5, 45, 0}},
                                           EpsilonViewCase{"regblock", 4, {1, 39, 7, 40, 0}},
                                           EpsilonViewCase{
                                               "regblock", 4, {0, 37, 2, 43, 0}},  // packed input, pitched output
                                           EpsilonViewCase{"vec4_branchless", 1, {3, 41, 5, 45, 2}},
                                           EpsilonViewCase{"cpu_rows", 1, {3, 41, 5, 45, 0}},
                                           EpsilonViewCase{"cpu_rows", 4, {1, 39, 7, 40, 0}}),
                         [](const auto& test) {
                           const EpsilonViewCase& c = test.param;
                           return fmt::format("{}_c{}_in{}x{}_out{}x{}", c.variant, c.channels, c.layout.in_offset,
                                              c.layout.in_stride, c.layout.out_offset, c.layout.out_stride);
                         });

}  // namespace
}  // namespace clf
