// The box blur's description: its variants and tunables, what each needs from the device, the auto
// rule, and the FilterSpec that tests, benchmark, tuner and command line iterate over.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>

#include "clfilters/box_blur.hpp"
#include "common/image_compare.hpp"
#include "common/synthetic_image.hpp"
#include "filters/box_blur/box_blur_internal.hpp"
#include "filters/filter_spec.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {
namespace {

// Work-group shape of a one-pixel-per-work-item pass; local_x = 0 lets the driver choose.
const std::vector<Tunable> kLocalSize = {
    {"local_x", {0, 8, 16, 32, 64}, "work-group width (0: the driver chooses)"},
    {"local_y", {1, 2, 4, 8, 16}, "work-group height"},
};

// The strip order and leaving rows of fused_prefix, fused_packed and fused_wide (see box_blur.cl's mirror and
// RING).
// On the H200 mirrored strips tied or won everywhere (up to 10% with 64-row strips); the ring won at d = 3..11
// with 32-48-row strips and lost at d >= 15, where its local memory (d rows) costs work-groups per SM:
// bench/results/2026-11-24-nvidia-h200-ring-mirror.md.
const Tunable kMirrorTunable = {
    "mirror", {1, 0}, "odd strips run upwards (1) so neighbours share their edge rows in L2"};
Tunable ring_tunable(int default_value) {
  return {"ring",
          {default_value, 1 - default_value},
          "leaving rows from a local-memory ring of d rows (1) instead of global memory"};
}

// fused_packed's and fused_wide's tunables: one kernel body, so the same work-group shapes; the strips,
// prefetch depths and the ring's default are each one's own measurements.
std::vector<Tunable> per_d_band_tunables(std::vector<int> strips, std::vector<int> prefetch, int ring_default,
                                         int pair_default) {
  return {{"local_x", {64, 128, 32, 96}, "work-items per work-group"},
          {"items", {4, 8}, "consecutive columns per work-item"},
          {"strip", std::move(strips), "rows per strip"},
          {"prefetch", std::move(prefetch), "rows loaded ahead per work-item (1: the next row only)"},
          kMirrorTunable,
          ring_tunable(ring_default),
          {"pair",
           {pair_default, 1 - pair_default},
           "two mirrored strips per work-group, one per row lane, summing their shared start once (1; needs "
           "mirror=1, ring=0)"},
          // A tunable: it gains in pair's short strips and loses a little in long ones (bench/NOTES.md, box blur
          // step 40).
          {"direct", {0, 1}, "strips whose rows are all inside the image load them with no border test (1)"}};
}

// What the band variants ask of the device: fused_blocks, fused_prefix, fused_packed and fused_wide, each
// one work-group row of local_x work-items, halo of them producing no output, with entry and block buffers
// and the leaving-row ring in dynamic local memory and a ring of `prefetch` rows in registers.
std::optional<std::string> blocks_shape_problem(const DeviceInfo& device, std::string_view variant,
                                                const BlocksShape& shape, int d) {
  if (std::size_t(shape.local_x) * shape.row_lanes() > device.max_work_group_size)
    return fmt::format("work-group of {}x{} exceeds the device's {} work-items", shape.local_x, shape.row_lanes(),
                       device.max_work_group_size);
  if (shape.local_x <= shape.halo)
    return fmt::format("{} needs more than {} work-items per group for d={}", variant, shape.halo, d);
  // At least one byte to spare: the H200 refused (CL_OUT_OF_RESOURCES) a work-group asking for all
  // 49152 bytes it reports.
  const std::size_t local_bytes = shape.entry_bytes + shape.block_bytes + shape.ring_bytes;
  if (local_bytes >= device.local_mem_bytes)
    return fmt::format("{} needs {} bytes of local memory for d={}, the device has {} (some kept back)", variant,
                       local_bytes, d, device.local_mem_bytes);
  // Any depth is correct; at 8 the ring alone is 64 registers at items=4 (134 in all by clang's count for
  // fused_prefix, 249 at items=8), so deeper ones are refused. (fused_blocks has no ring: always 1.)
  if (shape.prefetch < 1 || shape.prefetch > 8)
    return fmt::format("{}'s prefetch must be 1..8 rows (got {})", variant, shape.prefetch);
  if (shape.pair && (shape.ring || !shape.mirror))
    return fmt::format("{}'s pair runs mirrored strips without the ring (mirror=1, ring=0)", variant);
  return std::nullopt;
}
}  // namespace

const std::vector<VariantInfo>& box_blur_variants() {
  static const std::vector<VariantInfo> all = {
      {"naive", "one pixel per work-item, d*d packed loads (seed 004 baseline)", kLocalSize},
      {"block4x4",
       "16 pixels per work-item in a 4x4 block with uint4 vector loads; cl_intel_subgroups block reads "
       "and writes where they build (seed 004)",
       kLocalSize},
      {"two_pass", "even d only: 2x2 sums into an integer temporary, then (d/2)^2 samples (seed 003 9.1.1)",
       kLocalSize},
      {"separable_sliding",
       "row pass and coalesced column pass with running sums: O(1) per pixel for any d",
       {{"row_segment", {16, 8, 32, 64}, "pixels per work-item in the row pass"},
        {"column_segment", {32, 16, 64, 128}, "rows per work-item in the column pass"}}},
      {"local_tile",
       "tile plus halo loaded once into local memory per work-group",
       {{"tile_x", {16, 8, 32}, "work-group (tile) width"}, {"tile_y", {16, 8, 4}, "work-group (tile) height"}}},
      {"fused_sliding",
       "one pass: column running sums in local memory, a sliding row window over them; input read once, "
       "no intermediate",
       {{"local_x", {64, 32, 128, 256}, "work-items per work-group"},
        {"items", {0, 1, 2, 4, 8, 16}, "consecutive output columns per work-item (0: from d)"},
        {"strip", {0, 16, 32, 64, 128, 256}, "rows per work-group (0: from d)"}}},
      {"fused_blocks",
       "RGBA: fused_sliding with column sums in registers, aligned vector loads, block sums for the row "
       "window and one barrier per row",
       {{"local_x", {64, 128, 32}, "work-items per work-group"},
        {"items", {4, 8, 2}, "consecutive columns per work-item"},
        // Short strips for small images: each row waits on its loads, so rows per work-group set the
        // critical path when there are few work-groups per SM.
        {"strip", {32, 16, 64, 128, 8, 4}, "rows per work-group"}}},
      {"fused_prefix",
       "RGBA, d <= 128: fused_blocks' column sums, the row window from FP32 prefix sums in local memory (two "
       "reads per output whatever d is, the adds on the FP32 lanes)",
       {{"local_x", {64, 128, 32, 256}, "work-items per work-group"},
        // items=4 by default: the H200 tuner picked it at every d (items=8 needs ~100 registers at
        // prefetch=1, ~146 by clang's count at prefetch=2).
        {"items", {4, 8, 2}, "consecutive columns per work-item"},
        {"strip", {64, 32, 16, 128, 256, 8, 4, 48, 96}, "rows per work-group"},
        // Each work-item has `prefetch` rows of loads in flight; on the H200 2 gained 2-7% over 1 and 4 lost
        // (bench/NOTES.md, box blur step 7). More rows cost registers (ring of 2 * items * prefetch pixels).
        {"prefetch", {2, 1, 4}, "rows loaded ahead per work-item (1: the next row only)"},
        kMirrorTunable,
        ring_tunable(0)}},
      {"fused_packed",
       "RGBA, 2 <= d <= 15: fused_prefix's column sums, the row window slid in packed 16-bit lanes from the "
       "column sums in local memory and rounded by one mul_hi per channel (built per d)",
       // Defaults from the H200 at 8k (bench/results/2026-11-24-nvidia-h200-ring-mirror.md): items=4 and
       // 32-row mirrored strips with the ring were within 3% of the best at d = 3, 9, 11 and 15. Without the
       // ring, 8-16-row strips were fastest; strips between the powers of two: shorter strips re-read more
       // rows to start, longer ones leave a larger last wave of work-groups. 56 and 80 around the H200's d = 11
       // (48-64 rows): a tie (bench/results/2026-11-27-nvidia-start-rows-retune.md, box blur step 34). 4 and 6 for
       // 1080p, whose classes had all picked 8, the shortest then listed: pair in 6-row strips took the H100's d = 9
       // kernel from 13.2-14.6 to 12.5-12.7 us (bench/results/2026-11-27-nvidia-h100-1080p-strips-d9.csv, step 45).
       per_d_band_tunables({32, 16, 8, 10, 12, 24, 40, 48, 64, 56, 80, 4, 6}, {2, 4, 1}, 1, 0)},
      {"fused_wide",
       "RGBA, 2 <= d <= 64: fused_packed for wide windows, each kept as whole 32-bit words plus the sum of "
       "their high lanes, the first one from published block sums (built per d)",
       // Defaults from the H200 at 8k (bench/results/2026-11-24-nvidia-h200-wide.md, call 2): 128-row strips
       // and prefetch 1 at d = 31 and 63, where 112 and 96 rows lost 10-25%: the work-groups then no longer
       // fit one wave. Items 8 at d = 63, where 120 rows are the shortest strips that still fit one wave
       // (ten work-groups per SM at ptxas' 84 registers): 0.266 against 0.277 ms
       // (bench/results/2026-11-24-nvidia-h200-wave-fit.md). 12 and 24 rows for pair in the H100's short
       // strips: 12 was its best at d = 31 (bench/results/2026-11-27-nvidia-h100-pair-short.md); 10, 14 and 20
       // around it, where 14 ties 12 (box blur step 34).
       per_d_band_tunables({128, 120, 64, 144, 96, 32, 160, 48, 16, 8, 12, 24, 10, 14, 20}, {1, 2, 4}, 0, 0)},
  };
  return all;
}

TileShape box_local_tile_shape(const DeviceInfo& device, const TuningConfig& config) {
  const VariantInfo& v = *find_variant(box_blur_variants(), "local_tile");
  TileShape tile{tunable_value(config, v, "tile_x"), tunable_value(config, v, "tile_y")};
  // The default 16x16 needs 256 work-items; smaller devices get 8x8.
  if (config.empty() && device.max_work_group_size < 256) tile = {8, 8};
  return tile;
}

FusedShape box_fused_shape(const DeviceInfo& device, const TuningConfig& config, int diameter, int channels) {
  const VariantInfo& v = *find_variant(box_blur_variants(), "fused_sliding");
  FusedShape shape;
  shape.local_x = tunable_value(config, v, "local_x");
  if (config.empty())
    shape.local_x = int(std::min<std::size_t>(std::size_t(shape.local_x), device.max_work_group_size));
  // The initial window costs d local reads per work-item and row, each later column two: about
  // d/4 columns per work-item keeps the first from dominating.
  shape.items = tunable_value(config, v, "items");
  if (shape.items == 0) shape.items = diameter <= 3 ? 1 : diameter <= 11 ? 4 : diameter <= 31 ? 8 : 16;
  // A strip re-reads d rows to start its column sums; 2d rows or more keeps that under a third.
  shape.strip = tunable_value(config, v, "strip");
  if (shape.strip == 0) shape.strip = std::max(64, 2 * diameter);
  const int tw = shape.local_x * shape.items;
  const std::size_t csum_bytes = channels == 1 ? 4 : diameter <= 256 ? 8 : 16;
  auto skewed = [](std::size_t n) { return n + n / 16; };
  shape.column_sum_bytes = skewed(std::size_t(tw + diameter - 1)) * csum_bytes;
  shape.row_out_bytes = skewed(std::size_t(tw)) * (channels == 4 ? 4 : 1);
  return shape;
}

BlocksShape box_blocks_shape(const TuningConfig& config, int diameter) {
  const VariantInfo& v = *find_variant(box_blur_variants(), "fused_blocks");
  BlocksShape shape;
  shape.local_x = tunable_value(config, v, "local_x");
  shape.items = tunable_value(config, v, "items");
  shape.strip = tunable_value(config, v, "strip");
  auto halo = [&] { return (box_window_offset(shape.items, diameter) + diameter - 1 + shape.items - 1) / shape.items; };
  shape.halo = halo();
  if (config.empty() && 2 * shape.halo > shape.local_x) {
    // Wide windows: by default keep at least half of the work-items producing output.
    shape.items = 8;
    shape.halo = halo();
    shape.local_x = std::max(shape.local_x, int(std::bit_ceil(unsigned(2 * shape.halo))));
  }
  shape.window_packed = diameter <= 15;
  // Two rows' worth: the buffers alternate between rows. items + 2 entries per work-item (bank spread).
  shape.entry_bytes = 2 * std::size_t(shape.local_x) * std::size_t(shape.items + 2) * (diameter <= 256 ? 8 : 16);
  shape.block_bytes = 2 * std::size_t(shape.local_x) * (shape.window_packed ? 8 : 16);
  return shape;
}

namespace {
// The tunables fused_prefix, fused_packed and fused_wide share.
BlocksShape band_tunables(const TuningConfig& config, const char* variant) {
  const VariantInfo& v = *find_variant(box_blur_variants(), variant);
  BlocksShape shape;
  shape.local_x = tunable_value(config, v, "local_x");
  shape.items = tunable_value(config, v, "items");
  shape.strip = tunable_value(config, v, "strip");
  shape.prefetch = tunable_value(config, v, "prefetch");
  shape.mirror = tunable_value(config, v, "mirror");
  shape.ring = tunable_value(config, v, "ring") != 0;
  return shape;
}

// The ring's local memory: d rows of each work-item's items pixels.
void size_ring(BlocksShape& shape, int diameter) {
  if (shape.ring) shape.ring_bytes = std::size_t(diameter) * std::size_t(shape.local_x) * std::size_t(shape.items) * 4;
}
}  // namespace

BlocksShape box_prefix_shape(const TuningConfig& config, int diameter) {
  BlocksShape shape = band_tunables(config, "fused_prefix");
  const int a = box_window_offset(shape.items, diameter);
  // Blocks up to the one holding column t * items + a + d are read (see box_fused_prefix).
  shape.halo = (a + diameter + shape.items - 1) / shape.items;
  if (config.empty() && 2 * shape.halo > shape.local_x)
    shape.local_x = std::max(shape.local_x, int(std::bit_ceil(unsigned(2 * shape.halo))));
  // Two rows' worth (the buffers alternate): items + 1 float4 prefixes per work-item, one float4 block total.
  shape.entry_bytes = 2 * std::size_t(shape.local_x) * std::size_t(shape.items + 1) * 16;
  shape.block_bytes = 2 * std::size_t(shape.local_x) * 16;
  size_ring(shape, diameter);
  return shape;
}

BlocksShape box_packed_shape(const TuningConfig& config, int diameter, const char* variant) {
  BlocksShape shape = band_tunables(config, variant);
  const int a = box_window_offset(shape.items, diameter);
  // Columns up to t * items + a + items + d - 2 are read (see box_fused_packed).
  shape.halo = (a + diameter + shape.items - 2) / shape.items;
  // Two rows' worth (the buffers alternate): items / 2 pairs of column sums per work-item and a pad entry
  // (fused_wide: the block's (X, H) there, or, while its lanes cannot carry, its 8-byte sum in an array after all
  // the pairs); with pair, for each row lane.
  const VariantInfo& v = *find_variant(box_blur_variants(), variant);
  shape.pair = tunable_value(config, v, "pair");
  shape.direct = tunable_value(config, v, "direct");
  shape.entry_bytes = 2 * std::size_t(shape.local_x) * std::size_t(shape.items / 2 + 1) * 16 * shape.row_lanes();
  if (std::string_view(variant) == "fused_wide" && box_wide_packed_blocks(shape.items, diameter))
    shape.entry_bytes += 2 * std::size_t(shape.local_x) * 8 * shape.row_lanes();
  shape.block_bytes = 0;
  size_ring(shape, diameter);
  return shape;
}

std::optional<std::string> box_blur_unsupported(const DeviceInfo& device, std::string_view variant,
                                                const BoxBlurParams& params, int width, int height, int channels,
                                                const TuningConfig& config) {
  const VariantInfo* info = find_variant(box_blur_variants(), std::string(variant));
  if (!info) return fmt::format("unknown box blur variant '{}'", variant);
  const int d = params.diameter;
  const std::size_t pixel_bytes = channels == 4 ? 4 : 1;
  const int lx = tunable_value(config, *info, "local_x"), ly = tunable_value(config, *info, "local_y");
  if (lx > 0 && std::size_t(lx) * std::size_t(ly) > device.max_work_group_size)
    return fmt::format("work-group {}x{} exceeds the device's {} work-items", lx, ly, device.max_work_group_size);
  if (variant == "two_pass") {
    if (d % 2 != 0) return fmt::format("two_pass needs an even diameter (got {})", d);
    const std::size_t bytes = std::size_t(width + d - 2) * std::size_t(height + d - 2) * 2 * pixel_bytes;
    if (bytes > device.max_alloc_bytes)
      return fmt::format("two_pass needs a {} MiB temporary, above the device's {} MiB allocation limit", bytes >> 20,
                         device.max_alloc_bytes >> 20);
  }
  if (variant == "separable_sliding") {
    const std::size_t bytes = std::size_t(width) * height * pixel_bytes * (d > 257 ? 4 : 2);
    if (bytes > device.max_alloc_bytes)
      return fmt::format("separable_sliding needs a {} MiB temporary, above the device's {} MiB allocation limit",
                         bytes >> 20, device.max_alloc_bytes >> 20);
  }
  if (variant == "local_tile") {
    const auto tile = box_local_tile_shape(device, config);
    if (std::size_t(tile.width) * std::size_t(tile.height) > device.max_work_group_size)
      return fmt::format("tile {}x{} exceeds the device's {} work-items", tile.width, tile.height,
                         device.max_work_group_size);
    const std::size_t bytes = std::size_t(tile.width + d - 1) * std::size_t(tile.height + d - 1) * pixel_bytes;
    if (bytes > device.local_mem_bytes)
      return fmt::format("local_tile needs {} bytes of local memory for d={}, the device has {}", bytes, d,
                         device.local_mem_bytes);
  }
  if (variant == "fused_sliding") {
    if (d > kMaxFusedDiameter)
      return fmt::format("fused_sliding's divide-free rounding needs d <= {} (got {})", kMaxFusedDiameter, d);
    const FusedShape shape = box_fused_shape(device, config, d, channels);
    if (std::size_t(shape.local_x) > device.max_work_group_size)
      return fmt::format("work-group of {} exceeds the device's {} work-items", shape.local_x,
                         device.max_work_group_size);
    const std::size_t bytes = shape.column_sum_bytes + shape.row_out_bytes;
    if (bytes > device.local_mem_bytes)
      return fmt::format("fused_sliding needs {} bytes of local memory for d={}, the device has {}", bytes, d,
                         device.local_mem_bytes);
  }
  if (variant == "fused_blocks") {
    if (channels != 4) return std::string("fused_blocks is for RGBA; fused_sliding takes grey");
    if (d > kMaxFusedDiameter)
      return fmt::format("fused_blocks' divide-free rounding needs d <= {} (got {})", kMaxFusedDiameter, d);
    if (auto why = blocks_shape_problem(device, variant, box_blocks_shape(config, d), d)) return why;
  }
  if (variant == "fused_prefix") {
    if (channels != 4) return std::string("fused_prefix is for RGBA; fused_sliding takes grey");
    if (d > kMaxPrefixDiameter)
      return fmt::format("fused_prefix's FP32 sums are exact for d <= {} (got {})", kMaxPrefixDiameter, d);
    if (auto why = blocks_shape_problem(device, variant, box_prefix_shape(config, d), d)) return why;
  }
  if (variant == "fused_packed" || variant == "fused_wide") {
    const bool wide = variant == "fused_wide";
    if (channels != 4) return fmt::format("{} is for RGBA; fused_sliding takes grey", variant);
    const int most = wide ? kMaxWideDiameter : kMaxPackedDiameter;
    if (d < kMinPackedDiameter || d > most)
      return fmt::format("{}'s {} d = {}..{} (got {})", variant,
                         wide ? "rounding is exact for" : "16-bit window sums take", kMinPackedDiameter, most, d);
    if (auto why = blocks_shape_problem(device, variant, box_packed_shape(config, d, info->name.c_str()), d))
      return why;
  }
  return std::nullopt;
}

// The rule until the tuner has measured this device. GPUs: the one-pass variants, which move the
// fewest bytes: fused_packed where it applies (RGBA, 2 <= d <= 15; H200 8k, d=3 0.156 against the tuned
// fused_prefix's 0.210 ms, d=15 0.228 against 0.266: bench/results/2026-11-24-nvidia-h200-box-packed.md),
// fused_wide up to d = 64 (d=31 0.231 against fused_prefix's 0.295, d=63 0.274 against 0.341:
// bench/results/2026-11-24-nvidia-h200-wide.md), then fused_prefix from d = 11 on, fused_blocks below
// (H200 8k at default tunables, d=3 0.242 against 0.262 ms, d=11 0.296 against 0.291, d=63 0.598 against
// 0.357: bench/results/2026-11-23-nvidia-h200-box-sobel-jacobi.md). CPUs (PoCL 3.1, 2 cores, 1080p, at default
// tunables; bench/results/2026-11-29-pocl-cpu-rule.md): RGBA fused_packed where it applies (d <= 15), then
// fused_prefix up to d = 64, 1.5-2.5x faster than separable_sliding (d = 9 8.7-11.7 against 17.2-19.0 ms,
// d = 31 fused_prefix 15.4-15.6 against 22.4-26.1); grey, and wider windows (not measured), block4x4 for
// d <= 3, else separable_sliding.
std::string box_blur_auto_variant(const DeviceInfo& device, const BoxBlurParams& params, int width, int height,
                                  int channels) {
  auto supported = [&](const char* v) { return !box_blur_unsupported(device, v, params, width, height, channels); };
  if (device.type & CL_DEVICE_TYPE_GPU) {
    for (const char* v : {"fused_packed", "fused_wide", params.diameter >= 11 ? "fused_prefix" : "fused_blocks",
                          "fused_blocks", "fused_sliding"})
      if (supported(v)) return v;
  } else if (params.diameter <= 64) {
    for (const char* v : {"fused_packed", "fused_prefix"})
      if (supported(v)) return v;
  }
  if (params.diameter <= 3) return "block4x4";
  return supported("separable_sliding") ? "separable_sliding" : "block4x4";
}

std::string box_blur_param_class(const BoxBlurParams& params, int channels) {
  const int d = params.diameter;
  // fused_packed's range (d <= 15), fused_wide's (d <= 64) and d = 63's wider shapes (bench/NOTES.md, box
  // blur step 10) have classes of their own, and d = 9 and 11 (the benchmark's cases) each one: their best
  // strips differ.
  return fmt::format("c{} {}", channels,
                     d <= 3    ? "d<=3"
                     : d <= 9  ? "d<=9"
                     : d <= 11 ? "d<=11"
                     : d <= 15 ? "d<=15"
                     : d <= 31 ? "d<=31"
                     : d <= 64 ? "d<=64"
                               : "d>64");
}

VariantChoice box_blur_choose(Context& ctx, const BoxBlurParams& params, std::string_view variant, int width,
                              int height, int channels, const TuningConfig& config) {
  return choose_variant(
      ctx, variant, config, "box-blur", "box_blur.cl", box_blur_param_class(params, channels), width, height,
      [&](const std::string& v, const TuningConfig& c) {
        return !box_blur_unsupported(ctx.info(), v, params, width, height, channels, c);
      },
      [&] { return box_blur_auto_variant(ctx.info(), params, width, height, channels); });
}

// ---- FilterSpec -----------------------------------------------------------------------------------
namespace {

class BoxBlurInstance : public FilterInstance {
 public:
  BoxBlurInstance(Context& ctx, Image input, BoxBlurParams params)
      : ctx_(ctx),
        input_(std::move(input)),
        params_(params),
        d_in_(DeviceImage::upload(ctx, input_)),
        d_out_(DeviceImage::allocate(ctx, input_.width, input_.height, input_.channels)) {}

  std::optional<std::string> unsupported(const std::string& variant, const TuningConfig& config) const override {
    return box_blur_unsupported(ctx_.info(), variant, params_, input_.width, input_.height, input_.channels, config);
  }
  std::vector<cl::Event> enqueue(const std::string& variant, const TuningConfig& config) override {
    return box_blur(ctx_, d_in_, d_out_, params_, variant, config);
  }
  double run_host_to_host(const std::string& variant, const TuningConfig& config) override {
    box_blur_prepare(ctx_, params_, variant, input_.width, input_.height, input_.channels, config);
    const auto start = std::chrono::steady_clock::now();
    DeviceImage in = DeviceImage::upload(ctx_, input_);
    box_blur(ctx_, in, d_out_, params_, variant, config);
    Image out = d_out_.download(ctx_);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  std::optional<std::string> check_output() override {
    if (expected_.empty()) expected_ = box_blur_reference(input_, params_);
    return compare_images(expected_, d_out_.download(ctx_));
  }
  void run_reference(int threads) override { box_blur_reference(input_, params_, threads); }
  std::string auto_variant() const override {
    return describe(box_blur_choose(ctx_, params_, "auto", input_.width, input_.height, input_.channels));
  }
  std::string build_key(const std::string& variant, const TuningConfig& config) const override {
    return box_blur_build_key(ctx_, params_, variant, input_.width, input_.height, input_.channels, config);
  }
  std::uint64_t bytes_moved() const override { return 2 * input_.byte_size(); }
  std::uint64_t pixels() const override { return input_.pixel_count(); }

 private:
  Context& ctx_;
  Image input_;
  BoxBlurParams params_;
  DeviceImage d_in_, d_out_;
  Image expected_;
};

class BoxBlurSpec : public FilterSpec {
 public:
  std::string name() const override { return "box-blur"; }
  std::string kernel_file() const override { return "box_blur.cl"; }
  const std::vector<VariantInfo>& variants() const override { return box_blur_variants(); }
  // Keys: diameter (9), channels (4), border (replicate | reflect101 | constant[=V]).
  std::vector<ParamMap> bench_cases() const override {
    std::vector<ParamMap> cases;
    for (const char* d : {"9", "3", "11", "31", "63"}) cases.push_back({{"diameter", d}, {"channels", "4"}});
    return cases;
  }
  std::string param_class(const ParamMap& params) const override {
    return box_blur_param_class({param_int(params, "diameter", 9), {}}, param_int(params, "channels", 4));
  }
  std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                              std::uint64_t seed) const override {
    for (const auto& [key, value] : params)
      if (key != "diameter" && key != "channels" && key != "border")
        throw std::invalid_argument(fmt::format("box-blur has no parameter '{}'", key));
    const BoxBlurParams p{param_int(params, "diameter", 9), parse_border(param_text(params, "border", "replicate"))};
    const int channels = param_int(params, "channels", 4);
    if (channels != 1 && channels != 4) throw std::invalid_argument("box-blur channels must be 1 or 4");
    return std::make_unique<BoxBlurInstance>(ctx, synthetic_photo(width, height, channels, seed), p);
  }
};

}  // namespace

const FilterSpec& box_blur_filter_spec() {
  static const BoxBlurSpec spec;
  return spec;
}

}  // namespace clf
