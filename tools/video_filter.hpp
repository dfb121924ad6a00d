// SPDX-License-Identifier: Apache-2.0
// The video side of every image filter command: Y4M files and pipes ("-" = stdin/stdout) and raw planar YUV, the
// planes to filter (--planes), progress on a terminal and as ffmpeg's -progress blocks (--progress FILE|-).
// Each command gives only its parameters and its plane filter; FilterCommand and ChannelFilterCommand, at the end,
// are the commands' common part.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clfilters/device_image.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"
#include "cli_common.hpp"

namespace clf::cli {

// What the video options hold after parsing.
struct VideoCommandOptions {
  std::string raw_format;  // --raw-format: IN is raw nv12, i420, yuv444p or a 16-bit format (needs --size)
  std::string size;        // --size WxH of raw frames
  std::string planes;      // --planes: y, u, v, all or a comma list; empty: the command's default
  std::string progress;    // --progress FILE|-: ffmpeg's -progress key=value blocks
  bool quiet = false;      // no terminal progress line, no result line
};

// Adds --raw-format, --size, --planes (its help naming `default_planes`), --progress and -q/--quiet.
void add_video_options(CLI::App* cmd, VideoCommandOptions& options, const std::string& default_planes);

// Whether IN is video: --raw-format, "-", a regular file that starts with the Y4M signature, or a pipe or device
// unless OUT is an image (an image may be read from a pipe).
bool is_video_input(const ImageCommandOptions& image, const VideoCommandOptions& video);
// For an image input: a usage error if a video-only option was given.
void refuse_video_options(const VideoCommandOptions& video);

// Sample values among a filter's parameters (epsilon's --threshold, the bilateral's --sigma-range) are given in 8-bit
// units, so that one setting means the same at any depth: on samples of `bits` bits they are multiplied by this,
// 2^(bits - 8), unless --sample-units (add_sample_units_option) takes them as given.
double depth_scale(int bits);
// Adds --sample-units, for a command whose parameters hold sample values: `options` names them ("--threshold").
void add_sample_units_option(CLI::App* cmd, bool& sample_units, const std::string& options);

// What a filter command supplies to run_video_filter.
struct VideoFilterSteps {
  std::string command;                       // "box-blur", for messages
  const std::vector<VariantInfo>* variants;  // the names --variant accepts
  // The parameters' check for planes of a sample type: throws std::invalid_argument (a usage error) or UsageError.
  // Called before the stream is opened with u16 (its depth is not known yet, so that any sample value passes), then
  // with the planes' own type once set_depth has run.
  std::function<void(SampleType)> check_params;
  // Once the stream's header is read, its depth (8..16 bits): scales the parameters given in 8-bit units. May be
  // empty.
  std::function<void(int bits)> set_depth = nullptr;
  std::string default_planes;  // "y" or "all"
  bool grey_output = false;    // a grey stream of the filtered Y plane (sobel); --planes y only
  // The variant a call on a 1-channel plane of width x height and the stream's sample type runs (u8, or u16 above
  // 8 bits), and why it cannot run, if it cannot.
  std::function<std::pair<VariantChoice, std::optional<std::string>>(Context&, int width, int height, SampleType)>
      choose;
  std::function<void(Context&, int width, int height, SampleType)> prepare;  // builds the programs the calls will run
  std::function<std::vector<cl::Event>(Context&, const DeviceImage& input, DeviceImage& output)> filter;
  std::function<std::string()> describe;  // the parameters, "box-blur d=9 border=replicate"
};

// The `choose` step of a filter whose calls take a channel count: its X_choose and X_unsupported on one channel.
template <class Params>
std::function<std::pair<VariantChoice, std::optional<std::string>>(Context&, int, int, SampleType)> plane_choose_step(
    const Params& params, const std::string& variant,
    VariantChoice (*choose)(Context&, const Params&, std::string_view, int, int, int, const TuningConfig&, SampleType),
    std::optional<std::string> (*unsupported)(const DeviceInfo&, std::string_view, const Params&, int, int, int,
                                              const TuningConfig&, SampleType)) {
  return [&params, &variant, choose, unsupported](Context& ctx, int width, int height, SampleType type) {
    VariantChoice choice = choose(ctx, params, variant, width, height, 1, {}, type);
    auto why = unsupported(ctx.info(), choice.variant, params, width, height, 1, choice.config, type);
    return std::pair{std::move(choice), std::move(why)};
  };
}

// Filters the video IN into OUT: the parameters, --variant and the video options (usage errors, exit 2), the
// stream's header (a frame size over the limits refused before any allocation), the planes, the device, the
// variant and its programs, then every frame through the pipeline, OUT written atomically (a cut or corrupt input
// keeps its complete frames and exits 1), and the result line. Returns the exit code.
int run_video_filter(const ImageCommandOptions& image, const VideoCommandOptions& video, const VideoFilterSteps& steps);

// A filter whose functions take a channel count (box blur, bilateral, epsilon), which its command, of the filter's
// name, runs on images and on video alike (run_channel_filter).
template <class Params>
struct ChannelFilterCalls {
  ImageFilterCalls<Params> filter;  // kBoxBlurCalls, ...
  std::string default_planes;       // of a video: "y" or "all"
  Alpha alpha;                      // how an image's fourth channel is treated (device_channels)
};

// Filters IN as video (run_video_filter) or as an image (run_image_filter, after a usage error for video-only options
// and then `check_image_options`, if given) with the filter's calls. `params` and the --variant are read when the
// steps run; `check_params` is the parameters' check, `describe` the start of the result line, `set_depth` (if given)
// VideoFilterSteps::set_depth. Returns the exit code.
template <class Params>
int run_channel_filter(const ImageCommandOptions& options, const VideoCommandOptions& video, const Params& params,
                       const ChannelFilterCalls<Params>& calls, const std::function<void(SampleType)>& check_params,
                       const std::function<std::string()>& describe,
                       const std::function<void()>& check_image_options = {},
                       const std::function<void(int bits)>& set_depth = {}) {
  const std::string& variant = options.variant;
  const ImageFilterCalls<Params>& filter = calls.filter;
  if (is_video_input(options, video))
    return run_video_filter(
        options, video,
        {.command = filter.name,
         .variants = &filter.variants(),
         .check_params = check_params,
         .set_depth = set_depth,
         .default_planes = calls.default_planes,
         .choose = plane_choose_step(params, variant, filter.choose, filter.unsupported),
         .prepare = [&](Context& ctx, int w, int h,
                        SampleType type) { filter.prepare(ctx, params, variant, w, h, 1, {}, type); },
         .filter = [&](Context& ctx, const DeviceImage& in,
                       DeviceImage& out) { return filter.on_device(ctx, in, out, params, variant, {}, {}); },
         .describe = describe});
  refuse_video_options(video);
  if (check_image_options) check_image_options();
  // These filters take 16-bit images too: the parameters are checked first for the widest samples, then for each
  // input's own, in its depth's units (set_depth).
  return run_image_filter(
      options,
      {.command = filter.name,
       .variants = &filter.variants(),
       .check_params = [&] { check_params(SampleType::u16); },
       .takes_u16 = true,
       .set_sample_type =
           [&](SampleType type) {
             if (set_depth) set_depth(type == SampleType::u16 ? 16 : 8);
             check_params(type);
           },
       .choose = choose_step(params, variant, calls.alpha, filter.choose, filter.unsupported),
       .run = [&](Context& ctx, const Image& input,
                  Timing* timing) { return filter.on_host(ctx, input, params, variant, timing); },
       .run_on_devices = [&](const std::vector<Context*>& devices, const Image& input,
                             Timing* timing) { return filter.on_devices(devices, input, params, variant, timing); },
       .describe = describe,
       .cut_into_bands = true,
       .quiet = video.quiet});
}

// A filter command for images and video: its subcommand takes the image options, the filter's own
// (add_filter_options) and the video options, in the order --help lists them.
class FilterCommand : public Command {
 public:
  CLI::App* add_to(CLI::App& app) final {
    CLI::App* cmd = app.add_subcommand(name_, help_);
    add_image_options(cmd, options_, variants_);
    add_filter_options(cmd);
    add_video_options(cmd, video_, default_planes_);
    return cmd;
  }

 protected:
  FilterCommand(std::string name, std::string help, const std::vector<VariantInfo>& variants,
                std::string default_planes)
      : name_(std::move(name)),
        help_(std::move(help)),
        variants_(variants),
        default_planes_(std::move(default_planes)) {}
  virtual void add_filter_options(CLI::App* cmd) = 0;

  ImageCommandOptions options_;
  VideoCommandOptions video_;

 private:
  std::string name_, help_;
  const std::vector<VariantInfo>& variants_;
  std::string default_planes_;
};

// The command of a filter whose calls take a channel count: --border, then run_channel_filter with its calls. One whose
// parameters hold sample values adds --sample-units (add_sample_units_option with sample_units_) and scales them in
// scale_sample_values.
template <class Params>
class ChannelFilterCommand : public FilterCommand {
 public:
  int run() override {
    params_.border = parse_border_option(options_.border);
    // The parameters as given: each input (an image of a batch, or a stream) scales its own copy.
    const Params given = params_;
    return run_channel_filter(
        options_, video_, params_, calls_, [this](SampleType type) { check_params(type); },
        [this] { return describe(); }, [this] { check_image_options(); },
        [this, given](int bits) {
          params_ = given;
          if (!sample_units_ && bits != 8) scale_sample_values(depth_scale(bits));
          check_sample_values((1 << bits) - 1);
        });
  }

 protected:
  ChannelFilterCommand(std::string help, ChannelFilterCalls<Params> calls)
      : FilterCommand(calls.filter.name, std::move(help), calls.filter.variants(), calls.default_planes),
        calls_(std::move(calls)) {}
  virtual void check_params(SampleType type) = 0;  // the parameters' check for samples of `type`
  virtual std::string describe() const = 0;        // the start of the result line, "box-blur d=9 border=replicate"
  virtual void check_image_options() const {}      // usage errors of an image input only
  // Multiplies the parameters given in 8-bit units by `scale` (depth_scale) for deeper samples.
  virtual void scale_sample_values(double /*scale*/) {}
  // Throws std::invalid_argument for sample values above `max`, the largest sample of the input's depth (1023 on
  // 10-bit video, where check_params knows only the u16 planes' 65535): the border constant, and those a command
  // adds.
  virtual void check_sample_values(int max) const {
    if (params_.border.mode == BorderMode::constant && params_.border.value > max)
      throw std::invalid_argument(
          fmt::format("border constant must be 0..{} for these samples, got {}", max, params_.border.value));
  }

  Params params_;
  bool sample_units_ = false;  // --sample-units: sample values are taken as given, whatever the depth

 private:
  ChannelFilterCalls<Params> calls_;
};

}  // namespace clf::cli
