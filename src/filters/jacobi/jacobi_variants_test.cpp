// SPDX-License-Identifier: Apache-2.0
// Every reconstruction variant on the device: against the double-precision reference (relative L2 <= 1e-5,
// SPEC), temporal blocking (temporal, wavefront), strip and tiled2d's rows against one-step Jacobi bit for
// bit, and the exact iteration count of the tolerance stop.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "clfilters/jacobi.hpp"
#include "common/image_compare.hpp"
#include "common/synthetic_image.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::size_name;
using testing::SizeCase;
using testing::test_context;

// Random float edges: uniform in [-1000, 1000], never all zero.
Image random_edges(int w, int h, std::uint64_t seed) {
  return testing::random_image(w, h, 1, SampleType::f32, seed);
}

// The edge map of a photograph-like 8-bit image, the realistic input (u stays within 0..255).
Image photo_edges(int w, int h, std::uint64_t seed) {
  return jacobi_edges_reference(synthetic_photo(w, h, 1, seed));
}

// ---- every variant against the reference -----------------------------------------------------------

// Runs `variant` from `initial` (zeros if empty) with a poisoned scratch state and returns the result.
JacobiDeviceRun run_device(const std::string& variant, const Image& edges, const JacobiParams& params,
                           const Image& initial, Image& result, const TuningConfig& config = {}) {
  Context& ctx = test_context();
  const DeviceFloatImage d_edges = DeviceFloatImage::upload(ctx, edges);
  Image start = initial;
  if (start.empty()) {
    start = Image(edges.width, edges.height, 1, SampleType::f32);  // zeros
  }
  DeviceFloatImage u = DeviceFloatImage::upload(ctx, start);
  // Poison the other ping-pong buffer (the context's scratch): a pixel a variant forgets to write shows.
  Image poisoned(edges.width, edges.height, 1, SampleType::f32);
  testing::poison(poisoned);
  check_cl(ctx.queue().enqueueWriteBuffer(ctx.scratch_buffer("jacobi.other", u.byte_size()), CL_TRUE, 0, u.byte_size(),
                                          poisoned.data.data()),
           "clEnqueueWriteBuffer");
  JacobiDeviceRun run = jacobi_reconstruct(ctx, d_edges, u, params, variant, config);
  result = u.download(ctx);
  return run;
}

void expect_matches_reference(const std::string& variant, const Image& edges, const JacobiParams& params,
                              const Image& initial = Image(), const TuningConfig& config = {}) {
  Image got;
  const JacobiDeviceRun run = run_device(variant, edges, params, initial, got, config);
  const JacobiReference ref = jacobi_reference(edges, params, initial);
  EXPECT_EQ(run.iterations, ref.iterations);
  const double error = jacobi_relative_l2(ref, got);
  EXPECT_LE(error, 1e-5) << "relative L2 error after " << ref.iterations << " iterations";
}

class JacobiVariant : public ::testing::TestWithParam<std::tuple<std::string, SizeCase>> {};

TEST_P(JacobiVariant, MatchesDoubleReference) {
  const auto& [variant, size] = GetParam();
  if (auto why = jacobi_unsupported(test_context().info(), variant, size.width, size.height)) GTEST_SKIP() << *why;
  for (int n : {1, 2, 7, 100}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("variant={} size={} n={} seed={}", variant, size_name(size), n, seed));
    JacobiParams p;
    p.iterations = n;
    expect_matches_reference(variant, random_edges(size.width, size.height, seed), p);
  }
  // A non-zero initial iterate and the realistic input: a photograph's edge map.
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("variant={} size={} initial seed={}", variant, size_name(size), seed));
  JacobiParams p;
  p.iterations = 9;
  expect_matches_reference(variant, photo_edges(size.width, size.height, seed), p,
                           random_edges(size.width, size.height, seed + 1));
}

INSTANTIATE_TEST_SUITE_P(
    AllSizes, JacobiVariant,
    ::testing::Combine(::testing::ValuesIn(testing::variant_names(jacobi_variants())),
                       ::testing::Values(SizeCase{1, 1}, SizeCase{2, 3}, SizeCase{17, 13}, SizeCase{64, 64},
                                         SizeCase{257, 129}, SizeCase{1000, 700})),
    [](const auto& test) { return fmt::format("{}_{}", std::get<0>(test.param), size_name(std::get<1>(test.param))); });

// Runs `variant` at each config for each iteration count on each size and compares it bit for bit with
// `reference` at its default tunables; from a random start where `random_start`, else from zeros. A config the
// device cannot run is skipped where `skip_unsupported`, else fails.
void expect_configs_match(const std::string& variant, const std::string& reference,
                          std::initializer_list<std::pair<int, int>> sizes, std::initializer_list<int> counts,
                          const std::vector<TuningConfig>& configs, bool random_start = true,
                          bool skip_unsupported = false) {
  for (auto [w, h] : sizes) {
    const auto seed = testing::fresh_seed();
    const Image edges = random_edges(w, h, seed);
    const Image initial = random_start ? random_edges(w, h, seed + 1) : Image();
    for (int n : counts) {
      JacobiParams p;
      p.iterations = n;
      Image one_step;
      run_device(reference, edges, p, initial, one_step);
      for (const TuningConfig& config : configs) {
        SCOPED_TRACE(fmt::format("{} {}x{} n={} [{}] seed={}", variant, w, h, n, to_string(config), seed));
        const auto why = jacobi_unsupported(test_context().info(), variant, w, h, config);
        if (why && skip_unsupported) continue;
        ASSERT_FALSE(why);
        Image got;
        const JacobiDeviceRun run = run_device(variant, edges, p, initial, got, config);
        EXPECT_EQ(run.iterations, n);
        ASSERT_TRUE(testing::images_equal(one_step, got));
      }
    }
  }
}

// A config for each row of `rows`: the row's values for `keys`, in order.
std::vector<TuningConfig> configs_of(const std::vector<std::string>& keys, const std::vector<std::vector<int>>& rows) {
  std::vector<TuningConfig> configs;
  for (const std::vector<int>& row : rows) {
    EXPECT_EQ(row.size(), keys.size());
    TuningConfig& config = configs.emplace_back();
    for (std::size_t i = 0; i < keys.size() && i < row.size(); ++i) config[keys[i]] = row[i];
  }
  return configs;
}

// Every variant computes the same float operations in the same order, so their iterates are equal bit
// for bit; temporal's overlapping ghost zones included, for every k, tile and count (not multiples of k).
TEST(JacobiTemporal, EqualsOneStepJacobiBitForBit) {
  std::vector<TuningConfig> configs;
  for (int k : {2, 3, 4, 8, 16})
    for (auto [tx, ty] : {std::pair{16, 16}, {8, 8}, {32, 8}})
      configs.push_back({{"steps", k}, {"tile_x", tx}, {"tile_y", ty}});
  expect_configs_match("temporal", "tiled2d", {{1, 1}, {17, 13}, {70, 45}}, {1, 5, 13, 37}, configs, false, true);
}

// wavefront: several bands and row blocks (small work-groups and blocks), every column count, k above and
// below the iteration count, launches of fewer than k iterations (the checked path), interior blocks of
// full launches (the fast path), widths and heights off every multiple.
TEST(JacobiWavefront, EqualsOneStepJacobiBitForBit) {
  expect_configs_match(
      "wavefront", "tiled2d", {{1, 1}, {5, 3}, {70, 45}, {131, 67}}, {1, 5, 13, 37},
      configs_of({"steps", "cols", "local_x", "rows"},
                 {{1, 1, 16, 8}, {3, 2, 16, 5}, {8, 1, 32, 0}, {8, 2, 16, 12}, {4, 4, 16, 3}, {16, 1, 64, 0}}),
      false);
}

// strip: every vector width, strip heights from 1 to 16, aligned rows (width % vec == 0) and not, partial
// strips at the right and bottom edges.
TEST(JacobiStrip, EqualsOneStepJacobiBitForBit) {
  expect_configs_match(
      "strip", "tiled2d", {{1, 1}, {6, 5}, {64, 33}, {71, 29}}, {7},
      configs_of({"vec", "rows", "local_x", "local_y"},
                 {{1, 1, 8, 2}, {2, 3, 32, 1}, {4, 8, 8, 2}, {4, 1, 32, 1}, {1, 16, 32, 1}, {2, 4, 8, 2}}));
}

// tiled2d with several pixels per work-item (rows > 1, local_y apart): work-group shapes whose tiles
// (local_x x local_y * rows) divide none of the sizes, so the last groups hold rows and columns past the
// image. The reference is row1d, a kernel that shares no code path with tiled2d's.
TEST(JacobiTiled2d, RowsEqualOneStepJacobiBitForBit) {
  expect_configs_match(
      "tiled2d", "row1d", {{1, 1}, {5, 3}, {37, 29}, {64, 61}}, {7},
      configs_of({"rows", "local_x", "local_y"}, {{2, 8, 4}, {4, 16, 2}, {8, 8, 4}, {4, 8, 1}, {1, 8, 4}}));
}

TEST(JacobiVariants, AllGiveTheSameIteratesBitForBit) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image edges = random_edges(33, 21, seed);
  JacobiParams p;
  p.iterations = 11;
  Image expected;
  run_device("tiled2d", edges, p, Image(), expected);
  for (const auto& v : jacobi_variants()) {
    if (jacobi_unsupported(test_context().info(), v.name, 33, 21)) continue;
    Image got;
    run_device(v.name, edges, p, Image(), got);
    EXPECT_TRUE(testing::images_equal(expected, got)) << v.name;
  }
}

// ---- tolerance stop: the exact count, read back only every m iterations --------------------------------

// A tolerance between iteration j's largest change (in double) and every earlier one, at least 0.15%
// from both: float rounding moves changes of this size (>= 1, iterates within 0..255) by far less, so it
// cannot move the stop. Returns {tolerance, j + 1}.
std::pair<double, int> tolerance_stopping_at(const std::vector<double>& changes, int from) {
  double smallest_before = std::numeric_limits<double>::infinity();
  for (int j = 0; j < int(changes.size()); ++j) {
    if (j >= from && changes[j] >= 1.0 && smallest_before / changes[j] >= 1.003)
      return {std::sqrt(changes[j] * smallest_before), j + 1};
    smallest_before = std::min(smallest_before, changes[j]);
  }
  return {-1, -1};
}

// Runs `variant` from zeros and checks it against `ref`: the change it reports after its last iteration and, where
// `full`, its iteration count and its result (relative L2 <= 1e-5, SPEC).
void expect_like_reference(const std::string& variant, const Image& edges, const JacobiParams& p,
                           const JacobiReference& ref, bool full, const TuningConfig& config = {}) {
  Image got;
  const JacobiDeviceRun run = run_device(variant, edges, p, Image(), got, config);
  if (full) {
    EXPECT_EQ(run.iterations, ref.iterations);
  }
  ASSERT_TRUE(run.last_change);
  EXPECT_NEAR(*run.last_change, ref.changes.back(), 1e-3 * ref.changes.back());
  if (full) {
    EXPECT_LE(jacobi_relative_l2(ref, got), 1e-5);
  }
}

TEST(JacobiTolerance, CountMatchesTheReferenceForEveryVariantAndCheckInterval) {
  Context& ctx = test_context();
  for (auto [w, h] : {std::pair{17, 13}, {40, 30}}) {
    const auto seed = testing::fresh_seed();
    const Image edges = photo_edges(w, h, seed);
    JacobiParams all;
    all.iterations = 400;
    const JacobiReference unstopped = jacobi_reference(edges, all);
    testing::CaseSample sample(0.5, seed);  // a share of the (stopping point, interval) pairs
    for (int from : {0, 23, 61}) {
      const auto [tolerance, count] = tolerance_stopping_at(unstopped.changes, from);
      ASSERT_GT(count, 0) << "no usable stopping point from " << from << " (seed " << seed << ")";
      for (int m : {1, 5, 48, 1000}) {
        if (!sample.take()) continue;
        JacobiParams p;
        p.iterations = 400;
        p.tolerance = tolerance;
        p.check_every = m;
        const JacobiReference ref = jacobi_reference(edges, p);
        ASSERT_EQ(ref.iterations, count);
        for (const auto& v : jacobi_variants()) {
          std::vector<TuningConfig> configs = {{}};
          if (v.name == "temporal") configs = {{{"steps", 3}}, {{"steps", 8}}, {{"steps", 16}, {"tile_x", 8}}};
          // Several bands and row blocks, so several work-groups add to each iteration's maximum (the
          // configurations of JacobiWavefront, whose programs PoCL has then compiled already).
          if (v.name == "wavefront")
            configs = {{{"steps", 3}, {"cols", 2}, {"local_x", 16}, {"rows", 5}},
                       {{"steps", 8}, {"cols", 2}, {"local_x", 16}, {"rows", 12}},
                       {{"steps", 16}, {"cols", 1}, {"local_x", 64}, {"rows", 0}}};
          if (v.name == "strip") configs = {{}, {{"vec", 1}, {"rows", 3}, {"local_x", 8}, {"local_y", 1}}};
          // Several pixels per work-item in their work-group's maximum, tiles off the image's sizes.
          if (v.name == "tiled2d") configs = {{}, {{"rows", 4}, {"local_x", 8}, {"local_y", 2}}};
          for (const TuningConfig& config : configs) {
            SCOPED_TRACE(fmt::format("{}x{} variant={} [{}] m={} tolerance={} expected count={} seed={}", w, h, v.name,
                                     to_string(config), m, tolerance, count, seed));
            if (jacobi_unsupported(ctx.info(), v.name, w, h, config)) continue;
            expect_like_reference(v.name, edges, p, ref, true, config);
          }
        }
      }
    }
  }
}

// Every variant on a photograph's edge map of width x height against the reference with `p`, which runs every
// iteration (expect_like_reference, `full` or not).
void expect_every_variant_like_reference(int width, int height, const JacobiParams& p, bool full) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image edges = photo_edges(width, height, seed);
  const JacobiReference ref = jacobi_reference(edges, p);
  ASSERT_EQ(ref.iterations, p.iterations);
  for (const auto& v : jacobi_variants()) {
    SCOPED_TRACE(v.name);
    expect_like_reference(v.name, edges, p, ref, full);
  }
}

TEST(JacobiTolerance, UnreachedToleranceRunsEveryIteration) {
  JacobiParams p;
  p.iterations = 53;
  p.tolerance = 0.0;  // only an exact fixed point would stop it
  p.check_every = 10;
  expect_every_variant_like_reference(31, 9, p, true);
}

TEST(JacobiTolerance, ReportChangeWithoutTolerance) {
  JacobiParams p;
  p.iterations = 21;
  p.report_change = true;
  expect_every_variant_like_reference(20, 20, p, false);
}

}  // namespace
}  // namespace clf
