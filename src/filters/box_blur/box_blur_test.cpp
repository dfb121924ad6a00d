// SPDX-License-Identifier: Apache-2.0
// Every box blur variant, bit-exact against the CPU reference, across sizes, diameters, borders and
// channel counts; the reference itself is checked against a brute-force d*d sum.
#include "clfilters/box_blur.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <tuple>

#include "clfilters/image_io.hpp"
#include "filters/box_blur/box_blur_internal.hpp"
#include "runtime/launch.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::size_name;
using testing::SizeCase;
using testing::test_context;

using testing::kBorders;

// Brute force straight from docs/SPEC.md: sum the d*d window, border applied per coordinate.
Image brute_force_box(const Image& in, int d, Border border) {
  Image out(in.width, in.height, in.channels);
  const auto src = in.samples<std::uint8_t>();
  auto dst = out.samples<std::uint8_t>();
  const int r = d / 2, c = in.channels;
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x)
      for (int ch = 0; ch < c; ++ch) {
        long s = 0;
        for (int j = 0; j < d; ++j)
          for (int i = 0; i < d; ++i) {
            const int xx = border_index(x - r + i, in.width, border.mode);
            const int yy = border_index(y - r + j, in.height, border.mode);
            s += (xx < 0 || yy < 0) ? border.value : src[(std::size_t(yy) * in.width + xx) * c + ch];
          }
        const long n = long(d) * d;
        dst[(std::size_t(y) * in.width + x) * c + ch] = std::uint8_t(std::min(255L, (s + n / 2) / n));
      }
  return out;
}

TEST(BoxBlurReference, MatchesBruteForce) {
  for (auto [w, h] : {std::pair{1, 1}, {1, 7}, {7, 1}, {13, 17}, {20, 9}})
    for (int d : {1, 2, 3, 4, 8, 9, 11, 30, 31})
      for (const Border& border : kBorders)
        for (int c : {1, 4}) {
          const auto seed = testing::fresh_seed();
          SCOPED_TRACE(fmt::format("{}x{}x{} d={} border={} seed={}", w, h, c, d, to_string(border), seed));
          const Image in = testing::random_image(w, h, c, SampleType::u8, seed);
          ASSERT_TRUE(testing::images_equal(brute_force_box(in, d, border), box_blur_reference(in, {d, border}, 2)));
        }
}

TEST(BoxBlurReference, ConstantImageStaysConstant) {
  Image in(37, 23, 4);
  for (auto& v : in.samples<std::uint8_t>()) v = 201;
  const Image out = box_blur_reference(in, {9, {BorderMode::reflect101, 0}});
  for (auto v : out.samples<std::uint8_t>()) ASSERT_EQ(v, 201);
}

TEST(BoxBlurReference, RoundsHalfUp) {
  // The 2x1 image [0 1] with d=2, replicate: at x=1 the window is columns 0..1 of a replicated row,
  // {0, 1, 0, 1}, mean 0.5, which SPEC rounds up to 1; at x=0 it is all zeros.
  Image in(2, 1, 1);
  in.samples<std::uint8_t>()[0] = 0;
  in.samples<std::uint8_t>()[1] = 1;
  const Image out = box_blur_reference(in, {2, {BorderMode::replicate, 0}});
  EXPECT_EQ(out.samples<std::uint8_t>()[1], 1);
  EXPECT_EQ(out.samples<std::uint8_t>()[0], 0);
}

// ---- every variant against the reference ----------------------------------------------------

// Runs `variant` into a poisoned output, so an unwritten pixel shows, and returns what came back.
Image blur_on_device(Context& ctx, const DeviceImage& in, const BoxBlurParams& params, const std::string& variant,
                     const TuningConfig& config = {}) {
  return testing::run_poisoned(ctx, in, [&](DeviceImage& out) { box_blur(ctx, in, out, params, variant, config); });
}

// `variant` with `config` runs this call and returns the reference's output bit for bit.
void expect_exact(Context& ctx, const DeviceImage& d_in, const Image& expected, const BoxBlurParams& params,
                  const std::string& variant, const TuningConfig& config) {
  ASSERT_FALSE(box_blur_unsupported(ctx.info(), variant, params, d_in.width, d_in.height, d_in.channels, config));
  ASSERT_TRUE(testing::images_equal(expected, blur_on_device(ctx, d_in, params, variant, config)));
}

// Runs `variant` on a fresh random image for each diameter, border and channel count and compares
// with the reference. Poisoned outputs prove every pixel is written.
void check_variant(const std::string& variant, SizeCase size, const std::vector<int>& diameters,
                   const std::vector<Border>& borders, const std::vector<int>& channel_counts) {
  Context& ctx = test_context();
  for (int c : channel_counts) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(size.width, size.height, c, SampleType::u8, seed);
    DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (int d : diameters)
      for (const Border& border : borders) {
        const BoxBlurParams params{d, border};
        SCOPED_TRACE(fmt::format("variant={} size={} channels={} d={} border={} seed={}", variant, size_name(size), c,
                                 d, to_string(border), seed));
        if (auto why = box_blur_unsupported(ctx.info(), variant, params, size.width, size.height, c)) {
          // Only the documented limitations may skip: two_pass on odd d, local_tile beyond local memory,
          // fused_sliding beyond its rounding's range.
          EXPECT_TRUE((variant == "two_pass" && d % 2 == 1) || variant == "local_tile" ||
                      (variant == "fused_sliding" && d > 2047) || (variant == "fused_blocks" && (c == 1 || d > 2047)) ||
                      (variant == "fused_prefix" && (c == 1 || d > 128)) ||
                      (variant == "fused_packed" && (c == 1 || d < 2 || d > 15)) ||
                      (variant == "fused_wide" && (c == 1 || d < 2 || d > 64)))
              << *why;
          continue;
        }
        const Image got = blur_on_device(ctx, d_in, params, variant);
        ASSERT_TRUE(testing::images_equal(box_blur_reference(in, params), got));
      }
  }
}

const std::vector<int> kDiameters = {1, 2, 3, 4, 8, 9, 11, 31};

class BoxBlurVariant : public ::testing::TestWithParam<std::tuple<std::string, SizeCase>> {};

TEST_P(BoxBlurVariant, BitExactAgainstReference) {
  const auto& [variant, size] = GetParam();
  const std::vector<Border> all_borders(std::begin(kBorders), std::end(kBorders));
  check_variant(variant, size, kDiameters, all_borders, {1, 4});
  // A window wider than the image. Beyond 64x64 the O(d^2) variants take seconds per run on a CPU, so
  // there only reflect101 runs: the mode that must reflect more than once, the hardest to get right.
  const int wide = std::max(size.width, size.height) + 2;
  const bool large = size.width * size.height > 64 * 64;
  check_variant(variant, size, {wide}, large ? std::vector<Border>{kBorders[1]} : all_borders, {1, 4});
}

INSTANTIATE_TEST_SUITE_P(Small, BoxBlurVariant,
                         ::testing::Combine(::testing::ValuesIn(testing::variant_names(box_blur_variants())),
                                            ::testing::Values(SizeCase{1, 1}, SizeCase{1, 7}, SizeCase{7, 1},
                                                              SizeCase{13, 17}, SizeCase{64, 64}, SizeCase{257, 129})),
                         [](const auto& test) {
                           return fmt::format("{}_{}", std::get<0>(test.param), size_name(std::get<1>(test.param)));
                         });

// 1920x1080: every variant, every diameter, both channel counts; the border modes rotate over the
// diameters (each mode meets small and large windows) to keep the suite's run time on PoCL sane.
class BoxBlurFullHd : public ::testing::TestWithParam<std::string> {};

TEST_P(BoxBlurFullHd, BitExactAgainstReference) {
  const std::string& variant = GetParam();
  for (std::size_t i = 0; i < kDiameters.size(); ++i)
    check_variant(variant, {1920, 1080}, {kDiameters[i]}, {kBorders[i % 4]}, {1, 4});
}

// The O(1) variant also takes a window wider than a full-HD frame (the others would need d^2 work).
TEST(BoxBlurFullHdWide, SeparableSlidingTakesAWindowWiderThanTheImage) {
  check_variant("separable_sliding", {1920, 1080}, {1923}, {kBorders[1], kBorders[3]}, {4});
}

// The fused variants change code paths with their tunables: vector width (items), 16-bit window sums
// (d <= 15), block sums (d > items), strips shorter and longer than the window, and the aligned path
// (widths divisible by items) next to the border path at the image edges. The sample draws tunable
// combinations, each a program build, and checks every diameter on each: the builds cost the time.
TEST(BoxBlurFusedTunables, EveryTunableCombinationMatchesTheReference) {
  Context& ctx = test_context();
  const Image in = testing::random_image(200, 90, 4, SampleType::u8, testing::fresh_seed());
  DeviceImage d_in = DeviceImage::upload(ctx, in);
  testing::CaseSample sample(0.05);
  for (const std::string variant : {"fused_sliding", "fused_blocks", "fused_prefix"}) {
    const VariantInfo& info = *find_variant(box_blur_variants(), variant);
    for (const TuningConfig& config : all_configs(info)) {
      if (!sample.take()) continue;
      for (int d : {3, 15, 16, 31}) {
        const BoxBlurParams params{d, kBorders[d % 4]};
        SCOPED_TRACE(fmt::format("variant={} d={} config={} sample={}", variant, d, to_string(config), sample.seed()));
        if (box_blur_unsupported(ctx.info(), variant, params, in.width, in.height, 4, config)) continue;
        const Image got = blur_on_device(ctx, d_in, params, variant, config);
        ASSERT_TRUE(testing::images_equal(box_blur_reference(in, params), got));
      }
    }
  }
}

// fused_prefix: windows up to its limit of d = 128 (FP32 sums), odd and even d (block corrections at
// several offsets within a block: WIN_A, WIN_AM), the last partial band on an odd width, and strips
// shorter and longer than the window and the image. Few d: each (items, d mod 2 items) is a program build.
TEST(BoxBlurFusedPrefix, WideWindowsAndEveryShapeMatchTheReference) {
  Context& ctx = test_context();
  const Image in = testing::random_image(301, 75, 4, SampleType::u8, testing::fresh_seed());
  DeviceImage d_in = DeviceImage::upload(ctx, in);
  testing::CaseSample sample(0.5);
  for (int d : {6, 13, 17, 64, 127, 128})
    for (int items : {8, 4, 2})
      for (int local_x : {64, 256})
        for (int strip : {4, 128}) {
          const TuningConfig config = {{"items", items}, {"local_x", local_x}, {"strip", strip}};
          const BoxBlurParams params{d, kBorders[(d + items) % 4]};
          SCOPED_TRACE(fmt::format("d={} config={} sample={}", d, to_string(config), sample.seed()));
          if (box_blur_unsupported(ctx.info(), "fused_prefix", params, in.width, in.height, 4, config) ||
              !sample.take())
            continue;
          const Image got = blur_on_device(ctx, d_in, params, "fused_prefix", config);
          ASSERT_TRUE(testing::images_equal(box_blur_reference(in, params), got));
        }
  // Beyond its limit it says so.
  EXPECT_TRUE(box_blur_unsupported(ctx.info(), "fused_prefix", {129, {}}, 300, 70, 4));
}

// fused_prefix's row prefetch (a ring of `prefetch` rows per work-item): every depth against the
// reference, with strips whose length is not a multiple of it (3, 8 of 37 rows: 8, 8, 8, 8, 5) and one
// longer than the image (64), windows wider than the strip and the image (63), each border mode, a width
// that is not a multiple of items (131: every work-group takes the border path) and one that is (520:
// the middle work-groups take the aligned vector path). One local_x: each work-group size is a build.
TEST(BoxBlurFusedPrefix, EveryPrefetchDepthMatchesTheReference) {
  Context& ctx = test_context();
  const Border borders[] = {kBorders[0], kBorders[1], kBorders[3]};
  const auto sample_seed = testing::fresh_seed();
  for (int width : {131, 520}) {
    testing::CaseSample sample(0.4, sample_seed);  // the same cases on both widths: they share their builds
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(width, 37, 4, SampleType::u8, seed);
    DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (int d : {1, 2, 3, 9, 31, 63})
      for (const Border& border : borders) {
        const BoxBlurParams params{d, border};
        const Image expected = box_blur_reference(in, params);
        for (int items : {4, 8})
          for (int strip : {3, 8, 64})
            for (int prefetch : {1, 2, 4}) {
              // The ring with each depth but one (each is a build) where it fits the device's local memory (at
              // d=63 and items=8 it needs 64 KiB); mirrored and plain strips alternate.
              const TuningConfig config = {{"items", items},
                                           {"local_x", 32},
                                           {"strip", strip},
                                           {"prefetch", prefetch},
                                           {"ring", prefetch != 2 && d <= 31},
                                           {"mirror", (prefetch + strip + d) % 2}};
              if (!sample.take()) continue;
              SCOPED_TRACE(fmt::format("{}x37 d={} border={} config={} seed={} sample={}", width, d, to_string(border),
                                       to_string(config), seed, sample_seed));
              ASSERT_NO_FATAL_FAILURE(expect_exact(ctx, d_in, expected, params, "fused_prefix", config));
            }
      }
  }
}

// The per-d band variants (fused_packed, fused_wide) over `diameters` and `items_list`, with strips of 3
// (shorter than the window, not a multiple of prefetch) and 64 rows (longer than the image), on widths that
// take the border path (131) and the aligned vector path (520, middle work-groups), border modes by turn;
// `more(d, items, strip)` adds the tunables that vary with them (pair 0 unless it sets pair). Against the reference,
// poisoned outputs; a `share` of the (d, items, strip) cases, the same on both widths.
void expect_band_shapes_match(const char* variant, std::initializer_list<int> diameters,
                              std::initializer_list<int> items_list,
                              const std::function<TuningConfig(int d, int items, int strip)>& more,
                              std::initializer_list<int> strips = {3, 64}, double share = 0.5) {
  Context& ctx = test_context();
  const auto sample_seed = testing::fresh_seed();
  for (int width : {131, 520}) {
    testing::CaseSample sample(share, sample_seed);  // the same cases on both widths: they share their builds
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(width, 37, 4, SampleType::u8, seed);
    DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (int d : diameters) {
      const BoxBlurParams params{d, kBorders[(d + width) % 4]};
      const Image expected = box_blur_reference(in, params);
      for (int items : items_list)
        for (int strip : strips) {
          TuningConfig config = {{"items", items}, {"local_x", 32}, {"strip", strip}};
          config.merge(more(d, items, strip));
          config.emplace("pair", 0);
          if (!sample.take()) continue;
          SCOPED_TRACE(fmt::format("{} {}x37 d={} border={} config={} seed={} sample={}", variant, width, d,
                                   to_string(params.border), to_string(config), seed, sample_seed));
          ASSERT_NO_FATAL_FAILURE(expect_exact(ctx, d_in, expected, params, variant, config));
        }
    }
  }
}

// Diameters `outside` the variant's range, and a grey image at `inside`, are refused.
void expect_band_refusals(const char* variant, std::initializer_list<int> outside, int inside) {
  Context& ctx = test_context();
  for (int d : outside) EXPECT_TRUE(box_blur_unsupported(ctx.info(), variant, {d, {}}, 300, 70, 4)) << d;
  EXPECT_TRUE(box_blur_unsupported(ctx.info(), variant, {inside, {}}, 300, 70, 1));
}

// fused_packed is built per d (2..15) and items: both ends of its range and diameters whose window starts
// at every parity within a block (WIN_A odd and even), each items with a different prefetch depth, the ring,
// mirrored strips and direct row loads on and off.
TEST(BoxBlurFusedPacked, EveryDiameterAndShapeMatchesTheReference) {
  expect_band_shapes_match("fused_packed", {2, 3, 6, 9, 14, 15}, {2, 4, 8}, [](int d, int items, int strip) {
    return TuningConfig{{"prefetch", items == 2   ? 4
                                     : items == 4 ? 1
                                                  : 2},
                        {"ring", items != 4},
                        {"mirror", (strip + d + items) % 2},
                        {"direct", (d + items / 2) % 2}};
  });
  expect_band_refusals("fused_packed", {1, 16}, 9);
}

// fused_packed's rounding on the device, for every d: with the low lane at its largest, smallest and a
// middle value (the high lane's unmasked mul_hi is exact only while the low lane adds less than 1/n), every
// high-lane value a window can reach gives (s + n/2) / n in both lanes of both words.
TEST(BoxBlurFusedPacked, RoundingIsExactForEveryWindowSum) {
  Context& ctx = test_context();
  for (int d = kMinPackedDiameter; d <= kMaxPackedDiameter; ++d) {
    const std::uint64_t n = std::uint64_t(d) * std::uint64_t(d);
    const auto magic = cl_uint(((std::uint64_t(1) << 32) + n - 1) / n);
    const cl_uint top = cl_uint(255 * n + n / 2);  // the largest window sum plus n/2
    // packed_round depends on magic alone, so one build serves every d.
    cl::Kernel& check =
        ctx.kernel("box_blur.cl", "-D CHANNELS=4 -D ITEMS=2 -D WIN_A=0 -D DIAMETER=2" + ctx.info().fast_math_options(),
                   "box_packed_round_check");
    const std::size_t count = std::size_t(top) + 1, bytes = count * sizeof(cl_uint);
    cl::Buffer out = ctx.buffer(CL_MEM_READ_WRITE, bytes);
    for (cl_uint lo : {top, cl_uint(n / 2), cl_uint(top / 2 + 7)}) {
      std::vector<cl_uint> got(count, 0xDEADBEEFu);  // poison: an unwritten entry fails
      check_cl(ctx.queue().enqueueWriteBuffer(out, CL_TRUE, 0, bytes, got.data()), "write");
      set_kernel_args(check, out, magic, lo);
      launch(ctx, check, cl::NDRange(count)).wait();
      check_cl(ctx.queue().enqueueReadBuffer(out, CL_TRUE, 0, bytes, got.data()), "read");
      for (cl_uint hi = 0; hi <= top; ++hi) {
        const cl_uint q_lo = cl_uint(lo / n), q_hi = cl_uint(hi / n);
        const cl_uint want = q_lo | (q_lo << 8) | (q_hi << 16) | (q_hi << 24);
        ASSERT_EQ(got[hi], want) << "d=" << d << " lo=" << lo << " hi=" << hi;
      }
    }
  }
}

// fused_wide is built per d (2..64) and items: diameters whose window starts at every offset within a
// block for items 4 and 8 (WIN_A 0..3 and 0, 1, 2, 3, 7), with first windows of no whole block (d=2, 3),
// some, and a tail or none; the ring (where it fits in local memory), mirrored strips and direct row loads on
// and off.
TEST(BoxBlurFusedWide, EveryDiameterAndShapeMatchesTheReference) {
  expect_band_shapes_match("fused_wide", {2, 3, 17, 26, 31, 45, 63, 64}, {4, 8}, [](int d, int items, int strip) {
    return TuningConfig{{"prefetch", items == 4 ? 2 : 1},
                        {"ring", d <= 31 && items == 4},
                        {"mirror", (strip + d) % 2},
                        {"direct", (d + items / 4) % 2}};
  });
  expect_band_refusals("fused_wide", {1, 65}, 31);
}

// pair: two row lanes per work-group, mirrored strips 2j - 1 (up) and 2j (down) from one shared start. On 37
// rows: 3-row strips (13: every pair whole), 5-row strips (8: the last work-group's down lane past the
// image, its up strip 2 rows), 64 rows (work-group 0 only: its up lane is strip -1); both variants, both
// ends of each one's d and even and odd d, each d with another prefetch depth.
TEST(BoxBlurFusedPair, EveryDiameterAndShapeMatchesTheReference) {
  const auto pair_config = [](int d, int items, int strip) {
    return TuningConfig{
        {"prefetch", 1 + (d + items) % 3}, {"ring", 0}, {"mirror", 1}, {"pair", 1}, {"direct", strip != 5}};
  };
  expect_band_shapes_match("fused_packed", {2, 3, 10, 15}, {4, 8}, pair_config, {3, 5, 64}, 0.35);
  expect_band_shapes_match("fused_wide", {2, 17, 31, 64}, {4, 8}, pair_config, {3, 5, 64}, 0.35);
  Context& ctx = test_context();
  // pair needs mirrored strips and no ring.
  EXPECT_TRUE(box_blur_unsupported(ctx.info(), "fused_wide", {31, {}}, 300, 70, 4, {{"pair", 1}, {"mirror", 0}}));
  EXPECT_TRUE(box_blur_unsupported(ctx.info(), "fused_packed", {9, {}}, 300, 70, 4, {{"pair", 1}, {"ring", 1}}));
}

// fused_wide on a fresh random RGBA image of width x height, for each of `diameters` (border kBorders[d % 4]), with
// config(v, pair) for each v of `values` and pair 0 and 1, equals the reference exactly.
void expect_wide_configs_match(int width, int height, std::initializer_list<int> diameters,
                               std::initializer_list<int> values,
                               const std::function<TuningConfig(int value, int pair)>& config_of) {
  Context& ctx = test_context();
  const auto seed = testing::fresh_seed();
  const Image in = testing::random_image(width, height, 4, SampleType::u8, seed);
  DeviceImage d_in = DeviceImage::upload(ctx, in);
  for (int d : diameters) {
    const BoxBlurParams params{d, kBorders[d % 4]};
    const Image expected = box_blur_reference(in, params);
    for (int value : values)
      for (int pair : {0, 1}) {
        const TuningConfig config = config_of(value, pair);
        SCOPED_TRACE(fmt::format("d={} config={} seed={}", d, to_string(config), seed));
        ASSERT_NO_FATAL_FAILURE(expect_exact(ctx, d_in, expected, params, "fused_wide", config));
      }
  }
}

// direct: strips whose rows are all inside the image load them with no border test. The band tests' 37 rows hold
// such strips only for d <= 33; here 150 rows hold them at d = 45 and 63 too (and for pair's shared start), on a
// width that also takes the border path at its edges.
TEST(BoxBlurFusedDirect, InteriorStripsOfWideWindowsMatchTheReference) {
  expect_wide_configs_match(520, 150, {45, 63}, {4, 8}, [](int items, int pair) {
    return TuningConfig{{"items", items}, {"local_x", 32}, {"strip", 16},  {"prefetch", 2},
                        {"ring", 0},      {"mirror", 1},   {"pair", pair}, {"direct", 1}};
  });
}

// All 255: every window sum at its largest, where the low channel's whole-word sum X wraps modulo 2^32 most
// often and the rounding meets its largest s.
TEST(BoxBlurFusedWide, SaturatedImageStaysSaturated) {
  Context& ctx = test_context();
  Image in(300, 40, 4);
  std::fill(in.data.begin(), in.data.end(), std::uint8_t(255));
  DeviceImage d_in = DeviceImage::upload(ctx, in);
  // Items 4 and 8 on both sides of box_wide_packed_blocks' limit (8 columns: d = 32 packs, 33 does not).
  for (const auto& [d, items] : {std::pair{16, 4}, {40, 4}, {64, 4}, {16, 8}, {32, 8}, {33, 8}}) {
    const BoxBlurParams params{d, {BorderMode::replicate, 0}};
    SCOPED_TRACE(fmt::format("d={} items={}", d, items));
    ASSERT_TRUE(testing::images_equal(
        in, blur_on_device(ctx, d_in, params, "fused_wide", {{"local_x", 32}, {"items", items}})));
  }
}

// The delta window reads its block sums two per 16-byte load, from an alignment that depends on the work-group's width
// and the row buffer: odd widths put the second buffer's blocks at the other parity. Both buffers (prefetch 1 and 2,
// with and without pair's second lane) at odd local_x, where the band tests run 32 only. Any parity sums the same
// blocks, so on PoCL, whose local loads tolerate misalignment, this checks those sums; a wrong parity fails it on
// devices whose misaligned 16-byte local loads fault, as NVIDIA's do.
TEST(BoxBlurFusedWide, OddWorkGroupWidthsMatchTheReference) {
  expect_wide_configs_match(300, 37, {31, 63}, {33, 45}, [](int local_x, int pair) {
    return TuningConfig{{"items", 4}, {"local_x", local_x}, {"strip", 8},   {"prefetch", 1 + pair},
                        {"ring", 0},  {"mirror", 1},        {"pair", pair}, {"direct", 0}};
  });
}

// Rows alternately near 255 and near 0: at odd d the entering and leaving rows of every step lie an odd distance
// apart, so each column's delta is near +-255 and a delta row window (DELTA, items 4) meets its widest lanes, at both
// signs, where random images keep it near 0.
TEST(BoxBlurFusedWide, AlternatingRowsGiveTheWidestDeltas) {
  Context& ctx = test_context();
  const auto seed = testing::fresh_seed();
  Image in = testing::random_image(300, 48, 4, SampleType::u8, seed);
  for (int y = 0; y < in.height; ++y)
    for (int i = 0; i < in.width * 4; ++i) {
      std::uint8_t& v = in.data[static_cast<std::size_t>(y) * in.width * 4 + i];
      v = y % 2 ? std::uint8_t(v % 6) : std::uint8_t(255 - v % 6);
    }
  DeviceImage d_in = DeviceImage::upload(ctx, in);
  for (int d : {31, 63}) {
    const BoxBlurParams params{d, kBorders[d % 4]};
    const Image expected = box_blur_reference(in, params);
    for (int pair : {0, 1}) {
      const TuningConfig config = {{"items", 4}, {"local_x", 32}, {"strip", 16},  {"prefetch", 1},
                                   {"ring", 0},  {"mirror", 1},   {"pair", pair}, {"direct", 1}};
      SCOPED_TRACE(fmt::format("d={} config={} seed={}", d, to_string(config), seed));
      ASSERT_TRUE(testing::images_equal(expected, blur_on_device(ctx, d_in, params, "fused_wide", config)));
    }
  }
}

// fused_wide's rounding on the device: wide_round's mul_hi for every channel sum s <= 255 n of every d,
// in each of the four channels, against (s + n/2) / n.
TEST(BoxBlurFusedWide, RoundingIsExactForEveryWindowSum) {
  Context& ctx = test_context();
  // wide_round depends on magic alone, so one build serves every d.
  cl::Kernel& check = ctx.kernel(
      "box_blur.cl", "-D CHANNELS=4 -D ITEMS=4 -D WIN_A=0 -D DIAMETER=2 -D WIDE=1" + ctx.info().fast_math_options(),
      "box_wide_round_check");
  const std::size_t most = 255 * kMaxWideDiameter * kMaxWideDiameter + 1;
  cl::Buffer out = ctx.buffer(CL_MEM_READ_WRITE, most * sizeof(cl_uint));
  std::vector<cl_uint> got(most);
  for (int d = kMinPackedDiameter; d <= kMaxWideDiameter; ++d) {
    const std::uint64_t n = std::uint64_t(d) * std::uint64_t(d);
    const auto magic = cl_uint(((std::uint64_t(1) << 32) + n - 1) / n);
    const std::size_t count = 255 * n + 1, bytes = count * sizeof(cl_uint);
    std::fill(got.begin(), got.begin() + std::ptrdiff_t(count), 0xDEADBEEFu);  // poison: unwritten entries fail
    check_cl(ctx.queue().enqueueWriteBuffer(out, CL_TRUE, 0, bytes, got.data()), "write");
    set_kernel_args(check, out, magic, cl_uint(n / 2), cl_uint(count));
    launch(ctx, check, cl::NDRange(count)).wait();
    check_cl(ctx.queue().enqueueReadBuffer(out, CL_TRUE, 0, bytes, got.data()), "read");
    for (std::size_t s = 0; s < count; ++s) {
      const auto q = cl_uint((s + n / 2) / n);
      ASSERT_EQ(got[s], q * 0x01010101u) << "d=" << d << " s=" << s;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FullHd, BoxBlurFullHd, ::testing::ValuesIn(testing::variant_names(box_blur_variants())),
                         [](const auto& test) { return test.param; });

// A real photograph (RGB JPEG) through the host API, every variant, against the reference.
TEST(BoxBlurPhotograph, EveryVariantMatchesTheReference) {
  Context& ctx = test_context();
  const Image photo = read_image(CLF_DATA_DIR "/astronaut.jpg");
  ASSERT_EQ(photo.channels, 3);
  for (int d : {4, 9}) {
    const BoxBlurParams params{d, {BorderMode::reflect101, 0}};
    const Image expected = from_filter_layout(box_blur_reference(to_filter_layout(photo), params), 3);
    for (const auto& v : box_blur_variants()) {
      if (box_blur_unsupported(ctx.info(), v.name, params, photo.width, photo.height, 4)) continue;
      SCOPED_TRACE(fmt::format("variant={} d={}", v.name, d));
      EXPECT_TRUE(testing::images_equal(expected, box_blur(ctx, photo, params, v.name)));
    }
  }
}

// ---- host API: channel layouts and parameter checks ----------------------------------------------

TEST(BoxBlurHost, RgbAndGreyAlphaMatchReferenceOnRgba) {
  Context& ctx = test_context();
  for (int c : {2, 3}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("channels={} seed={}", c, seed));
    const Image in = testing::random_image(45, 31, c, SampleType::u8, seed);
    const BoxBlurParams params{5, {BorderMode::reflect101, 0}};
    const Image got = box_blur(ctx, in, params, "naive");
    const Image expected = from_filter_layout(box_blur_reference(to_filter_layout(in), params), c);
    ASSERT_TRUE(testing::images_equal(expected, got));
  }
}

TEST(BoxBlurHost, TimingIsFilled) {
  Context& ctx = test_context();
  const Image in = testing::random_image(64, 48, 4, SampleType::u8, testing::fresh_seed());
  EXPECT_TRUE(testing::timing_filled([&](Timing* t) { box_blur(ctx, in, {3, {}}, "auto", t); }));
}

TEST(BoxBlurHost, RejectsBadParameters) {
  Context& ctx = test_context();
  const Image in = testing::random_image(8, 8, 1, SampleType::u8, testing::fresh_seed());
  EXPECT_THROW(box_blur(ctx, in, {0, {}}), std::invalid_argument);
  EXPECT_THROW(box_blur(ctx, in, {kMaxBoxDiameter + 1, {}}), std::invalid_argument);
  EXPECT_THROW(box_blur(ctx, in, {3, {}}, "no_such_variant"), std::invalid_argument);
  EXPECT_THROW(box_blur(ctx, in, {3, {}}, "two_pass"), std::invalid_argument);  // odd diameter
  EXPECT_THROW(box_blur(ctx, testing::random_image(8, 8, 1, SampleType::f32, 1), {3, {}}), std::invalid_argument);
}

TEST(BoxBlurHost, AutoPicksASupportedVariant) {
  Context& ctx = test_context();
  for (int d : {1, 2, 3, 5, 6, 9, 31, 300})
    for (int c : {1, 4}) {
      const BoxBlurParams p{d, {}};
      const std::string v = box_blur_auto_variant(ctx.info(), p, 640, 480, c);
      EXPECT_FALSE(box_blur_unsupported(ctx.info(), v, p, 640, 480, c)) << v << " d=" << d;
    }
}

// The GPU rule without tuning data: fused_packed for RGBA at 2 <= d <= 15, fused_wide up to d = 64;
// otherwise fused_blocks below d = 11, fused_prefix from there (RGBA; none of them takes grey), fused_blocks
// again past fused_prefix's d <= 128.
TEST(BoxBlurHost, AutoRuleOnGpusFollowsTheMeasuredCrossover) {
  DeviceInfo gpu = test_context().info();
  gpu.type = CL_DEVICE_TYPE_GPU;
  gpu.local_mem_bytes = 48 * 1024;
  gpu.max_work_group_size = 1024;
  for (int d : {2, 3, 9, 11, 15})
    EXPECT_EQ(box_blur_auto_variant(gpu, BoxBlurParams{d, {}}, 8192, 8192, 4), "fused_packed");
  EXPECT_EQ(box_blur_auto_variant(gpu, BoxBlurParams{9, {}}, 8192, 8192, 1), "fused_sliding");
  EXPECT_EQ(box_blur_auto_variant(gpu, BoxBlurParams{1, {}}, 8192, 8192, 4), "fused_blocks");
  for (int d : {16, 31, 63, 64})
    EXPECT_EQ(box_blur_auto_variant(gpu, BoxBlurParams{d, {}}, 8192, 8192, 4), "fused_wide");
  EXPECT_EQ(box_blur_auto_variant(gpu, BoxBlurParams{65, {}}, 8192, 8192, 4), "fused_prefix");
  EXPECT_EQ(box_blur_auto_variant(gpu, BoxBlurParams{128, {}}, 8192, 8192, 4), "fused_prefix");
  EXPECT_NE(box_blur_auto_variant(gpu, BoxBlurParams{63, {}}, 8192, 8192, 1), "fused_prefix");
  EXPECT_NE(box_blur_auto_variant(gpu, BoxBlurParams{63, {}}, 8192, 8192, 1), "fused_wide");
  EXPECT_EQ(box_blur_auto_variant(gpu, BoxBlurParams{129, {}}, 8192, 8192, 4), "fused_blocks");
}

// The CPU rule without tuning data (PoCL, 2 cores, 1080p): cpu_bands for every call; where its scratch is past the
// allocation limit, RGBA fused_packed at 2 <= d <= 15, fused_prefix up to d = 64, else what remains.
TEST(BoxBlurHost, AutoRuleOnCpusFollowsTheMeasuredCrossover) {
  DeviceInfo cpu = test_context().info();
  cpu.type = CL_DEVICE_TYPE_CPU;
  cpu.local_mem_bytes = 512 * 1024;
  cpu.max_work_group_size = 4096;
  for (int d : {1, 3, 9, 31, 63, 300, 4095})
    for (int c : {1, 4}) EXPECT_EQ(box_blur_auto_variant(cpu, BoxBlurParams{d, {}}, 1920, 1080, c), "cpu_bands");
  // Allocations of 64 KiB at most: too small for cpu_bands' scratch (a row of sums per band) and for
  // separable_sliding's intermediate; the variants without a temporary remain.
  cpu.max_alloc_bytes = 64 * 1024;
  for (int d : {2, 3, 9, 15})
    EXPECT_EQ(box_blur_auto_variant(cpu, BoxBlurParams{d, {}}, 1920, 1080, 4), "fused_packed");
  for (int d : {16, 31, 63, 64})
    EXPECT_EQ(box_blur_auto_variant(cpu, BoxBlurParams{d, {}}, 1920, 1080, 4), "fused_prefix");
  for (int c : {1, 4}) EXPECT_EQ(box_blur_auto_variant(cpu, BoxBlurParams{65, {}}, 1920, 1080, c), "block4x4");
}

// Both block variants keep a byte of local memory back: the H200 refused a work-group that asked for all
// 49152 bytes it reports. fused_blocks at local_x 256, items 8, 16 < d <= 256 asks for exactly that
// (2 * 256 * 10 entries of 8 bytes + 2 * 256 blocks of 16 bytes); half the work-items ask for half.
TEST(BoxBlurHost, BlockVariantsKeepLocalMemoryBack) {
  DeviceInfo gpu = test_context().info();
  gpu.local_mem_bytes = 48 * 1024;
  gpu.max_work_group_size = 1024;
  const BoxBlurParams p{31, {}};
  const auto why = box_blur_unsupported(gpu, "fused_blocks", p, 8192, 8192, 4, {{"local_x", 256}, {"items", 8}});
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("49152 bytes of local memory"), std::string::npos) << *why;
  EXPECT_FALSE(box_blur_unsupported(gpu, "fused_blocks", p, 8192, 8192, 4, {{"local_x", 128}, {"items", 8}}));
}

}  // namespace
}  // namespace clf
