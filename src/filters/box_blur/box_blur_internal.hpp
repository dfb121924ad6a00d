// SPDX-License-Identifier: Apache-2.0
// The box blur's internals: a call's description, its variant table, and the work-group shapes the variants
// derive from their tunables.
#pragma once

#include "clfilters/box_blur.hpp"
#include "filters/image_call.hpp"

namespace clf {

using BoxBlurCall = ImageCall<BoxBlurParams>;
// The filter's public device calls, as its launcher (box_blur.cpp) and FilterSpec run them.
extern const ImageFilterApi<BoxBlurParams> kBoxBlurApi;
// Every box blur variant, in the order the seeds introduce them (box_blur_variants.cpp).
const ImageTable<BoxBlurParams>& box_blur_table();

// fused_sliding's exact rounding multiplies instead of dividing, which is exact while
// d*d*255 + d*d/2 < 2^30. (16-bit samples round otherwise: box_blur.cl's round_div16, for every d <= 255.)
inline constexpr int kMaxFusedDiameter = 2047;

struct FusedShape {
  int local_x;                   // work-items per work-group
  int items;                     // consecutive output columns per work-item
  int strip;                     // rows per work-group
  std::size_t column_sum_bytes;  // local memory for the column sums
  std::size_t row_out_bytes;     // local memory for one output row
};

// fused_sliding's work-group shape for these tunables (0 values resolved from d) and the local memory
// it needs.
FusedShape box_fused_shape(const DeviceInfo& device, const VariantInfo& info, const TuningConfig& config, int diameter,
                           int channels, SampleType type = SampleType::u8);

}  // namespace clf

namespace clf {

struct BlocksShape {
  int local_x;                 // work-items per work-group
  int items;                   // consecutive columns per work-item
  int strip;                   // rows per work-group
  int halo;                    // work-items at the right end that only sum columns for their neighbours
  bool window_packed = false;  // fused_blocks: window sums fit two 16-bit channels per uint (d <= 15)
  int prefetch = 1;            // fused_prefix, fused_packed, fused_wide: rows of input loaded ahead per work-item
  int mirror = 0;              // the same three: odd strips run upwards
  bool ring = false;           // the same three: leaving rows from a local-memory ring (-D RING)
  std::size_t ring_bytes = 0;  // local memory for the ring: d rows of each work-item's pixels
  int pair = 0;  // fused_packed, fused_wide: two row lanes run mirrored strips from a shared start (-D PAIR)
  std::size_t row_lanes() const { return pair ? 2 : 1; }  // work-group rows: one per strip it runs
  int direct = 0;  // fused_packed, fused_wide: strips inside the image load rows with no border test (-D DIRECT)
  std::size_t entry_bytes;  // local memory for the column sums of two rows
  std::size_t block_bytes;  // local memory for the block sums of two rows
};

// The band variants' window offset a: a work-item's columns start d/2 rounded up to `items` before its
// outputs (so loads stay aligned), and its first window starts a columns into its block (WIN_A in
// box_blur.cl).
inline int box_window_offset(int items, int diameter) {
  const int r = diameter / 2;
  return (r + items - 1) / items * items - r;
}

// fused_blocks' shape for these tunables and the local memory it needs.
BlocksShape box_blocks_shape(const VariantInfo& info, const TuningConfig& config, int diameter);

// fused_prefix keeps window sums in FP32 (exact below 2^24) and rounds with round_pack's FMA (exact for
// d <= 128).
inline constexpr int kMaxPrefixDiameter = 128;

// fused_prefix's shape (entry_bytes: the float4 prefixes of two rows).
BlocksShape box_prefix_shape(const VariantInfo& info, const TuningConfig& config, int diameter);

// fused_packed: window sums in 16-bit lanes (255 d^2 + d^2 / 2 < 2^16 up to d = 16) and mul_hi rounding by
// ceil(2^32 / d^2), which needs d >= 2, without a mask on the high lane, which needs d <= 15.
inline constexpr int kMinPackedDiameter = 2;
inline constexpr int kMaxPackedDiameter = 15;

// fused_packed's shape, and fused_wide's (`wide`): entry_bytes holds the column-sum pairs of two rows (and
// fused_wide's packed block sums); no block buffer.
BlocksShape box_packed_shape(const VariantInfo& info, const TuningConfig& config, int diameter, bool wide);

// fused_wide: mul_hi rounding of 32-bit channel sums is exact while 255.5 d^4 < 2^32 (d <= 64); column sums
// stay in 16-bit lanes (255 d < 2^16).
inline constexpr int kMaxWideDiameter = 64;

// The build options and kernels a call with these arguments runs (FilterInstance::build_key: the tuner times the
// candidates that share a build together).
std::string box_blur_build_key(Context& ctx, const BoxBlurParams& params, std::string_view variant, int width,
                               int height, int channels, const TuningConfig& config, SampleType type);

// fused_wide publishes a block of `items` column sums as one packed word pair (8 bytes, in an array after the
// column pairs) while its lanes cannot carry; box_blur.cl's PACKED_BLOCKS is the same test.
constexpr bool box_wide_packed_blocks(int items, int diameter) {
  return items * 255 * diameter < 65536;
}

}  // namespace clf
