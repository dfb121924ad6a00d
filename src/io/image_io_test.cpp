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

#include "testing/test_images.hpp"

namespace clf {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;
using testing::fresh_seed;
using testing::images_equal;
using testing::random_image;

Bytes to_bytes(std::string_view s) {
  return Bytes(s.begin(), s.end());
}

void append(Bytes& out, const Bytes& more) {
  out.insert(out.end(), more.begin(), more.end());
}

void put_be32(Bytes& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
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

  static void write_bytes(const fs::path& path, const Bytes& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  static Bytes read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), {});
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
std::string expect_io_error(Action&& action, const fs::path& path, std::string_view problem) {
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

std::string expect_read_error(const fs::path& path, std::string_view problem) {
  return expect_io_error([&] { read_image(path); }, path, problem);
}

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

// A smooth image with random phases and frequencies: JPEG reproduces it closely at high quality.
Image smooth_image(int width, int height, int channels, std::uint64_t seed) {
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
  append(expected, image.data);
  EXPECT_EQ(read_bytes(file("rgb.ppm")), expected);
}

// A .npy file: magic, version, little-endian header length, the header text and the data.
Bytes make_npy(std::string header, const Bytes& data, int major = 1) {
  const std::size_t preamble = major == 1 ? 10 : 12;
  header.append(63 - (preamble + header.size()) % 64, ' ');
  header += '\n';
  Bytes bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<std::uint8_t>(major), 0};
  for (std::size_t i = 0; i < preamble - 8; ++i) bytes.push_back(static_cast<std::uint8_t>(header.size() >> (8 * i)));
  append(bytes, to_bytes(header));
  append(bytes, data);
  return bytes;
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

std::uint32_t crc32(const Bytes& bytes, std::size_t begin) {
  std::uint32_t crc = 0xFFFFFFFF;
  for (std::size_t i = begin; i < bytes.size(); ++i) {
    crc ^= bytes[i];
    for (int k = 0; k < 8; ++k) crc = crc & 1 ? (crc >> 1) ^ 0xEDB88320 : crc >> 1;
  }
  return ~crc;
}

void put_chunk(Bytes& png, std::string_view type, const Bytes& data) {
  put_be32(png, static_cast<std::uint32_t>(data.size()));
  Bytes chunk = to_bytes(type);
  append(chunk, data);
  append(png, chunk);
  put_be32(png, crc32(chunk, 0));
}

// A PNG built without libpng: `rows` are the raw scanlines (filter byte 0 is added here), stored in
// an uncompressed deflate block. `extra` chunks (PLTE, tRNS) go before IDAT.
Bytes make_png(std::uint32_t width, std::uint32_t height, int depth, int color_type, const std::vector<Bytes>& rows,
               const std::vector<std::pair<std::string, Bytes>>& extra = {}) {
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

TEST_F(ImageIoTest, MissingFile) {
  expect_read_error(file("nope.png"), "cannot open: No such file or directory");
}

TEST_F(ImageIoTest, DirectoryIsNotAnImage) {
  expect_read_error(dir_, "cannot read");
}

TEST_F(ImageIoTest, EmptyFile) {
  write_bytes(file("empty.png"), {});
  expect_read_error(file("empty.png"), "empty file");
}

TEST_F(ImageIoTest, UnknownFormat) {
  write_bytes(file("text.png"), to_bytes("this is not an image\n"));
  expect_read_error(file("text.png"), "unsupported image format (not PNG, JPEG, PGM/PPM or NPY)");
  write_bytes(file("x.bmp"), to_bytes("BM\x10\x00\x00\x00"));
  expect_read_error(file("x.bmp"), "unsupported image format");
}

TEST_F(ImageIoTest, TruncatedPng) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  write_image(random_image(64, 64, 3, SampleType::u8, seed), file("cut.png"));
  Bytes bytes = read_bytes(file("cut.png"));
  for (const std::size_t keep : {bytes.size() / 2, std::size_t{20}, bytes.size() - 1}) {
    SCOPED_TRACE(keep);
    write_bytes(file("cut.png"), Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(keep)));
    expect_read_error(file("cut.png"), "truncated PNG");
  }
}

TEST_F(ImageIoTest, CorruptPng) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  write_image(random_image(32, 32, 1, SampleType::u8, seed), file("bad.png"));
  Bytes bytes = read_bytes(file("bad.png"));
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::size_t idat = text.find("IDAT");
  ASSERT_NE(idat, std::string_view::npos);
  bytes[idat + 40] ^= 0x55;  // inside the compressed data: the CRC no longer matches
  write_bytes(file("bad.png"), bytes);
  // libpng notices either the zlib checksum or the chunk CRC, whichever it reaches first.
  expect_read_error(file("bad.png"), "corrupt PNG (libpng: IDAT: ");

  // A bad signature after the first four bytes.
  Bytes bad_signature = read_bytes(file("bad.png"));
  bad_signature[5] = 'X';
  write_bytes(file("sig.png"), bad_signature);
  expect_read_error(file("sig.png"), "corrupt PNG");
}

TEST_F(ImageIoTest, PngClaimingHugeSizeIsRefusedBeforeAllocating) {
  write_bytes(file("huge.png"), make_png(1000000, 1000000, 8, 2, {{1, 2, 3}}));
  expect_read_error(file("huge.png"), "image too large (1000000 x 1000000 x 3 samples");
  // Within the sample limit, but far more than 60 bytes of deflate data can expand to.
  write_bytes(file("big.png"), make_png(40000, 40000, 8, 0, {{1, 2, 3}}));
  expect_read_error(file("big.png"), "truncated PNG (");
  expect_read_error(file("big.png"), "cannot hold a 40000 x 40000 image");
}

TEST_F(ImageIoTest, TruncatedJpeg) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  write_image(smooth_image(64, 64, 3, seed), file("cut.jpg"));
  const Bytes bytes = read_bytes(file("cut.jpg"));
  for (const std::size_t keep : {bytes.size() / 2, std::size_t{4}, bytes.size() - 2}) {
    SCOPED_TRACE(keep);
    write_bytes(file("cut.jpg"), Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(keep)));
    expect_read_error(file("cut.jpg"), "truncated JPEG (libjpeg: Premature end of JPEG file)");
  }
}

TEST_F(ImageIoTest, CorruptJpegHeader) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  write_image(smooth_image(32, 16, 1, seed), file("good.jpg"));
  const Bytes good = read_bytes(file("good.jpg"));
  // Zero the frame size in the SOF0 marker (FF C0, length, precision, height, width).
  Bytes sof = good;
  std::size_t i = 2;
  while (i + 1 < sof.size() && !(sof[i] == 0xFF && sof[i + 1] == 0xC0)) ++i;
  ASSERT_LT(i + 9, sof.size());
  std::fill(sof.begin() + static_cast<std::ptrdiff_t>(i) + 5, sof.begin() + static_cast<std::ptrdiff_t>(i) + 9, 0);
  write_bytes(file("sof.jpg"), sof);
  expect_read_error(file("sof.jpg"), "corrupt or unsupported JPEG (libjpeg:");

  // Garbage straight after the start-of-image marker.
  Bytes garbage = {0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x03, 0x55, 0x55, 0x55, 0x55};
  write_bytes(file("garbage.jpg"), garbage);
  expect_read_error(file("garbage.jpg"), "JPEG (libjpeg:");
}

TEST_F(ImageIoTest, TruncatedPnm) {
  write_bytes(file("cut.pgm"), to_bytes("P5\n4 4\n255\n12345"));
  expect_read_error(file("cut.pgm"), "truncated PNM (5 bytes of pixel data, expected 16)");
  write_bytes(file("cut16.ppm"), to_bytes("P6\n2 2\n65535\n123456789012345678901"));
  expect_read_error(file("cut16.ppm"), "truncated PNM (21 bytes of pixel data, expected 24)");
  write_bytes(file("header.pgm"), to_bytes("P5\n4 # comment"));
  expect_read_error(file("header.pgm"), "truncated PNM header (no height)");
  write_bytes(file("magic.pgm"), to_bytes("P5"));
  expect_read_error(file("magic.pgm"), "truncated PNM header (no width)");
}

TEST_F(ImageIoTest, PnmBadHeader) {
  write_bytes(file("zero.pgm"), to_bytes("P5\n1 1\n0\n\x01"));
  expect_read_error(file("zero.pgm"), "bad PNM maxval 0 (must be 1 to 65535)");
  write_bytes(file("big.pgm"), to_bytes("P5\n1 1\n65536\n\x01\x02"));
  expect_read_error(file("big.pgm"), "bad PNM maxval 65536");
  write_bytes(file("word.pgm"), to_bytes("P5\n1 one\n255\n\x01"));
  expect_read_error(file("word.pgm"), "bad PNM header (height is not a number)");
  write_bytes(file("ascii.pgm"), to_bytes("P2\n1 1\n255\n7\n"));
  expect_read_error(file("ascii.pgm"), "unsupported PNM type P2");
  write_bytes(file("huge.pgm"), to_bytes("P5\n4000000000 4000000000\n255\n\x01"));
  expect_read_error(file("huge.pgm"), "image too large");
  write_bytes(file("empty.pgm"), to_bytes("P5\n0 5\n255\n"));
  expect_read_error(file("empty.pgm"), "empty image");
}

TEST_F(ImageIoTest, NpyUnsupportedDtype) {
  for (const std::string descr : {"<f8", "<c8", "|i1", "<i4", "|b1"}) {
    write_bytes(
        file("bad.npy"),
        make_npy(fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': (1, 1), }}", descr), Bytes(16, 0)));
    expect_read_error(file("bad.npy"), fmt::format("unsupported .npy dtype '{}'", descr));
  }
  write_bytes(
      file("fields.npy"),
      make_npy("{'descr': [('a', '<f4'), ('b', '<i2')], 'fortran_order': False, 'shape': (1, 1), }", Bytes(16, 0)));
  expect_read_error(file("fields.npy"), "unsupported .npy dtype");
}

TEST_F(ImageIoTest, NpyFortranOrder) {
  write_bytes(file("f.npy"), make_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", Bytes(16, 0)));
  expect_read_error(file("f.npy"), "Fortran-order");
}

TEST_F(ImageIoTest, NpyHeaderClaimsMoreDataThanPresent) {
  write_bytes(file("short.npy"),
              make_npy("{'descr': '<i2', 'fortran_order': False, 'shape': (4, 5, 3), }", Bytes(100, 1)));
  expect_read_error(file("short.npy"), "truncated .npy (100 bytes of data, expected 120 for shape (4, 5, 3))");
  write_bytes(file("huge.npy"),
              make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000, 3), }", Bytes(4, 1)));
  expect_read_error(file("huge.npy"), "image too large");
  Bytes cut = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }", Bytes(4, 1));
  cut.resize(40);
  write_bytes(file("cut_header.npy"), cut);
  expect_read_error(file("cut_header.npy"), "truncated .npy header");
}

TEST_F(ImageIoTest, NpyBadHeader) {
  write_bytes(file("shape.npy"),
              make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 2, 2), }", Bytes(64, 0)));
  expect_read_error(file("shape.npy"), "unsupported .npy shape (2, 2, 2, 2)");
  write_bytes(file("vector.npy"), make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", Bytes(16, 0)));
  expect_read_error(file("vector.npy"), "unsupported .npy shape (4)");
  write_bytes(file("junk.npy"), make_npy("{'descr': '<f4', 'fortran_order': maybe, 'shape': (1, 1)}", Bytes(4, 0)));
  expect_read_error(file("junk.npy"), "malformed .npy header");
  write_bytes(file("nokey.npy"), make_npy("{'descr': '<f4', 'shape': (1, 1)}", Bytes(4, 0)));
  expect_read_error(file("nokey.npy"), "malformed .npy header");
  write_bytes(file("v9.npy"), make_npy("{}", {}, 9));
  expect_read_error(file("v9.npy"), "unsupported .npy version 9.0");
}

// ---------------------------------------------------------------------------------------------
// Writing: unsupported combinations and atomic output.

TEST_F(ImageIoTest, WritingUnsupportedCombinationsLeavesNothing) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  const struct {
    Image image;
    const char* name;
    const char* problem;
  } cases[] = {
      {random_image(4, 4, 1, SampleType::f32, seed), "f.png", "PNG cannot hold a 1-channel float32 image"},
      {random_image(4, 4, 3, SampleType::i16, seed), "i.png", "PNG cannot hold a 3-channel int16 image"},
      {random_image(4, 4, 5, SampleType::u8, seed), "five.png", "PNG cannot hold a 5-channel uint8 image"},
      {random_image(4, 4, 4, SampleType::u8, seed), "rgba.jpg", "JPEG cannot hold a 4-channel uint8 image"},
      {random_image(4, 4, 1, SampleType::u16, seed), "wide.jpeg", "JPEG cannot hold a 1-channel uint16 image"},
      {random_image(4, 4, 4, SampleType::u8, seed), "rgba.ppm", "PGM/PPM cannot hold a 4-channel uint8 image"},
      {random_image(4, 4, 1, SampleType::f32, seed), "f.pgm", "PGM/PPM cannot hold a 1-channel float32 image"},
      {random_image(4, 4, 3, SampleType::u8, seed), "x.bmp", "unknown image file extension '.bmp'"},
      {random_image(4, 4, 3, SampleType::u8, seed), "noext", "no file extension"},
      {Image(), "empty.npy", "cannot write an empty image"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    expect_io_error([&] { write_image(c.image, file(c.name)); }, file(c.name), c.problem);
    EXPECT_TRUE(listing().empty());
  }
}

TEST_F(ImageIoTest, JpegQualityOutOfRange) {
  const Image image = smooth_image(8, 8, 3, fresh_seed());
  for (const int quality : {0, 101, -5}) {
    expect_io_error([&] { write_image(image, file("q.jpg"), {.jpeg_quality = quality}); }, file("q.jpg"),
                    "JPEG quality must be 1 to 100");
  }
  EXPECT_TRUE(listing().empty());
}

TEST_F(ImageIoTest, WritingIntoMissingFolderThrowsAndLeavesNothing) {
  const fs::path target = file("no_such_folder") / "out.png";
  const Image image = random_image(3, 3, 3, SampleType::u8, fresh_seed());
  expect_io_error([&] { write_image(image, target); }, target, "No such file or directory");
  expect_io_error([&] { write_file_atomically(target, "abc", 3); }, target, "cannot create a temporary file");
  EXPECT_TRUE(listing().empty());
}

TEST_F(ImageIoTest, FailedWriteLeavesExistingFileUntouched) {
  const Bytes original = to_bytes("precious old contents");
  write_bytes(file("out.png"), original);
  expect_io_error([&] { write_image(random_image(4, 4, 1, SampleType::f32, fresh_seed()), file("out.png")); },
                  file("out.png"), "PNG cannot hold");
  EXPECT_EQ(read_bytes(file("out.png")), original);
  EXPECT_EQ(listing(), std::vector<std::string>{"out.png"});

  // Replacing a folder fails at the rename: the temporary file must be gone too.
  fs::create_directory(file("folder.npy"));
  fs::create_directory(file("folder.npy") / "inside");
  expect_io_error([&] { write_image(random_image(4, 4, 1, SampleType::f32, fresh_seed()), file("folder.npy")); },
                  file("folder.npy"), "cannot replace");
  EXPECT_EQ(listing(), (std::vector<std::string>{"folder.npy", "out.png"}));
}

TEST_F(ImageIoTest, SuccessfulWriteReplacesTargetWithoutLeftovers) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  write_bytes(file("out.pgm"), to_bytes("old"));
  const Image image = random_image(9, 7, 1, SampleType::u8, seed);
  write_image(image, file("out.pgm"));
  EXPECT_TRUE(images_equal(image, read_image(file("out.pgm"))));
  EXPECT_EQ(listing(), std::vector<std::string>{"out.pgm"});

  const std::string text = "any bytes at all";
  write_file_atomically(file("blob.bin"), text.data(), text.size());
  EXPECT_EQ(read_bytes(file("blob.bin")), to_bytes(text));
  write_file_atomically(file("nothing.bin"), nullptr, 0);
  EXPECT_EQ(fs::file_size(file("nothing.bin")), 0u);
  EXPECT_EQ(listing(), (std::vector<std::string>{"blob.bin", "nothing.bin", "out.pgm"}));
}

TEST_F(ImageIoTest, WrittenFileHasUsualPermissions) {
  const mode_t old_mask = ::umask(022);
  write_file_atomically(file("perm.bin"), "x", 1);
  ::umask(old_mask);
  struct stat st {};
  ASSERT_EQ(::stat(file("perm.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);  // not mkstemp's 0600
}

}  // namespace
}  // namespace clf
