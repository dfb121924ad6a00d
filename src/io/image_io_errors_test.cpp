// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string_view>

#include "clfilters/image_io.hpp"
#include "io/image_io_internal.hpp"
#include "io/image_io_test_support.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

using namespace io_testing;
using testing::fresh_seed;
using testing::random_image;

TEST_F(ImageIoTest, MissingFile) {
  expect_read_error(file("nope.png"), "cannot open: No such file or directory");
}

TEST_F(ImageIoTest, DirectoryIsNotAnImage) {
  expect_read_error(dir_, "cannot read");
}

TEST_F(ImageIoTest, EmptyFile) {
  expect_unreadable(file("empty.png"), {}, "empty file");
}

TEST_F(ImageIoTest, UnknownFormat) {
  expect_unreadable(file("text.png"), to_bytes("this is not an image\n"),
                    "unsupported image format (not PNG, JPEG, PGM/PPM or NPY)");
  expect_unreadable(file("x.bmp"), to_bytes("BM\x10\x00\x00\x00"), "unsupported image format");
}

TEST_F(ImageIoTest, TruncatedPng) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  write_image(random_image(64, 64, 3, SampleType::u8, seed), file("cut.png"));
  Bytes bytes = read_bytes(file("cut.png"));
  expect_prefixes_unreadable(file("cut.png"), bytes, {bytes.size() / 2, std::size_t{20}, bytes.size() - 1},
                             "truncated PNG");
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
  expect_unreadable(file("sig.png"), bad_signature, "corrupt PNG");
}

TEST_F(ImageIoTest, PngClaimingHugeSizeIsRefusedBeforeAllocating) {
  expect_unreadable(file("huge.png"), make_png(1000000, 1000000, 8, 2, {{1, 2, 3}}),
                    "image too large (1000000 x 1000000 x 3 samples");
  // Within the pixel limit, but far more than 60 bytes of deflate data can expand to.
  expect_unreadable(file("big.png"), make_png(30000, 30000, 8, 0, {{1, 2, 3}}), "truncated PNG (");
  expect_read_error(file("big.png"), "cannot hold a 30000 x 30000 image");
  // Over the pixel limit, 2^30 by default.
  expect_unreadable(file("wide.png"), make_png(40000, 40000, 8, 0, {{1, 2, 3}}),
                    "image too large (40000 x 40000 pixels, the limit is 1073741824");
}

Bytes from_hex(std::string_view hex) {
  Bytes out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(std::uint8_t(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

TEST_F(ImageIoTest, PngWithAHugeAncillaryChunkIsRefusedWithoutAllocatingIt) {
  // 41 bytes: an IHDR of 1x1, then an sCAL chunk declaring 0x7FFFFFFF bytes, which libpng once allocated (2 GiB).
  expect_unreadable(file("scal.png"),
                    from_hex("89504e470d0a1a0a0000000d49484452000000010000000108000000003a7e9b557fffffff7343414c"),
                    "PNG (libpng: ");
}

// The bytes of a small grey JPEG written to `scratch`, its frame header (SOF0) changed to declare width x height.
void jpeg_declaring(const std::string& scratch, int width, int height, Bytes* bytes) {
  write_image(random_image(16, 8, 1, SampleType::u8, fresh_seed()), scratch);
  *bytes = read_bytes(scratch);
  const std::uint8_t sof0[] = {0xFF, 0xC0};
  const auto sof = std::search(bytes->begin(), bytes->end(), std::begin(sof0), std::end(sof0));
  ASSERT_NE(sof, bytes->end());
  // FF C0, length (2), precision (1), height (2), width (2).
  sof[5] = std::uint8_t(height >> 8), sof[6] = std::uint8_t(height & 0xFF);
  sof[7] = std::uint8_t(width >> 8), sof[8] = std::uint8_t(width & 0xFF);
}

TEST_F(ImageIoTest, JpegDeclaringTwoGigapixelsIsRefusedBeforeAllocating) {
  Bytes bytes;
  ASSERT_NO_FATAL_FAILURE(jpeg_declaring(file("small.jpg"), 65500, 32785, &bytes));
  expect_unreadable(file("huge.jpg"), bytes, "image too large (65500 x 32785 pixels");
}

TEST_F(ImageIoTest, JpegTooShortForItsDeclaredSizeIsRefusedBeforeAllocating) {
  // 32768 x 32768 grey: within the pixel limit, but a few hundred bytes cannot code 2^24 blocks of 8x8 (1 GiB).
  Bytes bytes;
  ASSERT_NO_FATAL_FAILURE(jpeg_declaring(file("small.jpg"), 32768, 32768, &bytes));
  expect_unreadable(file("gigapixel.jpg"), bytes, "truncated JPEG (");
  expect_read_error(file("gigapixel.jpg"), "bytes cannot hold a 32768 x 32768 image");
}

// A 1-bit palette PNG with a transparent entry, 32768 x 16384: its 64 MiB of rows deflate to about 65 KB and
// expand to 2 GiB of RGBA. Read under an address-space limit that leaves 512 MiB, it must be refused for its
// expanded size before anything is allocated (its raw rows would fit). RLIMIT_AS is set in a child process; the
// sanitizers reserve terabytes of address space, so the test does not run under them.
TEST_F(ImageIoTest, PaletteImageIsMeasuredExpandedAgainstTheMemoryLimit) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "RLIMIT_AS cannot be set under a sanitizer";
#else
  const std::uint32_t width = 32768, height = 16384;
  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}, ihdr;
  put_be32(ihdr, width);
  put_be32(ihdr, height);
  append(ihdr, {1, 3, 0, 0, 0});  // 1-bit palette
  put_chunk(png, "IHDR", ihdr);
  put_chunk(png, "PLTE", {0, 0, 0, 255, 255, 255});
  put_chunk(png, "tRNS", {0});
  const Bytes rows(std::size_t(height) * (width / 8 + 1), 0);  // filter byte 0 and palette index 0
  uLongf compressed_size = compressBound(rows.size());
  Bytes compressed(compressed_size);
  ASSERT_EQ(compress2(compressed.data(), &compressed_size, rows.data(), rows.size(), 9), Z_OK);
  compressed.resize(compressed_size);
  put_chunk(png, "IDAT", compressed);
  put_chunk(png, "IEND", {});
  write_bytes(file("bomb.png"), png);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::uint64_t mapped_pages = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
      unsigned long long n = 0;
      if (std::fscanf(statm, "%llu", &n) == 1) mapped_pages = n;
      std::fclose(statm);
    }
    const rlimit limit{mapped_pages * 4096 + (std::uint64_t{512} << 20), RLIM_INFINITY};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(3);
    try {
      read_image(file("bomb.png"));
    } catch (const ImageIoError& e) {
      const std::string_view what = e.what();
      const bool expected = what.find("32768 x 16384 x 4 needs 2.0 GiB") != std::string_view::npos &&
                            what.find("bomb.png: image too large for the memory available") != std::string_view::npos;
      if (!expected) std::fprintf(stderr, "%s\n", e.what());
      ::_exit(expected ? 0 : 4);
    } catch (...) {
      ::_exit(5);
    }
    ::_exit(6);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: setrlimit failed, 4: another message, 5: another error, 6: read";
#endif
}

TEST_F(ImageIoTest, ByteCountsAreReadable) {
  EXPECT_EQ(io_detail::readable_bytes(12), "12 bytes");
  EXPECT_EQ(io_detail::readable_bytes(1536), "1.5 KiB");
  EXPECT_EQ(io_detail::readable_bytes(std::uint64_t{1} << 31), "2.0 GiB");
  EXPECT_EQ(io_detail::readable_bytes(std::uint64_t{300} << 20), "300 MiB");
  EXPECT_EQ(io_detail::readable_bytes(UINT64_MAX), "16 EiB");
}

TEST_F(ImageIoTest, PixelAndFileLimitsComeFromTheEnvironment) {
  write_image(random_image(20, 20, 1, SampleType::u8, fresh_seed()), file("small.png"));
  {
    ScopedEnv limit("CLFILTERS_MAX_PIXELS", "399");
    expect_read_error(file("small.png"), "the limit is 399; --max-pixels or CLFILTERS_MAX_PIXELS sets it");
  }
  {
    // A file larger than any image of the limit needs is refused as it is read (a stream without end too).
    ScopedEnv limit("CLFILTERS_MAX_PIXELS", "1");
    expect_unreadable(file("zeros.pgm"), Bytes((1u << 20) + 1000, 0), "file too large (more than 1048592 bytes");
  }
  EXPECT_EQ(max_image_pixels(), std::uint64_t{1} << 30);
  EXPECT_NO_THROW(read_image(file("small.png")));
}

TEST_F(ImageIoTest, TruncatedJpeg) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  write_image(smooth_image(64, 64, 3, seed), file("cut.jpg"));
  const Bytes bytes = read_bytes(file("cut.jpg"));
  expect_prefixes_unreadable(file("cut.jpg"), bytes, {bytes.size() / 2, std::size_t{4}, bytes.size() - 2},
                             "truncated JPEG (libjpeg: Premature end of JPEG file)");
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
  expect_unreadable(file("sof.jpg"), sof, "corrupt or unsupported JPEG (libjpeg:");

  // Garbage straight after the start-of-image marker.
  Bytes garbage = {0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x03, 0x55, 0x55, 0x55, 0x55};
  expect_unreadable(file("garbage.jpg"), garbage, "JPEG (libjpeg:");
}

TEST_F(ImageIoTest, TruncatedPnm) {
  expect_unreadable(file("cut.pgm"), to_bytes("P5\n4 4\n255\n12345"),
                    "truncated PNM (5 bytes of pixel data, expected 16)");
  expect_unreadable(file("cut16.ppm"), to_bytes("P6\n2 2\n65535\n123456789012345678901"),
                    "truncated PNM (21 bytes of pixel data, expected 24)");
  expect_unreadable(file("header.pgm"), to_bytes("P5\n4 # comment"), "truncated PNM header (no height)");
  expect_unreadable(file("magic.pgm"), to_bytes("P5"), "truncated PNM header (no width)");
}

TEST_F(ImageIoTest, PnmBadHeader) {
  expect_unreadable(file("zero.pgm"), to_bytes("P5\n1 1\n0\n\x01"), "bad PNM maxval 0 (must be 1 to 65535)");
  expect_unreadable(file("big.pgm"), to_bytes("P5\n1 1\n65536\n\x01\x02"), "bad PNM maxval 65536");
  expect_unreadable(file("word.pgm"), to_bytes("P5\n1 one\n255\n\x01"), "bad PNM header (height is not a number)");
  expect_unreadable(file("ascii.pgm"), to_bytes("P2\n1 1\n255\n7\n"), "unsupported PNM type P2");
  expect_unreadable(file("huge.pgm"), to_bytes("P5\n4000000000 4000000000\n255\n\x01"), "image too large");
  expect_unreadable(file("empty.pgm"), to_bytes("P5\n0 5\n255\n"), "empty image");
}

// A version 1.0 .npy file: a header of the usual three keys, then `data`.
Bytes npy_file(const std::string& descr, const std::string& shape, bool fortran_order, const Bytes& data) {
  return make_npy(fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", descr,
                              fortran_order ? "True" : "False", shape),
                  data);
}

TEST_F(ImageIoTest, NpyUnsupportedDtype) {
  for (const std::string descr : {"<f8", "<c8", "|i1", "<i4", "|b1"}) {
    write_bytes(file("bad.npy"), npy_file(descr, "(1, 1)", false, Bytes(16, 0)));
    expect_read_error(file("bad.npy"), fmt::format("unsupported .npy dtype '{}'", descr));
  }
  write_bytes(
      file("fields.npy"),
      make_npy("{'descr': [('a', '<f4'), ('b', '<i2')], 'fortran_order': False, 'shape': (1, 1), }", Bytes(16, 0)));
  expect_read_error(file("fields.npy"), "unsupported .npy dtype");
}

TEST_F(ImageIoTest, NpyFortranOrder) {
  expect_unreadable(file("f.npy"), npy_file("<f4", "(2, 2)", true, Bytes(16, 0)), "Fortran-order");
}

TEST_F(ImageIoTest, NpyHeaderClaimsMoreDataThanPresent) {
  expect_unreadable(file("short.npy"), npy_file("<i2", "(4, 5, 3)", false, Bytes(100, 1)),
                    "truncated .npy (100 bytes of data, expected 120 for shape (4, 5, 3))");
  expect_unreadable(file("huge.npy"), npy_file("<f4", "(100000, 100000, 3)", false, Bytes(4, 1)), "image too large");
  Bytes cut = npy_file("<f4", "(1, 1)", false, Bytes(4, 1));
  cut.resize(40);
  expect_unreadable(file("cut_header.npy"), cut, "truncated .npy header");
}

TEST_F(ImageIoTest, NpyBadHeader) {
  write_bytes(file("shape.npy"), npy_file("<f4", "(2, 2, 2, 2)", false, Bytes(64, 0)));
  expect_read_error(file("shape.npy"), "unsupported .npy shape (2, 2, 2, 2)");
  expect_unreadable(file("vector.npy"), npy_file("<f4", "(4,)", false, Bytes(16, 0)), "unsupported .npy shape (4)");
  expect_unreadable(file("junk.npy"),
                    make_npy("{'descr': '<f4', 'fortran_order': maybe, 'shape': (1, 1)}", Bytes(4, 0)),
                    "malformed .npy header");
  expect_unreadable(file("nokey.npy"), make_npy("{'descr': '<f4', 'shape': (1, 1)}", Bytes(4, 0)),
                    "malformed .npy header");
  expect_unreadable(file("v9.npy"), make_npy("{}", {}, 9), "unsupported .npy version 9.0");
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

TEST_F(ImageIoTest, PngCompressionOutOfRange) {
  const Image image = smooth_image(8, 8, 3, fresh_seed());
  for (const int level : {-1, 10, 100}) {
    expect_io_error([&] { write_image(image, file("c.png"), {.png_compression = level}); }, file("c.png"),
                    fmt::format("PNG compression must be 0 to 9, not {}", level));
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
