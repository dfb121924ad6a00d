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
// Per-call values (size, d, border, band height, layout) are arguments, so every call of one channel count
// shares one build. Rows are in_stride and out_stride pixels apart from pixel in_off and out_off on (a
// packed image: stride w, offset 0), so pitched views are read and written in place.

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

// cs[i] += row[i] for the n channels of a row (row NULL: the constant row).
inline void cpu_add_row(__global uint* cs, __global const uchar* row, int n, uint cval_bits) {
  int i = 0;
  if (row) {
    for (; i + 16 <= n; i += 16) vstore16(vload16(0, cs + i) + convert_uint16(vload16(0, row + i)), 0, cs + i);
    for (; i < n; ++i) cs[i] += row[i];
  } else {
    const uint16 c = cpu_const_vector(cval_bits);
    for (; i + 16 <= n; i += 16) vstore16(vload16(0, cs + i) + c, 0, cs + i);
    for (; i < n; ++i) cs[i] += cpu_const_channel(cval_bits, i);
  }
}

// cs[i] += enter[i] - leave[i] (modulo 2^32: the sums themselves never wrap). Either row may be constant.
inline void cpu_slide_rows(__global uint* cs, __global const uchar* enter, __global const uchar* leave, int n,
                           uint cval_bits) {
  if (enter == leave) return;  // the same row (a border), or both constant
  if (!enter || !leave) {
    // Near the constant border only: subtract the leaving row (or add the entering one) as a constant-aware
    // add of its negation, in two passes.
    cpu_add_row(cs, enter, n, cval_bits);
    int i = 0;
    if (leave) {
      for (; i + 16 <= n; i += 16) vstore16(vload16(0, cs + i) - convert_uint16(vload16(0, leave + i)), 0, cs + i);
      for (; i < n; ++i) cs[i] -= leave[i];
    } else {
      const uint16 c = cpu_const_vector(cval_bits);
      for (; i + 16 <= n; i += 16) vstore16(vload16(0, cs + i) - c, 0, cs + i);
      for (; i < n; ++i) cs[i] -= cpu_const_channel(cval_bits, i);
    }
    return;
  }
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    const uint16 in = convert_uint16(vload16(0, enter + i)), out = convert_uint16(vload16(0, leave + i));
    vstore16(vload16(0, cs + i) + in - out, 0, cs + i);
  }
  for (; i < n; ++i) cs[i] += (uint)enter[i] - (uint)leave[i];
}

// The halo pixels around the w column sums at `sums`: r on the left, d - 1 - r on the right.
inline void cpu_fill_halo_pixel(__global uint* sums, int x, int w, int d, int mode, uint cval_bits) {
  const int xx = border_index(x, w, mode);
  for (int c = 0; c < CHANNELS; ++c)
    sums[x * CHANNELS + c] = xx < 0 ? (uint)d * cpu_const_channel(cval_bits, c) : sums[xx * CHANNELS + c];
}

inline void cpu_fill_halo(__global uint* sums, int w, int d, int r, int mode, uint cval_bits) {
  for (int x = -r; x < 0; ++x) cpu_fill_halo_pixel(sums, x, w, d, mode, cval_bits);
  for (int x = w; x < w + d - 1 - r; ++x) cpu_fill_halo_pixel(sums, x, w, d, mode, cval_bits);
}

// Unaligned vector loads and stores: vloadn/vstoren of some widths come out as several narrower moves.
typedef uint4 cpu_uint4_u __attribute__((aligned(4)));
typedef uint8 cpu_uint8_u __attribute__((aligned(4)));
typedef uchar8 cpu_uchar8_u __attribute__((aligned(1)));
typedef uchar16 cpu_uchar16_u __attribute__((aligned(1)));
#define CPU_LOAD4(p) (*(__global const cpu_uint4_u*)(p))
#define CPU_LOAD8(p) (*(__global const cpu_uint8_u*)(p))

// How a window sum is rounded, (s + n/2) / n exactly: in FP32 (fused_blocks' round_pack: one FMA, exact for
// d <= 128), by box_blur.cl's magic_round_div (d <= 2047), or by dividing.
#define CPU_ROUND_FLOAT 0
#define CPU_ROUND_MAGIC 1
#define CPU_ROUND_DIVIDE 2

typedef struct {
  int how;
  float inv_n, bias;
  uint twice_half, magic, shift, n;
} cpu_rounding;

// Eight window sums rounded; the result's low byte of each lane is the output (higher bits are garbage).
__attribute__((always_inline)) inline uint8 cpu_round8(uint8 s, cpu_rounding rd) {
  if (rd.how == CPU_ROUND_FLOAT)
    return as_uint8(fma(convert_float8(as_int8(s)), (float8)rd.inv_n, (float8)rd.bias) + 12582912.0f);
  if (rd.how == CPU_ROUND_MAGIC)
    return convert_uint8((convert_ulong8((s << 1) + rd.twice_half) * (ulong)rd.magic) >> (ulong)(32 + rd.shift));
  return (s + (rd.n >> 1)) / rd.n;
}

// One output row from the window sums of the scratch row whose window for column 0 starts at `win`.
__attribute__((always_inline)) inline void cpu_emit_row(__global const uint* win, __global uchar* out, int w, int d,
                                                        cpu_rounding rd) {
#if CHANNELS == 4
  uint4 s = 0;
  for (int k = 0; k < d; ++k) s += CPU_LOAD4(win + 4 * k);
  int x = 0;
  // Four pixels a step: the running sum through their window deltas (one add a pixel on the critical path),
  // then two roundings of eight channels and one 16-byte store.
  for (; x + 4 <= w; x += 4) {
    __global const uint* enter = win + (x + d) * 4;
    __global const uint* leave = win + x * 4;
    const uint4 o0 = s;
    const uint4 o1 = o0 + (CPU_LOAD4(enter) - CPU_LOAD4(leave));
    const uint4 o2 = o1 + (CPU_LOAD4(enter + 4) - CPU_LOAD4(leave + 4));
    const uint4 o3 = o2 + (CPU_LOAD4(enter + 8) - CPU_LOAD4(leave + 8));
    s = o3 + (CPU_LOAD4(enter + 12) - CPU_LOAD4(leave + 12));
    const uint16 q = (uint16)(cpu_round8((uint8)(o0, o1), rd), cpu_round8((uint8)(o2, o3), rd));
    *(__global cpu_uchar16_u*)(out + x * 4) = convert_uchar16(q);
  }
  for (; x < w; ++x) {
    const uint8 q = cpu_round8((uint8)(s, s), rd);
    out[4 * x] = (uchar)q.s0, out[4 * x + 1] = (uchar)q.s1, out[4 * x + 2] = (uchar)q.s2, out[4 * x + 3] = (uchar)q.s3;
    s += CPU_LOAD4(win + 4 * (x + d)) - CPU_LOAD4(win + 4 * x);
  }
#else
  uint s = 0;
  for (int k = 0; k < d; ++k) s += win[k];
  int x = 0;
  // Eight pixels a step: an in-register prefix sum of their window deltas (three shifted adds), so the running
  // sum takes one add per eight pixels.
  for (; x + 8 <= w; x += 8) {
    const uint8 delta = CPU_LOAD8(win + x + d) - CPU_LOAD8(win + x);
    uint8 p = delta;
    p += (uint8)(0, p.s0, p.s1, p.s2, p.s3, p.s4, p.s5, p.s6);
    p += (uint8)(0, 0, p.s0, p.s1, p.s2, p.s3, p.s4, p.s5);
    p += (uint8)(0, 0, 0, 0, p.s0123);
    const uint8 o = (uint8)s + p - delta;
    s += p.s7;
    *(__global cpu_uchar8_u*)(out + x) = convert_uchar8(cpu_round8(o, rd));
  }
  for (; x < w; ++x) {
    out[x] = (uchar)cpu_round8((uint8)s, rd).s0;
    s += win[x + d] - win[x];
  }
#endif
}

// One band: rows y0 .. y0 + rows - 1.
__attribute__((always_inline)) inline void cpu_band(__global const uchar* src, __global uchar* dst, int w, int h, int d,
                                                    int mode, uint cval_bits, int y0, int rows, __global uint* cs,
                                                    int lead, cpu_rounding rd, int in_stride, int in_off,
                                                    int out_stride, int out_off) {
  const int r = d / 2, n = w * CHANNELS, y1 = min(y0 + rows, h);
  __global uint* sums = cs + lead * CHANNELS;
  for (int i = 0; i < n; ++i) sums[i] = 0;
  for (int j = 0; j < d; ++j) cpu_add_row(sums, cpu_row(src, y0 - r + j, h, mode, in_stride, in_off), n, cval_bits);
  for (int y = y0; y < y1; ++y) {
    if (y > y0)
      cpu_slide_rows(sums, cpu_row(src, y - r + d - 1, h, mode, in_stride, in_off),
                     cpu_row(src, y - r - 1, h, mode, in_stride, in_off), n, cval_bits);
    cpu_fill_halo(sums, w, d, r, mode, cval_bits);
    cpu_emit_row(sums - r * CHANNELS, dst + ((long)out_off + (long)y * out_stride) * CHANNELS, w, d, rd);
  }
}

__kernel void box_cpu_bands(__global const uchar* src, __global uchar* dst, int w, int h, int d, int mode,
                            uint cval_bits, int rows, __global uint* scratch, int cs_stride, int lead, float inv_n,
                            float bias, uint twice_half, uint magic, uint shift, int in_stride, int in_off,
                            int out_stride, int out_off) {
  const int band = get_global_id(0);
  __global uint* cs = scratch + (long)band * cs_stride;
  cpu_rounding rd = {CPU_ROUND_FLOAT, inv_n, bias, twice_half, magic, shift, (uint)d * (uint)d};
  // One copy of the band's loops per rounding, each with its rounding inlined.
  if (d <= 128) {
    cpu_band(src, dst, w, h, d, mode, cval_bits, band * rows, rows, cs, lead, rd, in_stride, in_off, out_stride,
             out_off);
  } else if (d <= 2047) {
    rd.how = CPU_ROUND_MAGIC;
    cpu_band(src, dst, w, h, d, mode, cval_bits, band * rows, rows, cs, lead, rd, in_stride, in_off, out_stride,
             out_off);
  } else {
    rd.how = CPU_ROUND_DIVIDE;
    cpu_band(src, dst, w, h, d, mode, cval_bits, band * rows, rows, cs, lead, rd, in_stride, in_off, out_stride,
             out_off);
  }
}
