// clfilters bilateral IN OUT [--sigma-spatial S] [--sigma-range R] [--radius N] [--border ...]
//                            [--variant ...] [--device ...] [--time]
#include <fmt/format.h>

#include "clfilters/bilateral.hpp"
#include "cli_common.hpp"

namespace clf::cli {
namespace {

class BilateralCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) override {
    auto* cmd = app.add_subcommand("bilateral",
                                   "bilateral filter: smooths while keeping edges; grey, or RGBA with the colour "
                                   "distance over R, G, B and alpha copied");
    add_image_options(cmd, options_, bilateral_variants());
    cmd->add_option("--sigma-spatial", params_.sigma_spatial, "spatial Gaussian sigma, in pixels")
        ->check(CLI::Range(kMinBilateralSigma, 1e6))
        ->capture_default_str();
    cmd->add_option("--sigma-range", params_.sigma_range, "range Gaussian sigma, in 8-bit units")
        ->check(CLI::Range(kMinBilateralSigma, 1e6))
        ->capture_default_str();
    cmd->add_option("--radius", params_.radius,
                    fmt::format("window radius, 0..{} (default ceil(2 * sigma-spatial), at most {})",
                                kMaxBilateralRadius, kMaxBilateralRadius))
        ->check(CLI::Range(0, kMaxBilateralRadius));
    return cmd;
  }

  int run() override {
    params_.border = parse_border_option(options_.border);
    try {
      check_bilateral_params(params_);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    check_variant_name(options_.variant, bilateral_variants());
    check_output_extension(options_.output);
    const Image input = read_input(options_.input);
    if (input.type != SampleType::u8 || input.channels > 4)
      throw std::runtime_error(
          fmt::format("{}: bilateral needs 8-bit images with 1 to 4 channels, this file holds "
                      "{} channel(s) of {}",
                      options_.input, input.channels, sample_type_name(input.type)));
    Context ctx(options_.device);
    // Grey and grey+alpha run as grey, RGB and RGBA as RGBA.
    const int device_channels = input.channels <= 2 ? 1 : 4;
    const VariantChoice choice =
        bilateral_choose(ctx, params_, options_.variant, input.width, input.height, device_channels);
    if (auto why = bilateral_unsupported(ctx.info(), choice.variant, params_, input.width, input.height,
                                         device_channels, choice.config))
      throw UsageError(*why);
    Timing timing;
    const Image out = bilateral(ctx, input, params_, options_.variant, &timing);
    write_output(out, options_);
    print_result(fmt::format("bilateral sigma_spatial={} sigma_range={} radius={} border={} variant={} ({})",
                             params_.sigma_spatial, params_.sigma_range, bilateral_radius(params_),
                             to_string(params_.border), describe(choice), choice.reason),
                 ctx, input, options_, timing);
    return 0;
  }

 private:
  ImageCommandOptions options_;
  BilateralParams params_;
};

const CommandRegistrar registrar(110, [] { return std::unique_ptr<Command>(new BilateralCommand); });

}  // namespace
}  // namespace clf::cli
