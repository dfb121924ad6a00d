// SPDX-License-Identifier: Apache-2.0
// NumPy .npy: uint8, int16, uint16 and float32 arrays of shape (H, W) or (H, W, C) in C order.
// Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <system_error>

#include "io/image_io_internal.hpp"

namespace clf::io_detail {
namespace {

struct NpyHeader {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<std::uint64_t>> shape;
};

// Just enough of a Python literal parser for the header dict, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : rest_(text) {}

  // Returns nullopt when the text is not such a dict.
  std::optional<NpyHeader> parse() {
    NpyHeader header;
    if (!eat("{")) return std::nullopt;
    while (!eat("}")) {
      const auto key = string();
      if (!key || !eat(":")) return std::nullopt;
      if (*key == "descr") {
        header.descr = string();
        if (!header.descr) header.descr = raw_value();  // a structured dtype: a list of fields
      } else if (*key == "fortran_order") {
        if (eat("True")) {
          header.fortran_order = true;
        } else if (eat("False")) {
          header.fortran_order = false;
        } else {
          return std::nullopt;
        }
      } else if (*key == "shape") {
        if (!eat("(")) return std::nullopt;
        header.shape.emplace();
        while (!eat(")")) {
          const auto n = number();
          if (!n || (!eat(",") && !next_is(')'))) return std::nullopt;
          header.shape->push_back(*n);
        }
      } else {
        return std::nullopt;
      }
      if (!eat(",") && !next_is('}')) return std::nullopt;
    }
    skip_space();
    if (!rest_.empty() || !header.descr || !header.fortran_order || !header.shape) return std::nullopt;
    return header;
  }

 private:
  void skip_space() {
    while (!rest_.empty() && std::isspace(static_cast<unsigned char>(rest_[0]))) rest_.remove_prefix(1);
  }
  bool eat(std::string_view token) {
    skip_space();
    if (!rest_.starts_with(token)) return false;
    rest_.remove_prefix(token.size());
    return true;
  }
  std::optional<std::string> string() {
    skip_space();
    if (rest_.empty() || (rest_[0] != '\'' && rest_[0] != '"')) return std::nullopt;
    const std::size_t end = rest_.find(rest_[0], 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string value(rest_.substr(1, end - 1));
    rest_.remove_prefix(end + 1);
    return value;
  }
  std::optional<std::uint64_t> number() {
    skip_space();
    if (rest_.empty() || !std::isdigit(static_cast<unsigned char>(rest_[0]))) return std::nullopt;
    std::uint64_t value = 0;
    while (!rest_.empty() && std::isdigit(static_cast<unsigned char>(rest_[0]))) {
      value = value * 10 + static_cast<std::uint64_t>(rest_[0] - '0');
      if (value > 0xFFFFFFFFu) value = 0xFFFFFFFFu + 1;  // saturate; check_dimensions refuses it
      rest_.remove_prefix(1);
    }
    eat("L");  // Python 2 longs
    return value;
  }
  bool next_is(char c) {
    skip_space();
    return !rest_.empty() && rest_[0] == c;
  }
  // The text of a value up to the ',' or '}' that ends it.
  std::string raw_value() {
    std::size_t end = 0;
    for (int depth = 0; end < rest_.size() && (depth > 0 || (rest_[end] != ',' && rest_[end] != '}')); ++end) {
      if (rest_[end] == '[' || rest_[end] == '(') ++depth;
      if (rest_[end] == ']' || rest_[end] == ')') --depth;
    }
    std::string value(rest_.substr(0, end));
    rest_.remove_prefix(end);
    return value;
  }

  std::string_view rest_;
};

struct DType {
  SampleType type;
  bool big_endian;
};

std::optional<DType> parse_descr(std::string_view descr) {
  if (descr.size() != 3 || std::string_view("<>|=").find(descr[0]) == std::string_view::npos) {
    return std::nullopt;
  }
  const bool big = descr[0] == '>' || (descr[0] == '=' && std::endian::native == std::endian::big);
  const std::string_view kind = descr.substr(1);
  if (kind == "u1") return DType{SampleType::u8, big};
  if (kind == "i2") return DType{SampleType::i16, big};
  if (kind == "u2") return DType{SampleType::u16, big};
  if (kind == "f4") return DType{SampleType::f32, big};
  return std::nullopt;
}

// "(4, 5, 3)"-style text; by hand, as fmt::join trips a GCC 12 -O3 false warning.
std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string text;
  for (const std::uint64_t n : shape) text += (text.empty() ? "" : ", ") + std::to_string(n);
  return "(" + text + ")";
}

std::uint32_t little_endian(const std::uint8_t* p, int bytes) {
  std::uint32_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = value << 8 | p[i];
  return value;
}

}  // namespace

// The array's layout from the start of a .npy file (at least its header; `file_size` is the whole file's), with
// the checks every reader makes: version, dtype, C order, shape, size and that the data is all there.
NpyLayout parse_npy_layout(ByteView head, std::uint64_t file_size, const std::filesystem::path& path) {
  if (head.size() < 10) fail(path, "truncated .npy header");
  const int major = head[6], minor = head[7];
  // Version 1 has a 2-byte header length, versions 2 and 3 (UTF-8 header) a 4-byte one.
  if (major < 1 || major > 3) fail(path, fmt::format("unsupported .npy version {}.{}", major, minor));
  const int length_bytes = major == 1 ? 2 : 4;
  if (head.size() < 8u + length_bytes) fail(path, "truncated .npy header");
  const std::size_t header_start = 8u + length_bytes;
  const std::size_t header_size = little_endian(head.data() + 8, length_bytes);
  if (head.size() - header_start < header_size) fail(path, "truncated .npy header");
  const std::string_view text(reinterpret_cast<const char*>(head.data()) + header_start, header_size);

  const std::optional<NpyHeader> header = HeaderParser(text).parse();
  if (!header) fail(path, "malformed .npy header");
  const std::optional<DType> dtype = parse_descr(*header->descr);
  if (!dtype) {
    fail(path, fmt::format("unsupported .npy dtype '{}' (need uint8, int16, uint16 or float32)", *header->descr));
  }
  if (*header->fortran_order) {
    fail(path, "Fortran-order .npy arrays are not supported (save a C-order array, e.g. np.ascontiguousarray)");
  }
  const std::vector<std::uint64_t>& shape = *header->shape;
  if (shape.size() != 2 && shape.size() != 3) {
    fail(path, fmt::format("unsupported .npy shape {} (need H x W or H x W x C)", shape_text(shape)));
  }
  const std::uint64_t channels = shape.size() == 3 ? shape[2] : 1;
  check_dimensions(path, shape[1], shape[0], channels);

  NpyLayout layout{dtype->type,   dtype->big_endian != (std::endian::native == std::endian::big),
                   int(shape[1]), int(shape[0]),
                   int(channels), header_start + header_size};
  const std::uint64_t expected = shape[0] * shape[1] * channels * sample_size(dtype->type);
  if (file_size - layout.data_offset < expected) {
    fail(path, fmt::format("truncated .npy ({} bytes of data, expected {} for shape {})",
                           file_size - layout.data_offset, expected, shape_text(shape)));
  }
  return layout;
}

Image decode_npy(ByteView file, const std::filesystem::path& path) {
  const NpyLayout layout = parse_npy_layout(file, file.size(), path);
  Image image(layout.width, layout.height, layout.channels, layout.type);
  std::memcpy(image.data.data(), file.data() + layout.data_offset, image.byte_size());
  if (layout.swapped) swap_bytes(image.data.data(), image.byte_size(), sample_size(layout.type));
  return image;
}

NpyLayout read_npy_layout(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open: " + std::error_code(errno, std::generic_category()).message());
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  // Version 1 headers are at most 65545 bytes; a longer version 2 header is reported as truncated.
  Bytes head(std::min<std::uint64_t>(size, std::uint64_t{1} << 20));
  in.read(reinterpret_cast<char*>(head.data()), std::streamsize(head.size()));
  if (!in) fail(path, "cannot read: " + std::error_code(errno, std::generic_category()).message());
  if (head.size() < 6 || std::memcmp(head.data(), "\x93NUMPY", 6) != 0) fail(path, "not a .npy file");
  return parse_npy_layout(head, size, path);
}

std::string npy_header(SampleType type, int width, int height, int channels) {
  const char* descr = "|u1";
  switch (type) {
    case SampleType::u8: descr = "|u1"; break;
    case SampleType::i16: descr = "<i2"; break;
    case SampleType::u16: descr = "<u2"; break;
    case SampleType::f32: descr = "<f4"; break;
  }
  const std::string shape =
      channels == 1 ? fmt::format("({}, {})", height, width) : fmt::format("({}, {}, {})", height, width, channels);
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
  // Version 1.0: 10-byte preamble; like NumPy, pad with spaces so that the data starts on a
  // 64-byte boundary, and end the header with '\n'.
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  const std::size_t length = header.size();
  header.insert(
      0, {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<char>(length & 0xFF), static_cast<char>(length >> 8)});
  return header;
}

Bytes encode_npy(const Image& image, const std::filesystem::path& /*path: every Image fits*/) {
  const std::string header = npy_header(image.type, image.width, image.height, image.channels);
  Bytes out;
  out.reserve(header.size() + image.byte_size());
  out.assign(header.begin(), header.end());
  const std::size_t data_start = out.size();
  out.insert(out.end(), image.data.begin(), image.data.end());
  if (std::endian::native == std::endian::big) {
    swap_bytes(out.data() + data_start, image.byte_size(), sample_size(image.type));
  }
  return out;
}

}  // namespace clf::io_detail
