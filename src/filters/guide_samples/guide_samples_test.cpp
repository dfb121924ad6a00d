// SPDX-License-Identifier: Apache-2.0
// Matrix add exact against the CPU's IEEE addition, dot products within 1e-6 * sum|ab| of a double
// reference, for counts that leave remainders (float4 tails, partial image rows). Outputs poisoned.
#include "clfilters/guide_samples.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "common/synthetic_image.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using testing::test_context;

cl::Buffer device_copy(const std::vector<float>& v) {
  Context& ctx = test_context();
  cl::Buffer b = ctx.buffer(CL_MEM_READ_WRITE, v.size() * 4);
  ctx.queue().enqueueWriteBuffer(b, CL_TRUE, 0, v.size() * 4, v.data());
  return b;
}

std::vector<float> poisoned_read(cl::Buffer& b, std::size_t n, const std::function<void()>& run) {
  Context& ctx = test_context();
  const std::vector<float> poison(n, std::nanf(""));
  ctx.queue().enqueueWriteBuffer(b, CL_TRUE, 0, n * 4, poison.data());
  run();
  std::vector<float> out(n);
  ctx.queue().enqueueReadBuffer(b, CL_TRUE, 0, n * 4, out.data());
  return out;
}

TEST(MatrixAdd, EveryVariantAndTunableIsExact) {
  for (std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(4), std::size_t(5), std::size_t(1001),
                        std::size_t((1 << 18) + 7)}) {
    const auto seed = testing::fresh_seed();
    const auto a = random_floats(n, seed), b = random_floats(n, seed + 1);
    const auto want = matrix_add_reference(a, b);
    cl::Buffer da = device_copy(a), db = device_copy(b), sum = test_context().buffer(CL_MEM_READ_WRITE, n * 4);
    for (const auto& v : matrix_add_variants())
      for (const auto& config : all_configs(v)) {
        SCOPED_TRACE(fmt::format("n={} {} [{}] seed={}", n, v.name, to_string(config), seed));
        const auto got = poisoned_read(sum, n, [&] { matrix_add(test_context(), da, db, sum, n, v.name, config); });
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i) wrong += std::memcmp(&got[i], &want[i], 4) != 0;
        ASSERT_EQ(wrong, 0u) << "first element: expected " << want[0] << ", got " << got[0];
      }
  }
}

TEST(DotProduct, BufferAndImageWithinTheContract) {
  Context& ctx = test_context();
  const std::size_t wide = ctx.info().image2d_max_width;
  for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(4097), 2 * wide + 5}) {
    const auto seed = testing::fresh_seed();
    const auto a = random_floats(4 * n, seed), b = random_floats(4 * n, seed + 1);
    const auto want = dot_product_reference(a, b, 2);
    cl::Buffer da = device_copy(a), db = device_copy(b), result = ctx.buffer(CL_MEM_READ_WRITE, n * 4);
    for (const std::string variant : {"buffer", "image"}) {
      SCOPED_TRACE(fmt::format("n={} {} seed={}", n, variant, seed));
      if (variant == "image" && !ctx.info().image_support) continue;
      const auto got = poisoned_read(result, n, [&] {
        if (variant == "buffer") {
          dot_product(ctx, da, db, result, n);
        } else {
          dot_product(ctx, make_float4_image(ctx, a.data(), n), make_float4_image(ctx, b.data(), n), result, n);
        }
      });
      for (std::size_t i = 0; i < n; ++i) {
        double magnitude = 0;
        for (int c = 0; c < 4; ++c) magnitude += std::fabs(double(a[4 * i + c]) * b[4 * i + c]);
        ASSERT_LE(std::fabs(got[i] - want[i]), 1e-6 * magnitude) << "pair " << i;
      }
    }
  }
}

TEST(DotProductReference, MatchesAHandComputedCase) {
  const std::vector<float> a = {1, 2, 3, 4, -1, 0.5f, 0, 8}, b = {5, 6, 7, 8, 2, 4, 1e9f, 0.25f};
  const auto r = dot_product_reference(a, b, 1);
  EXPECT_EQ(r[0], 70.0);
  EXPECT_EQ(r[1], -2.0 + 2.0 + 0.0 + 2.0);
}

}  // namespace
}  // namespace clf
