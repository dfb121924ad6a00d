// SPDX-License-Identifier: Apache-2.0
// Every bilateral variant within 1 of the double-precision reference (docs/SPEC.md), across sizes, sigma
// pairs, radii, borders and channel counts, with the mean absolute difference reported; the reference
// itself is checked against a brute-force evaluation of the formula; constant images and step edges behave
// as they must; the host API. (The colour range-weight table and the unrolled variant's arithmetic:
// bilateral_unrolled_test.cpp.)
#include "clfilters/bilateral.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "clfilters/image_io.hpp"
#include "filters/bilateral/bilateral_internal.hpp"
#include "filters/bilateral/bilateral_test_helpers.hpp"
#include "testing/test_images.hpp"
#include "testing/view_check.hpp"

namespace clf {
namespace {

using namespace bilateral_testing;
using testing::size_name;
using testing::SizeCase;

// ---- the reference against the formula ------------------------------------------------------------

TEST(BilateralReference, MatchesTheFormulaEvaluatedByBruteForce) {
  std::size_t checked = 0, near_ties = 0;
  for (auto [w, h] : {std::pair{1, 1}, {5, 3}, {13, 9}, {4, 17}})
    for (const SigmaPair& s : kSigmaPairs)
      for (int radius : {0, 1, 3, 6, 16})
        for (const Border& border : kBorders)
          for (int c : {1, 4}) {
            const auto seed = testing::fresh_seed();
            const BilateralParams p = make_params(s, radius, border);
            SCOPED_TRACE(fmt::format("{}x{}x{} {} seed={}", w, h, c, describe(p), seed));
            const Image in = testing::random_image(w, h, c, SampleType::u8, seed);
            const Image got = bilateral_reference(in, p, 2);
            const std::vector<double> means = brute_force_means(in, p);
            const auto out = got.samples<std::uint8_t>();
            for (std::size_t i = 0; i < means.size(); ++i) {
              const double rounded = std::clamp(std::floor(means[i] + 0.5), 0.0, 255.0);
              // Two double evaluations may round a mean within 1e-9 of a tie either way.
              const bool tie = std::fabs(means[i] - std::floor(means[i]) - 0.5) < 1e-9;
              near_ties += tie;
              ++checked;
              if (tie) {
                ASSERT_LE(std::fabs(out[i] - rounded), 1.0) << "sample " << i;
              } else {
                ASSERT_EQ(out[i], rounded) << "sample " << i << ": exact mean " << means[i];
              }
            }
          }
  std::cout << fmt::format("[ reference ] {} samples equal to the rounded formula ({} within 1e-9 of a tie)\n", checked,
                           near_ties);
}

TEST(BilateralReference, DefaultRadiusIsCeilTwoSigmaCappedAtSixteen) {
  BilateralParams p;
  EXPECT_EQ(bilateral_radius(p), 6);
  p.sigma_spatial = 1.2;
  EXPECT_EQ(bilateral_radius(p), 3);
  p.sigma_spatial = 20;
  EXPECT_EQ(bilateral_radius(p), kMaxBilateralRadius);
  p.radius = 2;
  EXPECT_EQ(bilateral_radius(p), 2);
}

// ---- every variant against the reference ----------------------------------------------------

// The variants allowed to be skipped, and why: local_image where the device has no images, unrolled
// above the radius it is built for.
bool may_skip(const std::string& variant, const BilateralParams& params) {
  if (variant == "unrolled") return bilateral_radius(params) > bilateral_detail::kMaxUnrolledRadius;
  return variant == "local_image" && !test_context().info().image_support;
}

void check_all_variants(const Image& in, const BilateralParams& params, DifferenceLog& log) {
  Context& ctx = test_context();
  DeviceImage d_in = DeviceImage::upload(ctx, in);
  const Image expected = bilateral_reference(in, params);
  for (const auto& v : bilateral_variants()) {
    SCOPED_TRACE(fmt::format("variant={}", v.name));
    if (auto why = bilateral_unsupported(ctx.info(), v.name, params, in.width, in.height, in.channels)) {
      EXPECT_TRUE(may_skip(v.name, params)) << *why;
      continue;
    }
    const Image got = run_device(v.name, d_in, params);
    ASSERT_TRUE(testing::images_equal(expected, got, 1.0));
    if (expected.data.size() >= kMinSamplesForMean) {
      EXPECT_LE(mean_abs_difference(expected, got), kMaxMeanDifference);
    }
    log.add(v.name, expected, got);
  }
}

// Small sizes: the whole matrix (3 sigma pairs x 4 radii x 4 borders x grey and RGBA), every variant.
class BilateralSmall : public ::testing::TestWithParam<SizeCase> {};

TEST_P(BilateralSmall, EveryVariantWithinOneOfTheReference) {
  const SizeCase size = GetParam();
  DifferenceLog log;
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(size.width, size.height, c, SampleType::u8, seed);
    for (const SigmaPair& s : kSigmaPairs)
      for (int radius : kRadii)
        for (const Border& border : kBorders) {
          const BilateralParams params = make_params(s, radius, border);
          SCOPED_TRACE(fmt::format("size={} channels={} {} seed={}", size_name(size), c, describe(params), seed));
          check_all_variants(in, params, log);
        }
  }
  log.print(size_name(size));
}

INSTANTIATE_TEST_SUITE_P(Sizes, BilateralSmall,
                         ::testing::Values(SizeCase{1, 1}, SizeCase{5, 3}, SizeCase{31, 17}, SizeCase{64, 64}),
                         [](const auto& test) { return size_name(test.param); });

// 257x129: every sigma pair and radius, grey and RGBA; the border modes rotate over the combinations
// so each meets every radius, to keep the run time on a 2-core PoCL reasonable.
TEST(BilateralMedium, EveryVariantWithinOneOfTheReference) {
  DifferenceLog log;
  int rotation = 0;
  testing::CaseSample sample(0.5);
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(257, 129, c, SampleType::u8, seed);
    for (const SigmaPair& s : kSigmaPairs)
      for (int radius : kRadii) {
        const BilateralParams params = make_params(s, radius, kBorders[rotation++ % 4]);
        if (!sample.take()) continue;
        SCOPED_TRACE(fmt::format("size=257x129 channels={} {} seed={}", c, describe(params), seed));
        check_all_variants(in, params, log);
      }
  }
  log.print("257x129");
}

// 1024x1024 on a photograph-like input (random noise too), grey and RGBA, two parameter sets. Radius 16
// is left out at this size: a 33x33 window is 1.1 G taps per run, minutes for the reference and the
// seven runs on a 2-core CPU device; radius 16 is covered up to 257x129 above.
TEST(BilateralLarge, EveryVariantWithinOneOfTheReference) {
  DifferenceLog log;
  const std::tuple<int, SigmaPair, int, Border> cases[] = {
      {1, {3, 30}, 6, kBorders[1]},
      {4, {1, 10}, 3, kBorders[3]},
      {4, {5, 80}, 6, kBorders[0]},
  };
  testing::CaseSample sample(0.67);
  for (const auto& [c, s, radius, border] : cases) {
    if (!sample.take()) continue;
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(1024, 1024, c, SampleType::u8, seed);
    const BilateralParams params = make_params(s, radius, border);
    SCOPED_TRACE(fmt::format("size=1024x1024 channels={} {} seed={}", c, describe(params), seed));
    check_all_variants(in, params, log);
  }
  log.print("1024x1024");
}

// ---- degenerate cases ------------------------------------------------------------------------------

Image filled(int w, int h, int c, const std::vector<std::uint8_t>& pixel) {
  Image img(w, h, c);
  auto s = img.samples<std::uint8_t>();
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = pixel[i % std::size_t(c)];
  return img;
}

// `image` is a fixed point of `params`: the reference and every variant that runs it return it unchanged.
void expect_unchanged(const Image& image, const BilateralParams& params) {
  Context& ctx = test_context();
  DeviceImage d_image = DeviceImage::upload(ctx, image);
  EXPECT_TRUE(testing::images_equal(image, bilateral_reference(image, params)));
  for (const auto& v : bilateral_variants()) {
    if (bilateral_unsupported(ctx.info(), v.name, params, image.width, image.height, image.channels)) continue;
    SCOPED_TRACE(v.name);
    EXPECT_TRUE(testing::images_equal(image, run_device(v.name, d_image, params)));
  }
}

TEST(BilateralDegenerate, AConstantImageStaysConstant) {
  const auto seed = testing::fresh_seed();
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  auto random_value = [&] { return static_cast<std::uint8_t>(rng() % 256); };
  for (int c : {1, 4}) {
    std::vector<std::uint8_t> pixel(c);
    for (auto& v : pixel) v = random_value();
    // A constant border holding the image's value cannot change anything either; it has one value for
    // every channel, so that image is grey (alpha still random).
    std::vector<std::uint8_t> grey_pixel(c, pixel[0]);
    if (c == 4) grey_pixel[3] = pixel[3];
    const Border borders[] = {
        {BorderMode::replicate, 0}, {BorderMode::reflect101, 0}, {BorderMode::constant, int(pixel[0])}};
    for (const Border& border : borders) {
      const Image image = filled(23, 14, c, border.mode == BorderMode::constant ? grey_pixel : pixel);
      for (int radius : {1, 6, 16}) {
        const BilateralParams params = make_params({3, 30}, radius, border);
        SCOPED_TRACE(fmt::format("channels={} {} seed={}", c, describe(params), seed));
        expect_unchanged(image, params);
      }
    }
  }
}

// Radius 0: the window is the centre alone, so every variant returns its input.
TEST(BilateralDegenerate, RadiusZeroIsTheIdentity) {
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("channels={} seed={}", c, seed));
    expect_unchanged(testing::random_image(21, 10, c, SampleType::u8, seed),
                     make_params({3, 30}, 0, {BorderMode::constant, 99}));
  }
}

// A vertical step edge 40 | 200 (or two RGBA colours): with a small sigma_range every weight across
// the step vanishes, so the step stays exactly as it was. With a huge sigma_range the same filter
// blurs it, which shows the check can fail.
TEST(BilateralDegenerate, ATinySigmaRangeKeepsAStepEdge) {
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    Image step(40, 12, c);
    auto s = step.samples<std::uint8_t>();
    for (int y = 0; y < step.height; ++y)
      for (int x = 0; x < step.width; ++x)
        for (int ch = 0; ch < c; ++ch) {
          const bool right = x >= 17;
          s[(std::size_t(y) * step.width + x) * c + ch] = static_cast<std::uint8_t>(ch == 3 ? 255
                                                                                    : right ? 200 - 30 * ch
                                                                                            : 40 + 20 * ch);
        }
    DeviceImage d_in = DeviceImage::upload(ctx, step);
    for (double sigma_range : {0.5, 5.0, 15.0}) {
      const BilateralParams params = make_params({4, sigma_range}, 8, {BorderMode::reflect101, 0});
      SCOPED_TRACE(fmt::format("channels={} {}", c, describe(params)));
      expect_unchanged(step, params);
    }
    const BilateralParams wide = make_params({4, 1e5}, 8, {BorderMode::reflect101, 0});
    EXPECT_FALSE(testing::images_equal(step, bilateral_reference(step, wide)));
    EXPECT_FALSE(testing::images_equal(step, run_device("naive", d_in, wide)));
  }
}

// ---- a real photograph and the host API ------------------------------------------------------------

// A real photograph (RGB JPEG) through the host API, every variant, against the reference.
TEST(BilateralPhotograph, EveryVariantWithinOneOfTheReference) {
  Context& ctx = test_context();
  const Image photo = read_image(CLF_DATA_DIR "/astronaut.jpg");
  ASSERT_EQ(photo.channels, 3);
  BilateralParams params;  // defaults: sigma_spatial 3, sigma_range 30, radius 6
  params.border = {BorderMode::reflect101, 0};
  const Image expected = from_filter_layout(bilateral_reference(to_filter_layout(photo), params), 3);
  for (const auto& v : bilateral_variants()) {
    if (bilateral_unsupported(ctx.info(), v.name, params, photo.width, photo.height, 4)) continue;
    SCOPED_TRACE(fmt::format("variant={}", v.name));
    const Image got = bilateral(ctx, photo, params, v.name);
    EXPECT_TRUE(testing::images_equal(expected, got, 1.0));
    EXPECT_LE(mean_abs_difference(expected, got), kMaxMeanDifference);
  }
}

TEST(BilateralHost, RgbMatchesTheReferenceOnRgbaAndGreyAlphaKeepsItsAlpha) {
  Context& ctx = test_context();
  const BilateralParams params = make_params({2, 25}, 4, {BorderMode::reflect101, 0});
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image rgb = testing::random_image(45, 31, 3, SampleType::u8, seed);
  const Image expected_rgb = from_filter_layout(bilateral_reference(to_filter_layout(rgb), params), 3);
  EXPECT_TRUE(testing::images_equal(expected_rgb, bilateral(ctx, rgb, params, "naive"), 1.0));

  const Image grey_alpha = testing::random_image(45, 31, 2, SampleType::u8, seed + 1);
  Image grey(45, 31, 1);
  for (std::size_t i = 0; i < grey.pixel_count(); ++i)
    grey.samples<std::uint8_t>()[i] = grey_alpha.samples<std::uint8_t>()[2 * i];
  const Image expected_grey = bilateral_reference(grey, params);
  const Image got = bilateral(ctx, grey_alpha, params, "range_table");
  ASSERT_EQ(got.channels, 2);
  for (std::size_t i = 0; i < grey.pixel_count(); ++i) {
    ASSERT_LE(std::abs(int(got.samples<std::uint8_t>()[2 * i]) - int(expected_grey.samples<std::uint8_t>()[i])), 1)
        << "pixel " << i;
    ASSERT_EQ(got.samples<std::uint8_t>()[2 * i + 1], grey_alpha.samples<std::uint8_t>()[2 * i + 1]) << "alpha " << i;
  }
}

TEST(BilateralHost, AlphaIsCopied) {
  Context& ctx = test_context();
  const Image in = testing::random_image(19, 11, 4, SampleType::u8, testing::fresh_seed());
  const BilateralParams params = make_params({3, 30}, 3, {BorderMode::constant, 9});
  for (const auto& v : bilateral_variants()) {
    if (bilateral_unsupported(ctx.info(), v.name, params, in.width, in.height, 4)) continue;
    const Image got = bilateral(ctx, in, params, v.name);
    for (std::size_t i = 0; i < in.pixel_count(); ++i)
      ASSERT_EQ(got.samples<std::uint8_t>()[4 * i + 3], in.samples<std::uint8_t>()[4 * i + 3]) << v.name << " " << i;
  }
}

TEST(BilateralHost, TimingIsFilled) {
  Context& ctx = test_context();
  const Image in = testing::random_image(64, 48, 4, SampleType::u8, testing::fresh_seed());
  EXPECT_TRUE(testing::timing_filled([&](Timing* t) { bilateral(ctx, in, BilateralParams{}, "auto", t); }));
}

TEST(BilateralHost, RejectsBadParameters) {
  Context& ctx = test_context();
  const Image in = testing::random_image(8, 8, 1, SampleType::u8, testing::fresh_seed());
  auto with = [](auto change) {
    BilateralParams p;
    change(p);
    return p;
  };
  EXPECT_THROW(bilateral(ctx, in, with([](auto& p) { p.sigma_spatial = -1; })), std::invalid_argument);
  EXPECT_THROW(bilateral(ctx, in, with([](auto& p) { p.sigma_range = 0; })), std::invalid_argument);
  EXPECT_THROW(bilateral(ctx, in, with([](auto& p) { p.sigma_range = std::nan(""); })), std::invalid_argument);
  EXPECT_THROW(bilateral(ctx, in, with([](auto& p) { p.sigma_spatial = INFINITY; })), std::invalid_argument);
  EXPECT_THROW(bilateral(ctx, in, with([](auto& p) { p.radius = kMaxBilateralRadius + 1; })), std::invalid_argument);
  EXPECT_THROW(bilateral(ctx, in, with([](auto& p) { p.radius = -2; })), std::invalid_argument);
  EXPECT_THROW(bilateral(ctx, in, with([](auto& p) {
                           p.border = {BorderMode::constant, 256};
                         })),
               std::invalid_argument);
  EXPECT_THROW(bilateral(ctx, in, BilateralParams{}, "no_such_variant"), std::invalid_argument);
  EXPECT_THROW(bilateral(ctx, testing::random_image(8, 8, 1, SampleType::f32, 1), BilateralParams{}),
               std::invalid_argument);
  EXPECT_THROW(bilateral_reference(in, with([](auto& p) { p.sigma_range = -3; })), std::invalid_argument);
}

TEST(BilateralHost, AutoPicksASupportedVariant) {
  Context& ctx = test_context();
  for (int radius : {0, 1, 6, 16})
    for (int c : {1, 4}) {
      const BilateralParams p = make_params({3, 30}, radius, {});
      const std::string v = bilateral_auto_variant(ctx.info(), p, 640, 480, c);
      EXPECT_FALSE(bilateral_unsupported(ctx.info(), v, p, 640, 480, c)) << v << " radius=" << radius;
    }
}

// The rule without tuning data: unrolled on GPUs where its radius is built, range_table elsewhere.
TEST(BilateralHost, AutoRulePrefersUnrolledOnGpusAndCpuRowsOnCpus) {
  DeviceInfo device = test_context().info();
  const BilateralParams nine = make_params({3, 30}, 4, {}), wide = make_params({3, 30}, 16, {});
  device.type = CL_DEVICE_TYPE_GPU;
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 1), "unrolled");
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 4), "unrolled");
  EXPECT_NE(bilateral_auto_variant(device, wide, 640, 480, 1), "unrolled");  // radius 16 > kMaxUnrolledRadius
  device.type = CL_DEVICE_TYPE_CPU;
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 1), "cpu_rows");
  EXPECT_EQ(bilateral_auto_variant(device, wide, 640, 480, 4), "cpu_rows");
  device.max_alloc_bytes = 4096;  // too small for cpu_rows' ring of rows
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 1), "range_table");
}

// The bilateral filter on views of the caller's buffers with a row pitch and an offset: unrolled (its PITCHED
// build; vector stores where both positions are aligned, scalar ones elsewhere) and cpu_rows read and write them as
// they are, other variants through packed copies; all within 1 of the reference.
class BilateralViews : public testing::ViewTest {};

TEST_P(BilateralViews, WithinOneOfTheReferenceAndLeaveTheRestOfTheBuffer) {
  const testing::ViewCase& c = GetParam();
  // 150 wide: the default 16 x 4 outputs per work-group row leave whole aligned groups for the vector stores.
  const Image in = random_input(150, 19);
  BilateralParams params;
  params.sigma_spatial = 1;
  params.radius = 2;
  params.border = testing::kBorders[seed_ % 4];
  testing::expect_view_call(
      ctx_, in, bilateral_reference(in, params), c.layout,
      [&](const DeviceImage& i, DeviceImage& o) { return bilateral(ctx_, i, o, params, c.variant); }, 1);
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, BilateralViews,
    ::testing::Values(
        // Offsets and pitches of whole 4-pixel groups: the vector stores.
        testing::ViewCase{"unrolled", 1, {8, 160, 4, 156, 0}}, testing::ViewCase{"unrolled", 4, {4, 152, 12, 164, 0}},
        // Off them: the scalar stores; a packed input with a pitched output.
        testing::ViewCase{"unrolled", 4, {3, 151, 1, 157, 0}}, testing::ViewCase{"unrolled", 1, {0, 150, 5, 155, 0}},
        testing::ViewCase{"range_table", 4, {3, 151, 1, 157, 2}},
        // cpu_rows: row pointers from the strides, any layout.
        testing::ViewCase{"cpu_rows", 1, {5, 153, 2, 161, 0}}, testing::ViewCase{"cpu_rows", 4, {3, 151, 1, 157, 0}}),
    testing::view_case_name);

}  // namespace
}  // namespace clf
