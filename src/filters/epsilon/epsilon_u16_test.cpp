// SPDX-License-Identifier: Apache-2.0
// The epsilon filter on 16-bit samples: the reference against a brute-force version, every variant that takes u16
// bit-exact against the reference (sizes, radii, thresholds, borders with a constant above 255, channel counts),
// views in place, host calls of every channel count, refusals and the auto rule.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "clfilters/epsilon.hpp"
#include "filters/epsilon/epsilon_brute_force.hpp"
#include "testing/callers_buffer.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::size_name;
using testing::SizeCase;
using testing::test_context;

constexpr SampleType kU16 = SampleType::u16;

// The variants with a 16-bit form; EveryOtherVariantRefusesU16 checks the list against epsilon_unsupported.
const std::vector<std::string> kU16Variants = {
    "naive", "vec4", "vec8", "vec16", "local", "vec4_branchless", "vec8_branchless", "regblock", "cpu_rows"};

// The constant is above 255, so a kernel that keeps 8 bits of it shows.
const Border kBorders[] = {{BorderMode::replicate, 0}, {BorderMode::reflect101, 0}, {BorderMode::constant, 40000}};

// Thresholds that count some neighbours but not all on the input below, and the two degenerate ones.
const int kThresholds[] = {0, 3000, 20 * 256, 65535};

EpsilonParams make_params(int radius, int threshold, Border border) {
  return {.radius = radius, .threshold = threshold, .border = border};
}

std::string describe(const EpsilonParams& p) {
  return fmt::format("r={} T={} border={}", p.radius, p.threshold, to_string(p.border));
}

// Random samples over the whole 0..65535 range; every other 8x8 block a noisy ramp (so T = 3000 and 5120 count
// part of a window), and runs of 0 and of 65535 (the ends of the range, where c - T and c + T leave it).
Image u16_input(int width, int height, int channels, std::uint64_t seed) {
  Image img = testing::random_image(width, height, channels, kU16, seed);
  auto s = img.samples<std::uint16_t>();
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int ch = 0; ch < channels; ++ch) {
        auto& v = s[(std::size_t(y) * width + x) * channels + ch];
        if (y % 7 == 3 && x % 16 < 10)
          v = (x + ch) % 2 ? 65535 : 0;
        else if (((x / 8) + (y / 8)) % 2 == 1)
          v = std::uint16_t(20000 + 300 * x + 200 * y + v % 4096);
      }
  return img;
}

// ---- the reference ---------------------------------------------------------------------------------

TEST(EpsilonU16Reference, MatchesBruteForce) {
  for (auto [w, h] : {std::pair{1, 1}, {1, 7}, {13, 17}, {20, 9}})
    for (int r : {1, 2, 5, 16})  // 16: a window far wider than the image
      for (int T : kThresholds)
        for (const Border& border : kBorders)
          for (int c : {1, 4}) {
            const auto seed = testing::fresh_seed();
            const EpsilonParams p = make_params(r, T, border);
            SCOPED_TRACE(fmt::format("{}x{}x{} {} seed={}", w, h, c, describe(p), seed));
            const Image in = u16_input(w, h, c, seed);
            ASSERT_TRUE(
                testing::images_equal(testing::epsilon_brute_force<std::uint16_t>(in, p), epsilon_reference(in, p, 2)));
          }
}

TEST(EpsilonU16Reference, HandComputedRowRoundsHalfUp) {
  // One row [1000 3000 3001], r = 1, T = 1, replicate: x=1 averages 3000 and 3001 three times each, 3000.5: 3001.
  Image in(3, 1, 1, kU16);
  const std::uint16_t row[] = {1000, 3000, 3001};
  std::memcpy(in.data.data(), row, sizeof(row));
  const Image out = epsilon_reference(in, make_params(1, 1, {}));
  const auto s = out.samples<std::uint16_t>();
  EXPECT_EQ(std::vector<std::uint16_t>(s.begin(), s.end()), (std::vector<std::uint16_t>{1000, 3001, 3001}));
}

TEST(EpsilonU16Reference, RefusesOtherTypesAndRanges) {
  const Image in = u16_input(8, 8, 1, testing::fresh_seed());
  EXPECT_NO_THROW(epsilon_reference(in, make_params(4, 65535, {BorderMode::constant, 65535})));
  EXPECT_THROW(epsilon_reference(in, make_params(4, 65536, {})), std::invalid_argument);
  EXPECT_THROW(epsilon_reference(in, make_params(4, 20, {BorderMode::constant, 65536})), std::invalid_argument);
  EXPECT_THROW(epsilon_reference(testing::random_image(8, 8, 1, SampleType::f32, 1), EpsilonParams{}),
               std::invalid_argument);
  EXPECT_THROW(epsilon_reference(Image(8, 8, 2, kU16), EpsilonParams{}), std::invalid_argument);
}

// ---- every 16-bit variant against the reference ------------------------------------------------------

// Runs `variant` into a poisoned u16 output (so unwritten samples show) and returns what it wrote.
Image run_u16(const std::string& variant, const DeviceImage& d_in, const EpsilonParams& params,
              const TuningConfig& config = {}) {
  Context& ctx = test_context();
  Image poisoned(d_in.width, d_in.height, d_in.channels, kU16);
  testing::poison(poisoned);
  DeviceImage out = DeviceImage::upload(ctx, poisoned);
  epsilon(ctx, d_in, out, params, variant, config);
  return out.download(ctx);
}

// A skip must be a declared device limitation (images, local memory, work-group size).
bool skip_is_declared(const std::string& variant, const std::string& why) {
  if (variant == "naive") return why.find("image") != std::string::npos;
  if (variant == "local" || variant == "regblock")
    return why.find("local memory") != std::string::npos || why.find("work-items") != std::string::npos;
  return false;
}

// `variant` on a fresh input of `size` for each parameter set and channel count, against the reference.
void check_u16(const std::string& variant, SizeCase size, const std::vector<int>& radii,
               const std::vector<int>& thresholds, const std::vector<int>& channel_counts) {
  Context& ctx = test_context();
  for (int c : channel_counts) {
    const auto seed = testing::fresh_seed();
    const Image in = u16_input(size.width, size.height, c, seed);
    const DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (int r : radii)
      for (int T : thresholds)
        for (const Border& border : kBorders) {
          const EpsilonParams p = make_params(r, T, border);
          SCOPED_TRACE(
              fmt::format("variant={} size={} channels={} {} seed={}", variant, size_name(size), c, describe(p), seed));
          if (auto why = epsilon_unsupported(ctx.info(), variant, p, size.width, size.height, c, {}, kU16)) {
            EXPECT_TRUE(skip_is_declared(variant, *why)) << *why;
            continue;
          }
          ASSERT_TRUE(testing::images_equal(epsilon_reference(in, p), run_u16(variant, d_in, p)));
        }
  }
}

class EpsilonU16Variant : public ::testing::TestWithParam<std::tuple<std::string, SizeCase>> {};

TEST_P(EpsilonU16Variant, BitExactAgainstReference) {
  const auto& [variant, size] = GetParam();
  check_u16(variant, size, {1, 2, 4}, {std::begin(kThresholds), std::end(kThresholds)}, {1, 4});
  // Windows wider than the smaller images (reflect101 reflects many times).
  if (size.width * size.height <= 64 * 48) check_u16(variant, size, {16}, {5120}, {1, 4});
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, EpsilonU16Variant,
    ::testing::Combine(::testing::ValuesIn(kU16Variants),
                       ::testing::Values(SizeCase{1, 1}, SizeCase{3, 5}, SizeCase{17, 13}, SizeCase{61, 37})),
    [](const auto& test) { return fmt::format("{}_{}", std::get<0>(test.param), size_name(std::get<1>(test.param))); });

// Bright windows at the largest radii (T = 65535: every tap counts): the sums reach 4225 * 65535, past 2^24 (a
// float's exact integers) and 2^16, so a sum kept in floats or in 16 bits shows.
TEST(EpsilonU16Degenerate, BrightWideWindowsKeepExactSums) {
  Context& ctx = test_context();
  const auto seed = testing::fresh_seed();
  for (int c : {1, 4}) {
    Image in = testing::random_image(40, 9, c, kU16, seed);
    for (auto& v : in.samples<std::uint16_t>()) v = std::uint16_t(65000 + v % 536);
    const DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (int r : {8, 32}) {
      const EpsilonParams p = make_params(r, 65535, {BorderMode::reflect101, 0});
      const Image expected = epsilon_reference(in, p);
      for (const std::string& v : kU16Variants) {
        SCOPED_TRACE(fmt::format("variant={} channels={} {} seed={}", v, c, describe(p), seed));
        if (epsilon_unsupported(ctx.info(), v, p, in.width, in.height, c, {}, kU16)) continue;
        ASSERT_TRUE(testing::images_equal(expected, run_u16(v, d_in, p)));
      }
    }
  }
}

// regblock's tap forms and block shapes at 16 bits, one change from the defaults at a time (form 3, NVIDIA's
// f16x2, runs as form 2 for 16-bit samples).
TEST(EpsilonU16Degenerate, RegblockFormsAndBlocksAreExact) {
  Context& ctx = test_context();
  const auto seed = testing::fresh_seed();
  const Image in = u16_input(83, 37, 4, seed);
  const DeviceImage d_in = DeviceImage::upload(ctx, in);
  const EpsilonParams p = make_params(5, 3000, kBorders[2]);
  const Image expected = epsilon_reference(in, p);
  for (const TuningConfig& config : std::vector<TuningConfig>{
           {{"form", 0}}, {{"form", 1}}, {{"form", 2}}, {{"form", 3}}, {{"cols", 2}, {"rows", 8}}}) {
    SCOPED_TRACE(fmt::format("[{}] seed={}", to_string(config), seed));
    if (epsilon_unsupported(ctx.info(), "regblock", p, in.width, in.height, 4, config, kU16)) continue;
    ASSERT_TRUE(testing::images_equal(expected, run_u16("regblock", d_in, p, config)));
  }
}

// ---- views, host calls, refusals, auto -----------------------------------------------------------------

// A u16 view with an offset and a row pitch (in pixels) into a caller's buffer, and one to write: regblock and
// cpu_rows read and write them in place, vec4_branchless through packed copies; bytes outside the output view stay.
TEST(EpsilonU16Views, PitchedViewsMatchTheReference) {
  Context& ctx = test_context();
  for (const auto& [variant, c, copies] : {std::tuple{"regblock", 1, 0},
                                           {"regblock", 4, 0},
                                           {"cpu_rows", 1, 0},
                                           {"cpu_rows", 4, 0},
                                           {"vec4_branchless", 4, 2}}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("variant={} channels={} seed={}", variant, c, seed));
    const int w = 37, h = 29, in_off = 3, in_stride = 41, out_off = 5, out_stride = 45;
    const std::size_t px = std::size_t(c) * 2;
    const Image in = u16_input(w, h, c, seed);
    const EpsilonParams p = make_params(2, 3000, kBorders[seed % 3]);
    const Image want = epsilon_reference(in, p);
    const auto buffer = [&](const Image& image, int off, int stride, std::uint8_t fill) {
      std::vector<std::uint8_t> bytes((std::size_t(off) + std::size_t(stride) * h + 5) * px, fill);
      for (int y = 0; y < h; ++y)
        std::memcpy(bytes.data() + (off + std::size_t(stride) * y) * px, image.row(y), image.row_bytes());
      return bytes;
    };
    std::vector<std::uint8_t> src = buffer(in, in_off, in_stride, 0x3C), dst(buffer(want, out_off, out_stride, 0xA5));
    for (int y = 0; y < h; ++y)  // poison the output view's rows too
      std::memset(dst.data() + (out_off + std::size_t(out_stride) * y) * px, 0xA5, want.row_bytes());
    cl::Buffer src_buf(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, src.size(), src.data());
    cl::Buffer dst_buf(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, dst.size(), dst.data());
    const auto in_view = DeviceImage::view(ctx, src_buf(), w, h, c, in_off * px, in_stride * px, kU16);
    auto out_view = DeviceImage::view(ctx, dst_buf(), w, h, c, out_off * px, out_stride * px, kU16);
    const auto events = epsilon(ctx, in_view, out_view, p, variant);
    cl::Event::waitForEvents(events);
    EXPECT_EQ(testing::rect_copies(events), copies);
    std::vector<std::uint8_t> got(dst.size());
    check_cl(ctx.queue().enqueueReadBuffer(dst_buf, CL_TRUE, 0, got.size(), got.data()), "clEnqueueReadBuffer");
    EXPECT_EQ(got, buffer(want, out_off, out_stride, 0xA5));
  }
}

// Host images of every channel count: grey and RGBA directly, RGB as RGBA (alpha 65535), grey+alpha as its grey
// plane with alpha copied.
TEST(EpsilonU16Host, EveryChannelCountMatchesTheReference) {
  Context& ctx = test_context();
  const EpsilonParams p = make_params(3, 5120, kBorders[1]);
  for (const std::string variant : {"auto", "cpu_rows", "vec8"})
    for (int c : {1, 2, 3, 4}) {
      const auto seed = testing::fresh_seed();
      SCOPED_TRACE(fmt::format("variant={} channels={} seed={}", variant, c, seed));
      const Image in = u16_input(45, 31, c, seed);
      Image expected = in;
      if (c == 2) {
        Image grey(45, 31, 1, kU16);
        const auto s = in.samples<std::uint16_t>();
        auto g = grey.samples<std::uint16_t>();
        for (std::size_t i = 0; i < grey.pixel_count(); ++i) g[i] = s[2 * i];
        const Image filtered = epsilon_reference(grey, p);
        auto e = expected.samples<std::uint16_t>();
        for (std::size_t i = 0; i < grey.pixel_count(); ++i) e[2 * i] = filtered.samples<std::uint16_t>()[i];
      } else {
        expected = from_filter_layout(epsilon_reference(to_filter_layout(in), p), c);
      }
      const Image out = epsilon(ctx, in, p, variant);
      EXPECT_EQ(out.type, kU16);
      EXPECT_TRUE(testing::images_equal(expected, out));
    }
}

// Variants without a 16-bit form refuse u16 calls, naming those that take them; the list above is every other one.
TEST(EpsilonU16Host, EveryOtherVariantRefusesU16) {
  Context& ctx = test_context();
  const EpsilonParams p = make_params(2, 3000, {});
  // A missing device feature is reported first: the half variants' cl_khr_fp16 is listed here.
  DeviceInfo device = ctx.info();
  device.extensions += " cl_khr_fp16";
  for (const auto& v : epsilon_variants()) {
    const auto why = epsilon_unsupported(device, v.name, p, 64, 48, 1, {}, kU16);
    const bool refused = why && why->find("takes 8-bit samples only") != std::string::npos;
    const bool listed = std::find(kU16Variants.begin(), kU16Variants.end(), v.name) != kU16Variants.end();
    EXPECT_NE(refused, listed) << v.name << ": " << why.value_or("");
    if (refused) {
      EXPECT_NE(why->find("regblock"), std::string::npos) << *why;
      EXPECT_NE(why->find("cpu_rows"), std::string::npos) << *why;
    }
  }
  const Image in = u16_input(16, 8, 1, testing::fresh_seed());
  DeviceImage d_in = DeviceImage::upload(ctx, in), d_out = DeviceImage::allocate(ctx, 16, 8, 1, kU16);
  EXPECT_THROW(epsilon(ctx, d_in, d_out, p, "packed"), std::invalid_argument);
  EXPECT_THROW(epsilon(ctx, in, p, "vec4_half"), std::invalid_argument);
  EXPECT_THROW(epsilon(ctx, in, make_params(2, 65536, {})), std::invalid_argument);
}

// "auto" for u16 input picks a variant that takes it, here and under the rule's three device kinds.
TEST(EpsilonU16Host, AutoPicksA16BitVariant) {
  Context& ctx = test_context();
  const auto takes_u16 = [](const std::string& v) {
    return std::find(kU16Variants.begin(), kU16Variants.end(), v) != kU16Variants.end();
  };
  for (int r : {1, 4, 32})
    for (int c : {1, 4}) {
      const EpsilonParams p = make_params(r, 5120, {});
      const std::string v = epsilon_auto_variant(ctx.info(), p, 640, 480, c, kU16);
      EXPECT_TRUE(takes_u16(v)) << v;
      EXPECT_FALSE(epsilon_unsupported(ctx.info(), v, p, 640, 480, c, {}, kU16)) << v << " r=" << r;
      const std::string chosen = epsilon_choose(ctx, p, "auto", 640, 480, c, {}, kU16).variant;
      EXPECT_TRUE(takes_u16(chosen)) << chosen;
    }
  DeviceInfo device = ctx.info();
  device.local_mem_bytes = 48 * 1024;
  const EpsilonParams nine = make_params(4, 5120, {});
  device.type = CL_DEVICE_TYPE_CPU;
  EXPECT_EQ(epsilon_auto_variant(device, nine, 640, 480, 1, kU16), "cpu_rows");
  device.type = CL_DEVICE_TYPE_GPU;
  EXPECT_EQ(epsilon_auto_variant(device, nine, 640, 480, 4, kU16), "regblock");
  device.type = CL_DEVICE_TYPE_ACCELERATOR;
  EXPECT_EQ(epsilon_auto_variant(device, nine, 640, 480, 1, kU16), "vec4_branchless");
  // And a u16 call through "auto" is exact.
  const Image in = u16_input(67, 23, 4, testing::fresh_seed());
  EXPECT_TRUE(testing::images_equal(epsilon_reference(in, nine), epsilon(ctx, in, nine)));
}

}  // namespace
}  // namespace clf
