// SPDX-License-Identifier: Apache-2.0
// ---------------------------------------------------------------------------------------------
// unrolled (not from a seed; the exp2 split between the special-function unit and an FMA polynomial
// follows FlashAttention-4's software exp2): every loop over the window unrolled at build time for one
// radius, so each tap is straight-line code with its spatial term a per-kernel constant, BLOCK_X
// horizontally adjacent outputs per work-item sharing each window row held in registers, and the
// colour values pre-scaled so the whole weight is one exp2:
//   w = exp2(s(dx, dy) - |p' - c'|^2),  p' = p sqrt(log2(e) / (2 sr^2)),
//   s = -(dx^2 + dy^2) log2(e) / (2 ss^2).
// Per tap and output (grey): d = p' - c', e = fma(d, -d, s), w = exp2(e), sum = fma(w, d, sum),
// wsum += w: four FP32 instructions and one exp2. The exp2 runs on the special-function unit
// (native_exp2; an eighth of the FP32 rate on NVIDIA: 16 against 128 lanes per SM) for most taps, and
// for SOFT_EXP of every 16 (tap, output) pairs on the FMA pipe instead (soft_exp2: 3 FADD, 3 FFMA,
// 1 integer op), so that neither the SFU nor the instruction issue alone bounds the grey filter.
//
// Colour (EXPANDED=1): the difference form costs 3 FADD + 3 FFMA for the exponent. Expanded,
//   -|p' - c'|^2 = q_p + q_c + 2 c'.p',  q = -|p'|^2 computed once per tile pixel (a fourth plane),
// it is e = fma(2c'_r, p'_r, fma(2c'_g, p'_g, fma(2c'_b, p'_b, q_p + s))): 1 FADD + 3 FFMA. The centre's
// own q_c is left out: it is the same for every tap of one output, so its factor exp2(q_c) cancels in
// sum(w p') / sum(w), and each weight comes out as w exp2(-q_c) (the centre tap's own: exp2(-q_c)).
// Keeping it would cost an FADD (q_c + s) per output and distinct spatial term of a window row, ~0.4 a tap.
// The colours are centred, p' = (p - 128) scale, so that exp2(-q_c) = exp2(|c'|^2) stays small (see
// Accuracy). The sums take w p' instead of w d. With the MUFU and the 3 FFMA + 1 FADD of the sums, 9
// instructions a tap instead of 11. The terms cancel, so the host
// builds it only where they are small (see Accuracy).
//
// Colour, INT_EXP=1 (with EXPANDED): the colour term from integers, so that the FMA pipe, which holds the kernel
// (see UR_EXP2 below), loses three of its eight instructions a tap. With the tile's packed bytes p, the
// output's packed bytes c and b_c = -floor(|c|^2 / 2), one dp4a gives x = c.p + b_c, and one IADD3 (LEA: the ALU
// pipe) x + x + (2^23 + 2^22 - |p|^2), a fifth tile plane, the bits of the float 2^23 + 2^22 - |p - c|^2 + (|c|^2
// mod 2), exact: the term lies in [-195075, 1]. Then e = fma(that, k, s - (2^23 + 2^22) k), k = scale^2; the
// (|c|^2 mod 2) k of each output cancels as q_c does. Per tap: dp4a, IADD3, FFMA, MUFU and the four sums.
//
// Grey (TABLE_TAPS > 0): TABLE_TAPS of every 16 (tap, output) pairs take the weight from a table
// instead of an exp2, so that the SFU is not what bounds the grey filter: w = R[p - c] * S(dx, dy), with
// R[k] = exp2(-(k scale)^2) for k in -255..255 (511 floats the work-group computes into local memory,
// exp2 of the same float exponent the exp2 taps use) and S(dx, dy) = exp2(s) per work-item. A table tap
// is IADD3 (the entry's address from the pixel's byte offset, a second int tile plane, and the
// centre's), LDS, FMUL, and the two sums: 5 issue slots like an exp2 tap, with the LDS on the MIO pipe
// instead of MUFU.EX2 on the 16-lane SFU. Entries are read at data-dependent addresses, so a warp's
// lookups can conflict in the banks (worse on noisy images): the share is a tunable. With tables the
// sums are of w p' (not w d) for every tap, so neither kind of tap needs the difference it does not
// use.
//
// Build options (besides CHANNELS): RADIUS, LOCAL_X, LOCAL_Y (the work-group shape), BLOCK_X (outputs
// per work-item in x), ROWS (output rows per work-item, LOCAL_Y apart), SOFT_EXP (0..16), CLAMP_EXP
// (1 when an exponent can fall below -125, which soft_exp2's bit arithmetic cannot represent),
// EXPANDED (0 or 1), TABLE_TAPS (0..16 - SOFT_EXP, grey only).
// Built with -cl-denorms-are-zero, and the SFU's exp2 is border.cl's fast_exp2: on NVIDIA the .ftz
// instruction, one MUFU.EX2 (native_exp2 came out as ex2.approx.f32 plus a three-instruction subnormal
// fix-up, ~900 instructions per pixel in all where clang's build of the same code has ~500).
//
// Accuracy (the analysis at the top of this file; w_i' = w_i (1 + e_i)):
//  - The host rounds the colour scale to 16 significant bits, so p' = p * scale is exact for p <= 255
//    (8 + 16 bits) and so is d' = (p - c) * scale; e = fma(d', -d', s) is then rounded once. What
//    remains is the scale's own rounding, |eta| <= 2^-16: the range exponent E_i = |d'|^2 becomes
//    E_i (1 + eta)^2, a relative weight error |e_i| <= 2 eta ln(2) E_i = 2.12e-5 E_i. With w_i <= S_i 2^-E_i
//    (S_i the spatial weight) and E 2^-E <= 0.531, |v' - v| <= 255 sum(w_i |e_i|) / sum(w) <=
//    255 * 2.12e-5 * 0.531 * sum(S_i) = 2.87e-3 sum(S_i) (sum(w) >= 1, the centre's weight):
//    <= 0.12 for the 9x9 window at ss = 3 (sum(S_i) = 41.6), <= 0.83 in the worst case the variant
//    accepts (radius 8, every S_i = 1: 288 taps; a loose bound, it takes |p_i - v| = 255 for all).
//  - native_exp2: NVIDIA's ex2.approx.ftz is within a few ulp (taken here as a relative error below
//    2^-20; PoCL computes exp2): 255 * 2^-20 < 3e-4.
//  - soft_exp2: a degree-3 minimax polynomial for 2^f on [-0.5, 0.5], relative error 7.5e-5 measured
//    in float over the interval (bilateral_test.cpp, UnrolledSoftExp2, repeats the arithmetic): 0.02.
//    Clamping the exponent at -125 raises weights below 2^-125 to ~2^-125: nothing next to the centre's 1.
//  - EXPANDED: with the colours centred (|p'| <= 128 scale a channel) and E = colours * 128^2 scale^2,
//    every partial sum of the exponent q_p + s + 2 c'.p' is at most M = 3 E + S_max in magnitude (S_max =
//    2 r^2 log2(e) / (2 ss^2)). It is rounded 7 times (q_p: 3, q_p + s, 3 fma), each by at most 2^-24 (2 M),
//    and the centre tap's exp2(-q_c) inherits q_c's 3 roundings: each weight against the centre's is off by
//    a relative 20 * 2^-24 * M * ln(2) at most. The host builds it only where colours * 255^2 scale^2 + S_max
//    <= 256 (colour with sr >= ~24 at the usual ss), so M <= 256 (3 E is 0.76 of the first term): e < 2.1e-4,
//    255 e / (1 - e) < 0.06. Every weight carries the factor exp2(-q_c) = exp2(|c'|^2) <= 2^E <= 2^65, so
//    the sums stay far inside float's range and the centre's weight, as in the analysis above, is >= 1.
//  - INT_EXP: the colour term is exact, so the weights' only new error is the constant s - (2^23 + 2^22) k, rounded
//    twice (the product, then the difference). Where the expanded form is built k <= 256 / 195075, so that product is
//    below 16514 and each rounding at most 2^-10: an exponent off by at most 2^-9, a relative weight error below
//    1.36e-3, common to the taps of one spatial offset: 255 e / (1 - e) < 0.35. The FMA's own rounding of e
//    (|e| <= 259, 2^-16) and k's (2^-24 relative) add less than 1e-4. It replaces the expanded form's 0.06, and its
//    weights are at most 2^(k) (no centre factor): |v' - v| < 0.35 + 0.08 + 0.02 < 1.
// Together |v' - v| < 0.92 < 1 (0.2 at the bench's 9x9, ss = 3): the +-1 contract holds.
#ifdef RADIUS

#ifndef EXPANDED
#define EXPANDED 0
#endif
#ifndef TABLE_TAPS
#define TABLE_TAPS 0
#endif
#define UR_DIAMETER (2 * RADIUS + 1)
#define UR_COLOURS (CHANNELS == 4 ? 3 : 1)
#define UR_TABLE (CHANNELS == 1 && TABLE_TAPS > 0)
// The colours, then q = -|p'|^2 when EXPANDED (INT_EXP: 2^23 + 2^22 - |p|^2 as float bits, then the packed bytes),
// then the grey byte offsets 4p when UR_TABLE.
#if !defined(INT_EXP) || !EXPANDED || CHANNELS != 4
#undef INT_EXP
#define INT_EXP 0
#endif
#define UR_PLANES (UR_COLOURS + EXPANDED + UR_TABLE + INT_EXP)
#define UR_TILE_W (LOCAL_X * BLOCK_X + 2 * RADIUS)  // tile columns in pixels
#define UR_STRIDE (((UR_TILE_W + 3) / 4) * 4)       // floats per tile row: float4-aligned rows
#define UR_TILE_H (LOCAL_Y * ROWS + 2 * RADIUS)
#define UR_PLANE (UR_STRIDE * UR_TILE_H)  // one colour plane of the tile
#define UR_SEG (BLOCK_X + 2 * RADIUS)     // window-row pixels a work-item reads per row
// Row segments are read with the widest aligned vector loads: a segment starts at tile column
// BLOCK_X * local_x, so float4 when BLOCK_X is a multiple of 4.
#if BLOCK_X % 4 == 0
#define UR_VW 4
#elif BLOCK_X % 2 == 0
#define UR_VW 2
#else
#define UR_VW 1
#endif
#define UR_NV ((UR_SEG + UR_VW - 1) / UR_VW)  // loads per segment (may read past UR_SEG, within the row)
#define UR_SEG_PAD (UR_NV * UR_VW)

// 2^x for -2^22 < x <= 100 on FMA-pipe instructions (EXPANDED's exponents reach 65): x = j + f with
// j = round(x) and f in [-0.5, 0.5], 2^f by a degree-3 polynomial (relative error 7.5e-5), 2^j added into
// the exponent bits. Adding 1.5 * 2^23 leaves round(x) in the low mantissa bits of t, and t << 23 moves
// them into the exponent field (the constant's own bits shift out; a negative j wraps round).
inline float soft_exp2(float x) {
#if CLAMP_EXP
  x = fmax(x, -125.0f);
#endif
  const float t = x + 12582912.0f;
  const float f = x - (t - 12582912.0f);
#if SAMPLE_BITS == 16
  const float p = EXP2_POLY5(f);
#else
  const float p = fma(fma(fma(0x1.c3f76p-5f, f, 0x1.f0de1ap-3f), f, 0x1.62f31ap-1f), f, 0x1.fff692p-1f);
#endif
  return as_float(as_uint(p) + (as_uint(t) << 23));
}

// On the H100 the FP32 RGBA build issues at ~71% of the SM's rate, and neither the SFU (all weights from an FFMA
// instead: 5% slower), the tile's global loads (none: no faster), nor registers (clang's 64-register code at twice
// the warps: 2.7% slower) is what holds it, but its FMA-pipe stream: hence INT_EXP.
// Which exp2 the (tap, output) pair number u uses: SOFT_EXP of every 16, spread out; the TABLE_TAPS
// slots at the other end of the 16 take the table instead (UR_IS_TABLE).
#define UR_EXP2(u, x) ((((u)*5) % 16 < SOFT_EXP) ? soft_exp2(x) : fast_exp2(x))
#define UR_IS_TABLE(u) (((u)*5) % 16 >= 16 - TABLE_TAPS)

// fma(d, -d, s). On NVIDIA through PTX with .ftz: under -cl-denorms-are-zero the driver emits the
// negation as neg.ftz but fma() as fma.rn without .ftz, which ptxas cannot merge, so each tap paid a
// separate FADD for -d; with both .ftz the negation folds into the FFMA's operand.
inline float ur_exponent(float d, float s) {
#if NV_PTX_FTZ
  float e;
  asm("{.reg .f32 n; neg.ftz.f32 n, %1; fma.rn.ftz.f32 %0, n, %1, %2;}" : "=f"(e) : "f"(d), "f"(s));
  return e;
#else
  return fma(d, -d, s);
#endif
}

// sum of the four byte products of a and b, plus acc (modulo 2^32): one IDP.4A on NVIDIA.
inline uint ur_dot4(uint a, uint b, uint acc) {
#if NV_PTX_FTZ
  uint r;
  asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
#else
  return acc + (a & 0xFFu) * (b & 0xFFu) + ((a >> 8) & 0xFFu) * ((b >> 8) & 0xFFu) +
         ((a >> 16) & 0xFFu) * ((b >> 16) & 0xFFu) + (a >> 24) * (b >> 24);
#endif
}

#if SAMPLE_BITS == 16
// 16-bit samples: the tile holds the samples themselves, 2^23 + v - 2^23 (exact, no int-to-float conversion), and
// each tap scales the exact difference p - c before squaring it, as cpu_rows does (bilateral_cpu_rows.cl): scaled
// 16-bit samples are not exact in float. The host builds neither EXPANDED (its cancellation error, 2.1e-4 of a
// weight, times 65535), INT_EXP (bytes) nor the grey table (an entry per 8-bit difference) for them.
#if EXPANDED || INT_EXP || UR_TABLE
#error "16-bit samples take the difference form alone"
#endif
inline void ur_store_pixel(__local float* tile, int at, pix_t pixel, float scale, float offset) {
  (void)scale;
  (void)offset;
#if CHANNELS == 4
  tile[at] = as_float(0x4B000000u | pixel.x) - 8388608.0f;
  tile[UR_PLANE + at] = as_float(0x4B000000u | pixel.y) - 8388608.0f;
  tile[2 * UR_PLANE + at] = as_float(0x4B000000u | pixel.z) - 8388608.0f;
#else
  tile[at] = as_float(0x4B000000u | pixel) - 8388608.0f;
#endif
}
#else
// Channel `channel` of a pixel times the colour scale, into a tile plane. No int-to-float conversion
// (those also run at an eighth of the FP32 rate on NVIDIA): 2^23 + v has v in its low mantissa bits, and
// fma((2^23 + v), scale, -2^23 scale) = v scale exactly, since v scale is exact in float (scale has 16
// significant bits) and fma rounds once.
inline void ur_store_pixel(__local float* tile, int at, uint pixel, float scale, float offset) {
  float q = 0.0f;
#pragma unroll
  for (int ch = 0; ch < UR_COLOURS; ++ch) {
    const float byte = as_float(0x4B000000u | ((pixel >> (8 * ch)) & 0xFFu));
#if EXPANDED
    // Centred, (p - 128) scale: the subtraction is exact (2^23 + 128 is a float) and so is the product.
    (void)offset;
    const float v = (byte - 8388736.0f) * scale;
#else
    const float v = fma(byte, scale, offset);
#endif
    tile[ch * UR_PLANE + at] = v;
    q = fma(v, -v, q);
  }
#if INT_EXP
  // 2^23 + 2^22 - |p|^2 as float bits, and the packed colours: with them one dp4a and one IADD3 make the
  // float 2^23 + 2^22 - |p - c|^2 (+ 0 or 1 per output) exactly.
  (void)q;
  const uint rgb = pixel & 0xFFFFFFu;
  tile[UR_COLOURS * UR_PLANE + at] = as_float(0x4B400000u - ur_dot4(rgb, rgb, 0u));
  tile[(UR_COLOURS + 1) * UR_PLANE + at] = as_float(rgb);
#elif EXPANDED
  tile[UR_COLOURS * UR_PLANE + at] = q;
#endif
#if UR_TABLE
  tile[(UR_PLANES - 1) * UR_PLANE + at] = as_float(4u * (pixel & 0xFFu));
#endif
}
#endif

// Loads a window-row segment of one colour plane, starting at `row`, into registers.
inline void ur_load_segment(__local const float* row, float* seg) {
#pragma unroll
  for (int v = 0; v < UR_NV; ++v) {
#if UR_VW == 4
    const float4 q = ((__local const float4*)row)[v];
    seg[4 * v] = q.x;
    seg[4 * v + 1] = q.y;
    seg[4 * v + 2] = q.z;
    seg[4 * v + 3] = q.w;
#elif UR_VW == 2
    const float2 q = ((__local const float2*)row)[v];
    seg[2 * v] = q.x;
    seg[2 * v + 1] = q.y;
#else
    seg[v] = row[v];
#endif
  }
}

#if SAMPLE_BITS == 16
// (16-bit pixels are put together where they are stored.)
#else
// The stored pixel: the rounded colours, and for RGBA the centre's alpha.
inline pix_t ur_output(uint q, __global const pix_t* src, int at) {
#if CHANNELS == 4
  return q | (src[at] & 0xFF000000u);
#else
  (void)src;
  (void)at;
  return (pix_t)q;
#endif
}
#endif

// -D PITCHED=1 (not from a seed): the caller's views as they are (DeviceImage::view), rows in_stride and out_stride
// pixels apart from pixel in_off and out_off on, where a packed build needs a copy in and out (+19% of a 1080p call
// on the H100). The strides and offsets are the last arguments; the aligned vector stores need the input's and the
// output's positions both aligned. Without it the code is the packed build's token for token after preprocessing.
#if PITCHED
#define UR_PITCH_ARGS , int in_stride, int out_stride, int in_off, int out_off
#define UR_PITCH_START \
  src += in_off;       \
  dst += out_off;
#define UR_IN_STRIDE in_stride
#define UR_DECLARE_OUT_AT const int out_at = y * out_stride + x0;
#define UR_OUT_AT out_at
#define UR_ALIGNED ((in_off + at) % 4 == 0 && (out_off + out_at) % 4 == 0)
#define UR_DECLARE_OUT_ROW const int out_row = y * out_stride;
#define UR_OUT_INDEX(at_m) (at_m - row + out_row)
#else
#define UR_PITCH_ARGS
#define UR_PITCH_START
#define UR_IN_STRIDE w
#define UR_DECLARE_OUT_AT
#define UR_OUT_AT at
#define UR_ALIGNED at % 4 == 0
#define UR_DECLARE_OUT_ROW
#define UR_OUT_INDEX(at_m) at_m
#endif

#define UR_STEPS_X ((UR_TILE_W + LOCAL_X - 1) / LOCAL_X)
#define UR_STEPS_Y ((UR_TILE_H + LOCAL_Y - 1) / LOCAL_Y)

__kernel __attribute__((reqd_work_group_size(LOCAL_X, LOCAL_Y, 1))) void bilateral_unrolled(
    __global const pix_t* src, __global pix_t* dst, int w, int h, int mode, uint cval_bits, float range_scale,
    float inv_range_scale, float spatial_log2 UR_PITCH_ARGS) {
  UR_PITCH_START
  // The tile's planes (colours scaled by range_scale, then q when EXPANDED), border applied; declared
  // as float4 for the alignment of the vector loads (UR_PLANE is a multiple of 4).
  __local float4 tile4[UR_PLANES * UR_PLANE / 4];
  __local float* tile = (__local float*)tile4;
  const int lx = get_local_id(0), ly = get_local_id(1);
#if UR_TABLE
  // R[k + 255] = exp2(-(k scale)^2); its address for pixel p and centre c is lut + 4p + (4 * 255 - 4c).
  __local float range_lut[511];
  for (int i = ly * LOCAL_X + lx; i < 511; i += LOCAL_X * LOCAL_Y) {
    const float k = (float)(i - 255) * range_scale;
    range_lut[i] = fast_exp2(-k * k);
  }
  // S(dx, dy) = exp2(s), by symmetry in |dx|, |dy| and their order; those no table tap reads are
  // dropped by the compiler.
  float spatial_w[RADIUS + 1][RADIUS + 1];
#pragma unroll
  for (int a = 0; a <= RADIUS; ++a)
#pragma unroll
    for (int b = 0; b <= a; ++b) spatial_w[a][b] = fast_exp2(-(float)(a * a + b * b) * spatial_log2);
#endif
  const int gx0 = get_group_id(0) * (LOCAL_X * BLOCK_X), gy0 = get_group_id(1) * (LOCAL_Y * ROWS);
  const int ox = gx0 - RADIUS, oy = gy0 - RADIUS;  // image position of tile (0, 0)
  const float offset = -8388608.0f * range_scale;
  if (ox >= 0 && oy >= 0 && ox + UR_TILE_W <= w && oy + UR_TILE_H <= h) {
    // Inside the image (all but the edge work-groups): straight loads, trip counts fixed at build time,
    // offsets within a row constant; only the last step in each direction may fall outside the tile.
    const bool last_x = lx + (UR_STEPS_X - 1) * LOCAL_X < UR_TILE_W;
#pragma unroll
    for (int i = 0; i < UR_STEPS_Y; ++i) {
      const int ty = ly + i * LOCAL_Y;
      if (i < UR_STEPS_Y - 1 || ty < UR_TILE_H) {
        __global const pix_t* row = src + (oy + ty) * UR_IN_STRIDE + ox + lx;
        const int at = ty * UR_STRIDE + lx;
#pragma unroll
        for (int j = 0; j < UR_STEPS_X; ++j)
          if (j < UR_STEPS_X - 1 || last_x)
            ur_store_pixel(tile, at + j * LOCAL_X, row[j * LOCAL_X], range_scale, offset);
      }
    }
  } else {
    for (int ty = ly; ty < UR_TILE_H; ty += LOCAL_Y) {
      const int yy = border_index(oy + ty, h, mode);
      for (int tx = lx; tx < UR_TILE_W; tx += LOCAL_X) {
        const int xx = border_index(ox + tx, w, mode);
#if SAMPLE_BITS == 16
        const pix_t p = (xx < 0 || yy < 0) ? (pix_t)cval_bits : src[yy * UR_IN_STRIDE + xx];
#else
        const uint p = (xx < 0 || yy < 0) ? cval_bits : (uint)src[yy * UR_IN_STRIDE + xx];
#endif
        ur_store_pixel(tile, ty * UR_STRIDE + tx, p, range_scale, offset);
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  const int x0 = gx0 + lx * BLOCK_X;
#pragma unroll 1
  for (int k = 0; k < ROWS; ++k) {
    const int ty = ly + k * LOCAL_Y;  // output row within the tile's outputs
    const int y = gy0 + ty;
    if (y >= h || x0 >= w) break;
    // Tile position of window row dy = 0, column dx = -RADIUS, of output 0.
    __local const float* base = tile + (ty + RADIUS) * UR_STRIDE + lx * BLOCK_X;
    // c: the centres; sum: of w d (difference form) or of w p' (EXPANDED); a = 2 c'.
    float c[UR_COLOURS][BLOCK_X], sum[UR_COLOURS][BLOCK_X], wsum[BLOCK_X];
#if INT_EXP
    uint cp[BLOCK_X], bc[BLOCK_X];  // packed centre colours, -floor(|c|^2 / 2)
    const float k = range_scale * range_scale, big = 12582912.0f * k;
#elif EXPANDED
    float a[UR_COLOURS][BLOCK_X];
#endif
#if UR_TABLE
    int centre_offset[BLOCK_X];  // 4 * 255 - 4c: with 4p, the byte offset of R[p - c] in range_lut
#endif
    // Window rows in the order dy = 0 (the centres come from it), 1..R, -1..-R.
#pragma unroll
    for (int j = 0; j < UR_DIAMETER; ++j) {
      const int dy = j <= RADIUS ? j : RADIUS - j;
      float seg[UR_PLANES][UR_SEG_PAD];
#pragma unroll
      for (int pl = 0; pl < UR_PLANES; ++pl) ur_load_segment(base + pl * UR_PLANE + dy * UR_STRIDE, seg[pl]);
      if (j == 0) {
#pragma unroll
        for (int m = 0; m < BLOCK_X; ++m) {
          // The centre tap: weight 1, difference 0 (EXPANDED: weight exp2(-q_c), q_c left out of the
          // exponents).
#if INT_EXP
          cp[m] = as_uint(seg[UR_COLOURS + 1][m + RADIUS]);
          bc[m] = 0u - (ur_dot4(cp[m], cp[m], 0u) >> 1);
          {
            const uint x = ur_dot4(cp[m], cp[m], bc[m]);
            wsum[m] = fast_exp2(fma(as_float(x + x + as_uint(seg[UR_COLOURS][m + RADIUS])), k, -big));
          }
#elif EXPANDED
          wsum[m] = fast_exp2(-seg[UR_COLOURS][m + RADIUS]);
#else
          wsum[m] = 1.0f;
#endif
#pragma unroll
          for (int ch = 0; ch < UR_COLOURS; ++ch) {
            c[ch][m] = seg[ch][m + RADIUS];
#if INT_EXP
            sum[ch][m] = wsum[m] * c[ch][m];
#elif EXPANDED
            a[ch][m] = 2.0f * c[ch][m];
            sum[ch][m] = wsum[m] * c[ch][m];
#else
            sum[ch][m] = UR_TABLE ? c[ch][m] : 0.0f;
#endif
          }
#if UR_TABLE
          centre_offset[m] = 4 * 255 - as_int(seg[UR_PLANES - 1][m + RADIUS]);
#endif
        }
      }
#pragma unroll
      for (int i = 0; i < UR_DIAMETER; ++i) {
        const int dx = i - RADIUS;
        if (dx == 0 && dy == 0) continue;
        const float s = -(float)(dx * dx + dy * dy) * spatial_log2;
#pragma unroll
        for (int m = 0; m < BLOCK_X; ++m) {
#if INT_EXP
          // e = -k |p - c|^2 + s (+ k per output when |c|^2 is odd: it cancels): the int sum is exact, the float
          // 2^23 + 2^22 + it exact, and the FMA rounds once; s - (2^23 + 2^22) k is rounded once per tap (see
          // Accuracy). Written out rather than as s - big: clang contracts it into one FFMA per offset, where s - big
          // takes an FMUL and an FADD (24 more SASS instructions in the 8x32 block-4 build).
          const uint x = ur_dot4(cp[m], as_uint(seg[UR_COLOURS + 1][m + i]), bc[m]);
          const float e = fma(as_float(x + x + as_uint(seg[UR_COLOURS][m + i])), k,
                              -(float)(dx * dx + dy * dy) * spatial_log2 - big);
          const float wgt = UR_EXP2((j * UR_DIAMETER + i) * BLOCK_X + m, e);
#pragma unroll
          for (int ch = 0; ch < UR_COLOURS; ++ch) sum[ch][m] = fma(wgt, seg[ch][m + i], sum[ch][m]);
#elif EXPANDED
          float e = fma(-(float)(dx * dx + dy * dy), spatial_log2, seg[UR_COLOURS][m + i]);  // q_p + s
#pragma unroll
          for (int ch = UR_COLOURS - 1; ch >= 0; --ch) e = fma(a[ch][m], seg[ch][m + i], e);
          const float wgt = UR_EXP2((j * UR_DIAMETER + i) * BLOCK_X + m, e);
#pragma unroll
          for (int ch = 0; ch < UR_COLOURS; ++ch) sum[ch][m] = fma(wgt, seg[ch][m + i], sum[ch][m]);
#elif UR_TABLE
          const int u = (j * UR_DIAMETER + i) * BLOCK_X + m;
          float wgt;
          if (UR_IS_TABLE(u)) {
            const int adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
            const float sw = spatial_w[max(adx, ady)][min(adx, ady)];
            wgt = sw * *(__local const float*)((__local const uchar*)range_lut +
                                               (as_int(seg[UR_PLANES - 1][m + i]) + centre_offset[m]));
          } else {
            wgt = UR_EXP2(u, ur_exponent(seg[0][m + i] - c[0][m], s));
          }
          sum[0][m] = fma(wgt, seg[0][m + i], sum[0][m]);
#else
          float d[UR_COLOURS];
          float e = s;
#pragma unroll
          for (int ch = 0; ch < UR_COLOURS; ++ch) {
            d[ch] = seg[ch][m + i] - c[ch][m];
#if SAMPLE_BITS == 16
            e = ur_exponent(d[ch] * range_scale, e);
#else
            e = ur_exponent(d[ch], e);
#endif
          }
          const float wgt = UR_EXP2((j * UR_DIAMETER + i) * BLOCK_X + m, e);
#pragma unroll
          for (int ch = 0; ch < UR_COLOURS; ++ch) sum[ch][m] = fma(wgt, d[ch], sum[ch][m]);
#endif
          wsum[m] += wgt;
        }
      }
    }
#if SAMPLE_BITS == 16
    // v = c + sum(w d) / sum(w) in sample units (the host passes inv_range_scale = 1: the tile is unscaled); SPEC
    // rounding: nearest, ties up, clamped to 0..65535. A store a pixel, those past the right edge to the last column,
    // last to first, as below.
    float q[UR_COLOURS][BLOCK_X];
#pragma unroll
    for (int m = 0; m < BLOCK_X; ++m) {
      const float r = inv_range_scale * native_recip(wsum[m]);
#pragma unroll
      for (int ch = 0; ch < UR_COLOURS; ++ch)
        q[ch][m] = clamp(floor(fma(sum[ch][m], r, c[ch][m] * inv_range_scale) + 0.5f), 0.0f, 65535.0f);
    }
    const int row = y * UR_IN_STRIDE;
    UR_DECLARE_OUT_ROW
#pragma unroll
    for (int m = BLOCK_X - 1; m >= 0; --m) {
      const int at_m = row + min(x0 + m, w - 1);
#if CHANNELS == 4
      dst[UR_OUT_INDEX(at_m)] = (ushort4)((ushort)q[0][m], (ushort)q[1][m], (ushort)q[2][m], src[at_m].w);
#else
      dst[UR_OUT_INDEX(at_m)] = (ushort)q[0][m];
#endif
    }
#else
    // v = c + sum(w d) / sum(w) (EXPANDED: 128 + sum(w p') / sum(w)), back in 8-bit units; SPEC rounding:
    // nearest, ties up, clamped. native_recip: NVIDIA's rcp.approx is within 1 ulp, nothing next to
    // the +-1 contract.
    uint q[BLOCK_X];
#pragma unroll
    for (int m = 0; m < BLOCK_X; ++m) {
      const float r = inv_range_scale * native_recip(wsum[m]);
      q[m] = 0;
#pragma unroll
      for (int ch = 0; ch < UR_COLOURS; ++ch) {
#if EXPANDED
        const float v = fma(sum[ch][m], r, 128.0f);  // the centring undone
#elif UR_TABLE
        const float v = sum[ch][m] * r;
#else
        const float v = fma(sum[ch][m], r, c[ch][m] * inv_range_scale);
#endif
        q[m] |= (uint)clamp(floor(v + 0.5f), 0.0f, 255.0f) << (8 * ch);
      }
    }
    // Every q[m] is stored unconditionally on both paths below: were an output's store conditional, the
    // compiler would sink its sums into that branch and keep every weight of the window alive to the
    // end (255 registers and spills).
    const int at = y * UR_IN_STRIDE + x0;
    UR_DECLARE_OUT_AT
#if BLOCK_X % 4 == 0
    if (gx0 + LOCAL_X * BLOCK_X <= w && UR_ALIGNED) {
      // The work-group's outputs all lie inside, aligned: one vector store per 4 outputs.
#pragma unroll
      for (int m = 0; m < BLOCK_X; m += 4) {
#if CHANNELS == 4
        const uint4 alpha = *(__global const uint4*)(src + at + m) & 0xFF000000u;
        *(__global uint4*)(dst + UR_OUT_AT + m) = (uint4)(q[m], q[m + 1], q[m + 2], q[m + 3]) | alpha;
#else
        *(__global uchar4*)(dst + UR_OUT_AT + m) =
            (uchar4)((uchar)q[m], (uchar)q[m + 1], (uchar)q[m + 2], (uchar)q[m + 3]);
#endif
      }
      continue;
    }
#endif
    // Outputs past the right edge go to the last column, last to first, so the real output of that
    // column (a smaller m, since x0 < w) is written after them and stays.
    const int row = y * UR_IN_STRIDE;
    UR_DECLARE_OUT_ROW
#pragma unroll
    for (int m = BLOCK_X - 1; m >= 0; --m) {
      const int at_m = row + min(x0 + m, w - 1);
      dst[UR_OUT_INDEX(at_m)] = ur_output(q[m], src, at_m);
    }
#endif
  }
}

#endif  // RADIUS
