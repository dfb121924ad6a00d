// SPDX-License-Identifier: Apache-2.0
// The video side of every image filter command: Y4M files and pipes ("-" = stdin/stdout) and raw planar YUV, the
// planes to filter (--planes), progress on a terminal and as ffmpeg's -progress blocks (--progress FILE|-).
// Each command gives only its parameters and its plane filter.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clfilters/device_image.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"
#include "cli_common.hpp"

namespace clf::cli {

// What the video options hold after parsing.
struct VideoCommandOptions {
  std::string raw_format;  // --raw-format: IN is raw nv12, i420 or yuv444p (needs --size)
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

// What a filter command supplies to run_video_filter.
struct VideoFilterSteps {
  std::string command;                       // "box-blur", for messages
  const std::vector<VariantInfo>* variants;  // the names --variant accepts
  std::function<void()> check_params;        // throws std::invalid_argument (a usage error) or UsageError
  std::string default_planes;                // "y" or "all"
  bool grey_output = false;                  // a grey stream of the filtered Y plane (sobel); --planes y only
  // The variant a call on a 1-channel plane of width x height runs, and why it cannot run, if it cannot.
  std::function<std::pair<VariantChoice, std::optional<std::string>>(Context&, int width, int height)> choose;
  std::function<void(Context&, int width, int height)> prepare;  // builds the programs the calls will run
  std::function<std::vector<cl::Event>(Context&, const DeviceImage& input, DeviceImage& output)> filter;
  std::function<std::string()> describe;  // the parameters, "box-blur d=9 border=replicate"
};

// The `choose` step of a filter whose calls take a channel count: its X_choose and X_unsupported on one channel.
template <class Params>
std::function<std::pair<VariantChoice, std::optional<std::string>>(Context&, int, int)> plane_choose_step(
    const Params& params, const std::string& variant,
    VariantChoice (*choose)(Context&, const Params&, std::string_view, int, int, int, const TuningConfig&),
    std::optional<std::string> (*unsupported)(const DeviceInfo&, std::string_view, const Params&, int, int, int,
                                              const TuningConfig&)) {
  return [&params, &variant, choose, unsupported](Context& ctx, int width, int height) {
    VariantChoice choice = choose(ctx, params, variant, width, height, 1, {});
    auto why = unsupported(ctx.info(), choice.variant, params, width, height, 1, choice.config);
    return std::pair{std::move(choice), std::move(why)};
  };
}

// Filters the video IN into OUT: the parameters, --variant and the video options (usage errors, exit 2), the
// stream's header (a frame size over the limits refused before any allocation), the planes, the device, the
// variant and its programs, then every frame through the pipeline, OUT written atomically (a cut or corrupt input
// keeps its complete frames and exits 1), and the result line. Returns the exit code.
int run_video_filter(const ImageCommandOptions& image, const VideoCommandOptions& video, const VideoFilterSteps& steps);

}  // namespace clf::cli
