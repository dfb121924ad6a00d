// SPDX-License-Identifier: Apache-2.0
// Binary Netpbm: P5 (grey) and P6 (RGB). maxval <= 255 gives uint8 samples, otherwise uint16
// samples stored big-endian. Sample values are kept as stored, not rescaled to the full range.
#include <fmt/format.h>

#include <bit>
#include <cctype>
#include <cstring>

#include "io/image_io_internal.hpp"

namespace clf::io_detail {
namespace {

// Reads the next header number, skipping whitespace and '#' comments (which run to the end of the line).
std::uint64_t header_number(ByteView file, std::size_t& pos, const std::filesystem::path& path, std::string_view what) {
  while (pos < file.size() && (std::isspace(file[pos]) || file[pos] == '#')) {
    if (file[pos] == '#') {
      while (pos < file.size() && file[pos] != '\n' && file[pos] != '\r') ++pos;
    } else {
      ++pos;
    }
  }
  if (pos == file.size()) fail(path, fmt::format("truncated PNM header (no {})", what));
  if (!std::isdigit(file[pos])) fail(path, fmt::format("bad PNM header ({} is not a number)", what));
  std::uint64_t value = 0;
  for (; pos < file.size() && std::isdigit(file[pos]); ++pos) {
    value = value * 10 + (file[pos] - '0');
    if (value > 0xFFFFFFFFu) fail(path, fmt::format("bad PNM header ({} is out of range)", what));
  }
  return value;
}

}  // namespace

Image decode_pnm(ByteView file, const std::filesystem::path& path) {
  // read_image has checked for the 'P<digit>' magic.
  if (file[1] != '5' && file[1] != '6') {
    fail(path,
         fmt::format("unsupported PNM type P{} (only binary P5 greymaps and P6 pixmaps)", static_cast<char>(file[1])));
  }
  const int channels = file[1] == '5' ? 1 : 3;
  std::size_t pos = 2;
  const std::uint64_t width = header_number(file, pos, path, "width");
  const std::uint64_t height = header_number(file, pos, path, "height");
  const std::uint64_t maxval = header_number(file, pos, path, "maxval");
  if (maxval == 0 || maxval > 65535) fail(path, fmt::format("bad PNM maxval {} (must be 1 to 65535)", maxval));
  if (pos == file.size()) fail(path, "truncated PNM header");
  if (!std::isspace(file[pos++])) fail(path, "bad PNM header (no whitespace after maxval)");
  check_dimensions(path, width, height, channels);

  const SampleType type = maxval > 255 ? SampleType::u16 : SampleType::u8;
  const std::size_t expected = width * height * channels * sample_size(type);
  if (file.size() - pos < expected) {
    fail(path, fmt::format("truncated PNM ({} bytes of pixel data, expected {})", file.size() - pos, expected));
  }
  Image image(static_cast<int>(width), static_cast<int>(height), channels, type);
  std::memcpy(image.data.data(), file.data() + pos, image.byte_size());
  if (image.type == SampleType::u16 && std::endian::native == std::endian::little) {
    swap_bytes(image.data.data(), image.byte_size(), 2);
  }
  return image;
}

Bytes encode_pnm(const Image& image, const std::filesystem::path& path) {
  if ((image.type != SampleType::u8 && image.type != SampleType::u16) || (image.channels != 1 && image.channels != 3)) {
    fail(path, fmt::format("PGM/PPM cannot hold a {}-channel {} image (needs uint8 or uint16, grey or RGB)",
                           image.channels, sample_type_name(image.type)));
  }
  const bool wide = image.type == SampleType::u16;
  const std::string header =
      fmt::format("P{}\n{} {}\n{}\n", image.channels == 1 ? 5 : 6, image.width, image.height, wide ? 65535 : 255);
  Bytes out(header.begin(), header.end());
  out.insert(out.end(), image.data.begin(), image.data.end());
  if (wide && std::endian::native == std::endian::little) {
    swap_bytes(out.data() + header.size(), image.byte_size(), 2);
  }
  return out;
}

}  // namespace clf::io_detail
