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
    SobelParams params;
    try {
      params.output = parse_sobel_output(output_);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    params.border = parse_border_option(options_.border);
    check_variant_name(options_.variant, sobel_variants());
    check_output_extension(options_.output);
    if (params.output == SobelOutput::gradients) {
      std::string ext = std::filesystem::path(options_.output).extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
      if (ext != ".npy")
        throw UsageError(
            fmt::format("{}: --output gradients writes two int16 planes, which only .npy holds", options_.output));
    }
    const Image input = read_input(options_.input);
    if (input.type != SampleType::u8 || input.channels > 4)
      throw std::runtime_error(
          fmt::format("{}: sobel needs 8-bit images with 1 to 4 channels, this file holds "
                      "{} channel(s) of {}",
                      options_.input, input.channels, sample_type_name(input.type)));
    Context ctx(options_.device);
    const VariantChoice choice = sobel_choose(ctx, params, options_.variant, input.width, input.height);
    if (auto why = sobel_unsupported(ctx.info(), choice.variant, params, input.width, input.height, choice.config))
      throw UsageError(*why);
    Timing timing;
    const Image out = sobel(ctx, input, params, options_.variant, &timing);
    write_output(out, options_);
    print_result(fmt::format("sobel output={} border={} variant={} ({})", to_string(params.output),
                             to_string(params.border), describe(choice), choice.reason),
                 ctx, input, options_, timing);
    return 0;
  }

 private:
  ImageCommandOptions options_;
  std::string output_ = "magnitude";
};

const CommandRegistrar registrar(140, [] { return std::unique_ptr<Command>(new SobelCommand); });

}  // namespace
}  // namespace clf::cli
