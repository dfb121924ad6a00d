// SPDX-License-Identifier: Apache-2.0
// cpu_bands' loops over one band (box_blur_cpu_bands.cl), for column sums of CPU_SUM_BITS (16 or 32) bits:
// included once for each, the functions named with the width (cpu_band_16, cpu_band_32).
#if CPU_SUM_BITS == 16
#define SUM ushort
#define SUM16 ushort16
#define CONVERT_SUM16 convert_ushort16
#define FN(name) name##_16
typedef ushort4 cpu_sum4_u16 __attribute__((aligned(2)));
typedef ushort8 cpu_sum8_u16 __attribute__((aligned(2)));
typedef ushort16 cpu_sum16_u16 __attribute__((aligned(2)));
#define SUM4_U cpu_sum4_u16
#define SUM8_U cpu_sum8_u16
#define SUM16_U cpu_sum16_u16
#else
#define SUM uint
#define SUM16 uint16
#define CONVERT_SUM16 convert_uint16
#define FN(name) name##_32
typedef uint4 cpu_sum4_u32 __attribute__((aligned(4)));
typedef uint8 cpu_sum8_u32 __attribute__((aligned(4)));
typedef uint16 cpu_sum16_u32 __attribute__((aligned(4)));
#define SUM4_U cpu_sum4_u32
#define SUM8_U cpu_sum8_u32
#define SUM16_U cpu_sum16_u32
#endif
// Unaligned loads of sums, widened to uint, and the 16-channel load and store of the vertical pass.
#define LOAD4(p) convert_uint4(*(__global const SUM4_U*)(p))
#define LOAD8(p) convert_uint8(*(__global const SUM8_U*)(p))
#define SUMS16(p) (*(__global SUM16_U*)(p))

// cs[i] += row[i] for the n channels of a row (row NULL: the constant row); `sign` -1 subtracts instead.
__attribute__((always_inline)) inline void FN(cpu_add_row)(__global SUM* cs, __global const uchar* row, int n,
                                                           uint cval_bits, int sign) {
  int i = 0;
  if (row) {
    for (; i + 16 <= n; i += 16) {
      const SUM16 v = CONVERT_SUM16(CPU_BYTES16(row + i));
      SUMS16(cs + i) = sign > 0 ? SUMS16(cs + i) + v : SUMS16(cs + i) - v;
    }
    for (; i < n; ++i) cs[i] = sign > 0 ? cs[i] + row[i] : cs[i] - row[i];
  } else {
    const SUM16 c = CONVERT_SUM16(cpu_const_vector(cval_bits));
    for (; i + 16 <= n; i += 16) SUMS16(cs + i) = sign > 0 ? SUMS16(cs + i) + c : SUMS16(cs + i) - c;
    for (; i < n; ++i) {
      const SUM c1 = (SUM)cpu_const_channel(cval_bits, i);
      cs[i] = sign > 0 ? cs[i] + c1 : cs[i] - c1;
    }
  }
}

// cs[i] += enter[i] - leave[i] (modulo 2^CPU_SUM_BITS: the sums themselves never wrap). Either row may be
// constant.
__attribute__((always_inline)) inline void FN(cpu_slide_rows)(__global SUM* cs, __global const uchar* enter,
                                                              __global const uchar* leave, int n, uint cval_bits) {
  if (enter == leave) return;  // the same row (a border), or both constant
  if (!enter || !leave) {      // near the constant border only: two passes
    FN(cpu_add_row)(cs, enter, n, cval_bits, 1);
    FN(cpu_add_row)(cs, leave, n, cval_bits, -1);
    return;
  }
  int i = 0;
  for (; i + 16 <= n; i += 16)
    SUMS16(cs + i) += CONVERT_SUM16(CPU_BYTES16(enter + i)) - CONVERT_SUM16(CPU_BYTES16(leave + i));
  for (; i < n; ++i) cs[i] += (SUM)enter[i] - (SUM)leave[i];
}

// The halo pixels around the w column sums at `sums`: r on the left, d - 1 - r on the right.
inline void FN(cpu_fill_halo_pixel)(__global SUM* sums, int x, int w, int d, int mode, uint cval_bits) {
  const int xx = border_index(x, w, mode);
  for (int c = 0; c < CHANNELS; ++c)
    sums[x * CHANNELS + c] = xx < 0 ? (SUM)(d * cpu_const_channel(cval_bits, c)) : sums[xx * CHANNELS + c];
}

inline void FN(cpu_fill_halo)(__global SUM* sums, int w, int d, int r, int mode, uint cval_bits) {
  for (int x = -r; x < 0; ++x) FN(cpu_fill_halo_pixel)(sums, x, w, d, mode, cval_bits);
  for (int x = w; x < w + d - 1 - r; ++x) FN(cpu_fill_halo_pixel)(sums, x, w, d, mode, cval_bits);
}

// One output row from the column sums of the scratch row whose window for column 0 starts at `win`.
__attribute__((always_inline)) inline void FN(cpu_emit_row)(__global const SUM* win, __global uchar* out, int w, int d,
                                                            cpu_rounding rd) {
#if CHANNELS == 4
  int x = 0;
#if CPU_SUM_BITS == 16
  // Narrow windows: each output sums its d column sums directly, 16 channels a 16-bit add (255 d^2 < 2^16), fewer
  // instructions than the running sum's up to d = 8 (as OpenCV's row pass does for d = 3 and 5).
  if (d <= 8) {
    for (; x + 4 <= w; x += 4) {
      ushort16 t = SUMS16(win + x * 4);
      for (int k = 1; k < d; ++k) t += SUMS16(win + (x + k) * 4);
      const uint16 o = convert_uint16(t);
      *(__global cpu_uchar16_u*)(out + x * 4) =
          CPU_TO_BYTES(16, ((uint16)(cpu_round8(o.lo, rd), cpu_round8(o.hi, rd))));
    }
  }
#endif
  uint4 s = 0;
  for (int k = 0; k < d; ++k) s += LOAD4(win + 4 * (x + k));
  // Four pixels a step: the running sum through their window deltas (one add a pixel on the critical path),
  // then two roundings of eight channels and one 16-byte store.
  for (; x + 4 <= w; x += 4) {
    __global const SUM* enter = win + (x + d) * 4;
    __global const SUM* leave = win + x * 4;
#if CPU_SUM_BITS == 16
    // The 16 deltas in one 16-bit subtraction: |delta| <= 255 d < 2^15.
    const int16 delta = convert_int16(as_short16(SUMS16(enter) - SUMS16(leave)));
#else
    const int16 delta = as_int16(SUMS16(enter) - SUMS16(leave));
#endif
    const uint4 o0 = s;
    const uint4 o1 = o0 + as_uint4(delta.s0123);
    const uint4 o2 = o1 + as_uint4(delta.s4567);
    const uint4 o3 = o2 + as_uint4(delta.s89ab);
    s = o3 + as_uint4(delta.scdef);
    const uint16 q = (uint16)(cpu_round8((uint8)(o0, o1), rd), cpu_round8((uint8)(o2, o3), rd));
    *(__global cpu_uchar16_u*)(out + x * 4) = CPU_TO_BYTES(16, q);
  }
  for (; x < w; ++x) {
    const uint8 q = cpu_round8((uint8)(s, s), rd);
    out[4 * x] = (uchar)q.s0, out[4 * x + 1] = (uchar)q.s1, out[4 * x + 2] = (uchar)q.s2, out[4 * x + 3] = (uchar)q.s3;
    s += LOAD4(win + 4 * (x + d)) - LOAD4(win + 4 * x);
  }
#else
  uint s = 0;
  for (int k = 0; k < d; ++k) s += win[k];
  int x = 0;
  // Eight pixels a step: an in-register prefix sum of their window deltas (three shifted adds), so the running
  // sum takes one add per eight pixels.
  for (; x + 8 <= w; x += 8) {
    const uint8 delta = LOAD8(win + x + d) - LOAD8(win + x);
    uint8 p = delta;
    p += (uint8)(0, p.s0, p.s1, p.s2, p.s3, p.s4, p.s5, p.s6);
    p += (uint8)(0, 0, p.s0, p.s1, p.s2, p.s3, p.s4, p.s5);
    p += (uint8)(0, 0, 0, 0, p.s0123);
    const uint8 o = (uint8)s + p - delta;
    s += p.s7;
    *(__global cpu_uchar8_u*)(out + x) = CPU_TO_BYTES(8, cpu_round8(o, rd));
  }
  for (; x < w; ++x) {
    out[x] = (uchar)cpu_round8((uint8)s, rd).s0;
    s += (uint)win[x + d] - (uint)win[x];
  }
#endif
}

// One band: output rows y0 .. y1 - 1.
__attribute__((always_inline)) inline void FN(cpu_band)(__global const uchar* src, __global uchar* dst, int w, int h,
                                                        int d, int mode, uint cval_bits, int y0, int y1,
                                                        __global SUM* cs, int lead, cpu_rounding rd, int in_stride,
                                                        int in_off, int out_stride, int out_off) {
  const int r = d / 2, n = w * CHANNELS;
  __global SUM* sums = cs + lead * CHANNELS;
  for (int i = 0; i < n; ++i) sums[i] = 0;
  for (int j = 0; j < d; ++j)
    FN(cpu_add_row)(sums, cpu_row(src, y0 - r + j, h, mode, in_stride, in_off), n, cval_bits, 1);
  for (int y = y0; y < y1; ++y) {
    if (y > y0) {
      __global const uchar* enter = cpu_row(src, y - r + d - 1, h, mode, in_stride, in_off);
      __global const uchar* leave = cpu_row(src, y - r - 1, h, mode, in_stride, in_off);
      FN(cpu_slide_rows)(sums, enter, leave, n, cval_bits);
    }
    FN(cpu_fill_halo)(sums, w, d, r, mode, cval_bits);
    FN(cpu_emit_row)(sums - r * CHANNELS, dst + ((long)out_off + (long)y * out_stride) * CHANNELS, w, d, rd);
  }
}

#undef SUM
#undef SUM16
#undef CONVERT_SUM16
#undef FN
#undef SUM4_U
#undef SUM8_U
#undef SUM16_U
#undef LOAD4
#undef LOAD8
#undef SUMS16
