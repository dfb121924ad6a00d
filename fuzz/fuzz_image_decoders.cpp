// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness for the image decoders: read_image's own code after it has read the file (decode_image, which
// picks the decoder by the magic bytes). fuzz_png, fuzz_jpeg, fuzz_pnm and fuzz_npy are this harness started
// from each format's seed corpus. A decoded image must hold exactly the bytes its shape needs, within the pixel
// limit; a refusal must be an ImageIoError naming the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "io/image_io_internal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path path = "fuzz-input";
  try {
    const clf::Image image = clf::io_detail::decode_image({data, size}, path);
    const std::size_t expected = clf::Image::byte_size_for(image.width, image.height, image.channels, image.type);
    if (image.width < 1 || image.height < 1 || image.channels < 1 || image.data.size() != expected) std::abort();
    if (image.width * std::uint64_t(image.height) > clf::max_image_pixels()) std::abort();
  } catch (const clf::ImageIoError& e) {
    if (std::string_view(e.what()).rfind("fuzz-input: ", 0) != 0) std::abort();  // every refusal names the file
  }
  return 0;
}
