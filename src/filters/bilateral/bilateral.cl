// SPDX-License-Identifier: Apache-2.0
// Bilateral filter (docs/SPEC.md "Bilateral filter"; seed 001). For the centre c and every pixel p of the
// (2r+1)^2 window, w = exp(-(dx^2 + dy^2) / (2 ss^2) - |p - c|^2 / (2 sr^2)); the output is
// round(sum(w p) / sum(w)) per colour channel, alpha copied. Grey: |p - c| over the one channel;
// RGBA: Euclidean over R, G and B, or with l1 != 0 |dR| + |dG| + |dB|. The disk window (taps with
// dx^2 + dy^2 <= r^2) is a spatial table with zeros outside it, or the naive kernel's max_d2 bound.
//
// Build options:
//   -D CHANNELS=1|4   grey (uchar per pixel) or RGBA (one packed uint per pixel, R in the low byte)
//   -D CPU_ROWS=1     adds cpu_rows' kernel (bilateral_cpu_rows.cl)
//   -D SAMPLE_BITS=16 16-bit samples: ushort per pixel, or ushort4 for RGBA (the variants with a 16-bit form)
// Per-call values (size, radius, border, distance, 1/(2 sigma^2), weight tables) are kernel arguments, so
// the window and distance choices share one program.
//
// Accuracy: every variant must stay within 1 of the double-precision reference, i.e. the float
// weighted mean v' must satisfy |v' - v| < 1 (then round(v') and round(v) differ by at most 1).
// If every weight carries a relative error of at most e (w' = w (1 + e_i), |e_i| <= e), then
//   v' - v = sum(w_i e_i (p_i - v)) / sum(w_i (1 + e_i)),  so  |v' - v| <= 255 e / (1 - e),
// because sum(w_i (p_i - v)) = 0 and |p_i - v| <= 255. Float exp (<= 3 ulp) of a float exponent X
// (rounded by ~X * 6e-8) gives e < 1e-5 for the weights that matter (X < 100); accumulating at most
// 1089 float terms adds ~1e-4 relative to each sum: |v' - v| < 0.05.
//
// Colour range-weight table (range_table and pixels4 variants, CHANNELS == 4):
// The squared distance d2 = |p - c|^2 is an integer in [0, 3 * 255^2 = 195075]. A table of 8192
// floats (32 KiB of constant memory) is indexed by the bin
//   bin(d2) = mul_hi(d2 << 14, scale) = floor(d2 * scale / 2^18),   scale = floor(2^18 / q),
// exact integer arithmetic that the host repeats to build the table, with the bin width q chosen as
//   q = max(1, min(32 sr^2, 195076) / 8192).
// Entry k holds exp(-m_k / (2 sr^2)), m_k the midpoint of the smallest and largest d2 in bin k, so
// the relative error of a weight is at most exp(q' / (4 sr^2)) - 1, q' <= q (1 + 2^-13) the bin's
// extent. Two cases:
//  - q = 1 (sr <= 16): scale = 2^18 and bin(d2) = d2; entries are exact up to float rounding.
//  - q > 1: q' / (4 sr^2) <= (32 sr^2 / 8192) (1 + 2^-13) / (4 sr^2) ~ 1/1024, so e <= 0.00098 and
//    255 e / (1 - e) <= 0.25.
// Distances whose bin is >= 8192 get weight 0. That only happens when 32 sr^2 < 195076, for
// d2 >= 8192 q >= 32 sr^2, where the exact weight is <= exp(-16) = 1.13e-7. Dropping weights W_d
// moves the mean by at most 255 W_d / sum(w) <= 255 * 1088 * 1.13e-7 = 0.031 (the centre's weight
// is 1, so sum(w) >= 1; at most 33^2 - 1 neighbours are dropped).
// Together: |v' - v| <= 0.25 + 0.031 + float rounding < 0.35 < 1, so the +-1 contract holds.
// bilateral_test.cpp (ColourRangeTable.WorstCaseErrorKeepsTheContract) enumerates every d2 for a
// range of sigmas, measures e and the largest dropped weight, and checks the bound.
// The grey table has 256 entries, one per |p - c|: exact up to float rounding.

#ifndef CHANNELS
#define CHANNELS 4
#endif

#define COLOUR_TABLE_SIZE 8192

#if SAMPLE_BITS == 16
// -D SAMPLE_BITS=16: ushort grey, ushort4 RGBA (R first, alpha in .w), for naive, gauss_table, pixels4,
// unrolled and cpu_rows. Samples and their differences are exact in float; a squared distance (up to
// 3 * 65535^2) is rounded once, a relative 2^-24. The accuracy analysis below holds with 65535 for 255:
// |v' - v| <= 65535 e / (1 - e), so the weights need e < ~1e-5, which float exp (3 ulp, ~2e-7) of an exponent
// rounded by ~X * 2e-7 gives where the weights matter (X < ~40). No range-weight tables: the grey one would need
// 65536 entries and the colour bins' integer arithmetic overflows, so pixels4 takes exp.
#if CHANNELS == 4
typedef ushort4 pix_t;
typedef float4 val_t;  // x, y, z = R, G, B; w = alpha (accumulated but ignored)
inline val_t unpack(pix_t p) {
  return convert_float4(p);
}
inline float distance2(val_t p, val_t c) {
  const float3 d = p.xyz - c.xyz;
  return d.x * d.x + d.y * d.y + d.z * d.z;
}
inline pix_t pack_rounded(val_t v, pix_t centre) {
  // SPEC rounding: nearest, ties up, clamped to 0..65535.
  const ushort4 r = convert_ushort4(clamp(floor(v + 0.5f), 0.0f, 65535.0f));
  return (ushort4)(r.xyz, centre.w);
}
inline pix_t image_texel(uint4 t) {
  return convert_ushort4(t);
}
#else
typedef ushort pix_t;
typedef float val_t;
inline val_t unpack(pix_t p) {
  return (float)p;
}
inline float distance2(val_t p, val_t c) {
  const float d = p - c;
  return d * d;
}
inline pix_t pack_rounded(val_t v, pix_t centre) {
  (void)centre;
  return (ushort)clamp(floor(v + 0.5f), 0.0f, 65535.0f);
}
inline pix_t image_texel(uint4 t) {
  return (ushort)t.x;
}
#endif
// 2^f for f in [-0.5, 0.5] by a degree-5 polynomial (minimax for the relative error: 1.9e-7 evaluated in float,
// bilateral_u16_test.cpp), the 16-bit form of soft_exp2's and cpu_exp2's degree-3 one (7.5e-5), which 65535 e
// would turn into up to 4.9 where the 8-bit contract needs 255 e.
#define EXP2_POLY5(f)                                                                                         \
  fma(fma(fma(fma(fma(0x1.5c268cp-10f, (f), 0x1.3d1924p-7f), (f), 0x1.c6b6dep-5f), (f), 0x1.ebf8eap-3f), (f), \
          0x1.62e428p-1f),                                                                                    \
      (f), 0x1.000002p+0f)
#else
#if CHANNELS == 4
typedef uint pix_t;
typedef float4 val_t;  // x, y, z = R, G, B; w = alpha (accumulated but ignored)
inline val_t unpack(pix_t p) {
  return convert_float4((uint4)(p & 0xFFu, (p >> 8) & 0xFFu, (p >> 16) & 0xFFu, p >> 24));
}
// Integer-valued floats below 2^24: exact.
inline float distance2(val_t p, val_t c) {
  const float3 d = p.xyz - c.xyz;
  return d.x * d.x + d.y * d.y + d.z * d.z;
}
inline pix_t pack_rounded(val_t v, pix_t centre) {
  // SPEC "Rounding to the sample": nearest, ties up, clamped.
  const uint4 r = convert_uint4(clamp(floor(v + 0.5f), 0.0f, 255.0f));
  return r.x | (r.y << 8) | (r.z << 16) | (centre & 0xFF000000u);
}
inline pix_t image_texel(uint4 t) {
  return t.x | (t.y << 8) | (t.z << 16) | (t.w << 24);
}
#else
typedef uchar pix_t;
typedef float val_t;
inline val_t unpack(pix_t p) {
  return (float)p;
}
inline float distance2(val_t p, val_t c) {
  const float d = p - c;
  return d * d;
}
inline pix_t pack_rounded(val_t v, pix_t centre) {
  (void)centre;
  return (uchar)clamp(floor(v + 0.5f), 0.0f, 255.0f);
}
inline pix_t image_texel(uint4 t) {
  return (uchar)t.x;
}
#endif
#endif

// The squared distance the range weight uses: |p - c|^2, or (|dR| + |dG| + |dB|)^2 with l1 (at most
// 765^2 < 2^24: exact in float).
inline float range_distance2(val_t p, val_t c, int l1) {
#if CHANNELS == 4
  if (l1) {
    const float3 d = fabs(p.xyz - c.xyz);
    const float s = d.x + d.y + d.z;
    return s * s;
  }
#else
  (void)l1;
#endif
  return distance2(p, c);
}

#if SAMPLE_BITS == 16
// 16-bit samples have no range table (see above): exp, with the host's 1 / (2 sr^2) as range_scale's bits.
inline float table_range_weight(val_t p, val_t c, __constant const float* range_weights, uint range_scale, int l1) {
  (void)range_weights;
  return exp(-range_distance2(p, c, l1) * as_float(range_scale));
}
#else
// Range weight from the table (range_table and pixels4 variants); see the analysis above. With l1, the
// colour table has an exact entry for each |dR| + |dG| + |dB| in 0..765.
inline float table_range_weight(val_t p, val_t c, __constant const float* range_weights, uint range_scale, int l1) {
#if CHANNELS == 4
  if (l1) {
    const float3 d = fabs(p.xyz - c.xyz);
    return range_weights[(int)(d.x + d.y + d.z)];
  }
  const uint bin = mul_hi(((uint)distance2(p, c)) << 14, range_scale);
  return bin < COLOUR_TABLE_SIZE ? range_weights[bin] : 0.0f;
#else
  (void)range_scale;
  (void)l1;
  return range_weights[(int)fabs(p - c)];
#endif
}
#endif

// Pixel (x, y) with the border applied to each coordinate.
inline pix_t fetch(__global const pix_t* src, int x, int y, int w, int h, int mode, pix_t cval) {
  const int xx = border_index(x, w, mode), yy = border_index(y, h, mode);
  return (xx < 0 || yy < 0) ? cval : src[yy * w + xx];
}

// ---------------------------------------------------------------------------------------------
// naive (seed 001, phase 1): global memory, one pixel per work-item, exp evaluated for every tap.
__kernel void bilateral_naive(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int mode,
                              uint cval_bits, int l1, int max_d2, float spatial_coef, float range_coef) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const pix_t cval = (pix_t)cval_bits;
  const pix_t centre = src[y * w + x];
  const val_t c = unpack(centre);
  val_t sum = 0;
  float wsum = 0;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      if (dx * dx + dy * dy > max_d2) continue;  // outside the disk
      const val_t p = unpack(fetch(src, x + dx, y + dy, w, h, mode, cval));
      const float wgt = exp(-(float)(dx * dx + dy * dy) * spatial_coef - range_distance2(p, c, l1) * range_coef);
      sum += wgt * p;
      wsum += wgt;
    }
  dst[y * w + x] = pack_rounded(sum / wsum, centre);
}

// ---------------------------------------------------------------------------------------------
// gauss_table (seed 001, phase 2): the spatial weights come from a (2r+1)^2 table the host computed
// once, in constant memory, instead of being evaluated in the loop. The range weight still needs exp.
__kernel void bilateral_gauss_table(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int mode,
                                    uint cval_bits, int l1, __constant const float* spatial, float range_coef) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const pix_t cval = (pix_t)cval_bits;
  const pix_t centre = src[y * w + x];
  const val_t c = unpack(centre);
  const int d = 2 * r + 1;
  val_t sum = 0;
  float wsum = 0;
  for (int j = 0; j < d; ++j) {
    const int yy = border_index(y - r + j, h, mode);
    for (int i = 0; i < d; ++i) {
      const int xx = border_index(x - r + i, w, mode);
      const val_t p = unpack((xx < 0 || yy < 0) ? cval : src[yy * w + xx]);
      const float wgt = spatial[j * d + i] * exp(-range_distance2(p, c, l1) * range_coef);
      sum += wgt * p;
      wsum += wgt;
    }
  }
  dst[y * w + x] = pack_rounded(sum / wsum, centre);
}

// ---------------------------------------------------------------------------------------------
// Local-memory tiles (seed 001, phases 3 and 4). A work-group of lw x lh work-items loads its
// (lw + 2r) x (lh + 2r) tile, border applied, once; every work-item then reads its window from there.
// The host sizes `tile` and checks it against the device's local memory.

// Window sum over the tile for the work-item at (lx, ly), range weight by exp.
inline void window_from_tile_exp(__local const pix_t* tile, int tw, int lx, int ly, int r, int l1,
                                 __constant const float* spatial, float range_coef, val_t c, val_t* sum, float* wsum) {
  const int d = 2 * r + 1;
  for (int j = 0; j < d; ++j) {
    __local const pix_t* row = tile + (ly + j) * tw + lx;
    for (int i = 0; i < d; ++i) {
      const val_t p = unpack(row[i]);
      const float wgt = spatial[j * d + i] * exp(-range_distance2(p, c, l1) * range_coef);
      *sum += wgt * p;
      *wsum += wgt;
    }
  }
}

inline void load_tile_from_buffer(__global const pix_t* src, __local pix_t* tile, int w, int h, int r, int mode,
                                  pix_t cval) {
  const int lw = get_local_size(0), lh = get_local_size(1);
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int gx0 = get_group_id(0) * lw, gy0 = get_group_id(1) * lh;
  const int tw = lw + 2 * r, th = lh + 2 * r;
  for (int ty = ly; ty < th; ty += lh) {
    const int yy = border_index(gy0 - r + ty, h, mode);
    for (int tx = lx; tx < tw; tx += lw) {
      const int xx = border_index(gx0 - r + tx, w, mode);
      tile[ty * tw + tx] = (xx < 0 || yy < 0) ? cval : src[yy * w + xx];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// local (seed 001, phase 3): tile plus halo in local memory, spatial table, range weight by exp.
__kernel void bilateral_local(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int mode,
                              uint cval_bits, int l1, __constant const float* spatial, float range_coef,
                              __local pix_t* tile) {
  load_tile_from_buffer(src, tile, w, h, r, mode, (pix_t)cval_bits);
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;  // after the barrier: every work-item helped load the tile
  const int tw = get_local_size(0) + 2 * r;
  const pix_t centre = tile[(ly + r) * tw + lx + r];
  val_t sum = 0;
  float wsum = 0;
  window_from_tile_exp(tile, tw, lx, ly, r, l1, spatial, range_coef, unpack(centre), &sum, &wsum);
  dst[y * w + x] = pack_rounded(sum / wsum, centre);
}

// local_image (seed 001, phase 4): as local, but the tile is loaded from an image object. The
// coordinates are border-resolved before the read, so the sampler never has to address outside.
__constant sampler_t kNearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void bilateral_local_image(__read_only image2d_t src, __global pix_t* dst, int w, int h, int r, int mode,
                                    uint cval_bits, int l1, __constant const float* spatial, float range_coef,
                                    __local pix_t* tile) {
  const int lw = get_local_size(0), lh = get_local_size(1);
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int gx0 = get_group_id(0) * lw, gy0 = get_group_id(1) * lh;
  const int tw = lw + 2 * r, th = lh + 2 * r;
  const pix_t cval = (pix_t)cval_bits;
  for (int ty = ly; ty < th; ty += lh) {
    const int yy = border_index(gy0 - r + ty, h, mode);
    for (int tx = lx; tx < tw; tx += lw) {
      const int xx = border_index(gx0 - r + tx, w, mode);
      tile[ty * tw + tx] = (xx < 0 || yy < 0) ? cval : image_texel(read_imageui(src, kNearest, (int2)(xx, yy)));
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int x = gx0 + lx, y = gy0 + ly;
  if (x >= w || y >= h) return;
  const pix_t centre = tile[(ly + r) * tw + lx + r];
  val_t sum = 0;
  float wsum = 0;
  window_from_tile_exp(tile, tw, lx, ly, r, l1, spatial, range_coef, unpack(centre), &sum, &wsum);
  dst[y * w + x] = pack_rounded(sum / wsum, centre);
}

// ---------------------------------------------------------------------------------------------
// range_table (beyond the seed): the local tile and spatial table of phase 3, and the range weight
// from a table too, so the loop has no exp at all: 256 entries for grey, the quantised squared
// distance for colour (error analysis at the top of this file).
__kernel void bilateral_range_table(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int mode,
                                    uint cval_bits, int l1, __constant const float* spatial,
                                    __constant const float* range_weights, uint range_scale, __local pix_t* tile) {
  load_tile_from_buffer(src, tile, w, h, r, mode, (pix_t)cval_bits);
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const int tw = get_local_size(0) + 2 * r;
  const int d = 2 * r + 1;
  const pix_t centre = tile[(ly + r) * tw + lx + r];
  const val_t c = unpack(centre);
  val_t sum = 0;
  float wsum = 0;
  for (int j = 0; j < d; ++j) {
    __local const pix_t* row = tile + (ly + j) * tw + lx;
    for (int i = 0; i < d; ++i) {
      const val_t p = unpack(row[i]);
      const float wgt = spatial[j * d + i] * table_range_weight(p, c, range_weights, range_scale, l1);
      sum += wgt * p;
      wsum += wgt;
    }
  }
  dst[y * w + x] = pack_rounded(sum / wsum, centre);
}

// ---------------------------------------------------------------------------------------------
// pixels4 (beyond the seed): 4 vertically adjacent output pixels per work-item, no local memory.
// Each of the 2r+4 input rows the 4 windows cover is read once, and each pixel loaded is weighed
// for every output whose window holds it (up to 4), so loads and border lookups drop ~4x against
// one pixel per work-item. Weights from the spatial and range tables.
#define ACCUMULATE(k)                                                                                           \
  if (t - (k) >= 0 && t - (k) < d) {                                                                            \
    const float wgt = spatial[(t - (k)) * d + i] * table_range_weight(p, c##k, range_weights, range_scale, l1); \
    sum##k += wgt * p;                                                                                          \
    wsum##k += wgt;                                                                                             \
  }

__kernel void bilateral_pixels4(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int mode,
                                uint cval_bits, int l1, __constant const float* spatial,
                                __constant const float* range_weights, uint range_scale) {
  const int x = get_global_id(0), y0 = get_global_id(1) * 4;
  if (x >= w || y0 >= h) return;
  const pix_t cval = (pix_t)cval_bits;
  const int d = 2 * r + 1;
  // Rows past the bottom edge are computed from a clamped centre but never stored.
  const pix_t centre0 = src[y0 * w + x];
  const pix_t centre1 = src[min(y0 + 1, h - 1) * w + x];
  const pix_t centre2 = src[min(y0 + 2, h - 1) * w + x];
  const pix_t centre3 = src[min(y0 + 3, h - 1) * w + x];
  const val_t c0 = unpack(centre0), c1 = unpack(centre1), c2 = unpack(centre2), c3 = unpack(centre3);
  val_t sum0 = 0, sum1 = 0, sum2 = 0, sum3 = 0;
  float wsum0 = 0, wsum1 = 0, wsum2 = 0, wsum3 = 0;
  for (int t = 0; t < d + 3; ++t) {
    const int yy = border_index(y0 - r + t, h, mode);
    for (int i = 0; i < d; ++i) {
      const int xx = border_index(x - r + i, w, mode);
      const val_t p = unpack((xx < 0 || yy < 0) ? cval : src[yy * w + xx]);
      ACCUMULATE(0)
      ACCUMULATE(1)
      ACCUMULATE(2)
      ACCUMULATE(3)
    }
  }
  dst[y0 * w + x] = pack_rounded(sum0 / wsum0, centre0);
  if (y0 + 1 < h) dst[(y0 + 1) * w + x] = pack_rounded(sum1 / wsum1, centre1);
  if (y0 + 2 < h) dst[(y0 + 2) * w + x] = pack_rounded(sum2 / wsum2, centre2);
  if (y0 + 3 < h) dst[(y0 + 3) * w + x] = pack_rounded(sum3 / wsum3, centre3);
}

#include "bilateral_unrolled.cl"

// cpu_rows: for CPU devices (its own build, -D CPU_ROWS=1, so that a refused build still leaves the others').
#if CPU_ROWS
#include "bilateral_cpu_rows.cl"
#endif
