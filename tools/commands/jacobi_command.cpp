// SPDX-License-Identifier: Apache-2.0
// clfilters edges IN OUT.npy [--device ...] [--time]
// clfilters reconstruct EDGES OUT [--iterations N] [--tolerance T] [--check-every M] [--initial FILE]
//                                 [--variant ...] [--device ...] [--time] [--quality Q] [--png-compression L]
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "clfilters/image_io.hpp"
#include "clfilters/jacobi.hpp"
#include "cli_common.hpp"

namespace clf::cli {
namespace {

bool is_npy(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".npy";
}

std::string shape_text(const Image& image) {
  return image.channels == 1 ? fmt::format("{} x {}", image.height, image.width)
                             : fmt::format("{} x {} x {}", image.height, image.width, image.channels);
}

void add_device_options(CLI::App* cmd, ImageCommandOptions& o) {
  cmd->add_option("--device", o.device,
                  "OpenCL device: index (0, 1:0) or part of its platform/device name (nvidia, pocl, cpu); "
                  "default $CLFILTERS_DEVICE, else the first GPU, else the first CPU");
  cmd->add_flag("--time", o.time, "print kernel time (profiling events) and total time (upload to download)");
}

class EdgesCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) override {
    auto* cmd = app.add_subcommand(
        "edges", "edge map u(x-1,y)+u(x+1,y)+u(x,y-1)+u(x,y+1)-4u(x,y) (zero outside) as float32; colour becomes grey");
    cmd->add_option("IN", options_.input, "input image (PNG, JPEG, PGM/PPM, .npy)")->required();
    cmd->add_option("OUT", options_.output, "output edge map, a float32 .npy")->required();
    add_device_options(cmd, options_);
    return cmd;
  }

  int run() override {
    if (!is_npy(options_.output))
      throw UsageError(fmt::format("{}: the edge map is float32, which only .npy holds", options_.output));
    check_output_path(options_.output);
    const Image input = read_input(options_.input);
    Image grey;
    try {
      grey = to_grey_float(input);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("{}: {}", options_.input, e.what()));
    }
    Context ctx(options_.device);
    Timing timing;
    const Image edges = run_on_device(ctx, grey, options_.input, [&] { return jacobi_edges(ctx, grey, &timing); });
    write_output(edges, options_.output, options_);
    print_result("edges", ctx, input, options_, timing);
    return 0;
  }

 private:
  ImageCommandOptions options_;
};

// 8-bit output: rounded (ties up) and clamped to 0..255; NaN becomes 0.
Image to_u8(const Image& f) {
  Image out(f.width, f.height, 1);
  const auto src = f.samples<float>();
  auto dst = out.samples<std::uint8_t>();
  for (std::size_t i = 0; i < src.size(); ++i) {
    const double v = std::floor(double(src[i]) + 0.5);
    dst[i] = static_cast<std::uint8_t>(v >= 255 ? 255 : v > 0 ? v : 0);
  }
  return out;
}

class ReconstructCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) override {
    auto* cmd = app.add_subcommand("reconstruct",
                                   "rebuild an image from its edge map by Jacobi iteration (reverse edge detection)");
    cmd->add_option("EDGES", options_.input, "edge map: a float32 .npy of shape H x W")->required();
    cmd->add_option("OUT", options_.output, "output: .npy (float32), or an 8-bit image (rounded and clamped)")
        ->required();
    iterations_option_ = cmd->add_option("-n,--iterations", params_.iterations,
                                         "the most iterations (default 1000, or 1000000 with --tolerance)");
    tolerance_option_ =
        cmd->add_option("-t,--tolerance", tolerance_, "stop once the largest change in one iteration is <= T");
    cmd->add_option("--check-every", params_.check_every,
                    "with --tolerance: read the device's per-iteration maxima back every M iterations")
        ->capture_default_str();
    cmd->add_option("--initial", initial_, "initial iterate (same size as EDGES; any image, zeros if absent)");
    std::string help = "auto (the built-in choice) or one of:";
    for (const auto& v : jacobi_variants()) help += fmt::format("\n  {}: {}", v.name, v.summary);
    cmd->add_option("--variant", options_.variant, help)->capture_default_str();
    add_device_options(cmd, options_);
    add_output_options(cmd, options_);
    return cmd;
  }

  int run() override {
    if (tolerance_option_->count() > 0) params_.tolerance = tolerance_;
    if (iterations_option_->count() == 0) params_.iterations = params_.tolerance ? 1000000 : 1000;
    params_.report_change = true;
    try {
      jacobi_check_params(params_);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    check_variant_name(options_.variant, jacobi_variants());
    check_output_extension(options_.output);

    const Image edges = read_input(options_.input);
    if (edges.type != SampleType::f32 || edges.channels != 1)
      throw std::runtime_error(
          fmt::format("{}: the edge map must be a float32 array of shape H x W, this file holds "
                      "{} of shape {}",
                      options_.input, sample_type_name(edges.type), shape_text(edges)));
    Image initial;
    if (!initial_.empty()) {
      const Image raw = read_input(initial_);
      try {
        initial = to_grey_float(raw);
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(fmt::format("{}: {}", initial_, e.what()));
      }
      if (initial.width != edges.width || initial.height != edges.height)
        throw std::runtime_error(fmt::format("{}: the initial image is {}x{} but the edge map {} is {}x{}", initial_,
                                             initial.width, initial.height, options_.input, edges.width, edges.height));
    }

    Context ctx(options_.device);
    const VariantChoice choice = jacobi_choose(ctx, options_.variant, edges.width, edges.height);
    if (auto why = jacobi_unsupported(ctx.info(), choice.variant, edges.width, edges.height, choice.config))
      throw UsageError(*why);
    Timing timing;
    // Cut into bands where the device cannot hold it whole.
    const JacobiResult result = run_on_device(
        ctx, edges, options_.input,
        [&] { return jacobi_reconstruct(ctx, edges, params_, options_.variant, initial, &timing); }, false);
    if (is_npy(options_.output))
      write_output(result.image, options_.output, options_);
    else
      write_output(to_u8(result.image), options_.output, options_);

    fmt::print("reconstruct variant={} on {} ({}): {}x{} -> {}\n", variant_that_ran(ctx, choice), ctx.info().name,
               ctx.info().platform_name, edges.width, edges.height, options_.output);
    const std::string change = result.last_change ? fmt::format("{:.6g}", *result.last_change) : "n/a";
    std::string why;
    if (params_.tolerance && result.last_change && *result.last_change <= *params_.tolerance)
      why = fmt::format(" (converged: <= tolerance {})", *params_.tolerance);
    else if (params_.tolerance)
      why = fmt::format(" (stopped at the limit of {} iterations before reaching tolerance {})", params_.iterations,
                        *params_.tolerance);
    fmt::print("{} iterations, largest change in the last one {}{}\n", result.iterations, change, why);
    if (options_.time)
      fmt::print("kernel {:.3f} ms, total {:.3f} ms\n", timing.kernel_ms, timing.total_ms);
    else
      fmt::print("total {:.3f} ms\n", timing.total_ms);
    return 0;
  }

 private:
  ImageCommandOptions options_;
  JacobiParams params_;
  double tolerance_ = 0;
  CLI::Option* tolerance_option_ = nullptr;
  std::string initial_;
  CLI::Option* iterations_option_ = nullptr;
};

const CommandRegistrar edges_registrar(150, [] { return std::unique_ptr<Command>(new EdgesCommand); });
const CommandRegistrar reconstruct_registrar(151, [] { return std::unique_ptr<Command>(new ReconstructCommand); });

}  // namespace
}  // namespace clf::cli
