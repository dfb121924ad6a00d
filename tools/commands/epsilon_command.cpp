// SPDX-License-Identifier: Apache-2.0
// clfilters epsilon IN OUT [--radius 4] [--threshold 20] [--border ...] [--variant ...] [--device ...] [--time]
//                         [--raw-format nv12|i420 --size WxH] [--quiet]
// Images: grey is filtered, RGB/RGBA have R, G and B filtered and alpha copied. Video: Y4M files and
// pipes ("-" = stdin/stdout) and raw planar YUV; the Y plane is filtered, everything else copied.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <utility>

#include "clfilters/epsilon.hpp"
#include "clfilters/image_io.hpp"
#include "clfilters/video.hpp"
#include "cli_common.hpp"

namespace clf::cli {
namespace {

bool has_image_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* e : {".png", ".jpg", ".jpeg", ".pgm", ".ppm", ".pnm", ".npy"})
    if (ext == e) return true;
  return false;
}

class EpsilonCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) override {
    auto* cmd = app.add_subcommand(
        "epsilon",
        "epsilon filter (mosquito-noise removal): the rounded mean of the window pixels within T of the "
        "centre; images, Y4M video and raw YUV");
    add_image_options(cmd, options_, epsilon_variants());
    cmd->get_option("FILES")->description(
        "IN OUT. IN: an image (PNG, JPEG, PGM/PPM, .npy), a Y4M video, raw YUV with --raw-format, or - for stdin "
        "(Y4M unless --raw-format). OUT: an image (the format follows the extension) or, for video, a file or - "
        "for stdout in the input's format. Or, with -o DIR, any number of input images");
    cmd->add_option(
           "-r,--radius", params_.radius,
           fmt::format("window radius r, {}..{}: the window is (2r+1)x(2r+1)", kMinEpsilonRadius, kMaxEpsilonRadius))
        ->capture_default_str();
    cmd->add_option("-t,--threshold", params_.threshold, "threshold T, 0..255: pixels with |p - c| <= T are averaged")
        ->capture_default_str();
    cmd->add_option("--raw-format", raw_format_, "IN is raw planar YUV: nv12 or i420 (needs --size)");
    cmd->add_option("--size", size_, "frame size of raw YUV, WxH");
    cmd->add_flag("-q,--quiet", quiet_, "print nothing but errors (no progress, no summary)");
    return cmd;
  }

  int run() override {
    params_.border = parse_border_option(options_.border);
    check_params();
    check_variant_name(options_.variant, epsilon_variants());
    if (!raw_format_.empty() && size_.empty()) throw UsageError("--raw-format needs --size WxH");
    if (raw_format_.empty() && !size_.empty()) throw UsageError("--size is for raw video; give --raw-format too");
    // Pipes and devices given by name are streams: images are read from regular files.
    const bool video = !raw_format_.empty() || options_.input == "-" || video::is_stream_path(options_.input) ||
                       video::looks_like_y4m(options_.input);
    return video ? run_video() : run_image();
  }

 private:
  // What "auto" (or the named variant) resolves to here, checked before any output exists. The calls
  // themselves still take options_.variant, so a tuned choice brings its tunables along.
  VariantChoice resolve_variant(Context& ctx, int width, int height, int channels) const {
    VariantChoice choice = epsilon_choose(ctx, params_, options_.variant, width, height, channels);
    if (auto why = epsilon_unsupported(ctx.info(), choice.variant, params_, width, height, channels, choice.config))
      throw UsageError(*why);
    return choice;
  }

  // "epsilon r=4 T=20 border=replicate", the start of the result line.
  std::string parameters() const {
    return fmt::format("epsilon r={} T={} border={}", params_.radius, params_.threshold, to_string(params_.border));
  }

  std::string description(const std::string& variant) const { return parameters() + " variant=" + variant; }

  // The parameters' one check (epsilon_check_params), as a usage error.
  void check_params() const {
    try {
      epsilon_check_params(params_);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }

  int run_image() {
    if (options_.output == "-") throw UsageError("images are written to a file, not to stdout ('-' is for video)");
    return run_image_filter(
        options_,
        {.command = "epsilon",
         .variants = &epsilon_variants(),
         .check_params = [&] { epsilon_check_params(params_); },
         .choose = choose_step(params_, options_.variant, Alpha::kept_apart, epsilon_choose, epsilon_unsupported),
         .run = [&](Context& ctx, const Image& input,
                    Timing* timing) { return epsilon(ctx, input, params_, options_.variant, timing); },
         .describe = [&] { return parameters(); },
         .quiet = quiet_});
  }

  int run_video() {
    if (!options_.output_dir.empty()) throw UsageError("-o DIR is for images; a video takes IN OUT");
    if (options_.output != "-" && has_image_extension(options_.output))
      throw UsageError(
          fmt::format("{}: video is written in the input's format (a .y4m or .yuv file, or - for "
                      "stdout), not as an image",
                      options_.output));
    video::VideoFormat raw = video::VideoFormat::y4m;
    int raw_width = 0, raw_height = 0;
    if (!raw_format_.empty()) {
      try {
        raw = video::parse_raw_format(raw_format_);
        std::tie(raw_width, raw_height) = video::parse_frame_size(size_);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    }
    if (options_.output != "-") check_output_path(options_.output, /*streams=*/true);
    // The header first: a frame size over the limits is refused before the device is opened.
    video::VideoReader reader = raw == video::VideoFormat::y4m
                                    ? video::VideoReader::open_y4m(options_.input)
                                    : video::VideoReader::open_raw(options_.input, raw, raw_width, raw_height);
    const video::StreamInfo& info = reader.info();
    video::check_pipeline_host_memory(info, reader.name());  // before the device's driver takes its share
    Context ctx(options_.device);
    video::check_pipeline_memory(ctx, info, reader.name());
    // Parameters and variant are checked, and the programs built, before any output exists.
    const VariantChoice chosen = resolve_variant(ctx, info.width, info.height, 1);
    const std::string& variant = options_.variant;
    epsilon_prepare(ctx, params_, variant, info.width, info.height, 1);

    video::VideoWriter writer(options_.output, info);
    const auto filter = [&](const DeviceImage& in, DeviceImage& out) {
      return epsilon(ctx, in, out, params_, variant);
    };
    video::PipelineStats stats;
    try {
      stats = video::filter_video(ctx, reader, writer, filter, {.progress = !quiet_ && ::isatty(STDERR_FILENO) != 0});
    } catch (const video::InputStreamError& e) {
      // A cut or corrupt input: its complete frames are the output, as they are on a pipe, and the exit is 1.
      if (writer.frames_written() == 0 && options_.output != "-")
        throw std::runtime_error(fmt::format("{}; no complete frame, nothing written", e.what()));
      writer.commit();
      throw std::runtime_error(fmt::format("{}; the {} complete frame(s) before it were written to {}", e.what(),
                                           writer.frames_written(),
                                           options_.output == "-" ? "<stdout>" : options_.output));
    }
    writer.commit();

    if (quiet_) return 0;
    // With the video on stdout, the summary goes to stderr.
    std::FILE* out = options_.output == "-" ? stderr : stdout;
    fmt::print(out, "{} on {} ({}): {}x{} C{}, {} frames -> {}\n", description(variant_that_ran(ctx, chosen)),
               ctx.info().name, ctx.info().platform_name, info.width, info.height, info.colorspace, stats.frames,
               options_.output == "-" ? "<stdout>" : options_.output);
    if (options_.time)
      fmt::print(out, "kernel {:.3f} ms ({:.3f} ms per frame), total {:.3f} s, {:.1f} fps\n", stats.kernel_ms,
                 stats.frames ? stats.kernel_ms / double(stats.frames) : 0.0, stats.seconds,
                 stats.seconds > 0 ? double(stats.frames) / stats.seconds : 0.0);
    return 0;
  }

  ImageCommandOptions options_;
  EpsilonParams params_;
  std::string raw_format_;
  std::string size_;
  bool quiet_ = false;
};

const CommandRegistrar registrar(110, [] { return std::unique_ptr<Command>(new EpsilonCommand); });

}  // namespace
}  // namespace clf::cli
