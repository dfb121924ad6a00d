// The edge map and every reconstruction variant against the double-precision reference (relative L2
// <= 1e-5, SPEC), the reference itself against a brute-force seed-style computation, temporal blocking
// (temporal, wavefront), strip and tiled2d's rows against one-step Jacobi bit for bit, the exact
// iteration count of the tolerance stop, a round trip that rebuilds an image, and the errors bad
// arguments give.
#include "clfilters/jacobi.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

#include "common/image_compare.hpp"
#include "common/synthetic_image.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

Context& test_context() {
  static Context ctx;  // $CLFILTERS_DEVICE or the default device
  return ctx;
}

// ---- brute force, seed 002 style: arrays with a one-pixel halo of zeros ---------------------------

struct Padded {
  int w, h;
  std::vector<double> v;  // (w + 2) x (h + 2)
  double& at(int x, int y) { return v[std::size_t(y + 1) * (w + 2) + (x + 1)]; }
};

Padded pad(const Image& f32) {
  Padded p{f32.width, f32.height, std::vector<double>(std::size_t(f32.width + 2) * (f32.height + 2), 0.0)};
  const auto s = f32.samples<float>();
  for (int y = 0; y < f32.height; ++y)
    for (int x = 0; x < f32.width; ++x) p.at(x, y) = s[std::size_t(y) * f32.width + x];
  return p;
}

Image brute_force_edges(const Image& f32) {
  Padded u = pad(f32);
  Image out(f32.width, f32.height, 1, SampleType::f32);
  auto o = out.samples<float>();
  for (int y = 0; y < u.h; ++y)
    for (int x = 0; x < u.w; ++x)
      o[std::size_t(y) * u.w + x] =
          float(u.at(x, y - 1) + u.at(x, y + 1) + u.at(x - 1, y) + u.at(x + 1, y) - 4 * u.at(x, y));
  return out;
}

// `iterations` plain Jacobi steps in double from `initial` (zeros if empty); returns the iterate and
// each step's largest change.
std::pair<std::vector<double>, std::vector<double>> brute_force_jacobi(const Image& edges, int iterations,
                                                                       const Image& initial = Image()) {
  const int w = edges.width, h = edges.height;
  Padded e = pad(edges);
  Padded u = initial.empty() ? Padded{w, h, std::vector<double>(e.v.size(), 0.0)} : pad(initial);
  std::vector<double> changes;
  for (int it = 0; it < iterations; ++it) {
    Padded next = u;
    double m = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        next.at(x, y) = (u.at(x - 1, y) + u.at(x + 1, y) + u.at(x, y - 1) + u.at(x, y + 1) - e.at(x, y)) / 4;
        m = std::max(m, std::fabs(next.at(x, y) - u.at(x, y)));
      }
    changes.push_back(m);
    u = std::move(next);
  }
  std::vector<double> values;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) values.push_back(u.at(x, y));
  return {values, changes};
}

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    m = std::max(m, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(a[i]));
  }
  return scale == 0 ? m : m / scale;
}

// Random float edges: uniform in [-1000, 1000], never all zero.
Image random_edges(int w, int h, std::uint64_t seed) {
  return testing::random_image(w, h, 1, SampleType::f32, seed);
}

// The edge map of a photograph-like 8-bit image, the realistic input (u stays within 0..255).
Image photo_edges(int w, int h, std::uint64_t seed) {
  return jacobi_edges_reference(synthetic_photo(w, h, 1, seed));
}

TEST(JacobiReference, EdgesMatchBruteForce) {
  for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {1, 9}, {17, 13}}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("{}x{} seed={}", w, h, seed));
    const Image u8 = testing::random_image(w, h, 1, SampleType::u8, seed);
    EXPECT_TRUE(testing::images_equal(brute_force_edges(to_grey_float(u8)), jacobi_edges_reference(u8)));
    const Image f32 = testing::random_image(w, h, 1, SampleType::f32, seed + 1);
    EXPECT_TRUE(testing::images_equal(brute_force_edges(f32), jacobi_edges_reference(f32)));
  }
}

TEST(JacobiReference, ColourBecomesGreyAsSpecSays) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  for (int c : {2, 3, 4}) {
    const Image in = testing::random_image(7, 5, c, SampleType::u8, seed);
    const Image grey = to_grey_float(in);
    const auto px = in.samples<std::uint8_t>();
    for (std::size_t i = 0; i < grey.pixel_count(); ++i) {
      const std::uint8_t* p = &px[i * c];
      const int expected = c == 2 ? p[0] : (77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8;
      ASSERT_EQ(grey.samples<float>()[i], float(expected)) << "channels=" << c << " pixel " << i;
    }
  }
  EXPECT_THROW(to_grey_float(testing::random_image(4, 4, 3, SampleType::f32, seed)), std::invalid_argument);
}

TEST(JacobiReference, MatchesBruteForceIterations) {
  // 300x250 has enough pixels for the reference to use its threads (and their barriers).
  for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {17, 13}, {300, 250}})
    for (int n : {1, 2, 7, 30}) {
      const auto seed = testing::fresh_seed();
      SCOPED_TRACE(fmt::format("{}x{} n={} seed={}", w, h, n, seed));
      const Image edges = random_edges(w, h, seed);
      const Image initial = n == 7 ? random_edges(w, h, seed + 1) : Image();
      JacobiParams p;
      p.iterations = n;
      const JacobiReference ref = jacobi_reference(edges, p, initial, 2);
      const auto [values, changes] = brute_force_jacobi(edges, n, initial);
      ASSERT_EQ(ref.iterations, n);
      EXPECT_LT(max_relative_difference(values, ref.values), 1e-13);
      EXPECT_LT(max_relative_difference(changes, ref.changes), 1e-10);
    }
}

TEST(JacobiReference, StopsAtTheFirstIterationWithinTolerance) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image edges = photo_edges(19, 11, seed);
  const auto [values, changes] = brute_force_jacobi(edges, 200);
  JacobiParams p;
  p.iterations = 200;
  p.tolerance = changes[57];
  const JacobiReference ref = jacobi_reference(edges, p);
  const int expected =
      int(std::find_if(changes.begin(), changes.end(), [&](double c) { return c <= *p.tolerance; }) - changes.begin()) +
      1;
  EXPECT_EQ(ref.iterations, expected);
  EXPECT_LE(ref.iterations, 58);
}

TEST(JacobiReference, TheImageIsAFixedPointOfItsEdgeMap) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image photo = to_grey_float(synthetic_photo(23, 17, 1, seed));
  JacobiParams p;
  p.iterations = 3;
  const JacobiReference ref = jacobi_reference(jacobi_edges_reference(photo), p, photo);
  for (double c : ref.changes) EXPECT_EQ(c, 0.0);
  EXPECT_EQ(jacobi_relative_l2(ref, photo), 0.0);
}

// ---- the edge map on the device ------------------------------------------------------------------

TEST(JacobiEdges, DeviceMatchesReference) {
  Context& ctx = test_context();
  for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {17, 13}, {257, 129}}) {
    const auto seed = testing::fresh_seed();
    SCOPED_TRACE(fmt::format("{}x{} seed={}", w, h, seed));
    // 8-bit inputs (grey and RGB): integer sums, exact in float.
    for (int c : {1, 3}) {
      const Image in = testing::random_image(w, h, c, SampleType::u8, seed);
      EXPECT_TRUE(testing::images_equal(jacobi_edges_reference(in), jacobi_edges(ctx, in)));
    }
    // Float inputs: a few roundings in float against one in double.
    const Image f = testing::random_image(w, h, 1, SampleType::f32, seed);
    Image poisoned(w, h, 1, SampleType::f32);
    testing::poison(poisoned);
    const DeviceFloatImage d_in = DeviceFloatImage::upload(ctx, f);
    DeviceFloatImage d_out = DeviceFloatImage::upload(ctx, poisoned);
    jacobi_edges(ctx, d_in, d_out);
    EXPECT_TRUE(testing::images_equal(jacobi_edges_reference(f), d_out.download(ctx), 4e-3));
  }
}

// ---- every variant against the reference -----------------------------------------------------------

struct SizeCase {
  int width;
  int height;
};

std::string size_name(const SizeCase& s) {
  return fmt::format("{}x{}", s.width, s.height);
}

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

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const auto& v : jacobi_variants()) names.push_back(v.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(
    AllSizes, JacobiVariant,
    ::testing::Combine(::testing::ValuesIn(variant_names()),
                       ::testing::Values(SizeCase{1, 1}, SizeCase{2, 3}, SizeCase{17, 13}, SizeCase{64, 64},
                                         SizeCase{257, 129}, SizeCase{1000, 700})),
    [](const auto& info) { return fmt::format("{}_{}", std::get<0>(info.param), size_name(std::get<1>(info.param))); });

// Every variant computes the same float operations in the same order, so their iterates are equal bit
// for bit; temporal's overlapping ghost zones included, for every k, tile and count (not multiples of k).
TEST(JacobiTemporal, EqualsOneStepJacobiBitForBit) {
  Context& ctx = test_context();
  for (auto [w, h] : {std::pair{1, 1}, {17, 13}, {70, 45}}) {
    const auto seed = testing::fresh_seed();
    const Image edges = random_edges(w, h, seed);
    for (int n : {1, 5, 13, 37}) {
      JacobiParams p;
      p.iterations = n;
      Image one_step;
      run_device("tiled2d", edges, p, Image(), one_step);
      for (int k : {2, 3, 4, 8, 16})
        for (auto [tx, ty] : {std::pair{16, 16}, {8, 8}, {32, 8}}) {
          const TuningConfig config = {{"steps", k}, {"tile_x", tx}, {"tile_y", ty}};
          SCOPED_TRACE(fmt::format("{}x{} n={} k={} tile={}x{} seed={}", w, h, n, k, tx, ty, seed));
          if (jacobi_unsupported(ctx.info(), "temporal", w, h, config)) continue;
          Image got;
          const JacobiDeviceRun run = run_device("temporal", edges, p, Image(), got, config);
          EXPECT_EQ(run.iterations, n);
          ASSERT_TRUE(testing::images_equal(one_step, got));
        }
    }
  }
}

// wavefront: several bands and row blocks (small work-groups and blocks), every column count, k above and
// below the iteration count, launches of fewer than k iterations (the checked path), interior blocks of
// full launches (the fast path), widths and heights off every multiple.
TEST(JacobiWavefront, EqualsOneStepJacobiBitForBit) {
  Context& ctx = test_context();
  const std::vector<TuningConfig> configs = {
      {{"steps", 1}, {"cols", 1}, {"local_x", 16}, {"rows", 8}},
      {{"steps", 3}, {"cols", 2}, {"local_x", 16}, {"rows", 5}},
      {{"steps", 8}, {"cols", 1}, {"local_x", 32}, {"rows", 0}},
      {{"steps", 8}, {"cols", 2}, {"local_x", 16}, {"rows", 12}},
      {{"steps", 4}, {"cols", 4}, {"local_x", 16}, {"rows", 3}},
      {{"steps", 16}, {"cols", 1}, {"local_x", 64}, {"rows", 0}},
  };
  for (auto [w, h] : {std::pair{1, 1}, {5, 3}, {70, 45}, {131, 67}}) {
    const auto seed = testing::fresh_seed();
    const Image edges = random_edges(w, h, seed);
    for (int n : {1, 5, 13, 37}) {
      JacobiParams p;
      p.iterations = n;
      Image one_step;
      run_device("tiled2d", edges, p, Image(), one_step);
      for (const TuningConfig& config : configs) {
        SCOPED_TRACE(fmt::format("{}x{} n={} [{}] seed={}", w, h, n, to_string(config), seed));
        ASSERT_FALSE(jacobi_unsupported(ctx.info(), "wavefront", w, h, config));
        Image got;
        const JacobiDeviceRun run = run_device("wavefront", edges, p, Image(), got, config);
        EXPECT_EQ(run.iterations, n);
        ASSERT_TRUE(testing::images_equal(one_step, got));
      }
    }
  }
}

// Runs `variant` at each config for 7 iterations from a random start on each size and compares it bit
// for bit with `reference` at its default tunables.
void expect_configs_match(const std::string& variant, const std::string& reference,
                          std::initializer_list<std::pair<int, int>> sizes, const std::vector<TuningConfig>& configs) {
  for (auto [w, h] : sizes) {
    const auto seed = testing::fresh_seed();
    const Image edges = random_edges(w, h, seed);
    const Image initial = random_edges(w, h, seed + 1);
    JacobiParams p;
    p.iterations = 7;
    Image one_step;
    run_device(reference, edges, p, initial, one_step);
    for (const TuningConfig& config : configs) {
      SCOPED_TRACE(fmt::format("{} {}x{} [{}] seed={}", variant, w, h, to_string(config), seed));
      ASSERT_FALSE(jacobi_unsupported(test_context().info(), variant, w, h, config));
      Image got;
      const JacobiDeviceRun run = run_device(variant, edges, p, initial, got, config);
      EXPECT_EQ(run.iterations, 7);
      ASSERT_TRUE(testing::images_equal(one_step, got));
    }
  }
}

// strip: every vector width, strip heights from 1 to 16, aligned rows (width % vec == 0) and not, partial
// strips at the right and bottom edges.
TEST(JacobiStrip, EqualsOneStepJacobiBitForBit) {
  expect_configs_match("strip", "tiled2d", {{1, 1}, {6, 5}, {64, 33}, {71, 29}},
                       {
                           {{"vec", 1}, {"rows", 1}, {"local_x", 8}, {"local_y", 2}},
                           {{"vec", 2}, {"rows", 3}, {"local_x", 32}, {"local_y", 1}},
                           {{"vec", 4}, {"rows", 8}, {"local_x", 8}, {"local_y", 2}},
                           {{"vec", 4}, {"rows", 1}, {"local_x", 32}, {"local_y", 1}},
                           {{"vec", 1}, {"rows", 16}, {"local_x", 32}, {"local_y", 1}},
                           {{"vec", 2}, {"rows", 4}, {"local_x", 8}, {"local_y", 2}},
                       });
}

// tiled2d with several pixels per work-item (rows > 1, local_y apart): work-group shapes whose tiles
// (local_x x local_y * rows) divide none of the sizes, so the last groups hold rows and columns past the
// image. The reference is row1d, a kernel that shares no code path with tiled2d's.
TEST(JacobiTiled2d, RowsEqualOneStepJacobiBitForBit) {
  expect_configs_match("tiled2d", "row1d", {{1, 1}, {5, 3}, {37, 29}, {64, 61}},
                       {
                           {{"rows", 2}, {"local_x", 8}, {"local_y", 4}},
                           {{"rows", 4}, {"local_x", 16}, {"local_y", 2}},
                           {{"rows", 8}, {"local_x", 8}, {"local_y", 4}},
                           {{"rows", 4}, {"local_x", 8}, {"local_y", 1}},
                           {{"rows", 1}, {"local_x", 8}, {"local_y", 4}},
                       });
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

TEST(JacobiTolerance, CountMatchesTheReferenceForEveryVariantAndCheckInterval) {
  Context& ctx = test_context();
  for (auto [w, h] : {std::pair{17, 13}, {40, 30}}) {
    const auto seed = testing::fresh_seed();
    const Image edges = photo_edges(w, h, seed);
    JacobiParams all;
    all.iterations = 400;
    const JacobiReference unstopped = jacobi_reference(edges, all);
    for (int from : {0, 23, 61}) {
      const auto [tolerance, count] = tolerance_stopping_at(unstopped.changes, from);
      ASSERT_GT(count, 0) << "no usable stopping point from " << from << " (seed " << seed << ")";
      for (int m : {1, 5, 48, 1000}) {
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
            Image got;
            const JacobiDeviceRun run = run_device(v.name, edges, p, Image(), got, config);
            EXPECT_EQ(run.iterations, count);
            ASSERT_TRUE(run.last_change);
            EXPECT_NEAR(*run.last_change, ref.changes.back(), 1e-3 * ref.changes.back());
            EXPECT_LE(jacobi_relative_l2(ref, got), 1e-5);
          }
        }
      }
    }
  }
}

TEST(JacobiTolerance, UnreachedToleranceRunsEveryIteration) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image edges = photo_edges(31, 9, seed);
  JacobiParams p;
  p.iterations = 53;
  p.tolerance = 0.0;  // only an exact fixed point would stop it
  p.check_every = 10;
  const JacobiReference ref = jacobi_reference(edges, p);
  ASSERT_EQ(ref.iterations, 53);
  for (const auto& v : jacobi_variants()) {
    SCOPED_TRACE(v.name);
    Image got;
    const JacobiDeviceRun run = run_device(v.name, edges, p, Image(), got);
    EXPECT_EQ(run.iterations, 53);
    ASSERT_TRUE(run.last_change);
    EXPECT_NEAR(*run.last_change, ref.changes.back(), 1e-3 * ref.changes.back());
    EXPECT_LE(jacobi_relative_l2(ref, got), 1e-5);
  }
}

TEST(JacobiTolerance, ReportChangeWithoutTolerance) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image edges = photo_edges(20, 20, seed);
  JacobiParams p;
  p.iterations = 21;
  p.report_change = true;
  const JacobiReference ref = jacobi_reference(edges, p);
  for (const auto& v : jacobi_variants()) {
    SCOPED_TRACE(v.name);
    Image got;
    const JacobiDeviceRun run = run_device(v.name, edges, p, Image(), got);
    ASSERT_TRUE(run.last_change);
    EXPECT_NEAR(*run.last_change, ref.changes.back(), 1e-3 * ref.changes.back());
  }
}

// ---- round trip: edges, then reconstruct, rebuilds the image ------------------------------------------

double psnr(const Image& a, const Image& b) {
  double se = 0;
  for (std::size_t i = 0; i < a.pixel_count(); ++i) {
    const double d = sample_as_double(a, i) - sample_as_double(b, i);
    se += d * d;
  }
  const double mse = se / double(a.pixel_count());
  return mse == 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(255.0 * 255.0 / mse);
}

TEST(JacobiRoundTrip, RebuildsA48x48ImageAbove40Db) {
  Context& ctx = test_context();
  const auto seed = testing::fresh_seed();
  const Image photo = synthetic_photo(48, 48, 1, seed);
  const Image edges = jacobi_edges(ctx, photo);
  for (const auto& v : jacobi_variants()) {
    SCOPED_TRACE(fmt::format("variant={} seed={}", v.name, seed));
    JacobiParams p;
    p.iterations = 20000;
    p.tolerance = 1e-3;
    const JacobiResult r = jacobi_reconstruct(ctx, edges, p, v.name);
    Image rounded(48, 48, 1);
    for (std::size_t i = 0; i < rounded.pixel_count(); ++i)
      rounded.data[i] = std::uint8_t(std::clamp(std::floor(r.image.samples<float>()[i] + 0.5f), 0.0f, 255.0f));
    EXPECT_GT(psnr(photo, rounded), 40.0) << r.iterations << " iterations";
    EXPECT_LT(r.iterations, 20000);
  }
}

// ---- host API: initial iterate, timing, parameter and input checks ---------------------------------------

TEST(JacobiHost, ZeroIterationsReturnTheInitialIterate) {
  Context& ctx = test_context();
  const Image edges = random_edges(9, 4, testing::fresh_seed());
  const Image initial = random_edges(9, 4, testing::fresh_seed());
  JacobiParams p;
  p.iterations = 0;
  for (bool tolerance : {false, true}) {
    if (tolerance) p.tolerance = 1.0;
    const JacobiResult r = jacobi_reconstruct(ctx, edges, p, "tiled2d", initial);
    EXPECT_EQ(r.iterations, 0);
    EXPECT_TRUE(testing::images_equal(initial, r.image));
  }
}

TEST(JacobiHost, TimingIsFilled) {
  Context& ctx = test_context();
  JacobiParams p;
  p.iterations = 10;
  Timing t;
  jacobi_reconstruct(ctx, random_edges(64, 48, testing::fresh_seed()), p, "auto", Image(), &t);
  EXPECT_GT(t.kernel_ms, 0.0);
  EXPECT_GE(t.total_ms, t.kernel_ms);
}

TEST(JacobiHost, RejectsBadInputAndParameters) {
  Context& ctx = test_context();
  const Image edges = random_edges(8, 6, testing::fresh_seed());
  JacobiParams p;
  p.iterations = 3;
  // Not float32, not one channel, an initial iterate of another size or type.
  EXPECT_THROW(jacobi_reconstruct(ctx, testing::random_image(8, 6, 1, SampleType::u8, 1), p), std::invalid_argument);
  EXPECT_THROW(jacobi_reconstruct(ctx, testing::random_image(8, 6, 3, SampleType::f32, 1), p), std::invalid_argument);
  EXPECT_THROW(jacobi_reconstruct(ctx, edges, p, "auto", random_edges(6, 8, 1)), std::invalid_argument);
  EXPECT_THROW(jacobi_reconstruct(ctx, edges, p, "auto", testing::random_image(8, 6, 1, SampleType::u8, 1)),
               std::invalid_argument);
  // Parameters.
  JacobiParams bad = p;
  bad.iterations = -1;
  EXPECT_THROW(jacobi_reconstruct(ctx, edges, bad), std::invalid_argument);
  bad = p;
  bad.tolerance = -1e-3;
  EXPECT_THROW(jacobi_reconstruct(ctx, edges, bad), std::invalid_argument);
  bad.tolerance = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(jacobi_reconstruct(ctx, edges, bad), std::invalid_argument);
  bad = p;
  bad.check_every = 0;
  bad.tolerance = 1.0;
  EXPECT_THROW(jacobi_reconstruct(ctx, edges, bad), std::invalid_argument);
  EXPECT_THROW(jacobi_reconstruct(ctx, edges, p, "no_such_variant"), std::invalid_argument);
  // Device-resident: sizes must agree, and the iterate must not be the edge map.
  DeviceFloatImage d_edges = DeviceFloatImage::upload(ctx, edges);
  DeviceFloatImage other = DeviceFloatImage::allocate(ctx, 6, 8);
  EXPECT_THROW(jacobi_reconstruct(ctx, d_edges, other, p), std::invalid_argument);
  EXPECT_THROW(jacobi_reconstruct(ctx, d_edges, d_edges, p), std::invalid_argument);
  EXPECT_THROW(jacobi_edges(ctx, d_edges, other), std::invalid_argument);
  EXPECT_THROW(jacobi_edges(ctx, testing::random_image(4, 4, 3, SampleType::f32, 1)), std::invalid_argument);
}

TEST(JacobiHost, RefusesTunablesThatDoNotFit) {
  const DeviceInfo& device = test_context().info();
  EXPECT_TRUE(jacobi_unsupported(device, "temporal", 64, 64, {{"steps", 17}}));
  EXPECT_TRUE(jacobi_unsupported(device, "temporal", 64, 64, {{"steps", 0}}));
  EXPECT_TRUE(jacobi_unsupported(device, "tiled2d", 64, 64, {{"local_x", 4096}, {"local_y", 4096}}));
  EXPECT_TRUE(jacobi_unsupported(device, "tiled2d", 64, 64, {{"no_such_tunable", 1}}));
  // NVIDIA's 48 KiB: a 32x32 tile with k=16 needs 3 * 64 * 64 * 4 bytes and more.
  DeviceInfo nvidia_like = device;
  nvidia_like.local_mem_bytes = 48 * 1024;
  nvidia_like.max_work_group_size = 1024;
  EXPECT_TRUE(jacobi_unsupported(nvidia_like, "temporal", 64, 64, {{"steps", 16}, {"tile_x", 32}, {"tile_y", 32}}));
  EXPECT_FALSE(jacobi_unsupported(nvidia_like, "temporal", 64, 64, {{"steps", 16}}));
  EXPECT_FALSE(jacobi_unsupported(nvidia_like, "temporal", 64, 64));
  // wavefront: k in 1..16, a band wider than its two halos, its levels within local memory.
  EXPECT_TRUE(jacobi_unsupported(device, "wavefront", 64, 64, {{"steps", 17}}));
  EXPECT_TRUE(jacobi_unsupported(device, "wavefront", 64, 64, {{"steps", 16}, {"local_x", 16}, {"cols", 2}}));
  EXPECT_TRUE(jacobi_unsupported(device, "wavefront", 64, 64, {{"cols", 3}}));
  EXPECT_TRUE(jacobi_unsupported(nvidia_like, "wavefront", 64, 64, {{"steps", 16}, {"local_x", 512}, {"cols", 2}}));
  EXPECT_FALSE(jacobi_unsupported(nvidia_like, "wavefront", 64, 64));
  EXPECT_FALSE(jacobi_unsupported(nvidia_like, "strip", 64, 64));
  EXPECT_TRUE(jacobi_unsupported(device, "strip", 64, 64, {{"vec", 3}}));
  EXPECT_TRUE(jacobi_unsupported(device, "strip", 64, 64, {{"rows", 0}}));
  // tiled2d: 1..16 pixels per work-item.
  for (int rows : {0, 17}) {
    const auto why = jacobi_unsupported(device, "tiled2d", 64, 64, {{"rows", rows}});
    ASSERT_TRUE(why) << rows;
    EXPECT_NE(why->find("rows"), std::string::npos) << *why;
  }
  EXPECT_FALSE(jacobi_unsupported(device, "tiled2d", 64, 64, {{"rows", 16}}));
  EXPECT_FALSE(jacobi_unsupported(device, "tiled2d", 64, 64, {{"rows", 1}}));
}

TEST(JacobiHost, AutoPicksASupportedVariant) {
  const DeviceInfo& device = test_context().info();
  for (auto [w, h] : {std::pair{1, 1}, {640, 480}, {4096, 4096}}) {
    const std::string v = jacobi_auto_variant(device, w, h);
    EXPECT_FALSE(jacobi_unsupported(device, v, w, h)) << v;
  }
}

}  // namespace
}  // namespace clf
