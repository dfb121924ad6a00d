// SPDX-License-Identifier: Apache-2.0
// clfilters box-blur IN OUT --diameter 9 [--border ...] [--variant ...] [--device ...] [--time]
// Video (video_filter.hpp): every plane is filtered by default.
#include <fmt/format.h>

#include "clfilters/box_blur.hpp"
#include "cli_common.hpp"
#include "video_filter.hpp"

namespace clf::cli {
namespace {

class BoxBlurCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) override {
    auto* cmd = app.add_subcommand("box-blur", "box blur: the rounded mean of a d x d window, every channel");
    add_image_options(cmd, options_, box_blur_variants());
    cmd->add_option("-d,--diameter", params_.diameter,
                    fmt::format("window diameter, 1..{}, odd or even", kMaxBoxDiameter))
        ->capture_default_str();
    add_video_options(cmd, video_, "all");
    return cmd;
  }

  int run() override {
    params_.border = parse_border_option(options_.border);
    if (is_video_input(options_, video_))
      return run_video_filter(
          options_, video_,
          {.command = "box-blur",
           .variants = &box_blur_variants(),
           .check_params = [&] { box_blur_check_params(params_); },
           .default_planes = "all",
           .choose = plane_choose_step(params_, options_.variant, box_blur_choose, box_blur_unsupported),
           .prepare = [&](Context& ctx, int w, int h) { box_blur_prepare(ctx, params_, options_.variant, w, h, 1); },
           .filter = [&](Context& ctx, const DeviceImage& in,
                         DeviceImage& out) { return box_blur(ctx, in, out, params_, options_.variant); },
           .describe = [&] { return describe(); }});
    refuse_video_options(video_);
    return run_image_filter(
        options_,
        {.command = "box-blur",
         .variants = &box_blur_variants(),
         .check_params = [&] { box_blur_check_params(params_); },
         .choose = choose_step(params_, options_.variant, Alpha::filtered, box_blur_choose, box_blur_unsupported),
         .run = [&](Context& ctx, const Image& input,
                    Timing* timing) { return box_blur(ctx, input, params_, options_.variant, timing); },
         .describe = [&] { return describe(); },
         .quiet = video_.quiet});
  }

 private:
  std::string describe() const {
    return fmt::format("box-blur d={} border={}", params_.diameter, to_string(params_.border));
  }

  ImageCommandOptions options_;
  VideoCommandOptions video_;
  BoxBlurParams params_;
};

const CommandRegistrar registrar(100, [] { return std::unique_ptr<Command>(new BoxBlurCommand); });

}  // namespace
}  // namespace clf::cli
