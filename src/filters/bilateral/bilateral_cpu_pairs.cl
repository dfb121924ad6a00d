// SPDX-License-Identifier: Apache-2.0
// cpu_rows with pairs=1: the weight of a pair of pixels p, q = p + (dx, dy) is symmetric, w(p, q) = w(q, p) (the
// spatial term depends on |d| only, the range term on |I(p) - I(q)|, and p' - q' is exact in the ring's floats),
// so each pair is weighed once, for the window's forward half only (dy > 0, or dy == 0 and dx > 0): p's sums get
// w q' and w in registers, as cpu_rows' taps do, and q's get w p' and w added into q's accumulators (unaligned
// load, add, store). Per tap about 27 zmm operations for 16 pixels where cpu_rows has 23, for half the taps.
//
// Each band keeps r + 1 input rows (its output row y and the r below) and as many accumulator rows (the
// CPU_PLANES sums and the weights' sum), in rings of the same slots. Row y is final once its own forward pairs are
// in (the rows above have added theirs), so its outputs are its registers plus its accumulators; its slot then
// takes row y + r + 1, zeroed. A band starts r rows above its first: those rows add only the pairs that reach
// into the band. The steps run over the border's columns too (-r .. w + r - 1, from -r rounded down to a step):
// pixels outside the image are in the windows of those inside, and a pair is added by its p only. Pixels past the
// border's columns are zeros in the ring; their pairs reach only accumulator columns outside the image, never
// read. The centre weighs exactly 1 (cpu_rows: its exp2 of 0, 1 - 7e-5).
//
// The taps come in the host's order (spatial_log2_table): a column at a time from dx = r down, so that a tap's
// accumulator store and the next load that overlaps it (same row) are a column's taps apart, since a load that
// overlaps an in-flight store it is not contained in waits for the store to reach the cache; and the row's own
// (dy = 0) taps come first, long before the step reads its accumulators back.
//
// Layout of band b's part of `scratch`, in floats, from b * (r + 1) * (2 * CPU_PLANES + 1) * stride: the r + 1
// ring slots, plane k of slot s at (s * CPU_PLANES + k) * stride, then the r + 1 accumulator slots, plane k (the
// CPU_PLANES sums, then the weights') of slot s at ((r + 1) * CPU_PLANES + s * (CPU_PLANES + 1) + k) * stride;
// element i of a plane is column i - CPU_PAIRS_PAD(r): the leftmost step's leftmost q, -r rounded down to a step,
// minus r. The host's stride leaves room for the rightmost step's (stride >= w + 2r + pad + 16).
#define CPU_PAIRS_PAD(r) (((r) + 15) / 16 * 16 + (r))
// The forward half of the largest window (kMaxBilateralRadius 16): (33^2 - 1) / 2 taps.
#define CPU_PAIRS_MAX_TAPS 544

// A floatL at any float's address: PoCL's vstore16 stores in 16-byte pieces, four stores where one does.
typedef floatL __attribute__((aligned(4))) cpu_floatL_u;
#define CPU_LOAD(p) (*(__global const cpu_floatL_u*)(p))
#define CPU_STORE(v, p) (*(__global cpu_floatL_u*)(p) = (v))

// The forward pairs of one step at column x of row y: tap t's q from qptr[t] + x, its accumulators at aptr[t] + x,
// its spatial exponent sp[t]. The sums of p (this step's pixels, centre planes c[]) go into sums[] and the
// returned weight sum. `l1` and `clamp` are constants at every call, so each call is a loop of its own with no
// test in it. The planes are named variables, not arrays indexed in loops: PoCL leaves such loops rolled and the
// arrays on the stack.
__attribute__((always_inline)) inline floatL cpu_pairs_step(__global const float* const* qptr,
                                                            __global float* const* aptr, const float* sp, int taps,
                                                            int stride, int x, const floatL* c, float scale,
                                                            const int l1, const int clamp, floatL* sums) {
  (void)scale;
  (void)l1;
  const floatL c0 = c[0];
  floatL s0 = c0, wsum = 1.0f;  // the centre
#if CHANNELS == 4
  const floatL c1 = c[1], c2 = c[2];
  floatL s1 = c1, s2 = c2;
#endif
  for (int t = 0; t < taps; ++t) {
    __global const float* qrow = qptr[t] + x;
    __global float* arow = aptr[t] + x;
    const float sp_t = sp[t];
    const floatL q0 = CPU_LOAD(qrow);
#if SAMPLE_BITS == 16
    const floatL d0 = (q0 - c0) * scale;
#else
    const floatL d0 = q0 - c0;
#endif
#if CHANNELS == 4
    const floatL q1 = CPU_LOAD(qrow + stride), q2 = CPU_LOAD(qrow + 2 * stride);
#if SAMPLE_BITS == 16
    const floatL d1 = (q1 - c1) * scale, d2 = (q2 - c2) * scale;
#else
    const floatL d1 = q1 - c1, d2 = q2 - c2;
#endif
    floatL e;
    if (l1) {
      const floatL n = fabs(d0) + fabs(d1) + fabs(d2);
      e = fma(n, -n, (floatL)sp_t);
    } else {
      e = fma(d0, -d0, fma(d1, -d1, fma(d2, -d2, (floatL)sp_t)));
    }
#else
    const floatL e = fma(d0, -d0, (floatL)sp_t);
#endif
    const floatL wt = cpu_exp2(e, clamp);
    s0 = fma(wt, q0, s0);
    CPU_STORE(fma(wt, c0, CPU_LOAD(arow)), arow);
#if CHANNELS == 4
    s1 = fma(wt, q1, s1);
    s2 = fma(wt, q2, s2);
    CPU_STORE(fma(wt, c1, CPU_LOAD(arow + stride)), arow + stride);
    CPU_STORE(fma(wt, c2, CPU_LOAD(arow + 2 * stride)), arow + 2 * stride);
#endif
    wsum += wt;
    CPU_STORE(CPU_LOAD(arow + CPU_PLANES * stride) + wt, arow + CPU_PLANES * stride);
  }
  sums[0] = s0;
#if CHANNELS == 4
  sums[1] = s1;
  sums[2] = s2;
#endif
  return wsum;
}

// Zeroes accumulator slot `a` (all its planes, the whole stride).
inline void cpu_zero_acc(__global float* a, int stride) {
  for (int i = 0; i < (CPU_PLANES + 1) * stride; i += 16) vstore16((float16)0.0f, 0, a + i);
}

__kernel void bilateral_cpu_pairs(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int mode,
                                  uint cval_bits, int l1, __constant const float* spatial_log2, float scale, int clamp,
                                  int band_rows, int stride, __global float* scratch, int in_stride, int in_off,
                                  int out_stride, int out_off, int row_begin, int row_end) {
  const int slots = r + 1, pad = CPU_PAIRS_PAD(r);
  const int y0 = row_begin + get_global_id(0) * band_rows, y1 = min(y0 + band_rows, row_end), lead = y0 - r;
  const pix_t cval = (pix_t)cval_bits;
  const long slot_floats = (long)CPU_PLANES * stride, acc_floats = (long)(CPU_PLANES + 1) * stride;
  __global float* ring = scratch + (long)get_global_id(0) * slots * (slot_floats + acc_floats);
  __global float* acc = ring + slots * slot_floats;
  // The forward half's taps, in the order the step takes them (spatial_log2_table): their count, then dy, column
  // i (dx = i - r) and spatial exponent each.
  __constant const float* tap_table = spatial_log2 + (2 * r + 1) * (2 * r + 3);
  __global const float* qptr[CPU_PAIRS_MAX_TAPS];
  __global float* aptr[CPU_PAIRS_MAX_TAPS];
  float sp[CPU_PAIRS_MAX_TAPS];
  // The lead rows but the last, which the loop adds; every accumulator zeroed.
  for (int y = lead; y < lead + r; ++y)
    cpu_fill_ring_row(src, ring + (y - lead) * slot_floats, y, w, h, r, pad, mode, cval, scale, stride, in_stride,
                      in_off);
  for (int s = 0; s < slots; ++s) cpu_zero_acc(acc + s * acc_floats, stride);
  for (int y = lead; y < y1; ++y) {
    const int slot_y = (y - lead) % slots;
    // Row y + r takes the slot of row y - 1, which is final; the lead's first row takes a slot zeroed above.
    const int slot_new = slot_y == 0 ? r : slot_y - 1;
    cpu_fill_ring_row(src, ring + slot_new * slot_floats, y + r, w, h, r, pad, mode, cval, scale, stride, in_stride,
                      in_off);
    if (y > lead) cpu_zero_acc(acc + slot_new * acc_floats, stride);
    __global const float* centre = ring + slot_y * slot_floats + pad;
    __global const float* own = acc + slot_y * acc_floats + pad;
    // The row's taps with their addresses (at step 0), so that the tap loop reads them: no slot arithmetic or
    // window bounds in it. A lead row takes only the pairs that reach into the band, rows y0 - y and more below.
    const int dy_min = max(y0 - y, 0);
    int taps = 0;
    for (int t = 0; t < (int)tap_table[0]; ++t) {
      const int dy = (int)tap_table[1 + 3 * t], i = (int)tap_table[2 + 3 * t];
      if (dy < dy_min) continue;
      const int s = slot_y + dy < slots ? slot_y + dy : slot_y + dy - slots;
      qptr[taps] = ring + s * slot_floats + pad - r + i;
      aptr[taps] = acc + s * acc_floats + pad - r + i;
      sp[taps++] = tap_table[3 + 3 * t];
    }
    // Steps over the border's columns too (-r .. -1, w .. w + r - 1), whose forward pairs reach into the image.
    for (int x = -((r + LANES - 1) / LANES) * LANES; x < w + r; x += LANES) {
      floatL c[CPU_PLANES], sums[CPU_PLANES];
      for (int k = 0; k < CPU_PLANES; ++k) c[k] = VLOADL(0, centre + k * stride + x);
      floatL wsum;
#define CPU_PAIRS_STEP(L1, CLAMP) cpu_pairs_step(qptr, aptr, sp, taps, stride, x, c, scale, L1, CLAMP, sums)
#if CHANNELS == 4
      if (l1)
        wsum = clamp ? CPU_PAIRS_STEP(1, 1) : CPU_PAIRS_STEP(1, 0);
      else
        wsum = clamp ? CPU_PAIRS_STEP(0, 1) : CPU_PAIRS_STEP(0, 0);
#else
      wsum = clamp ? CPU_PAIRS_STEP(0, 1) : CPU_PAIRS_STEP(0, 0);
#endif
#undef CPU_PAIRS_STEP
      if (y < y0 || x < 0 || x >= w) continue;
      // The rows above and this row's own pairs from the left are in the accumulators by now.
      for (int k = 0; k < CPU_PLANES; ++k) sums[k] += VLOADL(0, own + k * stride + x);
      wsum += VLOADL(0, own + CPU_PLANES * stride + x);
      cpu_store_step(src, dst, w, y, x, sums, wsum, scale, in_stride, in_off, out_stride, out_off);
    }
  }
}
