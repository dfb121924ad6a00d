// SPDX-License-Identifier: Apache-2.0
// clfilters sobel IN OUT [--output magnitude|l1|gradients] [--border ...] [--variant ...] [--device ...] [--time]
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "clfilters/sobel.hpp"
#include "cli_common.hpp"

namespace clf::cli {
namespace {

class SobelCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) override {
    auto* cmd = app.add_subcommand("sobel", "Sobel edge detection on the grey image (RGB/RGBA are converted)");
    add_image_options(cmd, options_, sobel_variants());
    cmd->add_option("--output", output_,
                    "magnitude (round(sqrt(gx^2+gy^2)), clamped to 255) | l1 (min(255, |gx|+|gy|)) | gradients "
                    "(gx and gy as an H x W x 2 int16 .npy)")
        ->capture_default_str();
    return cmd;
  }

  int run() override {
    return run_image_filter(
        options_,
        {.command = "sobel",
         .variants = &sobel_variants(),
         .check_params = [&] { check_params(); },
         .choose =
             [&](Context& ctx, const Image& input) {
               VariantChoice choice = sobel_choose(ctx, params_, options_.variant, input.width, input.height);
               auto why =
                   sobel_unsupported(ctx.info(), choice.variant, params_, input.width, input.height, choice.config);
               return std::pair{std::move(choice), std::move(why)};
             },
         .run = [&](Context& ctx, const Image& input,
                    Timing* timing) { return sobel(ctx, input, params_, options_.variant, timing); },
         .describe =
             [&] {
               return fmt::format("sobel output={} border={}", to_string(params_.output), to_string(params_.border));
             }});
  }

 private:
  // --output and --border, their ranges, and that gradients go to .npy (usage errors).
  void check_params() {
    params_.output = parse_sobel_output(output_);
    params_.border = parse_border_option(options_.border);
    sobel_check_params(params_);
    if (params_.output != SobelOutput::gradients) return;
    for (const ImageJob& job : image_jobs(options_)) {
      std::string ext = std::filesystem::path(job.output).extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
      if (ext != ".npy")
        throw UsageError(
            fmt::format("{}: --output gradients writes two int16 planes, which only .npy holds", job.output));
    }
  }

  ImageCommandOptions options_;
  std::string output_ = "magnitude";
  SobelParams params_;
};

const CommandRegistrar registrar(140, [] { return std::unique_ptr<Command>(new SobelCommand); });

}  // namespace
}  // namespace clf::cli
