// SPDX-License-Identifier: Apache-2.0
#include "video_filter.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>

#include "clfilters/image_io.hpp"
#include "clfilters/video.hpp"

namespace clf::cli {
namespace {

// Progress of a video filter run: one line on the terminal, updated in place (frames, fps, speed, elapsed), and
// ffmpeg's -progress key=value blocks to a file or stdout, for scripts and front ends.
class VideoProgress {
 public:
  // `terminal`: the line on stderr. `progress_path`: "" for none, "-" for stdout, else a file (written directly,
  // like ffmpeg's, so that it can be read while the run goes on; a FIFO works too). Throws std::runtime_error
  // naming the file if it cannot be opened. `info` gives the frame rate, for the video time and the speed.
  VideoProgress(bool terminal, const std::string& progress_path, const video::StreamInfo& info);
  ~VideoProgress();
  VideoProgress(const VideoProgress&) = delete;
  VideoProgress& operator=(const VideoProgress&) = delete;

  // After each frame written: the terminal line at most 4 times a second, a block about twice a second.
  void frame_done(std::int64_t frames);
  // At the end, complete or not: the last terminal line and the block with progress=end.
  void finish(std::int64_t frames);

 private:
  using Clock = std::chrono::steady_clock;
  double elapsed() const;
  void print_line(std::int64_t frames, bool last);
  void write_block(std::int64_t frames, bool last);

  bool terminal_;
  std::FILE* file_ = nullptr;
  bool owned_ = false;
  std::string path_;
  video::StreamInfo info_;
  Clock::time_point start_ = Clock::now(), last_line_ = start_, last_block_ = start_;
  bool finished_ = false;
};

// HH:MM:SS.uuuuuu, as ffmpeg's out_time.
std::string clock_time(std::int64_t microseconds) {
  const std::int64_t s = microseconds / 1000000;
  return fmt::format("{:02}:{:02}:{:02}.{:06}", s / 3600, (s / 60) % 60, s % 60, microseconds % 1000000);
}

VideoProgress::VideoProgress(bool terminal, const std::string& progress_path, const video::StreamInfo& info)
    : terminal_(terminal), path_(progress_path), info_(info) {
  if (progress_path.empty()) return;
  if (progress_path == "-") {
    file_ = stdout;
    return;
  }
  file_ = std::fopen(progress_path.c_str(), "w");
  if (!file_)
    throw std::runtime_error(fmt::format("{}: cannot open for --progress: {}", progress_path, std::strerror(errno)));
  owned_ = true;
}

VideoProgress::~VideoProgress() {
  if (file_ && owned_) std::fclose(file_);
}

double VideoProgress::elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void VideoProgress::frame_done(std::int64_t frames) {
  const auto now = Clock::now();
  if (terminal_ && now - last_line_ >= std::chrono::milliseconds(250)) {
    last_line_ = now;
    print_line(frames, false);
  }
  if (file_ && now - last_block_ >= std::chrono::milliseconds(500)) {
    last_block_ = now;
    write_block(frames, false);
  }
}

void VideoProgress::finish(std::int64_t frames) {
  if (finished_) return;
  finished_ = true;
  if (terminal_) print_line(frames, true);
  if (file_) write_block(frames, true);
}

void VideoProgress::print_line(std::int64_t frames, bool last) {
  const double s = elapsed(), video_seconds = info_.seconds_of(frames);
  const std::string speed = video_seconds >= 0 && s > 0 ? fmt::format(", {:.2f}x realtime", video_seconds / s) : "";
  // \r and clear-to-end-of-line: the line is rewritten in place on the terminal.
  fmt::print(stderr, "\r{} frames, {:.1f} fps{}, {:.1f} s elapsed\x1b[K{}", frames, s > 0 ? double(frames) / s : 0.0,
             speed, s, last ? "\n" : "");
  std::fflush(stderr);
}

void VideoProgress::write_block(std::int64_t frames, bool last) {
  const double s = elapsed(), video_seconds = info_.seconds_of(frames);
  std::string block = fmt::format("frame={}\nfps={:.2f}\n", frames, s > 0 ? double(frames) / s : 0.0);
  if (video_seconds >= 0) {
    const auto us = static_cast<std::int64_t>(video_seconds * 1e6 + 0.5);
    // out_time_ms is in microseconds too, as ffmpeg writes it.
    block += fmt::format("out_time_us={}\nout_time_ms={}\nout_time={}\n", us, us, clock_time(us));
    block += s > 0 ? fmt::format("speed={:.3g}x\n", video_seconds / s) : "speed=N/A\n";
  } else {
    block += "out_time_us=N/A\nout_time_ms=N/A\nout_time=N/A\nspeed=N/A\n";
  }
  block += last ? "progress=end\n" : "progress=continue\n";
  // A failed write (a full disk) does not stop the filter: the video matters more than its progress.
  std::fwrite(block.data(), 1, block.size(), file_);
  std::fflush(file_);
}

bool has_image_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* e : {".png", ".jpg", ".jpeg", ".pgm", ".ppm", ".pnm", ".npy"})
    if (ext == e) return true;
  return false;
}

std::string output_name(const std::string& path) {
  return path == "-" ? "<stdout>" : path;
}

// "y,u,v" for the filtered planes of `plan`.
std::string plane_names(const video::StreamInfo& info, const video::VideoPlan& plan) {
  std::string names;
  for (const video::OutputPlane& p : plan.planes)
    if (p.filtered) names += fmt::format("{}{}", names.empty() ? "" : ",", info.planes[std::size_t(p.source)].name);
  return names;
}

// The usage checks that need no stream: the options' combinations, the raw layout and OUT's name.
void check_video_usage(const ImageCommandOptions& image, const VideoCommandOptions& video,
                       const VideoFilterSteps& steps) {
  if (!image.output_dir.empty()) throw UsageError("-o DIR is for images; a video takes IN OUT");
  if (image.output != "-" && has_image_extension(image.output))
    throw UsageError(
        fmt::format("{}: video is written in the input's format (a .y4m or .yuv file, or - for stdout), not as an "
                    "image",
                    image.output));
  if (!video.raw_format.empty() && video.size.empty()) throw UsageError("--raw-format needs --size WxH");
  if (video.raw_format.empty() && !video.size.empty())
    throw UsageError("--size is for raw video; give --raw-format too");
  if (video.progress == "-" && image.output == "-")
    throw UsageError("--progress - and OUT - would both write stdout; give --progress a file");
  if (steps.grey_output && !video.planes.empty() && video.planes != "y")
    throw UsageError(
        fmt::format("{} writes the gradient magnitude of the Y plane as a grey stream: --planes takes only y, got '{}'",
                    steps.command, video.planes));
}

// The planes to filter: --planes, else the command's default. The default "all" on NV12 filters Y alone (its
// chroma is interleaved), with a note; an explicit request for NV12's chroma is a usage error.
std::vector<int> chosen_planes(const video::VideoReader& reader, const VideoCommandOptions& video,
                               const VideoFilterSteps& steps) {
  std::string text = video.planes.empty() ? steps.default_planes : video.planes;
  const video::VideoFormat format = reader.info().format;
  if (video.planes.empty() && (format == video::VideoFormat::nv12 || format == video::VideoFormat::p010) &&
      text != "y") {
    if (!video.quiet)
      fmt::print(stderr, "clfilters: note: {}: {} interleaves U and V, which are copied; only Y is filtered\n",
                 reader.name(), reader.info().colorspace);
    text = "y";
  }
  try {
    return video::select_planes(reader.info(), text, reader.name());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

double depth_scale(int bits) {
  return std::ldexp(1.0, bits - 8);
}

void add_sample_units_option(CLI::App* cmd, bool& sample_units, const std::string& options) {
  cmd->add_flag("--sample-units", sample_units,
                fmt::format("take {} as given, in the samples' own units; without it, it is in 8-bit units and "
                            "scaled by 2^(bits-8) for deeper samples (x4 for 10-bit video)",
                            options));
}

void add_video_options(CLI::App* cmd, VideoCommandOptions& o, const std::string& default_planes) {
  cmd->get_option("FILES")->description(
      "IN OUT. IN: an image (PNG, JPEG, PGM/PPM, .npy), a Y4M video, raw YUV with --raw-format, or - for stdin "
      "(Y4M unless --raw-format). OUT: an image (the format follows the extension) or, for video, a file or - "
      "for stdout in the input's format. Or, with -o DIR, any number of input images");
  cmd->add_option("--raw-format", o.raw_format,
                  "IN is raw planar YUV: nv12, i420 or yuv444p (8-bit); p010, yuv420p10le, yuv420p16le, yuv444p10le, "
                  "yuv444p16le or gray16le (16-bit little-endian words, as ffmpeg's pix_fmts of those names); needs "
                  "--size");
  cmd->add_option("--size", o.size, "frame size of raw YUV, WxH");
  cmd->add_option("--planes", o.planes,
                  fmt::format("video planes to filter: y, u, v, all or a comma list (y,u); the others are copied "
                              "bit for bit (default {})",
                              default_planes));
  cmd->add_option("--progress", o.progress,
                  "video: write ffmpeg-style progress blocks (frame=, fps=, out_time_us=, speed=, progress=) to FILE "
                  "or - (stdout), about twice a second");
  cmd->add_flag("-q,--quiet", o.quiet, "print nothing but errors (no progress line, no summary)");
}

bool is_video_input(const ImageCommandOptions& image, const VideoCommandOptions& video) {
  // Pipes and devices given by name are streams, unless OUT is an image: then IN is an image read from a pipe.
  if (!video.raw_format.empty() || image.input == "-" || video::looks_like_y4m(image.input)) return true;
  return video::is_stream_path(image.input) && (image.output.empty() || !has_image_extension(image.output));
}

void refuse_video_options(const VideoCommandOptions& video) {
  if (!video.size.empty()) throw UsageError("--size is for raw video; give --raw-format too");
  if (!video.planes.empty()) throw UsageError("--planes is for video (Y4M or raw YUV), not images");
  if (!video.progress.empty()) throw UsageError("--progress is for video (Y4M or raw YUV), not images");
}

int run_video_filter(const ImageCommandOptions& image, const VideoCommandOptions& video,
                     const VideoFilterSteps& steps) {
  if (is_device_list(image.device))
    throw UsageError(fmt::format("--device {}: video runs on one device (a list is for images)", image.device));
  try {
    steps.check_params(SampleType::u16);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  check_variant_name(image.variant, *steps.variants);
  check_video_usage(image, video, steps);
  video::VideoFormat raw = video::VideoFormat::y4m;
  int raw_width = 0, raw_height = 0;
  if (!video.raw_format.empty()) {
    try {
      raw = video::parse_raw_format(video.raw_format);
      if (raw == video::VideoFormat::gray)
        throw std::invalid_argument(
            "--raw-format takes nv12, i420, yuv444p, p010, yuv420p10le, yuv420p16le, yuv444p10le, yuv444p16le or "
            "gray16le");
      std::tie(raw_width, raw_height) = video::parse_frame_size(video.size);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (image.output != "-") check_output_path(image.output, /*streams=*/true);
  // The header first: a frame size over the limits is refused before the device is opened.
  video::VideoReader reader = raw == video::VideoFormat::y4m
                                  ? video::VideoReader::open_y4m(image.input)
                                  : video::VideoReader::open_raw(image.input, raw, raw_width, raw_height);
  const video::StreamInfo& info = reader.info();
  if (steps.grey_output && info.bits != 8)
    throw UsageError(fmt::format("{}: {} takes 8-bit video; this stream is {}-bit ({}{})", reader.name(), steps.command,
                                 info.bits, info.format == video::VideoFormat::y4m ? "C" : "", info.colorspace));
  // The parameters in the stream's units, checked for its samples.
  const SampleType type = info.bits > 8 ? SampleType::u16 : SampleType::u8;
  try {
    if (steps.set_depth) steps.set_depth(info.bits);
    steps.check_params(type);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: {}", reader.name(), e.what()));
  }
  const video::VideoPlan plan = steps.grey_output ? video::grey_output_plan(info)
                                                  : video::same_layout_plan(info, chosen_planes(reader, video, steps));
  video::check_pipeline_host_memory(info, plan, reader.name());  // before the device's driver takes its share
  // The stream is read while the device starts: on the NVIDIA H100 machine its context takes 0.2 s, the time of 40
  // 4K frames from a pipe.
  reader.read_ahead(std::size_t(512) << 20);
  Context ctx(image.device);
  video::check_pipeline_memory(ctx, info, plan, reader.name());
  // The variant of each plane size, checked and its programs built before any output exists; Y's names the run.
  std::map<std::pair<int, int>, VariantChoice> choices;
  std::optional<VariantChoice> luma_choice;
  for (const video::OutputPlane& p : plan.planes) {
    if (!p.filtered) continue;
    const video::PlaneInfo& plane = info.planes[std::size_t(p.source)];
    const auto size = std::pair{plane.width, plane.height};
    if (choices.count(size)) continue;
    auto [choice, why] = steps.choose(ctx, plane.width, plane.height, type);
    if (why) throw UsageError(*why);
    steps.prepare(ctx, plane.width, plane.height, type);
    if (!luma_choice) luma_choice = choice;
    choices.emplace(size, std::move(choice));
  }

  VideoProgress progress(!video.quiet && ::isatty(STDERR_FILENO) != 0, video.progress, info);
  video::VideoWriter writer(image.output, plan.output);
  const auto filter = [&](const DeviceImage& in, DeviceImage& out) { return steps.filter(ctx, in, out); };
  video::PipelineStats stats;
  try {
    stats = video::filter_video(ctx, reader, writer, filter, plan,
                                {.on_frame = [&](std::int64_t frames) { progress.frame_done(frames); }});
  } catch (const video::InputStreamError& e) {
    progress.finish(writer.frames_written());
    // A cut or corrupt input: its complete frames are the output, as they are on a pipe, and the exit is 1.
    if (writer.frames_written() == 0 && image.output != "-")
      throw std::runtime_error(fmt::format("{}; no complete frame, nothing written", e.what()));
    writer.commit();
    throw std::runtime_error(fmt::format("{}; the {} complete frame(s) before it were written to {}", e.what(),
                                         writer.frames_written(), output_name(image.output)));
  }
  writer.commit();
  progress.finish(stats.frames);

  if (video.quiet) return 0;
  // With the video (or the progress blocks) on stdout, the summary goes to stderr.
  std::FILE* out = image.output == "-" || video.progress == "-" ? stderr : stdout;
  const std::string ran = luma_choice ? variant_that_ran(ctx, *luma_choice) : "none";
  fmt::print(out, "{} variant={} on {} ({}): {}x{} {}{}, planes {}, {} frames -> {}\n", steps.describe(), ran,
             ctx.info().name, ctx.info().platform_name, info.width, info.height,
             info.format == video::VideoFormat::y4m ? "C" : "", info.colorspace, plane_names(info, plan), stats.frames,
             output_name(image.output));
  if (image.time)
    fmt::print(out, "kernel {:.3f} ms ({:.3f} ms per frame), total {:.3f} s, {:.1f} fps\n", stats.kernel_ms,
               stats.frames ? stats.kernel_ms / double(stats.frames) : 0.0, stats.seconds,
               stats.seconds > 0 ? double(stats.frames) / stats.seconds : 0.0);
  return 0;
}

}  // namespace clf::cli
