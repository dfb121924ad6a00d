// SPDX-License-Identifier: Apache-2.0
// The box blur's description beside its variant table: the work-group shapes the variants derive from their
// tunables, the auto rule, the tuning classes, and the FilterSpec that tests, benchmark and tuner iterate over.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>

#include "clfilters/box_blur.hpp"
#include "common/image_compare.hpp"
#include "filters/box_blur/box_blur_internal.hpp"
#include "filters/filter_spec.hpp"
#include "filters/image_filter_instance.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {

FusedShape box_fused_shape(const DeviceInfo& device, const VariantInfo& v, const TuningConfig& config, int diameter,
                           int channels) {
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

BlocksShape box_blocks_shape(const VariantInfo& v, const TuningConfig& config, int diameter) {
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
BlocksShape band_tunables(const VariantInfo& v, const TuningConfig& config) {
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

BlocksShape box_prefix_shape(const VariantInfo& info, const TuningConfig& config, int diameter) {
  BlocksShape shape = band_tunables(info, config);
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

BlocksShape box_packed_shape(const VariantInfo& v, const TuningConfig& config, int diameter, bool wide) {
  BlocksShape shape = band_tunables(v, config);
  const int a = box_window_offset(shape.items, diameter);
  // Columns up to t * items + a + items + d - 2 are read (see box_fused_packed).
  shape.halo = (a + diameter + shape.items - 2) / shape.items;
  // Two rows' worth (the buffers alternate): items / 2 pairs of column sums per work-item and a pad entry
  // (fused_wide: the block's (X, H) there, or, while its lanes cannot carry, its 8-byte sum in an array after all
  // the pairs); with pair, for each row lane.
  shape.pair = tunable_value(config, v, "pair");
  shape.direct = tunable_value(config, v, "direct");
  shape.entry_bytes = 2 * std::size_t(shape.local_x) * std::size_t(shape.items / 2 + 1) * 16 * shape.row_lanes();
  if (wide && box_wide_packed_blocks(shape.items, diameter))
    shape.entry_bytes += 2 * std::size_t(shape.local_x) * 8 * shape.row_lanes();
  shape.block_bytes = 0;
  size_ring(shape, diameter);
  return shape;
}

// The rule until the tuner has measured this device. GPUs: the one-pass variants, which move the
// fewest bytes: fused_packed where it applies (RGBA, 2 <= d <= 15; H200 8k, d=3 0.156 against the tuned
// fused_prefix's 0.210 ms, d=15 0.228 against 0.266), fused_wide up to d = 64 (d=31 0.231 against
// fused_prefix's 0.295, d=63 0.274 against 0.341), then fused_prefix from d = 11 on, fused_blocks below
// (H200 8k at default tunables, d=3 0.242 against 0.262 ms, d=11 0.296 against 0.291, d=63 0.598 against
// 0.357). CPUs (PoCL 3.1, 2 cores, 1080p, at default tunables): cpu_bands, written for them, for every call it
// takes (RGBA d = 9 1.3-2.6 ms against fused_packed's 10.6-20.7, d = 63 1.7-2.7 against fused_prefix's 24-35;
// grey d = 9 1.3 against separable_sliding's 9.8-14); past its scratch's allocation, the rule before it: RGBA
// fused_packed (d <= 15), then fused_prefix up to d = 64; grey and wider windows block4x4 for d <= 3, else
// separable_sliding.
std::string box_blur_auto_variant(const DeviceInfo& device, const BoxBlurParams& params, int width, int height,
                                  int channels, SampleType type) {
  auto supported = [&](const char* v) {
    return !box_blur_unsupported(device, v, params, width, height, channels, {}, type);
  };
  if (device.type & CL_DEVICE_TYPE_GPU) {
    for (const char* v : {"fused_packed", "fused_wide", params.diameter >= 11 ? "fused_prefix" : "fused_blocks",
                          "fused_blocks", "fused_sliding"})
      if (supported(v)) return v;
  } else {
    if (supported("cpu_bands")) return "cpu_bands";
    if (params.diameter <= 64)
      for (const char* v : {"fused_packed", "fused_prefix"})
        if (supported(v)) return v;
  }
  if (params.diameter <= 3) return "block4x4";
  return supported("separable_sliding") ? "separable_sliding" : "block4x4";
}

std::string box_blur_param_class(const BoxBlurParams& params, int channels) {
  const int d = params.diameter;
  // fused_packed's range (d <= 15), fused_wide's (d <= 64) and d = 63's wider shapes have classes of their own, and d =
  // 9 and 11 (the benchmark's cases) each one: their best strips differ.
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
                              int height, int channels, const TuningConfig& config, SampleType type) {
  return choose_image_variant(ctx, kBoxBlurApi, params, variant, width, height, channels, config, type);
}

// ---- FilterSpec -----------------------------------------------------------------------------------
namespace {

// Keys: diameter (9), channels (4), border (replicate | reflect101 | constant[=V]).
struct BoxBlurTraits : ImageCallTraits<kBoxBlurApi> {
  static constexpr double kTolerance = 0;
  static constexpr int kDefaultChannels = 4;
  static std::string build_key(Context& ctx, const Params& p, const std::string& variant, const Image& in,
                               const TuningConfig& config) {
    return box_blur_build_key(ctx, p, variant, in.width, in.height, in.channels, config);
  }
  static std::vector<ParamMap> bench_cases() {
    std::vector<ParamMap> cases;
    for (const char* d : {"9", "3", "11", "31", "63"}) cases.push_back({{"diameter", d}, {"channels", "4"}});
    return cases;
  }
  static std::string param_class(const ParamMap& params) {
    return box_blur_param_class({param_int(params, "diameter", 9), {}}, param_int(params, "channels", 4));
  }
  static Params parse(const ParamMap& params) {
    check_param_keys(params, "box-blur", {"diameter", "channels", "border"});
    return {param_int(params, "diameter", 9), parse_border(param_text(params, "border", "replicate"))};
  }
};

}  // namespace

const FilterSpec& box_blur_filter_spec() {
  return image_call_spec<BoxBlurTraits>();
}

}  // namespace clf
