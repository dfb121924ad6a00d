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
    return run_channel_filter(
        options_, video_, params_,
        {.command = "box-blur",
         .variants = &box_blur_variants(),
         .default_planes = "all",
         .alpha = Alpha::filtered,
         .choose = box_blur_choose,
         .unsupported = box_blur_unsupported,
         .prepare = box_blur_prepare,
         .filter_views = box_blur,
         .filter_image = box_blur},
        [&] { box_blur_check_params(params_); }, [&] { return describe(); });
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
