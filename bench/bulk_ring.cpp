// Can bulk asynchronous copies feed the box blur's strip loop with its history on the chip (issue 8, box blur
// step 26)?
// Steps 22-25 (bench/NOTES.md) tie the leaving rows to the loads in flight: to fill the bandwidth, fused_wide
// runs ~2300 columns per SM, whose d-row history (286 KB at d = 31) fits neither shared memory nor L2, so
// each row is read twice from DRAM (~12 B per pixel instead of 8). Loads in flight there cost threads and
// registers. Hopper's bulk copy (cp.async.bulk with an mbarrier, sm_90) moves a whole row segment into shared
// memory from one thread, with no registers: a work-group can keep many rows in flight while holding few
// columns, so a ring of the last d rows plus the rows in flight may fit its 48 KB. This copies an 8192x8192
// RGBA image through the vertical half of the box blur: each work-item keeps one column's sum of the last d
// rows in two 16-bit-lane words (entering row added, leaving row subtracted), and the strip's C output
// columns store the sum's low byte per channel. The work-group loads C + 2 x halo columns per row, as the row
// window would need. Rows come either
//   - tma 1: by cp.async.bulk into a ring of d + BATCH + AHEAD row slots, the leaving row read from the ring,
//     one work-group barrier per BATCH rows, after which thread 0 refills the freed slots;
//   - tma 2: the same ring, warp-specialised: a producer warp and consumer warps that meet only at mbarriers;
//   - tma 0: by plain loads one row ahead, the leaving row loaded again from global memory (fused_wide's
//   way).
// Every case's output is checked against the host's sum, so a broken pipeline cannot pass for a fast one.
// Off NVIDIA the bulk copy is a plain copy by the work-group (so the check runs on PoCL too).
// Standalone (OpenCL only): built as build/release/bench/bulk_ring; bulk_ring [platform [size]]
#define CL_HPP_ENABLE_EXCEPTIONS
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe_common.hpp"

namespace {

const char* kSource = R"(
#ifndef NV_PTX
#define NV_PTX 0
#endif
inline uint smem(__local const void* p) { return (uint)(size_t)p; }

// Row step k of the strip (0 <= k < steps) goes to ring slot k % R, whose mbarrier completes once per fill:
// the n-th fill of a slot completes phase parity n & 1.
inline void fill_row(__local uint* slot, __local ulong* bar, __global const uint* src, uint bytes, int t,
                     int lx, int fence) {
#if NV_PTX
  if (t == 0) {
    // The slot was last read by this work-group's ordinary loads (before the barrier that precedes this):
    // order those before the async proxy's writes (fence 0 leaves it out, to see what it costs).
    if (fence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem(slot)),
                 "l"(src), "r"(bytes), "r"(smem(bar))
                 : "memory");
  }
#else
  for (uint i = t; i < bytes / 4; i += lx) slot[i] = src[i];
#endif
}

inline void wait_row(__local ulong* bar, uint parity) {
#if NV_PTX
  uint done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem(bar)), "r"(parity)
        : "memory");
  } while (!done);
#endif
}

// Work-group (group x, group y): output columns x0 .. x0+C-1 of rows y0 .. y0+H-1; it loads columns xl ..
// xl+L-1 (L = C + 2 halo, kept inside the image) of rows y0 - r .. y0+H-1+r (r = (d-1)/2, clamped), one per
// step, and work-item c < L / PIX owns loaded columns xl + PIX c .. xl + PIX c + PIX - 1.
// Build options: PIX (1 or 4 pixels per work-item), BATCH (rows per barrier), AHEAD (rows requested beyond the
// batch), RING (row slots: d + BATCH + AHEAD).
#if PIX == 4
typedef uint4 vec_t;
#else
typedef uint vec_t;
#endif
#define SUM_STEP(in, gone)                                               \
  acc_e += (in & 0x00FF00FFu) - (gone & 0x00FF00FFu);                   \
  acc_o += ((in >> 8) & 0x00FF00FFu) - ((gone >> 8) & 0x00FF00FFu)
#define SUM_OUT (acc_e & 0x00FF00FFu) | ((acc_o & 0x00FF00FFu) << 8)
// Row step k from the ring: add the entering row, take out the leaving one, store once the window is full.
#define RING_STEP(k)                                                               \
  if (mine) {                                                                      \
    const vec_t in = ringv[((k) % RING) * LV + c];                                 \
    const vec_t gone = (k) >= d ? ringv[(((k) - d) % RING) * LV + c] : 0;          \
    SUM_STEP(in, gone);                                                            \
    if ((k) >= d - 1 && out_col) dst[(y0 + (k) - (d - 1)) * wv + xv] = SUM_OUT;    \
  }
__kernel void ring_sum(__global const uint* restrict src, __global vec_t* restrict dst, int w, int h, int C,
                       int halo, int H, int d, int tma, int fence, __local uint4* ring16, __local ulong* bars) {
  // uint4: NVIDIA aligns a local argument to its pointee type, and the bulk copy needs 16-byte alignment.
  __local uint* ring = (__local uint*)ring16;
  __local vec_t* ringv = (__local vec_t*)ring16;
  __global const vec_t* srcv = (__global const vec_t*)src;
  const int t = get_local_id(0), lx = get_local_size(0);
  const int L = C + 2 * halo, LV = L / PIX, wv = w / PIX;
  const int x0 = get_group_id(0) * C, y0 = get_group_id(1) * H;
  const int xl = clamp(x0 - halo, 0, w - L);
  const int r = (d - 1) / 2, steps = min(H, h - y0) + d - 1;
#define IN_ROW(k) clamp(y0 - r + (k), 0, h - 1)
  // This work-item's vector c of the loaded row (tma 2 on NVIDIA: warp 0 is the producer), xv of the image's.
  const int c = (NV_PTX && tma == 2) ? t - 32 : t, xv = xl / PIX + c;
  const bool mine = c >= 0 && c < LV, out_col = xv * PIX >= x0 && xv * PIX < min(x0 + C, w);
  vec_t acc_e = 0, acc_o = 0;
#if NV_PTX
  if (tma == 2) {
    // Warp-specialised, as CUTLASS's TMA pipelines: warp 0 only issues the copies and the other warps only
    // consume, with no work-group barrier in the loop. Each slot has a "full" barrier (the copy's bytes) and an
    // "empty" one (one arrival per consumer warp once it has read the slot for the last time, as the leaving
    // row); the producer refills a slot when its empty barrier completes. Off NVIDIA, tma 2 runs as tma 1.
    __local ulong* empty = bars + RING;
    if (t == 0) {
      for (int s = 0; s < RING; ++s) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(bars + s)) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(empty + s)), "r"(lx / 32 - 1) : "memory");
      }
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
      for (int k = 0; k < steps; ++k) {
        if (k >= RING) wait_row(empty + k % RING, (uint)(k / RING - 1) & 1);  // step k - RING released
        fill_row(ring + (k % RING) * L, bars + k % RING, src + IN_ROW(k) * w + xl, (uint)L * 4, 0, lx, fence);
      }
    } else if (t >= 32) {
      for (int k = 0; k < steps; ++k) {
        wait_row(bars + k % RING, (uint)(k / RING) & 1);
        RING_STEP(k);
        if (k >= d) {  // step k - d's slot is read for the last time
          asm volatile("bar.warp.sync -1;" ::: "memory");
          if ((t & 31) == 0)
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(empty + (k - d) % RING)) : "memory");
        }
      }
    }
    return;
  }
#endif
  if (tma) {
    if (t == 0) {
      for (int s = 0; s < RING; ++s) {
#if NV_PTX
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(bars + s)) : "memory");
#endif
      }
#if NV_PTX
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint bytes = (uint)L * 4;
    for (int k = 0; k < BATCH + AHEAD && k < steps; ++k)
      fill_row(ring + (k % RING) * L, bars + k % RING, src + IN_ROW(k) * w + xl, bytes, t, lx, fence);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int g = 0; g * BATCH < steps; ++g) {
#pragma unroll
      for (int u = 0; u < BATCH; ++u) {
        const int k = g * BATCH + u;
        if (k < steps) {
          wait_row(bars + k % RING, (uint)(k / RING) & 1);
          RING_STEP(k);
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);  // every read of the slots refilled next is done
      for (int u = 0; u < BATCH; ++u) {
        const int k = (g + 1) * BATCH + AHEAD + u;
        if (k < steps) fill_row(ring + (k % RING) * L, bars + k % RING, src + IN_ROW(k) * w + xl, bytes, t, lx, fence);
      }
    }
  } else if (mine) {
    vec_t next = srcv[IN_ROW(0) * wv + xv], next_gone = 0;
    for (int k = 0; k < steps; ++k) {
      const vec_t in = next, gone = next_gone;
      if (k + 1 < steps) {
        next = srcv[IN_ROW(k + 1) * wv + xv];
        next_gone = k + 1 >= d ? srcv[IN_ROW(k + 1 - d) * wv + xv] : 0;
      }
      SUM_STEP(in, gone);
      if (k >= d - 1 && out_col) dst[(y0 + k - (d - 1)) * wv + xv] = SUM_OUT;
    }
  }
}
)";

// The host's answer: per channel, the low byte of the sum of rows y - r .. y + r (clamped) at each pixel.
std::vector<unsigned> expected_sums(const std::vector<unsigned>& in, int w, int h, int d) {
  std::vector<unsigned> out(in.size());
  const int r = (d - 1) / 2;
  std::vector<unsigned> acc(std::size_t(w) * 4);
  for (int y = 0; y < h; ++y) {
    std::fill(acc.begin(), acc.end(), 0u);
    for (int j = y - r; j < y - r + d; ++j) {
      const unsigned* row = &in[std::size_t(std::clamp(j, 0, h - 1)) * w];
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 4; ++c) acc[4 * x + c] += (row[x] >> (8 * c)) & 0xFF;
    }
    for (int x = 0; x < w; ++x) {
      unsigned v = 0;
      for (int c = 0; c < 4; ++c) v |= (acc[4 * x + c] & 0xFF) << (8 * c);
      out[std::size_t(y) * w + x] = v;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  struct Case {
    int tma, d, C, halo, H, ahead, pix, batch = 1, fence = 1;
  };
  std::vector<Case> cases;
  // fused_wide's way (plain loads, the leaving row re-read) in 128-row strips, against the bulk-copy ring in
  // strips of about one wave (4 work-groups of 256 columns per SM), by pixels per work-item and rows per
  // barrier; d = 1 is a plain copy through the same loop.
  for (int d : {1, 31})
    for (int pix : {1, 4}) cases.push_back({0, d, 256, 16, 128, 0, pix});
  for (int d : {1, 31})
    for (int H : {256, 512})
      for (int pix : {1, 4})
        for (int batch : {1, 2, 4, 8})
          for (int ahead : {2, 4})
            if (d == 31 || H == 512) cases.push_back({1, d, 256, 16, H, ahead, pix, batch});
  for (int pix : {1, 4})
    for (int batch : {1, 4}) cases.push_back({1, 31, 256, 16, 512, 4, pix, batch, 0});
  for (int ahead : {8, 16}) cases.push_back({1, 31, 128, 16, 256, ahead, 4, 4});
  // More rows in flight (d = 1), and more work-groups per SM (128 columns, 8 per SM) in one wave (d = 31).
  for (const auto& [batch, ahead] : {std::pair{4, 12}, {8, 16}, {8, 24}})
    cases.push_back({1, 1, 256, 16, 512, ahead, 4, batch});
  for (const auto& [batch, ahead] : {std::pair{4, 4}, {4, 8}, {8, 8}}) {
    cases.push_back({1, 31, 128, 16, 512, ahead, 4, batch});
    cases.push_back({1, 1, 128, 16, 512, ahead, 4, batch});
  }
  // Warp-specialised (tma 2): a producer warp and consumer warps synchronised only through mbarriers.
  for (int d : {1, 31})
    for (int pix : {4, 1})
      for (int ahead : {4, 8})
        for (int fence : {1, 0}) cases.push_back({2, d, 256, 16, 512, ahead, pix, 1, fence});
  for (int d : {1, 31})
    for (int ahead : {4, 8}) cases.push_back({2, d, 128, 16, 512, ahead, 4, 1, 1});

  const std::string want = argc > 1 ? argv[1] : "NVIDIA";
  const int size = argc > 2 ? std::stoi(argv[2]) : 8192;
  const cl::Device device = probe_device("bulk_ring", want);
  const std::size_t local_max = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  std::printf("device: %s (%u compute units, %zu B local memory per work-group)\n",
              device.getInfo<CL_DEVICE_NAME>().c_str(), device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>(),
              local_max);
  const bool nvidia = device.getInfo<CL_DEVICE_VENDOR>().find("NVIDIA") != std::string::npos;
  cl::Context ctx(device);
  cl::CommandQueue q(ctx, device, CL_QUEUE_PROFILING_ENABLE);
  const int w = size, h = size;
  const std::size_t bytes = std::size_t(w) * h * 4;
  cl::Buffer src(ctx, CL_MEM_READ_WRITE, bytes), dst(ctx, CL_MEM_READ_WRITE, bytes);
  std::vector<unsigned> host(std::size_t(w) * h), got(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = unsigned((i + 1) * 2654435761u) | 0x01010101u;
  q.enqueueWriteBuffer(src, CL_TRUE, 0, bytes, host.data());

  const double copy_ms = probe_copy_ms(q, src, dst, bytes);
  std::printf("clEnqueueCopyBuffer: %.4f ms = %.0f GB/s\n\n", copy_ms, 2.0 * bytes / copy_ms * 1e-6);
  std::printf("%4s %3s %4s %4s %5s %5s %4s %3s %5s %5s %6s %9s %8s %s\n", "tma", "d", "C", "halo", "strip",
              "ahead", "ring", "pix", "batch", "fence", "groups", "ms", "of copy", "check");
  bool dumped = false;
  std::vector<int> expected_d;
  std::vector<std::vector<unsigned>> expected;
  for (const Case& c : cases) {
    const int L = c.C + 2 * c.halo, ring_rows = c.d + c.batch + c.ahead;
    const std::size_t local = std::size_t(ring_rows) * L * 4 + std::size_t(ring_rows) * 16;
    if (L > w || (c.tma && local > local_max)) continue;
    const std::string options = "-cl-std=CL1.2 -D RING=" + std::to_string(c.tma ? ring_rows : 1) +
                                " -D AHEAD=" + std::to_string(c.ahead) + " -D PIX=" + std::to_string(c.pix) +
                                " -D BATCH=" + std::to_string(c.batch) + (nvidia ? " -D NV_PTX=1" : "");
    cl::Program program(ctx, kSource);
    try {
      program.build(options.c_str());
    } catch (...) {
      std::fprintf(stderr, "%s\n", program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device).c_str());
      return 1;
    }
    if (const char* ptx = std::getenv("BULK_RING_PTX"); ptx && c.tma && !dumped) {
      // The driver's program (PTX on NVIDIA), to see how the inline assembly's operands were formed.
      const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
      if (FILE* f = std::fopen(ptx, "wb")) {
        std::fwrite(binaries[0].data(), 1, binaries[0].size(), f);
        std::fclose(f);
      }
      dumped = true;
    }
    cl::Kernel k(program, "ring_sum");
    int arg = 0;
    for (const cl::Buffer* b : {&src, &dst}) k.setArg(arg++, *b);
    for (int v : {w, h, c.C, c.halo, c.H, c.d, c.tma, c.fence}) k.setArg(arg++, v);
    k.setArg(arg++, cl::Local(c.tma ? std::size_t(ring_rows) * L * 4 : 16));
    k.setArg(arg++, cl::Local(c.tma ? std::size_t(ring_rows) * 16 : 8));  // full and empty barriers
    const int bands = (w + c.C - 1) / c.C, strips = (h + c.H - 1) / c.H;
    const int lx =
        (L / c.pix + 31) / 32 * 32 + (c.tma == 2 && nvidia ? 32 : 0);  // tma 2: + the producer warp
    q.enqueueFillBuffer(dst, 0xA5A5A5A5u, 0, bytes);  // poison: unwritten pixels fail the check
    double ms = 0;
    try {
      ms = probe_time_ms([&] {
        cl::Event e;
        q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(std::size_t(bands) * lx, strips),
                               cl::NDRange(lx, 1), nullptr, &e);
        return e;
      });
    } catch (const cl::Error& e) {
      std::printf("%4d %3d %4d %4d %5d %5d: %s (%d)\n", c.tma, c.d, c.C, c.halo, c.H, c.ahead, e.what(),
                  e.err());
      continue;
    }
    q.enqueueReadBuffer(dst, CL_TRUE, 0, bytes, got.data());
    std::size_t slot = 0;
    while (slot < expected_d.size() && expected_d[slot] != c.d) ++slot;
    if (slot == expected_d.size()) {
      expected_d.push_back(c.d);
      expected.push_back(expected_sums(host, w, h, c.d));
    }
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) bad += got[i] != expected[slot][i];
    std::printf("%4d %3d %4d %4d %5d %5d %4d %3d %5d %5d %6d %9.4f %7.0f%% %s\n", c.tma, c.d, c.C, c.halo,
                c.H, c.tma ? c.ahead : 1, c.tma ? ring_rows : 0, c.pix, c.batch, c.fence, bands * strips, ms,
                100.0 * copy_ms / ms, bad ? ("FAIL " + std::to_string(bad) + " pixels").c_str() : "ok");
  }
  return 0;
}
