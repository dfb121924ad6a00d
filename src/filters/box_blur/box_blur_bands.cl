// SPDX-License-Identifier: Apache-2.0
// ---------------------------------------------------------------------------------------------
// fused_prefix: fused_blocks' vertical pass, with the horizontal window taken from prefix sums in
// FP32 so that a window costs the same whatever d is, mostly on the FP32 lanes (twice INT32's).
// Not from a seed.
// - Each column sum is converted once to float (2^23 exponent trick) and each work-item stores the
//   exclusive prefix Q of its ITEMS columns plus its block total. The window [s, s + d) of band
//   columns is then (blocks s/ITEMS .. e/ITEMS - 1) + Q(e) - Q(s) with e = s + d: two local reads per
//   output, the whole-block part (about d / ITEMS block reads) shared by the work-item's ITEMS outputs
//   and corrected by one block at either end where an output's s or e crosses into the next block.
// - Every intermediate is a multiple of 0.5 below 2^23 for d <= 128 ((d + 3 ITEMS) * d * 255), so the
//   float sums are exact and in any order.
// - Rounding in one FMA: with `half_fix` = n/2 + 0.5 - 0.5 n (0 or 0.5, added once per row through the
//   block sum), fma(s + half_fix, 1/n, 1.5 * 2^23) rounds (s + n/2 + 0.5) / n - 0.5 to the nearest
//   integer, which is (s + n/2) / n: that value is never within 0.5/n of a tie and 1/n's rounding moves
//   it by at most 256 * 2^-24 (d <= 128). Checked exhaustively for every s and d <= 128 (float64
//   emulation of the FMA). round_pack needs an FADD more per channel. Not from a seed.
// - Q has one pad float4 per ITEMS entries: 16-byte reads ITEMS + 1 entries apart are conflict-free.
// - -D WIN_A = (-(d/2)) mod ITEMS and WIN_AM = (WIN_A + d) mod ITEMS (at most 2 ITEMS programs, from d
//   mod 2 ITEMS): with them known the block corrections are two adds per work-item and the prefix
//   reads take immediate offsets, instead of 8 FMAs per output with runtime values.
// Predicted from the SASS (clang PTX; interior rows, i.e. border branches not taken; halo
// work-items and strip warm-up included), ITEMS=8, local_x=64, strip=64: ~57 instructions per pixel
// at d=3, 9 and 11 (~21 INT32, ~27 FP32, ~4.5 LSU), ~65 at d=31, ~74 at d=63; fused_blocks by the same
// count (items=4, local_x=64): ~77, ~82, ~182, ~250. The per-output part is ~21 (2 LDS.128, 9 FADD,
// 4 FFMA, 3 LOP3, addresses); the per-column part ~20 (unpack and slide 8 INT32, to float 4, 8 FADD,
// 1 STS.128). Local memory per work-group: 2 * local_x * (ITEMS + 2) * 16 bytes (20 KiB at 64 x 8).
// Registers (ptxas sm_90): 100 at ITEMS=8, ~57 at ITEMS=4 (fused_blocks: 69 at ITEMS=4).
// -D PREFETCH=P (1, 2, 4): each work-item loads the entering and leaving rows P rows ahead, so P rows of
// loads are in flight instead of one; the row loop is unrolled by P. On the H200, where P=1 reaches
// 31-61% of the copy bandwidth, P=2 gains only 2-7%, so bytes in flight are not the main limit. The ring
// is 2 * ITEMS * P pixels in registers: ptxas (clang PTX, d=9) 59 / 78 / 103 registers at ITEMS=4 and
// P = 1 / 2 / 4, 85 / 146 / 184 at ITEMS=8, no spills.
// Only built for fused_prefix (WIN_A and WIN_AM given) and for fused_packed and fused_wide (WIN_A and
// DIAMETER), so fused_blocks' programs do not change.
#if defined(WIN_A) && (defined(WIN_AM) || defined(DIAMETER))
#ifndef PREFETCH
#define PREFETCH 1
#endif
#define LOG2_ITEMS (ITEMS == 2 ? 1 : ITEMS == 4 ? 2 : 3)
#define QIDX(x) ((x) + ((x) >> LOG2_ITEMS))

// Column sums (R,B | G,A in 16-bit lanes) as exact floats, one LOP3/PRMT-able op per channel.
inline float4 csum_to_float(uint2 v) {
  const uint4 u = (uint4)((v.x & 0xFFFFu) | 0x4B000000u, (v.y & 0xFFFFu) | 0x4B000000u, (v.x >> 16) | 0x4B000000u,
                          (v.y >> 16) | 0x4B000000u);
  return as_float4(u) - 8388608.0f;
}

// Rows of strip g (none for g < 0 or past the image).
inline int strip_length(int g, int strip, int h) {
  return g < 0 ? 0 : clamp(h - g * strip, 0, strip);
}

#ifndef PAIR
#define PAIR 0
#endif
#if PAIR && (RING || !defined(DIAMETER))
#error "PAIR is built for fused_packed and fused_wide without the ring"
#endif

#ifndef DIRECT
#define DIRECT 0
#endif
// -D DELTA=1 (fused_wide; on at items 4; not from a seed): from step 1 on, each output keeps its window sum
// (X, H) and adds the row window of the step's deltas (entering - leaving pixel of each column) instead of taking the
// row window of the column sums. Why: a delta's lanes stay within +-255 d, so its row window is 16-bit lanes in one
// word (one IADD3 adds two terms of two channels) where the column sums' window needs X and H for every term; each
// output then pays an add and a LEA.HI.SX32 per word. At d = 63, items 4, the window and rounding are ~70
// instructions a row step instead of ~130; the H100's tuned d = 63 pair shape takes 0.288 ms against 0.306 without
// it, d = 31 2-3% less; at items 8 the 32 registers of the sums cost more than it saves. Its blocks
// come from the packed block sums (PACKED_BLOCKS), which every items-4 window up to d = 64 has.
#if !defined(WIDE) || !WIDE
#undef DELTA
#define DELTA 0
#elif !defined(DELTA)
#define DELTA (ITEMS == 4)
#endif
// Row y's ITEMS pixels from column cx on (y before the border is applied).
// -D DIRECT=1 (fused_packed and fused_wide's `direct`; not from a seed): where every row a work-item reads
// is inside the image and its columns are aligned (`direct`), one vector load with no border index, constant-row
// fill or aligned test. Why: those take ~15 of the ~190 instructions of fused_wide's row step (d = 31, items 4, two
// loads a step). No gain in long strips, where the leaving rows' DRAM re-reads hold the kernel, and 1-2.5% lost
// there with items 8 at d = 63; 3-5% gained in pair's short strips. So a tunable.
inline void load_row(__global const uint* src, int y, int h, int mode, int cx, int w, uint cval, bool aligned,
                     bool direct, const int* xk, uint* p) {
  if (DIRECT && direct) {
    pix_items u;
    u.v = *(__global const pixvec_t*)(src + y * w + cx);
    for (int k = 0; k < ITEMS; ++k) p[k] = u.a[k];
  } else {
    load_items(src, border_index(y, h, mode), cx, w, cval, aligned, xk, p);
  }
}

// A strip's input rows in the order its window meets them: row k is first + dir * k (rows 0 .. d - 1 are
// output step 0's window); step i >= 1 enters row i + d - 1 and leaves row i - 1: loaded here, without RING.
inline void load_step(__global const uint* src, int first, int dir, int i, int d, int h, int mode, int cx, int w,
                      uint cval, bool aligned, bool direct, const int* xk, uint* p_in, uint* p_out) {
  load_row(src, first + dir * (i + d - 1), h, mode, cx, w, cval, aligned, direct, xk, p_in);
#if !RING
  load_row(src, first + dir * (i - 1), h, mode, cx, w, cval, aligned, direct, xk, p_out);
#endif
}

// -D RING=1 (not from a seed): each work-item keeps the last d rows of its pixels in a local-memory
// ring (its own slots: no barrier) and takes the leaving row from there instead of from global memory. Why:
// a leaving row was read d steps earlier, and by then every resident work-group has read and written
// d more rows; at d >= 9 that is near the H200's 50 MB L2, so leaving rows come back from DRAM.
#if RING
#define RING_ARG , __local pixvec_t* ring
#else
#define RING_ARG
#endif

// -D PITCHED=1 (not from a seed): the caller's buffers as they are, rows in_stride and out_stride words apart
// from word in_off and out_off on (DeviceImage::view), where a packed build would need a copy in and a copy out
// (on PoCL at 1080p, d = 9, those copies cost 10-22% of the call). The host takes this build only where the
// strides and offsets keep every vector access aligned (multiples of 8 words). Without it, the code is the packed
// build's token for token after preprocessing.
#if PITCHED
#define PITCH_ARGS , int in_stride, int out_stride, int in_off, int out_off
#define IN_STRIDE in_stride
#define OUT_STRIDE out_stride
#else
#define PITCH_ARGS
#define IN_STRIDE w
#define OUT_STRIDE w
#endif

#ifdef DIAMETER
#include "box_blur_packed_window.cl"
#else
#define FUSED_KERNEL box_fused_prefix
#define WINDOW_ARGS float inv_n, float half_fix, __local float4 *qbuf, __local float4 *blocks
#endif

__kernel void FUSED_KERNEL(__global const uint* src, __global uint* dst, int w, int h, int d, int mode, uint cval,
                           int strip, int mirror, WINDOW_ARGS RING_ARG PITCH_ARGS) {
#if PITCHED
  src += in_off;
  dst += out_off;
#endif
#ifdef DIAMETER
  d = DIAMETER;                 // the host passes the same; as a constant it folds the start-up's loop and offsets
  const int reach = ITEMS - 2;  // work-item t's outputs read columns up to t * ITEMS + a + d + ITEMS - 2
#else
  const int reach = ITEMS - 1;  // and here blocks up to (t * ITEMS + a + d + ITEMS - 1) / ITEMS
#endif
  const int r = d / 2, ra = (r + ITEMS - 1) / ITEMS * ITEMS, a = ra - r, halo = (a + d + reach) / ITEMS;
  const int lx = get_local_id(0), L = get_local_size(0), tw = (L - halo) * ITEMS;
  const int gx0 = get_group_id(0) * tw, cx = gx0 - ra + lx * ITEMS;
#if PAIR
  // -D PAIR=1 (fused_packed and fused_wide without the ring; not from a seed): a work-group of two
  // row lanes runs the mirrored strips 2j - 1 (lane 0, upwards) and 2j (lane 1, downwards). Their first
  // windows, at the edge they share, have d - 1 rows in common: each lane sums half of those and one row of
  // its own, and the halves are swapped through local memory. Why: the d-row start is what holds fused_wide
  // at long strips; this halves the rows each lane loads before its first output. Strips -1 and past the
  // image have no rows; their lane only passes the barriers.
  // It loses the H200's one-wave fit of 128-row strips, and wins in the H100's short ones: 8k d=31 0.268 ms
  // (67% of the copy bandwidth) against 0.289 without it, 0.256-0.259 with the deeper start below (START_ROWS).
  const int ly = get_local_id(1), g = 2 * (int)get_group_id(1) - 1 + ly;
  const int n_up = strip_length(g - ly, strip, h), n_down = strip_length(g - ly + 1, strip, h);
  const int n = ly ? n_down : n_up, steps = max(n_up, n_down);
  const bool up = ly == 0;
#else
  const int ly = 0, g = get_group_id(1), n = strip_length(g, strip, h), steps = n;
  // mirror: odd strips run upwards, so two neighbouring strips read the rows around their shared edge at the
  // same time (both start there or both end there) and the second read is an L2 hit, not a DRAM read of
  // the d-row start.
  const bool up = mirror && (g & 1);
#endif
  const int y0 = g * strip, y1 = y0 + n;
  const bool aligned = w % ITEMS == 0 && gx0 - ra >= 0 && gx0 - ra + L * ITEMS <= w;
  const int dir = up ? -1 : 1, yfirst = up ? y1 - 1 : y0, first = yfirst - r + (up ? d - 1 : 0);
  // Every row this work-item reads is inside the image (load_row): its strip's rows first + dir * k for
  // k = 0 .. n + d - 2, and with pair the shared start's ye - r - 1 .. ye - r + d - 1 as well. Compared inline, not
  // through named bounds: with row_lo / row_hi locals the driver gives fused_wide's pair kernel at d = 31 114
  // registers with DIRECT instead of 95, and direct=1 is 5% slower than direct=0 there instead of 3.5% faster.
  const int last = first + dir * (n + d - 2);
#if PAIR
  const int ye = min(2 * (int)get_group_id(1) * strip, h);
  const bool direct = aligned && min(min(first, last), ye - r - 1) >= 0 && max(max(first, last), ye - r + d - 1) < h;
#else
  const bool direct = aligned && min(first, last) >= 0 && max(first, last) < h;
#endif

  csum_t col[ITEMS];  // column sums; with DELTA, from step 1 on, the step's deltas
#if DELTA
  uint2 ox[ITEMS], oh[ITEMS];  // each output's window sum (X, H), n/2 included
#endif
  int xk[ITEMS];
  item_columns(cx, w, mode, aligned, xk);
  for (int k = 0; k < ITEMS; ++k) col[k] = 0;
  // Ring of the next PREFETCH rows' entering and leaving pixels: step i (output row yfirst + dir * i) uses slot
  // i % PREFETCH, refilled with step i + PREFETCH's rows as soon as it is used. With the row loop unrolled
  // by PREFETCH the slots are static (registers) and PREFETCH rows of loads are in flight at once. Issued
  // before the start-up so that their latency overlaps it.
  uint p_in[PREFETCH][ITEMS], p_out[PREFETCH][ITEMS];
#pragma unroll
  for (int i = 1; i <= PREFETCH; ++i)
    if (i < n)
      load_step(src, first, dir, i, d, h, mode, cx, IN_STRIDE, cval, aligned, direct, xk, p_in[i % PREFETCH],
                p_out[i % PREFETCH]);
      // The d rows of output step 0's window, START_ROWS loads issued before they are added (64 bytes per
      // work-item in flight; more costs registers at ITEMS=8): with short strips this start-up chain of
      // dependent loads is most of a work-group's time. With pair at ITEMS=4, 8 rows: on the H100 d=31 takes
      // 0.256 ms with them against 0.267 with 4; 16 rows, and deeper starts at ITEMS=8, lose.
#define START_ROWS (ITEMS >= 8 ? 2 : PAIR && ITEMS == 4 ? 8 : 16 / ITEMS)
#if PAIR
  // The edge: strip 2j's first row and one past strip 2j - 1's last. Up's first window is rows ye - 1 - r ..
  // ye - r + d - 2, down's ye - r .. ye - r + d - 1: lane 0 sums shared rows 0 .. hh - 1 (counted from
  // ye - r), lane 1 the rest, and each loads its own row, issued here so that it overlaps the sums.
  const int hh = (d - 1) / 2;
  const int run0 = ye - r + (ly ? hh : 0), count = ly ? d - 1 - hh : hh;
  uint own_row[ITEMS];
  load_row(src, ly ? ye - r + d - 1 : ye - 1 - r, h, mode, cx, IN_STRIDE, cval, aligned, direct, xk, own_row);
#define START_ROW(k) (run0 + (k))
#else
  const int count = d;
#define START_ROW(k) (first + dir * (k))
#endif
#if PAIR && DIRECT
  // With pair and DIRECT (not from a seed): a `direct` start walks one vector pointer down its rows
  // instead of computing each row's address through load_row. Why: 12 instructions a row instead of ~17 (H100
  // SASS, d = 63). On the H200 pair's d = 63 shapes take 0.247-0.254 ms against 0.260-0.270, d = 31's best is
  // unchanged (0.200); without pair, where the start is d rows, it would take direct=1 at d = 63 from 0.253 to
  // 0.324 ms, so only here.
  if (direct) {
    const int step = IN_STRIDE / ITEMS;
    __global const pixvec_t* sp = (__global const pixvec_t*)(src + START_ROW(0) * IN_STRIDE + cx);
    for (int j = 0; j < count; j += START_ROWS) {
      pix_items t[START_ROWS];
#pragma unroll
      for (int q = 0; q < START_ROWS; ++q) t[q].v = j + q < count ? sp[q * step] : (pixvec_t)0;
      sp += START_ROWS * step;
#pragma unroll
      for (int q = 0; q < START_ROWS; ++q)
        for (int k = 0; k < ITEMS; ++k) col[k] += TO_WORD_GA(t[q].a[k]);
    }
  } else
#endif
    for (int j = 0; j < count; j += START_ROWS) {
      uint t[START_ROWS][ITEMS];
#pragma unroll
      for (int q = 0; q < START_ROWS; ++q) {
        if (j + q < count) {
          load_row(src, START_ROW(j + q), h, mode, cx, IN_STRIDE, cval, aligned, direct, xk, t[q]);
        } else {
          for (int k = 0; k < ITEMS; ++k) t[q][k] = 0;
        }
      }
      // The G, A lanes stay below 2^16 (at most d * 255 in all); the word sums wrap, exactly (TO_WORD_GA).
#pragma unroll
      for (int q = 0; q < START_ROWS; ++q) {
        for (int k = 0; k < ITEMS; ++k) col[k] += TO_WORD_GA(t[q][k]);
#if RING
        if (j + q < d) {
          pix_items v;
          for (int k = 0; k < ITEMS; ++k) v.a[k] = t[q][k];
          ring[(j + q) * L + lx] = v.v;  // slot k holds strip row k until step k + 1 takes it out
        }
#endif
      }
    }
  for (int k = 0; k < ITEMS; ++k) col[k] = WORD_GA_TO_CSUM(col[k]);
#if PAIR
  {
    // The swap, through this lane's second buffer: step 0 writes the first, and step 1 the second only
    // after step 0's barrier, when both lanes have read here.
    __local uint4* mine = cbuf + (2 * ly + 1) * L * CPAIRS + lx * CPAIRS;
    __local const uint4* other = cbuf + (3 - 2 * ly) * L * CPAIRS + lx * CPAIRS;
#pragma unroll
    for (int k = 0; k < ITEMS; k += 2) mine[k / 2] = (uint4)(col[k], col[k + 1]);
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int k = 0; k < ITEMS; k += 2) {
      const uint4 v = other[k / 2];
      col[k] += v.xy + TO_CSUM(own_row[k]);
      col[k + 1] += v.zw + TO_CSUM(own_row[k + 1]);
    }
  }
#endif
#if RING
  int slot = 0;  // step i's leaving row (strip row i - 1) is in slot (i - 1) % d; its entering row goes there
#endif
#undef START_ROWS
#undef START_ROW
#ifndef DIAMETER
  const int nb = (a + d) / ITEMS;  // output 0's window: whole blocks t .. t + nb - 1, then e % ITEMS == WIN_AM
  const int sbase = QIDX(lx * ITEMS + a), ebase = QIDX(lx * ITEMS + a + d);
#endif
#if DELTA
  // Whether block lx + 1 sits at an odd 8-byte slot of buffer 0's block array (buffer 1's is L slots on).
  const int block_odd = (lx + 1) & 1;  // with pair, lane ly's blocks start 2 * ly * L slots on: even
#endif
  // The row loop is unrolled to an even number of steps, so that which local buffer a step uses is static. With
  // the step's parity in a register, each step spends ~20 instructions of its ~170 recomputing its local addresses
  // (H200, d = 31 at prefetch 1; Nsight Compute on the driver's code).
#ifndef ROW_UNROLL
#define ROW_UNROLL (PREFETCH % 2 ? 2 * PREFETCH : PREFETCH)
#endif
  // -D ROW_SPLIT=1 (fused_wide at d > 32 by default; not from a seed): the row loop in three parts, each its
  // own code: the first ROW_UNROLL steps, a steady part, then the rest. In the steady part every step is past step 0,
  // live in both pair lanes and loads its row PREFETCH steps ahead, and with DIRECT its group's rows are all `direct`:
  // its code has none of those tests. The parts' bounds are the work-group's, as the barriers need. Why: on the H200 at
  // d = 31 the tests and their reconvergence are ~12 of a row step's ~142 instructions (Nsight Compute). On the H200
  // in the tuned pair shapes at prefetch 1: d = 63 0.236 ms against 0.243 without it; d = 31 0.206 against 0.192, its
  // stalls on loads 26% of the samples instead of 14% while its instructions drop only 2%; d = 11 unchanged. So
  // only in the d <= 64 tuning class.
#ifndef ROW_SPLIT
#if defined(WIDE) && WIDE && DIAMETER > 32
#define ROW_SPLIT 1
#else
#define ROW_SPLIT 0
#endif
#endif
#if PAIR
  const int n_both = min(n_up, n_down);
  // Both lanes' rows, ye - r - n_up .. ye - r + n_down + d - 2, inside the image (read only when both have rows).
  const bool group_direct = aligned && ye - r - n_up >= 0 && ye - r + n_down + d - 2 < h;
#else
  const int n_both = n;
  const bool group_direct = direct;
#endif
  // Steady blocks start at ROW_UNROLL and end where a step's load would pass n_both.
  const int steady_end = ROW_UNROLL * max(1, (n_both - PREFETCH) / ROW_UNROLL);
  const int steady_stop = !DIRECT || group_direct ? steady_end : ROW_UNROLL;
  // The parts are separate code only on NVIDIA: unrolled, PoCL 3.1 gave a few wrong pixels in the last work-group of
  // a row; as one loop over the parts, right ones.
#if NV_PTX_FTZ
#pragma unroll
#else
#pragma unroll 1
#endif
  for (int part = 0; part < (ROW_SPLIT ? 3 : 1); ++part) {
    const bool steady = ROW_SPLIT && part == 1;
    const int ib_lo = !ROW_SPLIT || part == 0 ? 0 : part == 1 ? ROW_UNROLL : steady_stop;
    const int ib_hi = !ROW_SPLIT ? steps : part == 0 ? min(steps, ROW_UNROLL) : part == 1 ? steady_stop : steps;
    for (int ib = ib_lo; ib < ib_hi; ib += ROW_UNROLL) {
#pragma unroll
      for (int u0 = 0; u0 < ROW_UNROLL; ++u0) {
        // A strip whose length is not a multiple of ROW_UNROLL ends with steps past n: they only pass the
        // barrier. (A uniform `break` out of the unrolled loop instead gave wrong, run-to-run different
        // outputs on PoCL 3.1.)
        const int u = u0 % PREFETCH, i = ib + u0, y = yfirst + dir * i;  // i % PREFETCH == u
        const bool live = steady || i < n;
        if (steady || (i > 0 && live)) {
#if RING
          pix_items leaving, entering;
          leaving.v = ring[slot * L + lx];
          for (int k = 0; k < ITEMS; ++k) entering.a[k] = p_in[u][k];
          ring[slot * L + lx] = entering.v;
          slot = slot + 1 == d ? 0 : slot + 1;
          for (int k = 0; k < ITEMS; ++k) p_out[u][k] = leaving.a[k];
#endif
#if DELTA
          for (int k = 0; k < ITEMS; ++k) col[k] = WORD_GA_TO_CSUM(TO_WORD_GA(p_in[u][k]) - TO_WORD_GA(p_out[u][k]));
#else
          for (int k = 0; k < ITEMS; ++k) col[k] = col[k] + TO_CSUM(p_in[u][k]) - TO_CSUM(p_out[u][k]);
#endif
          if (steady || i + PREFETCH < n)
            load_step(src, first, dir, i + PREFETCH, d, h, mode, cx, IN_STRIDE, cval, aligned, steady || direct, xk,
                      p_in[u], p_out[u]);
        }
        // The buffers alternate between rows; u0 & 1 is i & 1 when ROW_UNROLL is even, as it is unless overridden.
        const int buf = ROW_UNROLL % 2 == 0 ? u0 & 1 : i & 1;
#ifdef DIAMETER
        __local uint4* e = cbuf + (PAIR ? 2 * ly + buf : buf) * L * CPAIRS;
#if WIDE
        // Only the columns other work-items read: 0 .. READ_COLS - 1 of each block (at d = 31, items 4: 24 bytes
        // instead of 32).
#pragma unroll
        for (int k = 0; k < READ_COLS; k += 2) {
          if (k + 1 < READ_COLS)
            e[lx * CPAIRS + k / 2] = (uint4)(col[k], col[k + 1]);
          else
            *(__local uint2*)(e + lx * CPAIRS + k / 2) = col[k];
        }
        {
          // The block's sums: X alone in the block array, or (X, H) in the pad entry.
          uint2 x = 0;
#pragma unroll
          for (int k = 0; k < ITEMS; ++k) x += col[k];
#if PACKED_BLOCKS
          BLOCK_SUMS[lx] = x;
#else
          uint2 hs = 0;
#pragma unroll
          for (int k = 0; k < ITEMS; ++k) hs += col[k] >> 16;
          e[lx * CPAIRS + ITEMS / 2] = (uint4)(x, hs);
#endif
        }
#else
#pragma unroll
        for (int k = 0; k < ITEMS; k += 2) e[lx * CPAIRS + k / 2] = (uint4)(col[k], col[k + 1]);
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
        if (live && lx < L - halo) {
          // Columns M0 .. M0 + 2 NPAIRS - 1 of this work-item's band (column m is in work-item lx + m / ITEMS's
          // block), its own from registers.
#if !WIDE
          uint2 c[2 * NPAIRS];
#pragma unroll
          for (int j = 0; j < NPAIRS; ++j) {
            const int m = M0 + 2 * j;
            if (m < ITEMS) {
              c[2 * j] = col[m];
              c[2 * j + 1] = col[m + 1];
            } else {
              const uint4 v = e[(lx + m / ITEMS) * CPAIRS + (m % ITEMS) / 2];
              c[2 * j] = v.xy;
              c[2 * j + 1] = v.zw;
            }
          }
#endif
#if WIDE
          pix_items o;
#if DELTA
          if (steady || i > 0) {
            // The window of this row's deltas in 16-bit lanes (0x8000 rides in the low one so that the high lane is
            // the word's arithmetic shift), added to each output's (X, H).
            const int nb = WIDE_LO / ITEMS - 1;
            uint2 v = (uint2)0x8000u;
#pragma unroll
            for (int m = WIN_A; m < min(ITEMS, WIDE_END); ++m) v += col[m];
            __local const uint2* bs = BLOCK_SUMS;
#if (WIDE_LO / ITEMS - 1) % 2
            {
              // Blocks lx + 1 .. lx + nb, nb odd: one alone, then nb / 2 pairs of them by 16-byte loads (the blocks
              // of two neighbouring work-items are one load for both: a broadcast). The lone one is the first where
              // block lx + 1 is not 16-byte aligned, the last where it is. Why: at d = 63 15 single reads would be 15
              // of a row step's ~20 local loads; with 8 the H100's tuned d = 63 shape takes 0.274 ms against 0.283.
              const int odd = block_odd ^ (buf & L & 1);
              v += bs[odd ? lx + 1 : lx + nb];
              __local const uint4* pairs = (__local const uint4*)(bs + lx + 1 + odd);
#pragma unroll
              for (int j = 0; j < nb / 2; ++j) {
                const uint4 t = pairs[j];
                v += t.xy + t.zw;
              }
            }
#else
#pragma unroll
            for (int j = 1; j <= nb; ++j) v += bs[lx + j];
#endif
#pragma unroll
            for (int m = WIDE_LO; m < WIDE_END; ++m) v += wide_column(e, lx, m, col);
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
              ox[k] += v - 0x8000u;
              oh[k] += as_uint2(as_int2(v) >> 16);
              o.a[k] = wide_round(ox[k], oh[k], magic);
              if (k + 1 < ITEMS)
                v += wide_column(e, lx, WIN_A + k + DIAMETER, col) - wide_column(e, lx, WIN_A + k, col);
            }
          } else
#endif
          {
            // Output 0's window: columns WIN_A .. WIDE_END - 1 of the band from this work-item's first: its own
            // (registers), whole blocks 1 .. nb (published (X, H)), then single columns WIDE_LO .. from local memory.
            const int nb = WIDE_LO / ITEMS - 1;
            uint2 x = (uint2)half_n, hs = (uint2)(half_n >> 16);
#pragma unroll
            for (int m = WIN_A; m < min(ITEMS, WIDE_END); ++m) {
              x += col[m];
              hs += col[m] >> 16;
            }
#if PACKED_BLOCKS
            __local const uint2* bs = BLOCK_SUMS;
#pragma unroll
            for (int j = 1; j <= nb; j += BLOCK_GROUP) {
              uint2 t = bs[lx + j];
#pragma unroll
              for (int q = 1; q < BLOCK_GROUP; ++q)
                if (j + q <= nb) t += bs[lx + j + q];
              x += t;
              hs += t >> 16;
            }
#else
#pragma unroll
            for (int j = 1; j <= nb; ++j) {
              const uint4 b = e[(lx + j) * CPAIRS + ITEMS / 2];
              x += b.xy;
              hs += b.zw;
            }
#endif
#pragma unroll
            for (int m = WIDE_LO; m < WIDE_END; ++m) {
              const uint2 v = wide_column(e, lx, m, col);
              x += v;
              hs += v >> 16;
            }
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
              o.a[k] = wide_round(x, hs, magic);
#if DELTA
              ox[k] = x;
              oh[k] = hs;
#endif
              if (k + 1 < ITEMS) {
                const uint2 in = wide_column(e, lx, WIN_A + k + DIAMETER, col);
                const uint2 out = wide_column(e, lx, WIN_A + k, col);
                x = x + in - out;
                hs = hs + (in >> 16) - (out >> 16);
              }
            }
          }
#else
          uint2 s = (uint2)half_n;
#pragma unroll
          for (int j = 0; j < DIAMETER; ++j) s += c[WIN_A - M0 + j];
          pix_items o;
#pragma unroll
          for (int k = 0; k < ITEMS; ++k) {
            o.a[k] = packed_round(s, magic);
            // One IADD3 per word: the 32-bit result is exact and every lane of it is in range.
            if (k + 1 < ITEMS) s = s + c[WIN_A - M0 + k + DIAMETER] - c[WIN_A - M0 + k];
          }
#endif
#else
        __local float4* q = qbuf + buf * L * (ITEMS + 1);
        __local float4* b = blocks + buf * L;
        float4 run = 0.0f;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
          q[lx * (ITEMS + 1) + k] = run;
          run += csum_to_float(col[k]);
        }
        b[lx] = run;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (live && lx < L - halo) {
          float4 m = (float4)half_fix;
          for (int t = 0; t < nb; ++t) m += b[lx + t];
          const float4 next = b[lx + nb];
          // Output k's s (e) lies in the next block from k = ITEMS - WIN_A (ITEMS - WIN_AM) on: the block
          // range gains `next` and loses `run` there, and the prefix read skips the pad entry.
          float4 mk = m;
          pix_items o;
#pragma unroll
          for (int k = 0; k < ITEMS; ++k) {
            if (k == ITEMS - WIN_AM) mk += next;
            if (k == ITEMS - WIN_A) mk -= run;
            const float4 s = mk + q[ebase + k + (k >= ITEMS - WIN_AM)] - q[sbase + k + (k >= ITEMS - WIN_A)];
            const uint4 v = as_uint4(fma(s, (float4)inv_n, (float4)12582912.0f));
            o.a[k] = (v.x & 0xFFu) | ((v.y & 0xFFu) << 8) | ((v.z & 0xFFu) << 16) | (v.w << 24);
          }
#endif
          const int x = gx0 + lx * ITEMS;
          // A steady part with DIRECT has `aligned`: every output work-item's ITEMS columns are inside the image.
          if ((DIRECT && steady) || (w % ITEMS == 0 && x + ITEMS <= w)) {
#if defined(DIAMETER) && NV_PTX_FTZ && ITEMS % 4 == 0
            // fused_packed and fused_wide on NVIDIA: outputs stored evict-first (st.global.cs), as nothing here reads
            // them again; the L2 they leave keeps the input rows that neighbouring strips' starts and leaving loads
            // read. H100, 8k d=31 in pair's short strips: 0.246-0.249 ms against 0.251-0.254 with plain stores; no
            // change in long strips; fused_packed about 1% faster at d = 11 on both devices.
            for (int k = 0; k < ITEMS / 4; ++k) {
              __global uint4* q = (__global uint4*)(dst + y * OUT_STRIDE + x) + k;
              asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(q), "r"(o.a[4 * k]), "r"(o.a[4 * k + 1]),
                           "r"(o.a[4 * k + 2]), "r"(o.a[4 * k + 3])
                           : "memory");
            }
#else
            *(__global pixvec_t*)(dst + y * OUT_STRIDE + x) = o.v;
#endif
          } else {
            for (int k = 0; k < ITEMS; ++k)
              if (x + k < w) dst[y * OUT_STRIDE + x + k] = o.a[k];
          }
        }
      }
    }
  }
}
#undef FUSED_KERNEL
#undef WINDOW_ARGS
#undef RING_ARG
#undef PITCH_ARGS
#undef IN_STRIDE
#undef OUT_STRIDE
#endif  // WIN_A
