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
    cmd->add_option("-d,--diameter", params_.diameter, "window diameter, odd or even")
        ->check(CLI::Range(1, kMaxBoxDiameter))
        ->capture_default_str();
    return cmd;
  }

  int run() override {
    params_.border = parse_border_option(options_.border);
    check_variant_name(options_.variant, box_blur_variants());
    check_output_extension(options_.output);
    const Image input = read_input(options_.input);
    if (input.type != SampleType::u8 || input.channels > 4)
      throw std::runtime_error(
          fmt::format("{}: box-blur needs 8-bit images with 1 to 4 channels, this file holds "
                      "{} channel(s) of {}",
                      options_.input, input.channels, sample_type_name(input.type)));
    Context ctx(options_.device);
    const int device_channels = input.channels == 1 ? 1 : 4;
    const VariantChoice choice =
        box_blur_choose(ctx, params_, options_.variant, input.width, input.height, device_channels);
    if (auto why = box_blur_unsupported(ctx.info(), choice.variant, params_, input.width, input.height, device_channels,
                                        choice.config))
      throw UsageError(*why);
    Timing timing;
    const Image out = box_blur(ctx, input, params_, options_.variant, &timing);
    write_output(out, options_);
    print_result(fmt::format("box-blur d={} border={} variant={} ({})", params_.diameter, to_string(params_.border),
                             describe(choice), choice.reason),
                 ctx, input, options_, timing);
    return 0;
  }

 private:
  ImageCommandOptions options_;
  BoxBlurParams params_;
};

const CommandRegistrar registrar(100, [] { return std::unique_ptr<Command>(new BoxBlurCommand); });

}  // namespace
}  // namespace clf::cli
