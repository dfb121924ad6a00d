// SPDX-License-Identifier: Apache-2.0
// Staged host transfers: every byte arrives, whatever the size, chunk and number of workers, and the pinned buffers
// are reused and grown across calls. On a CPU device the host calls do not stage (the memory is used in place), so
// the staged path is called directly here; on a GPU every host call of 1 MiB or more goes through it.
#include "runtime/host_transfer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace clf {
namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = std::uint8_t(rng());
  return v;
}

TEST(HostTransfer, StagedCopiesMoveEveryByteBothWays) {
  Context ctx;
  // Sizes below, at and across chunk edges; chunks smaller than a cache line are raised to one.
  const std::size_t sizes[] = {1, 63, 1000, 3 * 4096 + 17, (std::size_t(1) << 20) + 5};
  const std::size_t chunks[] = {64, 1000, 4096, kStagingChunk};
  std::uint32_t seed = 1;
  for (std::size_t bytes : sizes) {
    for (std::size_t chunk : chunks) {
      SCOPED_TRACE(testing::Message() << bytes << " bytes in chunks of " << chunk);
      const std::vector<std::uint8_t> up = random_bytes(bytes, seed++);
      cl::Buffer device = ctx.buffer(CL_MEM_READ_WRITE, bytes + 64);
      // Poison past the end: a chunk written too long would show there.
      const std::vector<std::uint8_t> poison(bytes + 64, 0xA5);
      ASSERT_EQ(ctx.queue().enqueueWriteBuffer(device, CL_TRUE, 0, poison.size(), poison.data()), CL_SUCCESS);
      write_staged(ctx, device, up.data(), bytes, {.chunk = chunk});
      std::vector<std::uint8_t> back(bytes + 64);
      ASSERT_EQ(ctx.queue().enqueueReadBuffer(device, CL_TRUE, 0, back.size(), back.data()), CL_SUCCESS);
      EXPECT_TRUE(std::equal(up.begin(), up.end(), back.begin())) << "upload";
      EXPECT_TRUE(std::all_of(back.begin() + std::ptrdiff_t(bytes), back.end(), [](auto b) { return b == 0xA5; }));

      // Down: the device holds other bytes, the host is poisoned with a guard after the end.
      const std::vector<std::uint8_t> down = random_bytes(bytes, seed++);
      ASSERT_EQ(ctx.queue().enqueueWriteBuffer(device, CL_TRUE, 0, bytes, down.data()), CL_SUCCESS);
      std::vector<std::uint8_t> host(bytes + 64, 0x5A);
      read_staged(ctx, device, host.data(), bytes, {.chunk = chunk});
      EXPECT_TRUE(std::equal(down.begin(), down.end(), host.begin())) << "download";
      EXPECT_TRUE(std::all_of(host.begin() + std::ptrdiff_t(bytes), host.end(), [](auto b) { return b == 0x5A; }));
    }
  }
}

TEST(HostTransfer, PinnedBuffersAreKeptAndGrown) {
  Context ctx;
  Context::PinnedBuffer& a = ctx.pinned_buffer("t", 100);
  ASSERT_NE(a.data, nullptr);
  a.data[99] = 7;
  EXPECT_EQ(&ctx.pinned_buffer("t", 50), &a);  // large enough: the same memory
  EXPECT_EQ(a.data[99], 7);
  Context::PinnedBuffer& b = ctx.pinned_buffer("t", 1000);
  EXPECT_GE(b.bytes, 1000u);
  b.data[999] = 1;  // writable to its end
  EXPECT_NE(&ctx.pinned_buffer("u", 10), &b);
}

}  // namespace
}  // namespace clf
