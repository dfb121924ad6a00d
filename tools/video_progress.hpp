// SPDX-License-Identifier: Apache-2.0
// Progress of a video filter run: one line on the terminal, updated in place (frames, fps, speed, elapsed), and
// ffmpeg's -progress key=value blocks to a file or stdout, for scripts and front ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "clfilters/video.hpp"

namespace clf::cli {

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

}  // namespace clf::cli
