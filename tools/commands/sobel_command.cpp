// SPDX-License-Identifier: Apache-2.0
// clfilters sobel IN OUT [--output magnitude|l1|gradients] [--border ...] [--variant ...] [--device ...] [--time]
// Video (video_filter.hpp): a grey stream (Y4M Cmono, raw gray) of the Y plane's magnitude (or l1).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "clfilters/sobel.hpp"
#include "cli_common.hpp"
#include "video_filter.hpp"

namespace clf::cli {
namespace {

class SobelCommand : public FilterCommand {
 public:
  SobelCommand()
      : FilterCommand("sobel", "Sobel edge detection on the grey image (RGB/RGBA are converted)", sobel_variants(),
                      "y") {}

  int run() override {
    if (is_video_input(options_, video_))
      return run_video_filter(
          options_, video_,
          {.command = "sobel",
           .variants = &sobel_variants(),
           .check_params = [&](SampleType) { check_video_params(); },
           .default_planes = "y",
           .grey_output = true,
           .choose =
               [&](Context& ctx, int w, int h, SampleType) {  // 8-bit: deeper video is refused
                 VariantChoice choice = sobel_choose(ctx, params_, options_.variant, w, h);
                 auto why = sobel_unsupported(ctx.info(), choice.variant, params_, w, h, choice.config);
                 return std::pair{std::move(choice), std::move(why)};
               },
           .prepare = [&](Context& ctx, int w, int h,
                          SampleType) { sobel_prepare(ctx, params_, options_.variant, w, h); },
           .filter = [&](Context& ctx, const DeviceImage& in,
                         DeviceImage& out) { return sobel(ctx, in, out, params_, options_.variant); },
           .describe = [&] { return describe(); }});
    refuse_video_options(video_);
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
         .run_on_devices = [&](const std::vector<Context*>& devices, const Image& input,
                               Timing* timing) { return sobel(devices, input, params_, options_.variant, timing); },
         .describe = [&] { return describe(); },
         .cut_into_bands = true,
         .quiet = video_.quiet});
  }

 private:
  void add_filter_options(CLI::App* cmd) override {
    cmd->add_option("--output", output_,
                    "magnitude (round(sqrt(gx^2+gy^2)), clamped to 255) | l1 (min(255, |gx|+|gy|)) | gradients "
                    "(gx and gy as an H x W x 2 int16 .npy)")
        ->capture_default_str();
  }

  std::string describe() const {
    return fmt::format("sobel output={} border={}", to_string(params_.output), to_string(params_.border));
  }

  // Video frames become grey frames: magnitude or l1, not the two int16 gradient planes.
  void check_video_params() {
    params_.output = parse_sobel_output(output_);
    params_.border = parse_border_option(options_.border);
    sobel_check_params(params_);
    if (params_.output == SobelOutput::gradients)
      throw UsageError(
          "--output gradients writes two int16 planes, which a video stream cannot hold; use "
          "magnitude or l1 for video");
  }

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

  std::string output_ = "magnitude";
  SobelParams params_;
};

const CommandRegistrar registrar(140, [] { return std::unique_ptr<Command>(new SobelCommand); });

}  // namespace
}  // namespace clf::cli
