// SPDX-License-Identifier: Apache-2.0
// ---------------------------------------------------------------------------------------------
// fused_packed (RGBA, 2 <= d <= 15; not from a seed): fused_prefix's vertical pass (the same
// loads, ring and start-up: this kernel is box_fused_prefix's body built with -D DIAMETER), with the row
// window kept as packed integers instead of FP32 prefixes. Why: at d <= 11 fused_prefix issues ~68
// instructions per pixel (items=4) and runs at ~64% of its issue rate, as long as its memory takes.
// - The window sum of a 16-bit lane is at most 255 d^2 + d^2 / 2 < 2^16 for d <= 16, so a window is two
//   words (R,B | G,A) like a column sum: one add-add-subtract (IADD3) per word and output slides it.
// - Local memory holds the column sums themselves (8 bytes a column), written as 16-byte pairs; each
//   work-item reads the ITEMS + d - 1 columns its outputs need, its own from registers. With d known at
//   build time every offset is static and the arrays stay in registers.
// - Rounding: (s + n/2) / n = mul_hi(s + n/2, ceil(2^32 / n)) for s + n/2 < 2^16 (the error is below
//   2^-16 < 1/n, and a quotient's fraction is at most 1 - 1/n). n/2 rides in the window from the start.
//   The high lane's quotient comes out in bits 16..23 (mul_hi of the lane unshifted), where B and A go.
//
// fused_wide (-D WIDE=1 as well; RGBA, 2 <= d <= 64; not from a seed): the same body for windows
// too wide for 16-bit lanes. Why: at d = 31 and 63 fused_prefix issues ~70 instructions per pixel, and
// fused_packed's first window costs d adds per word.
// - A sum of packed column words (lo + 2^16 hi per word) is kept whole, X, modulo 2^32, with the sum of
//   their high lanes, H, beside it: then the high channel is H and the low one X - 2^16 H, exact while the
//   low channel's sum is below 2^32. One IADD3 per word slides X, one more (and the entering column's
//   shift) H: no unpacking of lanes.
// - Each work-item also publishes its block of ITEMS columns as (X, H) in the pad entry of its column
//   pairs, so a first window is its head columns, d / ITEMS whole blocks and its tail columns.
// - Rounding: mul_hi(s + n/2, ceil(2^32 / n)) as in fused_packed, now on 32-bit channels: the error is
//   below (255.5 n) / 2^32, less than 1/n while 255.5 n^2 < 2^32, i.e. d <= 64.
#if WIDE
#define FUSED_KERNEL box_fused_wide
#else
#define FUSED_KERNEL box_fused_packed
#endif
#define WINDOW_ARGS uint magic, uint half_n, __local uint4 *cbuf
#define CPAIRS (ITEMS / 2 + 1)  // uint4 entries per work-item: ITEMS / 2 pairs and a pad
// fused_wide's published block sums: while a block's lanes cannot carry (ITEMS * 255 * d < 2^16) a block is its
// packed word sum X alone, H being X >> 16, so it takes 8 bytes in an array of its own after the column pairs (the
// host's box_wide_packed_blocks), read without bank conflicts, instead of (X, H) in the pad entry; and BLOCK_GROUP
// blocks whose lanes still cannot carry are added before their high lanes are taken. Why: at d = 31 the 7 block
// reads from the pad entries are 112 of a work-item's 144 bytes of local reads a row.
#define PACKED_BLOCKS (WIDE && ITEMS * 255 * DIAMETER < 65536)
#if PACKED_BLOCKS
#define BLOCK_GROUP (65535 / (ITEMS * 255 * DIAMETER))
#elif DELTA
#error "DELTA reads its blocks from the packed block sums (ITEMS * 255 * DIAMETER < 65536)"
#endif
#if PACKED_BLOCKS
// Row buffer buf's block array (lane ly's, with pair), after all the column pairs.
#define BLOCK_SUMS ((__local uint2*)(cbuf + 2 * (PAIR + 1) * L * CPAIRS) + (PAIR ? 2 * ly + buf : buf) * L)
#endif
// fused_wide reads other work-items' columns WIDE_LO .. WIN_A + d + ITEMS - 2 of the band (its first window's tail and
// its entering columns; its leaving columns are within those or its own), WIDE_LO a multiple of ITEMS: so columns
// 0 .. READ_COLS - 1 of a block.
#define WIDE_END (WIN_A + DIAMETER)
#define WIDE_LO (WIDE_END > ITEMS ? WIDE_END / ITEMS * ITEMS : ITEMS)
#define READ_COLS min(ITEMS, WIDE_END + ITEMS - 1 - WIDE_LO)
#define M0 (WIN_A & ~1)                               // first column read: pairs start at even columns
#define NPAIRS ((WIN_A + ITEMS + DIAMETER - M0) / 2)  // columns WIN_A .. WIN_A + ITEMS + d - 2, as pairs

// On NVIDIA (NV_PTX_FTZ marks its PTX) mul_hi as one IMAD.HI; clang's PTX otherwise widens it to a
// 64-bit multiply and shifts.
#if NV_PTX_FTZ
inline uint packed_mul_hi(uint a, uint b) {
  uint r;
  asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
#else
#define packed_mul_hi mul_hi
#endif

// The rounded means of a packed window (s + n/2 per lane), packed RGBA. The high lane needs no mask:
// mul_hi of the whole word adds s_lo * magic / 2^32 < 256 to the high lane's 16 fraction bits, which
// stay below 2^16 because the high quotient's fraction is at most 1 - 1/n and 256.5 / 2^16 < 1/n for
// n <= 225 (d <= 15).
inline uint packed_round(uint2 s, uint magic) {
  const uint rb = (packed_mul_hi(s.x, magic) & 0xFF0000u) | packed_mul_hi(s.x & 0xFFFFu, magic);
  const uint ga = (packed_mul_hi(s.y, magic) & 0xFF0000u) | packed_mul_hi(s.y & 0xFFFFu, magic);
  return rb | (ga << 8);
}

// fused_wide's rounded means of a window kept as (X, H) per word (n/2 included), packed RGBA.
inline uint wide_round(uint2 x, uint2 hi, uint magic) {
  const uint r = packed_mul_hi(x.x - (hi.x << 16), magic), b = packed_mul_hi(hi.x, magic);
  const uint g = packed_mul_hi(x.y - (hi.y << 16), magic), a = packed_mul_hi(hi.y, magic);
  // Bytes below 256, so adds: three LEA or IMAD where ORs take five instructions with their shifts.
  return r + (b << 16) + ((g + (a << 16)) << 8);
}

// Column m of the band counted from work-item lx's first column: its own from registers, else from the
// pair local memory holds (the pair read twice for two columns of one pair is one load after CSE).
inline uint2 wide_column(__local const uint4* e, int lx, int m, const uint2* col) {
  if (m < ITEMS) return col[m];
  const uint4 v = e[(lx + m / ITEMS) * CPAIRS + (m % ITEMS) / 2];
  return m % 2 ? v.zw : v.xy;
}

// For the tests, on the device: the rounded mean of every channel sum s = get_global_id(0) (n/2 added
// here) in all four channels through wide_round, with X = v + 2^16 v wrapping modulo 2^32 as it does.
__kernel void box_wide_round_check(__global uint* out, uint magic, uint half_n, uint count) {
  const uint s = get_global_id(0);
  if (s >= count) return;
  const uint v = s + half_n;
  out[s] = wide_round((uint2)(v + (v << 16)), (uint2)(v), magic);
}

// For the tests, on the device: packed_round of the window (lo | hi << 16) in both words for every
// hi = get_global_id(0), so the high lane's unmasked mul_hi meets every value next to a given low lane.
__kernel void box_packed_round_check(__global uint* out, uint magic, uint lo) {
  const uint hi = get_global_id(0);
  out[hi] = packed_round((uint2)(lo | (hi << 16)), magic);
}
