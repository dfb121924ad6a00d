// SPDX-License-Identifier: Apache-2.0
// Included by epsilon.cl in 16-bit builds (-D SAMPLE_BITS=16) only.
// 16-bit samples: the row sums are 32-bit (65 * 65535), so the steps widen each counted pixel; the kernel is the
// 8-bit one but for the border constant (cval_pixel).
#undef ACCUMULATE_SELECT
#undef ACCUMULATE_BRANCHLESS
#undef DEFINE_VEC_ROW
#undef DEFINE_VEC_KERNEL
#define ACCUMULATE_SELECT(N, p, c, t, row_sum, n)               \
  {                                                             \
    const short##N in_ = abs_diff(p, c) <= (t);                 \
    row_sum += convert_uint##N(select((ushort##N)(0), p, in_)); \
    n += select((ushort##N)(0), (ushort##N)(1), in_);           \
  }
#define ACCUMULATE_BRANCHLESS(N, p, c, t, row_sum, n)              \
  {                                                                \
    const ushort##N one_ = as_ushort##N(-(abs_diff(p, c) <= (t))); \
    row_sum += convert_uint##N(one_ * (p));                        \
    n += one_;                                                     \
  }
#define DEFINE_VEC_ROW(N, FORM, ACCUMULATE)                                                                            \
  inline uint##N eps_row##N##_##FORM(__global const pix_t* row, int x0, int r, int w, int mode, pix_t cval, bool fast, \
                                     int k, ushort##N c, ushort##N t, ushort##N* n) {                                  \
    uint##N row_sum = 0;                                                                                               \
    ushort##N count = *n;                                                                                              \
    for (int dx = -r; dx <= r; ++dx) {                                                                                 \
      const ushort##N p = CHANNEL_N(N, load_pixels##N(row, x0 + dx, w, mode, cval, fast), k);                          \
      ACCUMULATE(N, p, c, t, row_sum, count)                                                                           \
    }                                                                                                                  \
    *n = count;                                                                                                        \
    return row_sum;                                                                                                    \
  }
#define DEFINE_VEC_KERNEL(N, FORM)                                                                                  \
  __kernel void eps_vec##N##_##FORM(__global const pix_t* src, __global pix_t* dst, int w, int h, int r, int T,     \
                                    int mode, uint cval_bits) {                                                     \
    const int x0 = get_global_id(0) * N, y = get_global_id(1);                                                      \
    if (x0 >= w || y >= h) return;                                                                                  \
    const pix_t cval = cval_pixel(cval_bits);                                                                       \
    const bool fast = x0 - r >= 0 && x0 + N + r <= w;                                                               \
    const PIXN(N) centre = load_pixels##N(src + y * w, x0, w, mode, cval, x0 + N <= w);                             \
    const ushort##N t = (ushort##N)((ushort)T);                                                                     \
    PIXN(N) out = ALPHA_N(N, centre);                                                                               \
    for (int k = 0; k < COLOUR_CHANNELS; ++k) {                                                                     \
      const ushort##N c = CHANNEL_N(N, centre, k);                                                                  \
      uint##N s = 0;                                                                                                \
      ushort##N n = 0;                                                                                              \
      for (int dy = -r; dy < r; dy += 2) {                                                                          \
        s += eps_row##N##_##FORM(border_row(src, y + dy, w, h, mode), x0, r, w, mode, cval, fast, k, c, t, &n);     \
        s += eps_row##N##_##FORM(border_row(src, y + dy + 1, w, h, mode), x0, r, w, mode, cval, fast, k, c, t, &n); \
      }                                                                                                             \
      s += eps_row##N##_##FORM(border_row(src, y + r, w, h, mode), x0, r, w, mode, cval, fast, k, c, t, &n);        \
      const uint##N count = convert_uint##N(max(n, (ushort##N)(1)));                                                \
      out |= PUT_CHANNEL_N(N, (s + (count >> (uint)1)) / count, k);                                                 \
    }                                                                                                               \
    store_pixels##N(dst + y * w, x0, w, out);                                                                       \
  }
