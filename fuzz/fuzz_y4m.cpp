// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness for the Y4M reader: the header, then every frame line and frame. The input is a
// memory file (memfd), opened by its /proc path as the command opens a file.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "clfilters/video.hpp"
#include "fuzz_memory_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const clf::fuzz::MemoryFile file(data, size);
  try {
    clf::video::VideoReader reader = clf::video::VideoReader::open_y4m(file.path());
    clf::fuzz::read_every_frame(reader, size);
  } catch (const clf::video::VideoError&) {
  }
  return 0;
}
