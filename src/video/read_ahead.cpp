// SPDX-License-Identifier: Apache-2.0
// VideoReader's reading ahead (see VideoReader::read_ahead in clfilters/video.hpp).
#include "video/read_ahead.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "io/image_io_internal.hpp"

namespace clf::video {

void VideoReader::read_ahead(std::size_t max_bytes) {
  const std::size_t frame_bytes = info_.frame_bytes;
  const std::size_t frames = std::min<std::uint64_t>(max_bytes, io_detail::allocatable_bytes() / 4) / frame_bytes;
  if (read_ahead_ || frames == 0) return;
  read_ahead_ = std::make_unique<ReadAhead>();
  ReadAhead& ahead = *read_ahead_;
  // The thread alone reads the stream until it finishes; read_frame waits for that before reading it itself.
  ahead.thread = std::thread([this, &ahead, frames, frame_bytes] {
    for (std::size_t n = 0; n < frames; ++n) {
      ReadAhead::Frame frame;
      try {
        {
          std::lock_guard lock(ahead.mutex);
          if (ahead.stop) break;
        }
        frame.bytes.resize(frame_bytes);
        if (!read_next_frame(frame.bytes, frame.parameters)) break;
      } catch (...) {
        std::lock_guard lock(ahead.mutex);
        ahead.error = std::current_exception();
        break;
      }
      {
        std::lock_guard lock(ahead.mutex);
        ahead.frames.push_back(std::move(frame));
      }
      ahead.changed.notify_all();
    }
    {
      std::lock_guard lock(ahead.mutex);
      ahead.finished = true;
    }
    ahead.changed.notify_all();
  });
}

void VideoReader::join_read_ahead() {
  if (!read_ahead_ || !read_ahead_->thread.joinable()) return;
  {
    std::lock_guard lock(read_ahead_->mutex);
    read_ahead_->stop = true;
  }
  read_ahead_->thread.join();
}

bool VideoReader::read_frame(std::span<std::uint8_t> frame, std::string& parameters) {
  if (frame.size() != info_.frame_bytes)
    throw std::invalid_argument(
        fmt::format("read_frame: buffer of {} bytes for frames of {} bytes", frame.size(), info_.frame_bytes));
  if (read_ahead_) {
    ReadAhead& ahead = *read_ahead_;
    std::unique_lock lock(ahead.mutex);
    ahead.changed.wait(lock, [&] { return !ahead.frames.empty() || ahead.finished; });
    if (!ahead.frames.empty()) {
      ReadAhead::Frame next = std::move(ahead.frames.front());
      ahead.frames.pop_front();
      lock.unlock();
      std::memcpy(frame.data(), next.bytes.data(), frame.size());
      parameters = std::move(next.parameters);
      ++frames_read_;
      return true;
    }
    const std::exception_ptr error = ahead.error;
    lock.unlock();
    join_read_ahead();
    read_ahead_.reset();  // from here the stream is read directly
    if (error) std::rethrow_exception(error);
  }
  if (!read_next_frame(frame, parameters)) return false;
  ++frames_read_;
  return true;
}

}  // namespace clf::video
