// SPDX-License-Identifier: Apache-2.0
// The box blur on 16-bit samples: the reference against a brute-force d*d sum, every variant that takes them
// bit-exact against the reference (odd sizes, every border with a constant past 8 bits, windows wider than the
// image, saturated images at d = 255), host calls of every channel count, a pitched view, and the refusals: d past
// 255, 8-bit-only variants, other sample types. Each variant builds once a channel count.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "clfilters/box_blur.hpp"
#include "testing/callers_buffer.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::test_context;

// The variants with a 16-bit form.
const std::vector<std::string> kU16Variants = {"naive",      "block4x4",      "two_pass", "separable_sliding",
                                               "local_tile", "fused_sliding", "cpu_bands"};

// Every border mode, the constant one at 0 and at values that need 16 bits.
const Border kBorders16[] = {{BorderMode::replicate, 0},
                             {BorderMode::reflect101, 0},
                             {BorderMode::constant, 0},
                             {BorderMode::constant, 51234},
                             {BorderMode::constant, 65535}};

// Brute force straight from docs/SPEC.md: sum the d*d window, border applied per coordinate, round half up.
Image brute_force_box16(const Image& in, int d, Border border) {
  Image out(in.width, in.height, in.channels, SampleType::u16);
  const auto src = in.samples<std::uint16_t>();
  auto dst = out.samples<std::uint16_t>();
  const int r = d / 2, c = in.channels;
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x)
      for (int ch = 0; ch < c; ++ch) {
        std::uint64_t s = 0;
        for (int j = 0; j < d; ++j)
          for (int i = 0; i < d; ++i) {
            const int xx = border_index(x - r + i, in.width, border.mode);
            const int yy = border_index(y - r + j, in.height, border.mode);
            s += (xx < 0 || yy < 0) ? std::uint64_t(border.value) : src[(std::size_t(yy) * in.width + xx) * c + ch];
          }
        const std::uint64_t n = std::uint64_t(d) * d;
        dst[(std::size_t(y) * in.width + x) * c + ch] = std::uint16_t(std::min<std::uint64_t>(65535, (s + n / 2) / n));
      }
  return out;
}

Image filled16(int w, int h, int c, std::uint16_t value) {
  Image in(w, h, c, SampleType::u16);
  for (auto& v : in.samples<std::uint16_t>()) v = value;
  return in;
}

TEST(BoxBlurReference16, MatchesBruteForce) {
  for (auto [w, h] : {std::pair{1, 1}, {1, 7}, {7, 1}, {13, 17}, {20, 9}})
    for (int d : {1, 2, 3, 4, 9, 30, 31})
      for (const Border& border : kBorders16)
        for (int c : {1, 4}) {
          const auto seed = testing::fresh_seed();
          SCOPED_TRACE(fmt::format("{}x{}x{} d={} border={} seed={}", w, h, c, d, to_string(border), seed));
          const Image in = testing::random_image(w, h, c, SampleType::u16, seed);
          const Image want = brute_force_box16(in, d, border);
          const Image got = box_blur_reference(in, {d, border}, 2);
          ASSERT_EQ(got.type, SampleType::u16);
          ASSERT_TRUE(testing::images_equal(want, got));
        }
}

TEST(BoxBlurReference16, SaturatedAndHalfwayValues) {
  // 65535 everywhere stays 65535 at the largest diameter; [0 65535] with d = 2 has the mean 32767.5, rounded up.
  const Image out = box_blur_reference(filled16(9, 5, 4, 65535), {255, {BorderMode::reflect101, 0}});
  for (auto v : out.samples<std::uint16_t>()) ASSERT_EQ(v, 65535);
  Image in(2, 1, 1, SampleType::u16);
  in.samples<std::uint16_t>()[1] = 65535;
  EXPECT_EQ(box_blur_reference(in, {2, {BorderMode::replicate, 0}}).samples<std::uint16_t>()[1], 32768);
}

TEST(BoxBlurReference16, RefusesOtherSampleTypes) {
  for (SampleType t : {SampleType::i16, SampleType::f32}) {
    try {
      box_blur_reference(testing::random_image(4, 4, 1, t, 1), {3, {}});
      ADD_FAILURE() << "took " << sample_type_name(t);
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "box_blur_reference takes u8 or u16 images with 1 or 4 channels");
    }
  }
}

// ---- the variants against the reference ------------------------------------------------------------------

// `variant` blurs `in` into a poisoned output (an unwritten pixel shows) exactly as the reference does.
void expect_exact16(Context& ctx, const std::string& variant, const Image& in, const BoxBlurParams& params) {
  ASSERT_FALSE(
      box_blur_unsupported(ctx.info(), variant, params, in.width, in.height, in.channels, {}, SampleType::u16));
  const DeviceImage d_in = DeviceImage::upload(ctx, in);
  ASSERT_EQ(d_in.type, SampleType::u16);
  const Image got =
      testing::run_poisoned(ctx, d_in, [&](DeviceImage& out) { box_blur(ctx, d_in, out, params, variant); });
  ASSERT_EQ(got.type, SampleType::u16);
  ASSERT_TRUE(testing::images_equal(box_blur_reference(in, params), got));
}

class BoxBlur16 : public ::testing::TestWithParam<std::string> {};

// Odd and prime sizes, widths not a multiple of 4, 8 or 16, and d = 75 wider than all of them.
TEST_P(BoxBlur16, RandomImagesMatchTheReference) {
  const std::string& variant = GetParam();
  Context& ctx = test_context();
  for (int c : {1, 4})
    for (auto [w, h] : {std::pair{1, 1}, {13, 7}, {67, 29}}) {
      const auto seed = testing::fresh_seed();
      const Image in = testing::random_image(w, h, c, SampleType::u16, seed);
      for (int d : {1, 2, 5, 16, 75})
        for (const Border& border : kBorders16) {
          if (variant == "two_pass" && d % 2) continue;  // even d only
          SCOPED_TRACE(fmt::format("{} {}x{}x{} d={} border={} seed={}", variant, w, h, c, d, to_string(border), seed));
          expect_exact16(ctx, variant, in, {d, border});
        }
    }
}

// The largest sums: 65535 everywhere, or 0 inside a constant border of 65535, up to d = 255 (65535 d^2 just
// below 2^32), and fused_sliding's 8-bit rounding bound (d = 128, 129) on random samples.
TEST_P(BoxBlur16, ExtremesMatchTheReference) {
  const std::string& variant = GetParam();
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image random = testing::random_image(21, 6, c, SampleType::u16, seed);
    for (int d : {128, 129, 254, 255}) {
      if (variant == "two_pass" && d % 2) continue;
      SCOPED_TRACE(fmt::format("{} c={} d={} seed={}", variant, c, d, seed));
      expect_exact16(ctx, variant, filled16(19, 6, c, 65535), {d, {BorderMode::reflect101, 0}});
      expect_exact16(ctx, variant, filled16(19, 6, c, 0), {d, {BorderMode::constant, 65535}});
      expect_exact16(ctx, variant, random, {d, {BorderMode::constant, 65535}});
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, BoxBlur16, ::testing::ValuesIn(kU16Variants),
                         [](const auto& test) { return test.param; });

// fused_sliding and cpu_bands round 16-bit window sums by an FP32 estimate and an integer correction: every sum
// whose mean is just below or at the point where (s + n/2) / n steps up, where an estimate off by one either way
// shows, across the range of sums. A row of zeros with one sample b in every d columns, inside a constant border c:
// each window sums b + (n - d) c.
TEST(BoxBlur16Rounding, EveryStepOfTheQuotientMatchesTheReference) {
  Context& ctx = test_context();
  for (const char* variant : {"fused_sliding", "cpu_bands"})
    for (int d : {3, 15, 127, 255})
      for (int c : {0, 30000, 65535}) {
        const std::uint64_t n = std::uint64_t(d) * d, base = (n - std::uint64_t(d)) * std::uint64_t(c);
        std::vector<std::uint16_t> b;
        for (std::uint64_t k = std::max<std::uint64_t>(1, base / n); k * n <= base + 65535 + n; ++k)
          for (std::uint64_t s : {k * n - n / 2 - 1, k * n - n / 2})
            if (s >= base && s - base <= 65535) b.push_back(std::uint16_t(s - base));
        if (b.empty()) continue;
        for (int channels : {1, 4}) {
          Image in(int(b.size()) * d, 1, channels, SampleType::u16);
          auto px = in.samples<std::uint16_t>();
          for (std::size_t j = 0; j < b.size(); ++j)
            for (int ch = 0; ch < channels; ++ch)
              px[j * std::size_t(d) * std::size_t(channels) + std::size_t(ch)] = b[j];
          SCOPED_TRACE(fmt::format("{} d={} c={} channels={} sums={}", variant, d, c, channels, b.size()));
          expect_exact16(ctx, variant, in, {d, {BorderMode::constant, c}});
        }
      }
}

// Band heights that do and do not divide the height: cpu_bands' tunable.
TEST(BoxBlur16CpuBands, EveryBandHeightMatchesTheReference) {
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(83, 61, c, SampleType::u16, seed);
    for (int rows : {8, 32, 128}) {
      const BoxBlurParams params{31, kBorders16[rows % 5]};
      SCOPED_TRACE(fmt::format("c={} rows={} seed={}", c, rows, seed));
      const DeviceImage d_in = DeviceImage::upload(ctx, in);
      const Image got = testing::run_poisoned(ctx, d_in, [&](DeviceImage& out) {
        box_blur(ctx, d_in, out, params, "cpu_bands", {{"rows", rows}});
      });
      ASSERT_TRUE(testing::images_equal(box_blur_reference(in, params), got));
    }
  }
}

// ---- host calls, views, the auto rule and refusals -----------------------------------------------------

TEST(BoxBlur16Host, EveryChannelCountMatchesTheReference) {
  Context& ctx = test_context();
  for (int c : {1, 2, 3, 4}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("channels={} seed={}", c, seed));
    const Image in = testing::random_image(45, 31, c, SampleType::u16, seed);
    const BoxBlurParams params{5, {BorderMode::constant, 40000}};
    const Image got = box_blur(ctx, in, params);
    ASSERT_EQ(got.type, SampleType::u16);
    ASSERT_EQ(got.channels, c);
    const Image expected = from_filter_layout(box_blur_reference(to_filter_layout(in), params), c);
    ASSERT_TRUE(testing::images_equal(expected, got));
  }
}

// A pitched, offset input view and output view in callers' buffers: the variants that take views read and write
// them in place, the rest through packed copies; nothing outside the output view changes.
TEST(BoxBlur16Host, PitchedViewsMatchTheReference) {
  Context& ctx = test_context();
  const int w = 61, h = 23;
  for (const char* variant : {"cpu_bands", "fused_sliding", "separable_sliding", "naive"})
    for (int c : {1, 4}) {
      const auto seed = testing::fresh_seed();
      SCOPED_TRACE(fmt::format("{} c={} seed={}", variant, c, seed));
      const Image in = testing::random_image(w, h, c, SampleType::u16, seed);
      const BoxBlurParams params{9, {BorderMode::constant, 300}};
      const std::size_t px = std::size_t(c) * 2;
      const int in_off = 3, in_stride = 67, out_off = 5, out_stride = 71;
      std::vector<std::uint8_t> src((in_off + std::size_t(in_stride) * h) * px, 0x3C);
      for (int y = 0; y < h; ++y) std::memcpy(src.data() + (in_off + y * in_stride) * px, in.row(y), in.row_bytes());
      std::vector<std::uint8_t> dst((out_off + std::size_t(out_stride) * h + 4) * px, 0xA5);
      cl::Buffer src_buf(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, src.size(), src.data());
      cl::Buffer dst_buf(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, dst.size(), dst.data());
      const auto in_view = DeviceImage::view(ctx, src_buf(), w, h, c, in_off * px, in_stride * px, SampleType::u16);
      auto out_view = DeviceImage::view(ctx, dst_buf(), w, h, c, out_off * px, out_stride * px, SampleType::u16);
      const auto events = box_blur(ctx, in_view, out_view, params, variant);
      cl::Event::waitForEvents(events);
      EXPECT_EQ(testing::rect_copies(events), std::string(variant) == "naive" ? 2 : 0);
      const Image ref = box_blur_reference(in, params);
      std::vector<std::uint8_t> want = dst;
      for (int y = 0; y < h; ++y)
        std::memcpy(want.data() + (out_off + y * out_stride) * px, ref.row(y), ref.row_bytes());
      std::vector<std::uint8_t> got(dst.size());
      check_cl(ctx.queue().enqueueReadBuffer(dst_buf, CL_TRUE, 0, got.size(), got.data()), "clEnqueueReadBuffer");
      ASSERT_TRUE(got == want);
    }
}

TEST(BoxBlur16Host, DiametersPast255AreRefused) {
  Context& ctx = test_context();
  EXPECT_NO_THROW(box_blur_check_params({255, {}}, SampleType::u16));
  EXPECT_NO_THROW(box_blur_check_params({300, {}}, SampleType::u8));
  try {
    box_blur_check_params({300, {}}, SampleType::u16);
    ADD_FAILURE() << "took d = 300";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "diameter must be 1..255 for 16-bit samples, got 300");
  }
  const Image in = testing::random_image(8, 8, 4, SampleType::u16, testing::fresh_seed());
  EXPECT_THROW(box_blur(ctx, in, {256, {}}), std::invalid_argument);
  EXPECT_THROW(box_blur(ctx, in, {3, {BorderMode::constant, 65536}}), std::invalid_argument);
}

TEST(BoxBlur16Host, EightBitVariantsRefuseAndNameTheOthers) {
  Context& ctx = test_context();
  const BoxBlurParams p{9, {}};
  for (const char* v : {"fused_blocks", "fused_prefix", "fused_packed", "fused_wide"}) {
    const auto why = box_blur_unsupported(ctx.info(), v, p, 64, 64, 4, {}, SampleType::u16);
    ASSERT_TRUE(why) << v;
    EXPECT_EQ(*why, fmt::format("{} takes 8-bit samples only (16-bit: naive, block4x4, two_pass, separable_sliding, "
                                "local_tile, fused_sliding, cpu_bands)",
                                v));
  }
  const Image in = testing::random_image(16, 8, 4, SampleType::u16, testing::fresh_seed());
  EXPECT_THROW(box_blur(ctx, in, p, "fused_packed"), std::invalid_argument);
}

// "auto" on this device picks a variant that takes u16 and runs it; the built-in rule names fused_sliding on GPUs,
// cpu_bands on CPUs, and falls back to separable_sliding or naive where those do not fit.
TEST(BoxBlur16Host, AutoPicksA16BitVariant) {
  Context& ctx = test_context();
  for (int c : {1, 4})
    for (int d : {3, 31, 255}) {
      const BoxBlurParams p{d, {}};
      const VariantChoice choice = box_blur_choose(ctx, p, "auto", 640, 480, c, {}, SampleType::u16);
      EXPECT_FALSE(box_blur_unsupported(ctx.info(), choice.variant, p, 640, 480, c, {}, SampleType::u16))
          << choice.variant;
    }
  const Image in = testing::random_image(37, 21, 4, SampleType::u16, testing::fresh_seed());
  EXPECT_TRUE(testing::images_equal(box_blur_reference(in, {7, {}}), box_blur(ctx, in, {7, {}})));

  DeviceInfo gpu = ctx.info();
  gpu.type = CL_DEVICE_TYPE_GPU;
  gpu.local_mem_bytes = 48 * 1024;
  gpu.max_work_group_size = 1024;
  DeviceInfo cpu = ctx.info();
  cpu.type = CL_DEVICE_TYPE_CPU;
  for (int c : {1, 4})
    for (int d : {1, 9, 63, 255}) {
      EXPECT_EQ(box_blur_auto_variant(gpu, {d, {}}, 8192, 8192, c, SampleType::u16), "fused_sliding");
      EXPECT_EQ(box_blur_auto_variant(cpu, {d, {}}, 1920, 1080, c, SampleType::u16), "cpu_bands");
    }
  cpu.max_alloc_bytes = 64 * 1024;  // no room for cpu_bands' scratch or separable_sliding's intermediate
  EXPECT_EQ(box_blur_auto_variant(cpu, {9, {}}, 1920, 1080, 4, SampleType::u16), "naive");
}

}  // namespace
}  // namespace clf
