// SPDX-License-Identifier: Apache-2.0
#include "clfilters/image_io.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string_view>

#include "io/image_io_test_support.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using namespace io_testing;
using testing::fresh_seed;
using testing::random_image;

struct Layout {
  int channels;
  SampleType type;
};
constexpr std::pair<int, int> kSizes[] = {{1, 1}, {7, 3}, {33, 17}, {64, 1}, {1, 40}};

std::string describe(int w, int h, int c, SampleType t, std::uint64_t seed) {
  return fmt::format("{}x{}x{} {} seed {}", w, h, c, sample_type_name(t), seed);
}

// ---------------------------------------------------------------------------------------------
// Round trips

TEST_F(ImageIoTest, PngRoundTrip) {
  for (const Layout l : {Layout{1, SampleType::u8},
                         {2, SampleType::u8},
                         {3, SampleType::u8},
                         {4, SampleType::u8},
                         {1, SampleType::u16},
                         {2, SampleType::u16},
                         {3, SampleType::u16},
                         {4, SampleType::u16}}) {
    for (const auto& [w, h] : kSizes) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(describe(w, h, l.channels, l.type, seed));
      expect_round_trip(random_image(w, h, l.channels, l.type, seed), "out.png");
    }
  }
}

TEST_F(ImageIoTest, PngCompressionLevelsStoreTheSamePixels) {
  for (const Layout l : {Layout{3, SampleType::u8}, {4, SampleType::u8}, {1, SampleType::u16}}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(describe(45, 23, l.channels, l.type, seed));
    const Image noisy = random_image(45, 23, l.channels, l.type, seed);
    for (int level = 0; level <= 9; ++level) {
      SCOPED_TRACE(fmt::format("level {}", level));
      write_image(noisy, file("out.png"), {.png_compression = level});
      EXPECT_TRUE(images_equal(noisy, read_image(file("out.png"))));
    }
  }
  // The levels are what they say: 0 stores, 1 and 9 compress, 9 at least as well as 1.
  const Image smooth = smooth_image(96, 64, 3, fresh_seed());
  std::uintmax_t size[10] = {};
  for (const int level : {0, 1, 9}) {
    write_image(smooth, file(fmt::format("l{}.png", level)), {.png_compression = level});
    size[level] = fs::file_size(file(fmt::format("l{}.png", level)));
    EXPECT_TRUE(images_equal(smooth, read_image(file(fmt::format("l{}.png", level)))));
  }
  EXPECT_GT(size[0], smooth.byte_size());  // stored: every byte plus the filter bytes and headers
  EXPECT_LT(size[1], size[0]);
  EXPECT_LE(size[9], size[1]);
}

TEST_F(ImageIoTest, PnmRoundTrip) {
  for (const Layout l : {Layout{1, SampleType::u8}, {3, SampleType::u8}, {1, SampleType::u16}, {3, SampleType::u16}}) {
    for (const auto& [w, h] : kSizes) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(describe(w, h, l.channels, l.type, seed));
      expect_round_trip(random_image(w, h, l.channels, l.type, seed), l.channels == 1 ? "out.pgm" : "out.ppm");
      expect_round_trip(random_image(w, h, l.channels, l.type, seed), "out.pnm");
    }
  }
}

TEST_F(ImageIoTest, NpyRoundTrip) {
  for (const SampleType t : {SampleType::u8, SampleType::i16, SampleType::u16, SampleType::f32}) {
    for (const int c : {1, 2, 3, 4, 5}) {
      for (const auto& [w, h] : kSizes) {
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(describe(w, h, c, t, seed));
        expect_round_trip(random_image(w, h, c, t, seed), "out.npy");
      }
    }
  }
}

TEST_F(ImageIoTest, ExtensionIsCaseInsensitive) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  expect_round_trip(random_image(5, 4, 3, SampleType::u8, seed), "OUT.PNG");
  expect_round_trip(random_image(5, 4, 1, SampleType::u16, seed), "out.Pgm");
  expect_round_trip(random_image(5, 4, 2, SampleType::f32, seed), "out.NPY");
  EXPECT_EQ(format_from_extension("a.JPEG"), ImageFormat::jpeg);
  EXPECT_EQ(format_from_extension("dir.d/a.Jpg"), ImageFormat::jpeg);
}

TEST_F(ImageIoTest, ReadDetectsFormatFromContentNotName) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  const Image image = random_image(6, 5, 3, SampleType::u8, seed);
  write_image(image, file("x.png"));
  fs::rename(file("x.png"), file("actually_png.npy"));
  EXPECT_TRUE(images_equal(image, read_image(file("actually_png.npy"))));
}

TEST_F(ImageIoTest, JpegRoundTripIsCloseAndQualityControlsSize) {
  struct Differences {
    double mean = 0;
    int largest = 0;
    std::size_t over_40 = 0;
  };
  const auto differences = [](const Image& a, const Image& b) {
    EXPECT_TRUE(images_equal(a, b, 255.0));  // same shape and type
    Differences d;
    for (std::size_t i = 0; i < a.data.size(); ++i) {
      const int diff = std::abs(int{a.data[i]} - int{b.data[i]});
      d.mean += diff;
      d.largest = std::max(d.largest, diff);
      d.over_40 += diff > 40;
    }
    d.mean /= static_cast<double>(a.data.size());
    return d;
  };
  for (const int channels : {1, 3}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(describe(80, 56, channels, SampleType::u8, seed));
    const Image image = smooth_image(80, 56, channels, seed);
    write_image(image, file("best.jpg"), {.jpeg_quality = 100});
    write_image(image, file("poor.jpeg"), {.jpeg_quality = 20});
    const Differences best = differences(image, read_image(file("best.jpg")));
    EXPECT_LT(best.mean, 1.0);
    EXPECT_LE(best.largest, 6);
    EXPECT_LT(fs::file_size(file("poor.jpeg")), fs::file_size(file("best.jpg")));
    // Low quality is still the same picture, only coarser: close on average, and far off only at a few
    // samples. A largest difference is no sound bound here: at quality 20 a colour image's 4:2:0 chroma
    // can miss a sharp change of the random picture by ~50 levels at a sample or two.
    const Differences poor = differences(image, read_image(file("poor.jpeg")));
    EXPECT_LT(poor.mean, 10.0);                        // 3000 seeds: at most 6.4, about 5 on average
    EXPECT_LE(poor.over_40, image.data.size() / 100);  // 3000 seeds: at most 6 of 13440
  }
}

// ---------------------------------------------------------------------------------------------
// Independent checks: files built byte by byte here, and written files inspected byte by byte.

TEST_F(ImageIoTest, ReadsHandBuiltP5WithComments) {
  Bytes bytes = to_bytes("P5\n# made by hand\n3 #width\n 2\n# maxval follows\n255\n");
  append(bytes, {0, 1, 2, 100, 200, 255});
  write_bytes(file("hand.pgm"), bytes);
  Image expected(3, 2, 1, SampleType::u8);
  expected.data = {0, 1, 2, 100, 200, 255};
  EXPECT_TRUE(images_equal(expected, read_image(file("hand.pgm"))));
}

TEST_F(ImageIoTest, ReadsHandBuilt16BitP6AsBigEndian) {
  Bytes bytes = to_bytes("P6 2 1 1000\n");
  append(bytes, {0x01, 0x02, 0x03, 0xE8, 0x00, 0x07, 0x00, 0x00, 0x02, 0x00, 0x00, 0xFF});
  write_bytes(file("hand.ppm"), bytes);
  Image expected(2, 1, 3, SampleType::u16);
  const std::uint16_t values[] = {0x0102, 1000, 7, 0, 0x0200, 0x00FF};
  std::memcpy(expected.data.data(), values, sizeof values);
  EXPECT_TRUE(images_equal(expected, read_image(file("hand.ppm"))));
}

TEST_F(ImageIoTest, Writes16BitPgmBigEndian) {
  Image image(3, 1, 1, SampleType::u16);
  const std::uint16_t values[] = {0x0102, 0xA0B0, 0x00FF};
  std::memcpy(image.data.data(), values, sizeof values);
  write_image(image, file("wide.pgm"));
  Bytes expected = to_bytes("P5\n3 1\n65535\n");
  append(expected, {0x01, 0x02, 0xA0, 0xB0, 0x00, 0xFF});
  EXPECT_EQ(read_bytes(file("wide.pgm")), expected);
}

TEST_F(ImageIoTest, Writes8BitPpm) {
  Image image(2, 1, 3, SampleType::u8);
  image.data = {1, 2, 3, 250, 251, 252};
  write_image(image, file("rgb.ppm"));
  Bytes expected = to_bytes("P6\n2 1\n255\n");
  append(expected, Bytes(image.data.begin(), image.data.end()));
  EXPECT_EQ(read_bytes(file("rgb.ppm")), expected);
}

TEST_F(ImageIoTest, ReadsHandBuiltNpyLittleEndianInt16) {
  // (2, 3) int16: -2, -1, 0, 1, 300, -32768
  write_bytes(file("le.npy"), make_npy("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }",
                                       {0xFE, 0xFF, 0xFF, 0xFF, 0, 0, 1, 0, 0x2C, 0x01, 0x00, 0x80}));
  Image expected(3, 2, 1, SampleType::i16);
  const std::int16_t values[] = {-2, -1, 0, 1, 300, -32768};
  std::memcpy(expected.data.data(), values, sizeof values);
  EXPECT_TRUE(images_equal(expected, read_image(file("le.npy"))));
}

TEST_F(ImageIoTest, ReadsHandBuiltNpyBigEndianFloat32Version2) {
  // (1, 2, 2) float32, big-endian: 1.0, -2.5, 0.0, 1024.0; version 2.0 header, double quotes.
  write_bytes(file("be.npy"), make_npy(R"({"descr": ">f4", "fortran_order": False, "shape": (1, 2, 2)})",
                                       {0x3F, 0x80, 0, 0, 0xC0, 0x20, 0, 0, 0, 0, 0, 0, 0x44, 0x80, 0, 0}, 2));
  Image expected(2, 1, 2, SampleType::f32);
  const float values[] = {1.0f, -2.5f, 0.0f, 1024.0f};
  std::memcpy(expected.data.data(), values, sizeof values);
  EXPECT_TRUE(images_equal(expected, read_image(file("be.npy"))));
}

TEST_F(ImageIoTest, ReadsHandBuiltNpyUint8WithTrailingCommaShape) {
  write_bytes(file("u8.npy"), make_npy("{'shape': (1, 3,), 'fortran_order': False, 'descr': '|u1'}", {9, 8, 7}));
  Image expected(3, 1, 1, SampleType::u8);
  expected.data = {9, 8, 7};
  EXPECT_TRUE(images_equal(expected, read_image(file("u8.npy"))));
}

TEST_F(ImageIoTest, WrittenNpyHeaderIsWhatNumPyExpects) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  const Image image = random_image(33, 17, 3, SampleType::f32, seed);
  write_image(image, file("f.npy"));
  const Bytes bytes = read_bytes(file("f.npy"));
  ASSERT_GT(bytes.size(), 10u);
  EXPECT_EQ(Bytes(bytes.begin(), bytes.begin() + 8), (Bytes{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}));
  const std::size_t header_size = bytes[8] | bytes[9] << 8;
  const std::string header(bytes.begin() + 10, bytes.begin() + 10 + static_cast<std::ptrdiff_t>(header_size));
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (17, 33, 3)"), std::string::npos) << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ((10 + header_size) % 64, 0u);
  ASSERT_EQ(bytes.size(), 10 + header_size + image.byte_size());
  // Little-endian float32 data, first sample.
  const std::size_t d = 10 + header_size;
  const std::uint32_t first = bytes[d] | bytes[d + 1] << 8 | bytes[d + 2] << 16 | std::uint32_t{bytes[d + 3]} << 24;
  EXPECT_EQ(std::bit_cast<float>(first), image.samples<float>()[0]);

  write_image(random_image(4, 2, 1, SampleType::i16, seed), file("g.npy"));
  const Bytes grey = read_bytes(file("g.npy"));
  const std::string grey_header(grey.begin() + 10, grey.begin() + 10 + (grey[8] | grey[9] << 8));
  EXPECT_NE(grey_header.find("'descr': '<i2'"), std::string::npos) << grey_header;
  EXPECT_NE(grey_header.find("'shape': (2, 4)"), std::string::npos) << grey_header;
}

Image make_image(int width, int height, int channels, SampleType type, const std::vector<double>& values) {
  Image image(width, height, channels, type);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (type == SampleType::u16) {
      image.samples<std::uint16_t>()[i] = static_cast<std::uint16_t>(values[i]);
    } else {
      image.data[i] = static_cast<std::uint8_t>(values[i]);
    }
  }
  return image;
}

TEST_F(ImageIoTest, ReadsHandBuiltPngs) {
  const Bytes palette = {255, 0, 0, 0, 128, 255, 10, 20, 30};
  write_bytes(file("palette.png"), make_png(3, 1, 8, 3, {{1, 0, 2}}, {{"PLTE", palette}}));
  EXPECT_TRUE(images_equal(make_image(3, 1, 3, SampleType::u8, {0, 128, 255, 255, 0, 0, 10, 20, 30}),
                           read_image(file("palette.png"))));

  write_bytes(file("palette_alpha.png"), make_png(3, 1, 8, 3, {{1, 0, 2}}, {{"PLTE", palette}, {"tRNS", {200, 7}}}));
  EXPECT_TRUE(images_equal(make_image(3, 1, 4, SampleType::u8, {0, 128, 255, 7, 255, 0, 0, 200, 10, 20, 30, 255}),
                           read_image(file("palette_alpha.png"))));

  write_bytes(file("grey_alpha.png"), make_png(2, 2, 8, 4, {{1, 2, 3, 4}, {250, 251, 252, 253}}));
  EXPECT_TRUE(images_equal(make_image(2, 2, 2, SampleType::u8, {1, 2, 3, 4, 250, 251, 252, 253}),
                           read_image(file("grey_alpha.png"))));

  write_bytes(file("grey16.png"), make_png(2, 1, 16, 0, {{0x12, 0x34, 0xAB, 0xCD}}));
  EXPECT_TRUE(images_equal(make_image(2, 1, 1, SampleType::u16, {0x1234, 0xABCD}), read_image(file("grey16.png"))));

  write_bytes(file("rgb16.png"), make_png(1, 1, 16, 2, {{0, 1, 2, 3, 0xFF, 0xFE}}));
  EXPECT_TRUE(images_equal(make_image(1, 1, 3, SampleType::u16, {1, 0x0203, 0xFFFE}), read_image(file("rgb16.png"))));

  // 1-bit grey is expanded to 0 and 255.
  write_bytes(file("bits.png"), make_png(10, 1, 1, 0, {{0b10110000, 0b01000000}}));
  EXPECT_TRUE(images_equal(make_image(10, 1, 1, SampleType::u8, {255, 0, 255, 255, 0, 0, 0, 0, 0, 255}),
                           read_image(file("bits.png"))));
}

TEST_F(ImageIoTest, WrittenPngHeaderMatchesImage) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  write_image(random_image(300, 2, 1, SampleType::u16, seed), file("g16.png"));
  const Bytes bytes = read_bytes(file("g16.png"));
  ASSERT_GT(bytes.size(), 33u);
  // Signature, IHDR length 13, "IHDR", width 300, height 2, depth 16, colour type 0 (grey).
  const Bytes expected = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I',
                          'H',  'D', 'R', 0,   0,    1,    44,   0,    0, 0, 2, 16, 0};
  EXPECT_EQ(Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(expected.size())), expected);
}

// ---------------------------------------------------------------------------------------------
// Bad input: each gives one ImageIoError line naming the file.

}  // namespace
}  // namespace clf
