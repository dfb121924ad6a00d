// SPDX-License-Identifier: Apache-2.0
// The fast paths' arithmetic: the colour range-weight table's worst case (analysis at the top of
// bilateral.cl), and the unrolled variant: its soft exp2 and colour scale, the build-time switches, every
// shape and every exp2 path against the reference, and what it refuses.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "clfilters/bilateral.hpp"
#include "common/synthetic_image.hpp"
#include "filters/bilateral/bilateral_internal.hpp"
#include "filters/bilateral/bilateral_test_helpers.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using namespace bilateral_testing;

// ---- the colour range-weight table's error (analysis at the top of bilateral.cl) -------------------

TEST(ColourRangeTable, WorstCaseErrorKeepsTheContract) {
  using namespace bilateral_detail;
  constexpr double kNeighbours = 33 * 33 - 1;  // the most weights a window can perturb besides the centre
  for (double sigma :
       {0.01, 0.5, 1.0, 5.0, 10.0, 15.9, 16.0, 16.1, 20.0, 30.0, 50.0, 78.0, 78.1, 80.0, 100.0, 255.0, 1000.0, 1e5}) {
    SCOPED_TRACE(fmt::format("sigma_range={}", sigma));
    const ColourRangeTable table = colour_range_table(sigma);
    ASSERT_EQ(table.weights.size(), std::size_t(kColourTableSize));
    // Each d2 either carries a relative error (table = exact * (1 + e)) or, where the exact weight is
    // negligible or the bin lies past the table (dropped, weight 0), an absolute error.
    double relative = 0, absolute = 0, dropped_from = -1;
    for (std::uint32_t d2 = 0; d2 <= kMaxColourDistance2; ++d2) {
      const double exact = std::exp(-double(d2) / (2 * sigma * sigma));
      const std::uint32_t bin = colour_bin(d2, table.scale);
      if (bin >= std::uint32_t(kColourTableSize)) {
        if (dropped_from < 0) dropped_from = d2;
        absolute = std::max(absolute, exact);
        continue;
      }
      const double got = table.weights[bin];
      if (exact < 1e-20) {
        absolute = std::max(absolute, std::fabs(got - exact));
      } else {
        relative = std::max(relative, std::fabs(got / exact - 1));
      }
    }
    // |v' - v| <= 255 (e + N a) / (1 - e - N a): see bilateral.cl.
    const double bound = 255 * (relative + kNeighbours * absolute) / (1 - relative - kNeighbours * absolute);
    std::cout << fmt::format(
        "[ table ] sigma_range={:<7} scale={:<6} worst relative error {:.3e}, largest dropped or absolute "
        "error "
        "{:.3e}, dropped from d2={}, bound on |v' - v| {:.4f}\n",
        sigma, table.scale, relative, absolute, dropped_from, bound);
    EXPECT_LT(relative, 0.001);
    EXPECT_LT(bound, 0.5);
    EXPECT_EQ(table.weights[0] > 0.999f, true);
  }
}

TEST(ColourRangeTable, BinsMatchTheKernelsIntegerFormula) {
  using namespace bilateral_detail;
  // scale = 2^18 is the identity; bins never decrease with d2.
  for (std::uint32_t d2 : {0u, 1u, 2u, 8191u, 8192u, kMaxColourDistance2}) EXPECT_EQ(colour_bin(d2, 1u << 18), d2);
  const ColourRangeTable table = colour_range_table(60);
  for (std::uint32_t d2 = 1; d2 <= kMaxColourDistance2; ++d2)
    ASSERT_GE(colour_bin(d2, table.scale), colour_bin(d2 - 1, table.scale));
}

// ---- the unrolled variant: its arithmetic and every shape ------------------------------------------

// soft_exp2 of bilateral.cl, step for step in float (fma rounds once, as OpenCL's does).
float soft_exp2(float x, bool clamp) {
  if (clamp) x = std::fmax(x, -125.0f);
  const float t = x + 12582912.0f;
  const float f = x - (t - 12582912.0f);
  const float p = std::fma(std::fma(std::fma(0x1.c3f76p-5f, f, 0x1.f0de1ap-3f), f, 0x1.62f31ap-1f), f, 0x1.fff692p-1f);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(p) + (std::bit_cast<std::uint32_t>(t) << 23));
}

// The bound bilateral.cl's accuracy analysis uses (7.5e-5) over every exponent a tap can have, and the
// clamp keeping far smaller weights tiny, positive and finite.
TEST(UnrolledSoftExp2, RelativeErrorIsBelowTheBound) {
  double worst = 0;
  for (int i = 0; i <= 125 * 4096; ++i) {
    const float x = -float(i) / 4096.0f;  // every 1/4096 from 0 down to -125, the half-integers included
    const double exact = std::exp2(double(x));
    worst = std::max(worst, std::fabs(double(soft_exp2(x, false)) / exact - 1));
  }
  std::cout << fmt::format("[ soft_exp2 ] worst relative error {:.3e} over [-125, 0]\n", worst);
  EXPECT_LT(worst, 7.6e-5);
  for (float x : {-125.5f, -126.0f, -300.0f, -1e6f, -1e30f}) {
    const float got = soft_exp2(x, true);
    EXPECT_GT(got, 0.0f) << x;
    EXPECT_LT(got, 1e-37f) << x;
  }
}

// The colour scale has at most 16 significant bits, so every p' = p * scale and every difference
// (p - c) * scale is exact in float (bilateral.cl's accuracy analysis relies on it), and it is within
// 2^-16 of the exact scale.
TEST(UnrolledRangeScale, ScaledColoursAndDifferencesAreExact) {
  for (double sigma : {0.01, 0.5, 1.0, 10.0, 30.0, 80.0, 255.0, 1e5}) {
    SCOPED_TRACE(fmt::format("sigma_range={}", sigma));
    const float scale = bilateral_detail::unrolled_range_scale(sigma);
    const double exact = std::sqrt(std::log2(std::exp(1.0)) / (2 * sigma * sigma));
    EXPECT_LE(std::fabs(scale / exact - 1), std::ldexp(1.0, -16));
    int exponent = 0;
    const double mantissa = std::frexp(double(scale), &exponent);
    EXPECT_EQ(std::ldexp(mantissa, 16), std::round(std::ldexp(mantissa, 16)));  // 16 significant bits
    for (int p = 0; p <= 255; ++p) {
      ASSERT_EQ(double(float(p) * scale), double(p) * double(scale)) << p;
      for (int c : {0, 1, 77, 254, 255})
        ASSERT_EQ(double(float(p) * scale - float(c) * scale), double(p - c) * double(scale)) << p << " " << c;
    }
  }
}

TEST(UnrolledRangeScale, ExpandedExponentOnlyForColourWithSmallTerms) {
  using bilateral_detail::unrolled_expanded;
  EXPECT_TRUE(unrolled_expanded(make_params({3, 30}, 4, {}), 4));  // 156 + 2.6: the bench's colour case
  EXPECT_FALSE(unrolled_expanded(make_params({3, 30}, 4, {}), 1));
  EXPECT_FALSE(unrolled_expanded(make_params({1, 10}, 4, {}), 4));    // 1430
  EXPECT_FALSE(unrolled_expanded(make_params({0.5, 80}, 8, {}), 4));  // 23 + the spatial term 369
  using bilateral_detail::unrolled_planes;
  const bilateral_detail::UnrolledShape plain, table{.table_taps = 5};
  EXPECT_EQ(unrolled_planes(make_params({3, 30}, 4, {}), 4, plain), 4);
  EXPECT_EQ(unrolled_planes(make_params({1, 10}, 4, {}), 4, plain), 3);
  EXPECT_EQ(unrolled_planes(make_params({3, 30}, 4, {}), 1, plain), 1);
  EXPECT_EQ(unrolled_planes(make_params({3, 30}, 4, {}), 1, table), 2);  // the byte offsets 4p
  const bilateral_detail::UnrolledShape int_exp{.int_exp = 1};
  EXPECT_EQ(unrolled_planes(make_params({3, 30}, 4, {}), 4, int_exp), 5);  // |p|^2 bits and the packed bytes
}

TEST(UnrolledRangeScale, ClampIsBuiltWhereAnExponentCanPassMinus125) {
  using bilateral_detail::unrolled_needs_clamp;
  EXPECT_FALSE(unrolled_needs_clamp(3, 30, 4, 1));  // 52 + 2.6
  EXPECT_TRUE(unrolled_needs_clamp(3, 30, 4, 4));   // 156 + 2.6
  EXPECT_TRUE(unrolled_needs_clamp(1, 10, 1, 1));
  EXPECT_FALSE(unrolled_needs_clamp(5, 80, 8, 4));
}

// Shapes beyond the tunables' lists too (odd outputs per work-item, odd work-groups), so every code
// path of the kernel runs: scalar, float2 and float4 row loads, partial and whole work-groups, aligned
// and unaligned stores, edge and inside tiles, exp2 all on one unit, all on the other, or split, with
// and without the clamp; grey weights all from the range table, or split three ways. Odd image sizes,
// poisoned outputs, fresh random or photograph-like inputs. Each line is a program build, which costs PoCL
// seconds for the unrolled code: mostly small radii here; radius 6 and 8 with the default shape run in the
// tests above and below.
TEST(UnrolledVariant, EveryShapeWithinOneOfTheReference) {
  struct Run {
    int width, height, channels, radius;
    SigmaPair sigma;
    TuningConfig shape;
  };
  auto shape = [](int local_x, int local_y, int block_x, int rows, int soft_exp, int table_taps = 0, int int_exp = 0) {
    return TuningConfig{{"local_x", local_x},   {"local_y", local_y},       {"block_x", block_x}, {"rows", rows},
                        {"soft_exp", soft_exp}, {"table_taps", table_taps}, {"int_exp", int_exp}};
  };
  const Run runs[] = {
      {67, 35, 1, 4, {3, 30}, {}},  // the defaults: 16x8 work-items, 4x2 outputs each, table_taps 5 (grey)
      {1, 1, 1, 4, {3, 30}, {}},
      {67, 35, 4, 4, {3, 30}, shape(8, 4, 2, 1, 16)},
      {130, 9, 1, 1, {1, 10}, shape(5, 3, 3, 3, 0)},
      {3, 70, 4, 2, {1, 10}, shape(4, 4, 1, 4, 16)},
      {140, 72, 1, 3, {2, 0.5}, shape(8, 4, 2, 1, 16)},
      {45, 46, 4, 3, {5, 80}, shape(32, 2, 8, 1, 3)},
      {141, 72, 4, 2, {3, 30}, shape(16, 4, 4, 3, 5)},
      {75, 41, 1, 4, {3, 30}, shape(16, 16, 4, 1, 0, 16)},
      {53, 70, 1, 2, {1, 10}, shape(8, 4, 3, 2, 5, 6)},
      {90, 33, 1, 5, {2, 0.5}, shape(16, 2, 2, 1, 0, 8)},  // sr 0.5: the table's far entries underflow to 0
      // sr 24: the expanded exponent's largest terms (244 + 2.6 of its 256), so centre weights up to 2^61.
      {96, 40, 4, 4, {3, 24}, shape(16, 4, 4, 2, 0)},
      // int_exp: the colour term from a dp4a; sr 24 puts s - (2^23 + 2^22) k at its largest rounding.
      {141, 72, 4, 4, {3, 30}, shape(8, 8, 4, 2, 0, 0, 1)},
      {96, 40, 4, 4, {3, 24}, shape(16, 4, 2, 1, 16, 0, 1)},
      {37, 90, 4, 3, {2, 200}, shape(8, 16, 3, 1, 0, 0, 1)},
  };
  Context& ctx = test_context();
  DifferenceLog log;
  int rotation = 0;
  testing::CaseSample sample(0.5);  // the defaults always, a share of the others
  for (const Run& run : runs) {
    if (&run > &runs[1] && !sample.take()) continue;
    const auto seed = testing::fresh_seed();
    const BilateralParams params = make_params(run.sigma, run.radius, kBorders[rotation % std::size(kBorders)]);
    const Image in = rotation++ % 2 ? testing::random_image(run.width, run.height, run.channels, SampleType::u8, seed)
                                    : synthetic_photo(run.width, run.height, run.channels, seed);
    SCOPED_TRACE(fmt::format("{}x{}x{} {} [{}] seed={} sample={}", run.width, run.height, run.channels,
                             describe(params), to_string(run.shape), seed, sample.seed()));
    ASSERT_FALSE(bilateral_unsupported(ctx.info(), "unrolled", params, run.width, run.height, run.channels, run.shape));
    DeviceImage d_in = DeviceImage::upload(ctx, in);
    const Image expected = bilateral_reference(in, params);
    const Image got = run_device("unrolled", d_in, params, run.shape);
    ASSERT_TRUE(testing::images_equal(expected, got, 1.0));
    if (expected.data.size() >= kMinSamplesForMean) {
      EXPECT_LE(mean_abs_difference(expected, got), kMaxMeanDifference);
    }
    log.add(fmt::format("unrolled-c{}", run.channels), expected, got);
  }
  log.print("shapes");
}

// The +-1 contract hides small errors of the weights (a 0.5% error in one coefficient of soft_exp2
// still passes it), so this checks the kernel's exp2 paths more tightly: a correct kernel only flips
// a rounding where the exact mean lies within ~1e-4 of a tie, a few samples in 10^5.
TEST(UnrolledVariant, EveryExp2PathFlipsAlmostNoRounding) {
  Context& ctx = test_context();
  struct Split {
    int channels, soft_exp, table_taps, int_exp;
  };
  testing::CaseSample sample(0.5);
  for (const auto [c, soft_exp, table_taps, int_exp] :
       {Split{1, 0, 0, 0}, Split{1, 16, 0, 0}, Split{1, 0, 16, 0}, Split{1, 4, 6, 0}, Split{4, 0, 0, 0},
        Split{4, 16, 0, 0}, Split{4, 0, 0, 1}}) {
    if (!sample.take()) continue;
    const auto seed = testing::fresh_seed();
    const BilateralParams params = make_params({3, 30}, 4, {BorderMode::reflect101, 0});
    const TuningConfig config = {{"soft_exp", soft_exp}, {"table_taps", table_taps}, {"int_exp", int_exp}};
    SCOPED_TRACE(fmt::format("channels={} soft_exp={} table_taps={} int_exp={} seed={}", c, soft_exp, table_taps,
                             int_exp, seed));
    const Image in = synthetic_photo(256, 192, c, seed);
    DeviceImage d_in = DeviceImage::upload(ctx, in);
    const Image expected = bilateral_reference(in, params);
    const Image got = run_device("unrolled", d_in, params, config);
    ASSERT_TRUE(testing::images_equal(expected, got, 1.0));
    const double mean = mean_abs_difference(expected, got);
    std::cout << fmt::format(
        "[ accuracy ] unrolled channels={} soft_exp={:<2} table_taps={:<2} int_exp={} mean |difference| "
        "{:.6f}\n",
        c, soft_exp, table_taps, int_exp, mean);
    EXPECT_LE(mean, 2e-4);
  }
}

TEST(UnrolledVariant, RefusesWhatItCannotBuild) {
  const DeviceInfo& device = test_context().info();
  const BilateralParams p = make_params({3, 30}, 4, {});
  EXPECT_TRUE(bilateral_unsupported(device, "unrolled", make_params({3, 30}, 9, {}), 64, 64, 1));
  EXPECT_FALSE(bilateral_unsupported(device, "unrolled", make_params({3, 30}, 8, {}), 64, 64, 1));
  EXPECT_TRUE(bilateral_unsupported(device, "unrolled", p, 64, 64, 1, {{"block_x", 0}}));
  EXPECT_TRUE(bilateral_unsupported(device, "unrolled", p, 64, 64, 1, {{"soft_exp", 17}}));
  EXPECT_TRUE(bilateral_unsupported(device, "unrolled", p, 64, 64, 1, {{"soft_exp", 10}, {"table_taps", 8}}));
  EXPECT_FALSE(bilateral_unsupported(device, "unrolled", p, 64, 64, 1, {{"soft_exp", 8}, {"table_taps", 8}}));
  EXPECT_TRUE(bilateral_unsupported(device, "unrolled", p, 64, 64, 4, {{"table_taps", 4}}));  // grey only
  EXPECT_FALSE(bilateral_unsupported(device, "unrolled", p, 64, 64, 4, {{"table_taps", -1}}));
  EXPECT_FALSE(bilateral_unsupported(device, "unrolled", p, 64, 64, 4, {{"int_exp", 1}}));
  EXPECT_TRUE(bilateral_unsupported(device, "unrolled", p, 64, 64, 1, {{"int_exp", 1}}));  // colour only
  EXPECT_TRUE(bilateral_unsupported(device, "unrolled", make_params({1, 10}, 4, {}), 64, 64, 4, {{"int_exp", 1}}));
  EXPECT_TRUE(bilateral_unsupported(device, "unrolled", p, 64, 64, 4, {{"int_exp", 2}}));
  // A tile larger than the device's local memory.
  EXPECT_TRUE(bilateral_unsupported(device, "unrolled", p, 64, 64, 4,
                                    {{"local_x", 64}, {"local_y", 64}, {"block_x", 8}, {"rows", 8}}));
}

}  // namespace
}  // namespace clf
