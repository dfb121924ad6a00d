// SPDX-License-Identifier: Apache-2.0
// fused_blocks: fused_sliding with fewer instructions per pixel, since at 8k that variant issues
// about as many integer instructions as the SMs can (not from a seed).
// - Work-item t keeps the column sums of ITEMS consecutive columns in registers and moves them down
//   a row with two aligned vector loads; only the finished sums go through local memory.
// - The horizontal window starts from block sums: each work-item also publishes the total of its
//   ITEMS columns, so a window of d columns costs about d / ITEMS + 2 ITEMS local reads per ITEMS
//   outputs instead of d + 2 ITEMS.
// - Local buffers alternate between rows, so one barrier per row suffices.
// - WINDOW_PACKED=1 (d <= 15): window sums also stay two 16-bit channels per uint.
// Columns: work-item t sums columns gx0 - ra + t*ITEMS .. + ITEMS-1 with ra = d/2 rounded up to
// ITEMS (aligned loads); the last `halo` work-items only feed their neighbours' windows.
#if ITEMS == 2
typedef uint2 pixvec_t;
#elif ITEMS == 4
typedef uint4 pixvec_t;
#elif ITEMS == 8
typedef uint8 pixvec_t;
#endif
typedef union {
  pixvec_t v;
  uint a[ITEMS];
} pix_items;
#if WINDOW_PACKED
typedef csum_t wsum_t;
#define TO_WSUM(v) (v)
#define WSUM_CHANNELS(v) CSUM_CHANNELS(v)
#else
typedef acc_t wsum_t;
#define TO_WSUM(v) CSUM_CHANNELS(v)
#define WSUM_CHANNELS(v) (v)
#endif
#define ENTRY_STRIDE (ITEMS + 2)  // csum_t entries per work-item; the 2 spare ones spread the banks

// The ITEMS pixels of row yy (-1: a constant row) from column cx on; xk holds the columns' border
// indices, computed once per work-item (they do not change with the row), which keeps the edge
// work-groups' path short and the register count near the aligned path's.
inline void load_items(__global const uint* src, int yy, int cx, int w, uint cval, bool aligned, const int* xk,
                       uint* p) {
  if (yy < 0) {
    for (int k = 0; k < ITEMS; ++k) p[k] = cval;
  } else if (aligned) {
    pix_items u;
    u.v = *(__global const pixvec_t*)(src + yy * w + cx);
    for (int k = 0; k < ITEMS; ++k) p[k] = u.a[k];
  } else {
    for (int k = 0; k < ITEMS; ++k) p[k] = xk[k] < 0 ? cval : src[yy * w + xk[k]];
  }
}

// Border indices of the ITEMS columns from cx on (unused on the aligned path).
inline void item_columns(int cx, int w, int mode, bool aligned, int* xk) {
  for (int k = 0; k < ITEMS; ++k) xk[k] = aligned ? 0 : border_index(cx + k, w, mode);
}

// The rounded mean of a window sum, packed. FLOAT_ROUND=1 (d <= 128) rounds in FP32, whose lanes
// outnumber INT32's two to one: s to float by the 2^23 exponent trick, one FMA with 1/n and a bias
// of (n/2 + 0.5)/n - 0.5, and round-to-nearest through 1.5 * 2^23, which leaves the result in the low
// byte. Exact for every s <= 255 d^2 when d <= 128 (checked exhaustively against (s + n/2) / n with
// float32 arithmetic); otherwise the integer magic_round_div.
inline uint round_pack(acc_t s, uint twice_half, uint magic, uint shift, float inv_n, float bias) {
#if FLOAT_ROUND
  const uint4 q = as_uint4(fma(as_float4(s | 0x4B000000u) - 8388608.0f, (float4)inv_n, (float4)bias) + 12582912.0f);
  return (q.x & 0xFFu) | ((q.y & 0xFFu) << 8) | ((q.z & 0xFFu) << 16) | (q.w << 24);
#else
  return PACK(magic_round_div(s, twice_half, magic, shift));
#endif
}

__kernel void box_fused_blocks(__global const uint* src, __global uint* dst, int w, int h, int d, int mode, uint cval,
                               int strip, uint twice_half, uint magic, uint shift, float inv_n, float bias,
                               __local csum_t* entries, __local wsum_t* blocks) {
  const int lx = get_local_id(0), L = get_local_size(0);
  const int r = d / 2, ra = (r + ITEMS - 1) / ITEMS * ITEMS, a = ra - r;
  const int halo = (a + d - 1 + ITEMS - 1) / ITEMS;
  const int tw = (L - halo) * ITEMS;
  const int gx0 = get_group_id(0) * tw, cx = gx0 - ra + lx * ITEMS;
  const int y0 = get_group_id(1) * strip, y1 = min(y0 + strip, h);
  // Vector loads need whole, in-image, ITEMS-aligned runs for the entire work-group.
  const bool aligned = w % ITEMS == 0 && gx0 - ra >= 0 && gx0 - ra + L * ITEMS <= w;

  int xk[ITEMS];
  item_columns(cx, w, mode, aligned, xk);
  csum_t col[ITEMS];
  uint p_in[ITEMS], p_out[ITEMS];
  for (int k = 0; k < ITEMS; ++k) col[k] = 0;
  // Two rows per step so two loads are in flight: with short strips (small images) this start-up
  // chain of d dependent loads is most of a work-group's time.
  int j = 0;
  for (; j + 1 < d; j += 2) {
    load_items(src, border_index(y0 - r + j, h, mode), cx, w, cval, aligned, xk, p_in);
    load_items(src, border_index(y0 - r + j + 1, h, mode), cx, w, cval, aligned, xk, p_out);
    for (int k = 0; k < ITEMS; ++k) col[k] += TO_CSUM(p_in[k]) + TO_CSUM(p_out[k]);
  }
  if (j < d) {
    load_items(src, border_index(y0 - r + j, h, mode), cx, w, cval, aligned, xk, p_in);
    for (int k = 0; k < ITEMS; ++k) col[k] += TO_CSUM(p_in[k]);
  }

  // The rows entering and leaving the window of the next output row are loaded one row ahead, so
  // their latency overlaps this row's barrier and horizontal pass.
  if (y0 + 1 < y1) {
    load_items(src, border_index(y0 + 1 - r + d - 1, h, mode), cx, w, cval, aligned, xk, p_in);
    load_items(src, border_index(y0 - r, h, mode), cx, w, cval, aligned, xk, p_out);
  }
  const int s0 = lx * ITEMS + a;  // first column of this work-item's first window
  for (int y = y0; y < y1; ++y) {
    if (y > y0) {
      for (int k = 0; k < ITEMS; ++k) col[k] = col[k] + TO_CSUM(p_in[k]) - TO_CSUM(p_out[k]);
      if (y + 1 < y1) {
        load_items(src, border_index(y + 1 - r + d - 1, h, mode), cx, w, cval, aligned, xk, p_in);
        load_items(src, border_index(y - r, h, mode), cx, w, cval, aligned, xk, p_out);
      }
    }
    const int buf = (y - y0) & 1;
    __local csum_t* e = entries + buf * L * ENTRY_STRIDE;
    __local wsum_t* b = blocks + buf * L;
    wsum_t total = 0;
    for (int k = 0; k < ITEMS; ++k) {
      e[lx * ENTRY_STRIDE + k] = col[k];
      total += TO_WSUM(col[k]);
    }
    b[lx] = total;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lx >= L - halo) continue;
#define ENTRY(i) e[(i) / ITEMS * ENTRY_STRIDE + (i) % ITEMS]
    // Window [s0, s0 + d): a head up to a block boundary, whole blocks, a tail.
    wsum_t s = 0;
    int i = s0;
    const int end = s0 + d;
    for (; i < end && i % ITEMS != 0; ++i) s += TO_WSUM(ENTRY(i));
    for (; i + ITEMS <= end; i += ITEMS) s += b[i / ITEMS];
    for (; i < end; ++i) s += TO_WSUM(ENTRY(i));
    pix_items o;
    for (int k = 0; k < ITEMS; ++k) {
      o.a[k] = round_pack(WSUM_CHANNELS(s), twice_half, magic, shift, inv_n, bias);
      if (k + 1 < ITEMS) {
        // Add before subtracting: packed lanes never go below zero.
        s += TO_WSUM(ENTRY(s0 + k + d));
        s -= TO_WSUM(a == 0 ? col[k] : ENTRY(s0 + k));
      }
    }
#undef ENTRY
    const int x = gx0 + lx * ITEMS;
    if (w % ITEMS == 0 && x + ITEMS <= w) {
      *(__global pixvec_t*)(dst + y * w + x) = o.v;
    } else {
      for (int k = 0; k < ITEMS; ++k)
        if (x + k < w) dst[y * w + x + k] = o.a[k];
    }
  }
}
