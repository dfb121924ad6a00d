// SPDX-License-Identifier: Apache-2.0
// cpu_bands: the box blur written for CPU devices (PoCL maps each work-group to a thread and runs its
// work-item as plain code). One work-item, in a work-group of its own, per band of rows; no local memory, no
// barriers. It keeps the vertical window sum of every column in a scratch row of uint (its own part of
// `scratch`), slides them down one row at a time (+ the row entering, - the row leaving, d rows back and so
// still in the core's cache), then slides the row window along that scratch row to emit the output row.
// The loops along the row use explicit vectors (16 channels a step), so the code is SIMD whatever PoCL's
// work-group vectoriser does.
//
// Scratch row layout, in uint channels: `lead` pixels, then the w columns' sums, then the right halo and a
// spare pixel; the window of column x starts at pixel lead - r + x. The halo pixels are filled from the
// border each row (d * constant for the constant border).
// Per-call values (size, d, border, band height, layout, output rows) are arguments, so every call of one channel
// count shares one build. Rows are in_stride and out_stride pixels apart from pixel in_off and out_off on (a
// packed image: stride w, offset 0), so pitched views are read and written in place. The bands cover output rows
// row_begin .. row_end - 1 only (a part of the image, for a host call over several devices); their windows read the
// whole image.

// Channel i (of a row of pixels) of the constant pixel.
inline uint cpu_const_channel(uint cval_bits, int i) {
  return (cval_bits >> (8 * (i % CHANNELS))) & 0xFFu;
}

// 16 channels of constant pixels (a whole number of pixels, so the same at every multiple of 16).
inline uint16 cpu_const_vector(uint cval_bits) {
#if CHANNELS == 4
  return convert_uint16(as_uchar16((uint4)(cval_bits)));
#else
  return (uint16)(cval_bits & 0xFFu);
#endif
}

// Row y's first byte, with the border applied to y; NULL for a constant row.
inline __global const uchar* cpu_row(__global const uchar* src, int y, int h, int mode, int stride, int off) {
  const int yy = border_index(y, h, mode);
  return yy < 0 ? 0 : src + ((long)off + (long)yy * stride) * CHANNELS;
}

// Unaligned vector loads and stores: vloadn/vstoren of some widths come out as several narrower moves.
typedef uchar8 cpu_uchar8_u __attribute__((aligned(1)));
typedef uchar16 cpu_uchar16_u __attribute__((aligned(1)));
#define CPU_BYTES16(p) (*(__global const cpu_uchar16_u*)(p))

// How a window sum is rounded, (s + n/2) / n exactly: in FP32 (fused_blocks' round_pack: one FMA, exact for
// d <= 128), by box_blur.cl's magic_round_div (d <= 2047, kMaxFusedDiameter), or by dividing.
#define CPU_ROUND_FLOAT 0
#define CPU_ROUND_MAGIC 1
#define CPU_ROUND_DIVIDE 2

typedef struct {
  int how;
  float inv_n, bias;
  uint twice_half, magic, shift, n;
} cpu_rounding;

// Eight window sums rounded (0..255 in each lane). FP32: 1.5 * 2^23 + q has q in its low mantissa bits.
__attribute__((always_inline)) inline uint8 cpu_round8(uint8 s, cpu_rounding rd) {
  if (rd.how == CPU_ROUND_FLOAT)
    return as_uint8(fma(convert_float8(as_int8(s)), (float8)rd.inv_n, (float8)rd.bias) + 12582912.0f) - 0x4B400000u;
  if (rd.how == CPU_ROUND_MAGIC)
    return convert_uint8((convert_ulong8((s << 1) + rd.twice_half) * (ulong)rd.magic) >> (ulong)(32 + rd.shift));
  return (s + (rd.n >> 1)) / rd.n;
}

// Bytes of rounded means: min tells the compiler they fit, so they pack with saturating packs.
#define CPU_TO_BYTES(n, q) convert_uchar##n(min(q, (uint##n)255u))

// The band's loops, once with 16-bit column sums (d <= 128: 255 d fits, and the FP32 rounding) and once with
// 32-bit ones.
#define CPU_SUM_BITS 16
#include "box_blur_cpu_bands_sums.cl"
#undef CPU_SUM_BITS
#define CPU_SUM_BITS 32
#include "box_blur_cpu_bands_sums.cl"
#undef CPU_SUM_BITS

__kernel void box_cpu_bands(__global const uchar* src, __global uchar* dst, int w, int h, int d, int mode,
                            uint cval_bits, int rows, __global uint* scratch, int cs_stride, int lead, float inv_n,
                            float bias, uint twice_half, uint magic, uint shift, int in_stride, int in_off,
                            int out_stride, int out_off, int row_begin, int row_end) {
  const int band = get_global_id(0);
  const int y0 = row_begin + band * rows, y1 = min(y0 + rows, row_end);
  __global uint* cs = scratch + (long)band * cs_stride;
  cpu_rounding rd = {CPU_ROUND_FLOAT, inv_n, bias, twice_half, magic, shift, (uint)d * (uint)d};
  // One copy of the band's loops per rounding, each with its rounding inlined.
  if (d <= 128) {
    cpu_band_16(src, dst, w, h, d, mode, cval_bits, y0, y1, (__global ushort*)cs, lead, rd, in_stride, in_off,
                out_stride, out_off);
  } else if (d <= 2047) {
    rd.how = CPU_ROUND_MAGIC;
    cpu_band_32(src, dst, w, h, d, mode, cval_bits, y0, y1, cs, lead, rd, in_stride, in_off, out_stride, out_off);
  } else {
    rd.how = CPU_ROUND_DIVIDE;
    cpu_band_32(src, dst, w, h, d, mode, cval_bits, y0, y1, cs, lead, rd, in_stride, in_off, out_stride, out_off);
  }
}
