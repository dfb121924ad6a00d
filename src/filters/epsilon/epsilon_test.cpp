// SPDX-License-Identifier: Apache-2.0
// Every epsilon variant, bit-exact against the CPU reference, across sizes, radii, thresholds, borders
// and channel counts; the reference itself is checked against a brute-force version written straight
// from docs/SPEC.md, and the degenerate thresholds against independent answers.
#include "clfilters/epsilon.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <tuple>

#include "clfilters/box_blur.hpp"
#include "filters/epsilon/epsilon_brute_force.hpp"
#include "testing/test_images.hpp"
#include "testing/view_check.hpp"

namespace clf {
namespace {

using testing::size_name;
using testing::SizeCase;
using testing::test_context;

// The three modes; the constant is not 0, so a kernel that ignores it shows.
const Border kBorders[] = {{BorderMode::replicate, 0}, {BorderMode::reflect101, 0}, {BorderMode::constant, 173}};

EpsilonParams make_params(int radius, int threshold, Border border) {
  EpsilonParams p;
  p.radius = radius;
  p.threshold = threshold;
  p.border = border;
  return p;
}

std::string describe(const EpsilonParams& p) {
  return fmt::format("r={} T={} border={}", p.radius, p.threshold, to_string(p.border));
}

// Random samples; in every other 8x8 block they are squeezed into 100..140, so that for the small
// thresholds many neighbours land exactly at, just inside and just outside |p - c| = T.
Image test_input(int width, int height, int channels, std::uint64_t seed) {
  Image img = testing::random_image(width, height, channels, SampleType::u8, seed);
  auto s = img.samples<std::uint8_t>();
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      if (((x / 8) + (y / 8)) % 2 == 1)
        for (int ch = 0; ch < channels; ++ch) {
          auto& v = s[(std::size_t(y) * width + x) * channels + ch];
          v = std::uint8_t(100 + v % 41);
        }
  return img;
}

// ---- the reference ---------------------------------------------------------------------------------

TEST(EpsilonReference, MatchesBruteForce) {
  for (auto [w, h] : {std::pair{1, 1}, {1, 7}, {7, 1}, {13, 17}, {20, 9}})
    for (int r : {1, 2, 4, 7, 16})  // 16: a window far wider than the image
      for (int T : {0, 1, 20, 255})
        for (const Border& border : kBorders)
          for (int c : {1, 4}) {
            const auto seed = testing::fresh_seed();
            const EpsilonParams p = make_params(r, T, border);
            SCOPED_TRACE(fmt::format("{}x{}x{} {} seed={}", w, h, c, describe(p), seed));
            const Image in = test_input(w, h, c, seed);
            ASSERT_TRUE(
                testing::images_equal(testing::epsilon_brute_force<std::uint8_t>(in, p), epsilon_reference(in, p, 2)));
          }
}

TEST(EpsilonReference, HandComputedRowRoundsHalfUp) {
  // One row [10 30 31], r = 1, T = 1, replicate: every window is 3 copies of the row's 3 columns.
  // x=0: c=10, only the 10s qualify (6 of them): 10. x=1: c=30, 30 and 31 qualify 3 times each:
  // 183 / 6 = 30.5, rounded up to 31. x=2: c=31, all 9 qualify: (30 + 31 + 31) * 3 = 276, 276 / 9 = 30.67: 31.
  Image in(3, 1, 1);
  in.data = {10, 30, 31};
  const Image out = epsilon_reference(in, make_params(1, 1, {BorderMode::replicate, 0}));
  EXPECT_EQ(out.data, (ImageBytes{10, 31, 31}));
}

// The box blur of diameter 2r+1 on every channel, then alpha put back (the box blur blurs it,
// epsilon copies it).
Image box_blur_with_alpha_copied(const Image& in, int r, Border border) {
  Image out = box_blur_reference(in, {2 * r + 1, border});
  if (in.channels == 4)
    for (std::size_t i = 3; i < in.data.size(); i += 4) out.data[i] = in.data[i];
  return out;
}

// With T = 255 every pixel qualifies, so the filter is a box blur of diameter 2r+1 (whose window is
// centred for odd diameters), computed independently by the box blur's reference.
TEST(EpsilonReference, MaxThresholdIsTheBoxBlur) {
  for (int r : {1, 2, 4, 9})
    for (const Border& border : kBorders)
      for (int c : {1, 4}) {
        const auto seed = testing::fresh_seed();
        SCOPED_TRACE(fmt::format("c={} r={} border={} seed={}", c, r, to_string(border), seed));
        const Image in = test_input(41, 23, c, seed);
        EXPECT_TRUE(testing::images_equal(box_blur_with_alpha_copied(in, r, border),
                                          epsilon_reference(in, make_params(r, 255, border))));
      }
}

// With T = 0 only pixels equal to the centre count, and their mean is the centre: the input comes back.
TEST(EpsilonReference, ZeroThresholdIsTheIdentity) {
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("c={} seed={}", c, seed));
    const Image in = test_input(33, 19, c, seed);
    for (const Border& border : kBorders)
      EXPECT_TRUE(testing::images_equal(in, epsilon_reference(in, make_params(3, 0, border))));
  }
}

// ---- every variant against the reference ---------------------------------------------------------

// Inputs are drawn once per size and channel count per run (fresh seeds) and references computed once
// per parameter set, then shared by every variant.
struct Problem {
  Image input;
  std::uint64_t seed;
  std::map<std::tuple<int, int, int, int>, Image> expected;  // (r, T, mode, value) -> reference
};

Problem& problem(SizeCase size, int channels) {
  static std::map<std::tuple<int, int, int>, Problem> problems;
  auto [it, added] = problems.try_emplace({size.width, size.height, channels});
  if (added) {
    it->second.seed = testing::fresh_seed();
    it->second.input = test_input(size.width, size.height, channels, it->second.seed);
  }
  return it->second;
}

const Image& expected_output(Problem& pb, const EpsilonParams& p) {
  const auto key = std::make_tuple(p.radius, p.threshold, int(p.border.mode), p.border.value);
  auto it = pb.expected.find(key);
  if (it == pb.expected.end()) it = pb.expected.emplace(key, epsilon_reference(pb.input, p)).first;
  return it->second;
}

// The only reasons a variant may be skipped, each a declared device limitation.
bool skip_is_declared(const DeviceInfo& device, const std::string& variant, const std::string& why) {
  if (variant == "naive") return !device.image_support || why.find("2D images go up to") != std::string::npos;
  if (variant == "packed_half" || variant == "vec4_half")
    return !device.has_fp16() && why.find("cl_khr_fp16") != std::string::npos;
  if (variant == "local" || variant == "regblock")
    return why.find("local memory") != std::string::npos || why.find("work-items") != std::string::npos;
  return false;
}

// Runs `variant` into a poisoned output (so unwritten pixels show) and returns what it wrote.
Image run_device(const std::string& variant, const DeviceImage& d_in, const EpsilonParams& params,
                 const TuningConfig& config = {}) {
  Context& ctx = test_context();
  return testing::run_poisoned(ctx, d_in, [&](DeviceImage& out) { epsilon(ctx, d_in, out, params, variant, config); });
}

// Runs `variant` on the shared input for each parameter set and channel count; poisoned outputs show
// unwritten pixels; a skip must be one of the declared reasons.
void check_variant(const std::string& variant, SizeCase size, const std::vector<int>& radii,
                   const std::vector<int>& thresholds, const std::vector<Border>& borders,
                   const std::vector<int>& channel_counts) {
  Context& ctx = test_context();
  for (int c : channel_counts) {
    Problem& pb = problem(size, c);
    DeviceImage d_in = DeviceImage::upload(ctx, pb.input);
    for (int r : radii)
      for (int T : thresholds)
        for (const Border& border : borders) {
          const EpsilonParams params = make_params(r, T, border);
          SCOPED_TRACE(fmt::format("variant={} size={} channels={} {} seed={}", variant, size_name(size), c,
                                   describe(params), pb.seed));
          if (auto why = epsilon_unsupported(ctx.info(), variant, params, size.width, size.height, c)) {
            EXPECT_TRUE(skip_is_declared(ctx.info(), variant, *why)) << *why;
            continue;
          }
          ASSERT_TRUE(testing::images_equal(expected_output(pb, params), run_device(variant, d_in, params)));
        }
  }
}

const std::vector<int> kRadii = {1, 2, 4};
const std::vector<int> kThresholds = {0, 1, 20, 255};
const std::vector<Border> kAllBorders(std::begin(kBorders), std::end(kBorders));

class EpsilonVariant : public ::testing::TestWithParam<std::tuple<std::string, SizeCase>> {};

TEST_P(EpsilonVariant, BitExactAgainstReference) {
  const auto& [variant, size] = GetParam();
  check_variant(variant, size, kRadii, kThresholds, kAllBorders, {1, 4});
  // The largest radii, with windows wider than the smaller images (reflect101 reflects many times).
  if (size.width * size.height <= 64 * 48) check_variant(variant, size, {16, 32}, {20}, kAllBorders, {1, 4});
}

INSTANTIATE_TEST_SUITE_P(Sizes, EpsilonVariant,
                         ::testing::Combine(::testing::ValuesIn(testing::variant_names(epsilon_variants())),
                                            ::testing::Values(SizeCase{1, 1}, SizeCase{3, 5}, SizeCase{17, 13},
                                                              SizeCase{64, 48}, SizeCase{257, 129})),
                         [](const auto& test) {
                           return fmt::format("{}_{}", std::get<0>(test.param), size_name(std::get<1>(test.param)));
                         });

// 1920x1080: every variant, but not the full cross product of radius, threshold, border and channels
// (72 full-HD runs and references per variant: many minutes on a 2-core PoCL, where ctest runs each
// test in its own process and so recomputes the references). Four runs per variant instead, chosen
// so that every radius, threshold, border mode and channel count meets full HD at least once; the
// smaller sizes above run the full product.
class EpsilonFullHd : public ::testing::TestWithParam<std::string> {};

TEST_P(EpsilonFullHd, BitExactAgainstReference) {
  const std::string& variant = GetParam();
  const std::tuple<int, int, Border, int> runs[] = {
      {4, 20, kBorders[0], 1}, {2, 1, kBorders[1], 4}, {1, 255, kBorders[2], 1}, {4, 0, kBorders[2], 4}};
  for (const auto& [r, T, border, c] : runs) check_variant(variant, {1920, 1080}, {r}, {T}, {border}, {c});
}

INSTANTIATE_TEST_SUITE_P(FullHd, EpsilonFullHd, ::testing::ValuesIn(testing::variant_names(epsilon_variants())),
                         [](const auto& test) { return test.param; });

// ---- degenerate thresholds on the device -----------------------------------------------------------

// Every variant that runs `p` on `d_in` writes `expected` into a poisoned output (the caller's trace names the case).
void expect_every_variant_writes(const Image& expected, const DeviceImage& d_in, const EpsilonParams& p) {
  Context& ctx = test_context();
  for (const auto& v : epsilon_variants()) {
    if (epsilon_unsupported(ctx.info(), v.name, p, expected.width, expected.height, expected.channels)) continue;
    SCOPED_TRACE(v.name);
    EXPECT_TRUE(testing::images_equal(expected, run_device(v.name, d_in, p)));
  }
}

// T = 0 on an image whose windows hold no pixel equal to its centre (x + 9y is distinct within any
// 9x9 window, modulo 256) returns the input from every variant, whatever the border.
TEST(EpsilonDegenerate, ZeroThresholdOnDistinctNeighboursReturnsTheInput) {
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    Image in(45, 27, c);
    const auto offset = testing::fresh_seed() % 256;
    for (int y = 0; y < in.height; ++y)
      for (int x = 0; x < in.width; ++x)
        for (int ch = 0; ch < c; ++ch)
          in.data[(std::size_t(y) * in.width + x) * c + ch] = std::uint8_t(offset + x + 9 * y + 50 * ch);
    const DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (const Border& border : kBorders) {
      const EpsilonParams p = make_params(4, 0, border);
      SCOPED_TRACE(fmt::format("channels={} {} offset={}", c, describe(p), offset));
      expect_every_variant_writes(in, d_in, p);
    }
  }
}

// Windows whose sums of p - c reach the largest values a threshold allows: isolated pixels 25 below (left
// half) or above (right half) a flat field, one per 9x9 cell, so 80 neighbours differ by exactly 25 and
// the sum of differences is +-2000. regblock's f16x2 form (NVIDIA) is exact up to 2048 and is used for
// T <= 25 at r = 4 (81 T <= 2048), form 2 above: T = 24, 25, 26 cover both sides and the boundary.
TEST(EpsilonDegenerate, NeighboursAllAtTheThresholdNearTheF16Bound) {
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    Image in = test_input(67, 45, c, seed);  // random samples stay in the bottom rows
    const int ox = int(seed % 9), oy = int((seed / 9) % 9);
    for (int y = 0; y < 36; ++y)
      for (int x = 0; x < in.width; ++x)
        for (int ch = 0; ch < c; ++ch) {
          const bool left = x < in.width / 2, isolated = x % 9 == ox && y % 9 == oy;
          in.data[(std::size_t(y) * in.width + x) * c + ch] = std::uint8_t(left == isolated ? 125 : 100);
        }
    const DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (int T : {24, 25, 26})
      for (const Border& border : {kBorders[0], kBorders[2]}) {
        const EpsilonParams p = make_params(4, T, border);
        SCOPED_TRACE(fmt::format("channels={} {} seed={}", c, describe(p), seed));
        expect_every_variant_writes(epsilon_reference(in, p), d_in, p);
      }
  }
}

// T = 255 from every variant equals the box blur's reference with diameter 2r+1.
TEST(EpsilonDegenerate, MaxThresholdEqualsBoxBlurOnEveryVariant) {
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image in = test_input(53, 31, c, seed);
    const DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (int r : {1, 4})
      for (const Border& border : kBorders) {
        const EpsilonParams p = make_params(r, 255, border);
        SCOPED_TRACE(fmt::format("channels={} {} seed={}", c, describe(p), seed));
        expect_every_variant_writes(box_blur_with_alpha_copied(in, r, border), d_in, p);
      }
  }
}

// ---- tunables ------------------------------------------------------------------------------------

// The defaults, then each value of each tunable with the others at their defaults (work-group shapes,
// the local variant's 8x16, 8x24, 8x32 and 16-wide groups), on an odd size in RGBA, with a radius that
// makes the halo larger than a work-group. filter_spec_test runs the full product on grey (r = 4);
// more here would cost minutes on a cold PoCL, which compiles each kernel anew per work-group size.
std::vector<TuningConfig> one_change_configs(const VariantInfo& v) {
  std::vector<TuningConfig> configs{{}};
  for (const auto& t : v.tunables)
    for (std::size_t i = 1; i < t.values.size(); ++i) configs.push_back({{t.name, t.values[i]}});
  return configs;
}

TEST(EpsilonTunables, EachTunableValueIsExactOrRefused) {
  Context& ctx = test_context();
  for (int c : {4}) {
    const auto seed = testing::fresh_seed();
    const Image in = test_input(83, 37, c, seed);
    const DeviceImage d_in = DeviceImage::upload(ctx, in);
    const EpsilonParams p = make_params(9, 20, kBorders[1]);
    const Image expected = epsilon_reference(in, p);
    testing::CaseSample sample(0.5, seed);
    for (const auto& v : epsilon_variants())
      for (const auto& config : one_change_configs(v)) {
        SCOPED_TRACE(fmt::format("variant={} [{}] channels={} seed={}", v.name, to_string(config), c, seed));
        if (epsilon_unsupported(ctx.info(), v.name, p, in.width, in.height, c, config) || !sample.take()) continue;
        ASSERT_TRUE(testing::images_equal(expected, run_device(v.name, d_in, p, config)));
      }
  }
}

// cpu_rows at its edges: one output row a band (16 bands per compute unit and 16 rows), widths that leave a
// partial 16-wide step (1, 15, 33), radii wider than the image, every border, thresholds 0, 255 and one between;
// grey and RGBA, one build each.
TEST(EpsilonCpuRows, BandsPartialStepsAndWideWindowsMatchTheReference) {
  Context& ctx = test_context();
  const auto seed = testing::fresh_seed();
  for (int c : {1, 4})
    for (const auto& [w, h] : {std::pair{1, 16}, {15, 16}, {33, 5}})
      for (int bands_per_unit : {16, 2}) {
        const Image in = test_input(w, h, c, seed + std::uint64_t(w));
        const DeviceImage d_in = DeviceImage::upload(ctx, in);
        const TuningConfig config{{"bands_per_unit", bands_per_unit}};
        for (int r : {1, 4, 20})
          for (const Border& border : testing::kBorders)
            for (int T : {0, 255, int(seed % 40)}) {
              const EpsilonParams p = make_params(r, T, border);
              SCOPED_TRACE(fmt::format("{}x{} channels={} bands_per_unit={} {} seed={}", w, h, c, bands_per_unit,
                                       describe(p), seed));
              ASSERT_FALSE(epsilon_unsupported(ctx.info(), "cpu_rows", p, w, h, c, config));
              ASSERT_TRUE(testing::images_equal(epsilon_reference(in, p), run_device("cpu_rows", d_in, p, config)));
            }
      }
}

// Bright windows (240..255, T = 255): 16-bit sums of more than 257 taps would wrap, so radius 8 (289 taps) and
// 32 show a missing or late move of the row sums to 32 bits; radius 7 (225 taps) keeps them in 16 bits throughout.
TEST(EpsilonCpuRows, BrightWideWindowsKeepExactSums) {
  Context& ctx = test_context();
  const auto seed = testing::fresh_seed();
  for (int c : {1, 4}) {
    Image in = testing::random_image(40, 9, c, SampleType::u8, seed);
    for (auto& v : in.samples<std::uint8_t>()) v = std::uint8_t(240 + v % 16);
    const DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (int r : {7, 8, 32}) {
      const EpsilonParams p = make_params(r, 255, kBorders[1]);
      SCOPED_TRACE(fmt::format("channels={} {} seed={}", c, describe(p), seed));
      ASSERT_TRUE(testing::images_equal(epsilon_reference(in, p), run_device("cpu_rows", d_in, p)));
    }
  }
}

// ---- host API: channel layouts, parameter checks, auto ---------------------------------------------

TEST(EpsilonHost, RgbAndGreyAlphaMatchTheReference) {
  Context& ctx = test_context();
  const EpsilonParams p = make_params(3, 20, kBorders[1]);
  auto resolved = [&](const std::string& v, int c) {
    return v == "auto" ? epsilon_auto_variant(ctx.info(), p, 45, 31, c) : v;
  };
  for (const std::string variant : {"auto", "naive", "vec8"}) {
    {  // RGB runs as RGBA with alpha 255 and comes back as RGB
      const auto seed = testing::fresh_seed();
      SCOPED_TRACE(fmt::format("RGB variant={} seed={}", variant, seed));
      const Image in = test_input(45, 31, 3, seed);
      const Image expected = from_filter_layout(epsilon_reference(to_filter_layout(in), p), 3);
      if (!epsilon_unsupported(ctx.info(), resolved(variant, 4), p, 45, 31, 4)) {
        EXPECT_TRUE(testing::images_equal(expected, epsilon(ctx, in, p, variant)));
      }
    }
    {  // grey + alpha: the grey plane is filtered, alpha kept
      const auto seed = testing::fresh_seed();
      SCOPED_TRACE(fmt::format("grey+alpha variant={} seed={}", variant, seed));
      const Image in = test_input(45, 31, 2, seed);
      Image grey(45, 31, 1);
      for (std::size_t i = 0; i < grey.pixel_count(); ++i) grey.data[i] = in.data[2 * i];
      const Image filtered = epsilon_reference(grey, p);
      Image expected = in;
      for (std::size_t i = 0; i < grey.pixel_count(); ++i) expected.data[2 * i] = filtered.data[i];
      if (!epsilon_unsupported(ctx.info(), resolved(variant, 1), p, 45, 31, 1)) {
        EXPECT_TRUE(testing::images_equal(expected, epsilon(ctx, in, p, variant)));
      }
    }
  }
}

TEST(EpsilonHost, DefaultsAreTheSpecs) {
  const EpsilonParams p;
  EXPECT_EQ(p.radius, 4);
  EXPECT_EQ(p.threshold, 20);
  EXPECT_EQ(p.border.mode, BorderMode::replicate);
}

TEST(EpsilonHost, TimingIsFilled) {
  Context& ctx = test_context();
  const Image in = test_input(64, 48, 1, testing::fresh_seed());
  EXPECT_TRUE(testing::timing_filled([&](Timing* t) { epsilon(ctx, in, EpsilonParams{}, "auto", t); }));
}

TEST(EpsilonHost, RejectsBadParametersAndImages) {
  Context& ctx = test_context();
  const Image in = test_input(8, 8, 1, testing::fresh_seed());
  EXPECT_THROW(epsilon(ctx, in, make_params(0, 20, {})), std::invalid_argument);
  EXPECT_THROW(epsilon(ctx, in, make_params(kMaxEpsilonRadius + 1, 20, {})), std::invalid_argument);
  EXPECT_THROW(epsilon(ctx, in, make_params(4, -1, {})), std::invalid_argument);
  EXPECT_THROW(epsilon(ctx, in, make_params(4, 256, {})), std::invalid_argument);
  EXPECT_THROW(epsilon(ctx, in, make_params(4, 20, {BorderMode::constant, 256})), std::invalid_argument);
  EXPECT_THROW(epsilon(ctx, in, EpsilonParams{}, "no_such_variant"), std::invalid_argument);
  EXPECT_THROW(epsilon(ctx, testing::random_image(8, 8, 1, SampleType::f32, 1), EpsilonParams{}),
               std::invalid_argument);
  EXPECT_THROW(epsilon(ctx, Image(0, 0, 1), EpsilonParams{}), std::invalid_argument);
  // Device API: sizes must match and the output must not be the input.
  DeviceImage a = DeviceImage::upload(ctx, in);
  DeviceImage b = DeviceImage::allocate(ctx, 8, 7, 1);
  EXPECT_THROW(epsilon(ctx, a, b, EpsilonParams{}), std::invalid_argument);
  EXPECT_THROW(epsilon(ctx, a, a, EpsilonParams{}), std::invalid_argument);
  DeviceImage three_in = DeviceImage::allocate(ctx, 8, 8, 1), three_out = DeviceImage::allocate(ctx, 8, 8, 1);
  three_in.channels = three_out.channels = 3;
  EXPECT_THROW(epsilon(ctx, three_in, three_out, EpsilonParams{}), std::invalid_argument);
}

TEST(EpsilonHost, AutoPicksASupportedVariant) {
  Context& ctx = test_context();
  for (int r : {1, 4, 16, 32})
    for (int c : {1, 4}) {
      const EpsilonParams p = make_params(r, 20, {});
      const std::string v = epsilon_auto_variant(ctx.info(), p, 640, 480, c);
      EXPECT_FALSE(epsilon_unsupported(ctx.info(), v, p, 640, 480, c)) << v << " r=" << r;
    }
}

// The rule without tuning data: cpu_rows on CPUs where its temporary fits, regblock on GPUs where its tile fits,
// else vec4_branchless.
TEST(EpsilonHost, AutoRulePicksCpuRowsOnCpusAndRegblockOnGpus) {
  DeviceInfo device = test_context().info();
  device.local_mem_bytes = 48 * 1024;
  const EpsilonParams nine = make_params(4, 20, {}), wide = make_params(32, 20, {});
  device.type = CL_DEVICE_TYPE_CPU;
  EXPECT_EQ(epsilon_auto_variant(device, nine, 640, 480, 1), "cpu_rows");
  EXPECT_EQ(epsilon_auto_variant(device, wide, 640, 480, 4), "cpu_rows");
  device.max_alloc_bytes = 4096;  // too small for cpu_rows' ring of rows
  EXPECT_EQ(epsilon_auto_variant(device, nine, 640, 480, 1), "vec4_branchless");
  EXPECT_NE(epsilon_unsupported(device, "cpu_rows", nine, 640, 480, 1).value_or("").find("allocation limit"),
            std::string::npos);
  device.type = CL_DEVICE_TYPE_GPU;
  EXPECT_EQ(epsilon_auto_variant(device, nine, 640, 480, 1), "regblock");
  device.local_mem_bytes = 1024;
  EXPECT_EQ(epsilon_auto_variant(device, nine, 640, 480, 1), "vec4_branchless");
}

TEST(EpsilonHost, UnsupportedNamesTheReason) {
  const DeviceInfo& device = test_context().info();
  DeviceInfo bare = device;
  bare.image_support = false;
  bare.extensions = "";
  const EpsilonParams p;
  EXPECT_NE(epsilon_unsupported(bare, "naive", p, 64, 64, 1).value_or("").find("image"), std::string::npos);
  EXPECT_NE(epsilon_unsupported(bare, "packed_half", p, 64, 64, 1).value_or("").find("cl_khr_fp16"), std::string::npos);
  EXPECT_NE(epsilon_unsupported(bare, "vec4_half", p, 64, 64, 4).value_or("").find("cl_khr_fp16"), std::string::npos);
  bare.local_mem_bytes = 1024;
  EXPECT_NE(epsilon_unsupported(bare, "local", p, 64, 64, 4).value_or("").find("local memory"), std::string::npos);
  EXPECT_NE(epsilon_unsupported(bare, "regblock", p, 64, 64, 1).value_or("").find("local memory"), std::string::npos);
  EXPECT_TRUE(epsilon_unsupported(bare, "no_such_variant", p, 64, 64, 1).has_value());
  for (const char* plain : {"packed", "vec4", "vec8", "vec16", "vec4_branchless", "vec8_branchless"})
    EXPECT_FALSE(epsilon_unsupported(bare, plain, p, 64, 64, 4)) << plain;
}

// Epsilon on views of the caller's buffers with a row pitch and an offset: regblock (its PITCHED build) and
// cpu_rows read and write them as they are, other variants through packed copies; all against the CPU reference.
class EpsilonViews : public testing::ViewTest {};

TEST_P(EpsilonViews, MatchTheReferenceAndLeaveTheRestOfTheBuffer) {
  const testing::ViewCase& c = GetParam();
  const Image in = random_input(37, 29);
  const EpsilonParams params{.radius = 2, .threshold = int(seed_ % 64), .border = testing::kBorders[seed_ % 4]};
  testing::expect_view_call(
      ctx_, in, epsilon_reference(in, params), c.layout,
      [&](const DeviceImage& i, DeviceImage& o) { return epsilon(ctx_, i, o, params, c.variant); });
}

INSTANTIATE_TEST_SUITE_P(Layouts, EpsilonViews,
                         ::testing::Values(testing::ViewCase{"regblock", 1, {3, 41, 5, 45, 0}},
                                           testing::ViewCase{"regblock", 4, {1, 39, 7, 40, 0}},
                                           testing::ViewCase{
                                               "regblock", 4, {0, 37, 2, 43, 0}},  // packed input, pitched output
                                           testing::ViewCase{"vec4_branchless", 1, {3, 41, 5, 45, 2}},
                                           testing::ViewCase{"cpu_rows", 1, {3, 41, 5, 45, 0}},
                                           testing::ViewCase{"cpu_rows", 4, {1, 39, 7, 40, 0}}),
                         testing::view_case_name);

}  // namespace
}  // namespace clf
