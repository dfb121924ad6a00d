// SPDX-License-Identifier: Apache-2.0
// Epsilon filter (docs/SPEC.md "Epsilon filter"; seed 000 and seed 003 section 9.2): each output is the
// rounded mean (s + n/2) / n of the window pixels p with |p - c| <= T, c the centre pixel. The centre
// always qualifies, so n >= 1.
//
// Build options:
//   -D CHANNELS=1|4   grey (uchar per pixel) or RGBA (one uint per pixel, R in the low byte): R, G and B
//                     are filtered on their own, alpha is copied from the centre pixel
//   -D HAS_IMAGES=1   also build the image-object kernel (naive)
//   -D HAS_FP16=1     also build the half kernels (cl_khr_fp16)
//   -D CPU_ROWS=1     adds cpu_rows' kernel (epsilon_cpu_rows.cl)
//   -D SAMPLE_BITS=16 16-bit samples (grey one ushort a pixel, RGBA one ulong, R in the low 16 bits): the
//                     forms in `#if SAMPLE_BITS == 16` blocks; packed and the half kernels stay 8-bit only
// Size, radius, threshold and border are kernel arguments, so one build serves every call.
//
// Exactness: every compare is on integers (or on integer-valued halves below 2048, which are exact),
// and sums are integers. The host keeps r <= 32: one window row then sums to at most 65 * 255 = 16575
// and a window counts at most 65 * 65 = 4225 pixels, both within 16 bits; window sums are 32-bit.
// 16-bit samples: a window row sums to at most 65 * 65535 (row sums are 32-bit too) and a window to at
// most 4225 * 65535 < 2^29; counts stay 16-bit. The border constant arrives as the value itself.

#ifndef CHANNELS
#define CHANNELS 1
#endif

#if SAMPLE_BITS == 16
// One scalar a pixel, as at 8 bits, so vloadN reads N pixels: RGBA's 4 ushorts as one ulong.
#if CHANNELS == 4
typedef ulong pix_t;
#define PIX_BASE ulong
#define COLOUR_CHANNELS 3
#else
typedef ushort pix_t;
#define PIX_BASE ushort
#define COLOUR_CHANNELS 1
#endif
#else
#if CHANNELS == 4
typedef uint pix_t;
#define PIX_BASE uint
#define COLOUR_CHANNELS 3
#else
typedef uchar pix_t;
#define PIX_BASE uchar
#define COLOUR_CHANNELS 1
#endif
#endif

#define VEC_TYPE_(base, n) base##n
#define VEC_TYPE(base, n) VEC_TYPE_(base, n)
#define PIXN(N) VEC_TYPE(PIX_BASE, N)  // N raw pixels: ucharN or uintN

// Channel k of N raw pixels as 16-bit lanes, and channel k of a result put back into raw pixels.
#if SAMPLE_BITS == 16
#if CHANNELS == 4
#define CHANNEL_N(N, v, k) convert_ushort##N(((v) >> (ulong)(16 * (k))) & (ulong)0xFFFFu)
#define PUT_CHANNEL_N(N, v, k) (convert_ulong##N(v) << (ulong)(16 * (k)))
#define ALPHA_N(N, v) ((v) & (ulong)0xFFFF000000000000ul)
#else
#define CHANNEL_N(N, v, k) convert_ushort##N(v)
#define PUT_CHANNEL_N(N, v, k) convert_ushort##N(v)
#define ALPHA_N(N, v) ((ushort##N)(0))
#endif
#else
#if CHANNELS == 4
#define CHANNEL_N(N, v, k) convert_ushort##N(((v) >> (uint)(8 * (k))) & (uint)0xFFu)
#define PUT_CHANNEL_N(N, v, k) (convert_uint##N(v) << (uint)(8 * (k)))
#define ALPHA_N(N, v) ((v) & (uint)0xFF000000u)
#else
#define CHANNEL_N(N, v, k) convert_ushort##N(v)
#define PUT_CHANNEL_N(N, v, k) convert_uchar##N(v)
#define ALPHA_N(N, v) ((uchar##N)(0))
#endif
#endif

inline uint round_div(uint s, uint n) {
  return (s + (n >> 1)) / n;
}

// The pixel at column x of `row` (NULL for a row that is all border constant), border applied to x.
inline pix_t row_pixel(__global const pix_t* row, int x, int w, int mode, pix_t cval) {
  if (!row) return cval;
  const int xx = border_index(x, w, mode);
  return xx < 0 ? cval : row[xx];
}

// Row y with the border applied, or NULL where the border constant replaces the whole row.
inline __global const pix_t* border_row(__global const pix_t* src, int y, int w, int h, int mode) {
  const int yy = border_index(y, h, mode);
  return yy < 0 ? 0 : src + yy * w;
}

#if CHANNELS == 4
#if SAMPLE_BITS == 16
inline ushort4 unpack_rgba(ulong p) {
  return (ushort4)((ushort)(p & 0xFFFFu), (ushort)((p >> 16) & 0xFFFFu), (ushort)((p >> 32) & 0xFFFFu),
                   (ushort)(p >> 48));
}
inline ulong pack_rgb_alpha(uint4 v, ulong alpha_from) {
  return (ulong)v.x | ((ulong)v.y << 16) | ((ulong)v.z << 32) | (alpha_from & 0xFFFF000000000000ul);
}
#else
// The 4 channels of an RGBA pixel in 16-bit lanes (shifts, so the byte order of the device is irrelevant).
inline ushort4 unpack_rgba(uint p) {
  return (ushort4)((ushort)(p & 0xFFu), (ushort)((p >> 8) & 0xFFu), (ushort)((p >> 16) & 0xFFu), (ushort)(p >> 24));
}
inline uint pack_rgb_alpha(uint4 v, uint alpha_from) {
  return v.x | (v.y << 8) | (v.z << 16) | (alpha_from & 0xFF000000u);
}
#endif
#endif

#if SAMPLE_BITS == 16
// The border constant (0..65535, not packed like 8-bit RGBA's) in every channel of a pixel.
inline pix_t cval_pixel(uint v) {
#if CHANNELS == 4
  return (ulong)v * 0x0001000100010001ul;
#else
  return (ushort)v;
#endif
}
#endif

// ---------------------------------------------------------------------------------------------
// naive, buffer form: one output per work-item, (2r+1)^2 loads. Used where the image form cannot run
// (a driver without CL_R / CL_UNSIGNED_INT8 images, or whose image kernels do not build).
__kernel void eps_naive_buffer(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int T, int mode,
                               uint cval_bits) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
#if SAMPLE_BITS == 16
  const pix_t cval = cval_pixel(cval_bits);
#else
  const pix_t cval = (pix_t)cval_bits;
#endif
  const pix_t centre = src[y * w + x];
#if CHANNELS == 4
  const uint4 c = convert_uint4(unpack_rgba(centre));
  uint4 s = 0, n = 0;
#else
  const uint c = centre;
  uint s = 0, n = 0;
#endif
  for (int dy = -r; dy <= r; ++dy) {
    __global const pix_t* row = border_row(src, y + dy, w, h, mode);
    for (int dx = -r; dx <= r; ++dx) {
#if CHANNELS == 4
      const uint4 p = convert_uint4(unpack_rgba(row_pixel(row, x + dx, w, mode, cval)));
      const int4 counted = abs_diff(p, c) <= (uint4)((uint)T);
      s += select((uint4)(0), p, counted);
      n += select((uint4)(0), (uint4)(1), counted);
#else
      const uint p = row_pixel(row, x + dx, w, mode, cval);
      if (abs_diff(p, c) <= (uint)T) {
        s += p;
        ++n;
      }
#endif
    }
  }
#if CHANNELS == 4
  dst[y * w + x] = pack_rgb_alpha((s + (n >> 1)) / n, centre);
#else
#if SAMPLE_BITS == 16
  dst[y * w + x] = (pix_t)round_div(s, n);
#else
  dst[y * w + x] = (uchar)round_div(s, n);
#endif
#endif
}

#if HAS_IMAGES
// naive (seed 000 "Naive implementation", seed 003 9.2.1): an image object, one output per work-item,
// (2r+1)^2 texel reads. Grey reads a CL_R image, RGBA a CL_RGBA one. Unlike the seed (CL_UNORM_INT8
// and read_imagef) the texels are CL_UNSIGNED_INT8 read with read_imageui, so |p - c| <= T is an
// integer compare and cannot disagree with the reference at |p - c| = T.
// The seed leaves the edges to the sampler's addressing. Here every mode maps its coordinates with
// border_index and reads inside the image: relying on CLK_ADDRESS_CLAMP_TO_EDGE for replicate gave
// wrong edge pixels on PoCL 5 (integer reads, unnormalised coordinates), and reflect101 and constant
// have no sampler equivalent anyway.
__constant sampler_t kInside = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void eps_naive_image(__read_only image2d_t src, __global pix_t* dst, int w, int h, int r, int T, int mode,
                              uint cval_bits) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const uint4 c = read_imageui(src, kInside, (int2)(x, y));
#if SAMPLE_BITS == 16
  const uint4 cval = (uint4)(cval_bits);
#else
  const uint4 cval = (uint4)(cval_bits & 0xFFu);
#endif
  const uint4 t = (uint4)((uint)T);
  uint4 s = 0, n = 0;
  for (int dy = -r; dy <= r; ++dy) {
    const int yy = border_index(y + dy, h, mode);
    for (int dx = -r; dx <= r; ++dx) {
      const int xx = border_index(x + dx, w, mode);
      const uint4 p = (xx < 0 || yy < 0) ? cval : read_imageui(src, kInside, (int2)(xx, yy));
#if CHANNELS == 4
      const int4 counted = abs_diff(p, c) <= t;
      s += select((uint4)(0), p, counted);
      n += select((uint4)(0), (uint4)(1), counted);
#else
      if (abs_diff(p.x, c.x) <= t.x) {  // CL_R: the pixel is in .x
        s.x += p.x;
        ++n.x;
      }
#endif
    }
  }
#if SAMPLE_BITS == 16
#if CHANNELS == 4
  dst[y * w + x] = pack_rgb_alpha((s + (n >> 1)) / n, (ulong)c.w << 48);
#else
  dst[y * w + x] = (pix_t)round_div(s.x, n.x);
#endif
#else
#if CHANNELS == 4
  dst[y * w + x] = pack_rgb_alpha((s + (n >> 1)) / n, c.w << 24);
#else
  dst[y * w + x] = (uchar)round_div(s.x, n.x);
#endif
#endif
}
#endif  // HAS_IMAGES

// ---------------------------------------------------------------------------------------------
// packed (seed 000 step 1, seed 003 9.2.2): 16-bit arithmetic on 4 values per vector.
// Grey: a window row is read as ceil((2r+1)/4) uchar4 loads widened to ushort4 (3 per row for r = 4:
// 27 loads instead of 81, as in the seed); lanes past the window's 2r+1 columns are masked off.
// RGBA: one uint load is one pixel, its 4 channels compared and summed in the lanes of one ushort4.
#if SAMPLE_BITS == 16
// 8-bit only: its 16-bit row sums and uint pixels do not hold 16-bit samples.
#else
__kernel void eps_packed(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int T, int mode,
                         uint cval_bits) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const pix_t cval = (pix_t)cval_bits;
  const pix_t centre = src[y * w + x];
  const ushort4 t = (ushort4)((ushort)T);
  uint4 s = 0;
  ushort4 n = 0;
#if CHANNELS == 4
  const ushort4 c = unpack_rgba(centre);
  const bool inside_x = x - r >= 0 && x + r < w;
  for (int dy = -r; dy <= r; ++dy) {
    __global const uint* row = border_row(src, y + dy, w, h, mode);
    ushort4 row_sum = 0;  // at most (2r+1) * 255 per lane
    for (int dx = -r; dx <= r; ++dx) {
      const ushort4 p = unpack_rgba((row && inside_x) ? row[x + dx] : row_pixel(row, x + dx, w, mode, cval));
      const short4 counted = abs_diff(p, c) <= t;
      row_sum += select((ushort4)(0), p, counted);
      n -= as_ushort4(counted);  // counted is -1 where the pixel counts
    }
    s += convert_uint4(row_sum);
  }
  dst[y * w + x] = pack_rgb_alpha((s + convert_uint4(n >> (ushort)1)) / convert_uint4(n), centre);
#else
  const ushort4 c = (ushort4)((ushort)centre);
  const int chunks = (2 * r + 4) / 4;  // ceil((2r+1) / 4)
  const int x0 = x - r;
  const bool inside_x = x0 >= 0 && x0 + 4 * chunks <= w;  // every lane of every chunk inside the row
  const ushort4 lane = (ushort4)(0, 1, 2, 3);
  const ushort4 last_column = (ushort4)((ushort)(2 * r));
  for (int dy = -r; dy <= r; ++dy) {
    __global const uchar* row = border_row(src, y + dy, w, h, mode);
    ushort4 row_sum = 0;
    for (int k = 0; k < chunks; ++k) {
      const int xs = x0 + 4 * k;
      ushort4 p;
      if (row && inside_x) {
        p = convert_ushort4(vload4(0, row + xs));
      } else {
        p = (ushort4)(row_pixel(row, xs, w, mode, cval), row_pixel(row, xs + 1, w, mode, cval),
                      row_pixel(row, xs + 2, w, mode, cval), row_pixel(row, xs + 3, w, mode, cval));
      }
      const short4 counted = (abs_diff(p, c) <= t) & (lane + (ushort4)((ushort)(4 * k)) <= last_column);
      row_sum += select((ushort4)(0), p, counted);
      n -= as_ushort4(counted);
    }
    s += convert_uint4(row_sum);
  }
  const uint total = s.x + s.y + s.z + s.w;
  const uint count = (uint)n.x + n.y + n.z + n.w;
  dst[y * w + x] = (uchar)round_div(total, count);
#endif
}
#endif  // SAMPLE_BITS == 16

// ---------------------------------------------------------------------------------------------
// vec4, vec8, vec16 (seed 000 steps 2, 3a, 3b; seed 003 9.2.3, 9.2.4): N adjacent outputs per
// work-item. For each window offset dx one N-wide vector load gives the pixel at that offset for all N
// outputs, so a row of the window costs 2r+1 vector loads for N outputs. The row loop is unrolled by
// two. RGBA runs the same loop once per colour channel (k), extracting that channel's bytes.
// Windows that reach past the left or right edge (and the last, partial group of a row) gather their
// lanes through border_index instead of vector loads; stores past the row end are dropped.

// Two forms of the per-pixel step. select: the compare chooses what is added (steps 2 and 3).
// branchless (step 5): the compare becomes a 0/1 multiplier, so every lane runs the same arithmetic.
#define ACCUMULATE_SELECT(N, p, c, t, row_sum, n)     \
  {                                                   \
    const short##N in_ = abs_diff(p, c) <= (t);       \
    row_sum += select((ushort##N)(0), p, in_);        \
    n += select((ushort##N)(0), (ushort##N)(1), in_); \
  }
#define ACCUMULATE_BRANCHLESS(N, p, c, t, row_sum, n)              \
  {                                                                \
    const ushort##N one_ = as_ushort##N(-(abs_diff(p, c) <= (t))); \
    row_sum += one_ * (p);                                         \
    n += one_;                                                     \
  }

#define DEFINE_PIXEL_IO(N)                                                                                   \
  /* N raw pixels from column xs of `row` (NULL: a border-constant row); `fast` when xs .. xs+N-1 lie in     \
     the row, else each lane goes through border_index. */                                                   \
  inline PIXN(N) load_pixels##N(__global const pix_t* row, int xs, int w, int mode, pix_t cval, bool fast) { \
    if (!row) return (PIXN(N))(cval);                                                                        \
    if (fast) return vload##N(0, row + xs);                                                                  \
    pix_t lanes[N];                                                                                          \
    for (int i = 0; i < N; ++i) lanes[i] = row_pixel(row, xs + i, w, mode, cval);                            \
    return vload##N(0, lanes);                                                                               \
  }                                                                                                          \
  /* Stores N outputs at column x0, dropping those past the row end. */                                      \
  inline void store_pixels##N(__global pix_t* row, int x0, int w, PIXN(N) v) {                               \
    if (x0 + N <= w) {                                                                                       \
      vstore##N(v, 0, row + x0);                                                                             \
      return;                                                                                                \
    }                                                                                                        \
    pix_t lanes[N];                                                                                          \
    vstore##N(v, 0, lanes);                                                                                  \
    for (int i = 0; i < w - x0; ++i) row[x0 + i] = lanes[i];                                                 \
  }

#define DEFINE_VEC_ROW(N, FORM, ACCUMULATE)                                                                   \
  /* One window row for N outputs and colour channel k: returns the row's sums, adds to the counts. */        \
  inline ushort##N eps_row##N##_##FORM(__global const pix_t* row, int x0, int r, int w, int mode, pix_t cval, \
                                       bool fast, int k, ushort##N c, ushort##N t, ushort##N* n) {            \
    ushort##N row_sum = 0, count = *n;                                                                        \
    for (int dx = -r; dx <= r; ++dx) {                                                                        \
      const ushort##N p = CHANNEL_N(N, load_pixels##N(row, x0 + dx, w, mode, cval, fast), k);                 \
      ACCUMULATE(N, p, c, t, row_sum, count)                                                                  \
    }                                                                                                         \
    *n = count;                                                                                               \
    return row_sum;                                                                                           \
  }

#define DEFINE_VEC_KERNEL(N, FORM)                                                                                  \
  __kernel void eps_vec##N##_##FORM(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int T,     \
                                    int mode, uint cval_bits) {                                                     \
    const int x0 = get_global_id(0) * N, y = get_global_id(1);                                                      \
    if (x0 >= w || y >= h) return;                                                                                  \
    const pix_t cval = (pix_t)cval_bits;                                                                            \
    const bool fast = x0 - r >= 0 && x0 + N + r <= w;                                                               \
    /* The centres come through the same border path as the dx = 0 loads, so lanes past the row end */              \
    /* (computed, never stored) also count their own centre and never divide by zero. */                            \
    const PIXN(N) centre = load_pixels##N(src + y * w, x0, w, mode, cval, x0 + N <= w);                             \
    const ushort##N t = (ushort##N)((ushort)T);                                                                     \
    PIXN(N) out = ALPHA_N(N, centre);                                                                               \
    for (int k = 0; k < COLOUR_CHANNELS; ++k) {                                                                     \
      const ushort##N c = CHANNEL_N(N, centre, k);                                                                  \
      uint##N s = 0;                                                                                                \
      ushort##N n = 0;                                                                                              \
      for (int dy = -r; dy < r; dy += 2) { /* rows unrolled by two: 2r+1 rows are r pairs and one more */           \
        s += convert_uint##N(                                                                                       \
            eps_row##N##_##FORM(border_row(src, y + dy, w, h, mode), x0, r, w, mode, cval, fast, k, c, t, &n));     \
        s += convert_uint##N(                                                                                       \
            eps_row##N##_##FORM(border_row(src, y + dy + 1, w, h, mode), x0, r, w, mode, cval, fast, k, c, t, &n)); \
      }                                                                                                             \
      s += convert_uint##N(                                                                                         \
          eps_row##N##_##FORM(border_row(src, y + r, w, h, mode), x0, r, w, mode, cval, fast, k, c, t, &n));        \
      const uint##N count = convert_uint##N(max(n, (ushort##N)(1)));                                                \
      out |= PUT_CHANNEL_N(N, (s + (count >> (uint)1)) / count, k);                                                 \
    }                                                                                                               \
    store_pixels##N(dst + y * w, x0, w, out);                                                                       \
  }

#if SAMPLE_BITS == 16
#include "epsilon_vec16.cl"
#endif

DEFINE_PIXEL_IO(4)
DEFINE_PIXEL_IO(8)
DEFINE_PIXEL_IO(16)
DEFINE_VEC_ROW(4, select, ACCUMULATE_SELECT)
DEFINE_VEC_ROW(8, select, ACCUMULATE_SELECT)
DEFINE_VEC_ROW(16, select, ACCUMULATE_SELECT)
DEFINE_VEC_ROW(4, branchless, ACCUMULATE_BRANCHLESS)
DEFINE_VEC_ROW(8, branchless, ACCUMULATE_BRANCHLESS)
DEFINE_VEC_KERNEL(4, select)
DEFINE_VEC_KERNEL(8, select)
DEFINE_VEC_KERNEL(16, select)
DEFINE_VEC_KERNEL(4, branchless)
DEFINE_VEC_KERNEL(8, branchless)

// ---------------------------------------------------------------------------------------------
// local (seed 000 step 4, seed 003 9.2.5): the work-group's tile plus its halo, (4 lw + 2r) x (lh + 2r)
// pixels, is loaded into local memory once, with one barrier; then each work-item computes 4 adjacent
// outputs as vec4 does, reading only local memory. The border is applied while loading the tile, so
// the compute loop has no edge cases. The host sizes `tile`.
__kernel void eps_local(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int T, int mode,
                        uint cval_bits, __local pix_t* tile) {
  const int lw = get_local_size(0), lh = get_local_size(1);
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int gx0 = get_group_id(0) * lw * 4, gy0 = get_group_id(1) * lh;
  const int tw = lw * 4 + 2 * r, th = lh + 2 * r;
#if SAMPLE_BITS == 16
  const pix_t cval = cval_pixel(cval_bits);
#else
  const pix_t cval = (pix_t)cval_bits;
#endif
  for (int i = ly * lw + lx; i < tw * th; i += lw * lh) {
    const int ty = i / tw, tx = i - ty * tw;
    tile[i] = row_pixel(border_row(src, gy0 - r + ty, w, h, mode), gx0 - r + tx, w, mode, cval);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int x0 = gx0 + lx * 4, y = gy0 + ly;
  if (x0 >= w || y >= h) return;
  __local const pix_t* window = tile + ly * tw + lx * 4;  // top-left of the 4 outputs' windows
  const PIXN(4) centre = vload4(0, window + r * tw + r);
  const ushort4 t = (ushort4)((ushort)T);
  PIXN(4) out = ALPHA_N(4, centre);
  for (int k = 0; k < COLOUR_CHANNELS; ++k) {
    const ushort4 c = CHANNEL_N(4, centre, k);
    uint4 s = 0;
    ushort4 n = 0;
    for (int dy = 0; dy <= 2 * r; ++dy) {
      __local const pix_t* row = window + dy * tw;
#if SAMPLE_BITS == 16
      uint4 row_sum = 0;
#else
      ushort4 row_sum = 0;
#endif
      for (int dx = 0; dx <= 2 * r; ++dx) {
        const ushort4 p = CHANNEL_N(4, vload4(0, row + dx), k);
        ACCUMULATE_SELECT(4, p, c, t, row_sum, n)
      }
      s += convert_uint4(row_sum);
    }
    const uint4 count = convert_uint4(max(n, (ushort4)(1)));  // lanes past the row end see their own centre
    out |= PUT_CHANNEL_N(4, (s + (count >> (uint)1)) / count, k);
  }
  store_pixels4(dst + y * w, x0, w, out);
}

// ---------------------------------------------------------------------------------------------
#if HAS_FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
// half forms (seed 003 9.2.2 and 9.2.3: pixels and arithmetic in fp16; seed 000 step 5's
// `cond = convert_half4(-(fabs(c - p) <= T)); sum += cond * p; cnt += cond`).
// Exact: pixels, T and |p - c| are integers <= 255, which fp16 holds exactly, so the compare equals the
// integer one. Sums of integers stay exact in fp16 up to 2048, so each lane adds at most 8 pixels
// (8 * 255 = 2040) in half before the partial sums are flushed into 32-bit integers.
#define HALF_FLUSH_EVERY 8

// packed_half: packed with half4 lanes.
__kernel void eps_packed_half(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int T, int mode,
                              uint cval_bits) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const pix_t cval = (pix_t)cval_bits;
  const pix_t centre = src[y * w + x];
  const half4 t = (half4)((half)T);
  half4 part_sum = (half4)(0), part_count = (half4)(0);
  int pending = 0;
  uint4 s = 0, n = 0;
#if CHANNELS == 4
  const half4 c = convert_half4(unpack_rgba(centre));
  for (int dy = -r; dy <= r; ++dy) {
    __global const uint* row = border_row(src, y + dy, w, h, mode);
    for (int dx = -r; dx <= r; ++dx) {
      const half4 p = convert_half4(unpack_rgba(row_pixel(row, x + dx, w, mode, cval)));
      const half4 one = convert_half4(-(fabs(p - c) <= t));
      part_sum += one * p;
      part_count += one;
      if (++pending == HALF_FLUSH_EVERY) {
        s += convert_uint4(part_sum);
        n += convert_uint4(part_count);
        part_sum = part_count = (half4)(0);
        pending = 0;
      }
    }
  }
  s += convert_uint4(part_sum);
  n += convert_uint4(part_count);
  dst[y * w + x] = pack_rgb_alpha((s + (n >> 1)) / n, centre);
#else
  const half4 c = (half4)((half)centre);
  const int chunks = (2 * r + 4) / 4;
  const int x0 = x - r;
  const bool inside_x = x0 >= 0 && x0 + 4 * chunks <= w;
  const int4 lane = (int4)(0, 1, 2, 3);
  for (int dy = -r; dy <= r; ++dy) {
    __global const uchar* row = border_row(src, y + dy, w, h, mode);
    for (int k = 0; k < chunks; ++k) {
      const int xs = x0 + 4 * k;
      half4 p;
      if (row && inside_x) {
        p = convert_half4(vload4(0, row + xs));
      } else {
        p = convert_half4((uchar4)(row_pixel(row, xs, w, mode, cval), row_pixel(row, xs + 1, w, mode, cval),
                                   row_pixel(row, xs + 2, w, mode, cval), row_pixel(row, xs + 3, w, mode, cval)));
      }
      const short4 counted = convert_short4(fabs(p - c) <= t) & convert_short4(lane + 4 * k <= (int4)(2 * r));
      const half4 one = convert_half4(-counted);
      part_sum += one * p;
      part_count += one;
      if (++pending == HALF_FLUSH_EVERY) {
        s += convert_uint4(part_sum);
        n += convert_uint4(part_count);
        part_sum = part_count = (half4)(0);
        pending = 0;
      }
    }
  }
  s += convert_uint4(part_sum);
  n += convert_uint4(part_count);
  dst[y * w + x] = (uchar)round_div(s.x + s.y + s.z + s.w, n.x + n.y + n.z + n.w);
#endif
}

// vec4_half: vec4 (4 outputs per work-item, vector loads) with half4 arithmetic.
__kernel void eps_vec4_half(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int T, int mode,
                            uint cval_bits) {
  const int x0 = get_global_id(0) * 4, y = get_global_id(1);
  if (x0 >= w || y >= h) return;
  const pix_t cval = (pix_t)cval_bits;
  const bool fast = x0 - r >= 0 && x0 + 4 + r <= w;
  const PIXN(4) centre = load_pixels4(src + y * w, x0, w, mode, cval, x0 + 4 <= w);
  const half4 t = (half4)((half)T);
  PIXN(4) out = ALPHA_N(4, centre);
  for (int k = 0; k < COLOUR_CHANNELS; ++k) {
    const half4 c = convert_half4(CHANNEL_N(4, centre, k));
    half4 part_sum = (half4)(0), part_count = (half4)(0);
    int pending = 0;
    uint4 s = 0, n = 0;
    for (int dy = -r; dy <= r; ++dy) {
      __global const pix_t* row = border_row(src, y + dy, w, h, mode);
      for (int dx = -r; dx <= r; ++dx) {
        const half4 p = convert_half4(CHANNEL_N(4, load_pixels4(row, x0 + dx, w, mode, cval, fast), k));
        const half4 one = convert_half4(-(fabs(p - c) <= t));
        part_sum += one * p;
        part_count += one;
        if (++pending == HALF_FLUSH_EVERY) {
          s += convert_uint4(part_sum);
          n += convert_uint4(part_count);
          part_sum = part_count = (half4)(0);
          pending = 0;
        }
      }
    }
    s += convert_uint4(part_sum);
    n += convert_uint4(part_count);
    n = max(n, (uint4)(1));
    out |= PUT_CHANNEL_N(4, (s + (n >> (uint)1)) / n, k);
  }
  store_pixels4(dst + y * w, x0, w, out);
}
#endif  // HAS_FP16

#include "epsilon_regblock.cl"

// cpu_rows: for CPU devices (its own build, -D CPU_ROWS=1, so that a refused build still leaves the others').
#if CPU_ROWS
#include "epsilon_cpu_rows.cl"
#endif
