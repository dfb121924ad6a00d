// SPDX-License-Identifier: Apache-2.0
// Reverse edge detection (docs/SPEC.md; seed 002). u is zero outside the image.
//   edge(x,y) = u(x-1,y) + u(x+1,y) + u(x,y-1) + u(x,y+1) - 4 u(x,y)
//   u_next(x,y) = (u(x-1,y) + u(x+1,y) + u(x,y-1) + u(x,y+1) - edge(x,y)) / 4      (float32)
// Every variant evaluates the update through jacobi_update, in the same order, so all of them produce
// bit-identical iterates (no -cl-fast-relaxed-math; there is no multiply-add to contract).
//
// Tolerance stop without a host round trip per iteration: each iteration t of a read-back window
// atomic_max-es its largest |u_next - u| into changes[t] as float bits (non-negative floats order like
// their bit patterns as uints). The host zeroes the window and reads it back only at its end. A launch
// first looks at the previous launch's slots [prev_from, prev_to): if one is <= tol_bits the run has
// converged, so it does nothing and leaves its own slots 0, which the next launch reads as converged
// too. The iterate of the converged iteration therefore stays in its buffer, the host finds the first
// slot <= tolerance and knows the exact count. `slot` < 0 means "do not measure".
// Only rows [rows_from, rows_to) count towards the maxima: the host call cut into bands (jacobi_bands.cpp)
// measures each band's own rows, whose values are exact, and not its halo rows; a whole image passes 0, h.

inline float jacobi_update(float left, float right, float up, float down, float e) {
  return ((left + right) + (up + down) - e) * 0.25f;  // * 0.25f is exactly / 4
}

// u at (x, y), zero outside; never reads outside the buffer.
inline float u_at(__global const float* u, int x, int y, int w, int h) {
  return (x >= 0 && x < w && y >= 0 && y < h) ? u[y * w + x] : 0.0f;
}

inline float update_at(__global const float* edges, __global const float* u, int x, int y, int w, int h) {
  return jacobi_update(u_at(u, x - 1, y, w, h), u_at(u, x + 1, y, w, h), u_at(u, x, y - 1, w, h),
                       u_at(u, x, y + 1, w, h), edges[y * w + x]);
}

// Whether an earlier iteration of this window already converged (uniform across the launch).
inline bool converged_before(__global const uint* changes, int prev_from, int prev_to, uint tol_bits) {
  for (int i = prev_from; i < prev_to; ++i)
    if (changes[i] <= tol_bits) return true;
  return false;
}

inline uint change_bits(float next, float prev) {
  return as_uint(fabs(next - prev));
}

inline bool counted_row(int y, int rows_from, int rows_to) {
  return y >= rows_from && y < rows_to;
}

// ---------------------------------------------------------------------------------------------
// Edge map: one pixel per work-item.
__kernel void jacobi_edges(__global const float* u, __global float* edges, int w, int h) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const float c = u[y * w + x];
  edges[y * w + x] =
      ((u_at(u, x - 1, y, w, h) + u_at(u, x + 1, y, w, h)) + (u_at(u, x, y - 1, w, h) + u_at(u, x, y + 1, w, h))) -
      4.0f * c;
}

// ---------------------------------------------------------------------------------------------
// seed 002, starting point (inverseEdgeDetect1D_col): one work-item per row, looping over the
// columns. Neighbouring work-items touch addresses a whole row apart: uncoalesced on purpose.
// host_roundtrip runs this kernel too, with the host copy between iterations.
__kernel void jacobi_col1d(__global const float* edges, __global const float* src, __global float* dst, int w, int h,
                           __global uint* changes, int prev_from, int prev_to, int slot, uint tol_bits, int rows_from,
                           int rows_to) {
  if (converged_before(changes, prev_from, prev_to, tol_bits)) return;
  const int y = get_global_id(0);
  if (y >= h) return;
  uint m = 0;
  for (int x = 0; x < w; ++x) {
    const float v = update_at(edges, src, x, y, w, h);
    m = max(m, change_bits(v, src[y * w + x]));
    dst[y * w + x] = v;
  }
  if (slot >= 0 && m > 0 && counted_row(y, rows_from, rows_to)) atomic_max(changes + slot, m);
}

// seed 002, "Memory access": one work-item per column, looping over the rows, so neighbouring
// work-items read neighbouring addresses on every step (coalesced).
__kernel void jacobi_row1d(__global const float* edges, __global const float* src, __global float* dst, int w, int h,
                           __global uint* changes, int prev_from, int prev_to, int slot, uint tol_bits, int rows_from,
                           int rows_to) {
  if (converged_before(changes, prev_from, prev_to, tol_bits)) return;
  const int x = get_global_id(0);
  if (x >= w) return;
  uint m = 0;
  for (int y = 0; y < h; ++y) {
    const float v = update_at(edges, src, x, y, w, h);
    if (counted_row(y, rows_from, rows_to)) m = max(m, change_bits(v, src[y * w + x]));
    dst[y * w + x] = v;
  }
  if (slot >= 0 && m > 0) atomic_max(changes + slot, m);
}

// Largest of every work-item's `bits` in the work-group, added to changes[slot] with one atomic per
// group. `scratch` holds one uint per work-item; every work-item of the group must call this.
inline void group_max_to_global(uint bits, __local uint* scratch, __global uint* changes, int slot) {
  const int n = get_local_size(0) * get_local_size(1);
  const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
  scratch[lid] = bits;
  barrier(CLK_LOCAL_MEM_FENCE);
  int stride = 1;
  while (stride * 2 < n) stride *= 2;  // largest power of two below n (work-groups like 32x12 are not powers)
  for (; stride > 0; stride >>= 1) {
    if (lid < stride && lid + stride < n) scratch[lid] = max(scratch[lid], scratch[lid + stride]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0 && scratch[0] > 0) atomic_max(changes + slot, scratch[0]);
}

// seed 002, "Occupancy": a 2D decomposition, one pixel per work-item; the host swaps the buffers
// between iterations. The work-group shape is the tunable the seed investigates (8x8, 16x16, 32x12).
// restrict (not in the seed) lets NVIDIA read u and the edges through the read-only path (LDG.CONSTANT).
// ROWS (build option, 1..16; beyond the seed when > 1): each work-item owns ROWS pixels of its column,
// local_y rows apart, so a work-group covers local_x x (local_y * ROWS) pixels and every load of a warp
// is still one contiguous row. All 6 * ROWS loads (u's four neighbours and centre, the edge) are issued
// before any arithmetic: more bytes in flight per work-item, which one pixel each (ROWS 1, the seed's
// kernel) lacks to approach copy bandwidth. The arithmetic is jacobi_update in the same order.
#ifndef ROWS
#define ROWS 1
#endif
__kernel void jacobi_tiled2d(__global const float* restrict edges, __global const float* restrict src,
                             __global float* restrict dst, int w, int h, __global uint* changes, int prev_from,
                             int prev_to, int slot, uint tol_bits, int rows_from, int rows_to, __local uint* scratch) {
  if (converged_before(changes, prev_from, prev_to, tol_bits)) return;
  const int ly = get_local_size(1);
  const int x = get_global_id(0);
  const int y0 = get_group_id(1) * ly * ROWS + get_local_id(1);  // row r: y0 + r * ly (ROWS 1: get_global_id(1))
  uint bits = 0;
  if (x < w && y0 < h) {
    float lft[ROWS], rgt[ROWS], up[ROWS], down[ROWS], mid[ROWS], e[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int y = y0 + r * ly;  // rows past the image's bottom (the last group) load zeros, never memory
      lft[r] = u_at(src, x - 1, y, w, h);
      rgt[r] = u_at(src, x + 1, y, w, h);
      up[r] = u_at(src, x, y - 1, w, h);
      down[r] = u_at(src, x, y + 1, w, h);
      mid[r] = u_at(src, x, y, w, h);
      e[r] = y < h ? edges[y * w + x] : 0.0f;
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int y = y0 + r * ly;
      if (y >= h) break;
      const float v = jacobi_update(lft[r], rgt[r], up[r], down[r], e[r]);
      if (counted_row(y, rows_from, rows_to)) bits = max(bits, change_bits(v, mid[r]));
      dst[y * w + x] = v;
    }
  }
  if (slot >= 0) group_max_to_global(bits, scratch, changes, slot);  // slot is uniform: no divergent barrier
}

// ---------------------------------------------------------------------------------------------
// Beyond the seed: temporal blocking. One launch runs `steps` (1..16) iterations. Each work-group
// owns a tile the size of the work-group and loads it with a halo of `steps` pixels (u and edges) into
// local memory. Step s updates every position at least s from the loaded region's border: those are
// exactly the global iterate s, because their dependencies reach one pixel further per step (the
// overlapping ghost zones). After `steps` steps the still-exact region is the owned tile, which is
// written out. Positions outside the image stay 0 (SPEC's boundary). The arithmetic is jacobi_update,
// so the iterates equal one-step Jacobi bit for bit.
//
// Measuring: step s's largest change over the owned pixels (whose values are exact) is reduced over
// the work-group and added to changes[slot + s - 1]: the exact per-iteration maxima. A tree reduction
// per step, as in tiled2d: an earlier form (a local atomic_max per step, then one global atomic per step
// after the loop) corrupted host memory on PoCL 3.1's CPU device, for reasons not found.
// The host sizes ua, ub and le to (lw + 2*steps) x (lh + 2*steps) floats, scratch to lw*lh uints.
__kernel void jacobi_temporal(__global const float* edges, __global const float* src, __global float* dst, int w, int h,
                              int steps, __global uint* changes, int prev_from, int prev_to, int slot, uint tol_bits,
                              int rows_from, int rows_to, __local float* ua, __local float* ub, __local float* le,
                              __local uint* scratch) {
  if (converged_before(changes, prev_from, prev_to, tol_bits)) return;
  const int lw = get_local_size(0), lh = get_local_size(1);
  const int n = lw * lh;
  const int lid = get_local_id(1) * lw + get_local_id(0);
  const int ew = lw + 2 * steps, eh = lh + 2 * steps;  // loaded region
  const int gx0 = get_group_id(0) * lw - steps, gy0 = get_group_id(1) * lh - steps;
  const bool measure = slot >= 0;

  for (int p = lid; p < ew * eh; p += n) {
    const int gx = gx0 + p % ew, gy = gy0 + p / ew;
    const bool inside = gx >= 0 && gx < w && gy >= 0 && gy < h;
    ua[p] = inside ? src[gy * w + gx] : 0.0f;
    le[p] = inside ? edges[gy * w + gx] : 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  __local float* cur = ua;
  __local float* nxt = ub;
  for (int s = 1; s <= steps; ++s) {
    const int rw = ew - 2 * s, rh = eh - 2 * s;  // positions s .. e-s-1 on each axis
    uint m = 0;
    for (int q = lid; q < rw * rh; q += n) {
      const int ex = s + q % rw, ey = s + q / rw;
      const int p = ey * ew + ex;
      const int gx = gx0 + ex, gy = gy0 + ey;
      float v = 0.0f;
      if (gx >= 0 && gx < w && gy >= 0 && gy < h) {
        v = jacobi_update(cur[p - 1], cur[p + 1], cur[p - ew], cur[p + ew], le[p]);
        const bool owned =
            ex >= steps && ex < steps + lw && ey >= steps && ey < steps + lh && counted_row(gy, rows_from, rows_to);
        if (measure && owned) m = max(m, change_bits(v, cur[p]));
      }
      nxt[p] = v;
    }
    if (measure) group_max_to_global(m, scratch, changes, slot + s - 1);  // uniform: no divergent barrier
    barrier(CLK_LOCAL_MEM_FENCE);
    __local float* t = cur;
    cur = nxt;
    nxt = t;
  }

  // After the last step the computed region is exactly the owned tile.
  for (int q = lid; q < lw * lh; q += n) {
    const int ex = steps + q % lw, ey = steps + q / lw;
    const int gx = gx0 + ex, gy = gy0 + ey;
    if (gx < w && gy < h) dst[gy * w + gx] = cur[ey * ew + ex];
  }
}

// ---------------------------------------------------------------------------------------------
// Not from a seed: streaming strips, one step per launch. Each work-item computes VEC columns x ROWS
// rows: one VEC-float load per row of u (ROWS + 2 rows, the vertical neighbours stay in registers),
// one per row of the edges, one store per row, and the two horizontal neighbours across the vector's
// ends as scalar loads that the neighbouring work-items' vectors have already brought into L1 (no local
// memory, no barrier). Every load is issued before any arithmetic, so ~ROWS * (2 VEC + 2) + 2 VEC floats
// are in flight per work-item. Build options: VEC (1, 2, 4), ROWS (1..16), ALIGNED (1 when w % VEC == 0:
// whole aligned vector loads and stores instead of vloadn/vstoren).
// The helpers below take private arrays by pointer: inlined (clang's NVPTX inliner declines a large
// helper called several times), the arrays stay in registers instead of the stack.
#define FORCE_INLINE __attribute__((always_inline)) inline

// Only the programs built for strip define VEC (PoCL's CPU build of this file slows down with every
// kernel it holds).
#ifdef VEC

// VEC floats of row y from column x (x < w), zero outside the image.
FORCE_INLINE void strip_load(__global const float* restrict p, int x, int y, int w, int h, float* out) {
  if (y < 0 || y >= h) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) out[i] = 0.0f;
    return;
  }
  __global const float* row = p + y * w + x;
  if (x + VEC <= w) {
#if VEC == 4
#if ALIGNED
    const float4 v = *(__global const float4*)row;
#else
    const float4 v = vload4(0, row);
#endif
    out[0] = v.s0, out[1] = v.s1, out[2] = v.s2, out[3] = v.s3;
#elif VEC == 2
#if ALIGNED
    const float2 v = *(__global const float2*)row;
#else
    const float2 v = vload2(0, row);
#endif
    out[0] = v.s0, out[1] = v.s1;
#else
    out[0] = row[0];
#endif
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i) out[i] = x + i < w ? row[i] : 0.0f;
  }
}

// Writes the columns of v that lie inside the image (x < w, y < h).
FORCE_INLINE void strip_store(__global float* restrict p, int x, int y, int w, const float* v) {
  __global float* row = p + y * w + x;
  if (x + VEC <= w) {
#if VEC == 4
#if ALIGNED
    *(__global float4*)row = (float4)(v[0], v[1], v[2], v[3]);
#else
    vstore4((float4)(v[0], v[1], v[2], v[3]), 0, row);
#endif
#elif VEC == 2
#if ALIGNED
    *(__global float2*)row = (float2)(v[0], v[1]);
#else
    vstore2((float2)(v[0], v[1]), 0, row);
#endif
#else
    row[0] = v[0];
#endif
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i)
      if (x + i < w) row[i] = v[i];
  }
}

__kernel void jacobi_strip(__global const float* restrict edges, __global const float* restrict src,
                           __global float* restrict dst, int w, int h, __global uint* changes, int prev_from,
                           int prev_to, int slot, uint tol_bits, int rows_from, int rows_to, __local uint* scratch) {
  if (converged_before(changes, prev_from, prev_to, tol_bits)) return;
  const int x = get_global_id(0) * VEC, y0 = get_global_id(1) * ROWS;
  const bool measure = slot >= 0;
  uint bits = 0;
  if (x < w && y0 < h) {
    float u[ROWS + 2][VEC], e[ROWS][VEC], left[ROWS], right[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r) strip_load(src, x, y0 - 1 + r, w, h, u[r]);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      strip_load(edges, x, y0 + r, w, h, e[r]);
      left[r] = u_at(src, x - 1, y0 + r, w, h);
      right[r] = u_at(src, x + VEC, y0 + r, w, h);
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      if (y0 + r >= h) break;
      float v[VEC];
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const float l = i == 0 ? left[r] : u[r + 1][i - 1];
        const float rt = i == VEC - 1 ? right[r] : u[r + 1][i + 1];
        v[i] = jacobi_update(l, rt, u[r][i], u[r + 2][i], e[r][i]);
        // Columns past the image's right edge are not pixels: their change must not count.
        if (measure && x + i < w && counted_row(y0 + r, rows_from, rows_to))
          bits = max(bits, change_bits(v[i], u[r + 1][i]));
      }
      strip_store(dst, x, y0 + r, w, v);
    }
  }
  if (measure) group_max_to_global(bits, scratch, changes, slot);  // slot is uniform: no divergent barrier
}
#endif  // VEC

// ---------------------------------------------------------------------------------------------
// Not from a seed: temporal blocking as a skewed wavefront (the register-streaming form of 2.5D
// blocking in stencil compilers such as AN5D). A work-group of local_x work-items owns a band of
// COLS * local_x columns (its own ones plus a halo of STEPS on each side) and `rows` output rows. It
// sweeps down the band one input row per step; at step j, level t (the t-th iterate, t = 1..STEPS)
// computes row j - t from level t-1's rows j-t-1, j-t, j-t+1, which this work-item holds in registers
// (level t-1's row j-t+1 was made earlier in the same step). Horizontal neighbours cross work-items
// through local memory: each level's newest row (first and last column of each work-item) is written
// at step j and read at step j + 1, double-buffered, so one barrier per step serves every level.
// DRAM traffic per launch: u and the edges read once (plus the halos), u written once, i.e. 12 B/px
// for `steps` iterations. Values at halo columns and in the first rows of the sweep go wrong one pixel
// per level, and only the owned region, exact after STEPS levels, is written or measured. Positions
// outside the image are set to 0 at every level (SPEC's boundary). The arithmetic is jacobi_update, so
// the iterates equal one-step Jacobi bit for bit. A launch may run steps < STEPS iterations (the last
// launch of a call, or a rerun up to the converged iteration): levels past `steps` copy their input.
// Build options: STEPS (1..16), COLS (1, 2, 4). Local memory: `first` and `last_cols` hold
// 2 * STEPS * (local_x + 2) floats each (`last_cols` unused when COLS is 1).
// Only the programs built for wavefront define STEPS and COLS.
#ifdef STEPS

// Row y of p at this work-item's columns, zero outside the image.
FORCE_INLINE void wf_load(__global const float* restrict p, const int* xc, const bool* in_x, int y, int w, int h,
                          float* out) {
  const bool row_in = y >= 0 && y < h;
#pragma unroll
  for (int c = 0; c < COLS; ++c) out[c] = row_in && in_x[c] ? p[y * w + xc[c]] : 0.0f;
}

// What every step of a work-group's sweep shares.
typedef struct {
  __global const float* edges;
  __global const float* src;
  __global float* dst;
  __local uint* first;  // floats as bits: the same words hold uints for the reduction at the end
  __local uint* last;
  int w, h, steps, y0, y_end, i, pitch;
  int rows_from, rows_to;  // the rows whose change counts
  bool measure;
  int xc[COLS];
  bool in_x[COLS], own[COLS];
} WfSweep;

// Step s of the sweep (input row j = y0 - STEPS + s). Level t's window is (p[t], q[t], r[t]) = rows
// (j-t-3, j-t-2, j-t-1) on entry; its new row j - t replaces the oldest, p[t], so the next step passes
// (q, r, p): the rows rotate by renaming, without moves. `checks`: zero outside the image and copy past
// `steps` (false only where neither can happen); `ramp`: level t has valid inputs from step 2t only.
FORCE_INLINE void wf_step(const WfSweep* sw, int s, bool checks, bool ramp, float p[STEPS][COLS], float q[STEPS][COLS],
                          float r[STEPS][COLS], float ed[STEPS + 1][COLS], float nu[2][COLS], float ne[2][COLS],
                          uint m[STEPS]) {
  const int j = sw->y0 - STEPS + s;
  __local const uint* rd = sw->first + ((s + 1) & 1) * STEPS * sw->pitch + sw->i;  // written at step s - 1
  __local const uint* rdl = sw->last + ((s + 1) & 1) * STEPS * sw->pitch + sw->i;
  __local uint* wr = sw->first + (s & 1) * STEPS * sw->pitch + sw->i + 1;
  __local uint* wrl = sw->last + (s & 1) * STEPS * sw->pitch + sw->i + 1;
#pragma unroll
  for (int c = 0; c < COLS; ++c) {
    p[0][c] = nu[0][c];
    nu[0][c] = nu[1][c];
#pragma unroll
    for (int t = STEPS; t > 0; --t) ed[t][c] = ed[t - 1][c];
    ed[0][c] = ne[0][c];
    ne[0][c] = ne[1][c];
  }
  // Two steps ahead, so the load has a whole step to arrive.
  wf_load(sw->src, sw->xc, sw->in_x, j + 2, sw->w, sw->h, nu[1]);
  wf_load(sw->edges, sw->xc, sw->in_x, j + 2, sw->w, sw->h, ne[1]);
  wr[0] = as_uint(p[0][0]);
#if COLS > 1
  wrl[0] = as_uint(p[0][COLS - 1]);
#endif
#pragma unroll
  for (int t = 1; t <= STEPS; ++t) {
    if (ramp && 2 * t > s) break;  // uniform; every later level is not valid yet either
    const int y = j - t;
    const float lft = as_float(rdl[(t - 1) * sw->pitch]);     // left work-item's last column, level t-1, row y
    const float rgt = as_float(rd[(t - 1) * sw->pitch + 2]);  // right work-item's first column
    float v[COLS];
#pragma unroll
    for (int c = 0; c < COLS; ++c) {
      const float mid = r[t - 1][c];
      const float next = jacobi_update(c == 0 ? lft : r[t - 1][c - 1], c == COLS - 1 ? rgt : r[t - 1][c + 1],
                                       q[t - 1][c], p[t - 1][c], ed[t][c]);
      v[c] = !checks ? next : t > sw->steps ? mid : (y >= 0 && y < sw->h && sw->in_x[c] ? next : 0.0f);
    }
    const bool owned_row = y >= sw->y0 && y < sw->y_end;
    if (sw->measure && owned_row && t <= sw->steps && counted_row(y, sw->rows_from, sw->rows_to)) {
#pragma unroll
      for (int c = 0; c < COLS; ++c)
        if (sw->own[c]) m[t - 1] = max(m[t - 1], change_bits(v[c], r[t - 1][c]));
    }
    if (t < STEPS) {
#pragma unroll
      for (int c = 0; c < COLS; ++c) p[t][c] = v[c];
      wr[t * sw->pitch] = as_uint(v[0]);
#if COLS > 1
      wrl[t * sw->pitch] = as_uint(v[COLS - 1]);
#endif
    } else if (owned_row) {
#pragma unroll
      for (int c = 0; c < COLS; ++c)
        if (sw->own[c]) sw->dst[y * sw->w + sw->xc[c]] = v[c];
    }
  }
}

// Three steps with the windows' roles rotated, each followed by the barrier that publishes its rows.
// The barriers are unconditional (steps past the end only skip their work): with conditional ones
// PoCL 3.1 took minutes to compile the kernel. RAMP: whether these steps may lie in the first 2 * STEPS.
#define WF_STEP3(CHECKS, RAMP)                                                                          \
  wf_step(&sw, s, CHECKS, RAMP&& s < 2 * STEPS, wa, wb, wc, ed, nu, ne, m);                             \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                         \
  if (s + 1 < total) wf_step(&sw, s + 1, CHECKS, RAMP && s + 1 < 2 * STEPS, wb, wc, wa, ed, nu, ne, m); \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                         \
  if (s + 2 < total) wf_step(&sw, s + 2, CHECKS, RAMP && s + 2 < 2 * STEPS, wc, wa, wb, ed, nu, ne, m); \
  barrier(CLK_LOCAL_MEM_FENCE);

// Two more build options cut the instructions of each pixel-level update:
// - LOCAL_X, the work-group width: every local-memory address is then a base register plus a constant
//   (with a runtime width each level's neighbour reads and writes cost three IMADs more);
// - MEASURE: 0 builds a program that never measures the change (the host uses it for every launch
//   that does not), so the per-level tests and maxima of the tolerance stop leave the loop.
#ifndef MEASURE
#define MEASURE 1
#endif
__kernel __attribute__((reqd_work_group_size(LOCAL_X, 1, 1))) void jacobi_wavefront(
    __global const float* restrict edges, __global const float* restrict src, __global float* restrict dst, int w,
    int h, int steps, int rows, __global uint* changes, int prev_from, int prev_to, int slot, uint tol_bits,
    int rows_from, int rows_to, __local uint* first, __local uint* last_cols) {
  if (converged_before(changes, prev_from, prev_to, tol_bits)) return;
  const int tw = LOCAL_X, i = get_local_id(0);
  const int ow = COLS * tw - 2 * STEPS;  // owned columns
  const int x0 = get_group_id(0) * ow - STEPS, y0 = get_group_id(1) * rows;
  WfSweep sw;
  sw.edges = edges, sw.src = src, sw.dst = dst;
  sw.first = first;
#if COLS == 1
  sw.last = first;  // one column: the first is the last
#else
  sw.last = last_cols;
#endif
  sw.w = w, sw.h = h, sw.steps = steps, sw.y0 = y0, sw.y_end = min(y0 + rows, h), sw.i = i;
  sw.pitch = tw + 2;  // one pad on each side of a row of work-items
  sw.rows_from = rows_from, sw.rows_to = rows_to;
  sw.measure = MEASURE && slot >= 0;  // MEASURE 0: the host never passes slot >= 0
#pragma unroll
  for (int c = 0; c < COLS; ++c) {
    const int p = COLS * i + c;
    sw.xc[c] = x0 + p;
    sw.in_x[c] = sw.xc[c] >= 0 && sw.xc[c] < w;
    sw.own[c] = sw.in_x[c] && p >= STEPS && p < STEPS + ow;
  }
  // The pads stand for the columns beyond the band: their values only reach halo columns.
  for (int q = i; q < 4 * STEPS; q += tw) {
    const int at = (q >> 1) * sw.pitch + ((q & 1) ? tw + 1 : 0);
    sw.first[at] = 0;  // 0.0f
    sw.last[at] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  float wa[STEPS][COLS], wb[STEPS][COLS], wc[STEPS][COLS];  // each level's three newest rows
  float ed[STEPS + 1][COLS];                                // edges of rows j, j-1, ..., j-STEPS
  float nu[2][COLS], ne[2][COLS];                           // level 0 (u) and edges of rows j+1, j+2, loaded ahead
  uint m[STEPS];
#pragma unroll
  for (int t = 0; t < STEPS; ++t) {
    m[t] = 0;
#pragma unroll
    for (int c = 0; c < COLS; ++c) wa[t][c] = wb[t][c] = wc[t][c] = 0.0f;
  }
#pragma unroll
  for (int t = 0; t <= STEPS; ++t) {
#pragma unroll
    for (int c = 0; c < COLS; ++c) ed[t][c] = 0.0f;
  }
  wf_load(src, sw.xc, sw.in_x, y0 - STEPS, w, h, nu[0]);
  wf_load(edges, sw.xc, sw.in_x, y0 - STEPS, w, h, ne[0]);
  wf_load(src, sw.xc, sw.in_x, y0 - STEPS + 1, w, h, nu[1]);
  wf_load(edges, sw.xc, sw.in_x, y0 - STEPS + 1, w, h, ne[1]);

  // Without image borders in reach and with all STEPS levels to run, the steps after the ramp need
  // neither the zeroing nor the copy (fewer instructions per level). Every condition is uniform.
  const int total = rows + 2 * STEPS;  // the last step makes level STEPS of the last owned row
  const bool fast = steps == STEPS && x0 >= 0 && x0 + COLS * tw <= w && y0 + rows + STEPS <= h;
  const int checked = fast ? min(total, (2 * STEPS + 2) / 3 * 3) : total;  // a multiple of 3 or the end
  int s = 0;
  for (; s < checked; s += 3) {
    WF_STEP3(true, true)
  }
  for (; s < total; s += 3) {
    WF_STEP3(false, false)
  }
#if MEASURE
  // Every level's largest change over the work-group: one tree for all levels, in `first` (free now).
  // Run whether or not this launch measures: PoCL 3.1 miscompiled it inside `if (measure)` (wrong maxima
  // from the second launch on), and it costs a few barriers per work-group.
  __local uint* red = first;
#pragma unroll
  for (int t = 0; t < STEPS; ++t) red[t * tw + i] = m[t];
  barrier(CLK_LOCAL_MEM_FENCE);
  int stride = 1;
  while (stride * 2 < tw) stride *= 2;  // largest power of two below tw
  for (; stride > 0; stride >>= 1) {
    if (i < stride && i + stride < tw) {
#pragma unroll
      for (int t = 0; t < STEPS; ++t) red[t * tw + i] = max(red[t * tw + i], red[t * tw + i + stride]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (sw.measure)
    for (int t = i; t < steps; t += tw)
      if (red[t * tw] > 0) atomic_max(changes + slot + t, red[t * tw]);
#endif
}
#endif  // STEPS
