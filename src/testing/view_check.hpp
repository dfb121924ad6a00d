// SPDX-License-Identifier: Apache-2.0
// The check of a filter call on views of a caller's buffers (DeviceImage::view) with a row pitch and an offset:
// the output view holds the reference, every byte outside it and the whole input buffer are as they were, and
// the call enqueued the expected number of packed copies.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "clfilters/device_image.hpp"
#include "testing/callers_buffer.hpp"
#include "testing/test_images.hpp"

namespace clf::testing {

// Layout of the two views, in pixels, and the packed copies the call is expected to enqueue (none where the
// variant takes the views as they are, else one per pitched view).
struct ViewLayout {
  int in_offset, in_stride, out_offset, out_stride;
  int copies;
};

// One case of a filter's view test: the variant, the channel count and the layout.
struct ViewCase {
  std::string variant;
  int channels;
  ViewLayout layout;
};

inline void PrintTo(const ViewCase& c, std::ostream* os) {
  *os << fmt::format("{} c={} in {}+{} out {}+{}", c.variant, c.channels, c.layout.in_offset, c.layout.in_stride,
                     c.layout.out_offset, c.layout.out_stride);
}

// The test name of a case: variant, channels and layout.
inline std::string view_case_name(const ::testing::TestParamInfo<ViewCase>& info) {
  const ViewCase& c = info.param;
  return fmt::format("{}_c{}_in{}x{}_out{}x{}", c.variant, c.channels, c.layout.in_offset, c.layout.in_stride,
                     c.layout.out_offset, c.layout.out_stride);
}

// The fixture of a filter's view test over ViewCases: the test context and a fresh seed, which a failure prints.
class ViewTest : public ::testing::TestWithParam<ViewCase> {
 protected:
  // A fresh random 8-bit input of width x height with the case's channels.
  Image random_input(int width, int height) const {
    return random_image(width, height, GetParam().channels, SampleType::u8, seed_);
  }

  Context& ctx_ = test_context();
  const std::uint64_t seed_ = fresh_seed();

 private:
  ::testing::ScopedTrace trace_{__FILE__, __LINE__, fmt::format("seed={}", seed_)};
};

// Runs `call` from a view of `in` to a poisoned view of its size, both laid out as `layout` says, and checks the
// result against `want`, each sample within `tolerance` (docs/SPEC.md's accuracy of the filter).
inline void expect_view_call(Context& ctx, const Image& in, const Image& want, const ViewLayout& layout,
                             const std::function<std::vector<cl::Event>(const DeviceImage&, DeviceImage&)>& call,
                             int tolerance = 0) {
  const int w = in.width, h = in.height, c = in.channels;
  CallersBuffer src(ctx, in, layout.in_offset, layout.in_stride, 0x3C);
  CallersBuffer dst(ctx, Image(w, h, c), layout.out_offset, layout.out_stride, 0xA5);  // poisoned
  const auto in_view = DeviceImage::view(ctx, src.buffer(), w, h, c, std::size_t(layout.in_offset) * c,
                                         std::size_t(layout.in_stride) * c);
  auto out_view = DeviceImage::view(ctx, dst.buffer(), w, h, c, std::size_t(layout.out_offset) * c,
                                    std::size_t(layout.out_stride) * c);
  const auto events = call(in_view, out_view);
  cl::Event::waitForEvents(events);
  EXPECT_EQ(rect_copies(events), layout.copies);
  // The output buffer: the poison with the view's rows replaced, exactly outside them, within `tolerance` inside.
  std::vector<std::uint8_t> got = dst.read(ctx), expected = dst.bytes;
  ASSERT_EQ(got.size(), expected.size());
  for (int y = 0; y < h; ++y) {
    const std::size_t at = (std::size_t(layout.out_offset) + std::size_t(layout.out_stride) * y) * c;
    for (std::size_t i = 0; i < want.row_bytes(); ++i)
      ASSERT_LE(std::abs(int(got[at + i]) - int(want.row(y)[i])), tolerance) << "row " << y << ", byte " << i;
    std::memcpy(expected.data() + at, want.row(y), want.row_bytes());
    std::memcpy(got.data() + at, want.row(y), want.row_bytes());
  }
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(int(got[i]), int(expected[i])) << "byte " << i << " outside the output view changed";
  EXPECT_EQ(src.read(ctx), src.bytes) << "the input buffer changed";
}

}  // namespace clf::testing
