// SPDX-License-Identifier: Apache-2.0
// cpu_bands for 16-bit samples (-D SAMPLE_BITS=16; box_blur_cpu_bands.cl has the 8-bit form and the plan): one
// work-item per band of rows, the vertical window sum of every column in a scratch row of uint (65535 d < 2^24 for
// the host's d <= 255), slid down a row at a time, then a running row window along it. Window sums stay below 2^32
// (65535 d^2 + d^2/2) and are rounded by round_div16 (box_blur.cl), 8 channels a vector. The border constant is
// one sample value for every channel. Same arguments and scratch layout as the 8-bit kernel.

typedef ushort8 cpu16_ushort8_u __attribute__((aligned(2)));
typedef ushort16 cpu16_ushort16_u __attribute__((aligned(2)));
typedef uint8 cpu16_uint8_u __attribute__((aligned(4)));
typedef uint16 cpu16_uint16_u __attribute__((aligned(4)));
// 16 samples widened to uint, and 16 (8) column sums, unaligned.
#define CPU16_SAMPLES16(p) convert_uint16(*(__global const cpu16_ushort16_u*)(p))
#define CPU16_SUMS16(p) (*(__global cpu16_uint16_u*)(p))
#define CPU16_SUMS8(p) (*(__global const cpu16_uint8_u*)(p))

// Row y's first sample, with the border applied to y; NULL for a constant row.
inline __global const ushort* cpu16_row(__global const ushort* src, int y, int h, int mode, int stride, int off) {
  const int yy = border_index(y, h, mode);
  return yy < 0 ? 0 : src + ((long)off + (long)yy * stride) * CHANNELS;
}

// round_div16 on eight window sums.
__attribute__((always_inline)) inline uint8 cpu16_round8(uint8 s, uint n, float inv_n) {
  const uint8 m = s + (uint8)(n >> 1);
  uint8 q = convert_uint8(convert_float8(m) * inv_n);
  const int8 rem = as_int8(m - q * n);
  q = select(q, q - 1, rem < 0);
  return select(q, q + 1, rem >= (int8)n);
}

// cs[i] += row[i] for the n channels of a row (row NULL: the constant row); `sign` -1 subtracts instead.
__attribute__((always_inline)) inline void cpu16_add_row(__global uint* cs, __global const ushort* row, int n,
                                                         uint cval, int sign) {
  int i = 0;
  if (row) {
    for (; i + 16 <= n; i += 16) {
      const uint16 v = CPU16_SAMPLES16(row + i);
      CPU16_SUMS16(cs + i) = sign > 0 ? CPU16_SUMS16(cs + i) + v : CPU16_SUMS16(cs + i) - v;
    }
    for (; i < n; ++i) cs[i] = sign > 0 ? cs[i] + row[i] : cs[i] - row[i];
  } else {
    for (; i < n; ++i) cs[i] = sign > 0 ? cs[i] + cval : cs[i] - cval;
  }
}

// cs[i] += enter[i] - leave[i] (modulo 2^32: the sums themselves never wrap). Either row may be constant.
__attribute__((always_inline)) inline void cpu16_slide_rows(__global uint* cs, __global const ushort* enter,
                                                            __global const ushort* leave, int n, uint cval) {
  if (enter == leave) return;  // the same row (a border), or both constant
  if (!enter || !leave) {
    cpu16_add_row(cs, enter, n, cval, 1);
    cpu16_add_row(cs, leave, n, cval, -1);
    return;
  }
  int i = 0;
  for (; i + 16 <= n; i += 16) CPU16_SUMS16(cs + i) += CPU16_SAMPLES16(enter + i) - CPU16_SAMPLES16(leave + i);
  for (; i < n; ++i) cs[i] += (uint)enter[i] - (uint)leave[i];
}

// The halo pixels around the w column sums at `sums`: r on the left, d - 1 - r on the right.
inline void cpu16_fill_halo_pixel(__global uint* sums, int x, int w, int d, int mode, uint cval) {
  const int xx = border_index(x, w, mode);
  for (int c = 0; c < CHANNELS; ++c) sums[x * CHANNELS + c] = xx < 0 ? (uint)d * cval : sums[xx * CHANNELS + c];
}

inline void cpu16_fill_halo(__global uint* sums, int w, int d, int r, int mode, uint cval) {
  for (int x = -r; x < 0; ++x) cpu16_fill_halo_pixel(sums, x, w, d, mode, cval);
  for (int x = w; x < w + d - 1 - r; ++x) cpu16_fill_halo_pixel(sums, x, w, d, mode, cval);
}

// One output row from the column sums of the scratch row whose window for column 0 starts at `win`.
__attribute__((always_inline)) inline void cpu16_emit_row(__global const uint* win, __global ushort* out, int w, int d,
                                                          float inv_n) {
  const uint n = (uint)d * (uint)d;
  int x = 0;
#if CHANNELS == 4
  uint4 s = 0;
  for (int k = 0; k < d; ++k) s += vload4(x + k, win);
  // Four pixels a step: the running sum through their window deltas, two roundings of eight channels.
  for (; x + 4 <= w; x += 4) {
    const int16 delta = as_int16(CPU16_SUMS16(win + (x + d) * 4) - CPU16_SUMS16(win + x * 4));
    const uint4 o0 = s;
    const uint4 o1 = o0 + as_uint4(delta.s0123);
    const uint4 o2 = o1 + as_uint4(delta.s4567);
    const uint4 o3 = o2 + as_uint4(delta.s89ab);
    s = o3 + as_uint4(delta.scdef);
    const uint16 q = (uint16)(cpu16_round8((uint8)(o0, o1), n, inv_n), cpu16_round8((uint8)(o2, o3), n, inv_n));
    *(__global cpu16_ushort16_u*)(out + x * 4) = convert_ushort16(q);
  }
  for (; x < w; ++x) {
    const uint8 q = cpu16_round8((uint8)(s, s), n, inv_n);
    vstore4(convert_ushort4(q.lo), x, out);
    s += vload4(x + d, win) - vload4(x, win);
  }
#else
  uint s = 0;
  for (int k = 0; k < d; ++k) s += win[k];
  // Eight pixels a step: an in-register prefix sum of their window deltas.
  for (; x + 8 <= w; x += 8) {
    const uint8 delta = CPU16_SUMS8(win + x + d) - CPU16_SUMS8(win + x);
    uint8 p = delta;
    p += (uint8)(0, p.s0, p.s1, p.s2, p.s3, p.s4, p.s5, p.s6);
    p += (uint8)(0, 0, p.s0, p.s1, p.s2, p.s3, p.s4, p.s5);
    p += (uint8)(0, 0, 0, 0, p.s0123);
    const uint8 o = (uint8)s + p - delta;
    s += p.s7;
    *(__global cpu16_ushort8_u*)(out + x) = convert_ushort8(cpu16_round8(o, n, inv_n));
  }
  for (; x < w; ++x) {
    out[x] = (ushort)cpu16_round8((uint8)s, n, inv_n).s0;
    s += win[x + d] - win[x];
  }
#endif
}

// Output rows row_begin + band * rows .. + rows - 1, below row_end; the arguments of the 8-bit kernel (those of its
// other roundings unused).
__kernel void box_cpu_bands(__global const ushort* src, __global ushort* dst, int w, int h, int d, int mode, uint cval,
                            int rows, __global uint* scratch, int cs_stride, int lead, float inv_n, float bias,
                            uint twice_half, uint magic, uint shift, int in_stride, int in_off, int out_stride,
                            int out_off, int row_begin, int row_end) {
  const int band = get_global_id(0);
  const int r = d / 2, n = w * CHANNELS, y0 = row_begin + band * rows, y1 = min(y0 + rows, row_end);
  __global uint* sums = scratch + (long)band * cs_stride + lead * CHANNELS;
  for (int i = 0; i < n; ++i) sums[i] = 0;
  for (int j = 0; j < d; ++j) cpu16_add_row(sums, cpu16_row(src, y0 - r + j, h, mode, in_stride, in_off), n, cval, 1);
  for (int y = y0; y < y1; ++y) {
    if (y > y0) {
      __global const ushort* enter = cpu16_row(src, y - r + d - 1, h, mode, in_stride, in_off);
      __global const ushort* leave = cpu16_row(src, y - r - 1, h, mode, in_stride, in_off);
      cpu16_slide_rows(sums, enter, leave, n, cval);
    }
    cpu16_fill_halo(sums, w, d, r, mode, cval);
    cpu16_emit_row(sums - r * CHANNELS, dst + ((long)out_off + (long)y * out_stride) * CHANNELS, w, d, inv_n);
  }
}
