// SPDX-License-Identifier: Apache-2.0
// cpu_rows: the epsilon filter written for CPU devices (PoCL maps each work-group to a thread and runs its
// work-item as plain code). One work-item, in a work-group of its own, per band of output rows; no local memory,
// no barriers. The band keeps the 2r+1 input rows its current output row's window covers in a ring of byte rows
// (its own part of `scratch`), one plane per colour channel, padded by the border, so the window loop reads them
// with no border test; entering the next output row replaces one ring row. Along the row it computes 16 outputs
// a step in ushort16 vectors (one AVX2 register), so the code is SIMD whatever PoCL's work-group vectoriser does.
//
// Per tap and 16 outputs: p = the tap's pixels widened to 16 bits, in = (clamp(p, lo, hi) == p) with
// lo = max(c - T, 0) and hi = c + T (|p - c| <= T, as a min, a max and a compare), sum += p & in, count -= in
// (in is 0 or all ones). Sums of up to 257 taps of 255 fit in 16 bits; the window's rows are added to a 32-bit
// sum every 257 / (2r+1) rows (once, at the end, for r <= 7). The count is at most 65^2 = 4225.
//
// Rounding division (s + n/2) / n, exact: a = s + n/2 < 2^21 and n <= 4225 are exact in float, and the float
// quotient is within one of the true one (relative error a few 2^-24 of a quotient below 256), so its
// truncation q is within one of floor(a / n); one integer step each way (rem = a - q n outside [0, n)) makes
// it exact. No per-lane integer division, which x86 has only as scalar instructions.
//
// Ring row layout, in bytes: plane k (R, G, B or grey) of ring slot s of band b at
// scratch + ((b * (2r+1) + s) * planes + k) * stride; element i is column i - r, the border's value outside the
// image, zeros past column w + r (read by the last step's unused lanes).
// Per-call values (size, radius, threshold, border, band height, layout, output rows) are arguments: one build per
// channel count. Rows are in_stride and out_stride pixels apart from pixel in_off and out_off on (a packed image:
// stride w, offset 0), so pitched views are read and written in place. The bands cover output rows row_begin ..
// row_end - 1 only (a part of the image, for a host call over several devices); their windows read the whole image.

#if SAMPLE_BITS == 16
// 16-bit samples: the same bands, ring and steps with ushort ring rows (offsets and `stride` in elements) and uint16
// sums: a tap widens its counted pixels into the 32-bit sum, which reaches at most 4225 * 65535 < 2^29; hi = c + T
// saturates at 65535. The division's a = s + n/2 < 2^29 is rounded once to float, still within one of the true
// quotient (below 65536), so the same integer step corrects it.

inline ushort eps_cpu_channel(pix_t p, int k) {
#if CHANNELS == 4
  return (ushort)((p >> (16 * k)) & 0xFFFFu);
#else
  (void)k;
  return p;
#endif
}

inline void eps_cpu_fill_ring_row(__global const pix_t* src, __global ushort* ring, int y, int w, int h, int r,
                                  int mode, pix_t cval, int stride, int in_stride, int in_off) {
  const int yy = border_index(y, h, mode);
  __global const pix_t* row = src + (long)in_off + (long)yy * in_stride;
  for (int k = 0; k < COLOUR_CHANNELS; ++k) {
    __global ushort* out = ring + k * stride + r;  // out[x] is column x
    for (int x = -r; x < 0; ++x) {
      const int xx = border_index(x, w, mode);
      out[x] = eps_cpu_channel(yy < 0 || xx < 0 ? cval : row[xx], k);
    }
    int x = 0;
    if (yy < 0) {
      for (; x < w; ++x) out[x] = eps_cpu_channel(cval, k);
    } else {
      for (; x + 16 <= w; x += 16) {
#if CHANNELS == 4
        vstore16(convert_ushort16((vload16(0, row + x) >> (ulong)(16 * k)) & (ulong)0xFFFFu), 0, out + x);
#else
        vstore16(vload16(0, row + x), 0, out + x);
#endif
      }
      for (; x < w; ++x) out[x] = eps_cpu_channel(row[x], k);
    }
    for (; x < w + r; ++x) {
      const int xx = border_index(x, w, mode);
      out[x] = eps_cpu_channel(yy < 0 || xx < 0 ? cval : row[xx], k);
    }
    for (; x < stride - r; ++x) out[x] = 0;
  }
}

inline ushort16 eps_cpu_means16(__global const ushort* ring, __global const ushort* centre, int slot0, int d,
                                int slot_elems, int plane, int x, ushort T) {
  const ushort16 c = vload16(0, centre);
  const ushort16 lo = sub_sat(c, T), hi = add_sat(c, T);
  uint16 total = 0;
  ushort16 count = 0;
  int slot = slot0;
  for (int j = 0; j < d; ++j) {
    __global const ushort* row = ring + (long)slot * slot_elems + plane + x;
    slot = slot + 1 == d ? 0 : slot + 1;
    for (int i = 0; i < d; ++i) {
      const ushort16 p = vload16(0, row + i);
      const ushort16 in = as_ushort16(min(max(p, lo), hi) == p);
      total += convert_uint16(p & in);
      count -= in;
    }
  }
  const int16 n = convert_int16(count);
  const int16 a = convert_int16(total) + (n >> 1);
  int16 q = convert_int16(convert_float16(a) / convert_float16(n));
  const int16 rem = a - q * n;
  q = q - (rem >= n) + (rem < 0);  // true is -1 in vector compares
  return convert_ushort16(q);
}

__kernel void eps_cpu_rows(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int T, int mode,
                           uint cval_bits, int band_rows, int stride, __global ushort* scratch, int in_stride,
                           int in_off, int out_stride, int out_off, int row_begin, int row_end) {
  const int d = 2 * r + 1;
  const int slot_elems = COLOUR_CHANNELS * stride;
  const int y0 = row_begin + get_global_id(0) * band_rows, y1 = min(y0 + band_rows, row_end);
  const pix_t cval = cval_pixel(cval_bits);
  __global ushort* ring = scratch + (long)get_global_id(0) * d * slot_elems;
#define EPS_CPU_SLOT(y) (((y)-y0 + d) % d)
  for (int y = y0 - r; y < y0 + r; ++y)
    eps_cpu_fill_ring_row(src, ring + (long)EPS_CPU_SLOT(y) * slot_elems, y, w, h, r, mode, cval, stride, in_stride,
                          in_off);
  for (int y = y0; y < y1; ++y) {
    eps_cpu_fill_ring_row(src, ring + (long)EPS_CPU_SLOT(y + r) * slot_elems, y + r, w, h, r, mode, cval, stride,
                          in_stride, in_off);
    const int slot0 = EPS_CPU_SLOT(y - r);
    __global const ushort* centre = ring + (long)EPS_CPU_SLOT(y) * slot_elems + r;
    __global pix_t* out = dst + (long)out_off + (long)y * out_stride;
    for (int x = 0; x < w; x += 16) {
#if CHANNELS == 4
      __global const pix_t* in = src + (long)in_off + (long)y * in_stride;
      ulong16 v = 0;
      for (int k = 0; k < 3; ++k)
        v |= convert_ulong16(
                 eps_cpu_means16(ring, centre + k * stride + x, slot0, d, slot_elems, k * stride, x, (ushort)T))
             << (ulong)(16 * k);
      // Alpha is the centre's, from the input.
      if (x + 16 <= w) {
        vstore16(v | (vload16(0, in + x) & 0xFFFF000000000000ul), 0, out + x);
      } else {
        ulong tail[16];
        vstore16(v, 0, tail);
        for (int k = 0; x + k < w; ++k) out[x + k] = tail[k] | (in[x + k] & 0xFFFF000000000000ul);
      }
#else
      const ushort16 v = eps_cpu_means16(ring, centre + x, slot0, d, slot_elems, 0, x, (ushort)T);
      if (x + 16 <= w) {
        vstore16(v, 0, out + x);
      } else {
        ushort tail[16];
        vstore16(v, 0, tail);
        for (int k = 0; x + k < w; ++k) out[x + k] = tail[k];
      }
#endif
    }
  }
#undef EPS_CPU_SLOT
}
#else
// Channel k (0 = R or grey) of a pixel.
inline uchar eps_cpu_channel(pix_t p, int k) {
#if CHANNELS == 4
  return (uchar)(p >> (8 * k));
#else
  (void)k;
  return p;
#endif
}

// Fills ring slot `ring` (plane-major, `stride` bytes a plane) with input row y, padded by the border.
inline void eps_cpu_fill_ring_row(__global const pix_t* src, __global uchar* ring, int y, int w, int h, int r, int mode,
                                  pix_t cval, int stride, int in_stride, int in_off) {
  const int yy = border_index(y, h, mode);
  __global const pix_t* row = src + (long)in_off + (long)yy * in_stride;
  for (int k = 0; k < COLOUR_CHANNELS; ++k) {
    __global uchar* out = ring + k * stride + r;  // out[x] is column x
    for (int x = -r; x < 0; ++x) {
      const int xx = border_index(x, w, mode);
      out[x] = eps_cpu_channel(yy < 0 || xx < 0 ? cval : row[xx], k);
    }
    int x = 0;
    if (yy < 0) {
      for (; x < w; ++x) out[x] = eps_cpu_channel(cval, k);
    } else {
      for (; x + 16 <= w; x += 16) {
#if CHANNELS == 4
        vstore16(convert_uchar16(vload16(0, row + x) >> (uint)(8 * k)), 0, out + x);  // modulo 256: the byte
#else
        vstore16(vload16(0, row + x), 0, out + x);
#endif
      }
      for (; x < w; ++x) out[x] = eps_cpu_channel(row[x], k);
    }
    for (; x < w + r; ++x) {
      const int xx = border_index(x, w, mode);
      out[x] = eps_cpu_channel(yy < 0 || xx < 0 ? cval : row[xx], k);
    }
    for (; x < stride - r; ++x) out[x] = 0;
  }
}

// The rounded means of 16 outputs of one plane: `centre` points at their centres in the ring, `slot0` is the
// ring slot of the window's first row, `plane` the plane's byte offset in a slot, x the first output's column.
inline ushort16 eps_cpu_means16(__global const uchar* ring, __global const uchar* centre, int slot0, int d,
                                int slot_bytes, int plane, int x, ushort T, int flush_rows) {
  const ushort16 c = convert_ushort16(vload16(0, centre));
  const ushort16 lo = sub_sat(c, T), hi = c + T;
  uint16 total = 0;
  ushort16 part = 0, count = 0;
  int slot = slot0, rows_in_part = 0;
  for (int j = 0; j < d; ++j) {
    __global const uchar* row = ring + (long)slot * slot_bytes + plane + x;
    slot = slot + 1 == d ? 0 : slot + 1;
    for (int i = 0; i < d; ++i) {
      const ushort16 p = convert_ushort16(vload16(0, row + i));
      const ushort16 in = as_ushort16(min(max(p, lo), hi) == p);
      part += p & in;
      count -= in;
    }
    if (++rows_in_part == flush_rows) {
      total += convert_uint16(part);
      part = 0;
      rows_in_part = 0;
    }
  }
  total += convert_uint16(part);
  const int16 n = convert_int16(count);
  const int16 a = convert_int16(total) + (n >> 1);
  int16 q = convert_int16(convert_float16(a) / convert_float16(n));
  const int16 rem = a - q * n;
  q = q - (rem >= n) + (rem < 0);  // true is -1 in vector compares
  return convert_ushort16(q);
}

__kernel void eps_cpu_rows(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int T, int mode,
                           uint cval_bits, int band_rows, int stride, __global uchar* scratch, int in_stride,
                           int in_off, int out_stride, int out_off, int row_begin, int row_end) {
  const int d = 2 * r + 1;
  const int slot_bytes = COLOUR_CHANNELS * stride;
  const int y0 = row_begin + get_global_id(0) * band_rows, y1 = min(y0 + band_rows, row_end);
  const pix_t cval = (pix_t)cval_bits;
  const int flush_rows = max(1, 257 / d);
  __global uchar* ring = scratch + (long)get_global_id(0) * d * slot_bytes;
#define EPS_CPU_SLOT(y) (((y)-y0 + d) % d)
  // The window rows of the band's first output row but the last, which the loop adds.
  for (int y = y0 - r; y < y0 + r; ++y)
    eps_cpu_fill_ring_row(src, ring + (long)EPS_CPU_SLOT(y) * slot_bytes, y, w, h, r, mode, cval, stride, in_stride,
                          in_off);
  for (int y = y0; y < y1; ++y) {
    eps_cpu_fill_ring_row(src, ring + (long)EPS_CPU_SLOT(y + r) * slot_bytes, y + r, w, h, r, mode, cval, stride,
                          in_stride, in_off);
    const int slot0 = EPS_CPU_SLOT(y - r);
    __global const uchar* centre = ring + (long)EPS_CPU_SLOT(y) * slot_bytes + r;
    __global pix_t* out = dst + (long)out_off + (long)y * out_stride;
    for (int x = 0; x < w; x += 16) {
#if CHANNELS == 4
      __global const pix_t* in = src + (long)in_off + (long)y * in_stride;
      uint16 v = 0;
      for (int k = 0; k < 3; ++k)
        v |= convert_uint16(eps_cpu_means16(ring, centre + k * stride + x, slot0, d, slot_bytes, k * stride, x,
                                            (ushort)T, flush_rows))
             << (uint)(8 * k);
      // Alpha is the centre's, from the input.
      if (x + 16 <= w) {
        vstore16(v | (vload16(0, in + x) & 0xFF000000u), 0, out + x);
      } else {
        uint tail[16];
        vstore16(v, 0, tail);
        for (int k = 0; x + k < w; ++k) out[x + k] = tail[k] | (in[x + k] & 0xFF000000u);
      }
#else
      const uchar16 v =
          convert_uchar16(eps_cpu_means16(ring, centre + x, slot0, d, slot_bytes, 0, x, (ushort)T, flush_rows));
      if (x + 16 <= w) {
        vstore16(v, 0, out + x);
      } else {
        uchar tail[16];
        vstore16(v, 0, tail);
        for (int k = 0; x + k < w; ++k) out[x + k] = tail[k];
      }
#endif
    }
  }
#undef EPS_CPU_SLOT
}
#endif  // SAMPLE_BITS == 16
