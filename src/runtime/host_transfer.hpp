// SPDX-License-Identifier: Apache-2.0
// Host-to-device and device-to-host copies through pinned staging, for devices whose memory is not the host's (GPUs).
// A copy from pageable memory runs at a fraction of the bus's speed (8.5 GB/s up, 15.6 down on the NVIDIA H200
// machine, against 55 from pinned memory), so the bytes go through Context::pinned_buffer chunks instead: a few
// threads each copy their chunks into their own pair of pinned buffers while the device transfers the previous ones.
#pragma once

#include <cstddef>
#include <vector>

#include "clfilters/runtime.hpp"

namespace clf {

// Chunk sizes: large enough that each transfer's fixed cost (about 10 us) is small beside its bytes, small enough
// that the pinned memory a thread keeps stays modest (2 chunks per worker).
// On the NVIDIA H100 machine, 8 workers stage 268 MB up in 7.4 ms with 2 MiB chunks, 10.0 with 8 MiB, 12.9 with 32.
inline constexpr std::size_t kStagingChunk = std::size_t(2) << 20;
// Below this a copy goes straight from the caller's memory: the staging would cost more than it saves.
inline constexpr std::size_t kStagingMinimum = std::size_t(1) << 20;

// Where and after what a staged copy runs: at `device_offset` of the device buffer, on `queue` (ctx.queue() when
// null), after the device commands in `wait` (which may be on other queues). `chunk` is for tests.
struct StagedCopy {
  std::size_t device_offset = 0;
  cl::CommandQueue* queue = nullptr;
  std::size_t chunk = kStagingChunk;
  std::vector<cl::Event> wait = {};
};

// Writes `bytes` from `src` to `dst`. Returns once `src` has been read, which does not mean the device has the
// bytes: commands enqueued on the copy's queue afterwards see them, and so does anything that waits for the event
// returned.
cl::Event write_staged(Context& ctx, const cl::Buffer& dst, const void* src, std::size_t bytes,
                       const StagedCopy& copy = {});
// Reads `bytes` of `src` into `dst`, after every command enqueued before on the copy's queue and those in
// copy.wait; returns when they are there.
void read_staged(Context& ctx, const cl::Buffer& src, void* dst, std::size_t bytes, const StagedCopy& copy = {});

}  // namespace clf
