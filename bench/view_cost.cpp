// SPDX-License-Identifier: Apache-2.0
// What a pitched and offset DeviceImage view costs a filter's device call: for each filter with a device-resident
// DeviceImage entry point, the same 1920x1080 call on packed images and on views of the caller's buffers (row pitch
// = row bytes + 256, offset 512 bytes), timed interleaved so that a loaded machine slows both alike; the median of N
// runs after 2 warm-ups. Where a variant reads the layout itself the cost is near 0; where the filter goes through
// packed copies (clEnqueueCopyBufferRect) it is their share of the call.
//
//   view_cost [RUNS] [CASE-SUBSTRING]        RUNS: timed runs per case (default 15)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/sobel.hpp"

namespace {

using namespace clf;

constexpr int kWidth = 1920, kHeight = 1080, kWarmups = 2;
constexpr std::size_t kExtraPitchBytes = 256, kOffsetBytes = 512;

using DeviceCall = std::function<std::vector<cl::Event>(Context&, const DeviceImage&, DeviceImage&)>;

struct Case {
  const char* name;
  int channels;
  DeviceCall call;
};

std::vector<Case> cases() {
  return {
      {"box_blur d9 grey", 1,
       [](Context& c, const DeviceImage& i, DeviceImage& o) {
         return box_blur(c, i, o, {.diameter = 9, .border = {}});
       }},
      {"box_blur d9 rgba", 4,
       [](Context& c, const DeviceImage& i, DeviceImage& o) {
         return box_blur(c, i, o, {.diameter = 9, .border = {}});
       }},
      {"sobel magnitude", 1, [](Context& c, const DeviceImage& i, DeviceImage& o) { return sobel(c, i, o, {}); }},
      {"epsilon grey", 1, [](Context& c, const DeviceImage& i, DeviceImage& o) { return epsilon(c, i, o, {}); }},
      {"epsilon rgba", 4, [](Context& c, const DeviceImage& i, DeviceImage& o) { return epsilon(c, i, o, {}); }},
      {"bilateral grey", 1, [](Context& c, const DeviceImage& i, DeviceImage& o) { return bilateral(c, i, o, {}); }},
      {"bilateral rgba", 4, [](Context& c, const DeviceImage& i, DeviceImage& o) { return bilateral(c, i, o, {}); }},
  };
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Milliseconds from the call's enqueue to the queue's end (so packed copies count).
double time_call(Context& ctx, const DeviceCall& call, const DeviceImage& in, DeviceImage& out) {
  const auto start = std::chrono::steady_clock::now();
  call(ctx, in, out);
  check_cl(ctx.queue().finish(), "clFinish");
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void measure(Context& ctx, const Case& c, int runs) {
  const std::size_t row = std::size_t(kWidth) * c.channels, pitch = row + kExtraPitchBytes;
  const std::size_t bytes = kOffsetBytes + pitch * kHeight;
  std::vector<unsigned char> host(bytes);
  std::mt19937 rng(std::random_device{}());
  for (auto& b : host) b = static_cast<unsigned char>(rng());
  cl::Buffer in_buffer = ctx.buffer(CL_MEM_READ_WRITE, bytes), out_buffer = ctx.buffer(CL_MEM_READ_WRITE, bytes);
  check_cl(ctx.queue().enqueueWriteBuffer(in_buffer, CL_TRUE, 0, bytes, host.data()), "clEnqueueWriteBuffer");
  const DeviceImage pitched_in = DeviceImage::view(ctx, in_buffer(), kWidth, kHeight, c.channels, kOffsetBytes, pitch);
  DeviceImage pitched_out = DeviceImage::view(ctx, out_buffer(), kWidth, kHeight, c.channels, kOffsetBytes, pitch);
  const DeviceImage packed_in = DeviceImage::allocate(ctx, kWidth, kHeight, c.channels);
  DeviceImage packed_out = DeviceImage::allocate(ctx, kWidth, kHeight, c.channels);
  check_cl(ctx.queue().enqueueWriteBuffer(packed_in.buffer, CL_TRUE, 0, packed_in.byte_size(), host.data()),
           "clEnqueueWriteBuffer");
  std::vector<double> packed_ms, pitched_ms;
  for (int r = 0; r < kWarmups + runs; ++r) {
    const double packed = time_call(ctx, c.call, packed_in, packed_out);
    const double pitched = time_call(ctx, c.call, pitched_in, pitched_out);
    if (r < kWarmups) continue;
    packed_ms.push_back(packed);
    pitched_ms.push_back(pitched);
  }
  const double p = median(packed_ms), q = median(pitched_ms);
  fmt::print("{:<18} {:>10.3f} {:>11.3f} {:>7.1f}\n", c.name, p, q, 100 * (q - p) / p);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const int runs = argc > 1 ? std::atoi(argv[1]) : 15;
    if (runs < 1) {
      fmt::print(stderr, "view_cost: RUNS must be a positive number, got '{}'\n", argv[1]);
      return 2;
    }
    const std::string only = argc > 2 ? argv[2] : "";
    Context ctx;
    fmt::print("device: {}; {}x{}, median of {} after {} warm-ups\n", ctx.info().name, kWidth, kHeight, runs, kWarmups);
    fmt::print("{:<18} {:>10} {:>11} {:>7}\n", "case", "packed ms", "pitched ms", "cost %");
    for (const Case& c : cases())
      if (std::string(c.name).find(only) != std::string::npos) measure(ctx, c, runs);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "view_cost: {}\n", e.what());
    return 1;
  }
}
