// SPDX-License-Identifier: Apache-2.0
// Test helpers for filters on views of a caller's buffer (DeviceImage::view): the buffer, and the packed copies a
// call enqueued.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "clfilters/image.hpp"
#include "clfilters/runtime.hpp"

namespace clf::testing {

// A caller's buffer: `image` at `offset` pixels with rows `stride` pixels apart, every other byte `fill`.
struct CallersBuffer {
  std::vector<std::uint8_t> bytes;
  cl::Buffer buffer;
  CallersBuffer(Context& ctx, const Image& image, int offset, int stride, std::uint8_t fill) {
    const std::size_t px = std::size_t(image.channels);
    bytes.assign((std::size_t(offset) + std::size_t(stride) * image.height + 5) * px, fill);
    for (int y = 0; y < image.height; ++y)
      std::memcpy(bytes.data() + (offset + std::size_t(stride) * y) * px, image.row(y), image.row_bytes());
    buffer = cl::Buffer(ctx.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data());
  }
  std::vector<std::uint8_t> read(Context& ctx) const {
    std::vector<std::uint8_t> out(bytes.size());
    check_cl(ctx.queue().enqueueReadBuffer(buffer, CL_TRUE, 0, out.size(), out.data()), "clEnqueueReadBuffer");
    return out;
  }
};

// The packed copies (clEnqueueCopyBufferRect) among a call's events.
inline int rect_copies(const std::vector<cl::Event>& events) {
  int copies = 0;
  for (const cl::Event& e : events) copies += e.getInfo<CL_EVENT_COMMAND_TYPE>() == CL_COMMAND_COPY_BUFFER_RECT;
  return copies;
}

}  // namespace clf::testing
