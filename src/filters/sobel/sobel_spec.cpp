// SPDX-License-Identifier: Apache-2.0
// Sobel's description beside its variant table: the auto rule, the tuning classes, and the FilterSpec that tests,
// benchmark and tuner iterate over.
#include <fmt/format.h>

#include <optional>

#include "clfilters/sobel.hpp"
#include "common/synthetic_image.hpp"
#include "filters/filter_spec.hpp"
#include "filters/image_filter_instance.hpp"
#include "filters/sobel/sobel_internal.hpp"
#include "tuning/db/tuning_db.hpp"

namespace clf {

// The rule until the tuner has measured this device. GPUs: strip at its defaults (8 columns, 4 rows a work-item),
// near the tuner's winners on the H200 and the H100; untuned on the H100 at 8k it took 0.064 / 0.126 / 0.073 ms for
// the magnitude / gradients / l1, against row_tile's 0.125 / 0.162 / 0.123 and the tuned 0.057 / 0.122 / 0.057.
// CPUs: cpu_rows, one thread per band of rows with explicit 16-wide vectors; where it cannot run (its ring of rows
// is refused), block16x2, whose explicit vectors PoCL keeps too (row_tile is 2-6x slower there).
std::string sobel_auto_variant(const DeviceInfo& device, const SobelParams& params, int width, int height) {
  if (device.type & CL_DEVICE_TYPE_GPU) return "strip";
  return sobel_unsupported(device, "cpu_rows", params, width, height, {}) ? "block16x2" : "cpu_rows";
}

VariantChoice sobel_choose(Context& ctx, const SobelParams& params, std::string_view variant, int width, int height,
                           const TuningConfig& config) {
  return choose_variant(
      ctx, variant, config, "sobel", "sobel.cl", to_string(params.output), width, height,
      [&](const std::string& v, const TuningConfig& c) {
        return !sobel_unsupported(ctx.info(), v, params, width, height, c);
      },
      [&] { return sobel_auto_variant(ctx.info(), params, width, height); });
}

// ---- FilterSpec -----------------------------------------------------------------------------------
namespace {

struct SobelTraits {
  using Params = SobelParams;
  using Output = SobelDeviceOutput;  // the 8-bit image, or gx and gy for gradients
  static constexpr double kTolerance = 0;
  static Output allocate(Context& ctx, const Image& in, const Params& p) {
    return SobelDeviceOutput::allocate(ctx, in.width, in.height, p);
  }
  static std::optional<std::string> unsupported(const DeviceInfo& device, const std::string& variant, const Params& p,
                                                const Image& in, const TuningConfig& config) {
    return sobel_unsupported(device, variant, p, in.width, in.height, config);
  }
  static void prepare(Context& ctx, const Params& p, const std::string& variant, const Image& in,
                      const TuningConfig& config) {
    sobel_prepare(ctx, p, variant, in.width, in.height, config);
  }
  static std::vector<cl::Event> enqueue(Context& ctx, const DeviceImage& in, Output& out, const Params& p,
                                        const std::string& variant, const TuningConfig& config) {
    return sobel(ctx, in, out, p, variant, config);
  }
  // The library's host call, which writes gradients as pairs rather than the planes `enqueue` times.
  static void prepare_host_to_host(Context& ctx, const Params& p, const std::string& variant, const Image& in,
                                   const TuningConfig& config) {
    sobel_prepare_host_call(ctx, p, variant, in.width, in.height, config);
  }
  static void host_to_host(Context& ctx, const Image& in, const Params& p, const std::string& variant,
                           const TuningConfig& config) {
    std::vector<cl::Event> events;
    sobel_host_call(ctx, in, p, variant, config, events);
  }
  static Image reference(const Image& in, const Params& p, int threads) { return sobel_reference(in, p, threads); }
  static VariantChoice choose_auto(Context& ctx, const Params& p, const Image& in) {
    return sobel_choose(ctx, p, "auto", in.width, in.height);
  }
  static std::uint64_t bytes_moved(const Image& in, const Params& p) {
    const std::uint64_t out_bytes = p.output == SobelOutput::gradients ? 4 : 1;
    return in.pixel_count() * (1 + out_bytes);
  }
};

class SobelSpec : public BasicFilterSpec {
 public:
  SobelSpec() : BasicFilterSpec("sobel", "sobel.cl", sobel_variants) {}
  // Keys: output (magnitude | l1 | gradients; default magnitude), border (replicate | reflect101 |
  // constant[=V]; default replicate). The input is a grey synthetic photograph.
  std::vector<ParamMap> bench_cases() const override {
    std::vector<ParamMap> cases;
    for (const char* output : {"magnitude", "gradients", "l1"}) {
      ParamMap p;
      p.emplace(std::string("output"), std::string(output));
      cases.push_back(std::move(p));
    }
    return cases;
  }
  std::string param_class(const ParamMap& params) const override {
    return to_string(parse_sobel_output(param_text(params, "output", "magnitude")));
  }
  std::unique_ptr<FilterInstance> instantiate(Context& ctx, int width, int height, const ParamMap& params,
                                              std::uint64_t seed) const override {
    check_param_keys(params, "sobel", {"output", "border"});
    const SobelParams p{parse_sobel_output(param_text(params, "output", "magnitude")),
                        parse_border(param_text(params, "border", "replicate"))};
    sobel_check_params(p);
    return std::make_unique<ImageFilterInstance<SobelTraits>>(ctx, synthetic_photo(width, height, 1, seed), p);
  }
};

}  // namespace

const FilterSpec& sobel_filter_spec() {
  static const SobelSpec spec;
  return spec;
}

}  // namespace clf
