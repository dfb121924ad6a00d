// SPDX-License-Identifier: Apache-2.0
// The bilateral filter on 16-bit samples: the reference against a brute-force evaluation of the formula, every
// variant that takes u16 within 1 (in 16-bit units) of it for small and large sigma_range, full-contrast edges,
// every border (a constant above 255), both windows and distances, odd sizes and windows wider than the image;
// the host call with 1 to 4 channels, a pitched and offset view, the refusals of 8-bit-only variants, and auto.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>

#include "clfilters/bilateral.hpp"
#include "common/synthetic_image.hpp"
#include "filters/bilateral/bilateral_internal.hpp"
#include "filters/bilateral/bilateral_test_helpers.hpp"
#include "testing/callers_buffer.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using namespace bilateral_testing;

// sigma_range in 16-bit units: 8-bit's 5 and 60 scaled by 256, and one where only near values count.
const SigmaPair kU16Sigmas[] = {{1, 256 * 5}, {3, 256 * 60}, {2, 300}};
// Every border mode; the constant at 0 and at a value no 8-bit sample has.
const Border kU16Borders[] = {
    {BorderMode::replicate, 0}, {BorderMode::reflect101, 0}, {BorderMode::constant, 0}, {BorderMode::constant, 40000}};

Image random_u16(int w, int h, int c, std::uint64_t seed) {
  return testing::random_image(w, h, c, SampleType::u16, seed);
}

// Full contrast: a vertical step from 0 to 65535 (RGBA: channels apart), a run of each extreme, and noise.
Image u16_edges(int w, int h, int c, std::uint64_t seed) {
  Image img = random_u16(w, h, c, seed);
  auto s = img.samples<std::uint16_t>();
  std::mt19937_64 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int ch = 0; ch < c; ++ch) {
        const std::size_t at = (std::size_t(y) * w + x) * c + ch;
        const bool right = x >= w / 2;
        if (y % 4 != 3) s[at] = std::uint16_t((right != (ch == 1)) ? 65535 - (rng() % 4) : rng() % 4);
      }
  return img;
}

// ---- the reference --------------------------------------------------------------------------------

TEST(BilateralU16Reference, MatchesTheFormulaEvaluatedByBruteForce) {
  std::size_t checked = 0;
  for (auto [w, h] : {std::pair{1, 1}, {5, 3}, {11, 7}})
    for (const SigmaPair& s : kU16Sigmas)
      for (int radius : {0, 2, 5})
        for (const Border& border : kU16Borders)
          for (int c : {1, 4})
            for (auto window : {BilateralWindow::square, BilateralWindow::disk})
              for (auto distance : {BilateralDistance::l2, BilateralDistance::l1}) {
                if (c == 1 && distance == BilateralDistance::l1) continue;  // grey: both are |p - c|
                const auto seed = testing::fresh_seed();
                BilateralParams p = make_params(s, radius, border);
                p.window = window;
                p.distance = distance;
                SCOPED_TRACE(fmt::format("{}x{}x{} {} {} {} seed={}", w, h, c, describe(p), to_string(window),
                                         to_string(distance), seed));
                const Image in = seed % 2 ? random_u16(w, h, c, seed) : u16_edges(w, h, c, seed);
                const Image got = bilateral_reference(in, p, 2);
                ASSERT_EQ(got.type, SampleType::u16);
                const std::vector<double> means = brute_force_means(in, p);
                for (std::size_t i = 0; i < means.size(); ++i) {
                  // Two double evaluations may round a mean within 1e-7 of a tie either way.
                  if (std::fabs(means[i] - std::floor(means[i]) - 0.5) < 1e-7) continue;
                  ASSERT_EQ(sample_at(got, i), std::clamp(std::floor(means[i] + 0.5), 0.0, 65535.0))
                      << "sample " << i << ": exact mean " << means[i];
                  ++checked;
                }
              }
  std::cout << fmt::format("[ reference ] {} u16 samples equal to the rounded formula\n", checked);
}

TEST(BilateralU16Reference, RefusesOtherSampleTypesAndConstantsOutOfRange) {
  BilateralParams p;
  for (SampleType t : {SampleType::i16, SampleType::f32}) {
    try {
      bilateral_reference(testing::random_image(4, 4, 1, t, 1), p);
      ADD_FAILURE() << "accepted " << sample_type_name(t);
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("u8 or u16"), std::string::npos) << e.what();
    }
  }
  p.border = {BorderMode::constant, 65535};
  EXPECT_NO_THROW(bilateral_reference(random_u16(4, 4, 1, 2), p));
  EXPECT_THROW(bilateral_reference(testing::random_image(4, 4, 1, SampleType::u8, 2), p), std::invalid_argument);
  p.border = {BorderMode::constant, 65536};
  EXPECT_THROW(bilateral_reference(random_u16(4, 4, 1, 2), p), std::invalid_argument);
}

// ---- the 16-bit exp2 polynomial ----------------------------------------------------------------------

// EXP2_POLY5 of bilateral.cl with soft_exp2's exponent arithmetic, step for step in float (fma rounds once).
float soft_exp2_u16(float x) {
  x = std::fmax(x, -125.0f);
  const float t = x + 12582912.0f;
  const float f = x - (t - 12582912.0f);
  const float p = std::fma(
      std::fma(std::fma(std::fma(std::fma(0x1.5c268cp-10f, f, 0x1.3d1924p-7f), f, 0x1.c6b6dep-5f), f, 0x1.ebf8eap-3f),
               f, 0x1.62e428p-1f),
      f, 0x1.000002p+0f);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(p) + (std::bit_cast<std::uint32_t>(t) << 23));
}

// The bound bilateral.cl states (1.9e-7): 65535 times it stays far below the +-1 contract's 1.
TEST(BilateralU16Exp2, RelativeErrorIsBelowTheBound) {
  double worst = 0;
  for (int i = 0; i <= 125 * 4096; ++i) {
    const float x = -float(i) / 4096.0f;  // every 1/4096 from 0 down to -125, the half-integers included
    worst = std::max(worst, std::fabs(double(soft_exp2_u16(x)) / std::exp2(double(x)) - 1));
  }
  std::cout << fmt::format("[ exp2 ] 16-bit polynomial: worst relative error {:.3e} over [-125, 0]\n", worst);
  EXPECT_LT(worst, 2e-7);
  EXPECT_LT(65535 * worst, 0.015);
  for (float x : {-125.5f, -300.0f, -1e12f}) EXPECT_LT(soft_exp2_u16(x), 1e-37f) << x;
}

// ---- every variant with a 16-bit form against the reference -----------------------------------------

// The variants with a 16-bit form; the others refuse u16 calls naming these.
const char* const kU16Variants[] = {"naive", "gauss_table", "pixels4", "unrolled", "cpu_rows"};

bool takes_u16(const std::string& variant) {
  return std::find(std::begin(kU16Variants), std::end(kU16Variants), variant) != std::end(kU16Variants);
}

// unrolled computes the square window, grey or the l2 colour distance, and radius <= 8 only (as for 8 bits).
bool unrolled_refuses(const BilateralParams& p, int channels) {
  return p.window == BilateralWindow::disk || (channels == 4 && p.distance == BilateralDistance::l1) ||
         bilateral_radius(p) > bilateral_detail::kMaxUnrolledRadius;
}

// Every variant on a u16 input: those with a 16-bit form within 1 of the reference (unless unrolled refuses the
// options), the others refusing with the 16-bit ones named.
void check_u16_variants(const Image& in, const BilateralParams& p, DifferenceLog& log,
                        const TuningConfig& config = {}) {
  Context& ctx = test_context();
  DeviceImage d_in = DeviceImage::upload(ctx, in);
  const Image expected = bilateral_reference(in, p);
  for (const auto& v : bilateral_variants()) {
    SCOPED_TRACE(fmt::format("variant={}", v.name));
    const auto why =
        bilateral_unsupported(ctx.info(), v.name, p, in.width, in.height, in.channels, config, SampleType::u16);
    if (!takes_u16(v.name)) {
      ASSERT_TRUE(why.has_value());
      EXPECT_NE(why->find("takes 8-bit samples only (16-bit: naive, gauss_table, pixels4, unrolled, cpu_rows)"),
                std::string::npos)
          << *why;
      continue;
    }
    if (why) {
      EXPECT_TRUE(v.name == "unrolled" && unrolled_refuses(p, in.channels)) << *why;
      continue;
    }
    const Image got = run_device(v.name, d_in, p, config);
    ASSERT_TRUE(testing::images_equal(expected, got, 1.0));
    // Float sums of 16-bit samples (ulp 2^-8 at 65535) flip a rounding now and then: ~0.003 of the samples, up to
    // ~0.012 with a 19x19 window and a wide sigma_range.
    if (expected.data.size() / 2 >= kMinSamplesForMean) {
      EXPECT_LE(mean_abs_difference(expected, got), kMaxMeanDifference);
    }
    log.add(v.name, expected, got);
  }
}

std::string describe_u16(const BilateralParams& p) {
  return fmt::format("{} window={} distance={}", describe(p), to_string(p.window), to_string(p.distance));
}

// Odd sizes (1x1, primes, widths off every vector width), windows wider than the image, both windows and
// distances, every border; random samples over 0..65535 or full-contrast steps with runs of 0 and 65535.
class BilateralU16Variants : public ::testing::TestWithParam<testing::SizeCase> {};

TEST_P(BilateralU16Variants, WithinOneOfTheReference) {
  const testing::SizeCase size = GetParam();
  DifferenceLog log;
  int rotation = 0;
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    for (const SigmaPair& s : kU16Sigmas)
      for (int radius : {1, 4, 9}) {
        const int turn = rotation++;
        BilateralParams p = make_params(s, radius, kU16Borders[turn % 4]);
        // The square l2 window (unrolled's) every other case; disk and l1 in the rest.
        p.window = turn % 4 == 1 ? BilateralWindow::disk : BilateralWindow::square;
        p.distance = turn % 4 == 3 ? BilateralDistance::l1 : BilateralDistance::l2;
        const Image in = turn % 2 ? random_u16(size.width, size.height, c, seed + turn)
                                  : u16_edges(size.width, size.height, c, seed + turn);
        SCOPED_TRACE(
            fmt::format("size={} channels={} {} seed={}", testing::size_name(size), c, describe_u16(p), seed + turn));
        check_u16_variants(in, p, log);
      }
  }
  log.print(testing::size_name(size) + " u16");
}

INSTANTIATE_TEST_SUITE_P(Sizes, BilateralU16Variants,
                         ::testing::Values(testing::SizeCase{1, 1}, testing::SizeCase{13, 7}, testing::SizeCase{37, 19},
                                           testing::SizeCase{67, 35}),
                         [](const auto& test) { return testing::size_name(test.param); });

// unrolled's shapes at 16 bits: odd outputs per work-item and work-groups, every exp2 on the FMA pipe with the
// clamp (a tiny sigma_range), scalar and vector row loads; what it refuses at 16 bits.
TEST(BilateralU16Unrolled, ShapesWithinOneOfTheReferenceAndRefusals) {
  const Context& ctx = test_context();
  auto shape = [](int local_x, int local_y, int block_x, int rows, int soft_exp) {
    return TuningConfig{
        {"local_x", local_x}, {"local_y", local_y}, {"block_x", block_x}, {"rows", rows}, {"soft_exp", soft_exp}};
  };
  struct Run {
    int width, height, channels;
    SigmaPair sigma;
    TuningConfig config;
  };
  const Run runs[] = {{71, 29, 1, {2, 256 * 5}, shape(8, 4, 3, 2, 16)},
                      {45, 22, 4, {2, 30}, shape(8, 4, 2, 1, 16)},  // exponents below -125: the clamp
                      {53, 17, 4, {3, 256 * 60}, shape(4, 4, 4, 3, 5)}};
  DifferenceLog log;
  for (const Run& run : runs) {
    const auto seed = testing::fresh_seed();
    const BilateralParams p = make_params(run.sigma, 3, kU16Borders[seed % 4]);
    SCOPED_TRACE(fmt::format("{}x{}x{} {} [{}] seed={}", run.width, run.height, run.channels, describe(p),
                             to_string(run.config), seed));
    check_u16_variants(u16_edges(run.width, run.height, run.channels, seed), p, log, run.config);
  }
  log.print("unrolled shapes u16");
  const BilateralParams p = make_params({3, 256 * 30}, 4, {});
  for (const TuningConfig& config : {TuningConfig{{"table_taps", 4}}, TuningConfig{{"int_exp", 1}}}) {
    const auto why = bilateral_unsupported(ctx.info(), "unrolled", p, 64, 64, config.count("int_exp") ? 4 : 1, config,
                                           SampleType::u16);
    ASSERT_TRUE(why.has_value()) << to_string(config);
    EXPECT_NE(why->find("8-bit samples"), std::string::npos) << *why;
  }
  // Its grey default takes no table taps at 16 bits (8 bits: 5 of 16), and colour never the expanded exponent.
  EXPECT_EQ(bilateral_detail::unrolled_shape(bilateral_variants()[6], {}, 1, SampleType::u16).table_taps, 0);
  EXPECT_FALSE(bilateral_detail::unrolled_expanded(p, 4, SampleType::u16));
  EXPECT_TRUE(bilateral_detail::unrolled_expanded(make_params({3, 30}, 4, {}), 4));
}

// ---- host calls, views, refusals and auto ---------------------------------------------------------------

// Host calls of every channel count: grey and RGBA directly, RGB through RGBA (alpha 65535), grey+alpha as grey
// with alpha copied; "auto" and a named variant.
TEST(BilateralU16Host, EveryChannelCountWithinOneOfTheReference) {
  Context& ctx = test_context();
  const BilateralParams p = make_params({2, 256 * 20}, 3, {BorderMode::constant, 51234});
  for (int c : {1, 2, 3, 4})
    for (const char* variant : {"auto", "pixels4"}) {
      const auto seed = testing::fresh_seed();
      SCOPED_TRACE(fmt::format("channels={} variant={} seed={}", c, variant, seed));
      const Image in = u16_edges(43, 21, c, seed);
      const Image got = bilateral(ctx, in, p, variant);
      ASSERT_EQ(got.type, SampleType::u16);
      ASSERT_EQ(got.channels, c);
      if (c == 2) {
        Image grey(in.width, in.height, 1, SampleType::u16);
        for (std::size_t i = 0; i < grey.pixel_count(); ++i)
          grey.samples<std::uint16_t>()[i] = in.samples<std::uint16_t>()[2 * i];
        const Image expected = bilateral_reference(grey, p);
        for (std::size_t i = 0; i < grey.pixel_count(); ++i) {
          ASSERT_LE(std::abs(sample_at(got, 2 * i) - sample_at(expected, i)), 1) << "pixel " << i;
          ASSERT_EQ(sample_at(got, 2 * i + 1), sample_at(in, 2 * i + 1)) << "alpha " << i;
        }
      } else {
        const Image expected = from_filter_layout(bilateral_reference(to_filter_layout(in), p), c);
        EXPECT_TRUE(testing::images_equal(expected, got, 1.0));
      }
    }
}

// A u16 call on views of a caller's buffer with a row pitch and an offset (bytes of whole 8-byte or 2-byte pixels):
// unrolled and cpu_rows in place, naive through packed copies; the rest of the output buffer untouched.
TEST(BilateralU16Views, PitchedAndOffsetViewsWithinOneOfTheReference) {
  Context& ctx = test_context();
  struct Case {
    const char* variant;
    int channels, in_offset, in_stride, out_offset, out_stride, copies;
  };
  for (const Case& k : {Case{"unrolled", 4, 3, 151, 1, 157, 0}, Case{"unrolled", 1, 8, 160, 4, 156, 0},
                        Case{"cpu_rows", 4, 5, 153, 2, 161, 0}, Case{"cpu_rows", 1, 3, 151, 1, 157, 0},
                        Case{"naive", 4, 3, 151, 1, 157, 2}}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("{} c={} seed={}", k.variant, k.channels, seed));
    const int w = 150, h = 19, c = k.channels;
    const Image in = u16_edges(w, h, c, seed);
    const BilateralParams p = make_params({1, 256 * 10}, 2, kU16Borders[seed % 4]);
    const Image expected = bilateral_reference(in, p);
    // Buffers of u16 samples: the image at its offset and pitch, 0x3C3C (input) and 0xA5A5 (output) elsewhere.
    auto buffer = [&](const Image* image, int offset, int stride, std::uint16_t fill) {
      std::vector<std::uint16_t> samples((std::size_t(offset) + std::size_t(stride) * h + 5) * c, fill);
      for (int y = 0; image && y < h; ++y)
        std::memcpy(&samples[(std::size_t(offset) + std::size_t(stride) * y) * c], image->row(y), image->row_bytes());
      return samples;
    };
    std::vector<std::uint16_t> src = buffer(&in, k.in_offset, k.in_stride, 0x3C3C),
                               dst = buffer(nullptr, k.out_offset, k.out_stride, 0xA5A5);
    cl::Buffer d_src(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, src.size() * 2, src.data());
    cl::Buffer d_dst(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, dst.size() * 2, dst.data());
    const std::size_t px = std::size_t(c) * 2;
    const DeviceImage in_view =
        DeviceImage::view(ctx, d_src(), w, h, c, k.in_offset * px, k.in_stride * px, SampleType::u16);
    DeviceImage out_view =
        DeviceImage::view(ctx, d_dst(), w, h, c, k.out_offset * px, k.out_stride * px, SampleType::u16);
    const auto events = bilateral(ctx, in_view, out_view, p, k.variant);
    cl::Event::waitForEvents(events);
    EXPECT_EQ(testing::rect_copies(events), k.copies);
    std::vector<std::uint16_t> got(dst.size());
    check_cl(ctx.queue().enqueueReadBuffer(d_dst, CL_TRUE, 0, got.size() * 2, got.data()), "clEnqueueReadBuffer");
    for (int y = 0; y < h; ++y)
      for (int i = 0; i < w * c; ++i) {
        const std::size_t at = (std::size_t(k.out_offset) + std::size_t(k.out_stride) * y) * c + i;
        ASSERT_LE(std::abs(int(got[at]) - sample_at(expected, std::size_t(y) * w * c + i)), 1) << y << " " << i;
        got[at] = dst[at];
      }
    EXPECT_EQ(got, dst) << "samples outside the output view changed";
  }
}

// 8-bit-only variants refuse u16 calls naming those that take them, also where the call reaches the table.
TEST(BilateralU16Refusals, EightBitVariantsNameTheSixteenBitOnes) {
  Context& ctx = test_context();
  const Image in = random_u16(16, 9, 4, testing::fresh_seed());
  const DeviceImage d_in = DeviceImage::upload(ctx, in);
  DeviceImage out = DeviceImage::allocate(ctx, 16, 9, 4, SampleType::u16);
  for (const char* variant : {"local", "local_image", "range_table"}) {
    try {
      bilateral(ctx, d_in, out, BilateralParams{}, variant);
      ADD_FAILURE() << variant << " ran a u16 call";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("takes 8-bit samples only (16-bit: naive, gauss_table, pixels4, "
                                           "unrolled, cpu_rows)"),
                std::string::npos)
          << e.what();
    }
  }
  // The parameter check of a u16 call: a constant up to 65535.
  BilateralParams p;
  p.border = {BorderMode::constant, 65536};
  EXPECT_TRUE(bilateral_unsupported(ctx.info(), "naive", p, 16, 9, 4, {}, SampleType::u16));
  p.border.value = 65535;
  EXPECT_FALSE(bilateral_unsupported(ctx.info(), "naive", p, 16, 9, 4, {}, SampleType::u16));
}

// auto on this device picks a variant that takes u16; the rule: cpu_rows on CPUs, unrolled on GPUs where it runs
// the call, else pixels4.
TEST(BilateralU16Auto, PicksAVariantThatTakesSixteenBits) {
  Context& ctx = test_context();
  for (int c : {1, 4})
    for (int radius : {1, 6, 16}) {
      const BilateralParams p = make_params({3, 256 * 30}, radius, {});
      const VariantChoice choice = bilateral_choose(ctx, p, "auto", 640, 480, c, {}, SampleType::u16);
      SCOPED_TRACE(fmt::format("channels={} radius={} chose {}", c, radius, choice.variant));
      EXPECT_TRUE(takes_u16(choice.variant));
      EXPECT_FALSE(bilateral_unsupported(ctx.info(), choice.variant, p, 640, 480, c, choice.config, SampleType::u16));
    }
  DeviceInfo device = ctx.info();
  const BilateralParams nine = make_params({3, 256 * 30}, 4, {}), wide = make_params({3, 256 * 30}, 16, {});
  device.type = CL_DEVICE_TYPE_CPU;
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 4, SampleType::u16), "cpu_rows");
  device.type = CL_DEVICE_TYPE_GPU;
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 1, SampleType::u16), "unrolled");
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 4, SampleType::u16), "unrolled");
  EXPECT_EQ(bilateral_auto_variant(device, wide, 640, 480, 4, SampleType::u16), "pixels4");
  device.type = CL_DEVICE_TYPE_CPU;
  device.max_alloc_bytes = 4096;  // too small for cpu_rows' ring of rows
  EXPECT_EQ(bilateral_auto_variant(device, nine, 640, 480, 1, SampleType::u16), "pixels4");
  // A u16 image through "auto" on this device.
  const Image in = u16_edges(33, 17, 4, testing::fresh_seed());
  EXPECT_TRUE(testing::images_equal(bilateral_reference(in, nine), bilateral(ctx, in, nine), 1.0));
}

}  // namespace
}  // namespace clf
