// SPDX-License-Identifier: Apache-2.0
#include "cli_common.hpp"

#include <fmt/format.h>

#include "clfilters/image_io.hpp"

namespace clf::cli {

std::vector<std::pair<int, CommandFactory>>& command_factories() {
  static std::vector<std::pair<int, CommandFactory>> all;
  return all;
}

std::string& invocation() {
  static std::string text;
  return text;
}

CommandRegistrar::CommandRegistrar(int order, CommandFactory factory) {
  command_factories().emplace_back(order, factory);
}

void add_image_options(CLI::App* cmd, ImageCommandOptions& o, const std::vector<VariantInfo>& variants,
                       bool with_border) {
  cmd->add_option("IN", o.input, "input image (PNG, JPEG, PGM/PPM, .npy)")->required();
  cmd->add_option("OUT", o.output, "output image; the format follows the extension")->required();
  if (with_border)
    cmd->add_option("--border", o.border, "replicate | reflect101 | constant[=V]")->capture_default_str();
  std::string help = "auto (the tuned or built-in choice) or one of:";
  for (const auto& v : variants) help += fmt::format("\n  {}: {}", v.name, v.summary);
  cmd->add_option("--variant", o.variant, help)->capture_default_str();
  cmd->add_option("--device", o.device,
                  "OpenCL device: index (0, 1:0) or part of its platform/device name (nvidia, pocl, cpu); "
                  "default $CLFILTERS_DEVICE, else the first GPU, else the first CPU");
  cmd->add_flag("--time", o.time, "print kernel time (profiling events) and total time (upload to download)");
  add_output_options(cmd, o);
}

void add_output_options(CLI::App* cmd, ImageCommandOptions& o) {
  cmd->add_option("--quality", o.jpeg_quality, "JPEG quality of the output, 1-100")->check(CLI::Range(1, 100));
  cmd->add_option("--png-compression", o.png_compression,
                  "PNG zlib level of the output, 0-9: 1 is fast (as OpenCV writes), 6 libpng's default, 9 the "
                  "smallest; the pixels are the same")
      ->check(CLI::Range(0, 9))
      ->capture_default_str();
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

ParamMap parse_params_option(const std::string& text) {
  ParamMap params;
  for (const std::string& item : split_commas(text)) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw UsageError(fmt::format("bad --params item '{}' (expected key=value)", item));
    params[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return params;
}

Border parse_border_option(const std::string& text) {
  try {
    return parse_border(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

void check_variant_name(const std::string& variant, const std::vector<VariantInfo>& variants) {
  if (variant == "auto" || find_variant(variants, variant)) return;
  std::string names;
  for (const auto& v : variants) names += (names.empty() ? "" : ", ") + v.name;
  throw UsageError(fmt::format("unknown variant '{}' (expected auto, {})", variant, names));
}

void check_output_extension(const std::string& path) {
  try {
    format_from_extension(path);
  } catch (const ImageIoError& e) {
    throw UsageError(e.what());
  }
  // An output that would be refused (a directory, FIFO or device, a read-only file) is a runtime error, found first.
  check_output_path(path);
}

Image read_input(const std::string& path) {
  return read_image(path);
}

void write_output(const Image& image, const ImageCommandOptions& options) {
  write_image(image, options.output,
              {.jpeg_quality = options.jpeg_quality, .png_compression = options.png_compression});
}

void print_result(const std::string& description, const Context& ctx, const Image& input,
                  const ImageCommandOptions& options, const Timing& timing) {
  fmt::print("{} on {} ({}): {}x{}x{} -> {}\n", description, ctx.info().name, ctx.info().platform_name, input.width,
             input.height, input.channels, options.output);
  if (options.time) fmt::print("kernel {:.3f} ms, total {:.3f} ms\n", timing.kernel_ms, timing.total_ms);
}

int run_image_filter(const ImageCommandOptions& options, const ImageFilterSteps& steps) {
  try {
    steps.check_params();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  check_variant_name(options.variant, *steps.variants);
  check_output_extension(options.output);
  const Image input = read_input(options.input);
  if (input.type != SampleType::u8 || input.channels > 4)
    throw std::runtime_error(
        fmt::format("{}: {} needs 8-bit images with 1 to 4 channels, this file holds {} channel(s) "
                    "of {}",
                    options.input, steps.command, input.channels, sample_type_name(input.type)));
  Context ctx(options.device);
  const auto [choice, why] = steps.choose(ctx, input);
  if (why) throw UsageError(*why);
  Timing timing;
  const Image out = steps.run(ctx, input, &timing);
  write_output(out, options);
  if (!steps.quiet)
    print_result(fmt::format("{} variant={} ({})", steps.describe(), describe(choice), choice.reason), ctx, input,
                 options, timing);
  return 0;
}

}  // namespace clf::cli
