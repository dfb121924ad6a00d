// Reverse edge detection (SPEC.md; seed 002). u is zero outside the image.
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

inline uint change_bits(float next, float prev) { return as_uint(fabs(next - prev)); }

// ---------------------------------------------------------------------------------------------
// Edge map: one pixel per work-item.
__kernel void jacobi_edges(__global const float* u, __global float* edges, int w, int h) {
  const int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h) return;
  const float c = u[y * w + x];
  edges[y * w + x] = ((u_at(u, x - 1, y, w, h) + u_at(u, x + 1, y, w, h)) +
                      (u_at(u, x, y - 1, w, h) + u_at(u, x, y + 1, w, h))) - 4.0f * c;
}

// ---------------------------------------------------------------------------------------------
// seed 002, starting point (inverseEdgeDetect1D_col): one work-item per row, looping over the
// columns. Neighbouring work-items touch addresses a whole row apart: uncoalesced on purpose.
// host_roundtrip runs this kernel too, with the host copy between iterations.
__kernel void jacobi_col1d(__global const float* edges, __global const float* src, __global float* dst, int w,
                           int h, __global uint* changes, int prev_from, int prev_to, int slot, uint tol_bits) {
  if (converged_before(changes, prev_from, prev_to, tol_bits)) return;
  const int y = get_global_id(0);
  if (y >= h) return;
  uint m = 0;
  for (int x = 0; x < w; ++x) {
    const float v = update_at(edges, src, x, y, w, h);
    m = max(m, change_bits(v, src[y * w + x]));
    dst[y * w + x] = v;
  }
  if (slot >= 0 && m > 0) atomic_max(changes + slot, m);
}

// seed 002, "Memory access": one work-item per column, looping over the rows, so neighbouring
// work-items read neighbouring addresses on every step (coalesced).
__kernel void jacobi_row1d(__global const float* edges, __global const float* src, __global float* dst, int w,
                           int h, __global uint* changes, int prev_from, int prev_to, int slot, uint tol_bits) {
  if (converged_before(changes, prev_from, prev_to, tol_bits)) return;
  const int x = get_global_id(0);
  if (x >= w) return;
  uint m = 0;
  for (int y = 0; y < h; ++y) {
    const float v = update_at(edges, src, x, y, w, h);
    m = max(m, change_bits(v, src[y * w + x]));
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
__kernel void jacobi_tiled2d(__global const float* edges, __global const float* src, __global float* dst, int w,
                             int h, __global uint* changes, int prev_from, int prev_to, int slot, uint tol_bits,
                             __local uint* scratch) {
  if (converged_before(changes, prev_from, prev_to, tol_bits)) return;
  const int x = get_global_id(0), y = get_global_id(1);
  const bool inside = x < w && y < h;
  uint bits = 0;
  if (inside) {
    const float v = update_at(edges, src, x, y, w, h);
    bits = change_bits(v, src[y * w + x]);
    dst[y * w + x] = v;
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
__kernel void jacobi_temporal(__global const float* edges, __global const float* src, __global float* dst, int w,
                              int h, int steps, __global uint* changes, int prev_from, int prev_to, int slot,
                              uint tol_bits, __local float* ua, __local float* ub, __local float* le,
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
        const bool owned = ex >= steps && ex < steps + lw && ey >= steps && ey < steps + lh;
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
