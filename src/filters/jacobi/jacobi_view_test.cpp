// SPDX-License-Identifier: Apache-2.0
// The Jacobi calls on views of a caller's buffers with an offset and a row pitch: the same results as the
// references, and no byte outside the views written.
#include <gtest/gtest.h>

#include <cstring>

#include "clfilters/jacobi.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

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
