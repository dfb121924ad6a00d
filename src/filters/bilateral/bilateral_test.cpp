// Every bilateral variant within 1 of the double-precision reference (docs/SPEC.md), across sizes, sigma
// pairs, radii, borders and channel counts, with the mean absolute difference reported; the reference
// itself is checked against a brute-force evaluation of the formula; the colour range-weight table's
// worst case is measured; constant images and step edges behave as they must.
#include "clfilters/bilateral.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <map>
#include <tuple>

#include "clfilters/image_io.hpp"
#include "common/synthetic_image.hpp"
#include "filters/bilateral/bilateral_internal.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

Context& test_context() {
  static Context ctx;  // $CLFILTERS_DEVICE or the default device
  return ctx;
}

const Border kBorders[] = {
    {BorderMode::replicate, 0}, {BorderMode::reflect101, 0}, {BorderMode::constant, 0}, {BorderMode::constant, 173}};

struct SigmaPair {
  double spatial;
  double range;
};
const SigmaPair kSigmaPairs[] = {{1, 10}, {3, 30}, {5, 80}};
const int kRadii[] = {1, 3, 6, 16};

BilateralParams make_params(SigmaPair s, int radius, Border border) {
  BilateralParams p;
  p.sigma_spatial = s.spatial;
  p.sigma_range = s.range;
  p.radius = radius;
  p.border = border;
  return p;
}

std::string describe(const BilateralParams& p) {
  return fmt::format("sigma_spatial={} sigma_range={} radius={} border={}", p.sigma_spatial, p.sigma_range,
                     bilateral_radius(p), to_string(p.border));
}

// ---- the reference against the formula ------------------------------------------------------------

// Straight from docs/SPEC.md, one exp per tap: the exact (unrounded) weighted mean of every colour sample;
// alpha samples hold the centre's alpha.
std::vector<double> brute_force_means(const Image& in, const BilateralParams& p) {
  const int w = in.width, h = in.height, c = in.channels, r = bilateral_radius(p);
  const int colours = c == 4 ? 3 : 1;
  const auto src = in.samples<std::uint8_t>();
  std::vector<double> means(src.size());
  auto sample = [&](int x, int y, int ch) -> double {
    const int xx = border_index(x, w, p.border.mode), yy = border_index(y, h, p.border.mode);
    return (xx < 0 || yy < 0) ? p.border.value : src[(std::size_t(yy) * w + xx) * c + ch];
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double sum[3] = {0, 0, 0}, wsum = 0;
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
          double dist2 = 0;
          for (int ch = 0; ch < colours; ++ch) dist2 += std::pow(sample(x + dx, y + dy, ch) - sample(x, y, ch), 2);
          const double weight = std::exp(-(dx * dx + dy * dy) / (2 * p.sigma_spatial * p.sigma_spatial) -
                                         dist2 / (2 * p.sigma_range * p.sigma_range));
          for (int ch = 0; ch < colours; ++ch) sum[ch] += weight * sample(x + dx, y + dy, ch);
          wsum += weight;
        }
      const std::size_t at = (std::size_t(y) * w + x) * c;
      for (int ch = 0; ch < colours; ++ch) means[at + ch] = sum[ch] / wsum;
      if (c == 4) means[at + 3] = src[at + 3];
    }
  return means;
}

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

// ---- every variant against the reference ----------------------------------------------------

struct SizeCase {
  int width;
  int height;
};
std::string size_name(const SizeCase& s) {
  return fmt::format("{}x{}", s.width, s.height);
}

// The variants allowed to be skipped, and why: local_image where the device has no images, unrolled
// above the radius it is built for.
bool may_skip(const std::string& variant, const BilateralParams& params) {
  if (variant == "unrolled") return bilateral_radius(params) > bilateral_detail::kMaxUnrolledRadius;
  return variant == "local_image" && !test_context().info().image_support;
}

// Runs `variant` with a poisoned output (so unwritten pixels show) and returns what it wrote.
Image run_device(const std::string& variant, DeviceImage& d_in, const BilateralParams& params,
                 const TuningConfig& config = {}) {
  Context& ctx = test_context();
  Image poisoned(d_in.width, d_in.height, d_in.channels);
  testing::poison(poisoned);
  DeviceImage d_out = DeviceImage::upload(ctx, poisoned);
  bilateral(ctx, d_in, d_out, params, variant, config);
  return d_out.download(ctx);
}

double mean_abs_difference(const Image& a, const Image& b) {
  const auto x = a.samples<std::uint8_t>(), y = b.samples<std::uint8_t>();
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += std::abs(int(x[i]) - int(y[i]));
  return x.empty() ? 0 : sum / double(x.size());
}

// Mean |difference| per variant over everything a test ran, printed at its end.
struct DifferenceLog {
  std::map<std::string, std::pair<double, std::size_t>> by_variant;  // sum of |diff|, samples
  void add(const std::string& variant, const Image& expected, const Image& got) {
    auto& [sum, n] = by_variant[variant];
    sum += mean_abs_difference(expected, got) * double(expected.data.size());
    n += expected.data.size();
  }
  void print(const std::string& what) const {
    for (const auto& [variant, entry] : by_variant)
      std::cout << fmt::format("[ accuracy ] {} {:<12} mean |difference| {:.6f} over {} samples\n", what, variant,
                               entry.second ? entry.first / double(entry.second) : 0.0, entry.second);
  }
};

// Within 1 of the reference at every sample, and the mean difference small: a float kernel only lands
// on the other side of a rounding tie now and then. The mean is only meaningful over many samples: on a
// 1x1 RGBA image one tie already makes it 0.25.
constexpr double kMaxMeanDifference = 0.05;
constexpr std::size_t kMinSamplesForMean = 1000;

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
                         [](const auto& info) { return size_name(info.param); });

// 257x129: every sigma pair and radius, grey and RGBA; the border modes rotate over the combinations
// so each meets every radius, to keep the run time on a 2-core PoCL reasonable.
TEST(BilateralMedium, EveryVariantWithinOneOfTheReference) {
  DifferenceLog log;
  int rotation = 0;
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(257, 129, c, SampleType::u8, seed);
    for (const SigmaPair& s : kSigmaPairs)
      for (int radius : kRadii) {
        const BilateralParams params = make_params(s, radius, kBorders[rotation++ % 4]);
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
  for (const auto& [c, s, radius, border] : cases) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(1024, 1024, c, SampleType::u8, seed);
    const BilateralParams params = make_params(s, radius, border);
    SCOPED_TRACE(fmt::format("size=1024x1024 channels={} {} seed={}", c, describe(params), seed));
    check_all_variants(in, params, log);
  }
  log.print("1024x1024");
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
  for (const Run& run : runs) {
    const auto seed = testing::fresh_seed();
    const BilateralParams params = make_params(run.sigma, run.radius, kBorders[rotation % std::size(kBorders)]);
    const Image in = rotation++ % 2 ? testing::random_image(run.width, run.height, run.channels, SampleType::u8, seed)
                                    : synthetic_photo(run.width, run.height, run.channels, seed);
    SCOPED_TRACE(fmt::format("{}x{}x{} {} [{}] seed={}", run.width, run.height, run.channels, describe(params),
                             to_string(run.shape), seed));
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
  for (const auto [c, soft_exp, table_taps, int_exp] :
       {Split{1, 0, 0, 0}, Split{1, 16, 0, 0}, Split{1, 0, 16, 0}, Split{1, 4, 6, 0}, Split{4, 0, 0, 0},
        Split{4, 16, 0, 0}, Split{4, 0, 0, 1}}) {
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

// ---- degenerate cases ------------------------------------------------------------------------------

Image filled(int w, int h, int c, const std::vector<std::uint8_t>& pixel) {
  Image img(w, h, c);
  auto s = img.samples<std::uint8_t>();
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = pixel[i % std::size_t(c)];
  return img;
}

TEST(BilateralDegenerate, AConstantImageStaysConstant) {
  Context& ctx = test_context();
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
      DeviceImage d_image = DeviceImage::upload(ctx, image);
      for (int radius : {1, 6, 16}) {
        const BilateralParams params = make_params({3, 30}, radius, border);
        SCOPED_TRACE(fmt::format("channels={} {} seed={}", c, describe(params), seed));
        EXPECT_TRUE(testing::images_equal(image, bilateral_reference(image, params)));
        for (const auto& v : bilateral_variants()) {
          if (bilateral_unsupported(ctx.info(), v.name, params, image.width, image.height, c)) continue;
          SCOPED_TRACE(v.name);
          EXPECT_TRUE(testing::images_equal(image, run_device(v.name, d_image, params)));
        }
      }
    }
  }
}

// Radius 0: the window is the centre alone, so every variant returns its input.
TEST(BilateralDegenerate, RadiusZeroIsTheIdentity) {
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(21, 10, c, SampleType::u8, seed);
    DeviceImage d_in = DeviceImage::upload(ctx, in);
    const BilateralParams params = make_params({3, 30}, 0, {BorderMode::constant, 99});
    SCOPED_TRACE(fmt::format("channels={} seed={}", c, seed));
    EXPECT_TRUE(testing::images_equal(in, bilateral_reference(in, params)));
    for (const auto& v : bilateral_variants()) {
      if (bilateral_unsupported(ctx.info(), v.name, params, in.width, in.height, c)) continue;
      SCOPED_TRACE(v.name);
      EXPECT_TRUE(testing::images_equal(in, run_device(v.name, d_in, params)));
    }
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
      EXPECT_TRUE(testing::images_equal(step, bilateral_reference(step, params)));
      for (const auto& v : bilateral_variants()) {
        if (bilateral_unsupported(ctx.info(), v.name, params, step.width, step.height, c)) continue;
        SCOPED_TRACE(v.name);
        EXPECT_TRUE(testing::images_equal(step, run_device(v.name, d_in, params)));
      }
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
  Timing t;
  bilateral(ctx, in, BilateralParams{}, "auto", &t);
  EXPECT_GT(t.kernel_ms, 0.0);
  EXPECT_GE(t.total_ms, t.kernel_ms);
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
TEST(BilateralHost, AutoRulePrefersUnrolledOnGpus) {
  DeviceInfo device = test_context().info();
  const BilateralParams nine = make_params({3, 30}, 4, {}), wide = make_params({3, 30}, 16, {});
  device.type = CL_DEVICE_TYPE_GPU;
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 1), "unrolled");
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 4), "unrolled");
  EXPECT_NE(bilateral_auto_variant(device, wide, 640, 480, 1), "unrolled");  // radius 16 > kMaxUnrolledRadius
  device.type = CL_DEVICE_TYPE_CPU;
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 1), "range_table");
}

}  // namespace
}  // namespace clf
