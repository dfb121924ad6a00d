// SPDX-License-Identifier: Apache-2.0
// The frames a VideoReader reads ahead (VideoReader::read_ahead), shared by its reading thread and read_frame.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "clfilters/video.hpp"

namespace clf::video {

struct VideoReader::ReadAhead {
  struct Frame {
    std::vector<std::uint8_t> bytes;
    std::string parameters;
  };
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Frame> frames;  // read, not yet returned
  bool finished = false;     // the thread has stopped (max_bytes, the end, an error, or asked to)
  bool stop = false;         // asked to stop
  std::exception_ptr error;  // what stopped it, thrown after `frames`
  std::thread thread;
};

}  // namespace clf::video
