// SPDX-License-Identifier: Apache-2.0
// Shared by the video harnesses: the input as a file in memory, and a loop that reads every frame.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "clfilters/video.hpp"

namespace clf::fuzz {

// The fuzzer's bytes as a file the readers open by name (/proc/self/fd/N), without touching the disk.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) : fd_(::memfd_create("fuzz-input", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) std::abort();
      done += std::size_t(n);
    }
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

// Reads frames until the end of the stream or a VideoError. The frame buffer is the caller's (the pipeline's
// staging memory in the command), sized from the header: a frame larger than the whole input cannot be
// complete, so only its reading (a truncation error) is checked, with a buffer the input could fill.
inline void read_every_frame(video::VideoReader& reader, std::size_t input_size) {
  const video::StreamInfo& info = reader.info();
  if (info.luma_bytes() > info.frame_bytes || info.frame_bytes == 0) std::abort();
  if (info.frame_bytes > input_size) return;
  std::vector<std::uint8_t> frame(info.frame_bytes);
  std::string parameters;
  while (reader.read_frame(frame, parameters)) {
  }
}

}  // namespace clf::fuzz
