// SPDX-License-Identifier: Apache-2.0
// PNG through libpng. libpng reports errors by longjmp, so each libpng call runs inside a small
// "phase" function that calls setjmp and has only trivially destructible locals; C++ objects (the
// Image, vectors) live in the callers, which throw after a phase has returned false.
#include <fmt/format.h>
#include <png.h>
#include <zlib.h>

#include <bit>
#include <cstdio>
#include <cstring>

#include "io/image_io_internal.hpp"

namespace clf::io_detail {
namespace {

// Shared with the libpng callbacks through the error pointer.
struct PngContext {
  const std::uint8_t* data = nullptr;  // file being decoded
  std::size_t size = 0;
  std::size_t pos = 0;
  bool truncated = false;
  double raw_bytes = 0;  // size of the decompressed pixel data as stored, before transformations
  char message[256] = "";
};

void on_error(png_structp png, png_const_charp message) {
  auto* ctx = static_cast<PngContext*>(png_get_error_ptr(png));
  std::snprintf(ctx->message, sizeof ctx->message, "%s", message);
  png_longjmp(png, 1);  // returning would make libpng print to stderr and then longjmp itself
}

void on_warning(png_structp, png_const_charp) {}

void read_from_memory(png_structp png, png_bytep out, std::size_t length) {
  auto* ctx = static_cast<PngContext*>(png_get_io_ptr(png));
  if (length > ctx->size - ctx->pos) {
    ctx->truncated = true;
    png_error(png, "file ends early");
  }
  std::memcpy(out, ctx->data + ctx->pos, length);
  ctx->pos += length;
}

void write_to_vector(png_structp png, png_bytep data, std::size_t length) {
  auto* out = static_cast<Bytes*>(png_get_io_ptr(png));
  bool ok = true;
  try {  // no exception may unwind through libpng's C frames
    out->insert(out->end(), data, data + length);
  } catch (...) {
    ok = false;
  }
  if (!ok) png_error(png, "out of memory");
}

void flush_nothing(png_structp) {}

// Reads the header and asks for 8/16-bit grey, grey+alpha, RGB or RGBA in native byte order.
bool read_header(png_structp png, png_infop info, PngContext* ctx) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_read_fn(png, ctx, read_from_memory);
  // An ancillary chunk declaring 2 GiB made libpng allocate and zero it before any pixel: chunks over 8 MiB
  // are skipped instead (libpng reports that as a benign error, a warning here).
  png_set_chunk_malloc_max(png, 8u << 20);
  png_read_info(png, info);
  ctx->raw_bytes = (static_cast<double>(png_get_rowbytes(png, info)) + 1) * png_get_image_height(png, info);
  const int color = png_get_color_type(png, info);
  const int depth = png_get_bit_depth(png, info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (depth == 16 && std::endian::native == std::endian::little) png_set_swap(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  return true;
}

bool read_pixels(png_structp png, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  return true;
}

bool write_png(png_structp png, png_infop info, const Image* image, int compression, Bytes* out) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_compression_level(png, compression);
  if (compression == 0) {
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);  // nothing to gain from filtering stored data
  } else if (compression == 1) {
    // OpenCV's imwrite default: on a 3840x2160 photo 7x faster than libpng's defaults, 25% larger.
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_set_compression_strategy(png, Z_RLE);
  }
  static constexpr int kColorTypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                        PNG_COLOR_TYPE_RGB_ALPHA};
  const int depth = image->type == SampleType::u16 ? 16 : 8;
  png_set_write_fn(png, out, write_to_vector, flush_nothing);
  png_set_IHDR(png, info, image->width, image->height, depth, kColorTypes[image->channels - 1], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (depth == 16 && std::endian::native == std::endian::little) png_set_swap(png);
  for (int y = 0; y < image->height; ++y) png_write_row(png, image->row(y));
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

Image decode_png(ByteView file, const std::filesystem::path& path) {
  PngContext ctx{file.data(), file.size()};
  struct Decoder {
    png_structp png;
    png_infop info = nullptr;
    ~Decoder() { png_destroy_read_struct(&png, &info, nullptr); }
  } d{png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning)};
  if (d.png == nullptr || (d.info = png_create_info_struct(d.png)) == nullptr) {
    fail(path, "cannot decode PNG: out of memory");
  }
  const auto libpng_failed = [&] {
    return fmt::format("{} PNG (libpng: {})", ctx.truncated ? "truncated" : "corrupt", ctx.message);
  };
  if (!read_header(d.png, d.info, &ctx)) fail(path, libpng_failed());

  const png_uint_32 width = png_get_image_width(d.png, d.info), height = png_get_image_height(d.png, d.info);
  const int channels = png_get_channels(d.png, d.info);
  const bool wide = png_get_bit_depth(d.png, d.info) == 16;
  // The size after png_read_update_info: palette and low-bit grey already expanded, as the Image holds them.
  check_dimensions(path, width, height, channels, wide ? 2 : 1);
  // Deflate expands at most 1032:1, so a short file cannot hold a huge image: say so before allocating.
  if (ctx.raw_bytes > 1032.0 * static_cast<double>(file.size()) + 4096) {
    fail(path, fmt::format("truncated PNG ({} bytes cannot hold a {} x {} image)", file.size(), width, height));
  }
  Image image(static_cast<int>(width), static_cast<int>(height), channels, wide ? SampleType::u16 : SampleType::u8);
  if (png_get_rowbytes(d.png, d.info) != image.row_bytes()) fail(path, "unsupported PNG pixel layout");
  std::vector<png_bytep> rows(height);
  for (png_uint_32 y = 0; y < height; ++y) rows[y] = image.row(static_cast<int>(y));
  if (!read_pixels(d.png, rows.data())) fail(path, libpng_failed());
  return image;
}

Bytes encode_png(const Image& image, const std::filesystem::path& path, int compression) {
  if ((image.type != SampleType::u8 && image.type != SampleType::u16) || image.channels > 4) {
    fail(path, fmt::format("PNG cannot hold a {}-channel {} image (needs uint8 or uint16 with 1 to 4 channels)",
                           image.channels, sample_type_name(image.type)));
  }
  if (compression < 0 || compression > 9)
    fail(path, fmt::format("PNG compression must be 0 to 9, not {}", compression));
  PngContext ctx;
  struct Encoder {
    png_structp png;
    png_infop info = nullptr;
    ~Encoder() { png_destroy_write_struct(&png, &info); }
  } e{png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning)};
  if (e.png == nullptr || (e.info = png_create_info_struct(e.png)) == nullptr) {
    fail(path, "cannot encode PNG: out of memory");
  }
  Bytes out;
  if (!write_png(e.png, e.info, &image, compression, &out))
    fail(path, fmt::format("cannot encode PNG (libpng: {})", ctx.message));
  return out;
}

}  // namespace clf::io_detail
