// SPDX-License-Identifier: Apache-2.0
// Host-side image: a tightly packed, row-major buffer of interleaved samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "clfilters/export.hpp"

namespace CLF_API clf {

enum class SampleType { u8, u16, i16, f32 };

constexpr std::size_t sample_size(SampleType t) {
  switch (t) {
    case SampleType::u8: return 1;
    case SampleType::u16:
    case SampleType::i16: return 2;
    case SampleType::f32: return 4;
  }
  return 1;
}

const char* sample_type_name(SampleType t);

struct Image {
  int width = 0;
  int height = 0;
  int channels = 1;  // 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA); .npy may carry others
  SampleType type = SampleType::u8;
  std::vector<std::uint8_t> data;  // width * height * channels samples, native byte order

  Image() = default;
  Image(int w, int h, int c, SampleType t = SampleType::u8)
      : width(w), height(h), channels(c), type(t), data(byte_size_for(w, h, c, t)) {}

  static std::size_t byte_size_for(int w, int h, int c, SampleType t) {
    if (w < 0 || h < 0 || c < 1) throw std::invalid_argument("negative image size");
    return static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(c) * sample_size(t);
  }
  std::size_t pixel_count() const { return static_cast<std::size_t>(width) * height; }
  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * channels * sample_size(type); }
  std::size_t byte_size() const { return data.size(); }
  bool empty() const { return data.empty(); }

  // Typed access to the samples; T must match `type` in size.
  template <class T>
  std::span<T> samples() {
    return {reinterpret_cast<T*>(data.data()), data.size() / sizeof(T)};
  }
  template <class T>
  std::span<const T> samples() const {
    return {reinterpret_cast<const T*>(data.data()), data.size() / sizeof(T)};
  }
  std::uint8_t* row(int y) { return data.data() + static_cast<std::size_t>(y) * row_bytes(); }
  const std::uint8_t* row(int y) const { return data.data() + static_cast<std::size_t>(y) * row_bytes(); }
};

// The layouts the 8-bit filters run on: 1 channel stays as is, 2 (grey+alpha) and 3 (RGB) become
// RGBA with the missing channels set to 255 (docs/SPEC.md: RGB gets alpha 255 on the way in).
Image to_filter_layout(const Image& image);
// Back from that layout: keeps the first `channels` channels (RGBA -> RGB drops alpha).
Image from_filter_layout(const Image& image, int channels);

}  // namespace clf
