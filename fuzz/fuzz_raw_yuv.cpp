// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness for the raw YUV reader (NV12, I420). The input's first line is the command's
// --raw-format and --size arguments ("nv12 64x48"), parsed as the command parses them; the rest is the stream.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "clfilters/video.hpp"
#include "fuzz_memory_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t line_end = text.find('\n');
  if (line_end == std::string::npos) return 0;
  const std::string arguments = text.substr(0, line_end);
  const std::size_t space = arguments.find(' ');
  if (space == std::string::npos) return 0;
  clf::video::VideoFormat format{};
  std::pair<int, int> frame_size;
  try {
    format = clf::video::parse_raw_format(arguments.substr(0, space));
    frame_size = clf::video::parse_frame_size(arguments.substr(space + 1));
  } catch (const std::invalid_argument&) {
    return 0;  // a usage error, as the command reports it
  }
  const clf::fuzz::MemoryFile file(data + line_end + 1, size - line_end - 1);
  try {
    clf::video::VideoReader reader =
        clf::video::VideoReader::open_raw(file.path(), format, frame_size.first, frame_size.second);
    clf::fuzz::read_every_frame(reader, size);
  } catch (const clf::video::VideoError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
