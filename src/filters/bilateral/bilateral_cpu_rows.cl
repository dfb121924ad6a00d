// SPDX-License-Identifier: Apache-2.0
// cpu_rows: the bilateral filter written for CPU devices (PoCL maps each work-group to a thread and runs its
// work-item as plain code). One work-item, in a work-group of its own, per band of output rows; no local memory,
// no barriers. The band keeps the 2r+1 input rows its current output row's window covers in a ring of float rows
// (its own part of `scratch`), each scaled by the unrolled variant's colour scale and padded by the border, so the
// window loop reads them with no border test; entering the next output row replaces one ring row. Along the row
// it computes LANES outputs a step in floatLANES vectors (-D LANES=8|16), so the code is SIMD whatever PoCL's
// work-group vectoriser does: float16 is one AVX-512 register, half the instructions a pixel of float8's two
// AVX2 ones (PoCL emits ymm code for float8 even where the CPU has zmm). A window row's taps are one span
// (host-computed: the disk's chord), so skipped taps cost nothing, and the ring slot steps without a division.
//
// Per tap (grey): d = p' - c', e = fma(d, -d, s), w = exp2(e), sum = fma(w, p', sum), wsum += w, with
// p' = p * scale, scale = sqrt(log2(e) / (2 sr^2)) rounded to 16 bits (so p' and d are exact) and s the tap's
// spatial exponent (log2 of its weight; outside the disk's spans: not visited). Colour: d over R, G and B, e =
// s - |d|^2 (l2) or s - (|dR| + |dG| + |dB|)^2 (l1). exp2 is cpu_exp2: the unrolled variant's soft_exp2, whose
// error analysis (bilateral_unrolled.cl: relative error 7.5e-5, |v' - v| <= 0.02; the scale's rounding, <= 0.83
// in the worst case) carries over, since the weights are the same numbers: |v' - v| < 1.
//
// Ring row layout, in floats: plane k (R', G', B' or the grey p') of ring slot s of band b at
// scratch + ((b * (2r+1) + s) * planes + k) * stride; element i is column i - r, the border's value outside the
// image, zeros past column w + r (read by the last step's unused lanes: stride >= w + 2r + 16).
// Per-call values (size, radius, border, distance, the exp2's clamp, band height, layout, output rows) are arguments:
// one build per channel count and LANES. Rows are in_stride and out_stride pixels apart from pixel in_off and out_off
// on (a packed image: stride w, offset 0), so pitched views are read and written in place. The bands cover output
// rows row_begin .. row_end - 1 only (a part of the image, for a host call over several devices); their windows read
// the whole image.

#define CPU_PLANES (CHANNELS == 4 ? 3 : 1)

// Outputs a vector step (-D LANES=8|16): float16 fills a 512-bit register where the device has them (AVX-512).
#ifndef LANES
#define LANES 8
#endif
#define CPU_CAT_(a, b) a##b
#define CPU_CAT(a, b) CPU_CAT_(a, b)
#define floatL CPU_CAT(float, LANES)
#define uintL CPU_CAT(uint, LANES)
#define VLOADL CPU_CAT(vload, LANES)
#define VSTOREL CPU_CAT(vstore, LANES)

// 2^x, x <= 100, by bilateral_unrolled.cl's soft_exp2 (degree-3 polynomial, exponent bits added), LANES lanes
// at once. With `clamp` (a constant at every call) x is clamped at -125, below which its bit arithmetic fails (a
// weight of ~2^-125 next to the centre's ~1); the host leaves it out where no exponent gets there.
inline floatL cpu_exp2(floatL x, const int clamp) {
  if (clamp) x = fmax(x, -125.0f);
  const floatL t = x + 12582912.0f;
  const floatL f = x - (t - 12582912.0f);
#if SAMPLE_BITS == 16
  const floatL p = EXP2_POLY5(f);
#else
  const floatL p = fma(fma(fma(0x1.c3f76p-5f, f, 0x1.f0de1ap-3f), f, 0x1.62f31ap-1f), f, 0x1.fff692p-1f);
#endif
  return CPU_CAT(as_float, LANES)(CPU_CAT(as_uint, LANES)(p) + (CPU_CAT(as_uint, LANES)(t) << 23));
}

#if SAMPLE_BITS == 16
// 16-bit samples: the ring holds the samples themselves, exact in float, so that differences are exact too, and
// each is scaled before it is squared (a relative 2^-24 on the exponent; a scaled ring would round every p', and
// p' - c' lose up to 65535 scale 2^-23). `scale` is the exact scale rounded once to float, not to 16 bits: its
// error moves every weight alike and 65535 times the 8-bit variant's 2^-16 would break the contract.
inline float cpu_channel(pix_t p, int k) {
#if CHANNELS == 4
  return (float)(k == 0 ? p.x : k == 1 ? p.y : p.z);
#else
  (void)k;
  return (float)p;
#endif
}

inline void cpu_fill_ring_row(__global const pix_t* src, __global float* ring, int y, int w, int h, int r, int pad,
                              int mode, pix_t cval, float scale, int stride, int in_stride, int in_off) {
  (void)scale;
  const int yy = border_index(y, h, mode);
  __global const pix_t* row = src + (long)in_off + (long)yy * in_stride;
  for (int k = 0; k < CPU_PLANES; ++k) {
    __global float* out = ring + k * stride + pad;  // out[x] is column x
    for (int x = -pad; x < -r; ++x) out[x] = 0.0f;
    int x = -r;
    for (; x < 0; ++x) {
      const int xx = border_index(x, w, mode);
      out[x] = cpu_channel(yy < 0 || xx < 0 ? cval : row[xx], k);
    }
    if (yy < 0) {
      for (; x < w; ++x) out[x] = cpu_channel(cval, k);
    } else {
#if CHANNELS == 1
      for (; x + 8 <= w; x += 8) vstore8(convert_float8(vload8(0, row + x)), 0, out + x);
#endif
      for (; x < w; ++x) out[x] = cpu_channel(row[x], k);
    }
    for (; x < w + r; ++x) {
      const int xx = border_index(x, w, mode);
      out[x] = cpu_channel(yy < 0 || xx < 0 ? cval : row[xx], k);
    }
    for (; x < stride - pad; ++x) out[x] = 0.0f;
  }
}

// The mean, rounded (SPEC: nearest, ties up, clamped to 0..65535).
inline uintL cpu_round(floatL sum, floatL wsum, float scale) {
  (void)scale;
  return CPU_CAT(convert_uint, LANES)(clamp(floor(sum / wsum + 0.5f), 0.0f, 65535.0f));
}
#else
// Channel k (0 = R or grey) of a pixel, as a float.
inline float cpu_channel(pix_t p, int k) {
#if CHANNELS == 4
  return (float)((p >> (8 * k)) & 0xFFu);
#else
  (void)k;
  return (float)p;
#endif
}

// Fills ring row `ring` (plane-major, `stride` floats a plane) with input row y, scaled, padded by the border (r
// columns each side; zeros from column -pad and from w + r on to the plane's end).
inline void cpu_fill_ring_row(__global const pix_t* src, __global float* ring, int y, int w, int h, int r, int pad,
                              int mode, pix_t cval, float scale, int stride, int in_stride, int in_off) {
  const int yy = border_index(y, h, mode);
  __global const pix_t* row = src + (long)in_off + (long)yy * in_stride;
  for (int k = 0; k < CPU_PLANES; ++k) {
    __global float* out = ring + k * stride + pad;  // out[x] is column x
    for (int x = -pad; x < -r; ++x) out[x] = 0.0f;
    for (int x = -r; x < 0; ++x) {
      const int xx = border_index(x, w, mode);
      out[x] = scale * cpu_channel(yy < 0 || xx < 0 ? cval : row[xx], k);
    }
    int x = 0;
    if (yy < 0) {
      for (; x < w; ++x) out[x] = scale * cpu_channel(cval, k);
    } else {
      for (; x + 8 <= w; x += 8) {
#if CHANNELS == 4
        const uint8 p = vload8(0, row + x);
        vstore8(scale * convert_float8((p >> (uint)(8 * k)) & 0xFFu), 0, out + x);
#else
        vstore8(scale * convert_float8(vload8(0, row + x)), 0, out + x);
#endif
      }
      for (; x < w; ++x) out[x] = scale * cpu_channel(row[x], k);
    }
    for (; x < w + r; ++x) {
      const int xx = border_index(x, w, mode);
      out[x] = scale * cpu_channel(yy < 0 || xx < 0 ? cval : row[xx], k);
    }
    for (; x < stride - pad; ++x) out[x] = 0.0f;
  }
}

// Rounds v / scale to 8 bits (SPEC "Rounding to the sample": nearest, ties up, clamped).
inline uintL cpu_round(floatL sum, floatL wsum, float scale) {
  return CPU_CAT(convert_uint, LANES)(clamp(floor(sum / (wsum * scale) + 0.5f), 0.0f, 255.0f));
}
#endif

// The window sums of one step at column x: sum(w p') per colour plane into sums[], and sum(w) returned. `top` is
// the ring slot of the window's top row, `c` the centre's planes. `l1` and `clamp` are constants at every call,
// so each call is a tap loop of its own with no test in it.
inline floatL cpu_window(__global const float* ring, long slot_floats, int stride, int top, int d, int x,
                         __constant const float* spatial_log2, const floatL* c, float scale, const int l1,
                         const int clamp, floatL* sums) {
  (void)scale;
  (void)l1;
  // Window row j's taps are [spans[2j], spans[2j + 1]) (the disk's chord; the whole row for the square).
  __constant const float* spans = spatial_log2 + d * d;
  floatL wsum = 0.0f;
#if CHANNELS == 4
  floatL sr = 0.0f, sg = 0.0f, sb = 0.0f;
#else
  floatL sum = 0.0f;
#endif
  int slot = top;
  for (int j = 0; j < d; ++j) {
    __global const float* row = ring + slot * slot_floats + x;
    __constant const float* sj = spatial_log2 + j * d;
    const int i1 = (int)spans[2 * j + 1];
    for (int i = (int)spans[2 * j]; i < i1; ++i) {
      const float s = sj[i];
#if CHANNELS == 4
      const floatL pr = VLOADL(0, row + i), pg = VLOADL(0, row + stride + i), pb = VLOADL(0, row + 2 * stride + i);
#if SAMPLE_BITS == 16
      const floatL dr = (pr - c[0]) * scale, dg = (pg - c[1]) * scale, db = (pb - c[2]) * scale;
#else
      const floatL dr = pr - c[0], dg = pg - c[1], db = pb - c[2];
#endif
      floatL e;
      if (l1) {
        const floatL n = fabs(dr) + fabs(dg) + fabs(db);
        e = fma(n, -n, (floatL)s);
      } else {
        e = fma(dr, -dr, fma(dg, -dg, fma(db, -db, (floatL)s)));
      }
      const floatL wt = cpu_exp2(e, clamp);
      sr = fma(wt, pr, sr);
      sg = fma(wt, pg, sg);
      sb = fma(wt, pb, sb);
#else
      const floatL p = VLOADL(0, row + i);
#if SAMPLE_BITS == 16
      const floatL dd = (p - c[0]) * scale;
#else
      const floatL dd = p - c[0];
#endif
      const floatL wt = cpu_exp2(fma(dd, -dd, (floatL)s), clamp);
      sum = fma(wt, p, sum);
#endif
      wsum += wt;
    }
    slot = slot + 1 == d ? 0 : slot + 1;
  }
#if CHANNELS == 4
  sums[0] = sr;
  sums[1] = sg;
  sums[2] = sb;
#else
  sums[0] = sum;
#endif
  return wsum;
}

// Writes the outputs of row y from column x on (LANES, or those left of w): the means sums[k] / wsum rounded, alpha
// the centre's, from the input. Inlined, as it was in the kernel before pairs shared it: PoCL calls it otherwise.
__attribute__((always_inline)) inline void cpu_store_step(__global const pix_t* src, __global pix_t* dst, int w, int y,
                                                          int x, const floatL* sums, floatL wsum, float scale,
                                                          int in_stride, int in_off, int out_stride, int out_off) {
  __global pix_t* out = dst + (long)out_off + (long)y * out_stride;
#if CHANNELS == 4
  __global const pix_t* in = src + (long)in_off + (long)y * in_stride;
  const floatL sr = sums[0], sg = sums[1], sb = sums[2];
#else
  (void)src;
  (void)in_stride;
  (void)in_off;
  const floatL sum = sums[0];
#endif
#if SAMPLE_BITS == 16
  // The lanes through private arrays, a scalar store a pixel.
#if CHANNELS == 4
  uint lr[LANES], lg[LANES], lb[LANES];
  VSTOREL(cpu_round(sr, wsum, scale), 0, lr);
  VSTOREL(cpu_round(sg, wsum, scale), 0, lg);
  VSTOREL(cpu_round(sb, wsum, scale), 0, lb);
  for (int k = 0; k < LANES && x + k < w; ++k)
    out[x + k] = (ushort4)((ushort)lr[k], (ushort)lg[k], (ushort)lb[k], in[x + k].w);
#else
  const uintL v = cpu_round(sum, wsum, scale);
  if (x + LANES <= w) {
    VSTOREL(CPU_CAT(convert_ushort, LANES)(v), 0, out + x);
  } else {
    uint tail[LANES];
    VSTOREL(v, 0, tail);
    for (int k = 0; x + k < w; ++k) out[x + k] = (ushort)tail[k];
  }
#endif
#else
#if CHANNELS == 4
  const uintL rgb =
      cpu_round(sr, wsum, scale) | (cpu_round(sg, wsum, scale) << 8u) | (cpu_round(sb, wsum, scale) << 16u);
  if (x + LANES <= w) {
    VSTOREL(rgb | (VLOADL(0, in + x) & 0xFF000000u), 0, out + x);
  } else {
    uint tail[LANES];
    VSTOREL(rgb, 0, tail);
    for (int k = 0; x + k < w; ++k) out[x + k] = tail[k] | (in[x + k] & 0xFF000000u);
  }
#else
  const uintL v = cpu_round(sum, wsum, scale);
  if (x + LANES <= w) {
    VSTOREL(CPU_CAT(convert_uchar, LANES)(v), 0, out + x);
  } else {
    uint tail[LANES];
    VSTOREL(v, 0, tail);
    for (int k = 0; x + k < w; ++k) out[x + k] = (uchar)tail[k];
  }
#endif
#endif
}

#if !CPU_PAIRS
__kernel void bilateral_cpu_rows(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int mode,
                                 uint cval_bits, int l1, __constant const float* spatial_log2, float scale, int clamp,
                                 int band_rows, int stride, __global float* scratch, int in_stride, int in_off,
                                 int out_stride, int out_off, int row_begin, int row_end) {
  const int d = 2 * r + 1;
  const int y0 = row_begin + get_global_id(0) * band_rows, y1 = min(y0 + band_rows, row_end);
  const pix_t cval = (pix_t)cval_bits;
  const long slot_floats = (long)CPU_PLANES * stride;
  __global float* ring = scratch + (long)get_global_id(0) * d * slot_floats;
#define CPU_SLOT(y) (ring + (long)(((y)-y0 + d) % d) * slot_floats)
  // The window rows of the band's first output row but the last, which the loop adds.
  for (int y = y0 - r; y < y0 + r; ++y)
    cpu_fill_ring_row(src, CPU_SLOT(y), y, w, h, r, r, mode, cval, scale, stride, in_stride, in_off);
  for (int y = y0; y < y1; ++y) {
    cpu_fill_ring_row(src, CPU_SLOT(y + r), y + r, w, h, r, r, mode, cval, scale, stride, in_stride, in_off);
    __global const float* centre = CPU_SLOT(y) + r;
    // The ring slot of the window's top row; the tap loop steps it with a compare, not a division per row.
    const int top = (y - r - y0 + d) % d;
    for (int x = 0; x < w; x += LANES) {
      floatL c[CPU_PLANES], sums[CPU_PLANES];
      for (int k = 0; k < CPU_PLANES; ++k) c[k] = VLOADL(0, centre + k * stride + x);
      floatL wsum;
#define CPU_WINDOW(L1, CLAMP) cpu_window(ring, slot_floats, stride, top, d, x, spatial_log2, c, scale, L1, CLAMP, sums)
#if CHANNELS == 4
      if (l1)
        wsum = clamp ? CPU_WINDOW(1, 1) : CPU_WINDOW(1, 0);
      else
        wsum = clamp ? CPU_WINDOW(0, 1) : CPU_WINDOW(0, 0);
#else
      wsum = clamp ? CPU_WINDOW(0, 1) : CPU_WINDOW(0, 0);
#endif
#undef CPU_WINDOW
      cpu_store_step(src, dst, w, y, x, sums, wsum, scale, in_stride, in_off, out_stride, out_off);
    }
  }
#undef CPU_SLOT
}
#endif  // !CPU_PAIRS

// cpu_rows with pairs=1 (-D CPU_PAIRS=1): each pair of pixels weighed once (bilateral_cpu_pairs.cl).
#if CPU_PAIRS
#include "bilateral_cpu_pairs.cl"
#endif
