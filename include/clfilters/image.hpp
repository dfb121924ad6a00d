// SPDX-License-Identifier: Apache-2.0
// Host-side image: a tightly packed, row-major buffer of interleaved samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
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

// Host memory for images, aligned to 128 bytes. Blocks of 16 MiB and more are backed by huge pages where the system
// offers them, and a few freed ones are kept for the next image of about the same size: a fresh 8192x8192 RGBA
// result costs more in page faults (180 ms on the NVIDIA H100 machine) than its whole transfer from the GPU.
void* allocate_host_bytes(std::size_t bytes);
void free_host_bytes(void* p, std::size_t bytes) noexcept;
// Returns the freed blocks kept for reuse to the system.
void release_cached_host_memory() noexcept;

// Image memory is aligned to 128 bytes, the base address alignment CPU OpenCL devices ask for, so a CPU device
// reads and writes it in place (CL_MEM_USE_HOST_PTR). Elements are default-initialised: resize() and the
// size constructor leave bytes unset, which Image's constructor does not rely on (it fills with zeros).
template <class T>
struct HostAlignedAllocator {
  using value_type = T;
  static constexpr std::size_t alignment = 128;
  HostAlignedAllocator() = default;
  template <class U>
  HostAlignedAllocator(const HostAlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_host_bytes(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { free_host_bytes(p, n * sizeof(T)); }
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const HostAlignedAllocator<U>&) const noexcept {
    return true;
  }
};
using ImageBytes = std::vector<std::uint8_t, HostAlignedAllocator<std::uint8_t>>;

struct Image {
  int width = 0;
  int height = 0;
  int channels = 1;  // 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA); .npy may carry others
  SampleType type = SampleType::u8;
  ImageBytes data;  // width * height * channels samples, native byte order

  Image() = default;
  // Zero-filled.
  Image(int w, int h, int c, SampleType t = SampleType::u8)
      : width(w), height(h), channels(c), type(t), data(byte_size_for(w, h, c, t), 0) {}
  // Samples left unset, for a result every byte of which is about to be written.
  static Image uninitialized(int w, int h, int c, SampleType t = SampleType::u8) {
    Image image;
    image.width = w;
    image.height = h;
    image.channels = c;
    image.type = t;
    image.data = ImageBytes(byte_size_for(w, h, c, t));
    return image;
  }

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

// Samples the caller owns (a NumPy array's, say), packed rows laid out as Image's: the host calls that take views
// read and write them in place and copy nothing on the host.
struct ImageView {
  const std::uint8_t* data = nullptr;
  int width = 0, height = 0, channels = 1;
  SampleType type = SampleType::u8;
};
struct MutableImageView {
  std::uint8_t* data = nullptr;
  int width = 0, height = 0, channels = 1;
  SampleType type = SampleType::u8;
};

// The layouts the filters run on: 1 channel stays as is, 2 (grey+alpha) and 3 (RGB) become RGBA with the missing
// channels set to the largest sample (255, or 65535 for u16; docs/SPEC.md: RGB gets alpha 255 on the way in). Other
// sample types are returned as they are.
Image to_filter_layout(const Image& image);
// `image` itself when it is already in that layout, else its converted copy, kept in `converted`.
const Image& in_filter_layout(const Image& image, Image& converted);
// Back from that layout: keeps the first `channels` channels (RGBA -> RGB drops alpha).
Image from_filter_layout(const Image& image, int channels);

}  // namespace clf
