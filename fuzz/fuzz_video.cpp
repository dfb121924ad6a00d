// SPDX-License-Identifier: Apache-2.0
// libFuzzer harnesses for the video readers, the input a memory file (memfd) opened by its /proc path as the command
// opens a file. fuzz_y4m (CLF_FUZZ_Y4M): the Y4M reader, the header, then every frame line and frame. fuzz_raw_yuv
// (CLF_FUZZ_RAW_YUV): the raw YUV reader (every --raw-format: 8-bit, 16-bit and P010); the input's first line is the
// command's --raw-format and --size arguments ("nv12 64x48"), parsed as the command parses them; the rest is the
// stream.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "clfilters/video.hpp"

namespace clf::fuzz {
namespace {

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

}  // namespace
}  // namespace clf::fuzz

using namespace clf;
using namespace clf::fuzz;

#if defined(CLF_FUZZ_Y4M)
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const MemoryFile file(data, size);
  try {
    video::VideoReader reader = video::VideoReader::open_y4m(file.path());
    read_every_frame(reader, size);
  } catch (const video::VideoError&) {
  }
  return 0;
}
#elif defined(CLF_FUZZ_RAW_YUV)
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t line_end = text.find('\n');
  if (line_end == std::string::npos) return 0;
  const std::string arguments = text.substr(0, line_end);
  const std::size_t space = arguments.find(' ');
  if (space == std::string::npos) return 0;
  video::VideoFormat format{};
  std::pair<int, int> frame_size;
  try {
    format = video::parse_raw_format(arguments.substr(0, space));
    frame_size = video::parse_frame_size(arguments.substr(space + 1));
  } catch (const std::invalid_argument&) {
    return 0;  // a usage error, as the command reports it
  }
  const MemoryFile file(data + line_end + 1, size - line_end - 1);
  try {
    video::VideoReader reader = video::VideoReader::open_raw(file.path(), format, frame_size.first, frame_size.second);
    read_every_frame(reader, size);
  } catch (const video::VideoError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
#else
#error "define CLF_FUZZ_Y4M or CLF_FUZZ_RAW_YUV"
#endif
