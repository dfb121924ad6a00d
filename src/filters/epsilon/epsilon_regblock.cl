// SPDX-License-Identifier: Apache-2.0
// ---------------------------------------------------------------------------------------------
// regblock (not from a seed: register blocking and a float formulation for this compute-bound stencil).
// The filter costs (2r+1)^2 taps per output, so this variant cuts the instructions per tap:
// - Each work-item computes a RB_ROWS x RB_COLS block of outputs. The work-group's tile plus halo sits in
//   local memory (border applied while loading, every load of the tile issued at once); a work-item
//   reads each tile row it needs once into registers and applies it to every output row of its block
//   that the row reaches, so a tap's pixel and centre are registers, never loads.
// - Values are floats holding integers, so every operation is exact; the FP32 pipes have twice the
//   INT32 lanes on NVIDIA. A tap is d = v - c, w = (|d| <= T), acc += w * v: three FP32-pipe
//   instructions. RB_FORM picks how w is written (compilers map them differently): 0 select 1.0/0.0
//   and multiply-add, 1 saturate T + 1 - |d| to [0, 1], 2 predicated add.
// - The count rides in the accumulator: tile values carry a bias of 2^RB_SHIFT, so acc = s + n 2^RB_SHIFT
//   with s < 2^RB_SHIFT, exact while acc < 2^24 (r <= 7). Larger radii keep a separate count.
// - RB_FORM 3 (NVIDIA inline PTX; the host falls back to form 2 elsewhere): two outputs per register in
//   f16x2 lanes, so one instruction serves two taps. Tile words hold 1024 + p in each half (the bits are
//   0x6400 | p, no conversion), d = P - C is exact, w = sat(K - d*d) is 1.0 for |d| <= T and 0.0 else
//   (K the largest half <= (T+1)^2, which exceeds T^2), and the sums of w*d and of w are exact while
//   they stay integers <= 2048: the host uses this form only where max(T, 1) (2r+1)^2 <= 2048.
// Build options: RB_RADIUS, RB_COLS, RB_ROWS (outputs per work-item), RB_LX, RB_LY (work-group shape),
// RB_FORM, and RB_UNROLL: 1 unrolls the window's columns so they index registers (GPUs); 0 keeps that
// loop (CPUs, where PoCL's compile time grows steeply with the unrolled body and arrays cost nothing
// extra). Per-call values (size, T, border) stay kernel arguments.
// -D PITCHED=1 (not from a seed): the caller's views as they are (DeviceImage::view), rows in_stride and out_stride
// pixels apart from pixel in_off and out_off on, where a packed build needs a copy in and out (+26-48% of a 1080p call
// on the H100). The strides and offsets are the last arguments. Without it the code is the packed build's token for
// token after preprocessing, so tuned programs keep their meaning.
// 16-bit samples (SAMPLE_BITS=16; the host never builds form 3 for them): the same tile, blocks and work-group with
// integer words: a float is exact only below 2^24, and a 9x9 window of 16-bit samples already sums past it. A tap
// is in = (|v - c| <= T), acc += v where in, count += in (form 2 as a branch, the others as a mask); the sums stay
// below 4225 * 65535 < 2^32, and the division is an integer one, once an output.
#ifdef RB_RADIUS
#if PITCHED
#define RB_PITCH_ARGS , int in_stride, int out_stride, int in_off, int out_off
#define RB_PITCH_START \
  src += in_off;       \
  dst += out_off;
#define RB_IN_STRIDE in_stride
#define RB_OUT_STRIDE out_stride
#else
#define RB_PITCH_ARGS
#define RB_PITCH_START
#define RB_IN_STRIDE w
#define RB_OUT_STRIDE w
#endif
#define RB_R RB_RADIUS
#define RB_TW (RB_LX * RB_COLS + 2 * RB_R)  // tile width
#define RB_TH (RB_LY * RB_ROWS + 2 * RB_R)  // tile height
// The tile is filled in whole work-group strides (no bounds test in the fill: PoCL compiles a kernel
// with one very slowly), and its pitch is a multiple of 4 so 16-byte reads are aligned.
#define RB_FW ((RB_TW + RB_LX - 1) / RB_LX * RB_LX)  // filled width
#define RB_FH ((RB_TH + RB_LY - 1) / RB_LY * RB_LY)  // filled height
#define RB_TP ((RB_FW + 3) & ~3)                     // row pitch
#define RB_SPAN (RB_COLS + 2 * RB_R)                 // tile columns one work-item reads per row

#if SAMPLE_BITS == 16
#if CHANNELS == 4
#define RB_CHANNEL(p, k) ((uint)((p) >> (ulong)(16 * (k))) & 0xFFFFu)
#else
#define RB_CHANNEL(p, k) ((uint)(p))
#endif
#else
#if CHANNELS == 4
#define RB_CHANNEL(p, k) (((p) >> (uint)(8 * (k))) & 0xFFu)
#else
#define RB_CHANNEL(p, k) ((uint)(p))
#endif
#endif

#if SAMPLE_BITS == 16
typedef uint rb_word;
#define RB_AS_WORD(u) (u)
#define RB_VALUE(a, b) (a)
#if RB_FORM == 2
#define RB_TAP(acc, cnt, v, c)    \
  if (abs_diff((v), (c)) <= tu) { \
    acc += (v);                   \
    cnt += 1u;                    \
  }
#else
#define RB_TAP(acc, cnt, v, c)                                              \
  {                                                                         \
    const uint in_ = -(uint)(abs_diff((v), (c)) <= tu); /* 0 or all ones */ \
    acc += in_ & (v);                                                       \
    cnt -= in_;                                                             \
  }
#endif
#else
#if RB_FORM == 3
typedef uint rb_word;  // two halves
#define RB_AS_WORD(u) (u)
#define RB_H2_PAIRS (RB_COLS / 2)
// Pixels a and b as the halves (1024 + a, 1024 + b).
#define RB_VALUE(a, b) (0x64006400u | (a) | ((b) << 16))
inline uint h2_sub(uint a, uint b) {
  uint r;
  asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline uint h2_inside(uint d, uint k) {  // sat(k - d * d): 1.0 where |d| <= T, else 0.0
  uint r;
  asm("{\n\t.reg .b32 nd;\n\tneg.f16x2 nd, %1;\n\tfma.rn.sat.f16x2 %0, %1, nd, %2;\n\t}"  // neg folds into the fma
      : "=r"(r)
      : "r"(d), "r"(k));
  return r;
}
inline uint h2_fma(uint a, uint b, uint c) {
  uint r;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
inline uint h2_add(uint a, uint b) {
  uint r;
  asm("add.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline float2 h2_to_float2(uint a) {
  float lo, hi;
  asm("{\n\t.reg .b16 l, h;\n\tmov.b32 {l, h}, %2;\n\tcvt.f32.f16 %0, l;\n\tcvt.f32.f16 %1, h;\n\t}"
      : "=f"(lo), "=f"(hi)
      : "r"(a));
  return (float2)(lo, hi);
}
inline uint h2_from_float_rz(float f) {  // f rounded toward zero to a half, in both lanes
  ushort b;
  asm("cvt.rz.f16.f32 %0, %1;" : "=h"(b) : "f"(f));
  return (uint)b * 0x10001u;
}
#else
typedef float rb_word;
#define RB_AS_WORD(u) as_float(u)
#if RB_R <= 5
#define RB_SHIFT 15  // s <= 121 * 255 < 2^15; acc <= 121 * (2^15 + 255) < 2^24
#elif RB_R <= 7
#define RB_SHIFT 16  // s <= 225 * 255 < 2^16; acc <= 225 * (2^16 + 255) < 2^24
#endif
#ifdef RB_SHIFT
#define RB_VALUE(a, b) ((float)(a) + (float)(1 << RB_SHIFT))
#define RB_COUNT_W(cnt, w)
#define RB_COUNT_ONE(cnt)
#else
#define RB_VALUE(a, b) ((float)(a))
#define RB_COUNT_W(cnt, w) cnt += (w);
#define RB_COUNT_ONE(cnt) cnt += 1.0f;
#endif
#if RB_FORM == 2
#define RB_TAP(acc, cnt, v, c) \
  if (fabs((v) - (c)) <= tf) { \
    acc += (v);                \
    RB_COUNT_ONE(cnt)          \
  }
#else
#if RB_FORM == 1
#define RB_WEIGHT(d) clamp(t1 - fabs(d), 0.0f, 1.0f)  // d is an integer, so this is exactly 0 or 1
#else
#define RB_WEIGHT(d) (fabs(d) <= tf ? 1.0f : 0.0f)
#endif
#define RB_TAP(acc, cnt, v, c)                    \
  {                                               \
    const float w_ = RB_WEIGHT((v) - (c));        \
    acc = mad(w_, (v), acc); /* w * v is exact */ \
    RB_COUNT_W(cnt, w_)                           \
  }
#endif
#endif  // RB_FORM
#endif  // SAMPLE_BITS == 16

// (s + n/2) / n through a float division: (s + n/2 + 0.5) / n lies at least 0.5/n >= 1.1e-4 (n <= 65^2)
// from an integer, more than the 2.5 ulp (< 8e-5 below 256) OpenCL allows a division.
inline uint rb_round_div(uint s, uint n) {
  return convert_uint(((float)(s + (n >> 1)) + 0.5f) / (float)n);
}

__kernel __attribute__((reqd_work_group_size(RB_LX, RB_LY, 1))) void eps_regblock(__global const pix_t* src,
                                                                                  __global pix_t* dst, int w, int h,
                                                                                  int T, int mode,
                                                                                  uint cval_bits RB_PITCH_ARGS) {
  RB_PITCH_START
  __local uint4 tile4[RB_FH * RB_TP / 4];
  __local rb_word* tile = (__local rb_word*)tile4;
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int gx0 = get_group_id(0) * (RB_LX * RB_COLS), gy0 = get_group_id(1) * (RB_LY * RB_ROWS);
  const int x0 = gx0 + lx * RB_COLS, y0 = gy0 + ly * RB_ROWS;
#if SAMPLE_BITS == 16
  const pix_t cval = cval_pixel(cval_bits);
#else
  const pix_t cval = (pix_t)cval_bits;
#endif
  const int origin = ly * RB_ROWS * RB_TP + lx * RB_COLS;  // this work-item's window corner in the tile
  // Tiles inside the image (nearly all) skip border_index; the +1 covers the f16x2 form's right neighbour.
  const bool interior = gx0 - RB_R >= 0 && gx0 - RB_R + RB_FW + 1 <= w && gy0 - RB_R >= 0 && gy0 - RB_R + RB_FH <= h;
#if SAMPLE_BITS == 16
  const uint tu = (uint)T;
#else
#if RB_FORM == 3
  const uint kq = h2_from_float_rz((float)((T + 1) * (T + 1)));
#else
  const float tf = (float)T, t1 = (float)(T + 1);
#endif
#endif
  pix_t out[RB_ROWS][RB_COLS];
#pragma unroll
  for (int k = 0; k < RB_ROWS; ++k)
#pragma unroll
    for (int m = 0; m < RB_COLS; ++m) out[k][m] = 0;

      // Unrolled so no barrier sits in a loop (PoCL compiles such kernels very slowly).
#pragma unroll
  for (int ch = 0; ch < COLOUR_CHANNELS; ++ch) {
    if (ch > 0) barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read the previous channel's tile
      // Unrolled on GPUs, so every global load of the tile is in flight at once.
#if RB_UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int ty0 = 0; ty0 < RB_FH; ty0 += RB_LY) {
      const int ty = ty0 + ly, gy = gy0 - RB_R + ty;
      __global const pix_t* row = interior ? src + gy * RB_IN_STRIDE : border_row(src, gy, RB_IN_STRIDE, h, mode);
#if RB_UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
      for (int tx0 = 0; tx0 < RB_FW; tx0 += RB_LX) {
        const int tx = tx0 + lx, gx = gx0 - RB_R + tx;
        const uint a = RB_CHANNEL(interior ? row[gx] : row_pixel(row, gx, w, mode, cval), ch);
#if RB_FORM == 3
        const uint b = RB_CHANNEL(interior ? row[gx + 1] : row_pixel(row, gx + 1, w, mode, cval), ch);
#else
        const uint b = 0;
#endif
        tile[ty * RB_TP + tx] = RB_VALUE(a, b);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

#if RB_FORM == 3
    // Lane j of pair q is output column 2q + j.
    uint c[RB_ROWS][RB_H2_PAIRS], acc[RB_ROWS][RB_H2_PAIRS], cnt[RB_ROWS][RB_H2_PAIRS];
#pragma unroll
    for (int k = 0; k < RB_ROWS; ++k)
#pragma unroll
      for (int q = 0; q < RB_H2_PAIRS; ++q) {
        c[k][q] = tile[origin + (k + RB_R) * RB_TP + 2 * q + RB_R];
        acc[k][q] = cnt[k][q] = 0;
      }
#else
#if SAMPLE_BITS == 16
    uint c[RB_ROWS][RB_COLS], acc[RB_ROWS][RB_COLS], cnt[RB_ROWS][RB_COLS];
#else
    float c[RB_ROWS][RB_COLS], acc[RB_ROWS][RB_COLS];
#ifndef RB_SHIFT
    float cnt[RB_ROWS][RB_COLS];
#endif
#endif
#pragma unroll
    for (int k = 0; k < RB_ROWS; ++k)
#pragma unroll
      for (int m = 0; m < RB_COLS; ++m) {
        c[k][m] = tile[origin + (k + RB_R) * RB_TP + m + RB_R];
        acc[k][m] = 0.0f;
#ifndef RB_SHIFT
        cnt[k][m] = 0.0f;
#endif
      }
#endif

      // Tile row i reaches output rows k = i - 2r .. i of the block (window row dy = i - k). Not unrolled:
      // the body is already RB_ROWS * RB_COLS * (2r+1) taps, and more would overflow the instruction cache.
#pragma unroll 1
    for (int i = 0; i < RB_ROWS + 2 * RB_R; ++i) {
      rb_word v[RB_SPAN + 3];
#if RB_COLS % 4 == 0
      // origin and the pitch are multiples of 4: aligned 16-byte reads (the last may read pitch padding).
      __local const uint4* row4 = tile4 + (origin + i * RB_TP) / 4;
#pragma unroll
      for (int j = 0; j < (RB_SPAN + 3) / 4; ++j) {
        const uint4 q = row4[j];
        v[4 * j] = RB_AS_WORD(q.x);
        v[4 * j + 1] = RB_AS_WORD(q.y);
        v[4 * j + 2] = RB_AS_WORD(q.z);
        v[4 * j + 3] = RB_AS_WORD(q.w);
      }
#else
#if RB_UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
      for (int j = 0; j < RB_SPAN; ++j) v[j] = tile[origin + i * RB_TP + j];
#endif
#pragma unroll
      for (int k = 0; k < RB_ROWS; ++k) {
        if ((uint)(i - k) <= (uint)(2 * RB_R)) {  // the same for the whole work-group: a branch, not a mask
#if RB_FORM == 3
#pragma unroll
          for (int q = 0; q < RB_H2_PAIRS; ++q)
#pragma unroll
            for (int dx = 0; dx <= 2 * RB_R; ++dx) {
              const uint d = h2_sub(v[2 * q + dx], c[k][q]);
              const uint in = h2_inside(d, kq);
              acc[k][q] = h2_fma(in, d, acc[k][q]);
              cnt[k][q] = h2_add(cnt[k][q], in);
            }
#else
#if RB_UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
          for (int m = 0; m < RB_COLS; ++m)
#if RB_UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
            for (int dx = 0; dx <= 2 * RB_R; ++dx) RB_TAP(acc[k][m], cnt[k][m], v[m + dx], c[k][m])
#endif
        }
      }
    }

#pragma unroll
    for (int k = 0; k < RB_ROWS; ++k) {
#if RB_FORM == 3
#pragma unroll
      for (int q = 0; q < RB_H2_PAIRS; ++q) {
        // s = sum of d + n c, with c = the low 10 bits of each half of the centre word.
        const float2 sd = h2_to_float2(acc[k][q]), n = h2_to_float2(cnt[k][q]);
        const float2 cc = (float2)((float)(c[k][q] & 0x3FFu), (float)((c[k][q] >> 16) & 0x3FFu));
        const float2 s = mad(n, cc, sd);
        out[k][2 * q] |= (pix_t)(rb_round_div(convert_uint(s.x), convert_uint(n.x)) << (uint)(8 * ch));
        out[k][2 * q + 1] |= (pix_t)(rb_round_div(convert_uint(s.y), convert_uint(n.y)) << (uint)(8 * ch));
      }
#else
#pragma unroll
      for (int m = 0; m < RB_COLS; ++m) {
#ifdef RB_SHIFT
        const uint a = convert_uint(acc[k][m]);
        const uint n = a >> RB_SHIFT, s = a & ((1u << RB_SHIFT) - 1u);
#else
        const uint n = convert_uint(cnt[k][m]), s = convert_uint(acc[k][m]);
#endif
#if SAMPLE_BITS == 16
        out[k][m] |= (pix_t)round_div(s, n) << (16 * ch);
#else
        out[k][m] |= (pix_t)(rb_round_div(s, n) << (uint)(8 * ch));
#endif
      }
#endif
    }
  }

#pragma unroll
  for (int k = 0; k < RB_ROWS; ++k) {
    const int y = y0 + k;
    if (y >= h) break;
#pragma unroll
    for (int m = 0; m < RB_COLS; ++m) {
      const int x = x0 + m;
      if (x < w) {
#if CHANNELS == 4
#if SAMPLE_BITS == 16
        dst[y * RB_OUT_STRIDE + x] = out[k][m] | (src[y * RB_IN_STRIDE + x] & 0xFFFF000000000000ul);
#else
        dst[y * RB_OUT_STRIDE + x] = out[k][m] | (src[y * RB_IN_STRIDE + x] & 0xFF000000u);  // alpha copied
#endif
#else
        dst[y * RB_OUT_STRIDE + x] = out[k][m];
#endif
      }
    }
  }
}
#endif  // RB_RADIUS
