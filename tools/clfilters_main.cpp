// clfilters: the command line. Exit codes: 0 success, 1 runtime error (bad file, device failure),
// 2 usage error (bad flags or parameters).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "clfilters/box_blur.hpp"
#include "clfilters/image_io.hpp"
#include "clfilters/runtime.hpp"

namespace {

constexpr int kRuntimeError = 1;
constexpr int kUsageError = 2;

// A usage error found after parsing (e.g. a variant that cannot take these parameters).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string human_bytes(std::uint64_t b) {
  if (b >= (1ull << 30)) return fmt::format("{:.1f} GiB", double(b) / double(1ull << 30));
  if (b >= (1ull << 20)) return fmt::format("{:.1f} MiB", double(b) / double(1ull << 20));
  return fmt::format("{} KiB", b >> 10);
}

int list_devices_command() {
  const auto devices = clf::list_devices();
  std::string platform;
  for (const auto& d : devices) {
    const auto& i = d.info;
    if (i.platform_name != platform) {
      platform = i.platform_name;
      fmt::print("Platform {}: {} ({})\n", i.platform_index, i.platform_name, i.platform_version);
    }
    const auto subgroups = i.subgroup_extensions();
    fmt::print("  [{}] {}\n", i.index_name(), i.name);
    fmt::print("      type {}, {} compute units, driver {}, {}\n", i.type_name(), i.compute_units, i.driver_version,
               i.opencl_c_version);
    fmt::print("      global memory {}, local memory {}, max work-group size {}\n", human_bytes(i.global_mem_bytes),
               human_bytes(i.local_mem_bytes), i.max_work_group_size);
    fmt::print("      images {}{}, fp16 {}, subgroups {}\n", i.image_support ? "yes" : "no",
               i.image_support ? fmt::format(" (max 2D {}x{})", i.image2d_max_width, i.image2d_max_height) : "",
               i.has_fp16() ? "yes" : "no", subgroups.empty() ? "none" : fmt::format("{}", fmt::join(subgroups, " ")));
  }
  const auto chosen = clf::select_device();
  fmt::print("Default device: [{}] {}\n", chosen.info.index_name(), chosen.info.name);
  return 0;
}

struct CommonOptions {
  std::string device;
  bool time = false;
  int jpeg_quality = 95;
};

void add_common(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--device", o.device,
                  "OpenCL device: index (0, 1:0) or part of its platform/device name (nvidia, pocl, cpu); "
                  "default $CLFILTERS_DEVICE, else the first GPU, else the first CPU");
  cmd->add_flag("--time", o.time, "print kernel time (profiling events) and total time (upload to download)");
  cmd->add_option("--quality", o.jpeg_quality, "JPEG quality of the output, 1-100")->check(CLI::Range(1, 100));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"clfilters: classic image filters on any OpenCL device (GPU, or CPU through PoCL)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "clfilters 0.1.0");

  app.add_subcommand("devices", "list every OpenCL platform and device")->callback([] {});

  CommonOptions common;
  std::string in_path, out_path, border_text = "replicate", variant = "auto";
  clf::BoxBlurParams box;
  auto* box_cmd = app.add_subcommand("box-blur", "box blur (mean over a d x d window), every channel");
  box_cmd->add_option("IN", in_path, "input image (PNG, JPEG, PGM/PPM, .npy)")->required();
  box_cmd->add_option("OUT", out_path, "output image; format from the extension")->required();
  box_cmd->add_option("-d,--diameter", box.diameter, "window diameter, odd or even")
      ->check(CLI::Range(1, clf::kMaxBoxDiameter))
      ->capture_default_str();
  box_cmd->add_option("--border", border_text, "replicate | reflect101 | constant[=V]")->capture_default_str();
  std::string variant_help = "auto (default) or one of:";
  for (const auto& v : clf::box_blur_variants()) variant_help += fmt::format("\n  {}: {}", v.name, v.summary);
  box_cmd->add_option("--variant", variant, variant_help)->capture_default_str();
  add_common(box_cmd, common);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kUsageError;
  }

  try {
    if (app.got_subcommand("devices")) return list_devices_command();

    if (box_cmd->parsed()) {
      try {
        box.border = clf::parse_border(border_text);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
      if (variant != "auto") {
        bool known = false;
        for (const auto& v : clf::box_blur_variants()) known = known || v.name == variant;
        if (!known) throw UsageError(fmt::format("unknown variant '{}' (see clfilters box-blur --help)", variant));
      }
      try {
        clf::format_from_extension(out_path);  // fail before doing the work if OUT cannot be written
      } catch (const clf::ImageIoError& e) {
        throw UsageError(e.what());
      }
      const clf::Image input = clf::read_image(in_path);
      if (input.type != clf::SampleType::u8)
        throw std::runtime_error(fmt::format("{}: box-blur needs 8-bit samples, this file holds {}", in_path,
                                             clf::sample_type_name(input.type)));
      if (input.channels > 4)
        throw std::runtime_error(fmt::format("{}: box-blur takes 1 to 4 channels, this file has {}", in_path,
                                             input.channels));
      clf::Context ctx(common.device);
      const std::string chosen =
          variant == "auto" ? clf::box_blur_auto_variant(ctx.info(), box, input.width, input.height,
                                                         input.channels == 1 ? 1 : 4)
                            : variant;
      if (auto why = clf::box_blur_unsupported(ctx.info(), chosen, box, input.width, input.height,
                                               input.channels == 1 ? 1 : 4))
        throw UsageError(*why);
      clf::Timing timing;
      const clf::Image out = clf::box_blur(ctx, input, box, chosen, &timing);
      clf::write_image(out, out_path, {.jpeg_quality = common.jpeg_quality});
      fmt::print("box-blur d={} border={} variant={} on {} ({}): {}x{}x{} -> {}\n", box.diameter,
                 clf::to_string(box.border), chosen, ctx.info().name, ctx.info().platform_name, input.width,
                 input.height, input.channels, out_path);
      if (common.time) fmt::print("kernel {:.3f} ms, total {:.3f} ms\n", timing.kernel_ms, timing.total_ms);
      return 0;
    }
  } catch (const UsageError& e) {
    fmt::print(stderr, "clfilters: {}\n", e.what());
    return kUsageError;
  } catch (const clf::NoOpenClError& e) {
    fmt::print(stderr, "clfilters: {}\n", e.what());
    return kRuntimeError;
  } catch (const clf::ClError& e) {
    fmt::print(stderr, "clfilters: OpenCL error: {}\n", e.what());
    return kRuntimeError;
  } catch (const std::invalid_argument& e) {
    // Device selection and filter parameter problems.
    fmt::print(stderr, "clfilters: {}\n", e.what());
    return kUsageError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "clfilters: {}\n", e.what());
    return kRuntimeError;
  }
  return 0;
}
