// SPDX-License-Identifier: Apache-2.0
#include "cli_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <future>
#include <new>
#include <optional>

#include "clfilters/image_io.hpp"
#include "clfilters/version.hpp"
#include "filters/image_call.hpp"

namespace clf::cli {
namespace {

std::optional<ImageFormat> format_of(const std::string& path) {
  try {
    return format_from_extension(path);
  } catch (const ImageIoError&) {
    return std::nullopt;
  }
}

}  // namespace

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
  cmd->add_option("FILES", o.files,
                  "IN OUT: the input image (PNG, JPEG, PGM/PPM, .npy) and the output, whose extension sets its "
                  "format; or, with -o DIR, any number of inputs")
      ->required();
  cmd->add_option("-o,--output-dir", o.output_dir,
                  "filter every input into DIR/<its file name> (DIR is created if missing), with one device setup "
                  "for all");
  cmd->add_option("--format", o.output_format, "with -o: write the outputs as png, jpg, pgm, ppm or npy");
  cmd->parse_complete_callback([&o] {
    if (!o.output_format.empty() && o.output_dir.empty()) throw CLI::ValidationError("--format", "needs -o DIR");
    if (o.output_dir.empty() && o.files.size() != 2)
      throw CLI::ValidationError("FILES", o.files.size() < 2 ? "give IN OUT, or inputs with -o DIR"
                                                             : "several inputs need -o DIR (or give IN OUT)");
    o.input = o.files.front();
    o.output = o.output_dir.empty() ? o.files.back() : std::string();
  });
  if (with_border)
    cmd->add_option("--border", o.border, "replicate | reflect101 | constant[=V]")->capture_default_str();
  std::string help = "auto (the tuned or built-in choice) or one of:";
  for (const auto& v : variants) help += fmt::format("\n  {}: {}", v.name, v.summary);
  cmd->add_option("--variant", o.variant, help)->capture_default_str();
  cmd->add_option("--device", o.device,
                  "OpenCL device: index (0, 1:0) or part of its platform/device name (nvidia, pocl, cpu); "
                  "default $CLFILTERS_DEVICE, else the first GPU, else the first CPU. For images, several: a "
                  "comma-separated list (0,1), all, all-gpus or all-cpus; SEL/N splits a device into N sub-devices");
  cmd->add_flag("--time", o.time, "print kernel time (profiling events) and total time (upload to download)");
  add_output_options(cmd, o);
}

CLI::Validator number_at_least(double min, bool strict) {
  const std::string bound = fmt::format("{} {:g}", strict ? ">" : ">=", min);
  return CLI::Validator(
      [min, strict, bound](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) return fmt::format("'{}' is not a number", text);
        if (strict ? value > min : value >= min) return {};
        return fmt::format("must be {}, got {}", bound, text);
      },
      "NUMBER " + bound, strict ? "POSITIVE" : "NONNEGATIVE");
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

// What the device must hold of `input` at the least, one byte a sample, in and out: refused with the file's name
// before any allocation if that is already more than the device can take.
void check_device_memory(const Context& ctx, const Image& input, const std::string& path) {
  const DeviceInfo& device = ctx.info();
  const std::uint64_t bytes = std::uint64_t(input.width) * std::uint64_t(input.height) * (input.channels == 1 ? 1 : 4);
  if (device.max_alloc_bytes != 0 && bytes > device.max_alloc_bytes)
    throw std::runtime_error(
        fmt::format("{}: a {}x{}x{} image takes {} bytes on the device, more than {} can "
                    "allocate at once ({} bytes)",
                    path, input.width, input.height, input.channels, bytes, device.name, device.max_alloc_bytes));
  if (device.global_mem_bytes != 0 && 2 * bytes > device.global_mem_bytes)
    throw std::runtime_error(
        fmt::format("{}: a {}x{}x{} image and its result take {} bytes on the device, more "
                    "than the memory of {} ({} bytes)",
                    path, input.width, input.height, input.channels, 2 * bytes, device.name, device.global_mem_bytes));
}

void report_allocation_failure(const Context& ctx, const Image& input, const std::string& path) {
  const std::string size =
      fmt::format("{}x{}x{} image, {} bytes", input.width, input.height, input.channels, input.byte_size());
  try {
    throw;
  } catch (const ClError& e) {
    const cl_int code = e.code();
    if (code != CL_MEM_OBJECT_ALLOCATION_FAILURE && code != CL_OUT_OF_RESOURCES && code != CL_OUT_OF_HOST_MEMORY &&
        code != CL_INVALID_BUFFER_SIZE)
      throw;
    throw std::runtime_error(
        fmt::format("{}: {} could not allocate memory for the {}: {}", path, ctx.info().name, size, e.what()));
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(fmt::format("{}: not enough memory to filter the {}", path, size));
  }
}

Image read_input(const std::string& path) {
  Image image = read_image(path);
  // NumPy has no colour model: say how the second channel of an (H, W, 2) array is taken.
  if (image.channels == 2 && format_of(path) == ImageFormat::npy)
    fmt::print(stderr, "clfilters: note: {}: an (H, W, 2) array is read as grey + alpha (channel 1 is alpha)\n", path);
  return image;
}

void write_output(const Image& image, const std::string& path, const ImageCommandOptions& options) {
  write_image(image, path, {.jpeg_quality = options.jpeg_quality, .png_compression = options.png_compression});
}

void check_filter_input(const Image& input, const std::string& path, const ImageFilterSteps& steps) {
  const std::string& command = steps.command;
  const bool u16 = steps.takes_u16;
  if ((input.type != SampleType::u8 && !(u16 && input.type == SampleType::u16)) || input.channels > 4)
    throw std::runtime_error(
        fmt::format("{}: {} needs {} images with 1 to 4 channels, this file holds {} channel(s) "
                    "of {}",
                    path, command, u16 ? "8- or 16-bit" : "8-bit", input.channels, sample_type_name(input.type)));
  if (steps.cut_into_bands) return;
  try {
    check_image_size(input.width, input.height);
  } catch (const std::invalid_argument&) {
    throw std::runtime_error(
        fmt::format("{}: image too large to filter ({}x{} pixels; the filters take fewer than "
                    "2^29)",
                    path, input.width, input.height));
  }
}

void check_output_depth(const Image& input, const std::string& path, const std::string& output) {
  if (input.type == SampleType::u16 && format_from_extension(output) == ImageFormat::jpeg)
    throw std::runtime_error(
        fmt::format("{}: JPEG holds 8-bit samples and {} is 16-bit (write .png, .pgm/.ppm or .npy)", output, path));
}

std::string variant_that_ran(const Context& ctx, const VariantChoice& choice) {
  const std::optional<VariantFallback> fallback = ctx.last_fallback();
  if (!fallback) return fmt::format("{} ({})", describe(choice), choice.reason);
  return fmt::format("{} (fallback: {} was refused)", fallback->ran, fallback->refused);
}

void print_result(const std::string& description, const Context& ctx, const Image& input,
                  const ImageCommandOptions& options, const Timing& timing) {
  fmt::print("{} on {} ({}): {}x{}x{} -> {}\n", description, ctx.info().name, ctx.info().platform_name, input.width,
             input.height, input.channels, options.output);
  if (options.time) fmt::print("kernel {:.3f} ms, total {:.3f} ms\n", timing.kernel_ms, timing.total_ms);
}

bool is_device_list(const std::string& device) {
  return device.find(',') != std::string::npos || device.find('/') != std::string::npos || device == "all" ||
         device == "all-gpus" || device == "all-cpus";
}

std::vector<std::unique_ptr<Context>> open_devices(const std::string& device) {
  std::vector<DeviceHandle> handles;
  try {
    handles = select_devices(device);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--device: {}", e.what()));
  }
  std::vector<std::unique_ptr<Context>> contexts;
  for (DeviceHandle& d : handles) contexts.push_back(std::make_unique<Context>(std::move(d)));
  return contexts;
}

std::vector<Context*> pointers(const std::vector<std::unique_ptr<Context>>& contexts) {
  std::vector<Context*> out;
  for (const auto& c : contexts) out.push_back(c.get());
  return out;
}

std::string describe_devices(const std::vector<Context*>& devices) {
  std::string names;
  for (const Context* ctx : devices)
    names += fmt::format("{}{} [{}]", names.empty() ? "" : ", ", ctx->info().name, ctx->info().index_name());
  return fmt::format("{} device{}: {} ({})", devices.size(), devices.size() == 1 ? "" : "s", names,
                     devices.front()->info().platform_name);
}

std::string variants_that_ran(const std::vector<Context*>& devices, const std::vector<VariantChoice>& choices) {
  std::vector<std::string> ran;
  for (std::size_t d = 0; d < devices.size(); ++d) {
    std::string v = variant_that_ran(*devices[d], choices[d]);
    if (std::find(ran.begin(), ran.end(), v) == ran.end()) ran.push_back(std::move(v));
  }
  std::string out;
  for (const std::string& v : ran) out += (out.empty() ? "" : "; ") + v;
  return out;
}

namespace {

// One image over several devices (--device with a list): each device's variant checked, then the bands.
int run_on_devices(const ImageCommandOptions& options, const ImageFilterSteps& steps) {
  if (!steps.run_on_devices)
    throw UsageError(fmt::format("--device {}: {} runs on one device", options.device, steps.command));
  std::future<Image> reading = std::async(std::launch::async, read_input, options.input);
  std::vector<std::unique_ptr<Context>> contexts;
  try {
    contexts = open_devices(options.device);
  } catch (...) {
    reading.get();
    throw;
  }
  const std::vector<Context*> devices = pointers(contexts);
  const Image input = reading.get();
  check_filter_input(input, options.input, steps);
  check_output_depth(input, options.input, options.output);
  if (steps.set_sample_type) {
    try {
      steps.set_sample_type(input.type);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("{}: {}", options.input, e.what()));
    }
  }
  std::vector<VariantChoice> choices;
  for (Context* ctx : devices) {
    auto [choice, why] = steps.choose(*ctx, input);
    if (why) throw UsageError(*why);
    choices.push_back(std::move(choice));
  }
  Timing timing;
  const Image out = run_on_device(
      *devices.front(), input, options.input, [&] { return steps.run_on_devices(devices, input, &timing); },
      !steps.cut_into_bands);
  write_output(out, options.output, options);
  if (!steps.quiet) {
    fmt::print("{} variant={} on {}: {}x{}x{} -> {}\n", steps.describe(), variants_that_ran(devices, choices),
               describe_devices(devices), input.width, input.height, input.channels, options.output);
    if (options.time) fmt::print("kernel {:.3f} ms, total {:.3f} ms\n", timing.kernel_ms, timing.total_ms);
  }
  return 0;
}

}  // namespace

int run_image_filter(const ImageCommandOptions& options, const ImageFilterSteps& steps) {
  try {
    steps.check_params();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  check_variant_name(options.variant, *steps.variants);
  if (!options.output_dir.empty()) return run_image_batch(options, steps);
  check_output_extension(options.output);
  if (is_device_list(options.device)) return run_on_devices(options, steps);
  // The file decodes on a second thread while the device is set up: each takes 0.1-0.3 s for a 4K photo on the
  // NVIDIA machine. (The Context stays on this thread: PoCL's state made on a thread that then ends broke the ASan
  // build's thread exit.) A bad file is still reported before a device error.
  std::future<Image> reading = std::async(std::launch::async, read_input, options.input);
  std::optional<Context> context;
  try {
    context.emplace(options.device);
  } catch (...) {
    reading.get();
    throw;
  }
  const Image input = reading.get();
  check_filter_input(input, options.input, steps);
  check_output_depth(input, options.input, options.output);
  Context& ctx = *context;
  Timing timing;
  const auto [out, ran] = filter_on_device(ctx, input, options.input, steps, timing);
  write_output(out, options.output, options);
  if (!steps.quiet) print_result(fmt::format("{} variant={}", steps.describe(), ran), ctx, input, options, timing);
  return 0;
}

std::pair<Image, std::string> filter_on_device(Context& ctx, const Image& input, const std::string& path,
                                               const ImageFilterSteps& steps, Timing& timing) {
  if (steps.set_sample_type) {
    try {
      steps.set_sample_type(input.type);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("{}: {}", path, e.what()));
    }
  }
  const auto [choice, why] = steps.choose(ctx, input);
  if (why) throw UsageError(*why);
  Image out = run_on_device(
      ctx, input, path, [&] { return steps.run(ctx, input, &timing); }, !steps.cut_into_bands);
  return {std::move(out), variant_that_ran(ctx, choice)};
}

std::unique_ptr<CliApp> make_cli_app() {
  auto cli = std::make_unique<CliApp>();
  CLI::App& app = cli->app;
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("clfilters ") + clf::version());
  // Also accepted after the subcommand's own options ("clfilters box-blur in.png out.png --max-pixels 1000000").
  app.fallthrough();
  app.add_option("--max-pixels", cli->max_pixels,
                 "the largest image or video frame read, in pixels (default $CLFILTERS_MAX_PIXELS, else 2^30); "
                 "larger inputs are refused before any memory is allocated for them")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));

  auto factories = command_factories();
  std::stable_sort(factories.begin(), factories.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (const auto& [order, make] : factories) {
    auto command = make();
    CLI::App* sub = command->add_to(app);
    cli->commands.emplace_back(sub, std::move(command));
  }
  return cli;
}

void apply_global_options(const CliApp& cli) {
  if (cli.max_pixels != 0) ::setenv("CLFILTERS_MAX_PIXELS", std::to_string(cli.max_pixels).c_str(), 1);
}

}  // namespace clf::cli
