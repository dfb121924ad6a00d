// SPDX-License-Identifier: Apache-2.0
// Every Sobel variant, bit-exact against the CPU reference, on every size class, output and border
// mode; the reference itself against a brute-force 3x3 correlation; the exact rounding of the
// magnitude checked exhaustively on the host and on the device; orientation of the gradients.
#include "clfilters/sobel.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "clfilters/image_io.hpp"
#include "runtime/launch.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::size_name;
using testing::SizeCase;
using testing::test_context;

// Fills a device buffer with 0xA5 so that unwritten outputs show.
void poison(Context& ctx, const cl::Buffer& buffer, std::size_t bytes) {
  const std::vector<std::uint8_t> junk(bytes, 0xA5);
  check_cl(ctx.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes, junk.data()), "clEnqueueWriteBuffer");
}

using testing::kBorders;
const std::vector<SobelOutput> kOutputs = {SobelOutput::magnitude, SobelOutput::l1, SobelOutput::gradients};

// Largest |gx| or |gy|: 4 * 255.
constexpr int kMaxGradient = 1020;

// round(sqrt(s)) by double precision; exact here because s < 2^22 leaves no tie and no near-tie that
// a double cannot separate.
long double_rounded_sqrt(long s) {
  return std::lround(std::sqrt(static_cast<double>(s)));
}

// ---- the exact rounding --------------------------------------------------------------------------

TEST(SobelRounding, RoundedSqrtIsExactForEveryPossibleSum) {
  for (long s = 0; s <= 2L * kMaxGradient * kMaxGradient; ++s) {
    const long r = sobel_rounded_sqrt(static_cast<int>(s));
    // sqrt(s) in [r - 1/2, r + 1/2)  <=>  (2r - 1)^2 <= 4s < (2r + 1)^2, all in integers.
    ASSERT_TRUE((r == 0 || (2 * r - 1) * (2 * r - 1) <= 4 * s) && 4 * s < (2 * r + 1) * (2 * r + 1))
        << "s=" << s << " r=" << r;
    ASSERT_EQ(r, double_rounded_sqrt(s)) << "s=" << s;
  }
}

TEST(SobelRounding, MagnitudeIsRoundedAndClampedForEveryGradientPair) {
  for (int gx = -kMaxGradient; gx <= kMaxGradient; ++gx)
    for (int gy = -kMaxGradient; gy <= kMaxGradient; ++gy) {
      const long expected = std::min(255L, double_rounded_sqrt(long(gx) * gx + long(gy) * gy));
      ASSERT_EQ(sobel_magnitude(gx, gy), expected) << "gx=" << gx << " gy=" << gy;
    }
}

// The kernels' own helpers (scalar and 16-lane), run on the device over every possible sum.
TEST(SobelRounding, DeviceRoundedSqrtIsExactForEveryPossibleSum) {
  Context& ctx = test_context();
  const int n = 2 * kMaxGradient * kMaxGradient + 1;
  const std::size_t bytes = std::size_t(n) * sizeof(int);
  cl::Buffer scalar = ctx.buffer(CL_MEM_READ_WRITE, bytes), vector = ctx.buffer(CL_MEM_READ_WRITE, bytes);
  cl::Kernel& kernel = ctx.kernel("sobel.cl", "-D OUTPUT=0", "sobel_rounded_sqrt_check");
  set_kernel_args(kernel, scalar, vector, n);
  launch(ctx, kernel, cl::NDRange((std::size_t(n) + 15) / 16)).wait();
  std::vector<int> s_out(n), v_out(n);
  check_cl(ctx.queue().enqueueReadBuffer(scalar, CL_TRUE, 0, bytes, s_out.data()), "read");
  check_cl(ctx.queue().enqueueReadBuffer(vector, CL_TRUE, 0, bytes, v_out.data()), "read");
  for (int s = 0; s < n; ++s) {
    ASSERT_EQ(s_out[s], double_rounded_sqrt(s)) << "scalar, s=" << s;
    ASSERT_EQ(v_out[s], double_rounded_sqrt(s)) << "16-lane, s=" << s;
  }
}

// Runs `check_kernel` of sobel.cl, built with `options`, over n work-items that write one int each (the kernel's
// value for the sum s = 0 .. n - 1) into a poisoned buffer; returns what they wrote.
std::vector<int> run_sum_check(const std::string& options, const char* check_kernel, int n) {
  Context& ctx = test_context();
  cl::Buffer out = ctx.buffer(CL_MEM_READ_WRITE, std::size_t(n) * sizeof(int));
  std::vector<int> got(n, -7);
  check_cl(ctx.queue().enqueueWriteBuffer(out, CL_TRUE, 0, got.size() * sizeof(int), got.data()), "write");
  cl::Kernel& kernel = ctx.kernel("sobel.cl", options, check_kernel);
  set_kernel_args(kernel, out, n);
  launch(ctx, kernel, cl::NDRange(std::size_t(n))).wait();
  check_cl(ctx.queue().enqueueReadBuffer(out, CL_TRUE, 0, got.size() * sizeof(int), got.data()), "read");
  return got;
}

// row_tile's helper without correction steps, over every sum it is given (the magnitude clamps the
// sum to 255^2 + 256 first).
TEST(SobelRounding, DeviceRoundedSqrtBitsIsExactUpToTheSaturation) {
  const int n = 255 * 255 + 255 + 2;  // s in 0 .. 65281
  const std::vector<int> got = run_sum_check("-D OUTPUT=0", "sobel_rounded_sqrt_bits_check", n);
  for (int s = 0; s < n; ++s) ASSERT_EQ(got[s], double_rounded_sqrt(s)) << "s=" << s;
}

// strip's magnitude byte (native_sqrt, no correction step, sum clamped to 255^2 + 255) over every sum
// from 0 to past the clamp, on the device, built with strip's float option: native_sqrt's accuracy is
// the implementation's, so this is the proof that the kernel is exact on the device the tests run on.
TEST(SobelRounding, DeviceStripMagnitudeIsExactForEverySum) {
  const int n = 255 * 255 + 255 + 64;  // s in 0 .. 65343: the clamp is reached
  // With the host's fast-math options, so that on NVIDIA the root is fast_sqrt's as in the kernel.
  const std::vector<int> got = run_sum_check(
      "-D OUTPUT=0 -D VEC=16 -D ROWS=1 -D ALIGNED=0 -cl-denorms-are-zero" + test_context().info().fast_math_options(),
      "sobel_strip_magnitude_check", n);
  for (int s = 0; s < n; ++s) ASSERT_EQ(got[s], std::min(255L, double_rounded_sqrt(s))) << "s=" << s;
}

// Runs one of strip's exhaustive pair checks, `check_kernel` in a build of strip with MAG_FLOAT=mag_float and
// the host's fast-math options (so that on NVIDIA the root is fast_sqrt's as in the kernel), over side x side
// work-items; returns its bytes, row y then column x, from a poisoned buffer.
std::vector<std::uint8_t> run_strip_pairs_check(int mag_float, const char* check_kernel, int side) {
  Context& ctx = test_context();
  const std::size_t n = std::size_t(side) * side;
  cl::Buffer out = ctx.buffer(CL_MEM_READ_WRITE, n);
  poison(ctx, out, n);
  cl::Kernel& kernel =
      ctx.kernel("sobel.cl",
                 fmt::format("-D OUTPUT=0 -D VEC=16 -D ROWS=1 -D ALIGNED=0 -D MAG_FLOAT={} -cl-denorms-are-zero{}",
                             mag_float, ctx.info().fast_math_options()),
                 check_kernel);
  set_kernel_args(kernel, out);
  launch(ctx, kernel, cl::NDRange(side, side)).wait();
  std::vector<std::uint8_t> got(n);
  check_cl(ctx.queue().enqueueReadBuffer(out, CL_TRUE, 0, n, got.data()), "read");
  return got;
}

// strip's FP32 magnitude (mag_float=1) for every gradient pair |gx|, |gy| <= 1020, on the device, built as
// the host builds strip: s = gx^2 + gy^2 as a float FMA, clamped, rooted by fast_sqrt and rounded with
// no correction step, so this is the proof of its exact rounding on the device the tests run on.
TEST(SobelRounding, DeviceStripFloatMagnitudeIsExactForEveryGradientPair) {
  constexpr int kSide = 2 * kMaxGradient + 1;
  const auto got = run_strip_pairs_check(1, "sobel_strip_magnitude_pairs_check", kSide);
  for (int gy = -kMaxGradient; gy <= kMaxGradient; ++gy)
    for (int gx = -kMaxGradient; gx <= kMaxGradient; ++gx) {
      const long expected = std::min(255L, double_rounded_sqrt(long(gx) * gx + long(gy) * gy));
      ASSERT_EQ(got[std::size_t(gy + kMaxGradient) * kSide + gx + kMaxGradient], expected)
          << "gx=" << gx << " gy=" << gy;
    }
}

// strip's Roberts path (mag_float=2) for every pair of 2x2-sum differences |u|, |v| <= 765 (gx = u + v,
// gy = u - v): its root is fast_sqrt's, scaled by a rounded sqrt(2) / 256 and rounded by an FMA with no
// correction step, so this is the proof of its exact rounding on the device the tests run on.
TEST(SobelRounding, DeviceStripRobertsMagnitudeIsExactForEveryPair) {
  constexpr int kMaxHalf = 765, kSide = 2 * kMaxHalf + 1;  // |u| = |(gx + gy) / 2| <= 3 * 255
  const auto got = run_strip_pairs_check(2, "sobel_strip_roberts_pairs_check", kSide);
  for (int v = -kMaxHalf; v <= kMaxHalf; ++v)
    for (int u = -kMaxHalf; u <= kMaxHalf; ++u) {
      const long gx = u + v, gy = u - v;
      const long expected = std::min(255L, double_rounded_sqrt(gx * gx + gy * gy));
      ASSERT_EQ(got[std::size_t(v + kMaxHalf) * kSide + u + kMaxHalf], expected) << "u=" << u << " v=" << v;
    }
}

// ---- grey conversion -----------------------------------------------------------------------------

TEST(SobelGrey, ConvertsRgbAndRgbaWithSpecFormula) {
  for (int c : {2, 3, 4}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("channels={} seed={}", c, seed));
    const Image in = testing::random_image(31, 7, c, SampleType::u8, seed);
    const Image grey = sobel_grey(in);
    ASSERT_EQ(grey.channels, 1);
    const auto src = in.samples<std::uint8_t>();
    const auto g = grey.samples<std::uint8_t>();
    for (std::size_t i = 0; i < grey.pixel_count(); ++i) {
      const int r = src[i * c], gr = src[i * c + 1];
      const int expected = c == 2 ? r : (77 * r + 150 * gr + 29 * src[i * c + 2] + 128) / 256;
      ASSERT_EQ(g[i], expected) << "pixel " << i;
    }
  }
  // Corner cases of the formula: white stays white, pure primaries.
  Image rgb(4, 1, 3);
  const std::uint8_t px[] = {255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255};
  std::copy(std::begin(px), std::end(px), rgb.data.begin());
  const Image primaries = sobel_grey(rgb);
  const auto g = primaries.samples<std::uint8_t>();
  EXPECT_EQ(g[0], 255);
  EXPECT_EQ(g[1], 77);   // (77*255 + 128) >> 8 = 19763 >> 8
  EXPECT_EQ(g[2], 149);  // (150*255 + 128) >> 8 = 38378 >> 8
  EXPECT_EQ(g[3], 29);   // (29*255 + 128) >> 8 = 7523 >> 8
}

// ---- the reference against a brute-force 3x3 correlation ------------------------------------------

// Straight from docs/SPEC.md on a grey image: correlate with both masks, border per coordinate.
Image brute_force_sobel(const Image& grey, const SobelParams& p) {
  static const int mx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
  static const int my[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
  const bool gradients = p.output == SobelOutput::gradients;
  Image out(grey.width, grey.height, gradients ? 2 : 1, gradients ? SampleType::i16 : SampleType::u8);
  const auto src = grey.samples<std::uint8_t>();
  for (int y = 0; y < grey.height; ++y)
    for (int x = 0; x < grey.width; ++x) {
      long gx = 0, gy = 0;
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) {
          const int xx = border_index(x - 1 + i, grey.width, p.border.mode);
          const int yy = border_index(y - 1 + j, grey.height, p.border.mode);
          const long v = (xx < 0 || yy < 0) ? p.border.value : src[std::size_t(yy) * grey.width + xx];
          gx += mx[j][i] * v;
          gy += my[j][i] * v;
        }
      const std::size_t k = std::size_t(y) * grey.width + x;
      if (gradients) {
        out.samples<std::int16_t>()[2 * k] = std::int16_t(gx);
        out.samples<std::int16_t>()[2 * k + 1] = std::int16_t(gy);
      } else if (p.output == SobelOutput::l1) {
        out.samples<std::uint8_t>()[k] = std::uint8_t(std::min(255L, std::abs(gx) + std::abs(gy)));
      } else {
        out.samples<std::uint8_t>()[k] = std::uint8_t(std::min(255L, double_rounded_sqrt(gx * gx + gy * gy)));
      }
    }
  return out;
}

TEST(SobelReference, MatchesBruteForce) {
  for (auto [w, h] : {std::pair{1, 1}, {1, 6}, {6, 1}, {2, 2}, {7, 3}, {13, 17}, {40, 9}})
    for (const Border& border : kBorders)
      for (SobelOutput output : kOutputs) {
        const auto seed = testing::fresh_seed();
        SCOPED_TRACE(
            fmt::format("{}x{} border={} output={} seed={}", w, h, to_string(border), to_string(output), seed));
        const Image in = testing::random_image(w, h, 1, SampleType::u8, seed);
        const SobelParams p{output, border};
        ASSERT_TRUE(testing::images_equal(brute_force_sobel(in, p), sobel_reference(in, p, 2)));
      }
}

TEST(SobelReference, ConvertsColourInputsFirst) {
  for (int c : {3, 4}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("channels={} seed={}", c, seed));
    const Image in = testing::random_image(23, 19, c, SampleType::u8, seed);
    const SobelParams p{SobelOutput::gradients, {BorderMode::reflect101, 0}};
    ASSERT_TRUE(testing::images_equal(brute_force_sobel(sobel_grey(in), p), sobel_reference(in, p)));
  }
}

// ---- every variant against the reference ----------------------------------------------------

// Runs `variant` with `params` on the device input and downloads the result; outputs are poisoned
// first so unwritten pixels show. Gradients are written both as planes, which the caller checks, and as
// interleaved pairs, checked here against the reference.
Image run_device(const std::string& variant, const DeviceImage& d_in, const SobelParams& params,
                 const TuningConfig& config = {}) {
  Context& ctx = test_context();
  if (params.output == SobelOutput::gradients) {
    DeviceGradientPairs pairs = DeviceGradientPairs::allocate(ctx, d_in.width, d_in.height);
    poison(ctx, pairs.buffer, pairs.byte_size());
    sobel(ctx, d_in, pairs, params, variant, config);
    EXPECT_TRUE(testing::images_equal(sobel_reference(d_in.download(ctx), params), pairs.download(ctx)))
        << "the interleaved gradients";
    DeviceGradients out = DeviceGradients::allocate(ctx, d_in.width, d_in.height);
    poison(ctx, out.gx, out.plane_bytes());
    poison(ctx, out.gy, out.plane_bytes());
    sobel(ctx, d_in, out, params, variant, config);
    return out.download(ctx);
  }
  DeviceImage out = DeviceImage::allocate(ctx, d_in.width, d_in.height, 1);
  poison(ctx, out.buffer, out.byte_size());
  sobel(ctx, d_in, out, params, variant, config);
  return out.download(ctx);
}

// `variant` at `config` on a fresh random image of `size`: each of `outputs` at every border against the
// reference, poisoned outputs. A case the device refuses fails, but for the image variant's documented limits
// (image support and size), which skip the test.
void expect_bit_exact(const std::string& variant, SizeCase size, const TuningConfig& config = {},
                      const std::vector<SobelOutput>& outputs = kOutputs) {
  Context& ctx = test_context();
  const auto seed = testing::fresh_seed();
  const Image in = testing::random_image(size.width, size.height, 1, SampleType::u8, seed);
  const DeviceImage d_in = DeviceImage::upload(ctx, in);
  for (const Border& border : kBorders)
    for (SobelOutput output : outputs) {
      const SobelParams params{output, border};
      SCOPED_TRACE(fmt::format("variant={} size={} [{}] output={} border={} seed={}", variant, size_name(size),
                               to_string(config), to_string(output), to_string(border), seed));
      if (auto why = sobel_unsupported(ctx.info(), variant, params, size.width, size.height, config)) {
        EXPECT_EQ(variant, "image") << *why;
        GTEST_SKIP() << *why;
      }
      ASSERT_TRUE(testing::images_equal(sobel_reference(in, params), run_device(variant, d_in, params, config)));
    }
}

class SobelVariant : public ::testing::TestWithParam<std::tuple<std::string, SizeCase>> {};

TEST_P(SobelVariant, BitExactAgainstReference) {
  const auto& [variant, size] = GetParam();
  expect_bit_exact(variant, size);
}

// Sizes below, at and past one 16-pixel block, odd heights for block16x2, odd both ways,
// full HD.
INSTANTIATE_TEST_SUITE_P(
    Sizes, SobelVariant,
    ::testing::Combine(::testing::ValuesIn(testing::variant_names(sobel_variants())),
                       ::testing::Values(SizeCase{1, 1}, SizeCase{2, 2}, SizeCase{15, 3}, SizeCase{16, 16},
                                         SizeCase{17, 5}, SizeCase{13, 17}, SizeCase{33, 31}, SizeCase{257, 129},
                                         SizeCase{1920, 1080})),
    [](const auto& test) { return fmt::format("{}_{}", std::get<0>(test.param), size_name(std::get<1>(test.param))); });

// `variant` with columns x rows per work-item on `size` (expect_bit_exact); `extra` adds tunables (strip's
// mag_float), `outputs` limits the outputs.
void expect_shape_bit_exact(const std::string& variant, SizeCase size, int columns, int rows,
                            const TuningConfig& extra = {}, const std::vector<SobelOutput>& outputs = kOutputs) {
  TuningConfig config{{"columns", columns}, {"rows", rows}, {"local_x", rows == 3 ? 32 : 64}};
  config.insert(extra.begin(), extra.end());
  expect_bit_exact(variant, size, config, outputs);
}

const SizeCase kStripSizes[] = {{1, 1}, {2, 3}, {13, 17}, {24, 5}, {48, 33}, {3, 40}, {67, 19}, {257, 129}};
const std::pair<int, int> kStripShapes[] = {{16, 3}, {16, 8}, {8, 1}, {8, 5}, {4, 2}};

// row_tile's tunables, which change its code paths: vector width (built in), aligned rows (widths
// that are multiples of it) or not, rows per work-item (1, a remainder strip, automatic), and strips
// narrower than a vector. Every output and border, fresh random inputs, poisoned outputs.
TEST(SobelRowTile, EveryWidthAlignmentAndRowCountIsBitExact) {
  for (SizeCase size :
       {SizeCase{1, 1}, SizeCase{13, 17}, SizeCase{24, 5}, SizeCase{48, 33}, SizeCase{3, 40}, SizeCase{257, 129}})
    for (int columns : {4, 8, 16})
      for (int rows : {0, 1, 3, 16}) expect_shape_bit_exact("row_tile", size, columns, rows);
}

// strip's build options: columns (vector width), rows (1, dividing the height or not, more than the
// height), aligned and unaligned widths, widths below one vector, images where no work-item is
// interior and ones where most are. Every output and border, fresh random inputs, poisoned outputs.
// The magnitude takes the default mag_float=1 (FP32) here; the next test runs the lanes' path.
TEST(SobelStrip, EveryWidthAlignmentAndRowCountIsBitExact) {
  for (SizeCase size : kStripSizes)
    // A few (columns, rows) pairs rather than all: each is a program build per output and alignment.
    for (auto [columns, rows] : kStripShapes) expect_shape_bit_exact("strip", size, columns, rows);
}

// The magnitude's three paths and l1's Roberts path, each explicitly, over the same shapes, borders and
// sizes (a share of the magnitude's shapes: each is a build; every size of each).
TEST(SobelStrip, EveryMagnitudeAndL1PathIsBitExact) {
  testing::CaseSample sample(0.5);
  for (int mag_float : {0, 1, 2})
    for (auto [columns, rows] : kStripShapes) {
      if (!sample.take()) continue;
      SCOPED_TRACE(fmt::format("sample={}", sample.seed()));
      for (SizeCase size : kStripSizes)
        expect_shape_bit_exact("strip", size, columns, rows, {{"mag_float", mag_float}}, {SobelOutput::magnitude});
    }
  for (SizeCase size : kStripSizes)
    for (auto [columns, rows] : kStripShapes)
      expect_shape_bit_exact("strip", size, columns, rows, {{"mag_float", 2}}, {SobelOutput::l1});
}

// Extreme gradients (0/255 checkerboards and stripes) reach the lanes' largest values (|gx|, |gy| up to
// 1020) and the magnitude's clamp, which random inputs rarely do.
TEST(SobelStrip, ExtremeInputsAreBitExact) {
  Context& ctx = test_context();
  const int w = 70, h = 37;
  for (int pattern = 0; pattern < 4; ++pattern) {
    Image in(w, h, 1);
    auto p = in.samples<std::uint8_t>();
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const bool lit = pattern == 0   ? (x + y) % 2 == 0
                         : pattern == 1 ? x % 3 == 0
                         : pattern == 2 ? y % 3 == 0
                                        : (x / 2 + y / 2) % 2 == 0;
        p[std::size_t(y) * w + x] = lit ? 255 : 0;
      }
    const DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (int columns : {8, 16})
      for (SobelOutput output : kOutputs)
        for (int mag_float : {0, 1, 2}) {
          const SobelParams params{output, {BorderMode::constant, 255}};
          const TuningConfig config{{"columns", columns}, {"rows", 4}, {"mag_float", mag_float}};
          if (sobel_unsupported(ctx.info(), "strip", params, w, h, config)) continue;  // 0: magnitude, 2: not gradients
          SCOPED_TRACE(fmt::format("pattern={} [{}] output={}", pattern, to_string(config), to_string(output)));
          ASSERT_TRUE(testing::images_equal(sobel_reference(in, params), run_device("strip", d_in, params, config)));
        }
  }
}

TEST(SobelStrip, RefusesTunablesItCannotRun) {
  const DeviceInfo& device = test_context().info();
  EXPECT_TRUE(sobel_unsupported(device, "strip", {}, 64, 64, {{"columns", 5}}));
  EXPECT_TRUE(sobel_unsupported(device, "strip", {}, 64, 64, {{"rows", 0}}));
  EXPECT_TRUE(sobel_unsupported(device, "strip", {}, 64, 64, {{"local_x", 0}}));
  EXPECT_FALSE(sobel_unsupported(device, "strip", {}, 64, 64, {{"columns", 4}, {"rows", 7}, {"local_x", 1}}));
  const SobelParams magnitude{SobelOutput::magnitude, {}}, l1{SobelOutput::l1, {}};
  const SobelParams gradients{SobelOutput::gradients, {}};
  EXPECT_TRUE(sobel_unsupported(device, "strip", magnitude, 64, 64, {{"mag_float", 3}}));
  EXPECT_TRUE(sobel_unsupported(device, "strip", magnitude, 64, 64, {{"mag_float", -1}}));
  EXPECT_FALSE(sobel_unsupported(device, "strip", magnitude, 64, 64, {{"mag_float", 0}}));
  EXPECT_FALSE(sobel_unsupported(device, "strip", magnitude, 64, 64, {{"mag_float", 2}}));
  EXPECT_TRUE(sobel_unsupported(device, "strip", l1, 64, 64, {{"mag_float", 0}}));  // magnitude's only
  EXPECT_FALSE(sobel_unsupported(device, "strip", l1, 64, 64, {{"mag_float", 1}}));
  EXPECT_FALSE(sobel_unsupported(device, "strip", l1, 64, 64, {{"mag_float", 2}}));
  EXPECT_TRUE(sobel_unsupported(device, "strip", gradients, 64, 64, {{"mag_float", 2}}));  // no Roberts path
  EXPECT_FALSE(sobel_unsupported(device, "strip", gradients, 64, 64, {{"mag_float", 1}}));
  // The FP32 path up to 128 pixels per work-item; 16 x 16 only on the lanes.
  EXPECT_FALSE(sobel_unsupported(device, "strip", magnitude, 64, 64, {{"columns", 16}, {"rows", 8}}));
  EXPECT_TRUE(sobel_unsupported(device, "strip", magnitude, 64, 64, {{"columns", 16}, {"rows", 16}}));
  EXPECT_FALSE(
      sobel_unsupported(device, "strip", magnitude, 64, 64, {{"columns", 16}, {"rows", 16}, {"mag_float", 0}}));
  EXPECT_FALSE(sobel_unsupported(device, "strip", l1, 64, 64, {{"columns", 16}, {"rows", 16}}));
  EXPECT_TRUE(sobel_unsupported(device, "strip", l1, 64, 64, {{"columns", 16}, {"rows", 16}, {"mag_float", 2}}));
  EXPECT_FALSE(sobel_unsupported(device, "strip", l1, 64, 64, {{"columns", 16}, {"rows", 8}, {"mag_float", 2}}));
}

TEST(SobelRowTile, RefusesTunablesItCannotRun) {
  const DeviceInfo& device = test_context().info();
  EXPECT_TRUE(sobel_unsupported(device, "row_tile", {}, 64, 64, {{"columns", 5}}));
  EXPECT_TRUE(sobel_unsupported(device, "row_tile", {}, 64, 64, {{"rows", -1}}));
  EXPECT_TRUE(sobel_unsupported(device, "row_tile", {}, 64, 64, {{"local_x", 0}}));
  EXPECT_FALSE(sobel_unsupported(device, "row_tile", {}, 64, 64, {{"columns", 16}, {"rows", 7}, {"local_x", 1}}));
}

// ---- orientation ---------------------------------------------------------------------------------

// A 37x21 grey image: a vertical step (columns >= 18 bright) or a horizontal one (rows >= 10), or
// constant.
enum class Pattern { vertical_step, horizontal_step, constant };

Image pattern_image(Pattern pattern, int dark, int bright) {
  Image img(37, 21, 1);
  auto p = img.samples<std::uint8_t>();
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      const bool lit = pattern == Pattern::vertical_step ? x >= 18 : pattern == Pattern::horizontal_step && y >= 10;
      p[std::size_t(y) * img.width + x] = std::uint8_t(lit ? bright : dark);
    }
  return img;
}

class SobelOrientation : public ::testing::TestWithParam<std::string> {};

TEST_P(SobelOrientation, StepsGiveOneGradientAndConstantGivesNone) {
  Context& ctx = test_context();
  const std::string& variant = GetParam();
  const int dark = 30, bright = 220, jump = 4 * (bright - dark);
  for (Border border : {Border{BorderMode::replicate, 0}, Border{BorderMode::reflect101, 0}}) {
    const SobelParams params{SobelOutput::gradients, border};
    if (auto why = sobel_unsupported(ctx.info(), variant, params, 37, 21)) GTEST_SKIP() << *why;
    for (Pattern pattern : {Pattern::vertical_step, Pattern::horizontal_step, Pattern::constant}) {
      SCOPED_TRACE(fmt::format("variant={} border={} pattern={}", variant, to_string(border), int(pattern)));
      const Image in = pattern_image(pattern, dark, bright);
      const Image got = run_device(variant, DeviceImage::upload(ctx, in), params);
      const auto g = got.samples<std::int16_t>();
      for (int y = 0; y < in.height; ++y)
        for (int x = 0; x < in.width; ++x) {
          const std::size_t k = std::size_t(y) * in.width + x;
          // The step lies between column 17 and 18 (row 9 and 10): both sides see all of it.
          const int gx = pattern == Pattern::vertical_step && (x == 17 || x == 18) ? jump : 0;
          const int gy = pattern == Pattern::horizontal_step && (y == 9 || y == 10) ? jump : 0;
          ASSERT_EQ(g[2 * k], gx) << "gx at x=" << x << " y=" << y;
          ASSERT_EQ(g[2 * k + 1], gy) << "gy at x=" << x << " y=" << y;
        }
    }
  }
  // A constant image with a constant border of its own value has no edge at all.
  const Image flat = pattern_image(Pattern::constant, 99, 99);
  const Image got =
      run_device(variant, DeviceImage::upload(ctx, flat), {SobelOutput::gradients, {BorderMode::constant, 99}});
  for (auto v : got.samples<std::int16_t>()) ASSERT_EQ(v, 0);
}

INSTANTIATE_TEST_SUITE_P(Variants, SobelOrientation, ::testing::ValuesIn(testing::variant_names(sobel_variants())),
                         [](const auto& test) { return test.param; });

// ---- host API ------------------------------------------------------------------------------------

// A real photograph (RGB JPEG) through the host API, every variant and output, against the reference.
TEST(SobelPhotograph, EveryVariantMatchesTheReference) {
  Context& ctx = test_context();
  const Image photo = read_image(CLF_DATA_DIR "/astronaut.jpg");
  ASSERT_EQ(photo.channels, 3);
  for (SobelOutput output : kOutputs) {
    const SobelParams params{output, {BorderMode::reflect101, 0}};
    const Image expected = sobel_reference(photo, params);
    for (const auto& v : sobel_variants()) {
      if (sobel_unsupported(ctx.info(), v.name, params, photo.width, photo.height)) continue;
      SCOPED_TRACE(fmt::format("variant={} output={}", v.name, to_string(output)));
      EXPECT_TRUE(testing::images_equal(expected, sobel(ctx, photo, params, v.name)));
    }
  }
}

TEST(SobelHost, ColourInputsMatchTheReference) {
  Context& ctx = test_context();
  for (int c : {2, 3, 4}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("channels={} seed={}", c, seed));
    const Image in = testing::random_image(45, 31, c, SampleType::u8, seed);
    const SobelParams params{SobelOutput::magnitude, {BorderMode::constant, 7}};
    ASSERT_TRUE(testing::images_equal(sobel_reference(in, params), sobel(ctx, in, params, "row16")));
  }
}

TEST(SobelHost, TimingIsFilled) {
  Context& ctx = test_context();
  const Image in = testing::random_image(64, 48, 1, SampleType::u8, testing::fresh_seed());
  for (const auto& v : sobel_variants()) {
    if (sobel_unsupported(ctx.info(), v.name, {}, 64, 48)) continue;
    EXPECT_TRUE(testing::timing_filled([&](Timing* t) { sobel(ctx, in, {}, v.name, t); })) << v.name;
  }
}

TEST(SobelHost, RejectsBadParameters) {
  Context& ctx = test_context();
  const Image in = testing::random_image(8, 8, 1, SampleType::u8, testing::fresh_seed());
  EXPECT_THROW(sobel(ctx, in, {}, "no_such_variant"), std::invalid_argument);
  EXPECT_THROW(sobel(ctx, in, {SobelOutput::magnitude, {BorderMode::constant, 256}}), std::invalid_argument);
  EXPECT_THROW(sobel(ctx, testing::random_image(8, 8, 1, SampleType::f32, 1), {}), std::invalid_argument);
  EXPECT_THROW(sobel(ctx, testing::random_image(8, 8, 1, SampleType::i16, 1), {}), std::invalid_argument);
  EXPECT_THROW(parse_sobel_output("l2"), std::invalid_argument);
  EXPECT_EQ(parse_sobel_output("l1"), SobelOutput::l1);
  EXPECT_EQ(to_string(SobelOutput::gradients), "gradients");

  const DeviceImage d_in = DeviceImage::upload(ctx, in);
  DeviceImage grey_out = DeviceImage::allocate(ctx, 8, 8, 1);
  DeviceImage small_out = DeviceImage::allocate(ctx, 8, 7, 1);
  DeviceImage rgba_out = DeviceImage::allocate(ctx, 8, 8, 4);
  DeviceGradients gradients = DeviceGradients::allocate(ctx, 8, 8);
  DeviceGradients small_gradients = DeviceGradients::allocate(ctx, 7, 8);
  DeviceGradientPairs pairs = DeviceGradientPairs::allocate(ctx, 8, 8);
  DeviceGradientPairs small_pairs = DeviceGradientPairs::allocate(ctx, 8, 7);
  const SobelParams magnitude{}, grad{SobelOutput::gradients, {}};
  EXPECT_THROW(sobel(ctx, d_in, grey_out, grad), std::invalid_argument);        // gradients into 8 bits
  EXPECT_THROW(sobel(ctx, d_in, gradients, magnitude), std::invalid_argument);  // 8 bits into planes
  EXPECT_THROW(sobel(ctx, d_in, small_out, magnitude), std::invalid_argument);
  EXPECT_THROW(sobel(ctx, d_in, rgba_out, magnitude), std::invalid_argument);
  EXPECT_THROW(sobel(ctx, d_in, small_gradients, grad), std::invalid_argument);
  EXPECT_THROW(sobel(ctx, d_in, pairs, magnitude), std::invalid_argument);  // 8 bits into pairs
  EXPECT_THROW(sobel(ctx, d_in, small_pairs, grad), std::invalid_argument);
  EXPECT_THROW(DeviceGradientPairs::allocate(ctx, 0, 8), std::invalid_argument);
  const DeviceImage rgba_in = DeviceImage::upload(ctx, testing::random_image(8, 8, 4, SampleType::u8, 1));
  EXPECT_THROW(sobel(ctx, rgba_in, grey_out, magnitude), std::invalid_argument);
}

// cpu_rows' 8-bit outputs (vector operators, the magnitude's root in FP32) for every (gx, gy), on the device, in
// the builds cpu_rows runs.
TEST(SobelRounding, DeviceCpuRowsBytesAreExactForEveryGradientPair) {
  Context& ctx = test_context();
  constexpr int n = 2 * kMaxGradient + 1;
  cl::Buffer out = ctx.buffer(CL_MEM_READ_WRITE, std::size_t(n) * n);
  for (SobelOutput output : {SobelOutput::magnitude, SobelOutput::l1}) {
    SCOPED_TRACE(to_string(output));
    poison(ctx, out, std::size_t(n) * n);
    cl::Kernel& kernel = ctx.kernel("sobel.cl", fmt::format("-D OUTPUT={} -D CPU_ROWS=1", static_cast<int>(output)),
                                    "sobel_cpu_rows_bytes_check");
    set_kernel_args(kernel, out);
    launch(ctx, kernel, cl::NDRange((n + 15) / 16, n)).wait();
    std::vector<std::uint8_t> got(std::size_t(n) * n);
    check_cl(ctx.queue().enqueueReadBuffer(out, CL_TRUE, 0, got.size(), got.data()), "read");
    for (int gy = -kMaxGradient; gy <= kMaxGradient; ++gy)
      for (int gx = -kMaxGradient; gx <= kMaxGradient; ++gx) {
        const int want =
            output == SobelOutput::l1 ? std::min(std::abs(gx) + std::abs(gy), 255) : sobel_magnitude(gx, gy);
        ASSERT_EQ(got[std::size_t(gy + kMaxGradient) * n + gx + kMaxGradient], want) << "gx=" << gx << " gy=" << gy;
      }
  }
}

// The rule: strip on GPUs, cpu_rows on CPUs (block16x2 where cpu_rows is refused).
TEST(SobelHost, AutoPicksASupportedVariant) {
  Context& ctx = test_context();
  const bool gpu = ctx.info().type & CL_DEVICE_TYPE_GPU;
  for (SobelOutput output : kOutputs) {
    const SobelParams p{output, {}};
    const std::string v = sobel_auto_variant(ctx.info(), p, 640, 480);
    EXPECT_FALSE(sobel_unsupported(ctx.info(), v, p, 640, 480)) << v;
    EXPECT_EQ(v, gpu ? "strip" : "cpu_rows");
  }
  if (gpu) return;
  DeviceInfo tight = ctx.info();  // a device whose allocations cannot hold cpu_rows' ring
  tight.max_alloc_bytes = 16;
  EXPECT_EQ(sobel_auto_variant(tight, {}, 640, 480), "block16x2");
}

// cpu_rows' band split down to one row a band, widths around its 16-pixel steps (the border's first and last
// steps, a partial last step, rows narrower than a step), heights 1 to 3 and more: every output (gradients as
// planes and as pairs) and border against the reference, fresh random inputs, poisoned outputs. One build per
// output.
TEST(SobelCpuRows, EveryBandWidthAndHeightIsBitExact) {
  for (SizeCase size : {SizeCase{1, 1}, SizeCase{2, 2}, SizeCase{15, 3}, SizeCase{17, 1}, SizeCase{33, 2},
                        SizeCase{16, 7}, SizeCase{47, 5}, SizeCase{50, 3}, SizeCase{131, 23}})
    for (int bands_per_unit : {1, 3, 1000})  // 1000: one row a band
      expect_bit_exact("cpu_rows", size, {{"bands_per_unit", bands_per_unit}});
  EXPECT_TRUE(sobel_unsupported(test_context().info(), "cpu_rows", {}, 64, 64, {{"bands_per_unit", 0}}));
}

}  // namespace
}  // namespace clf
