// SPDX-License-Identifier: Apache-2.0
// The bilateral filter's description beside its variant table: the shapes the variants derive from their
// tunables, the auto rule, the tuning classes, and the FilterSpec that tests, benchmark, tuner and command
// line iterate over. (The error analysis of the colour range-weight table is at the top of bilateral.cl.)
#include <fmt/format.h>

#include "clfilters/bilateral.hpp"
#include "filters/bilateral/bilateral_internal.hpp"
#include "filters/filter_spec.hpp"
#include "filters/image_filter_instance.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {

using namespace bilateral_detail;

namespace bilateral_detail {

UnrolledShape unrolled_shape(const VariantInfo& variant, const TuningConfig& config, int channels, SampleType type) {
  UnrolledShape s;
  s.local_x = tunable_value(config, variant, "local_x");
  s.local_y = tunable_value(config, variant, "local_y");
  s.block_x = tunable_value(config, variant, "block_x");
  s.rows = tunable_value(config, variant, "rows");
  s.soft_exp = tunable_value(config, variant, "soft_exp");
  // Every exp2 on the SFU by default (soft_exp 0): colour is bound by FP32 instructions (9-11 a tap),
  // not by exp2, and grey, with exp2 one MUFU (fast_exp2), is slower with soft_exp 3 (1.546 against
  // 1.437 ms on the H200 at 8k); grey moves taps off the SFU to the range table instead.
  s.table_taps = tunable_value(config, variant, "table_taps");
  if (s.table_taps < 0) s.table_taps = channels == 1 && type != SampleType::u16 ? 5 : 0;
  s.int_exp = tunable_value(config, variant, "int_exp");
  return s;
}

std::size_t unrolled_tile_bytes(const UnrolledShape& s, int radius, int planes) {
  const std::size_t width = std::size_t(s.local_x * s.block_x + 2 * radius);
  const std::size_t stride = (width + 3) / 4 * 4;
  const std::size_t height = std::size_t(s.local_y * s.rows + 2 * radius);
  return stride * height * sizeof(float) * std::size_t(planes);
}

int unrolled_planes(const BilateralParams& params, int channels, const UnrolledShape& shape, SampleType type) {
  const bool expanded = unrolled_expanded(params, channels, type);
  return (channels == 4 ? 3 : 1) + (expanded ? 1 : 0) + (shape.table_taps > 0 ? 1 : 0) +
         (expanded && shape.int_exp ? 1 : 0);
}

}  // namespace bilateral_detail

// The rule until the tuner has measured this device. CPUs: cpu_rows, written for them (PoCL 3.1, 2 cores, 1080p
// radius 4 disk l1: 4.2x range_table grey, 9x RGBA), from radius 3 up with its pairs (bilateral_variants.cpp). GPUs:
// unrolled where its radius is built, 2.2x range_table (grey) and 1.9x local (RGBA) on the H200 at 8k with its default
// shape. Else range_table (no exp in the loop, tile in local memory), the seed's table step, or pixels4, which needs
// neither images nor local memory, where the tables do not fit. 16-bit samples: cpu_rows and unrolled have 16-bit
// forms, so the same first two; then pixels4, which takes exp where 16-bit values outgrow its range tables and still
// loads each pixel once for 4 outputs (naive once each).
std::string bilateral_auto_variant(const DeviceInfo& device, const BilateralParams& params, int width, int height,
                                   int channels, SampleType type) {
  auto supported = [&](const char* v) {
    return !bilateral_unsupported(device, v, params, width, height, channels, {}, type);
  };
  if ((device.type & CL_DEVICE_TYPE_CPU) && supported("cpu_rows")) return "cpu_rows";
  if ((device.type & CL_DEVICE_TYPE_GPU) && supported("unrolled")) return "unrolled";
  if (type == SampleType::u16) return "pixels4";
  if (supported("range_table")) return "range_table";
  return "pixels4";
}

std::string bilateral_param_class(const BilateralParams& params, int channels) {
  const int r = bilateral_radius(params);
  return fmt::format("c{} {}", channels, r <= 2 ? "r<=2" : r <= 6 ? "r<=6" : "r>6");
}

VariantChoice bilateral_choose(Context& ctx, const BilateralParams& params, std::string_view variant, int width,
                               int height, int channels, const TuningConfig& config, SampleType type) {
  return choose_image_variant(ctx, kBilateralApi, params, variant, width, height, channels, config, type);
}

// ---- FilterSpec -----------------------------------------------------------------------------------
namespace {

// Keys: sigma_spatial (3), sigma_range (30), radius (ceil(2 sigma_spatial)), channels (4),
// border (replicate | reflect101 | constant[=V]), window (square | disk), distance (l2 | l1).
struct BilateralTraits : ImageCallTraits<kBilateralApi> {
  // SPEC: within 1 of the double-precision reference at every pixel.
  static constexpr double kTolerance = 1.0;
  static constexpr int kDefaultChannels = 4;
  static std::vector<ParamMap> bench_cases() {
    std::vector<ParamMap> cases;
    for (const char* channels : {"1", "4"}) {
      ParamMap m;
      m.emplace("sigma_spatial", std::string("3"));
      m.emplace("sigma_range", std::string("30"));
      m.emplace("radius", std::string("4"));
      m.emplace("channels", std::string(channels));
      cases.push_back(std::move(m));
    }
    return cases;
  }
  static std::string param_class(const ParamMap& params) {
    BilateralParams p;
    p.sigma_spatial = param_double(params, "sigma_spatial", 3.0);
    p.radius = param_int(params, "radius", -1);
    return bilateral_param_class(p, param_int(params, "channels", 4));
  }
  static Params parse(const ParamMap& params) {
    check_param_keys(params, "bilateral",
                     {"sigma_spatial", "sigma_range", "radius", "channels", "border", "window", "distance"});
    // A braced list runs its initialisers in order: the first bad parameter is the one reported.
    return {.sigma_spatial = param_double(params, "sigma_spatial", 3.0),
            .sigma_range = param_double(params, "sigma_range", 30.0),
            .radius = param_int(params, "radius", -1),
            .border = parse_border(param_text(params, "border", "replicate")),
            .window = parse_bilateral_window(param_text(params, "window", "square")),
            .distance = parse_bilateral_distance(param_text(params, "distance", "l2"))};
  }
};

}  // namespace

const FilterSpec& bilateral_filter_spec() {
  return image_call_spec<BilateralTraits>();
}

}  // namespace clf
