// SPDX-License-Identifier: Apache-2.0
// clfilters bilateral IN OUT [--sigma-spatial S] [--sigma-range R] [--sample-units] [--radius N] [--window square|disk]
//                            [--distance l2|l1] [--border ...] [--variant ...] [--device ...] [--time]
// Video (video_filter.hpp): every plane is filtered by default.
#include <fmt/format.h>

#include "clfilters/bilateral.hpp"
#include "cli_common.hpp"
#include "video_filter.hpp"

namespace clf::cli {
namespace {

class BilateralCommand : public ChannelFilterCommand<BilateralParams> {
 public:
  BilateralCommand()
      : ChannelFilterCommand(
            "bilateral filter: smooths while keeping edges; grey, or RGBA with the colour "
            "distance over R, G, B and alpha copied",
            {.filter = kBilateralCalls, .default_planes = "all", .alpha = Alpha::kept_apart}) {}

 private:
  void add_filter_options(CLI::App* cmd) override {
    cmd->add_option("--sigma-spatial", params_.sigma_spatial,
                    fmt::format("spatial Gaussian sigma, in pixels, at least {}", kMinBilateralSigma))
        ->capture_default_str();
    cmd->add_option("--sigma-range", params_.sigma_range,
                    fmt::format("range Gaussian sigma, in 8-bit units (x256 on 16-bit images, x4 on 10-bit video, "
                                "unless --sample-units), at "
                                "least {}",
                                kMinBilateralSigma))
        ->capture_default_str();
    add_sample_units_option(cmd, sample_units_, "--sigma-range");
    radius_ = cmd->add_option("--radius", params_.radius,
                              fmt::format("window radius, 0..{} (default ceil(2 * sigma-spatial), at most {})",
                                          kMaxBilateralRadius, kMaxBilateralRadius));
    cmd->add_option("--window", window_,
                    "square: the whole (2r+1)^2 window; disk: only taps with dx^2 + dy^2 <= r^2 (as OpenCV's "
                    "bilateralFilter)")
        ->capture_default_str();
    cmd->add_option("--distance", distance_,
                    "colour distance in the range weight: l2 (Euclidean over R, G, B) or l1 (|dR| + |dG| + |dB|, as "
                    "OpenCV's bilateralFilter); grey: both are |p - c|")
        ->capture_default_str();
  }

  void check_params(SampleType type) override {
    params_.window = parse_bilateral_window(window_);
    params_.distance = parse_bilateral_distance(distance_);
    bilateral_check_params(params_, type);
    // BilateralParams' radius -1 stands for the default; here the default is --radius left out.
    if (radius_->count() > 0 && params_.radius < 0)
      throw UsageError(fmt::format("radius must be 0..{}, got {}", kMaxBilateralRadius, params_.radius));
  }

  void scale_sample_values(double scale) override { params_.sigma_range *= scale; }

  std::string describe() const override {
    return fmt::format("bilateral sigma_spatial={} sigma_range={} radius={} window={} distance={} border={}",
                       params_.sigma_spatial, params_.sigma_range, bilateral_radius(params_), to_string(params_.window),
                       to_string(params_.distance), to_string(params_.border));
  }

  CLI::Option* radius_ = nullptr;
  std::string window_ = "square", distance_ = "l2";
};

const CommandRegistrar registrar(110, [] { return std::unique_ptr<Command>(new BilateralCommand); });

}  // namespace
}  // namespace clf::cli
