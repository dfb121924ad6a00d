// SPDX-License-Identifier: Apache-2.0
// Sobel (docs/SPEC.md "Sobel"; seed 003 section 9.3): gx is the correlation with [-1 0 1; -2 0 2; -1 0 1],
// gy with its transpose, both exact in integers; the border applies to each coordinate on its own.
//
// Build options:
//   -D OUTPUT=0|1|2   magnitude (uchar), l1 (uchar) or gradients (two short planes). It changes the
//                     output type, so it is a build option; size, border and constant are arguments.
//   -D INTERLEAVED=1  with OUTPUT=2: gx and gy interleaved in out_a (pixel i at 2i and 2i+1, the host call's
//                     H x W x 2 layout, written by the kernel so that a CPU device's host call makes no pass to
//                     interleave the planes); out_b is unused.
// Every kernel takes (input, out_a, out_b, ...): out_a and out_b are gx and gy for gradients; for the
// 8-bit outputs and the interleaved gradients out_a is the output and out_b is unused (the host passes out_a
// again).

#ifndef OUTPUT
#define OUTPUT 0
#endif
#define OUTPUT_MAGNITUDE 0
#define OUTPUT_L1 1
#define OUTPUT_GRADIENTS 2

#if OUTPUT == OUTPUT_GRADIENTS
typedef short out_t;
#else
typedef uchar out_t;
#endif
#ifndef INTERLEAVED
#define INTERLEAVED 0
#endif

// -D PITCHED=1 (not from a seed): the caller's buffers as they are (DeviceImage::view), rows in_stride and
// out_stride pixels apart from pixel in_off and out_off on, where a packed build needs a copy in and out (on
// PoCL at 1080p those copies cost about 6% of the call). The strides and offsets are the kernels' last
// arguments; helpers that find a row take the input stride through STRIDE_PARAM. The host takes this build for
// row_tile and strip only where the layout keeps their aligned vector accesses aligned. Without it the code is
// the packed build's token for token after preprocessing, so tuned programs keep their meaning.
#if PITCHED
#define PITCH_ARGS , int in_stride, int out_stride, int in_off, int out_off
#define PITCH_START \
  src += in_off;    \
  out_a += out_off; \
  out_b += out_off;
#define IN_STRIDE in_stride
#define OUT_STRIDE out_stride
#define STRIDE_PARAM , int in_stride
#define STRIDE_ARG , in_stride
#else
#define PITCH_ARGS
#define PITCH_START
#define IN_STRIDE w
#define OUT_STRIDE w
#define STRIDE_PARAM
#define STRIDE_ARG
#endif

// Beyond this gx^2 + gy^2 the rounded root is at least 256 (255^2 + 255 = 65280), so the magnitude
// clamps to 255; clamping s to it first keeps the root's range small.
#define MAGNITUDE_SATURATES 65281

// round(sqrt(s)) exactly, 0 <= s < 2^24 (s is exact as a float). The rounded root q is the one with
// q^2 - q < s <= q^2 + q (q > 0); no tie is possible for integer s. The float root truncated is at
// most one away from floor(sqrt(s)) and the answer is floor or floor + 1, so one step up and one
// step down make it exact whatever the sqrt's last-bit error.
inline int rounded_sqrt(int s) {
  int q = convert_int(sqrt(convert_float(s)));
  q += (q * q + q < s) ? 1 : 0;
  q -= (q > 0 && q * q - q >= s) ? 1 : 0;
  return q;
}

// The same on 16 lanes (vector comparisons give -1 for true).
inline int16 rounded_sqrt16(int16 s) {
  int16 q = convert_int16(sqrt(convert_float16(s)));
  q -= (q * q + q < s);
  q += (q * q - q >= s) & (q > 0);
  return q;
}

inline uchar magnitude_u8(int gx, int gy) {
  return (uchar)min(rounded_sqrt(min(gx * gx + gy * gy, MAGNITUDE_SATURATES)), 255);
}

inline uchar16 magnitude_u8_16(short16 gx, short16 gy) {
  const int16 x = convert_int16(gx), y = convert_int16(gy);
  return convert_uchar16(min(rounded_sqrt16(min(x * x + y * y, (int16)MAGNITUDE_SATURATES)), (int16)255));
}

// Writes output pixel i.
inline void store_pixel(__global out_t* out_a, __global out_t* out_b, int i, int gx, int gy) {
#if OUTPUT == OUTPUT_GRADIENTS && INTERLEAVED
  vstore2((short2)((short)gx, (short)gy), i, out_a);
#elif OUTPUT == OUTPUT_GRADIENTS
  out_a[i] = (short)gx;
  out_b[i] = (short)gy;
#elif OUTPUT == OUTPUT_L1
  out_a[i] = (uchar)min(abs(gx) + abs(gy), 255u);
#else
  out_a[i] = magnitude_u8(gx, gy);
#endif
}

// Writes output pixels i .. i+count-1 (count <= 16): one vector store when all 16 are inside the
// row, else element by element so nothing is written past the row.
inline void store_16(__global out_t* out_a, __global out_t* out_b, int i, int count, short16 gx, short16 gy) {
#if OUTPUT == OUTPUT_GRADIENTS && INTERLEAVED
  if (count == 16) {
    // One little-endian word per pixel, gx in its low half: widening arithmetic, where shuffle2 came out about
    // five times slower on PoCL.
    const uint16 pairs = convert_uint16(as_ushort16(gx)) | (convert_uint16(as_ushort16(gy)) << 16);
    vstore16(pairs, 0, (__global uint*)(out_a + 2 * i));
    return;
  }
  short ax[16], ay[16];
  vstore16(gx, 0, ax);
  vstore16(gy, 0, ay);
  for (int k = 0; k < count; ++k) vstore2((short2)(ax[k], ay[k]), i + k, out_a);
#elif OUTPUT == OUTPUT_GRADIENTS
  if (count == 16) {
    vstore16(gx, 0, out_a + i);
    vstore16(gy, 0, out_b + i);
    return;
  }
  short ax[16], ay[16];
  vstore16(gx, 0, ax);
  vstore16(gy, 0, ay);
  for (int k = 0; k < count; ++k) {
    out_a[i + k] = ax[k];
    out_b[i + k] = ay[k];
  }
#else
#if OUTPUT == OUTPUT_L1
  const uchar16 v = convert_uchar16(min(abs(gx) + abs(gy), (ushort16)255));
#else
  const uchar16 v = magnitude_u8_16(gx, gy);
#endif
  if (count == 16) {
    vstore16(v, 0, out_a + i);
    return;
  }
  uchar a[16];
  vstore16(v, 0, a);
  for (int k = 0; k < count; ++k) out_a[i + k] = a[k];
#endif
}

// Row y after the border, or NULL for a row of the constant.
inline __global const uchar* border_row(__global const uchar* src, int y, int w, int h, int mode) {
  const int yy = border_index(y, h, mode);
  return yy < 0 ? 0 : src + yy * w;
}

// Pixel at column x of a row given as by border_row.
inline int row_pixel(__global const uchar* row, int x, int w, int mode, uchar cval) {
  if (!row) return cval;
  const int xx = border_index(x, w, mode);
  return xx < 0 ? cval : row[xx];
}

// ---------------------------------------------------------------------------------------------
// naive: one pixel per work-item, the full 3x3 masks over 9 loads (seed 003, Figure 9-9).
__constant int kMaskX[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
__constant int kMaskY[9] = {-1, -2, -1, 0, 0, 0, 1, 2, 1};

__kernel void sobel_naive(__global const uchar* src, __global out_t* out_a, __global out_t* out_b, int w, int h,
                          int mode, uint cval_bits PITCH_ARGS) {
  PITCH_START
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const uchar cval = (uchar)cval_bits;
  int gx = 0, gy = 0;
  for (int j = 0; j < 3; ++j) {
    __global const uchar* row = border_row(src, y - 1 + j, IN_STRIDE, h, mode);
    for (int i = 0; i < 3; ++i) {
      const int p = row_pixel(row, x - 1 + i, w, mode, cval);
      gx += kMaskX[j * 3 + i] * p;
      gy += kMaskY[j * 3 + i] * p;
    }
  }
  store_pixel(out_a, out_b, y * OUT_STRIDE + x, gx, gy);
}

// ---------------------------------------------------------------------------------------------
// separable: seed 003 section 9.3.1, gx = [1 2 1]^T (x) [-1 0 1] and gy = [-1 0 1]^T (x) [1 2 1].
// Per column of the window: a vertical smoothing (top + 2 mid + bottom) and a vertical difference
// (bottom - top); then gx = smooth(right) - smooth(left), gy = diff(left) + 2 diff(mid) + diff(right).
__kernel void sobel_separable(__global const uchar* src, __global out_t* out_a, __global out_t* out_b, int w, int h,
                              int mode, uint cval_bits PITCH_ARGS) {
  PITCH_START
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const uchar cval = (uchar)cval_bits;
  __global const uchar* top = border_row(src, y - 1, IN_STRIDE, h, mode);
  __global const uchar* mid = src + y * IN_STRIDE;
  __global const uchar* bottom = border_row(src, y + 1, IN_STRIDE, h, mode);
  int smooth[3], diff[3];
  for (int i = 0; i < 3; ++i) {
    const int xx = border_index(x - 1 + i, w, mode);
    const int t = (xx < 0 || !top) ? cval : top[xx];
    const int m = xx < 0 ? cval : mid[xx];
    const int b = (xx < 0 || !bottom) ? cval : bottom[xx];
    smooth[i] = t + 2 * m + b;
    diff[i] = b - t;
  }
  store_pixel(out_a, out_b, y * OUT_STRIDE + x, smooth[2] - smooth[0], diff[0] + 2 * diff[1] + diff[2]);
}

// ---------------------------------------------------------------------------------------------
// 16 output pixels per row segment: the 18 input pixels x0-1 .. x0+16 of one row as a short16
// (columns x0-1 .. x0+14) and a short2 (x0+15, x0+16).
// Seed 003 section 9.3.3: inside the row, one 16-byte vector load plus a 2-pixel tail. At the row's
// ends (and for rows narrower than 18) each pixel goes through the border, so nothing past the row
// is read.
inline void load_18(__global const uchar* row, int x0, int w, int mode, uchar cval, short16* a, short2* b) {
  if (!row) {
    *a = (short16)cval;
    *b = (short2)cval;
    return;
  }
  if (x0 >= 1 && x0 + 17 <= w) {
    *a = convert_short16(vload16(0, row + x0 - 1));
    *b = convert_short2(vload2(0, row + x0 + 15));
    return;
  }
  uchar p[18];
  for (int i = 0; i < 18; ++i) {
    const int xx = border_index(x0 - 1 + i, w, mode);
    p[i] = xx < 0 ? cval : row[xx];
  }
  *a = convert_short16(vload16(0, p));
  *b = convert_short2(vload2(0, p + 16));
}

// gx and gy of 16 consecutive pixels from their three input rows (seed 003 9.3.1 separable form,
// 9.3.2 in short16). Lane i of a row's short16 is column x0-1+i, so the window's left column is
// lane i, its middle lane i+1 and its right lane i+2 (shifted in from the 2-pixel tail).
inline void gradients_16(short16 top_a, short2 top_b, short16 mid_a, short2 mid_b, short16 bot_a, short2 bot_b,
                         short16* gx, short16* gy) {
  const short16 smooth_a = top_a + (mid_a << (short16)1) + bot_a;
  const short2 smooth_b = top_b + (mid_b << (short2)1) + bot_b;
  const short16 diff_a = bot_a - top_a;
  const short2 diff_b = bot_b - top_b;
  const short16 smooth_right = (short16)(smooth_a.s2345, smooth_a.s6789, smooth_a.sabcd, smooth_a.sef, smooth_b);
  const short16 diff_mid = (short16)(diff_a.s1234, diff_a.s5678, diff_a.s9abc, diff_a.sdef, diff_b.s0);
  const short16 diff_right = (short16)(diff_a.s2345, diff_a.s6789, diff_a.sabcd, diff_a.sef, diff_b);
  *gx = smooth_right - smooth_a;
  *gy = diff_a + (diff_mid << (short16)1) + diff_right;
}

// row16: 16x1 output pixels per work-item from 18x3 input pixels (seed 003 Figure 9-10).
__kernel void sobel_row16(__global const uchar* src, __global out_t* out_a, __global out_t* out_b, int w, int h,
                          int mode, uint cval_bits PITCH_ARGS) {
  PITCH_START
  const int x0 = get_global_id(0) * 16, y = get_global_id(1);
  if (x0 >= w || y >= h) return;
  const uchar cval = (uchar)cval_bits;
  short16 ta, ma, ba, gx, gy;
  short2 tb, mb, bb;
  load_18(border_row(src, y - 1, IN_STRIDE, h, mode), x0, w, mode, cval, &ta, &tb);
  load_18(src + y * IN_STRIDE, x0, w, mode, cval, &ma, &mb);
  load_18(border_row(src, y + 1, IN_STRIDE, h, mode), x0, w, mode, cval, &ba, &bb);
  gradients_16(ta, tb, ma, mb, ba, bb, &gx, &gy);
  store_16(out_a, out_b, y * OUT_STRIDE + x0, min(16, w - x0), gx, gy);
}

// block16x2: 16x2 output pixels per work-item from 18x4 input pixels (seed 003 Figure 9-11): the two
// middle rows serve both output rows.
__kernel void sobel_block16x2(__global const uchar* src, __global out_t* out_a, __global out_t* out_b, int w, int h,
                              int mode, uint cval_bits PITCH_ARGS) {
  PITCH_START
  const int x0 = get_global_id(0) * 16, y0 = get_global_id(1) * 2;
  if (x0 >= w || y0 >= h) return;
  const uchar cval = (uchar)cval_bits;
  short16 r0a, r1a, r2a, r3a, gx, gy;
  short2 r0b, r1b, r2b, r3b;
  load_18(border_row(src, y0 - 1, IN_STRIDE, h, mode), x0, w, mode, cval, &r0a, &r0b);
  load_18(src + y0 * IN_STRIDE, x0, w, mode, cval, &r1a, &r1b);
  load_18(border_row(src, y0 + 1, IN_STRIDE, h, mode), x0, w, mode, cval, &r2a, &r2b);
  load_18(border_row(src, y0 + 2, IN_STRIDE, h, mode), x0, w, mode, cval, &r3a, &r3b);
  const int count = min(16, w - x0);
  gradients_16(r0a, r0b, r1a, r1b, r2a, r2b, &gx, &gy);
  store_16(out_a, out_b, y0 * OUT_STRIDE + x0, count, gx, gy);
  if (y0 + 1 < h) {
    gradients_16(r1a, r1b, r2a, r2b, r3a, r3b, &gx, &gy);
    store_16(out_a, out_b, (y0 + 1) * OUT_STRIDE + x0, count, gx, gy);
  }
}

// ---------------------------------------------------------------------------------------------
// row_tile: coalesced column strips (not from a seed: the seeds' 16-wide work-items each store 32
// contiguous bytes per gradient plane, so one warp's store instruction is strided).
// Work-item i of a row of work-items owns columns x0 = VEC*i .. x0+VEC-1 of `rows` consecutive output
// rows, so one load or store instruction of a warp covers one contiguous run of a row (32*VEC input
// bytes, 64*VEC bytes per gradient plane). It walks down its strip keeping two input rows' worth of
// horizontal sums in registers, so each input row is loaded once per strip (plus two halo rows per
// strip), and the next row's load is issued before the current row is computed and stored. The halo
// columns x0-1 and x0+VEC are two byte loads that hit the lines the neighbouring work-items load, so
// DRAM reads stay ~1 B/pixel.
// Separable in the other order than `separable`: per input row, hs = [1 2 1] and hd = [-1 0 1] along
// x; then gx = hd(y-1) + 2 hd(y) + hd(y+1) and gy = hs(y+1) - hs(y-1), so only the work-item's own VEC
// columns carry state from row to row.
// Pixels travel as 32-bit words (4 input or 8-bit output pixels, 2 gradients per word), so that loads
// and stores are uint2/uint4 vectors (up to 16 bytes per instruction) rather than byte or short
// vectors that a compiler may split into 4- or 8-byte pieces; private arrays are only indexed by
// constants, so they stay in registers.
//
// Build options (set by the host for this kernel only):
//   -D VEC=4|8|16   columns per work-item.
//   -D ALIGNED=0|1  1 when w % VEC == 0: every strip starts on a VEC-pixel boundary of an aligned
//                   buffer, so whole strips go through aligned word-vector pointers; else through
//                   vloadn/vstoren, which only need element alignment.
#ifndef VEC
#define VEC 8
#endif
#ifndef ALIGNED
#define ALIGNED 0
#endif
// in_words_t holds VEC input or 8-bit output pixels, grad_words_t VEC gradients of one plane.
// pair_words_t holds VEC interleaved (gx, gy) pairs, one word each (INTERLEAVED).
#if VEC == 4
typedef uint in_words_t;
typedef uint2 grad_words_t;
typedef uint4 pair_words_t;
#define as_in_words as_uint
#elif VEC == 8
typedef uint2 in_words_t;
typedef uint4 grad_words_t;
typedef uint8 pair_words_t;
#define as_in_words as_uint2
#elif VEC == 16
typedef uint4 in_words_t;
typedef uint8 grad_words_t;
typedef uint16 pair_words_t;
#define as_in_words as_uint4
#else
#error "VEC must be 4, 8 or 16"
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define as_uchar_v CAT(as_uchar, VEC)
#define as_short_v CAT(as_short, VEC)
#define vload_v CAT(vload, VEC)
#define vstore_v CAT(vstore, VEC)

// Stores VEC interleaved pairs, pixels i .. i+VEC-1 (INTERLEAVED): one vector store of words.
inline void store_pairs(__global short* restrict out, int i, pair_words_t words) {
#if ALIGNED
  *(__global pair_words_t*)(out + 2 * i) = words;
#else
  vstore_v(words, 0, (__global uint*)(out + 2 * i));
#endif
}

// round(sqrt(s)) for 0 <= s <= MAGNITUDE_SATURATES, exactly, in fewer and cheaper instructions than
// rounded_sqrt (not from a seed: the int <-> float conversions use exponent bits on the full-rate
// ALUs, where convert_* goes through NVIDIA's quarter-rate conversion unit). The float with bits
// 0x4B000000 | s is 2^23 + s exactly, so subtracting 2^23 gives s as a float; adding 2^23 to the root
// (< 2^22) rounds it to the nearest integer in the low mantissa bits. No correction step is needed:
// for an integer s <= 65281 the root is at least 4.8e-4 from a half-integer (closest at s = 255^2 +
// 255), 16 ulp at 256, and OpenCL's sqrt is within 3 ulp. Larger s would need the steps of
// rounded_sqrt; the device test checks this helper over its whole range.
inline int rounded_sqrt_bits(int s) {
  const float f = as_float(0x4B000000 | s) - 8388608.0f;
  return as_int(sqrt(f) + 8388608.0f) - 0x4B000000;
}

inline uchar magnitude_u8_bits(int gx, int gy) {
  return (uchar)min(rounded_sqrt_bits(min(gx * gx + gy * gy, MAGNITUDE_SATURATES)), 255);
}

// One input row of a strip as loaded: columns x0 .. x0+VEC-1 in `mid` (little-endian words), x0-1 in
// `left`, x0+VEC in `right`, all after the border.
typedef struct {
  in_words_t mid;
  int left;
  int right;
} StripRow;

typedef union {
  in_words_t v;
  uint a[VEC / 4];
} InWords;

// `interior`: columns x0-1 .. x0+VEC are all inside the row, so no column needs the border.
inline StripRow load_strip_row(__global const uchar* restrict src, int yy, int x0, int w, int h, int mode, uchar cval,
                               bool interior STRIDE_PARAM) {
  StripRow r;
  __global const uchar* row = border_row(src, yy, IN_STRIDE, h, mode);
  if (!row) {
    r.mid = (in_words_t)(cval * 0x01010101u);
    r.left = r.right = cval;
  } else if (interior) {
#if ALIGNED
    r.mid = *(__global const in_words_t*)(row + x0);
#else
    r.mid = as_in_words(vload_v(0, row + x0));
#endif
    r.left = row[x0 - 1];
    r.right = row[x0 + VEC];
  } else {
    InWords m;
#pragma unroll
    for (int j = 0; j < VEC / 4; ++j) m.a[j] = 0;
#pragma unroll
    for (int k = 0; k < VEC; ++k) m.a[k / 4] |= (uint)row_pixel(row, x0 + k, w, mode, cval) << (8 * (k % 4));
    r.mid = m.v;
    r.left = row_pixel(row, x0 - 1, w, mode, cval);
    r.right = row_pixel(row, x0 + VEC, w, mode, cval);
  }
  return r;
}

// The row's horizontal smoothing hs = [1 2 1] and difference hd = [-1 0 1] at the strip's VEC columns.
inline void strip_row_sums(StripRow r, int hs[VEC], int hd[VEC]) {
  InWords m;
  m.v = r.mid;
  int p[VEC + 2];
  p[0] = r.left;
#pragma unroll
  for (int k = 0; k < VEC; ++k) p[k + 1] = (m.a[k / 4] >> (8 * (k % 4))) & 0xFF;
  p[VEC + 1] = r.right;
#pragma unroll
  for (int k = 0; k < VEC; ++k) {
    hs[k] = p[k] + 2 * p[k + 1] + p[k + 2];
    hd[k] = p[k + 2] - p[k];
  }
}

// Writes output pixels i .. i+count-1 (count <= VEC): one vector store per plane when the whole strip
// is inside the row, else element by element so nothing is written past the row.
inline void store_strip(__global out_t* restrict out_a, __global out_t* restrict out_b, int i, int count,
                        const int gx[VEC], const int gy[VEC]) {
#if OUTPUT == OUTPUT_GRADIENTS && INTERLEAVED
  union {
    pair_words_t v;
    uint a[VEC];
  } p;
#pragma unroll
  for (int k = 0; k < VEC; ++k) p.a[k] = ((uint)gx[k] & 0xFFFF) | ((uint)gy[k] << 16);
  if (count == VEC) {
    store_pairs(out_a, i, p.v);
    return;
  }
#if !ALIGNED
#pragma unroll
  for (int k = 0; k < VEC; ++k)
    if (k < count) vstore2((short2)((short)gx[k], (short)gy[k]), i + k, out_a);
#endif
#elif OUTPUT == OUTPUT_GRADIENTS
  union {
    grad_words_t v;
    uint a[VEC / 2];
  } x, y;
#pragma unroll
  for (int j = 0; j < VEC / 2; ++j) {
    x.a[j] = ((uint)gx[2 * j] & 0xFFFF) | ((uint)gx[2 * j + 1] << 16);
    y.a[j] = ((uint)gy[2 * j] & 0xFFFF) | ((uint)gy[2 * j + 1] << 16);
  }
  if (count == VEC) {
#if ALIGNED
    *(__global grad_words_t*)(out_a + i) = x.v;
    *(__global grad_words_t*)(out_b + i) = y.v;
#else
    vstore_v(as_short_v(x.v), 0, out_a + i);
    vstore_v(as_short_v(y.v), 0, out_b + i);
#endif
    return;
  }
#if !ALIGNED  // aligned rows always hold whole strips
#pragma unroll
  for (int k = 0; k < VEC; ++k)
    if (k < count) {
      out_a[i + k] = (short)gx[k];
      out_b[i + k] = (short)gy[k];
    }
#endif
#else
  int o[VEC];
#pragma unroll
  for (int k = 0; k < VEC; ++k) {
#if OUTPUT == OUTPUT_L1
    o[k] = min(abs(gx[k]) + abs(gy[k]), 255u);
#else
    o[k] = magnitude_u8_bits(gx[k], gy[k]);
#endif
  }
  if (count == VEC) {
    InWords m;
#pragma unroll
    for (int j = 0; j < VEC / 4; ++j)
      m.a[j] = (uint)o[4 * j] | ((uint)o[4 * j + 1] << 8) | ((uint)o[4 * j + 2] << 16) | ((uint)o[4 * j + 3] << 24);
#if ALIGNED
    *(__global in_words_t*)(out_a + i) = m.v;
#else
    vstore_v(as_uchar_v(m.v), 0, out_a + i);
#endif
    return;
  }
#if !ALIGNED
#pragma unroll
  for (int k = 0; k < VEC; ++k)
    if (k < count) out_a[i + k] = (uchar)o[k];
#endif
#endif
}

// Launched over (ceil(w / VEC), ceil(h / rows)) work-items. Not in strip's programs (those define ROWS),
// where clang would otherwise leave its helpers out of line.
#ifndef ROWS
__kernel void sobel_row_tile(__global const uchar* restrict src, __global out_t* restrict out_a,
                             __global out_t* restrict out_b, int w, int h, int mode, uint cval_bits,
                             int rows PITCH_ARGS) {
  PITCH_START
  const int x0 = get_global_id(0) * VEC, y0 = get_global_id(1) * rows;
  if (x0 >= w || y0 >= h) return;
  const uchar cval = (uchar)cval_bits;
  const int y_end = min(y0 + rows, h), count = min(VEC, w - x0);
  const bool interior = x0 >= 1 && x0 + VEC < w;
  // Rows y-1 and y of the window as horizontal sums; `next` is row y+1 as loaded.
  int hs0[VEC], hd0[VEC], hs1[VEC], hd1[VEC], hs2[VEC], hd2[VEC], gx[VEC], gy[VEC];
  strip_row_sums(load_strip_row(src, y0 - 1, x0, w, h, mode, cval, interior STRIDE_ARG), hs0, hd0);
  strip_row_sums(load_strip_row(src, y0, x0, w, h, mode, cval, interior STRIDE_ARG), hs1, hd1);
  StripRow next = load_strip_row(src, y0 + 1, x0, w, h, mode, cval, interior STRIDE_ARG);
  for (int y = y0; y < y_end; ++y) {
    // Issue row y+2's load (when this strip needs it) before computing and storing row y.
    StripRow after = next;
    if (y + 1 < y_end) after = load_strip_row(src, y + 2, x0, w, h, mode, cval, interior STRIDE_ARG);
    strip_row_sums(next, hs2, hd2);
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
      gx[k] = hd0[k] + 2 * hd1[k] + hd2[k];
      gy[k] = hs2[k] - hs0[k];
      hs0[k] = hs1[k];
      hd0[k] = hd1[k];
      hs1[k] = hs2[k];
      hd1[k] = hd2[k];
    }
    store_strip(out_a, out_b, y * OUT_STRIDE + x0, count, gx, gy);
    next = after;
  }
}
#endif  // !ROWS

#include "sobel_strip.cl"
// ---------------------------------------------------------------------------------------------
// image: the input read through an image object (seed 003 section 9.3.4 names textures as the
// remaining option). The sampler clamps to the edge, which is the replicate border, so replicate
// reads the raw coordinates; the other modes map them with border_index first.
#ifdef __IMAGE_SUPPORT__
__constant sampler_t kSampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

inline int image_pixel(__read_only image2d_t src, int x, int y, int w, int h, int mode, uchar cval) {
  if (mode != BORDER_REPLICATE) {
    x = border_index(x, w, mode);
    y = border_index(y, h, mode);
    if (x < 0 || y < 0) return cval;
  }
  return (int)read_imageui(src, kSampler, (int2)(x, y)).x;
}

__kernel void sobel_image(__read_only image2d_t src, __global out_t* out_a, __global out_t* out_b, int w, int h,
                          int mode, uint cval_bits) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const uchar cval = (uchar)cval_bits;
  int smooth[3], diff[3];
  for (int i = 0; i < 3; ++i) {
    const int t = image_pixel(src, x - 1 + i, y - 1, w, h, mode, cval);
    const int m = image_pixel(src, x - 1 + i, y, w, h, mode, cval);
    const int b = image_pixel(src, x - 1 + i, y + 1, w, h, mode, cval);
    smooth[i] = t + 2 * m + b;
    diff[i] = b - t;
  }
  store_pixel(out_a, out_b, y * w + x, smooth[2] - smooth[0], diff[0] + 2 * diff[1] + diff[2]);
}
#endif

// ---------------------------------------------------------------------------------------------
// For the tests: the rounded root of every s in [0, n), by the scalar and the 16-lane helper, so the
// exact rounding the kernels use is checked exhaustively on the device itself.
__kernel void sobel_rounded_sqrt_check(__global int* scalar_out, __global int* vector_out, int n) {
  const int s0 = get_global_id(0) * 16;
  if (s0 >= n) return;
  const int16 s = (int16)(s0) + (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  int v[16];
  vstore16(rounded_sqrt16(s), 0, v);
  for (int k = 0; k < 16 && s0 + k < n; ++k) {
    scalar_out[s0 + k] = rounded_sqrt(s0 + k);
    vector_out[s0 + k] = v[k];
  }
}

// The same for rounded_sqrt_bits, over its range s in [0, n), n <= MAGNITUDE_SATURATES + 1.
__kernel void sobel_rounded_sqrt_bits_check(__global int* out, int n) {
  const int s = get_global_id(0);
  if (s < n) out[s] = rounded_sqrt_bits(s);
}
