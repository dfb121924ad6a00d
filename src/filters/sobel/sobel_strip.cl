// SPDX-License-Identifier: Apache-2.0
// ---------------------------------------------------------------------------------------------
// strip: a register block of VEC columns x ROWS rows per work-item, every load issued up front and the
// arithmetic in 16-bit SIMD-within-a-register lanes (not from a seed: the shape is Jacobi's `strip`
// in this repo; the lane packing is a standard SWAR technique).
// Why: row_tile keeps one row load of 4-8 bytes per work-item in flight, too little to cover DRAM latency at 1 B/px;
// here (ROWS+2) loads are in flight at once. ROWS is built in, so the row loops unroll into registers.
// Arithmetic (separable, horizontal first as in row_tile): per input row hs = [1 2 1] and hd = [-1 0 1] along x;
// then gx = hd(y-1) + 2 hd(y) + hd(y+1), gy = hs(y+1) - hs(y-1). Each 32-bit word holds two pixels 2 apart in 16-bit
// lanes ("even" words lanes 4j, 4j+2; "odd" 4j+1, 4j+3), so one add serves two pixels and a window's neighbours are
// the other parity's word or a 16-bit funnel shift of it. Lanes never carry: every lane stays in [0, 65535] (hd is
// biased by 0x2000, so gx by 0x8000, gy by 0x8000 by its own add); XOR 0x8000 turns a biased lane into int16 bits.
//
// Predicted instructions per pixel of an interior work-item (the SASS of clang + libclc PTX, ptxas
// sm_90, VEC=16, ROWS=8, ALIGNED=1, 128 pixels per work-item, the whole kernel body counted), against
// row_tile's interior loop at the tuned widths (magnitude and l1 VEC=4, gradients VEC=8):
//   gradients  9.7 (ALU 5.7, FMA 3.3, LSU 0.5)          row_tile 23.8
//   l1        14.8                                        row_tile 36
//   magnitude 18.3 with the root as sqrt.approx.ftz.f32, one MUFU.SQRT: that is border.cl's fast_sqrt
//             (inline PTX under -D NV_PTX_FTZ=1, which the host passes on NVIDIA); -cl-denorms-are-zero
//             alone does not do it, NVIDIA's compiler still emits native_sqrt as sqrt.approx.f32 with a
//             subnormal fix-up (~21.4); ~32 where the root is libclc's IEEE sqrt. row_tile 56.
//   magnitude, MAG_FLOAT=1: 14.5 (ALU 3.6, FMA 9.4, XU 1.0) against the lanes' 18.3 (ALU 8.7, FMA 8.2,
//             XU 1.0); counted with the interior branch taken (`interior` set to true in a copy).
//   magnitude, MAG_FLOAT=2 (the Roberts cross of 2x2 sums, below): 15.5 against MAG_FLOAT=1's 17.3 at 8x4 in
//             the same count; l1 13.5 against the lanes' 17.3.
// The lanes' magnitude is ALU-bound on the H200 (NVIDIA's own code: ~16 ALU-pipe instructions
// per pixel on the 64-lane pipe); MAG_FLOAT moves the work to the 128-lane FMA pipe.
//
// Build options (set by the host for this kernel only): VEC (4|8|16 columns), ROWS (output rows per
// work-item), ALIGNED (as row_tile: w % VEC == 0), MAG_FLOAT (0|1 for the magnitude, 2 for the magnitude and l1:
// below).
// Work-items at the image's edges take a slower load path through the border (row by row; only the
// halo columns, or for the last strip of a row every column, go through border_index); their
// arithmetic and stores are the interior's, with the stores cut at the image's right and bottom edges.
#ifdef ROWS
#define NW (VEC / 4)
#define STRIP_INLINE __attribute__((always_inline)) inline

// One input row of a strip after the border, for work-items at the image's edges. Not inlined: ROWS + 2
// inlined copies make the kernel 3x larger (12.3k against 4.1k SASS instructions at 16x8),
// for a path few work-items take. The halo columns' indices after the border, xl and xr (-1: the
// constant), are the same for every row, so the caller finds them once. Loads read a real row and
// column (index 0 for the constant) and the constant is selected afterwards, so the loads need no
// branches. The VEC columns are one vector when they are all inside the row (every strip but a row's
// last), else pixel by pixel through the border.
__attribute__((noinline)) StripRow strip_load_border(__global const uchar* restrict src, int yy, int x0, int xl, int xr,
                                                     int w, int h, int mode, uchar cval STRIDE_PARAM) {
  const int ry = border_index(yy, h, mode);
  __global const uchar* row = src + max(ry, 0) * IN_STRIDE;
  InWords m;
  if (x0 + VEC <= w) {
#if ALIGNED
    m.v = *(__global const in_words_t*)(row + x0);
#else
    m.v = as_in_words(vload_v(0, row + x0));
#endif
  } else {
#pragma unroll
    for (int j = 0; j < NW; ++j) m.a[j] = 0;
#pragma unroll
    for (int k = 0; k < VEC; ++k) m.a[k / 4] |= (uint)row_pixel(row, x0 + k, w, mode, cval) << (8 * (k % 4));
  }
  const uint l = row[max(xl, 0)], r = row[max(xr, 0)];
  StripRow out;
  out.mid = ry < 0 ? (in_words_t)(cval * 0x01010101u) : m.v;
  out.left = ry < 0 || xl < 0 ? cval : l;
  out.right = ry < 0 || xr < 0 ? cval : r;
  return out;
}

// The words of a loaded vector into an array, by component rather than through a union, so that the
// compiler keeps the load one vector load (through a union clang split some rows' loads into words).
STRIP_INLINE void strip_words(in_words_t v, uint a[NW]) {
#if NW == 1
  a[0] = v;
#elif NW == 2
  a[0] = v.s0;
  a[1] = v.s1;
#else
  a[0] = v.s0;
  a[1] = v.s1;
  a[2] = v.s2;
  a[3] = v.s3;
#endif
}

// hs and hd of one input row in lanes: *_e[j] for columns (4j, 4j+2), *_o[j] for (4j+1, 4j+3); hd
// biased by 0x2000 per lane. `left` and `right` are the halo pixels x0-1 and x0+VEC.
STRIP_INLINE void strip_hsums(const uint a[NW], uint left, uint right, uint hs_e[NW], uint hd_e[NW], uint hs_o[NW],
                              uint hd_o[NW]) {
  uint e[NW], o[NW];
#pragma unroll
  for (int j = 0; j < NW; ++j) {
    e[j] = a[j] & 0x00FF00FFu;         // pixels 4j, 4j+2
    o[j] = (a[j] >> 8) & 0x00FF00FFu;  // pixels 4j+1, 4j+3
  }
#pragma unroll
  for (int j = 0; j < NW; ++j) {
    const uint o_prev = (o[j] << 16) | (j == 0 ? left : o[j - 1] >> 16);          // pixels 4j-1, 4j+1
    const uint e_next = (e[j] >> 16) | ((j == NW - 1 ? right : e[j + 1]) << 16);  // pixels 4j+2, 4j+4
    hs_e[j] = o_prev + (e[j] << 1) + o[j];
    hd_e[j] = o[j] - o_prev + 0x20002000u;
    hs_o[j] = e[j] + (o[j] << 1) + e_next;
    hd_o[j] = e_next - e[j] + 0x20002000u;
  }
}

// The 8-bit magnitude from s = gx^2 + gy^2 (s >= 0): as rounded_sqrt_bits, but clamping s to
// 65280 = 255^2 + 255 (whose rounded root is 255, and every larger s rounds to 256 or more), so the
// root is at most 255 and is the low byte of the float's bits: no subtract and no min after the root.
// The root is STRIP_SQRT, fast_sqrt: native_sqrt off NVIDIA, whose error is implementation-defined, so the
// device test runs sobel_strip_magnitude_check over every s on the device itself. For s <= 65280 the root is
// at least 4.9e-4 (2^-19 relative) from a half-integer, a margin some 8x wider than a hardware square root's
// usual error of about 2^-22 (not from a seed; the device test, not this estimate, is the proof).
// fast_sqrt (border.cl): on NVIDIA sqrt.approx.ftz, one MUFU.SQRT; native_sqrt there came out as
// sqrt.approx.f32 with a subnormal fix-up (FSETP, two FMUL) around it.
#ifndef STRIP_SQRT
#define STRIP_SQRT fast_sqrt
#endif
STRIP_INLINE uint strip_magnitude_bits(int s) {
  const float f = as_float(0x4B000000 | min(s, 65280)) - 8388608.0f;
  return as_uint(STRIP_SQRT(f) + 8388608.0f);  // 0x4B000000 + round(sqrt(s)) clamped to 255
}
#endif  // ROWS

#ifdef ROWS
// ---- MAG_FLOAT=1: the magnitude in FP32 (not from a seed) ----
// Why: with 16-bit lanes the magnitude is bound by the integer/logic pipe (64 lanes per SM on Hopper):
// unpacking lanes, biases, min and packing. Here every pixel becomes a float once, as 2^23 + p (the
// bits 0x4B0000pp: one byte permute), and everything after that is FP32 adds and FMAs, which run on
// the 128-lane FMA pipe: hd = [-1 0 1] along x per input row; per output row the vertical difference
// vd = bottom - top and gx = hd(t) + 2 hd(m) + hd(b), gy = vd(x-1) + 2 vd(x) + vd(x+1). The biases
// cancel in every difference; every value is an integer below 2^24 in magnitude (s <= 2 * 1020^2), so
// all of it is exact. This also takes fewer operations than the lanes' hs/hd sums for gy.
#ifndef MAG_FLOAT
#define MAG_FLOAT 0
#endif

// 2^23 + byte b of w, as a float (the byte in the low mantissa bits under a 2^23 exponent).
// strip_pack_bytes: the low bytes of four words as one word, byte k from word k.
// On NVIDIA (NV_PTX_FTZ marks its PTX) each is a byte permute, one PRMT for the pixel and three for the
// four: as shifts and masks ptxas makes 2 and 5 integer instructions.
#if NV_PTX_FTZ
STRIP_INLINE uint strip_prmt(uint a, uint b, uint selector) {
  uint r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "n"(selector));
  return r;
}
// Selector nibbles, lowest first: byte b of w, then bytes 0, 1 and 3 of 0x4B000000.
#define strip_byte_float(w, b) as_float(strip_prmt((w), 0x4B000000u, 0x7540u | (b)))
STRIP_INLINE uint strip_pack_bytes(uint b0, uint b1, uint b2, uint b3) {
  return strip_prmt(strip_prmt(b0, b1, 0x0040u), strip_prmt(b2, b3, 0x0040u), 0x5410u);
}
#else
STRIP_INLINE float strip_byte_float(uint w, int b) {
  return as_float(0x4B000000u | ((w >> (8 * b)) & 0xFFu));
}
STRIP_INLINE uint strip_pack_bytes(uint b0, uint b1, uint b2, uint b3) {
  return (b0 & 0xFF) | ((b1 & 0xFF) << 8) | ((b2 & 0xFF) << 16) | (b3 << 24);
}
#endif

// strip_magnitude_bits from a float s (an exact integer >= 0), the same clamp, root and rounding (so
// the same margin argument). fmin is one FMNMX on the ALU pipe, which has room in this path. Proof on
// the device: the test runs sobel_strip_magnitude_pairs_check over every (gx, gy).
STRIP_INLINE uint strip_magnitude_bits_f(float s) {
  return as_uint(STRIP_SQRT(fmin(s, 65280.0f)) + 8388608.0f);  // 0x4B000000 + round(sqrt(s)) clamped to 255
}

// The input row's pixels x0-1 .. x0+VEC as 2^23 + p.
STRIP_INLINE void strip_row_floats(const uint a[NW], uint left, uint right, float p[VEC + 2]) {
  p[0] = as_float(0x4B000000u | left);
#pragma unroll
  for (int k = 0; k < VEC; ++k) p[k + 1] = strip_byte_float(a[k / 4], k % 4);
  p[VEC + 1] = as_float(0x4B000000u | right);
}

// ---- MAG_FLOAT=2: the Roberts cross of 2x2 sums, in FP32 (magnitude and l1; not from a seed) ----
// Why: Sobel is the 2x2 box sum followed by the Roberts cross. With Q the 2x2 sums, TL/TR/BL/BR the four
// of them that overlap pixel (x, y) (TL: rows y-1..y, columns x-1..x), u = BR - TL and v = TR - BL:
//   gx + gy = 2u and gx - gy = 2v (the centre pixel cancels in both), so
//   gx^2 + gy^2 = 2 (u^2 + v^2) and |gx| + |gy| = max(|gx + gy|, |gx - gy|) = 2 max(|u|, |v|).
// Per input row one add per column pair (hp), per output row one per column (Q from two hp rows) and two
// differences: about 2 adds per pixel fewer than MAG_FLOAT=1's separable gx and gy.
// Exactness: a pixel is the float 2^23 + 256 p (the byte in mantissa bits 8..15, one PRMT);
// hp = 2^24 + 256 (a + b) and Q = 2^25 + 256 (sum of 4) are exact (multiples of 2 and 4 below 2^25 and
// 2^26), and so are U = 256 u and V = 256 v, |u|, |v| <= 765. t = U^2 + V^2 = 2^16 (u^2 + v^2) is an
// exact float (u^2 + v^2 < 2^24), and s = gx^2 + gy^2 = t / 2^15.
#define ROBERTS_BIAS 0x4B000000u
#if NV_PTX_FTZ
// Selector nibbles, lowest first: byte 0 of 0x4B000000, byte b of w, bytes 1 and 3 of 0x4B000000.
#define strip_byte_float256(w, b) as_float(strip_prmt((w), ROBERTS_BIAS, 0x7504u | ((b) << 4)))
#else
STRIP_INLINE float strip_byte_float256(uint w, int b) {
  return as_float(ROBERTS_BIAS | (((w >> (8 * b)) & 0xFFu) << 8));
}
#endif

// The input row's pair sums hp[k] = p(x0-1+k) + p(x0+k), k = 0 .. VEC, of the floats above.
STRIP_INLINE void strip_row_pairs(const uint a[NW], uint left, uint right, float hp[VEC + 1]) {
  float p[VEC + 2];
  p[0] = as_float(ROBERTS_BIAS | (left << 8));
#pragma unroll
  for (int k = 0; k < VEC; ++k) p[k + 1] = strip_byte_float256(a[k / 4], k % 4);
  p[VEC + 1] = as_float(ROBERTS_BIAS | (right << 8));
#pragma unroll
  for (int k = 0; k <= VEC; ++k) hp[k] = p[k] + p[k + 1];
}

// The output byte from U and V, as 0x4B0000qq. Magnitude: s = t / 2^15 clamped to 65280 as in
// strip_magnitude_bits (t to 255 * 2^23), and round(sqrt(s)) = round(sqrt(t) * sqrt(2) / 256) by one FMA
// into 2^23. The constant's rounding (2^-24) and the root's error (~2^-22) stay well inside the 2^-19
// margin of strip_magnitude_bits; the device test runs sobel_strip_roberts_pairs_check over every (u, v).
// l1: min(255, 2 max(|u|, |v|)) = min(255 * 128, max(|U|, |V|)) / 128, exact.
STRIP_INLINE uint strip_roberts_bits(float u, float v) {
#if OUTPUT == OUTPUT_L1
  return as_uint(fma(fmin(fmax(fabs(u), fabs(v)), 32640.0f), 0.0078125f, 8388608.0f));
#else
  const float t = fmin(fma(u, u, v * v), 2139095040.0f);              // 255 * 2^23
  return as_uint(fma(STRIP_SQRT(t), 0.00552427172802f, 8388608.0f));  // sqrt(2) / 256
#endif
}

// For the tests, on the device: the byte strip_roberts_bits makes for every (u, v) in [-765, 765]^2
// (out[(v + 765) * 1531 + u + 765]), from U = 256 u and V = 256 v as the kernel has them.
__kernel void sobel_strip_roberts_pairs_check(__global uchar* out) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x > 1530 || y > 1530) return;
  out[y * 1531 + x] = (uchar)strip_roberts_bits((float)(256 * (x - 765)), (float)(256 * (y - 765)));
}

// For the tests, on the device: strip's magnitude byte of every s in [0, n) (the lanes' helper), and
// the FP32 path's byte for every gradient pair (gx, gy) in [-1020, 1020]^2 (out[(gy + 1020) * 2041 +
// gx + 1020]), computed as sobel_strip computes it: s by FMUL and FMA, then the clamp, root and rounding.
__kernel void sobel_strip_magnitude_check(__global int* out, int n) {
  const int s = get_global_id(0);
  if (s < n) out[s] = (int)(strip_magnitude_bits(s) & 0xFF);
}

__kernel void sobel_strip_magnitude_pairs_check(__global uchar* out) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x > 2040 || y > 2040) return;
  const float gx = (float)(x - 1020), gy = (float)(y - 1020);
  out[y * 2041 + x] = (uchar)strip_magnitude_bits_f(fma(gx, gx, gy * gy));
}

// Output word m of a row's 8-bit result (pixels 4m .. 4m+3) from strip_out8's values, whose bits 8..23
// are zero (0x4B0000qq for the magnitude, below 256 for l1): the shifts push bits 24..31 out, so only
// b0 needs a mask.
STRIP_INLINE uint strip_pack4(uint b0, uint b1, uint b2, uint b3) {
  return (b0 & 0xFF) | (b1 << 8) | (b2 << 16) | (b3 << 24);
}

// The 8-bit outputs of the pixel pair in the biased lanes of x (gx) and y (gy): the low lanes' pixel in
// the low byte of *lo, the high lanes' in the low byte of *hi (the upper bytes are not zero for the
// magnitude; strip_pack4 drops them).
STRIP_INLINE void strip_out8(uint x, uint y, uint* lo, uint* hi) {
  x ^= 0x80008000u;
  y ^= 0x80008000u;
  const int x_lo = (short)x, x_hi = (int)x >> 16, y_lo = (short)y, y_hi = (int)y >> 16;
#if OUTPUT == OUTPUT_L1
  *lo = min(abs(x_lo) + abs(y_lo), 255u);
  *hi = min(abs(x_hi) + abs(y_hi), 255u);
#else
  *lo = strip_magnitude_bits(x_lo * x_lo + y_lo * y_lo);
  *hi = strip_magnitude_bits(x_hi * x_hi + y_hi * y_hi);
#endif
}

#if OUTPUT != OUTPUT_GRADIENTS
// Stores one row's VEC 8-bit outputs at out + i: one vector store when `whole`, else the first `count`
// pixels one by one so nothing is written past the row.
STRIP_INLINE void strip_store8(__global uchar* restrict out, int i, bool whole, int count, InWords o) {
  if (whole) {
#if ALIGNED
    *(__global in_words_t*)(out + i) = o.v;
#else
    vstore_v(as_uchar_v(o.v), 0, out + i);
#endif
  } else {
#pragma unroll
    for (int k = 0; k < VEC; ++k)
      if (k < count) out[i + k] = (uchar)(o.a[k / 4] >> (8 * (k % 4)));
  }
}
#endif

// Launched over (ceil(w / VEC), ceil(h / ROWS)) work-items. Instruction counts: see the comment at the
// top of this section.
__kernel void sobel_strip(__global const uchar* restrict src, __global out_t* restrict out_a,
                          __global out_t* restrict out_b, int w, int h, int mode, uint cval_bits PITCH_ARGS) {
  PITCH_START
  const int x0 = get_global_id(0) * VEC, y0 = get_global_id(1) * ROWS;
  if (x0 >= w || y0 >= h) return;
  const uchar cval = (uchar)cval_bits;
  uint a[ROWS + 2][NW], left[ROWS + 2], right[ROWS + 2];
  // Interior: every column x0-1 .. x0+VEC and row y0-1 .. y0+ROWS is inside the image, so no border.
  const bool interior = x0 >= 1 && x0 + VEC < w && y0 >= 1 && y0 + ROWS < h;
  if (interior) {
    // All ROWS + 2 rows' loads issue here, before any arithmetic (so in the SASS too: the
    // branch keeps ptxas from sinking them into the compute). Each row's address is one offset from
    // src rather than a chain of row steps: clang's alias analysis follows a pointer back only a few
    // steps, and past them loses restrict (so no non-coherent loads) and splits the 16-byte loads.
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r) {
      const int i = (y0 - 1 + r) * IN_STRIDE + x0;
#if ALIGNED
      strip_words(*(__global const in_words_t*)(src + i), a[r]);
#else
      strip_words(as_in_words(vload_v(0, src + i)), a[r]);
#endif
      left[r] = src[i - 1];
      right[r] = src[i + VEC];
    }
  } else {
    const int xl = border_index(x0 - 1, w, mode), xr = border_index(x0 + VEC, w, mode);
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r) {
      const StripRow q = strip_load_border(src, y0 - 1 + r, x0, xl, xr, w, h, mode, cval STRIDE_ARG);
      strip_words(q.mid, a[r]);
      left[r] = q.left;
      right[r] = q.right;
    }
  }
  const int count = min(VEC, w - x0);
#if (OUTPUT == OUTPUT_MAGNITUDE || OUTPUT == OUTPUT_L1) && MAG_FLOAT == 2
  // hp of input rows r and r+1 make Q row r (2x2 sums with top-left corner (x0-1+k, y0-1+r)); output row
  // r takes Q rows r and r+1. Arrays indexed by constants after the unrolling, so registers.
  float hp[ROWS + 2][VEC + 1], qs[ROWS + 1][VEC + 1];
  strip_row_pairs(a[0], left[0], right[0], hp[0]);
  strip_row_pairs(a[1], left[1], right[1], hp[1]);
#pragma unroll
  for (int k = 0; k <= VEC; ++k) qs[0][k] = hp[0][k] + hp[1][k];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    strip_row_pairs(a[r + 2], left[r + 2], right[r + 2], hp[r + 2]);
#pragma unroll
    for (int k = 0; k <= VEC; ++k) qs[r + 1][k] = hp[r + 1][k] + hp[r + 2][k];
    if (!interior && y0 + r >= h) break;
    uint q[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k)  // u = BR - TL, v = TR - BL
      q[k] = strip_roberts_bits(qs[r + 1][k + 1] - qs[r][k], qs[r][k + 1] - qs[r + 1][k]);
    InWords o;
#pragma unroll
    for (int j = 0; j < NW; ++j) o.a[j] = strip_pack_bytes(q[4 * j], q[4 * j + 1], q[4 * j + 2], q[4 * j + 3]);
    strip_store8(out_a, (y0 + r) * OUT_STRIDE + x0, interior || count == VEC, count, o);
  }
#elif OUTPUT == OUTPUT_MAGNITUDE && MAG_FLOAT
  // Each input row becomes floats and hd in the iteration that first needs it, so that only about
  // three rows of them are live at a time; arrays indexed by constants after the unrolling, so
  // registers. One row per iteration (not the two it reads) keeps the body small enough for clang
  // to unroll 16 x 16 fully; otherwise the arrays went to the stack.
  float p[ROWS + 2][VEC + 2], hd[ROWS + 2][VEC];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    strip_row_floats(a[r], left[r], right[r], p[r]);
#pragma unroll
    for (int k = 0; k < VEC; ++k) hd[r][k] = p[r][k + 2] - p[r][k];
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    strip_row_floats(a[r + 2], left[r + 2], right[r + 2], p[r + 2]);
#pragma unroll
    for (int k = 0; k < VEC; ++k) hd[r + 2][k] = p[r + 2][k + 2] - p[r + 2][k];
    if (!interior && y0 + r >= h) break;
    uint q[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
      // vd = bottom - top at columns k-1, k, k+1 (recomputed for neighbours: 3 subtracts the
      // compiler merges into one per column).
      const float gx = fma(2.0f, hd[r + 1][k], hd[r][k]) + hd[r + 2][k];
      const float gy =
          fma(2.0f, p[r + 2][k + 1] - p[r][k + 1], p[r + 2][k] - p[r][k]) + (p[r + 2][k + 2] - p[r][k + 2]);
      q[k] = strip_magnitude_bits_f(fma(gx, gx, gy * gy));
    }
    InWords o;
#pragma unroll
    for (int j = 0; j < NW; ++j) o.a[j] = strip_pack_bytes(q[4 * j], q[4 * j + 1], q[4 * j + 2], q[4 * j + 3]);
    strip_store8(out_a, (y0 + r) * OUT_STRIDE + x0, interior || count == VEC, count, o);
  }
#else
  // hs/hd of input rows r, r+1, r+2 rotate through three sets by constant indices (the loop unrolls,
  // so the rotation is renaming, not moves).
  uint hs_e[3][NW], hd_e[3][NW], hs_o[3][NW], hd_o[3][NW];
  strip_hsums(a[0], left[0], right[0], hs_e[0], hd_e[0], hs_o[0], hd_o[0]);
  strip_hsums(a[1], left[1], right[1], hs_e[1], hd_e[1], hs_o[1], hd_o[1]);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int t = r % 3, m = (r + 1) % 3, b = (r + 2) % 3;
    strip_hsums(a[r + 2], left[r + 2], right[r + 2], hs_e[b], hd_e[b], hs_o[b], hd_o[b]);
    if (!interior && y0 + r >= h) break;
    const int i = (y0 + r) * OUT_STRIDE + x0;
#if OUTPUT == OUTPUT_GRADIENTS
    union {
      grad_words_t v;
      uint a[VEC / 2];
    } gx, gy;
#pragma unroll
    for (int j = 0; j < NW; ++j) {
      // Biased lanes: gx by 4 * 0x2000, gy by the 0x8000 added here.
      const uint xe = hd_e[t][j] + (hd_e[m][j] << 1) + hd_e[b][j];
      const uint xo = hd_o[t][j] + (hd_o[m][j] << 1) + hd_o[b][j];
      const uint ye = hs_e[b][j] - hs_e[t][j] + 0x80008000u;
      const uint yo = hs_o[b][j] - hs_o[t][j] + 0x80008000u;
      // Memory order: pixels (4j, 4j+1) from the low lanes, (4j+2, 4j+3) from the high lanes.
      gx.a[2 * j] = ((xe & 0xFFFF) | (xo << 16)) ^ 0x80008000u;
      gx.a[2 * j + 1] = ((xe >> 16) | (xo & 0xFFFF0000u)) ^ 0x80008000u;
      gy.a[2 * j] = ((ye & 0xFFFF) | (yo << 16)) ^ 0x80008000u;
      gy.a[2 * j + 1] = ((ye >> 16) | (yo & 0xFFFF0000u)) ^ 0x80008000u;
    }
#if INTERLEAVED
    // Word 2m + h: pixel 2m + h's pair, from the low (h = 0) or high (h = 1) lanes of gx's and gy's word m.
    union {
      pair_words_t v;
      uint a[VEC];
    } pairs;
#pragma unroll
    for (int m = 0; m < VEC / 2; ++m) {
      pairs.a[2 * m] = (gx.a[m] & 0xFFFFu) | (gy.a[m] << 16);
      pairs.a[2 * m + 1] = (gx.a[m] >> 16) | (gy.a[m] & 0xFFFF0000u);
    }
    if (interior || count == VEC) {
      store_pairs(out_a, i, pairs.v);
    } else {
#pragma unroll
      for (int k = 0; k < VEC; ++k)
        if (k < count) *(__global uint*)(out_a + 2 * (i + k)) = pairs.a[k];
    }
#else
    if (interior || count == VEC) {
#if ALIGNED
      *(__global grad_words_t*)(out_a + i) = gx.v;
      *(__global grad_words_t*)(out_b + i) = gy.v;
#else
      vstore_v(as_short_v(gx.v), 0, out_a + i);
      vstore_v(as_short_v(gy.v), 0, out_b + i);
#endif
    } else {
#pragma unroll
      for (int k = 0; k < VEC; ++k)
        if (k < count) {
          out_a[i + k] = (short)(gx.a[k / 2] >> (16 * (k % 2)));
          out_b[i + k] = (short)(gy.a[k / 2] >> (16 * (k % 2)));
        }
    }
#endif  // INTERLEAVED
#else
    InWords o;
#pragma unroll
    for (int j = 0; j < NW; ++j) {
      const uint xe = hd_e[t][j] + (hd_e[m][j] << 1) + hd_e[b][j];
      const uint xo = hd_o[t][j] + (hd_o[m][j] << 1) + hd_o[b][j];
      const uint ye = hs_e[b][j] - hs_e[t][j] + 0x80008000u;
      const uint yo = hs_o[b][j] - hs_o[t][j] + 0x80008000u;
      uint p0, p1, p2, p3;
      strip_out8(xe, ye, &p0, &p2);
      strip_out8(xo, yo, &p1, &p3);
      o.a[j] = strip_pack4(p0, p1, p2, p3);
    }
    strip_store8(out_a, i, interior || count == VEC, count, o);
#endif
  }
#endif  // MAG_FLOAT
}
#endif  // ROWS

// ---------------------------------------------------------------------------------------------
// cpu_rows: for CPU devices (its own build, -D CPU_ROWS=1, so that a refused build still leaves the others').
#if CPU_ROWS
#include "sobel_cpu_rows.cl"
#endif
