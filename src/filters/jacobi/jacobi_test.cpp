// SPDX-License-Identifier: Apache-2.0
// The CPU references against a brute-force seed-style computation, the edge map on the device, a round trip
// that rebuilds an image, and the host API: the initial iterate, timing, and the errors bad arguments,
// tunables and sizes give. Every variant on the device: jacobi_variants_test.cpp.
#include "clfilters/jacobi.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/image_compare.hpp"
#include "common/synthetic_image.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::test_context;

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

// ---- round trip: edges, then reconstruct, rebuilds the image ------------------------------------------

using testing::psnr;

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
  const Image edges = random_edges(64, 48, testing::fresh_seed());
  EXPECT_TRUE(testing::timing_filled([&](Timing* t) { jacobi_reconstruct(ctx, edges, p, "auto", Image(), t); }));
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

// The Jacobi calls on views of a caller's buffers with an offset and a row pitch: the same results as the
// references, and no byte outside the views written.
// A caller's buffer of `rows` rows of `pitch` bytes, poisoned, holding `image` from byte 12 when given.
struct PitchedFloats {
  static constexpr std::size_t kOffset = 12;
  std::size_t pitch;
  std::vector<std::uint8_t> bytes;
  cl::Buffer buffer;
  PitchedFloats(Context& ctx, int width, int height, const Image* image = nullptr)
      : pitch(std::size_t(width) * 4 + 20), bytes(kOffset + pitch * std::size_t(height) + 8, 0xA5) {
    if (image)
      for (int y = 0; y < height; ++y)
        std::memcpy(bytes.data() + kOffset + pitch * y, image->row(y), image->row_bytes());
    buffer = ctx.buffer(CL_MEM_READ_WRITE, bytes.size());
    check_cl(ctx.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes.size(), bytes.data()), "clEnqueueWriteBuffer");
  }
  DeviceFloatImage view(Context& ctx, int width, int height) const {
    return DeviceFloatImage::view(ctx, buffer(), width, height, kOffset, pitch);
  }
  // The bytes outside the view, which nothing may write.
  std::size_t changed_outside(Context& ctx, int width) const {
    std::vector<std::uint8_t> now(bytes.size());
    check_cl(ctx.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, now.size(), now.data()), "clEnqueueReadBuffer");
    std::size_t changed = 0;
    for (std::size_t i = 0; i < now.size(); ++i) {
      const bool inside = i >= kOffset && (i - kOffset) % pitch < std::size_t(width) * 4 &&
                          (i - kOffset) / pitch < (bytes.size() - kOffset - 8) / pitch;
      changed += !inside && now[i] != bytes[i];
    }
    return changed;
  }
};

// Integer-valued floats: the edge map is exact in float.
Image integer_floats(int width, int height) {
  const Image u8 = testing::random_image(width, height, 1, SampleType::u8, testing::fresh_seed());
  Image f(width, height, 1, SampleType::f32);
  auto out = f.samples<float>();
  for (std::size_t i = 0; i < f.pixel_count(); ++i) out[i] = float(u8.data[i]);
  return f;
}

TEST(JacobiViews, EdgesOfPitchedViewsMatchTheReference) {
  Context& ctx = testing::test_context();
  const int w = 23, h = 9;
  const Image image = integer_floats(w, h);
  PitchedFloats in(ctx, w, h, &image), out(ctx, w, h);
  DeviceFloatImage out_view = out.view(ctx, w, h);
  jacobi_edges(ctx, in.view(ctx, w, h), out_view);
  EXPECT_TRUE(testing::images_equal(jacobi_edges_reference(image), out_view.download(ctx)));
  EXPECT_EQ(out.changed_outside(ctx, w), 0u);
}

TEST(JacobiViews, ReconstructionOnPitchedViewsMatchesTheReference) {
  Context& ctx = testing::test_context();
  const int w = 19, h = 14;
  const Image edges = jacobi_edges_reference(integer_floats(w, h));
  const Image start = integer_floats(w, h);
  PitchedFloats e(ctx, w, h, &edges), u(ctx, w, h, &start);
  DeviceFloatImage u_view = u.view(ctx, w, h);
  JacobiParams params;
  params.iterations = 30;
  const JacobiDeviceRun run = jacobi_reconstruct(ctx, e.view(ctx, w, h), u_view, params);
  EXPECT_EQ(run.iterations, 30);
  EXPECT_LE(jacobi_relative_l2(jacobi_reference(edges, params, start), u_view.download(ctx)), 1e-5);
  EXPECT_EQ(u.changed_outside(ctx, w), 0u);
}

}  // namespace
}  // namespace clf
