// SPDX-License-Identifier: Apache-2.0
// What the image I/O tests share: a fixture with a fresh folder per test, byte helpers, hand-built .npy files,
// hand-built PNG files, a smooth test image, and checks that an error is one line naming the file.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "clfilters/image_io.hpp"
#include "testing/test_images.hpp"

namespace clf::io_testing {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;
using testing::images_equal;

inline Bytes to_bytes(std::string_view s) {
  return Bytes(s.begin(), s.end());
}

inline void append(Bytes& out, const Bytes& more) {
  out.insert(out.end(), more.begin(), more.end());
}

inline void put_be32(Bytes& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

inline void write_bytes(const fs::path& path, const Bytes& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}
inline Bytes read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

// Each test gets its own empty folder, removed afterwards.
class ImageIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           fmt::format("clf_image_io_{}_{}_{}", info->name(), ::getpid(), std::random_device{}());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  fs::path file(std::string_view name) const { return dir_ / name; }

  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  // Writes `image`, reads it back and expects the same image.
  void expect_round_trip(const Image& image, std::string_view name) {
    write_image(image, file(name));
    EXPECT_TRUE(images_equal(image, read_image(file(name))));
    EXPECT_EQ(listing(), std::vector<std::string>{std::string(name)});
    fs::remove(file(name));
  }

  fs::path dir_;
};

// Runs `action`, expects an ImageIoError whose message is one line naming `path` and containing
// `problem`, and returns the message.
template <class Action>
inline std::string expect_io_error(Action&& action, const fs::path& path, std::string_view problem) {
  try {
    action();
  } catch (const ImageIoError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path.filename().string()), std::string::npos) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    return what;
  }
  ADD_FAILURE() << "expected an ImageIoError about " << path;
  return {};
}

inline std::string expect_read_error(const fs::path& path, std::string_view problem) {
  return expect_io_error([&] { read_image(path); }, path, problem);
}

// Writes `bytes` to `path` and expects reading it to fail as expect_read_error says.
inline void expect_unreadable(const fs::path& path, const Bytes& bytes, std::string_view problem) {
  write_bytes(path, bytes);
  expect_read_error(path, problem);
}

// The first `keep` bytes of `bytes`, for each of `keeps`, are unreadable as expect_unreadable says.
inline void expect_prefixes_unreadable(const fs::path& path, const Bytes& bytes,
                                       std::initializer_list<std::size_t> keeps, std::string_view problem) {
  for (const std::size_t keep : keeps) {
    SCOPED_TRACE(keep);
    expect_unreadable(path, Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(keep)), problem);
  }
}

// A smooth image with random phases and frequencies: JPEG reproduces it closely at high quality.
inline Image smooth_image(int width, int height, int channels, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> phase(0, 6.28), freq(0.3, 1.5);
  Image image(width, height, channels);
  for (int c = 0; c < channels; ++c) {
    const double p = phase(rng), fx = freq(rng) * 6.28 / width, fy = freq(rng) * 6.28 / height;
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        image.row(y)[x * channels + c] =
            static_cast<std::uint8_t>(std::lround(128 + 100 * std::sin(p + fx * x) * std::cos(fy * y)));
      }
    }
  }
  return image;
}

// A .npy file: magic, version, little-endian header length, the header text and the data.
inline Bytes make_npy(std::string header, const Bytes& data, int major = 1) {
  const std::size_t preamble = major == 1 ? 10 : 12;
  header.append(63 - (preamble + header.size()) % 64, ' ');
  header += '\n';
  Bytes bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<std::uint8_t>(major), 0};
  for (std::size_t i = 0; i < preamble - 8; ++i) bytes.push_back(static_cast<std::uint8_t>(header.size() >> (8 * i)));
  append(bytes, to_bytes(header));
  append(bytes, data);
  return bytes;
}

inline std::uint32_t crc32(const Bytes& bytes, std::size_t begin) {
  std::uint32_t crc = 0xFFFFFFFF;
  for (std::size_t i = begin; i < bytes.size(); ++i) {
    crc ^= bytes[i];
    for (int k = 0; k < 8; ++k) crc = crc & 1 ? (crc >> 1) ^ 0xEDB88320 : crc >> 1;
  }
  return ~crc;
}

inline void put_chunk(Bytes& png, std::string_view type, const Bytes& data) {
  put_be32(png, static_cast<std::uint32_t>(data.size()));
  Bytes chunk = to_bytes(type);
  append(chunk, data);
  append(png, chunk);
  put_be32(png, crc32(chunk, 0));
}

// A PNG built without libpng: `rows` are the raw scanlines (filter byte 0 is added here), stored in
// an uncompressed deflate block. `extra` chunks (PLTE, tRNS) go before IDAT.
inline Bytes make_png(std::uint32_t width, std::uint32_t height, int depth, int color_type,
                      const std::vector<Bytes>& rows, const std::vector<std::pair<std::string, Bytes>>& extra = {}) {
  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  Bytes ihdr;
  put_be32(ihdr, width);
  put_be32(ihdr, height);
  append(ihdr, {static_cast<std::uint8_t>(depth), static_cast<std::uint8_t>(color_type), 0, 0, 0});
  put_chunk(png, "IHDR", ihdr);
  for (const auto& [type, data] : extra) put_chunk(png, type, data);
  Bytes raw;
  for (const Bytes& row : rows) {
    raw.push_back(0);
    append(raw, row);
  }
  std::uint32_t a = 1, b = 0;  // Adler-32
  for (const std::uint8_t v : raw) {
    a = (a + v) % 65521;
    b = (b + a) % 65521;
  }
  const auto n = static_cast<std::uint16_t>(raw.size());
  Bytes zlib = {0x78,
                0x01,
                0x01,
                static_cast<std::uint8_t>(n),
                static_cast<std::uint8_t>(n >> 8),
                static_cast<std::uint8_t>(~n),
                static_cast<std::uint8_t>(~n >> 8)};
  append(zlib, raw);
  put_be32(zlib, b << 16 | a);
  put_chunk(png, "IDAT", zlib);
  put_chunk(png, "IEND", {});
  return png;
}

}  // namespace clf::io_testing
