// SPDX-License-Identifier: Apache-2.0
#include "video_progress.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace clf::cli {
namespace {

// HH:MM:SS.uuuuuu, as ffmpeg's out_time.
std::string clock_time(std::int64_t microseconds) {
  const std::int64_t s = microseconds / 1000000;
  return fmt::format("{:02}:{:02}:{:02}.{:06}", s / 3600, (s / 60) % 60, s % 60, microseconds % 1000000);
}

}  // namespace

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

}  // namespace clf::cli
