// SPDX-License-Identifier: Apache-2.0
// clfilters box-blur IN OUT --diameter 9 [--border ...] [--variant ...] [--device ...] [--time]
#include <fmt/format.h>

#include "clfilters/box_blur.hpp"
#include "cli_common.hpp"

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
    return cmd;
  }

  int run() override {
    params_.border = parse_border_option(options_.border);
    return run_image_filter(
        options_,
        {.command = "box-blur",
         .variants = &box_blur_variants(),
         .check_params = [&] { box_blur_check_params(params_); },
         .choose = choose_step(params_, options_.variant, Alpha::filtered, box_blur_choose, box_blur_unsupported),
         .run = [&](Context& ctx, const Image& input,
                    Timing* timing) { return box_blur(ctx, input, params_, options_.variant, timing); },
         .describe =
             [&] { return fmt::format("box-blur d={} border={}", params_.diameter, to_string(params_.border)); }});
  }

 private:
  ImageCommandOptions options_;
  BoxBlurParams params_;
};

const CommandRegistrar registrar(100, [] { return std::unique_ptr<Command>(new BoxBlurCommand); });

}  // namespace
}  // namespace clf::cli
