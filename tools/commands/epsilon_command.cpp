// SPDX-License-Identifier: Apache-2.0
// clfilters epsilon IN OUT [--radius 4] [--threshold 20] [--sample-units] [--border ...] [--variant ...] [--device ...]
//                         [--time] [--raw-format FORMAT --size WxH] [--planes y] [--progress FILE|-] [--quiet]
// Images: grey is filtered, RGB/RGBA have R, G and B filtered and alpha copied. Video (video_filter.hpp): Y4M
// files and pipes ("-" = stdin/stdout) and raw planar YUV; the Y plane is filtered by default, the rest copied.
#include <fmt/format.h>

#include <cmath>

#include "clfilters/epsilon.hpp"
#include "clfilters/image_io.hpp"
#include "cli_common.hpp"
#include "video_filter.hpp"

namespace clf::cli {
namespace {

class EpsilonCommand : public ChannelFilterCommand<EpsilonParams> {
 public:
  EpsilonCommand()
      : ChannelFilterCommand(
            "epsilon filter (mosquito-noise removal): the rounded mean of the window pixels within T of the "
            "centre; images, Y4M video and raw YUV",
            {.filter = kEpsilonCalls, .default_planes = "y", .alpha = Alpha::kept_apart}) {}

  // The parameters and --variant are checked before IN is looked at, as usage errors.
  int run() override {
    params_.border = parse_border_option(options_.border);
    try {
      // The input's depth is known once it is read: until then, any sample value passes.
      epsilon_check_params(params_, SampleType::u16);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    check_variant_name(options_.variant, epsilon_variants());
    return ChannelFilterCommand::run();
  }

 private:
  void add_filter_options(CLI::App* cmd) override {
    cmd->add_option(
           "-r,--radius", params_.radius,
           fmt::format("window radius r, {}..{}: the window is (2r+1)x(2r+1)", kMinEpsilonRadius, kMaxEpsilonRadius))
        ->capture_default_str();
    cmd->add_option("-t,--threshold", params_.threshold,
                    "threshold T, 0..255 in 8-bit units (x256 on 16-bit images, x4 on 10-bit video, unless "
                    "--sample-units): pixels with "
                    "|p - c| <= T are averaged")
        ->capture_default_str();
    add_sample_units_option(cmd, sample_units_, "--threshold");
  }

  // Rounded to the nearest integer: -t 20 is 80 on 10-bit video. In 8-bit units it is 0..255 at any depth.
  void scale_sample_values(double scale) override {
    if (params_.threshold > 255)
      throw UsageError(fmt::format(
          "epsilon threshold must be 0..255 in 8-bit units, got {} (--sample-units takes it in the input's own units)",
          params_.threshold));
    params_.threshold = int(std::lround(params_.threshold * scale));
  }

  void check_params(SampleType type) override { epsilon_check_params(params_, type); }

  void check_sample_values(int max) const override {
    ChannelFilterCommand::check_sample_values(max);
    if (params_.threshold > max)
      throw std::invalid_argument(
          fmt::format("epsilon threshold must be 0..{} for these samples, got {}", max, params_.threshold));
  }

  // "epsilon r=4 T=20 border=replicate", the start of the result line.
  std::string describe() const override {
    return fmt::format("epsilon r={} T={} border={}", params_.radius, params_.threshold, to_string(params_.border));
  }

  void check_image_options() const override {
    if (options_.output == "-") throw UsageError("images are written to a file, not to stdout ('-' is for video)");
  }
};

const CommandRegistrar registrar(110, [] { return std::unique_ptr<Command>(new EpsilonCommand); });

}  // namespace
}  // namespace clf::cli
