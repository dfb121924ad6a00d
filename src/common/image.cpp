// SPDX-License-Identifier: Apache-2.0
#include "clfilters/image.hpp"

#include <sys/mman.h>

#include <bit>
#include <mutex>

#include "common/parallel.hpp"

namespace clf {

namespace {

constexpr std::size_t kImageAlignment = HostAlignedAllocator<std::uint8_t>::alignment;
// From this size on a block is backed by huge pages and kept for reuse when freed. Smaller blocks come from the
// allocator's heap, which reuses them anyway.
constexpr std::size_t kLargeBlock = std::size_t(16) << 20;
constexpr std::size_t kHugePage = std::size_t(2) << 20;
// Enough for a stream of same-sized calls (input, result and a converted copy), bounded for small machines.
constexpr std::size_t kKeptBlocks = 4, kKeptBytes = std::size_t(1) << 30;

struct KeptBlocks {
  KeptBlocks() { blocks.reserve(kKeptBlocks + 1); }
  std::mutex mutex;
  std::vector<std::pair<void*, std::size_t>> blocks;  // oldest first
  std::size_t bytes = 0;
};

// Never destroyed: an image may be freed after static destructors have run.
KeptBlocks& kept_blocks() {
  static KeptBlocks* kept = new KeptBlocks;
  return *kept;
}

void delete_large(void* p) noexcept {
  ::operator delete (p, std::align_val_t{kHugePage});
}

}  // namespace

void* allocate_host_bytes(std::size_t bytes) {
  if (bytes < kLargeBlock) return ::operator new (bytes, std::align_val_t{kImageAlignment});
  {
    KeptBlocks& kept = kept_blocks();
    const std::lock_guard lock(kept.mutex);
    // Only the same size: the block's size must come back with it in free_host_bytes.
    for (auto it = kept.blocks.begin(); it != kept.blocks.end(); ++it) {
      if (it->second != bytes) continue;
      void* p = it->first;
      kept.bytes -= bytes;
      kept.blocks.erase(it);
      return p;
    }
  }
  void* p = ::operator new (bytes, std::align_val_t{kHugePage});
  // A first touch of 4-KiB pages runs at 1.5 GB/s on the NVIDIA H100 machine's virtual CPU, of 2-MiB pages at 6.
  // Failure (no transparent huge pages) changes nothing.
  (void)::madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

void free_host_bytes(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes < kLargeBlock) {
    ::operator delete (p, std::align_val_t{kImageAlignment});
    return;
  }
  if (bytes > kKeptBytes) {
    delete_large(p);
    return;
  }
  KeptBlocks& kept = kept_blocks();
  const std::lock_guard lock(kept.mutex);
  kept.blocks.emplace_back(p, bytes);  // within the reserved capacity: cannot throw
  kept.bytes += bytes;
  while (kept.blocks.size() > kKeptBlocks || kept.bytes > kKeptBytes) {
    delete_large(kept.blocks.front().first);
    kept.bytes -= kept.blocks.front().second;
    kept.blocks.erase(kept.blocks.begin());
  }
}

void release_cached_host_memory() noexcept {
  KeptBlocks& kept = kept_blocks();
  const std::lock_guard lock(kept.mutex);
  for (const auto& [p, bytes] : kept.blocks) delete_large(p);
  kept.blocks.clear();
  kept.bytes = 0;
}

const char* sample_type_name(SampleType t) {
  switch (t) {
    case SampleType::u8: return "uint8";
    case SampleType::u16: return "uint16";
    case SampleType::i16: return "int16";
    case SampleType::f32: return "float32";
  }
  return "?";
}

namespace {
// RGB -> RGBA (alpha 255) and back, a row at a time. On little-endian hosts each pixel moves as one 32-bit word
// (the last pixel of a row byte by byte, so that nothing reads or writes past the row): 3.3 ms for a 3840x2160
// image on a 2-core EPYC, where a per-sample loop took 27 ms (to RGBA) and a memcpy per pixel 29 ms (back).
void rgb_to_rgba(const std::uint8_t* __restrict src, std::uint8_t* __restrict dst, std::size_t width) {
  std::size_t x = 0;
  if constexpr (std::endian::native == std::endian::little) {
    for (; x + 1 < width; ++x, src += 3, dst += 4) {
      std::uint32_t pixel;
      std::memcpy(&pixel, src, 4);  // R, G, B and the next pixel's R, replaced by the alpha
      pixel |= 0xFF000000u;
      std::memcpy(dst, &pixel, 4);
    }
  }
  for (; x < width; ++x, src += 3, dst += 4) {
    dst[0] = src[0];
    dst[1] = src[1];
    dst[2] = src[2];
    dst[3] = 255;
  }
}

void rgba_to_rgb(const std::uint8_t* __restrict src, std::uint8_t* __restrict dst, std::size_t width) {
  std::size_t x = 0;
  for (; x + 1 < width; ++x, src += 4, dst += 3) std::memcpy(dst, src, 4);  // the alpha byte is overwritten next
  for (; x < width; ++x, src += 4, dst += 3) std::memcpy(dst, src, 3);
}

// Conversions of large images run on every core: at 4K a single thread spends ~3 ms each way, as much as a filter's
// kernel on a GPU. Small ones stay on the calling thread, where starting threads would cost more.
void for_row_ranges(const Image& image, const std::function<void(int, int)>& body) {
  parallel_rows(image.height, image.pixel_count() >= (std::size_t(1) << 18) ? 0 : 1, body);
}
// 16-bit grey+alpha and RGB as RGBA: the channels there are, the others 65535 (a grey+alpha pixel becomes
// grey, alpha, 65535, 65535, as the 8-bit one does).
Image u16_to_filter_layout(const Image& image) {
  Image out = Image::uninitialized(image.width, image.height, 4, SampleType::u16);
  const std::size_t c = static_cast<std::size_t>(image.channels);
  for_row_ranges(image, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const auto* src = reinterpret_cast<const std::uint16_t*>(image.row(y));
      auto* dst = reinterpret_cast<std::uint16_t*>(out.row(y));
      for (int x = 0; x < image.width; ++x, src += c, dst += 4)
        for (std::size_t k = 0; k < 4; ++k) dst[k] = k < c ? src[k] : 65535;
    }
  });
  return out;
}
}  // namespace

Image to_filter_layout(const Image& image) {
  if (image.channels == 1 || image.channels == 4) return image;
  if (image.channels > 4) throw std::invalid_argument("images have at most 4 channels");
  if (image.type == SampleType::u16) return u16_to_filter_layout(image);
  if (image.type != SampleType::u8) return image;
  Image out = Image::uninitialized(image.width, image.height, 4);
  const std::size_t width = static_cast<std::size_t>(image.width);
  for_row_ranges(image, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
      const std::uint8_t* src = image.row(y);
      std::uint8_t* dst = out.row(y);
      if (image.channels == 3) {
        rgb_to_rgba(src, dst, width);
      } else {  // grey + alpha
        for (std::size_t x = 0; x < width; ++x, src += 2, dst += 4) {
          dst[0] = src[0];
          dst[1] = src[1];
          dst[2] = 255;
          dst[3] = 255;
        }
      }
    }
  });
  return out;
}

const Image& in_filter_layout(const Image& image, Image& converted) {
  if ((image.type != SampleType::u8 && image.type != SampleType::u16) || image.channels == 1 || image.channels == 4)
    return image;
  converted = to_filter_layout(image);
  return converted;
}

Image from_filter_layout(const Image& image, int channels) {
  if (channels == image.channels) return image;
  if (channels > image.channels) throw std::invalid_argument("from_filter_layout cannot add channels");
  Image out = Image::uninitialized(image.width, image.height, channels, image.type);
  const std::size_t width = static_cast<std::size_t>(image.width);
  if (image.type == SampleType::u8 && image.channels == 4 && channels == 3) {
    for_row_ranges(image, [&](int y0, int y1) {
      for (int y = y0; y < y1; ++y) rgba_to_rgb(image.row(y), out.row(y), width);
    });
    return out;
  }
  const std::size_t from = static_cast<std::size_t>(image.channels), to = static_cast<std::size_t>(channels);
  const std::size_t bytes = sample_size(image.type);
  for (std::size_t i = 0; i < image.pixel_count(); ++i)
    std::memcpy(out.data.data() + i * to * bytes, image.data.data() + i * from * bytes, to * bytes);
  return out;
}

}  // namespace clf
