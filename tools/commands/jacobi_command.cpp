// SPDX-License-Identifier: Apache-2.0
// clfilters edges IN OUT.npy [--device ...] [--time]
// clfilters reconstruct EDGES OUT [--iterations N] [--tolerance T] [--check-every M] [--initial FILE]
//                                 [--variant ...] [--device ...] [--time] [--quality Q] [--png-compression L]
#include <fmt/format.h>

#include "clfilters/image_io.hpp"
#include "clfilters/jacobi.hpp"
#include "cli_common.hpp"
#include "reconstruct_options.hpp"

namespace clf::cli {
namespace {

const char* const kDeviceHelp =
    "OpenCL device: index (0, 1:0) or part of its platform/device name (nvidia, pocl, cpu); default "
    "$CLFILTERS_DEVICE, else the first GPU, else the first CPU";

void add_device_options(CLI::App* cmd, ImageCommandOptions& o) {
  cmd->add_option("--device", o.device, kDeviceHelp);
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

class ReconstructCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) override {
    auto* cmd = add_reconstruct_command(app, options_);
    cmd->add_option("--device", options_.image.device, kDeviceHelp);
    return cmd;
  }

  int run() override {
    finish_reconstruct_options(options_);
    const ImageCommandOptions& o = options_.image;
    check_output_extension(o.output);

    const Image edges = read_input(o.input);
    if (auto problem = edge_map_problem(o.input, edges.type, edges.width, edges.height, edges.channels);
        !problem.empty())
      throw std::runtime_error(problem);
    Image initial;
    if (!options_.initial.empty()) {
      const Image raw = read_input(options_.initial);
      try {
        initial = to_grey_float(raw);
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(fmt::format("{}: {}", options_.initial, e.what()));
      }
      if (initial.width != edges.width || initial.height != edges.height)
        throw std::runtime_error(fmt::format("{}: the initial image is {}x{} but the edge map {} is {}x{}",
                                             options_.initial, initial.width, initial.height, o.input, edges.width,
                                             edges.height));
    }

    Context ctx(o.device);
    const VariantChoice choice = jacobi_choose(ctx, o.variant, edges.width, edges.height);
    if (auto why = jacobi_unsupported(ctx.info(), choice.variant, edges.width, edges.height, choice.config))
      throw UsageError(*why);
    Timing timing;
    // Cut into bands where the device cannot hold it whole.
    const JacobiResult result = run_on_device(
        ctx, edges, o.input,
        [&] { return jacobi_reconstruct(ctx, edges, options_.params, o.variant, initial, &timing); }, false);
    write_output(is_npy(o.output) ? result.image : to_u8(result.image), o.output, o);

    fmt::print("reconstruct variant={} on {} ({}): {}x{} -> {}\n", variant_that_ran(ctx, choice), ctx.info().name,
               ctx.info().platform_name, edges.width, edges.height, o.output);
    fmt::print("{}\n", iterations_line(options_.params, result));
    if (o.time)
      fmt::print("kernel {:.3f} ms, total {:.3f} ms\n", timing.kernel_ms, timing.total_ms);
    else
      fmt::print("total {:.3f} ms\n", timing.total_ms);
    return 0;
  }

 private:
  ReconstructOptions options_;
};

const CommandRegistrar edges_registrar(150, [] { return std::unique_ptr<Command>(new EdgesCommand); });
const CommandRegistrar reconstruct_registrar(151, [] { return std::unique_ptr<Command>(new ReconstructCommand); });

}  // namespace
}  // namespace clf::cli
