// SPDX-License-Identifier: Apache-2.0
// The epsilon filter's description beside its variant table: the work-group shapes the variants derive from
// their tunables, the auto rule, the tuning classes, and the FilterSpec that tests, benchmark and tuner iterate
// over.
#include <fmt/format.h>

#include "clfilters/epsilon.hpp"
#include "filters/epsilon/epsilon_internal.hpp"
#include "filters/filter_spec.hpp"
#include "filters/image_filter_instance.hpp"
#include "runtime/launch.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {

EpsilonRegBlockShape epsilon_regblock_shape(const VariantInfo& v, const TuningConfig& config) {
  return {tunable_value(config, v, "cols"), tunable_value(config, v, "rows"), tunable_value(config, v, "local_x"),
          tunable_value(config, v, "local_y"), tunable_value(config, v, "form")};
}

std::size_t epsilon_regblock_tile_bytes(const EpsilonRegBlockShape& shape, int radius) {
  // epsilon.cl fills whole work-group strides: width and height rounded up to the work-group's.
  const std::size_t width = round_up(std::size_t(shape.local_x * shape.cols + 2 * radius), shape.local_x);
  const std::size_t height = round_up(std::size_t(shape.local_y * shape.rows + 2 * radius), shape.local_y);
  return round_up(width, 4) * height * sizeof(float);
}

TileShape epsilon_local_shape(const VariantInfo& v, const TuningConfig& config) {
  return {tunable_value(config, v, "local_x"), tunable_value(config, v, "local_y")};
}

// The rule until the tuner has measured this device. CPUs: cpu_rows, written for them, where its temporary
// fits (PoCL 3.1, 2 cores, 1080p grey 9x9 T = 20: 5.3 ms, 9x vec4_branchless). GPUs: regblock, 3.7x the tuned local
// variant on an H200 at 8192x8192 (9x9, T = 20: 0.57 ms against 2.17) where it fits the device's local memory. Other
// devices: vec4_branchless, the fastest step of seed 000's Table 2 on Adreno 630 (5a), which needs no device feature.
std::string epsilon_auto_variant(const DeviceInfo& device, const EpsilonParams& params, int width, int height,
                                 int channels, SampleType type) {
  auto supported = [&](const char* v) {
    return !epsilon_unsupported(device, v, params, width, height, channels, {}, type);
  };
  if ((device.type & CL_DEVICE_TYPE_CPU) && supported("cpu_rows")) return "cpu_rows";
  const bool gpu = device.type & CL_DEVICE_TYPE_GPU;
  if (gpu && supported("regblock")) return "regblock";
  return "vec4_branchless";
}

std::string epsilon_param_class(const EpsilonParams& params, int channels) {
  return fmt::format("c{} {}", channels, params.radius <= 2 ? "r<=2" : params.radius <= 4 ? "r<=4" : "r>4");
}

VariantChoice epsilon_choose(Context& ctx, const EpsilonParams& params, std::string_view variant, int width, int height,
                             int channels, const TuningConfig& config, SampleType type) {
  return choose_image_variant(ctx, kEpsilonApi, params, variant, width, height, channels, config, type);
}

// ---- FilterSpec -----------------------------------------------------------------------------------
namespace {

ParamMap epsilon_case(const char* radius, const char* threshold, const char* channels) {
  ParamMap m;
  m.emplace(std::string("radius"), std::string(radius));
  m.emplace(std::string("threshold"), std::string(threshold));
  m.emplace(std::string("channels"), std::string(channels));
  return m;
}

// Keys: radius (4), threshold (20), channels (1: a Y plane or grey; 4: RGBA), border (replicate | reflect101 |
// constant[=V]).
struct EpsilonTraits : ImageCallTraits<kEpsilonApi> {
  static constexpr double kTolerance = 0;
  static constexpr int kDefaultChannels = 1;
  // The first case is seed 000's: 9x9, T = 20, one plane.
  static std::vector<ParamMap> bench_cases() {
    return {epsilon_case("4", "20", "1"), epsilon_case("4", "20", "4"), epsilon_case("2", "20", "1"),
            epsilon_case("8", "20", "1")};
  }
  static std::string param_class(const ParamMap& params) {
    EpsilonParams p;
    p.radius = param_int(params, "radius", 4);
    return epsilon_param_class(p, param_int(params, "channels", 1));
  }
  static Params parse(const ParamMap& params) {
    check_param_keys(params, "epsilon", {"radius", "threshold", "channels", "border"});
    return {.radius = param_int(params, "radius", 4),
            .threshold = param_int(params, "threshold", 20),
            .border = parse_border(param_text(params, "border", "replicate"))};
  }
};

}  // namespace

const FilterSpec& epsilon_filter_spec() {
  return image_call_spec<EpsilonTraits>();
}

}  // namespace clf
