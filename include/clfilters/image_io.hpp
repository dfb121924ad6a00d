// SPDX-License-Identifier: Apache-2.0
// Reading and writing images: PNG, JPEG, PGM/PPM (P5/P6) and NumPy .npy.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include "clfilters/export.hpp"
#include "clfilters/image.hpp"

namespace CLF_API clf {

// Any problem with an image file. what() is one line that names the file and the problem,
// e.g. "photo.png: truncated file (expected 1228800 bytes of pixel data)".
class ImageIoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ImageFormat { png, jpeg, pnm, npy };

struct WriteOptions {
  int jpeg_quality = 95;  // 1..100
  // PNG's zlib level, 0..9. 0: stored, no filter (largest, fastest); 1: the Sub row filter with zlib's run-length
  // strategy at level 1, as OpenCV's imwrite does by default (fast, a little larger); 2..9: libpng's adaptive row
  // filters at that zlib level (6 is libpng's own default, 9 the smallest and slowest). Every level stores the
  // same pixels.
  int png_compression = 1;
};

// Format from the file extension (.png, .jpg/.jpeg, .pgm/.ppm/.pnm, .npy), case-insensitive.
// Throws ImageIoError naming the file if the extension is unknown.
ImageFormat format_from_extension(const std::filesystem::path& path);

// Reads an image. The format is detected from the file's magic bytes, not its name.
//  PNG:  8-bit grey, grey+alpha, RGB, RGBA, palette (expanded to RGB/RGBA); 16-bit grey (u16).
//  JPEG: grey and RGB (CMYK is refused).
//  PNM:  P5/P6, maxval <= 255 (u8) or <= 65535 (u16, big-endian on disk).
//  NPY:  uint8, int16 (and uint16), float32; H x W or H x W x C, C order, little or big endian. NumPy has no
//        colour model: C channels are taken as PNG's (2: grey + alpha, 3: RGB, 4: RGBA).
// Refuses, before allocating: an image of more than max_image_pixels() pixels; one whose decoded pixels (a 1-bit
// palette image expanded to RGBA, 32 times its rows) do not fit in the memory this process may allocate (the
// address space left under `ulimit -v`, and no more than the machine's memory); a PNG or JPEG too short for the
// size it declares; PNG chunks over 8 MiB; and a file of more than max_image_pixels() * 16 + 1 MiB bytes
// (/dev/zero, a stream without end). A read that runs out of memory all the same is reported with the file's name,
// as any refusal: one line, an ImageIoError.
Image read_image(const std::filesystem::path& path);

// The most pixels read_image takes: $CLFILTERS_MAX_PIXELS if set (a whole number >= 1), else 2^30.
std::uint64_t max_image_pixels();

// Writes an image, choosing the format from the extension. The file is written to a temporary
// file in the same folder and renamed into place, so a failure never leaves a partial output.
void write_image(const Image& image, const std::filesystem::path& path, const WriteOptions& options = {});

// Writes `bytes` to `path` atomically: temporary file in the same folder, flush, rename.
// Throws ImageIoError naming the file on failure; the temporary file is removed. An existing output is checked
// first and never replaced when it is not a regular file (a directory, FIFO or device) or the user may not write
// it; a symbolic link is written through: the file it points to is replaced and the link stays.
void write_file_atomically(const std::filesystem::path& path, const void* bytes, std::size_t size);

// Throws ImageIoError naming `path` if an output written there would be refused, as write_file_atomically
// refuses it; with `streams`, an existing FIFO or character device is accepted (video is written into them).
// Commands call it before any work, so that a refusal comes first.
void check_output_path(const std::filesystem::path& path, bool streams = false);

// Makes SIGINT, SIGTERM and SIGHUP remove the temporary files that outputs are being written to, then end the
// process as the signal would have (exit status 130, 143, 129 in the shell). A signal the process ignores or
// handles itself is left alone. The clfilters tool calls it first; a library user may.
void remove_temp_files_on_signals();

}  // namespace clf
