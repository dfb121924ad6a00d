// SPDX-License-Identifier: Apache-2.0
// JPEG through libjpeg(-turbo). libjpeg reports errors through error_exit, which must not return;
// ours longjmps back into a small "phase" function that has only trivially destructible locals.
// The libjpeg structs live in a guard owned by the caller, which destroys them and throws.
#include <fmt/format.h>
#include <jerror.h>
#include <jpeglib.h>

#include <csetjmp>
#include <cstdio>  // jpeglib.h needs FILE
#include <cstring>

#include "io/image_io_internal.hpp"

namespace clf::io_detail {
namespace {

struct JpegErrors {
  jpeg_error_mgr mgr;  // first member, so that cinfo->err points to the whole struct
  std::jmp_buf jump;
  bool truncated;
  char message[JMSG_LENGTH_MAX];
};

JpegErrors* errors_of(j_common_ptr cinfo) {
  return reinterpret_cast<JpegErrors*>(cinfo->err);
}

[[noreturn]] void on_error(j_common_ptr cinfo) {
  JpegErrors* errors = errors_of(cinfo);
  cinfo->err->format_message(cinfo, errors->message);
  // Message codes are numbered differently across libjpeg-turbo builds (Debian 12 vs Ubuntu 24.04),
  // so the text decides too.
  errors->truncated =
      cinfo->err->msg_code == JWRN_JPEG_EOF || std::strstr(errors->message, "Premature end of JPEG file") != nullptr;
  std::longjmp(errors->jump, 1);
}

// libjpeg reports corrupt or missing data as a warning and goes on with grey pixels; we refuse such
// files. Only harmless header oddities stay warnings. Nothing is ever printed.
void on_message(j_common_ptr cinfo, int level) {
  const int code = cinfo->err->msg_code;
  if (level < 0 && code != JWRN_JFIF_MAJOR && code != JWRN_ADOBE_XFORM) on_error(cinfo);
}

void no_output(j_common_ptr) {}

jpeg_error_mgr* install_handlers(JpegErrors& errors) {
  jpeg_std_error(&errors.mgr);
  errors.mgr.error_exit = on_error;
  errors.mgr.emit_message = on_message;
  errors.mgr.output_message = no_output;
  return &errors.mgr;
}

// Compressed output goes straight into the spare room of a growing vector.
struct VectorDestination {
  jpeg_destination_mgr mgr;  // first member, so that cinfo->dest points to the whole struct
  Bytes* out;
};

void grow_to(j_compress_ptr cinfo, std::size_t size) {
  auto* dest = reinterpret_cast<VectorDestination*>(cinfo->dest);
  const std::size_t used = dest->out->size();
  bool ok = true;
  try {  // no exception may unwind through libjpeg's C frames
    dest->out->resize(size);
  } catch (...) {
    ok = false;
  }
  if (!ok) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
  dest->mgr.next_output_byte = dest->out->data() + used;
  dest->mgr.free_in_buffer = size - used;
}

void destination_init(j_compress_ptr cinfo) {
  grow_to(cinfo, 1 << 16);
}
boolean destination_full(j_compress_ptr cinfo) {
  grow_to(cinfo, reinterpret_cast<VectorDestination*>(cinfo->dest)->out->size() * 2);
  return TRUE;
}
void destination_term(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<VectorDestination*>(cinfo->dest);
  dest->out->resize(dest->out->size() - dest->mgr.free_in_buffer);
}

bool read_header(j_decompress_ptr cinfo, ByteView file) {
  if (setjmp(errors_of(reinterpret_cast<j_common_ptr>(cinfo))->jump)) return false;
  jpeg_create_decompress(cinfo);
  jpeg_mem_src(cinfo, file.data(), file.size());
  jpeg_read_header(cinfo, TRUE);
  return true;
}

bool read_pixels(j_decompress_ptr cinfo, Image* image) {
  JpegErrors* errors = errors_of(reinterpret_cast<j_common_ptr>(cinfo));
  if (setjmp(errors->jump)) return false;
  jpeg_start_decompress(cinfo);
  if (cinfo->output_width != static_cast<JDIMENSION>(image->width) || cinfo->output_components != image->channels) {
    std::snprintf(errors->message, sizeof errors->message, "unexpected output layout");
    return false;
  }
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = image->row(static_cast<int>(cinfo->output_scanline));
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return true;
}

bool compress(j_compress_ptr cinfo, VectorDestination* dest, const Image* image, int quality) {
  if (setjmp(errors_of(reinterpret_cast<j_common_ptr>(cinfo))->jump)) return false;
  jpeg_create_compress(cinfo);
  dest->mgr.init_destination = destination_init;
  dest->mgr.empty_output_buffer = destination_full;
  dest->mgr.term_destination = destination_term;
  cinfo->dest = &dest->mgr;
  cinfo->image_width = static_cast<JDIMENSION>(image->width);
  cinfo->image_height = static_cast<JDIMENSION>(image->height);
  cinfo->input_components = image->channels;
  cinfo->in_color_space = image->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  jpeg_set_quality(cinfo, quality, TRUE);
  // Standard Huffman tables, one pass: optimised tables (a second pass over the coefficients) made a 3840x2160
  // photo 1.6% smaller at 2.6 times the encoding time (100 against 39 ms). The pixels are the same either way.
  cinfo->optimize_coding = FALSE;
  // At high quality keep full-resolution colour (4:4:4, as ImageMagick does): halving the chroma
  // would otherwise dominate the error.
  if (quality >= 90) {
    for (int i = 0; i < cinfo->num_components; ++i) {
      cinfo->comp_info[i].h_samp_factor = cinfo->comp_info[i].v_samp_factor = 1;
    }
  }
  jpeg_start_compress(cinfo, TRUE);
  while (cinfo->next_scanline < cinfo->image_height) {
    // libjpeg's API takes non-const rows but only reads them.
    JSAMPROW row = const_cast<JSAMPLE*>(image->row(static_cast<int>(cinfo->next_scanline)));
    jpeg_write_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_compress(cinfo);
  return true;
}

}  // namespace

Image decode_jpeg(ByteView file, const std::filesystem::path& path) {
  struct Decoder {
    JpegErrors errors{};
    jpeg_decompress_struct cinfo{};
    ~Decoder() { jpeg_destroy_decompress(&cinfo); }
  } d;
  d.cinfo.err = install_handlers(d.errors);
  const auto libjpeg_failed = [&] {
    return fmt::format("{} JPEG (libjpeg: {})", d.errors.truncated ? "truncated" : "corrupt or unsupported",
                       d.errors.message);
  };
  if (!read_header(&d.cinfo, file)) fail(path, libjpeg_failed());
  if (d.cinfo.jpeg_color_space == JCS_CMYK || d.cinfo.jpeg_color_space == JCS_YCCK) {
    fail(path, "CMYK JPEG is not supported (only grey and RGB)");
  }
  d.cinfo.out_color_space = d.cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  const int channels = d.cinfo.num_components == 1 ? 1 : 3;
  const std::uint64_t width = d.cinfo.image_width, height = d.cinfo.image_height;
  // A progressive (or multi-scan) file keeps every DCT coefficient until the last scan: 2 bytes a sample.
  const std::uint64_t coefficients =
      jpeg_has_multiple_scans(&d.cinfo) ? width * height * std::uint64_t(d.cinfo.num_components) * 2 : 0;
  check_dimensions(path, width, height, channels, 1, coefficients);
  // A file too short for its declared size is refused before its pixels are allocated (and zeroed): more than
  // 4096 pixels a byte. Huffman coding spends at least one bit on each 8x8 block (512 pixels a byte); only an
  // arithmetic-coded, nearly flat image could pass that bound, and it is refused.
  if (width * height > 4096 * std::uint64_t(file.size()))
    fail(path, fmt::format("truncated JPEG ({} bytes cannot hold a {} x {} image)", file.size(), width, height));
  Image image(static_cast<int>(d.cinfo.image_width), static_cast<int>(d.cinfo.image_height), channels);
  if (!read_pixels(&d.cinfo, &image)) fail(path, libjpeg_failed());
  return image;
}

Bytes encode_jpeg(const Image& image, const std::filesystem::path& path, int quality) {
  if (image.type != SampleType::u8 || (image.channels != 1 && image.channels != 3)) {
    fail(path, fmt::format("JPEG cannot hold a {}-channel {} image (needs uint8 grey or RGB)", image.channels,
                           sample_type_name(image.type)));
  }
  if (quality < 1 || quality > 100) fail(path, fmt::format("JPEG quality must be 1 to 100, not {}", quality));
  Bytes out;
  struct Encoder {
    JpegErrors errors{};
    jpeg_compress_struct cinfo{};
    ~Encoder() { jpeg_destroy_compress(&cinfo); }
  } e;
  VectorDestination dest{{}, &out};
  e.cinfo.err = install_handlers(e.errors);
  if (!compress(&e.cinfo, &dest, &image, quality)) {
    fail(path, fmt::format("cannot encode JPEG (libjpeg: {})", e.errors.message));
  }
  return out;
}

}  // namespace clf::io_detail
