// SPDX-License-Identifier: Apache-2.0
// Private declarations shared by the image I/O codecs. Decoders work on the whole file in memory;
// encoders return the file's bytes so that image_io.cpp can write them atomically.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/image.hpp"
#include "clfilters/image_io.hpp"

namespace clf::io_detail {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

// Throws ImageIoError "<path>: <problem>", with any control characters turned into spaces so that
// the message stays on one line whatever libpng/libjpeg or the file name contain.
[[noreturn]] void fail(const std::filesystem::path& path, std::string_view problem);

// Refuses, before anything is allocated: empty images, absurd header sizes (more than kMaxSamples samples, or a
// side that does not fit in int), more than max_image_pixels() pixels, and an image of `sample_bytes` per sample
// (plus `extra_bytes` the decoder needs beside it) larger than the memory this process may allocate.
inline constexpr std::uint64_t kMaxSamples = std::uint64_t{1} << 31;
void check_dimensions(const std::filesystem::path& path, std::uint64_t width, std::uint64_t height,
                      std::uint64_t channels, std::uint64_t sample_bytes = 1, std::uint64_t extra_bytes = 0);

// The most bytes this process may still allocate: the address space left under its limit (ulimit -v), and no
// more than the machine's physical memory.
std::uint64_t allocatable_bytes();
// "1.5 GiB", "640 KiB", "12 bytes".
std::string readable_bytes(std::uint64_t bytes);

// Reverses the byte order of each `sample_bytes`-sized sample in place.
void swap_bytes(std::uint8_t* data, std::size_t size, std::size_t sample_bytes);

// The image in `file` (the whole file, read), in the format its magic bytes name, as read_image returns it.
Image decode_image(ByteView file, const std::filesystem::path& path);
// One format each; decode_image has checked the magic bytes.
Image decode_png(ByteView file, const std::filesystem::path& path);
Image decode_jpeg(ByteView file, const std::filesystem::path& path);
Image decode_pnm(ByteView file, const std::filesystem::path& path);
Image decode_npy(ByteView file, const std::filesystem::path& path);

// Encoders throw ImageIoError naming `path` when the format cannot hold the image.
Bytes encode_png(const Image& image, const std::filesystem::path& path, int compression);
Bytes encode_jpeg(const Image& image, const std::filesystem::path& path, int quality);
Bytes encode_pnm(const Image& image, const std::filesystem::path& path);
Bytes encode_npy(const Image& image, const std::filesystem::path& path);

// A .npy array's layout, for readers that take rows of it in place (the distributed reconstruction's MPI-IO).
struct NpyLayout {
  SampleType type;
  bool swapped;  // stored in the other byte order than this machine's
  int width, height, channels;
  std::uint64_t data_offset;  // bytes from the file's start to the first sample
};
// From the start of a .npy file (`head`, at least its header) and the whole file's size: the checks decode_npy makes
// (version, dtype, C order, shape, that the data is all there), each an ImageIoError naming `path`.
NpyLayout parse_npy_layout(ByteView head, std::uint64_t file_size, const std::filesystem::path& path);
// The same, reading only the header of the file at `path`.
NpyLayout read_npy_layout(const std::filesystem::path& path);
// The version 1.0 header of a C-order, little-endian array of that shape (H x W when `channels` is 1), padded as
// NumPy pads it so that the data starts on a 64-byte boundary.
std::string npy_header(SampleType type, int width, int height, int channels);

}  // namespace clf::io_detail
