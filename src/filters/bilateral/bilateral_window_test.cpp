// SPDX-License-Identifier: Apache-2.0
// The window shapes (square, disk) and colour distances (l2, l1) of the bilateral filter: the reference against
// a brute-force evaluation of the formula with each, every variant within 1 of the reference with each (grey and
// RGBA, every border, odd sizes), unrolled refusing what it does not compute, auto picking one that does, and
// the parameters' names. The window and distance are kernel arguments, so these runs reuse the programs of the
// square L2 runs (one per variant and channel count).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "clfilters/bilateral.hpp"
#include "filters/bilateral/bilateral_internal.hpp"
#include "filters/bilateral/bilateral_test_helpers.hpp"
#include "testing/test_images.hpp"
#include "testing/view_check.hpp"

namespace clf {
namespace {

using namespace bilateral_testing;
using testing::size_name;
using testing::SizeCase;

const BilateralWindow kWindows[] = {BilateralWindow::square, BilateralWindow::disk};
const BilateralDistance kDistances[] = {BilateralDistance::l2, BilateralDistance::l1};

BilateralParams shaped(SigmaPair s, int radius, Border border, BilateralWindow window, BilateralDistance distance) {
  BilateralParams p = make_params(s, radius, border);
  p.window = window;
  p.distance = distance;
  return p;
}

std::string describe_shape(const BilateralParams& p) {
  return fmt::format("{} window={} distance={}", describe(p), to_string(p.window), to_string(p.distance));
}

TEST(BilateralWindowReference, MatchesTheFormulaForEveryWindowAndDistance) {
  for (auto [w, h] : {std::pair{1, 1}, {7, 5}, {13, 9}})
    for (int radius : {1, 2, 5, 9})
      for (const Border& border : kBorders)
        for (int c : {1, 4})
          for (BilateralWindow window : kWindows)
            for (BilateralDistance distance : kDistances) {
              const auto seed = testing::fresh_seed();
              const BilateralParams p = shaped({2, 25}, radius, border, window, distance);
              SCOPED_TRACE(fmt::format("{}x{}x{} {} seed={}", w, h, c, describe_shape(p), seed));
              const Image in = testing::random_image(w, h, c, SampleType::u8, seed);
              const Image reference = bilateral_reference(in, p, 1);
              const auto got = reference.samples<std::uint8_t>();
              const std::vector<double> means = brute_force_means(in, p);
              for (std::size_t i = 0; i < means.size(); ++i) {
                // Two double evaluations may round a mean within 1e-9 of a tie either way.
                if (std::fabs(means[i] - std::floor(means[i]) - 0.5) < 1e-9) continue;
                ASSERT_EQ(got[i], std::clamp(std::floor(means[i] + 0.5), 0.0, 255.0)) << "sample " << i;
              }
            }
}

// The options change the answer (else the tests below could not tell them apart): on random RGBA, the disk
// drops the corners and l1 weighs colour differences more than l2 (|d|_1 >= |d|_2).
TEST(BilateralWindowReference, EachOptionChangesTheResult) {
  const Image in = testing::random_image(40, 30, 4, SampleType::u8, testing::fresh_seed());
  const Border border{BorderMode::reflect101, 0};
  const Image square_l2 = bilateral_reference(in, shaped({3, 40}, 4, border, kWindows[0], kDistances[0]));
  EXPECT_FALSE(testing::images_equal(
      square_l2, bilateral_reference(in, shaped({3, 40}, 4, border, kWindows[1], kDistances[0])), 1.0));
  EXPECT_FALSE(testing::images_equal(
      square_l2, bilateral_reference(in, shaped({3, 40}, 4, border, kWindows[0], kDistances[1])), 1.0));
}

// Every variant that runs a call: within 1 of the reference (SPEC's accuracy). unrolled computes the square
// window and the colour l2 distance only (and radius <= 8), local_image needs images; any other refusal fails.
bool may_refuse(const std::string& variant, const BilateralParams& p, int channels) {
  if (variant == "unrolled")
    return p.window == BilateralWindow::disk || (channels == 4 && p.distance == BilateralDistance::l1) ||
           bilateral_radius(p) > bilateral_detail::kMaxUnrolledRadius;
  return variant == "local_image" && !test_context().info().image_support;
}

class BilateralWindowVariants : public ::testing::TestWithParam<SizeCase> {};

TEST_P(BilateralWindowVariants, EveryVariantWithinOneOfTheReference) {
  const SizeCase size = GetParam();
  Context& ctx = test_context();
  DifferenceLog log;
  int rotation = 0;
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(size.width, size.height, c, SampleType::u8, seed);
    DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (BilateralWindow window : kWindows)
      for (BilateralDistance distance : kDistances)
        for (int radius : {1, 3, 7})
          for (const SigmaPair& s : {SigmaPair{1, 10}, SigmaPair{3, 40}}) {
            // The border rotates over the cases, so each window and distance meets all of them.
            const BilateralParams p = shaped(s, radius, kBorders[rotation++ % 4], window, distance);
            SCOPED_TRACE(fmt::format("size={} channels={} {} seed={}", size_name(size), c, describe_shape(p), seed));
            const Image expected = bilateral_reference(in, p);
            for (const auto& v : bilateral_variants()) {
              SCOPED_TRACE(fmt::format("variant={}", v.name));
              if (auto why = bilateral_unsupported(ctx.info(), v.name, p, in.width, in.height, c)) {
                EXPECT_TRUE(may_refuse(v.name, p, c)) << *why;
                continue;
              }
              const Image got = run_device(v.name, d_in, p);
              ASSERT_TRUE(testing::images_equal(expected, got, 1.0));
              if (expected.data.size() >= kMinSamplesForMean) {
                EXPECT_LE(mean_abs_difference(expected, got), kMaxMeanDifference);
              }
              log.add(fmt::format("{}/{}/{}", v.name, to_string(window), to_string(distance)), expected, got);
            }
          }
  }
  log.print(size_name(size));
}

INSTANTIATE_TEST_SUITE_P(Sizes, BilateralWindowVariants,
                         ::testing::Values(SizeCase{1, 1}, SizeCase{7, 5}, SizeCase{37, 19}, SizeCase{101, 67}),
                         [](const auto& test) { return size_name(test.param); });

// cpu_rows with every band count, down to one row a band (more bands than rows), and widths that leave a partial
// vector step: within 1 of the reference, every output written.
TEST(BilateralCpuRows, EveryBandCountWithinOneOfTheReference) {
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(45, 23, c, SampleType::u8, seed);
    DeviceImage d_in = DeviceImage::upload(ctx, in);
    for (int bands : {2, 8, 16, 64}) {
      const BilateralParams p =
          shaped({2, 20}, 3, kBorders[bands % 4], kWindows[bands % 3 == 1], kDistances[bands % 5 == 3]);
      SCOPED_TRACE(fmt::format("channels={} bands_per_unit={} {} seed={}", c, bands, describe_shape(p), seed));
      ASSERT_TRUE(testing::images_equal(bilateral_reference(in, p),
                                        run_device("cpu_rows", d_in, p, {{"bands_per_unit", bands}}), 1.0));
    }
  }
}

// cpu_rows at both vector widths (lanes=8: float8, lanes=16: float16; the default is the device's), 8-bit grey
// and RGBA and 16-bit samples, with widths below and off a step: within 1 of the reference, every output written.
// Both windows and distances in turn, and sigma_range 20 (the exp2's clamp) and 60 (none for grey and for RGBA l2);
// one build per width and channel count, the default's shared; pairs=0 and pairs=1 each at both widths.
TEST(BilateralCpuRows, EveryLanesWidthWithinOneOfTheReference) {
  Context& ctx = test_context();
  int turn = 0;
  for (SampleType type : {SampleType::u8, SampleType::u16})
    for (int c : {1, 4})
      for (int lanes : {8, 16})
        for (auto [w, h] : {std::pair{45, 23}, {7, 5}}) {
          const auto seed = testing::fresh_seed();
          const Image in = testing::random_image(w, h, c, type, seed);
          DeviceImage d_in = DeviceImage::upload(ctx, in);
          const double sigma_range = (type == SampleType::u16 ? 256.0 : 1.0) * (turn % 3 ? 20.0 : 60.0);
          const BilateralParams p =
              shaped({2, sigma_range}, 4, kBorders[turn % 4], kWindows[turn % 2], kDistances[turn / 2 % 2]);
          ++turn;
          SCOPED_TRACE(fmt::format("{}x{}x{} {} lanes={} {} seed={}", w, h, c, type == SampleType::u16 ? "u16" : "u8",
                                   lanes, describe_shape(p), seed));
          // pairs=0 and pairs=1 at each width, on different channel counts, so that no build is added for them.
          const int pairs = (c == 4) == (lanes == 8) ? 1 : 0;
          ASSERT_TRUE(testing::images_equal(bilateral_reference(in, p),
                                            run_device("cpu_rows", d_in, p, {{"lanes", lanes}, {"pairs", pairs}}), 1.0))
              << "pairs=" << pairs;
        }
}

// cpu_rows with pairs=1 (each pair of pixels weighed once, bilateral_cpu_pairs.cl) and pairs=0 on fresh random
// images: within 1 of the reference, every output written. 8- and 16-bit, grey and RGBA; radius 1 to 5 and 16
// (the largest list of taps); both windows and distances, every border and sigma_range 20 (the exp2's clamp) and
// 60 in turn; widths off a vector step, a column, a row, heights below a band, and bands of one row (every row a
// band's lead of r rows above it). One build per pairs value, channel count and sample type, most shared.
TEST(BilateralCpuRows, PairsWithinOneOfTheReference) {
  Context& ctx = test_context();
  DifferenceLog log;
  int turn = 0;
  for (SampleType type : {SampleType::u8, SampleType::u16})
    for (int c : {1, 4})
      for (auto [w, h] : {std::pair{45, 23}, {17, 1}, {1, 9}, {33, 3}, {1, 1}}) {
        const auto seed = testing::fresh_seed();
        const Image in = testing::random_image(w, h, c, type, seed);
        DeviceImage d_in = DeviceImage::upload(ctx, in);
        for (int radius : {1, 2, 3, 4, 5, 16}) {
          const double sigma_range = (type == SampleType::u16 ? 256.0 : 1.0) * (turn % 3 ? 20.0 : 60.0);
          const BilateralParams p = shaped({radius / 2.0 + 0.5, sigma_range}, radius, kBorders[turn % 4],
                                           kWindows[turn / 4 % 2], kDistances[turn / 8 % 2]);
          const int bands = turn % 5 == 2 ? 64 : 4;
          ++turn;
          const Image expected = bilateral_reference(in, p);
          for (int pairs : {1, 0}) {
            SCOPED_TRACE(fmt::format("{}x{}x{} {} pairs={} bands_per_unit={} {} seed={}", w, h, c,
                                     type == SampleType::u16 ? "u16" : "u8", pairs, bands, describe_shape(p), seed));
            const Image got = run_device("cpu_rows", d_in, p, {{"pairs", pairs}, {"bands_per_unit", bands}});
            ASSERT_TRUE(testing::images_equal(expected, got, 1.0));
            if (expected.data.size() / sample_size(type) >= kMinSamplesForMean) {
              EXPECT_LE(mean_abs_difference(expected, got), kMaxMeanDifference);
            }
            log.add(fmt::format("pairs={}", pairs), expected, got);
          }
        }
      }
  log.print("cpu_rows");
}

// pairs=1 on views of the caller's buffers (row pointers from the strides, as pairs=0), in place, the rest of the
// output buffer untouched.
TEST(BilateralCpuRows, PairsOnViews) {
  Context& ctx = test_context();
  for (int c : {1, 4}) {
    const auto seed = testing::fresh_seed();
    const Image in = testing::random_image(150, 19, c, SampleType::u8, seed);
    const BilateralParams p = shaped({3, 30}, 4, kBorders[seed % 4], BilateralWindow::disk, BilateralDistance::l1);
    SCOPED_TRACE(fmt::format("channels={} {} seed={}", c, describe_shape(p), seed));
    testing::expect_view_call(
        ctx, in, bilateral_reference(in, p), {3, 151, 1, 157, 0},
        [&](const DeviceImage& i, DeviceImage& o) {
          return bilateral(ctx, i, o, p, "cpu_rows", {{"pairs", 1}});
        },
        1);
  }
}

TEST(BilateralCpuRows, RefusesAPairsValueItDoesNotKnow) {
  const DeviceInfo& device = test_context().info();
  const BilateralParams p = shaped({3, 30}, 4, {}, BilateralWindow::disk, BilateralDistance::l1);
  for (int pairs : {-1, 0, 1})
    EXPECT_FALSE(bilateral_unsupported(device, "cpu_rows", p, 64, 32, 4, {{"pairs", pairs}}));
  for (int pairs : {2, -2}) {
    const auto why = bilateral_unsupported(device, "cpu_rows", p, 64, 32, 4, {{"pairs", pairs}});
    ASSERT_TRUE(why.has_value()) << pairs;
    EXPECT_NE(why->find("pairs is -1 (from the radius), 0 or 1"), std::string::npos) << *why;
  }
}

TEST(BilateralCpuRows, RefusesALanesWidthItIsNotBuiltFor) {
  const DeviceInfo& device = test_context().info();
  const BilateralParams p = shaped({3, 30}, 4, {}, BilateralWindow::disk, BilateralDistance::l1);
  for (int lanes : {0, 8, 16})
    EXPECT_FALSE(bilateral_unsupported(device, "cpu_rows", p, 64, 32, 1, {{"lanes", lanes}}));
  for (int lanes : {4, 32, -1}) {
    const auto why = bilateral_unsupported(device, "cpu_rows", p, 64, 32, 1, {{"lanes", lanes}});
    ASSERT_TRUE(why.has_value()) << lanes;
    EXPECT_NE(why->find("lanes is 0 (from the device), 8 or 16"), std::string::npos) << *why;
  }
}

// unrolled says why it does not run the options it does not compute; auto picks a variant that does, on a GPU
// too, where it would otherwise pick unrolled.
TEST(BilateralWindowVariants, UnrolledRefusesAndAutoPicksAVariantThatComputesThem) {
  DeviceInfo gpu = test_context().info();
  gpu.type = CL_DEVICE_TYPE_GPU;
  for (int c : {1, 4})
    for (BilateralWindow window : kWindows)
      for (BilateralDistance distance : kDistances) {
        const BilateralParams p = shaped({3, 30}, 4, {}, window, distance);
        SCOPED_TRACE(fmt::format("channels={} {}", c, describe_shape(p)));
        const auto why = bilateral_unsupported(gpu, "unrolled", p, 640, 480, c);
        const bool computes = window == BilateralWindow::square && (c == 1 || distance == BilateralDistance::l2);
        EXPECT_EQ(!why.has_value(), computes) << why.value_or("");
        if (why) {
          EXPECT_NE(why->find(window == BilateralWindow::disk ? "disk" : "l1"), std::string::npos) << *why;
        }
        for (const DeviceInfo& device : {gpu, test_context().info()}) {
          const std::string chosen = bilateral_auto_variant(device, p, 640, 480, c);
          EXPECT_FALSE(bilateral_unsupported(device, chosen, p, 640, 480, c)) << chosen;
        }
      }
}

TEST(BilateralWindowParams, NamesParseAndPrintAndBadOnesAreRefused) {
  EXPECT_EQ(parse_bilateral_window("square"), BilateralWindow::square);
  EXPECT_EQ(parse_bilateral_window("disk"), BilateralWindow::disk);
  EXPECT_EQ(parse_bilateral_distance("l2"), BilateralDistance::l2);
  EXPECT_EQ(parse_bilateral_distance("l1"), BilateralDistance::l1);
  for (BilateralWindow w : kWindows) EXPECT_EQ(parse_bilateral_window(to_string(w)), w);
  for (BilateralDistance d : kDistances) EXPECT_EQ(parse_bilateral_distance(to_string(d)), d);
  for (const char* bad : {"round", "", "Disk", "circle"})
    EXPECT_THROW(parse_bilateral_window(bad), std::invalid_argument) << bad;
  for (const char* bad : {"l3", "", "L1", "euclidean"})
    EXPECT_THROW(parse_bilateral_distance(bad), std::invalid_argument) << bad;
  BilateralParams p;
  EXPECT_EQ(p.window, BilateralWindow::square);
  EXPECT_EQ(p.distance, BilateralDistance::l2);
  p.window = static_cast<BilateralWindow>(7);
  EXPECT_THROW(bilateral_check_params(p), std::invalid_argument);
  p.window = BilateralWindow::disk;
  p.distance = static_cast<BilateralDistance>(-1);
  EXPECT_THROW(bilateral_check_params(p), std::invalid_argument);
}

// The disk's spatial table: zero exactly outside dx^2 + dy^2 <= r^2, the square's weight inside.
TEST(BilateralWindowParams, DiskSpatialTableZeroesTheCorners) {
  for (int r : {0, 1, 4, 16}) {
    const auto square = bilateral_detail::spatial_table(3, r, BilateralWindow::square);
    const auto disk = bilateral_detail::spatial_table(3, r, BilateralWindow::disk);
    const int d = 2 * r + 1;
    int kept = 0;
    for (int j = 0; j < d; ++j)
      for (int i = 0; i < d; ++i) {
        const int dx = i - r, dy = j - r;
        const float want = dx * dx + dy * dy <= r * r ? square[std::size_t(j * d + i)] : 0.0f;
        EXPECT_EQ(disk[std::size_t(j * d + i)], want) << r << " " << dx << " " << dy;
        kept += want > 0;
        EXPECT_GT(square[std::size_t(j * d + i)], 0.0f);
      }
    // OpenCV's counts: 49 taps at radius 4 (of 81), 1 at radius 0.
    if (r == 4) {
      EXPECT_EQ(kept, 49);
    }
    if (r == 0) {
      EXPECT_EQ(kept, 1);
    }
  }
}

}  // namespace
}  // namespace clf
