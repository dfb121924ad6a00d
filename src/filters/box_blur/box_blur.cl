// SPDX-License-Identifier: Apache-2.0
// Box blur (docs/SPEC.md "Box blur"): the rounded mean of the d x d window whose columns are
// x - d/2 .. x + (d+1)/2 - 1 (OpenCV's anchor), on every channel, exact in integers.
//
// Build options:
//   -D CHANNELS=1|4        grey (uchar per pixel) or RGBA (one packed uint per pixel)
//   -D HSUM_WIDE=1         separable intermediates in 32 bits (needed when d > 257)
//   -D USE_INTEL_SUBGROUPS  block4x4 uses cl_intel_subgroups block reads/writes (seed 004)
//   -D CPU_BANDS=1         adds cpu_bands' kernel (box_blur_cpu_bands.cl)
//   -D SAMPLE_BITS=16      16-bit samples (ushort grey, ushort4 RGBA): naive, block4x4, two_pass, separable_sliding,
//                          local_tile, fused_sliding and cpu_bands; the host keeps d <= 255 (65535 d^2 + d^2/2 < 2^32)
// Per-call values (size, diameter, border) are kernel arguments so one build serves every call.
// Sums stay below 2^32 for d <= 4095 (d*d*255 + d*d/2), which the host enforces.

#ifndef CHANNELS
#define CHANNELS 4
#endif

#if SAMPLE_BITS == 16
// 16-bit samples: one 32-bit sum per channel everywhere, the intermediates included (65535 d > 2^16 for d > 1;
// a 2x2 sum reaches 4 * 65535).
#if CHANNELS == 4
typedef ushort4 pix_t;  // R, G, B, A
typedef uint4 acc_t;
typedef int4 iacc_t;
#define UNPACK(p) convert_uint4(p)
#define PACK(v) convert_ushort4(v)
#define ACC_TO_FLOAT(v) convert_float4(v)
#define FLOAT_TO_ACC(v) convert_uint4(v)
#define AS_IACC(v) as_int4(v)
#else
typedef ushort pix_t;
typedef uint acc_t;
typedef int iacc_t;
#define UNPACK(p) ((uint)(p))
#define PACK(v) ((ushort)(v))
#define ACC_TO_FLOAT(v) convert_float(v)
#define FLOAT_TO_ACC(v) convert_uint(v)
#define AS_IACC(v) as_int(v)
#endif
typedef acc_t hsum_t;
#define TO_HSUM(v) (v)
#define FROM_HSUM(v) (v)
typedef acc_t pair_t;
#define TO_PAIR(v) (v)
#define FROM_PAIR(v) (v)

// (s + n/2) / n for s + n/2 < 2^32, without a divide: an FP32 estimate (within 1 of the quotient: its relative
// error is below 2^-21 and the quotient below 2^16), then corrected by the remainder, exact in 32-bit integers
// (q n <= 65536 * 65025 < 2^32). Any inv_n close to 1/n will do.
inline acc_t round_div16(acc_t s, uint n, float inv_n) {
  const acc_t m = s + (acc_t)(n >> 1);
  acc_t q = FLOAT_TO_ACC(ACC_TO_FLOAT(m) * inv_n);
  const iacc_t rem = AS_IACC(m - q * n);
  q = select(q, q - 1, rem < 0);
  return select(q, q + 1, rem >= (iacc_t)n);
}
#else
#if CHANNELS == 4
typedef uint pix_t;  // packed RGBA8, R in the low byte (little-endian byte order R, G, B, A)
typedef uint4 acc_t;
#if HSUM_WIDE
typedef uint4 hsum_t;
#define TO_HSUM(v) (v)
#define FROM_HSUM(v) (v)
#else
typedef ushort4 hsum_t;
#define TO_HSUM(v) convert_ushort4(v)
#define FROM_HSUM(v) convert_uint4(v)
#endif
#define UNPACK(p) ((uint4)((p)&0xFFu, ((p) >> 8) & 0xFFu, ((p) >> 16) & 0xFFu, (p) >> 24))
#define PACK(v) ((v).x | ((v).y << 8) | ((v).z << 16) | ((v).w << 24))
typedef ushort4 pair_t;  // two_pass intermediate: a 2x2 sum is at most 1020
#define TO_PAIR(v) convert_ushort4(v)
#define FROM_PAIR(v) convert_uint4(v)
#else
typedef uchar pix_t;
typedef uint acc_t;
#if HSUM_WIDE
typedef uint hsum_t;
#define TO_HSUM(v) (v)
#define FROM_HSUM(v) (v)
#else
typedef ushort hsum_t;
#define TO_HSUM(v) convert_ushort(v)
#define FROM_HSUM(v) convert_uint(v)
#endif
#define UNPACK(p) ((uint)(p))
#define PACK(v) ((uchar)(v))
typedef ushort pair_t;
#define TO_PAIR(v) convert_ushort(v)
#define FROM_PAIR(v) convert_uint(v)
#endif
#endif

// SPEC "Rounding to the sample": (s + n/2) / n, ties up.
inline acc_t round_div(acc_t s, uint n) {
  return (s + (acc_t)(n >> 1)) / (acc_t)n;
}

// Pixel (x, y) with the border applied to both coordinates.
inline acc_t fetch(__global const pix_t* src, int x, int y, int w, int h, int mode, pix_t cval) {
  const int xx = border_index(x, w, mode), yy = border_index(y, h, mode);
  return UNPACK((xx < 0 || yy < 0) ? cval : src[yy * w + xx]);
}

// Sum of `len` pixels of one row starting at column x0; `row` is the row (yy >= 0) or NULL for a
// constant row. Inside the image it uses 4-pixel vector loads; at the edges, border lookups.
inline acc_t row_segment_sum(__global const pix_t* row, int x0, int len, int w, int mode, pix_t cval) {
  acc_t s = 0;
  if (!row) return UNPACK(cval) * (uint)len;
  if (x0 >= 0 && x0 + len <= w) {
    int i = 0;
    for (; i + 4 <= len; i += 4) {
#if SAMPLE_BITS == 16
      s += UNPACK(row[x0 + i]) + UNPACK(row[x0 + i + 1]) + UNPACK(row[x0 + i + 2]) + UNPACK(row[x0 + i + 3]);
#else
#if CHANNELS == 4
      const uint4 v = vload4(0, row + x0 + i);
      s += UNPACK(v.x) + UNPACK(v.y) + UNPACK(v.z) + UNPACK(v.w);
#else
      const uint4 v = convert_uint4(vload4(0, row + x0 + i));
      s += v.x + v.y + v.z + v.w;
#endif
#endif
    }
    for (; i < len; ++i) s += UNPACK(row[x0 + i]);
    return s;
  }
  for (int i = 0; i < len; ++i) {
    const int xx = border_index(x0 + i, w, mode);
    s += UNPACK(xx < 0 ? cval : row[xx]);
  }
  return s;
}

// Pixel at column x of a row given as in row_segment_sum.
inline acc_t row_fetch(__global const pix_t* row, int x, int w, int mode, pix_t cval) {
  if (!row) return UNPACK(cval);
  const int xx = border_index(x, w, mode);
  return UNPACK(xx < 0 ? cval : row[xx]);
}

inline __global const pix_t* border_row(__global const pix_t* src, int y, int w, int h, int mode) {
  const int yy = border_index(y, h, mode);
  return yy < 0 ? 0 : src + yy * w;
}

// ---------------------------------------------------------------------------------------------
// naive: one output pixel per work-item, d*d loads of packed pixels (seed 004, baseline kernel).
__kernel void box_naive(__global const pix_t* src, __global pix_t* dst, int w, int h, int d, int mode, uint cval_bits) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const pix_t cval = (pix_t)cval_bits;
  const int r = d / 2;
  acc_t s = 0;
  for (int j = 0; j < d; ++j) {
    __global const pix_t* row = border_row(src, y - r + j, w, h, mode);
    for (int i = 0; i < d; ++i) s += row_fetch(row, x - r + i, w, mode, cval);
  }
  dst[y * w + x] = PACK(round_div(s, (uint)(d * d)));
}

// ---------------------------------------------------------------------------------------------
// block4x4: 16 output pixels per work-item in a 4x4 block (seed 004, "16 pixels per work item").
// Each of the d+3 input rows the block needs is read once: its 4 horizontal window sums come from
// one vector-loaded run of d pixels plus 3 pixels on each side (hs[j+1] = hs[j] + p[d+j] - p[j]),
// and each row's sums are added to the up-to-4 output rows whose window contains it.
inline void store_block_row(__global pix_t* dst, int x0, int y, int w, acc_t a, acc_t b, acc_t c, acc_t e, uint n) {
  const pix_t p0 = PACK(round_div(a, n)), p1 = PACK(round_div(b, n)), p2 = PACK(round_div(c, n)),
              p3 = PACK(round_div(e, n));
  __global pix_t* out = dst + y * w + x0;
  if (x0 + 4 <= w) {
#if SAMPLE_BITS == 16
    out[0] = p0, out[1] = p1, out[2] = p2, out[3] = p3;
#else
#if CHANNELS == 4
    vstore4((uint4)(p0, p1, p2, p3), 0, out);
#else
    vstore4((uchar4)(p0, p1, p2, p3), 0, out);
#endif
#endif
    return;
  }
  out[0] = p0;
  if (x0 + 1 < w) out[1] = p1;
  if (x0 + 2 < w) out[2] = p2;
}

__kernel void box_block4x4(__global const pix_t* src, __global pix_t* dst, int w, int h, int d, int mode,
                           uint cval_bits) {
  const int x0 = get_global_id(0) * 4, y0 = get_global_id(1) * 4;
  if (x0 >= w || y0 >= h) return;
  const pix_t cval = (pix_t)cval_bits;
  const int r = d / 2;
  acc_t o00 = 0, o01 = 0, o02 = 0, o03 = 0, o10 = 0, o11 = 0, o12 = 0, o13 = 0;
  acc_t o20 = 0, o21 = 0, o22 = 0, o23 = 0, o30 = 0, o31 = 0, o32 = 0, o33 = 0;
  for (int t = 0; t < d + 3; ++t) {
    __global const pix_t* row = border_row(src, y0 - r + t, w, h, mode);
    const int xs = x0 - r;
    const acc_t h0 = row_segment_sum(row, xs, d, w, mode, cval);
    const acc_t h1 = h0 + row_fetch(row, xs + d, w, mode, cval) - row_fetch(row, xs, w, mode, cval);
    const acc_t h2 = h1 + row_fetch(row, xs + d + 1, w, mode, cval) - row_fetch(row, xs + 1, w, mode, cval);
    const acc_t h3 = h2 + row_fetch(row, xs + d + 2, w, mode, cval) - row_fetch(row, xs + 2, w, mode, cval);
    // Input row t lies in the window of output row k when k <= t < k + d.
    if (t < d) {
      o00 += h0;
      o01 += h1;
      o02 += h2;
      o03 += h3;
    }
    if (t >= 1 && t < d + 1) {
      o10 += h0;
      o11 += h1;
      o12 += h2;
      o13 += h3;
    }
    if (t >= 2 && t < d + 2) {
      o20 += h0;
      o21 += h1;
      o22 += h2;
      o23 += h3;
    }
    if (t >= 3) {
      o30 += h0;
      o31 += h1;
      o32 += h2;
      o33 += h3;
    }
  }
  const uint n = (uint)(d * d);
  store_block_row(dst, x0, y0, w, o00, o01, o02, o03, n);
  if (y0 + 1 < h) store_block_row(dst, x0, y0 + 1, w, o10, o11, o12, o13, n);
  if (y0 + 2 < h) store_block_row(dst, x0, y0 + 2, w, o20, o21, o22, o23, n);
  if (y0 + 3 < h) store_block_row(dst, x0, y0 + 3, w, o30, o31, o32, o33, n);
}

#if defined(USE_INTEL_SUBGROUPS) && CHANNELS == 4
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
// block4x4 with cl_intel_subgroups (seed 004): work-groups of 64 x 1, each covering 256 columns x 4 rows.
// intel_sub_group_block_read4(p) gives lane l the pixels p[l], p[l+S], p[l+2S], p[l+3S], so a
// sub-group of S lanes owns 4S consecutive columns and each lane 4 columns S apart. One block read per
// (row, tap) fetches a tap for all 4 of a lane's columns; as in the seed, taps are not shared between
// columns, but each input row is read once for the 4 output rows it feeds.
// Sub-groups whose window reaches past the image (or widths not a multiple of 4, which would break
// the 16-byte alignment block writes need) take the border-aware path with ordinary loads.
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void box_block4x4_subgroups(__global const uint* src,
                                                                                     __global uint* dst, int w, int h,
                                                                                     int d, int mode, uint cval) {
  const int S = (int)get_sub_group_size();
  const int lane = (int)get_sub_group_local_id();
  const int base = (int)get_group_id(0) * 256 + ((int)get_local_id(0) - lane) * 4;
  const int y0 = (int)get_global_id(1) * 4;
  const int r = d / 2;
  const uint n = (uint)(d * d);
  if (base >= w || y0 >= h) return;  // uniform across the sub-group
  const bool interior =
      (w % 4 == 0) && base - r >= 0 && base + 4 * S - r + d - 1 <= w && y0 - r >= 0 && y0 + 3 - r + d - 1 < h;
  if (interior) {
    uint4 o[4][4];
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 4; ++j) o[k][j] = 0;
    for (int t = 0; t < d + 3; ++t) {
      __global const uint* row = src + (y0 - r + t) * w + base - r;
      uint4 hs0 = 0, hs1 = 0, hs2 = 0, hs3 = 0;
      for (int i = 0; i < d; ++i) {
        const uint4 v = intel_sub_group_block_read4(row + i);
        hs0 += UNPACK(v.x);
        hs1 += UNPACK(v.y);
        hs2 += UNPACK(v.z);
        hs3 += UNPACK(v.w);
      }
      for (int k = 0; k < 4; ++k)
        if (t >= k && t < k + d) {
          o[k][0] += hs0;
          o[k][1] += hs1;
          o[k][2] += hs2;
          o[k][3] += hs3;
        }
    }
    for (int k = 0; k < 4; ++k) {
      const uint4 packed = (uint4)(PACK(round_div(o[k][0], n)), PACK(round_div(o[k][1], n)),
                                   PACK(round_div(o[k][2], n)), PACK(round_div(o[k][3], n)));
      intel_sub_group_block_write4(dst + (y0 + k) * w + base, packed);
    }
    return;
  }
  // Border-aware path: the same columns (base + lane + j*S), ordinary loads.
  for (int j = 0; j < 4; ++j) {
    const int x = base + lane + j * S;
    if (x >= w) continue;
    acc_t o0 = 0, o1 = 0, o2 = 0, o3 = 0;
    for (int t = 0; t < d + 3; ++t) {
      const acc_t hs = row_segment_sum(border_row(src, y0 - r + t, w, h, mode), x - r, d, w, mode, cval);
      if (t < d) o0 += hs;
      if (t >= 1 && t < d + 1) o1 += hs;
      if (t >= 2 && t < d + 2) o2 += hs;
      if (t >= 3) o3 += hs;
    }
    dst[y0 * w + x] = PACK(round_div(o0, n));
    if (y0 + 1 < h) dst[(y0 + 1) * w + x] = PACK(round_div(o1, n));
    if (y0 + 2 < h) dst[(y0 + 2) * w + x] = PACK(round_div(o2, n));
    if (y0 + 3 < h) dst[(y0 + 3) * w + x] = PACK(round_div(o3, n));
  }
}
#endif

// ---------------------------------------------------------------------------------------------
// two_pass (even d): seed 003 section 9.1.1 generalised from 8x8 to any even d.
// Pass 1 stores the 2x2 sum starting at every (x', y') the second pass needs, in integers so the
// result stays exact; pass 2 adds (d/2)^2 of them: 4 + (d/2)^2 loads instead of d^2.
// The intermediate is (w + d - 2) x (h + d - 2); entry (tx, ty) is the 2x2 sum at (tx - d/2, ty - d/2).
__kernel void box_pair_sums(__global const pix_t* src, __global pair_t* pairs, int w, int h, int d, int mode,
                            uint cval_bits) {
  const int tw = w + d - 2, th = h + d - 2;
  const int tx = get_global_id(0), ty = get_global_id(1);
  if (tx >= tw || ty >= th) return;
  const pix_t cval = (pix_t)cval_bits;
  const int x = tx - d / 2, y = ty - d / 2;
  const acc_t s = fetch(src, x, y, w, h, mode, cval) + fetch(src, x + 1, y, w, h, mode, cval) +
                  fetch(src, x, y + 1, w, h, mode, cval) + fetch(src, x + 1, y + 1, w, h, mode, cval);
  pairs[ty * tw + tx] = TO_PAIR(s);
}

__kernel void box_from_pair_sums(__global const pair_t* pairs, __global pix_t* dst, int w, int h, int d) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const int tw = w + d - 2;
  const int pairs_per_row = d / 2;
  acc_t s = 0;
  // Window column x - d/2 + 2i lives at tx = x + 2i.
  for (int j = 0; j < pairs_per_row; ++j) {
    __global const pair_t* row = pairs + (y + 2 * j) * tw + x;
    for (int i = 0; i < pairs_per_row; ++i) s += FROM_PAIR(row[2 * i]);
  }
  dst[y * w + x] = PACK(round_div(s, (uint)(d * d)));
}

// ---------------------------------------------------------------------------------------------
// separable_sliding: a row pass and a column pass with running sums, O(1) per pixel for any d.
// -D PITCHED=1 (not from a seed; separable_sliding and fused_sliding): the input's and output's rows in_stride and
// out_stride pixels apart from pixel in_off and out_off on, the caller's views as they are (see box_blur_bands.cl);
// without it the code is the packed build's token for token.
#if PITCHED
#define IN_PITCH_ARGS , int in_stride, int in_off
#define OUT_PITCH_ARGS , int out_stride, int out_off
#define IN_ROW(y) in_off + (y)*in_stride
#define OUT_AT(y, x) out_off + (y)*out_stride + x
#else
#define IN_PITCH_ARGS
#define OUT_PITCH_ARGS
#define IN_ROW(y) y* w
#define OUT_AT(y, x) y* w + x
#endif

// Row pass: each work-item slides a window along `seg` consecutive pixels of one row.
__kernel void box_row_sums(__global const pix_t* src, __global hsum_t* hsums, int w, int h, int d, int mode,
                           uint cval_bits, int seg IN_PITCH_ARGS) {
  const int x0 = get_global_id(0) * seg, y = get_global_id(1);
  if (x0 >= w || y >= h) return;
  const pix_t cval = (pix_t)cval_bits;
  const int r = d / 2;
  __global const pix_t* row = src + IN_ROW(y);
  __global hsum_t* out = hsums + y * w;
  acc_t s = row_segment_sum(row, x0 - r, d, w, mode, cval);
  const int x1 = min(x0 + seg, w);
  out[x0] = TO_HSUM(s);
  for (int x = x0 + 1; x < x1; ++x) {
    s += row_fetch(row, x - r + d - 1, w, mode, cval);
    s -= row_fetch(row, x - r - 1, w, mode, cval);
    out[x] = TO_HSUM(s);
  }
}

// Column pass: work-item x slides down `seg` rows of column x, so neighbouring work-items read
// neighbouring addresses on every step (coalesced). Rows outside the image come from the border:
// a constant row sums to d * cval.
inline acc_t hsum_row(__global const hsum_t* hsums, int x, int y, int w, int h, int mode, acc_t const_row) {
  const int yy = border_index(y, h, mode);
  return yy < 0 ? const_row : FROM_HSUM(hsums[yy * w + x]);
}

__kernel void box_column_sums(__global const hsum_t* hsums, __global pix_t* dst, int w, int h, int d, int mode,
                              uint cval_bits, int seg OUT_PITCH_ARGS) {
  const int x = get_global_id(0), y0 = get_global_id(1) * seg;
  if (x >= w || y0 >= h) return;
  const acc_t const_row = UNPACK((pix_t)cval_bits) * (uint)d;
  const int r = d / 2;
  const uint n = (uint)(d * d);
  acc_t s = 0;
  for (int k = 0; k < d; ++k) s += hsum_row(hsums, x, y0 - r + k, w, h, mode, const_row);
  const int y1 = min(y0 + seg, h);
  dst[OUT_AT(y0, x)] = PACK(round_div(s, n));
  for (int y = y0 + 1; y < y1; ++y) {
    s += hsum_row(hsums, x, y - r + d - 1, w, h, mode, const_row);
    s -= hsum_row(hsums, x, y - r - 1, w, h, mode, const_row);
    dst[OUT_AT(y, x)] = PACK(round_div(s, n));
  }
}

// ---------------------------------------------------------------------------------------------
// local_tile: each work-group loads its tile plus halo into local memory once (one barrier), then
// every work-item sums its d x d window from there. The host sizes `tile` to (lw+d-1) x (lh+d-1).
__kernel void box_local_tile(__global const pix_t* src, __global pix_t* dst, int w, int h, int d, int mode,
                             uint cval_bits, __local pix_t* tile) {
  const int lw = get_local_size(0), lh = get_local_size(1);
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int gx0 = get_group_id(0) * lw, gy0 = get_group_id(1) * lh;
  const int r = d / 2;
  const int tw = lw + d - 1, th = lh + d - 1;
  const pix_t cval = (pix_t)cval_bits;
  for (int ty = ly; ty < th; ty += lh) {
    const int yy = border_index(gy0 - r + ty, h, mode);
    for (int tx = lx; tx < tw; tx += lw) {
      const int xx = border_index(gx0 - r + tx, w, mode);
      tile[ty * tw + tx] = (xx < 0 || yy < 0) ? cval : src[yy * w + xx];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int x = gx0 + lx, y = gy0 + ly;
  if (x >= w || y >= h) return;
  acc_t s = 0;
  for (int j = 0; j < d; ++j) {
    __local const pix_t* row = tile + (ly + j) * tw + lx;
    for (int i = 0; i < d; ++i) s += UNPACK(row[i]);
  }
  dst[y * w + x] = PACK(round_div(s, (uint)(d * d)));
}

// ---------------------------------------------------------------------------------------------
// fused_sliding: one pass, so the only DRAM traffic is the input once and the output once (8 B per
// RGBA pixel, against 24 for separable_sliding's intermediate). Not from a seed.
// A work-group of L work-items owns `tw = L * items` output columns and a strip of rows. It keeps,
// in local memory, the vertical window sum of each of the tw + d - 1 columns its outputs need, and
// slides them down one row at a time (+ the row entering, - the row leaving: two coalesced loads per
// column, the leaving row an L2 hit from d rows earlier). Each work-item then slides a horizontal
// window along `items` consecutive columns sums. Two barriers per row.
// Column sums of RGBA pack two 16-bit channels per uint (R,B | G,A) while d * 255 fits 16 bits
// (d <= 256); -D CSUM_WIDE=1 keeps one uint per channel for larger d.
#if SAMPLE_BITS == 16
// 16-bit samples: one uint per channel (65535 d needs more than 16 bits).
typedef acc_t csum_t;
#define TO_CSUM(p) UNPACK(p)
#define TO_WORD_GA(p) UNPACK(p)
#define WORD_GA_TO_CSUM(v) (v)
#define CSUM_CHANNELS(v) (v)
#else
#if CHANNELS == 4 && !CSUM_WIDE
typedef uint2 csum_t;
#if NV_PTX_FTZ
// G and A in one byte permute (PRMT) where ptxas makes a shift and a mask.
inline uint ga_lanes(uint p) {
  uint r;
  asm("prmt.b32 %0, %1, %2, 0x7371;" : "=r"(r) : "r"(p), "r"(0u));  // bytes 1, 7, 3, 7 of (p, 0)
  return r;
}
#else
#define ga_lanes(p) (((p) >> 8) & 0x00FF00FFu)
#endif
#define TO_CSUM(p) ((uint2)((p)&0x00FF00FFu, ga_lanes(p)))
// A pixel as its whole word and its G, A lanes, for sums: the sum of the words less 256 times the G, A sum is the
// R, B sum (modulo 2^32, so exactly, each lane's sum being below 2^16). Why: one byte permute a pixel instead of a
// permute and a mask, and one add for both R, B lanes and any carries, in the start's d-row sums and the deltas.
// On the H100's pair strips it gains ~1% at d = 63; at d = 31 it is within the noise.
#define TO_WORD_GA(p) ((uint2)((p), ga_lanes(p)))
#define WORD_GA_TO_CSUM(v) ((uint2)((v).x - ((v).y << 8), (v).y))
#define CSUM_CHANNELS(v) ((uint4)((v).x & 0xFFFFu, (v).y & 0xFFFFu, (v).x >> 16, (v).y >> 16))
#else
typedef acc_t csum_t;
#define TO_CSUM(p) UNPACK(p)
#define TO_WORD_GA(p) UNPACK(p)
#define WORD_GA_TO_CSUM(v) (v)
#define CSUM_CHANNELS(v) (v)
#endif
#endif
// One padding slot per 16 entries: work-items reading entries `items` apart (items a power of two
// up to 16) hit different banks.
#define SKEW(i) ((i) + ((i) >> 4))

// round_div without a hardware divide: (s + n/2) / n == mul_hi(2 (s + n/2), magic) >> shift for
// s + n/2 < 2^30 (the host computes magic = ceil(2^(31+shift) / n), shift = floor(log2 n)).
#if SAMPLE_BITS == 16
// 16-bit window sums reach 65535 d^2, past the multiply's 2^30: the host passes n in `magic` (round_div16).
inline acc_t magic_round_div(acc_t s, uint twice_half, uint magic, uint shift) {
  return round_div16(s, magic, 1.0f / (float)magic);
}
#else
inline acc_t magic_round_div(acc_t s, uint twice_half, uint magic, uint shift) {
  return mul_hi((s << 1) + twice_half, (acc_t)magic) >> shift;
}
#endif

__kernel void box_fused_sliding(__global const pix_t* src, __global pix_t* dst, int w, int h, int d, int mode,
                                uint cval_bits, int items, int strip, uint twice_half, uint magic, uint shift,
                                __local csum_t* cs, __local pix_t* row_out IN_PITCH_ARGS OUT_PITCH_ARGS) {
  const int lx = get_local_id(0), L = get_local_size(0);
  const int tw = L * items;
  const int gx0 = get_group_id(0) * tw;
  const int y0 = get_group_id(1) * strip, y1 = min(y0 + strip, h);
  const int r = d / 2, ncols = tw + d - 1;
  const pix_t cval = (pix_t)cval_bits;

  for (int c = lx; c < ncols; c += L) {
    const int xx = border_index(gx0 - r + c, w, mode);
    csum_t s = 0;
    for (int k = 0; k < d; ++k) {
      const int yy = border_index(y0 - r + k, h, mode);
      s += TO_CSUM((xx < 0 || yy < 0) ? cval : src[IN_ROW(yy) + xx]);
    }
    cs[SKEW(c)] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  const int c0 = lx * items;
  for (int y = y0; y < y1; ++y) {
    if (y > y0) {
      // Store row y - 1 and move every column sum down to row y.
      const int y_in = border_index(y - r + d - 1, h, mode), y_out = border_index(y - r - 1, h, mode);
      __global pix_t* out = dst + OUT_AT((y - 1), gx0);
      for (int c = lx; c < ncols; c += L) {
        if (c < tw && gx0 + c < w) out[c] = row_out[SKEW(c)];
        const int xx = border_index(gx0 - r + c, w, mode);
        const pix_t p_in = (xx < 0 || y_in < 0) ? cval : src[IN_ROW(y_in) + xx];
        const pix_t p_out = (xx < 0 || y_out < 0) ? cval : src[IN_ROW(y_out) + xx];
        // Lanes stay >= 0 when the leaving pixel is subtracted last: it is part of the sum.
        cs[SKEW(c)] = cs[SKEW(c)] + TO_CSUM(p_in) - TO_CSUM(p_out);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc_t s = 0;
    for (int i = 0; i < d; ++i) s += CSUM_CHANNELS(cs[SKEW(c0 + i)]);
    row_out[SKEW(c0)] = PACK(magic_round_div(s, twice_half, magic, shift));
    for (int j = 1; j < items; ++j) {
      s += CSUM_CHANNELS(cs[SKEW(c0 + j + d - 1)]);
      s -= CSUM_CHANNELS(cs[SKEW(c0 + j - 1)]);
      row_out[SKEW(c0 + j)] = PACK(magic_round_div(s, twice_half, magic, shift));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  __global pix_t* out = dst + OUT_AT((y1 - 1), gx0);
  for (int c = lx; c < tw; c += L)
    if (gx0 + c < w) out[c] = row_out[SKEW(c)];
}

// ---------------------------------------------------------------------------------------------
// cpu_bands: for CPU devices, one work-item per band of rows (its own build, -D CPU_BANDS=1, so that a refused
// build of it leaves the plain variants' build to fall back to).
#if CPU_BANDS
#if SAMPLE_BITS == 16
#include "box_blur_cpu_bands16.cl"
#else
#include "box_blur_cpu_bands.cl"
#endif
#endif

// ---------------------------------------------------------------------------------------------
// The band variants (RGBA, -D ITEMS): fused_blocks, then fused_prefix, fused_packed and fused_wide.
#if defined(ITEMS) && CHANNELS == 4
// (8-bit only: their loads and lanes are packed RGBA8.)
#include "box_blur_fused_blocks.cl"

// The one FUSED_KERNEL body of fused_prefix, fused_packed and fused_wide.
#include "box_blur_bands.cl"
#endif
