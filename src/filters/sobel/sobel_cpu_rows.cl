// SPDX-License-Identifier: Apache-2.0
// cpu_rows (-D CPU_ROWS=1, its own build; sobel_strip.cl includes it): Sobel written for CPU devices (PoCL maps
// each work-group to a thread and runs its work-item as plain code). One work-item, in a work-group of its own, per
// band of output rows; no local memory, no barriers. Separable as row_tile: per input row, hs = [1 2 1] and
// hd = [-1 0 1] along x, once; then gx = hd(y-1) + 2 hd(y) + hd(y+1) and gy = hs(y+1) - hs(y-1). A ring of two rows
// of (hs, hd) shorts per band (its own part of `scratch`) holds rows y-1 and y; at each 16-pixel step the new row's
// values replace row y-1's, read just before. Along the row, short16 vectors, so the code is SIMD whatever PoCL's
// work-group vectoriser does; only the first step of a row and those within 17 pixels of its end take the border.
// Per-call values (size, border, band height, layout, output rows) are arguments: one build per output. Rows are
// in_stride and out_stride pixels apart from pixel in_off and out_off on (packed: stride w, offset 0), so views are
// taken in place. The bands cover output rows row_begin .. row_end - 1 only (a part of the image, for a host call
// over several devices); they read the whole image.
typedef uchar16 cpu_uchar16_u __attribute__((aligned(1)));
typedef short16 cpu_short16_u __attribute__((aligned(1)));
typedef uint16 cpu_uint16_u __attribute__((aligned(1)));

// hs and hd of columns x0 .. x0+15 of `row` (NULL: a row of the constant). `edge`: columns x0-1 or x0+16 may be
// outside the row, so each pixel goes through the border (columns past w + 1 only feed lanes that are not stored).
__attribute__((always_inline)) inline void cpu_horizontal(__global const uchar* row, int x0, int w, int mode,
                                                          uchar cval, bool edge, short16* hs, short16* hd) {
  short16 left, mid, right;
  if (!row) {
    *hs = (short16)(4 * cval);
    *hd = (short16)0;
    return;
  }
  if (edge) {
    uchar p[18];
    for (int i = 0; i < 18; ++i) {
      const int xx = border_index(min(x0 - 1 + i, w), w, mode);
      p[i] = xx < 0 ? cval : row[xx];
    }
    left = convert_short16(vload16(0, p)), mid = convert_short16(vload16(0, p + 1));
    right = convert_short16(vload16(0, p + 2));
  } else {
    left = convert_short16(*(__global const cpu_uchar16_u*)(row + x0 - 1));
    mid = convert_short16(*(__global const cpu_uchar16_u*)(row + x0));
    right = convert_short16(*(__global const cpu_uchar16_u*)(row + x0 + 1));
  }
  *hs = left + (mid << (short16)1) + right;
  *hd = right - left;
}

// The 8-bit output of 16 pixels. Vector operators rather than abs and fmin, which PoCL 3.1 splits into 2-lane
// pieces. Magnitude: s = gx^2 + gy^2 is an exact float (< 2^22); clamped to 65280 = 255^2 + 255, round(sqrt(s))
// is at most 255, and sqrt(s) + 2^23 rounds it to an integer in the low mantissa bits: an integer s is never
// within 1/2048 of a tie (sqrt(q^2 + q) = q + 1/2 - ~1/(8q)), far beyond the root's error. The device test
// runs sobel_cpu_rows_magnitude_check over every (gx, gy).
__attribute__((always_inline)) inline uchar16 cpu_output_bytes(short16 gx, short16 gy) {
#if OUTPUT == OUTPUT_L1
  const short16 l1 = (gx < (short16)0 ? -gx : gx) + (gy < (short16)0 ? -gy : gy);
  return convert_uchar16(l1 < (short16)255 ? l1 : (short16)255);
#else
  const float16 fx = convert_float16(gx), fy = convert_float16(gy);
  float16 s = fx * fx + fy * fy;
  s = s < (float16)65280.0f ? s : (float16)65280.0f;
  return convert_uchar16(as_uint16(sqrt(s) + 8388608.0f));
#endif
}

#if OUTPUT != OUTPUT_GRADIENTS
// For the tests: cpu_output_bytes of every (gx, gy) in [-1020, 1020]^2, at out[(gy + 1020) * 2041 + gx + 1020].
__kernel void sobel_cpu_rows_bytes_check(__global uchar* out) {
  const int x0 = get_global_id(0) * 16, gy = get_global_id(1) - 1020;
  const short16 lane = (short16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  uchar v[16];
  vstore16(cpu_output_bytes((short16)(x0 - 1020) + lane, (short16)gy), 0, v);
  for (int k = 0; k < 16 && x0 + k < 2041; ++k) out[(gy + 1020) * 2041 + x0 + k] = v[k];
}
#endif

// One 16-pixel step of output row y (its pixels from o_row + x0 on), or of filling the ring only (out NULL). `prev` and
// `cur` are the ring rows of y-1 and y, each hs then hd, `stride` shorts apart; row y+1's values replace prev's.
__attribute__((always_inline)) inline void cpu_step(__global const uchar* below, __global short* prev,
                                                    __global const short* cur, int stride, int x0, int w, int mode,
                                                    uchar cval, bool edge, __global out_t* out_a, __global out_t* out_b,
                                                    long o_row) {
  short16 hs_b, hd_b;
  cpu_horizontal(below, x0, w, mode, cval, edge, &hs_b, &hd_b);
  __global short16* p = (__global short16*)(prev + x0);
  const short16 hs_t = p[0], hd_t = *(__global const short16*)(prev + stride + x0);
  const short16 hd_m = *(__global const short16*)(cur + stride + x0);
  p[0] = hs_b;
  *(__global short16*)(prev + stride + x0) = hd_b;
  if (!out_a) return;
  const short16 gx = hd_t + (hd_m << (short16)1) + hd_b, gy = hs_b - hs_t;
  const long o = o_row + x0;
  if (x0 + 16 > w) {
    store_16(out_a + (INTERLEAVED ? 2 * o : o), out_b + o, 0, w - x0, gx, gy);
    return;
  }
#if OUTPUT == OUTPUT_GRADIENTS && INTERLEAVED
  *(__global cpu_uint16_u*)(out_a + 2 * o) = convert_uint16(as_ushort16(gx)) | (convert_uint16(as_ushort16(gy)) << 16);
#elif OUTPUT == OUTPUT_GRADIENTS
  *(__global cpu_short16_u*)(out_a + o) = gx;
  *(__global cpu_short16_u*)(out_b + o) = gy;
#else
  *(__global cpu_uchar16_u*)(out_a + o) = cpu_output_bytes(gx, gy);
#endif
}

// Row y+1 of the input into the ring (prev's place), writing output row y where out_a is not NULL.
__attribute__((always_inline)) inline void cpu_row_pass(__global const uchar* src, __global short* prev,
                                                        __global const short* cur, int stride, int y, int w, int h,
                                                        int mode, uchar cval, int in_stride, int in_off,
                                                        __global out_t* out_a, __global out_t* out_b, long o) {
  const int yy = border_index(y + 1, h, mode);
  __global const uchar* below = yy < 0 ? 0 : src + in_off + (long)yy * in_stride;
  cpu_step(below, prev, cur, stride, 0, w, mode, cval, true, out_a, out_b, o);
  int x0 = 16;
  // Two steps an iteration: about 15% faster on PoCL at 1080p (gradients), whose loop is not unrolled otherwise.
  for (; x0 + 33 <= w; x0 += 32) {
    cpu_step(below, prev, cur, stride, x0, w, mode, cval, false, out_a, out_b, o);
    cpu_step(below, prev, cur, stride, x0 + 16, w, mode, cval, false, out_a, out_b, o);
  }
  for (; x0 + 17 <= w; x0 += 16) cpu_step(below, prev, cur, stride, x0, w, mode, cval, false, out_a, out_b, o);
  for (; x0 < w; x0 += 16) cpu_step(below, prev, cur, stride, x0, w, mode, cval, true, out_a, out_b, o);
}

__kernel void sobel_cpu_rows(__global const uchar* src, __global out_t* out_a, __global out_t* out_b, int w, int h,
                             int mode, uint cval_bits, int band_rows, int stride, __global short* scratch,
                             int in_stride, int in_off, int out_stride, int out_off, int row_begin, int row_end) {
  const int y0 = row_begin + get_global_id(0) * band_rows, y1 = min(y0 + band_rows, row_end);
  const uchar cval = (uchar)cval_bits;
  __global short* ring = scratch + (long)get_global_id(0) * 4 * stride;  // two rows of hs and hd
  // Ring row r & 1 holds input row r. Rows y0 - 1 and y0 first, as the passes of y0 - 2 and y0 - 1 without output.
  for (int y = y0 - 2; y < y0; ++y)
    cpu_row_pass(src, ring + ((y + 1) & 1) * 2 * stride, ring + (y & 1) * 2 * stride, stride, y, w, h, mode, cval,
                 in_stride, in_off, 0, 0, 0);
  for (int y = y0; y < y1; ++y)
    cpu_row_pass(src, ring + ((y + 1) & 1) * 2 * stride, ring + (y & 1) * 2 * stride, stride, y, w, h, mode, cval,
                 in_stride, in_off, out_a, out_b, out_off + (long)y * out_stride);
}
