// What the box blur's strip loop gets from DRAM, without the box blur (issue 8, box blur step 22).
// fused_wide's loop with its filter taken out (step 17's "bare loop": the entering row loaded one row
// ahead, a running sum, a local-memory store, a barrier and the output store) moved 8 B per pixel at
// 70-73% of the copy bandwidth in 128-row strips that fill one wave, but at 86-89% in 16-row strips
// (several waves). This copies an 8192x8192 RGBA image through the same loop shape and varies one thing
// at a time: the strip pattern (height, barrier, mirrored strips, row and strip order, work-group width,
// work-groups per SM), arithmetic per row, rows of loads in flight, and re-reading each row a number of
// rows after its first read (fused_wide's leaving rows) from global memory or from a local-memory ring.
// Standalone (OpenCL only), so that it measures the memory system, not clfilters:
//   built as build/release/bench/strip_pattern (or: g++ -std=c++20 -O2 bench/strip_pattern.cpp -lOpenCL -o
//   strip_pattern); strip_pattern [platform [set]]
// with set one of pattern, work, ring, l2 (the default), l1 and l2bw, each a question below.
#define CL_HPP_ENABLE_EXCEPTIONS
#include <algorithm>
#include <bit>
#include <cstdio>
#include <string>
#include <vector>

#include "probe_common.hpp"

namespace {

// order 0: strip s owns rows s*H .. s*H+H-1 (mirror: odd strips walk upwards, as fused_wide's mirror=1).
// order 1: the same rows, but each strip starts its walk at a different row and wraps round, so that
//          the strips of one wave are not at the same row offset at the same time.
// order 2: strip s owns rows s, s + S, s + 2S, ... (S strips): the rows a wave touches at once are
//          neighbours in memory instead of H rows apart.
// swap: group dimension 0 walks strips and 1 bands, which changes the launch order over several waves.
const char* kSource = R"(
__kernel void strip_copy(__global const uint4* restrict src, __global uint4* restrict dst, int w4, int h,
                         int H, int mirror, int order, int use_barrier, int swap, int work, int leave,
                         int use_ring, int store_mode, __local uint4* scratch,
                         __local uint4* ringbuf) {
  const int t = get_local_id(0), lx = get_local_size(0);
  const int band = swap ? get_group_id(1) : get_group_id(0);
  const int s = swap ? get_group_id(0) : get_group_id(1);
  const int S = swap ? get_num_groups(0) : get_num_groups(1);
  const int x = band * lx + t;
  const int y0 = order == 2 ? s : s * H;
  const int rows = order == 2 ? (h - s + S - 1) / S : min(H, h - y0);
  const int step = order == 2 ? S : 1;
  const int dir = (mirror && (s & 1)) ? -1 : 1;
  const int first = dir > 0 ? y0 : y0 + (rows - 1) * step;
  const int phase = order == 1 ? (s * 37) % rows : 0;
#define ROW(k) (first + dir * step * ((k) + phase - ((k) + phase >= rows ? rows : 0)))  // k + phase < 2 rows
  // PREFETCH rows of loads in flight: step k uses slot k % PREFETCH and refills it with row k + PREFETCH
  // (the loop is unrolled by PREFETCH, so the slots are registers).
  // The box blur's leaving row, `leave` steps back, is loaded with the entering row, PREFETCH rows ahead
  // (an L2 hit if it is still there).
  uint4 acc = (uint4)(0), ring[PREFETCH], ring_out[PREFETCH];
// use_ring: the leaving row comes instead from a local-memory ring of the last `leave` rows (each
// work-item its own slots, as box_blur.cl's RING), so only entering rows are read from global memory.
#define LEAVING(k) \
  (leave > 0 && !use_ring && (k) >= leave && (k) < rows ? src[ROW((k) - leave) * w4 + x] : (uint4)(0))
#pragma unroll
  for (int u = 0; u < PREFETCH; ++u) {
    ring[u] = u < rows ? src[ROW(u) * w4 + x] : (uint4)(0);
    ring_out[u] = LEAVING(u);
  }
  int ring_row = 0;  // the ring slot of step k: k % leave
  // Steps past the strip's end (rows not a multiple of PREFETCH) only pass the barrier: a `break` here
  // keeps the loop from unrolling, and the slots then live in (slow) private memory.
  for (int kb = 0; kb < rows; kb += PREFETCH)
#pragma unroll
  for (int u = 0; u < PREFETCH; ++u) {
    const int k = kb + u;
    const bool live = k < rows;
    const uint4 cur = ring[u], gone = ring_out[u];
    if (k + PREFETCH < rows) {
      ring[u] = src[ROW(k + PREFETCH) * w4 + x];
      ring_out[u] = LEAVING(k + PREFETCH);
    }
    if (use_ring && leave > 0 && live) {
      const int slot = ring_row * lx + t;
      acc -= k >= leave ? ringbuf[slot] : (uint4)(0);
      ringbuf[slot] = cur;
      ring_row = ring_row + 1 == leave ? 0 : ring_row + 1;
    }
    acc += cur - gone;
    // `work` dependent integer steps per row stand in for the filter's arithmetic.
    for (int j = 0; j < work; ++j) acc = acc * 3u + (acc >> 7);
    uint4 out = acc;
    if (use_barrier) {
      scratch[(k & 1) * lx + t] = acc;
      barrier(CLK_LOCAL_MEM_FENCE);
      out = scratch[(k & 1) * lx + (t + 1) % lx];
    }
    // store_mode 0: plain store; 1: evict-first (st.global.cs), so outputs leave L2 first; 2: no store
    // (only a never-true test keeps the work alive), so nothing written competes for L2.
    if (live) {
      __global uint4* p = dst + ROW(k) * w4 + x;
      if (store_mode == 0) {
        *p = out;
      } else if (store_mode == 1) {
#if NV_PTX
        asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(out.x), "r"(out.y), "r"(out.z),
                     "r"(out.w)
                     : "memory");
#else
        *p = out;
#endif
      } else if (out.x == 0x9E3779B9u && out.y == 0x7F4A7C15u) {
        *p = out;
      }
    }
  }
}
// Set l2bw: every work-item reads `reps` uint4 spread over the first `span` uint4 of src (a span that fits L2
// is read from L2 after the first pass) and stores one sum, so the time is the reads' alone.
__kernel void span_read(__global const uint4* restrict src, __global uint4* restrict dst, int span, int reps) {
  const int n = get_global_size(0), g = get_global_id(0);
  uint4 acc = (uint4)(0);
  int i = g % span;
  for (int k = 0; k < reps; ++k) {
    acc += src[i];
    for (i += n; i >= span;) i -= span;  // no 64-bit modulo in the loop
  }
  if (acc.x == 0x9E3779B9u && acc.y == 0x7F4A7C15u) dst[g] = acc;
}
__kernel void linear_copy(__global const uint4* restrict src, __global uint4* restrict dst) {
  dst[get_global_id(0)] = src[get_global_id(0)];
}
)";

}  // namespace

int main(int argc, char** argv) {
  struct Case {
    int H, lx, mirror, order, barrier, swap, groups_per_cu, work, prefetch = 1, leave = 0, ring = 0,
                                                                  store = 0;  // groups_per_cu 0: no padding
  };
  // Case sets, one per question (bench/results/2026-11-24-nvidia-strip-pattern.md has each table).
  std::vector<Case> cases;
  const std::string set = argc > 2 ? argv[2] : "l2";
  if (set == "pattern") {
    // Does the strip pattern itself cost bandwidth? Strip height, the barrier, mirrored strips, the order
    // of rows and strips, the work-group width and work-groups per SM, one at a time.
    for (int barrier : {0, 1})
      for (int H : {8, 16, 32, 64, 128, 256})
        for (int occ : {0, 18}) cases.push_back({H, 64, 1, 0, barrier, 0, occ, 0});
    for (int barrier : {0, 1}) {
      for (const auto& [mirror, order] : {std::pair{0, 0}, {1, 1}, {0, 1}, {0, 2}})
        cases.push_back({128, 64, mirror, order, barrier, 0, 18, 0});
      cases.push_back({16, 64, 1, 0, barrier, 1, 18, 0});
      cases.push_back({128, 128, 1, 0, barrier, 0, 9, 0});
      cases.push_back({256, 128, 1, 0, barrier, 0, 9, 0});
      cases.push_back({120, 64, 1, 0, barrier, 0, 18, 0});
      cases.push_back({136, 64, 1, 0, barrier, 0, 18, 0});
    }
  } else if (set == "work") {
    // Does arithmetic per row (`work` dependent integer steps) overlap the memory time, in one wave of
    // long strips and in several waves of short ones?
    for (int work : {0, 8, 16, 24, 32, 48})
      for (int H : {16, 32, 64, 128}) cases.push_back({H, 64, 1, 0, 1, 0, 18, work});
  } else if (set == "ring") {
    // A 31-row history from global memory (ring 0) at full occupancy, against a local-memory ring
    // (ring 1), whose 31 x 64 x 16 B per work-group leave room for about 5 work-groups per SM, so longer
    // strips (one wave: at most ~660 work-groups) and deeper prefetch. And a plain copy at 5 and 9
    // work-groups per SM with more rows in flight.
    for (int work : {0, 16}) {
      for (int prefetch : {1, 2, 4}) cases.push_back({128, 64, 1, 0, 1, 0, 18, work, prefetch, 0, 0});
      for (int prefetch : {1, 2, 4}) cases.push_back({128, 64, 1, 0, 1, 0, 18, work, prefetch, 31, 0});
      for (int H : {256, 512})
        for (int prefetch : {2, 4, 8}) cases.push_back({H, 64, 1, 0, 1, 0, 0, work, prefetch, 31, 1});
    }
    for (int prefetch : {2, 4, 8}) cases.push_back({512, 64, 1, 0, 1, 0, 5, 0, prefetch, 0, 0});
    for (int prefetch : {2, 4, 8}) cases.push_back({256, 64, 1, 0, 1, 0, 9, 0, prefetch, 0, 0});
  } else if (set == "l2") {
    // Are re-read rows L2 hits? A history of `leave` rows is 64 strips x leave x 32 KiB (plus as many
    // bytes of outputs written meanwhile); stores evict-first (store 1) or left out (store 2).
    for (int store : {0, 1, 2})
      for (int leave : {0, 1, 2, 4, 8, 31}) cases.push_back({128, 64, 1, 0, 1, 0, 18, 0, 2, leave, 0, store});
  } else if (set == "l1") {
    // Can the SM's L1 hold the history instead (box blur step 24)? Set l2 padded every work-group's local
    // memory to hold 18 per SM, which also left the driver's shared-memory carveout near its 228 KiB, so
    // L1 had ~28 KiB. Here no padding (groups/CU 0: ~2 KiB of local memory each, so L1 keeps nearly all of
    // the SM's 256 KiB), and long strips so that few work-groups run per SM: 512-row strips make 512
    // work-groups (~4 per SM, ~1000 columns: a 31-row history is ~124 KiB), 1024 rows half that. Padding 5
    // (45 KiB each) runs as many work-groups with L1 cut back to ~28 KiB, so the two differ only in L1.
    for (int pad : {0, 5})
      for (int H : {128, 512, 1024})
        for (int prefetch : {4, 8})
          for (int leave : {0, 31, 63}) cases.push_back({H, 64, 1, 0, 1, 0, pad, 0, prefetch, leave, 0, 0});
  } else if (set != "l2bw") {
    std::fprintf(stderr, "strip_pattern: unknown case set '%s' (pattern, work, ring, l2, l1, l2bw)\n",
                 set.c_str());
    return 1;
  }
  const std::string want = argc > 1 ? argv[1] : "NVIDIA";
  const cl::Device device = probe_device("strip_pattern", want);
  const int cus = int(device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
  const std::size_t local_per_cu = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  std::printf("device: %s (%d compute units, %zu B local memory per work-group)\n",
              device.getInfo<CL_DEVICE_NAME>().c_str(), cus, local_per_cu);
  cl::Context ctx(device);
  // One program per prefetch depth.
  const bool nvidia = device.getInfo<CL_DEVICE_VENDOR>().find("NVIDIA") != std::string::npos;
  std::vector<cl::Program> programs;
  for (int prefetch : {1, 2, 4, 8}) {
    programs.emplace_back(ctx, kSource);
    try {
      programs.back().build(
          ("-cl-std=CL1.2 -D PREFETCH=" + std::to_string(prefetch) + (nvidia ? " -D NV_PTX=1" : "")).c_str());
    } catch (...) {
      std::fprintf(stderr, "%s\n", programs.back().getBuildInfo<CL_PROGRAM_BUILD_LOG>(device).c_str());
      return 1;
    }
  }
  cl::Program& program = programs[0];
  cl::CommandQueue q(ctx, device, CL_QUEUE_PROFILING_ENABLE);
  const int w = 8192, h = 8192, w4 = w / 4;
  const std::size_t bytes = std::size_t(w) * h * 4;
  cl::Buffer src(ctx, CL_MEM_READ_WRITE, bytes), dst(ctx, CL_MEM_READ_WRITE, bytes);
  std::vector<unsigned> host(std::size_t(w) * h);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = unsigned(i * 2654435761u);
  q.enqueueWriteBuffer(src, CL_TRUE, 0, bytes, host.data());

  const double copy_ms = probe_copy_ms(q, src, dst, bytes);
  std::printf("clEnqueueCopyBuffer: %.4f ms = %.0f GB/s\n", copy_ms, 2.0 * bytes / copy_ms * 1e-6);
  cl::Kernel linear(program, "linear_copy");
  linear.setArg(0, src);
  linear.setArg(1, dst);
  const double linear_ms = probe_time_ms([&] {
    cl::Event e;
    q.enqueueNDRangeKernel(linear, cl::NullRange, cl::NDRange(std::size_t(w4) * h), cl::NDRange(256), nullptr,
                           &e);
    return e;
  });
  std::printf("linear uint4 copy: %.4f ms (%.0f%%)\n", linear_ms, 100.0 * copy_ms / linear_ms);

  if (set == "l2bw") {
    // How fast the SMs read from L2 (box blur step 57): the pair strips read ~3 rows from L2 per output row.
    cl::Kernel span_read(program, "span_read");
    const std::size_t items = std::size_t(cus) * 2048;  // every SM full
    const int reps = 64;
    span_read.setArg(0, src);
    span_read.setArg(1, dst);
    span_read.setArg(3, reps);
    for (int span_mib : {4, 8, 16, 24, 32, 48, 64, 256}) {
      span_read.setArg(2, span_mib * (1 << 20) / 16);  // in uint4
      const double ms = probe_time_ms([&] {
        cl::Event e;
        q.enqueueNDRangeKernel(span_read, cl::NullRange, cl::NDRange(items), cl::NDRange(256), nullptr, &e);
        return e;
      });
      const double gb = double(items) * reps * 16 * 1e-9;
      std::printf("span %3d MiB: %.4f ms, %.0f GB/s read (%.2fx the copy's bytes per second)\n", span_mib, ms,
                  gb / ms * 1e3, gb / ms * 1e3 / (2.0 * bytes / copy_ms * 1e-6));
    }
    return 0;
  }
  std::printf("\n%5s %4s %6s %5s %7s %4s %9s %8s %9s %7s\n", "strip", "lx", "mirror", "order", "barrier",
              "swap", "groups/CU", "groups", "ms", "of copy");
  std::printf("(work: integer steps per row)\n");
  for (const Case& c : cases) {
    const int bands = w4 / c.lx, strips = (h + c.H - 1) / c.H;
    // Local memory that lets only groups_per_cu work-groups share a compute unit (228 KiB per SM on
    // Hopper, of which the driver reserves 1 KiB per block), at least the 2 x lx uint4 the barrier uses.
    std::size_t local = std::size_t(2) * c.lx * 16;
    if (c.groups_per_cu > 0) local = std::max(local, std::size_t(228 * 1024 / c.groups_per_cu - 1024 - 512));
    local = std::min(local, local_per_cu);
    cl::Kernel strip(programs[std::countr_zero(unsigned(c.prefetch))], "strip_copy");
    strip.setArg(0, src);
    strip.setArg(1, dst);
    strip.setArg(2, w4);
    strip.setArg(3, h);
    strip.setArg(4, c.H);
    strip.setArg(5, c.mirror);
    strip.setArg(6, c.order);
    strip.setArg(7, c.barrier);
    strip.setArg(8, c.swap);
    strip.setArg(9, c.work);
    strip.setArg(10, c.leave);
    strip.setArg(11, c.ring);
    strip.setArg(12, c.store);
    strip.setArg(13, cl::Local(local));
    strip.setArg(14, cl::Local(c.ring ? std::size_t(c.leave) * c.lx * 16 : 16));
    const cl::NDRange global = c.swap ? cl::NDRange(std::size_t(strips) * c.lx, bands)
                                      : cl::NDRange(std::size_t(bands) * c.lx, strips);
    double ms = 0;
    try {
      ms = probe_time_ms([&] {
        cl::Event e;
        q.enqueueNDRangeKernel(strip, cl::NullRange, global, cl::NDRange(c.lx, 1), nullptr, &e);
        return e;
      });
    } catch (const cl::Error& e) {
      std::printf("%5d %4d: %s (%d)\n", c.H, c.lx, e.what(), e.err());
      continue;
    }
    std::printf(
        "%5d %4d %6d %5d %7d %4d %9d %8d %9.4f %6.0f%%  work %d prefetch %d leave %d ring %d store %d\n", c.H,
        c.lx, c.mirror, c.order, c.barrier, c.swap, c.groups_per_cu, bands * strips, ms, 100.0 * copy_ms / ms,
        c.work, c.prefetch, c.leave, c.ring, c.store);
  }
  return 0;
}
