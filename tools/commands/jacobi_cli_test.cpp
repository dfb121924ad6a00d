// SPDX-License-Identifier: Apache-2.0
// `clfilters edges` and `clfilters reconstruct` as a user meets them: a photograph comes back, the .npy
// output equals the library's, bad input gives one line naming the file (exit 1), bad arguments exit 2,
// and no output is left behind on failure.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "clfilters/image_io.hpp"
#include "clfilters/jacobi.hpp"
#include "common/image_compare.hpp"
#include "common/synthetic_image.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {
namespace fs = std::filesystem;

using testing::psnr;

// The grey 8-bit image SPEC's conversion makes of `image`.
Image grey_u8(const Image& image) {
  const Image f = to_grey_float(image);
  Image out(f.width, f.height, 1);
  for (std::size_t i = 0; i < out.pixel_count(); ++i) out.data[i] = std::uint8_t(f.samples<float>()[i]);
  return out;
}

Image crop(const Image& image, int x0, int y0, int w, int h) {
  Image out(w, h, image.channels, image.type);
  for (int y = 0; y < h; ++y)
    std::copy_n(image.row(y0 + y) + std::size_t(x0) * image.channels * sample_size(image.type), out.row_bytes(),
                out.row(y));
  return out;
}

using JacobiCli = testing::CliTest;

TEST_F(JacobiCli, HelpListsTheVariants) {
  for (const char* args : {"edges --help", "reconstruct --help"}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.code, 0) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << args;
  }
  const std::string help = run_cli("reconstruct --help").output;
  for (const auto& v : jacobi_variants()) EXPECT_NE(help.find(v.name), std::string::npos) << v.name;
}

// Edges of a real photograph, then reconstruct with --tolerance 1e-3, brings it back. A 128x128 crop keeps the
// iteration count (it grows with the square of the size) quick on a CPU.
TEST_F(JacobiCli, EdgesThenReconstructBringsAPhotographBack) {
  const Image photo = read_image(CLF_DATA_DIR "/astronaut.jpg");
  ASSERT_GE(photo.width, 128);
  ASSERT_GE(photo.height, 128);
  const Image piece = crop(photo, (photo.width - 128) / 2, (photo.height - 128) / 3, 128, 128);
  const std::string in = path("photo.png"), edges = path("e.npy"), back = path("back.png");
  write_image(piece, in);
  CliResult r = run_cli(fmt::format("edges '{}' '{}'", in, edges));
  ASSERT_EQ(r.code, 0) << r.output;
  const Image e = read_image(edges);
  EXPECT_EQ(e.type, SampleType::f32);
  EXPECT_TRUE(testing::images_equal(jacobi_edges_reference(piece), e));

  r = run_cli(fmt::format("reconstruct '{}' '{}' --tolerance 1e-3", edges, back));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("iterations"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("converged"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ms"), std::string::npos) << r.output;
  const Image rebuilt = read_image(back);
  ASSERT_EQ(rebuilt.channels, 1);
  const double db = psnr(grey_u8(piece), rebuilt);
  EXPECT_GT(db, 35.0) << r.output;
}

TEST_F(JacobiCli, NpyOutputEqualsTheLibraryAndTimeIsPrinted) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image edges = testing::random_image(37, 23, 1, SampleType::f32, seed);
  const Image initial = testing::random_image(37, 23, 1, SampleType::f32, seed + 1);
  write_image(edges, path("e.npy"));
  write_image(initial, path("init.npy"));
  Context ctx;
  for (const auto& v : jacobi_variants()) {
    if (jacobi_unsupported(ctx.info(), v.name, 37, 23)) continue;
    SCOPED_TRACE(v.name);
    const CliResult r = run_cli(fmt::format("reconstruct '{}' '{}' --iterations 17 --initial '{}' --variant {} --time",
                                            path("e.npy"), path("out.npy"), path("init.npy"), v.name));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("17 iterations"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("kernel"), std::string::npos) << r.output;
    JacobiParams p;
    p.iterations = 17;
    const Image expected = jacobi_reconstruct(ctx, edges, p, v.name, initial).image;
    EXPECT_TRUE(testing::images_equal(expected, read_image(path("out.npy"))));
  }
}

TEST_F(JacobiCli, BadInputIsOneLineNamingTheFile) {
  const auto seed = testing::fresh_seed();
  const std::string out = path("out.npy");
  // Not float32.
  write_image(testing::random_image(16, 9, 1, SampleType::u8, seed), path("u8.npy"));
  // Three-dimensional (H x W x 3).
  write_image(testing::random_image(16, 9, 3, SampleType::f32, seed), path("hwc.npy"));
  write_image(testing::random_image(16, 9, 1, SampleType::f32, seed), path("e.npy"));
  write_image(testing::random_image(9, 16, 1, SampleType::f32, seed), path("wrong_size.npy"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fmt::format("reconstruct '{}' '{}'", path("u8.npy"), out), "u8.npy"},
      {fmt::format("reconstruct '{}' '{}'", path("hwc.npy"), out), "hwc.npy"},
      {fmt::format("reconstruct '{}' '{}' --initial '{}'", path("e.npy"), out, path("wrong_size.npy")),
       "wrong_size.npy"},
      {fmt::format("reconstruct '{}' '{}'", path("missing.npy"), out), "missing.npy"},
      {fmt::format("edges '{}' '{}'", path("hwc.npy"), out), "hwc.npy"},
  };
  for (const auto& [args, file] : cases) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.code, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(file), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
  EXPECT_NE(run_cli(cases[0].first).output.find("float32"), std::string::npos);
  EXPECT_NE(run_cli(cases[1].first).output.find("9 x 16 x 3"), std::string::npos);
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(JacobiCli, UsageErrorsExitWithTwo) {
  const std::string e = path("e.npy"), in = path("in.png");
  write_image(testing::random_image(16, 9, 1, SampleType::f32, testing::fresh_seed()), e);
  write_image(testing::random_image(16, 9, 3, SampleType::u8, testing::fresh_seed()), in);
  const std::string out = path("out.png");
  expect_usage_errors(
      {"edges " + in, "edges " + in + " " + out, "reconstruct " + e,
       "reconstruct " + e + " " + out + " --iterations -1", "reconstruct " + e + " " + out + " --iterations x",
       "reconstruct " + e + " " + out + " --tolerance -1", "reconstruct " + e + " " + out + " --check-every 0",
       "reconstruct " + e + " " + out + " --variant fastest", "reconstruct " + e + " " + path("out.tiff"),
       "reconstruct " + e + " " + out + " --device no-such-device"});
  EXPECT_FALSE(fs::exists(out));
}

// The command checks its parameters with jacobi_check_params: the library's message, as a usage error.
TEST_F(JacobiCli, ParameterErrorsAreTheLibrarysMessages) {
  const std::string e = path("e.npy"), out = path("out.npy");
  write_image(testing::random_image(16, 9, 1, SampleType::f32, testing::fresh_seed()), e);
  JacobiParams iterations, tolerance, check_every;
  iterations.iterations = -1;
  tolerance.tolerance = -1;
  check_every.check_every = 0;
  for (const auto& [option, params] : std::vector<std::pair<std::string, JacobiParams>>{
           {"--iterations -1", iterations}, {"--tolerance -1", tolerance}, {"--check-every 0", check_every}}) {
    std::string expected;
    try {
      jacobi_check_params(params);
    } catch (const std::invalid_argument& error) {
      expected = error.what();
    }
    ASSERT_FALSE(expected.empty()) << option;
    const CliResult r = run_cli(fmt::format("reconstruct '{}' '{}' {}", e, out, option));
    EXPECT_EQ(r.code, 2) << option << "\n" << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << option << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(JacobiCli, EightBitOutputIsRoundedAndClamped) {
  // The edge map of an 8-bit image with the image itself as the initial iterate: a fixed point, so the
  // output is the image exactly (rounding back from float).
  const auto seed = testing::fresh_seed();
  const Image img = synthetic_photo(21, 13, 1, seed);
  write_image(img, path("img.png"));
  ASSERT_EQ(run_cli(fmt::format("edges '{}' '{}'", path("img.png"), path("e.npy"))).code, 0);
  const CliResult r = run_cli(fmt::format("reconstruct '{}' '{}' --initial '{}' --iterations 5", path("e.npy"),
                                          path("back.png"), path("img.png")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(testing::images_equal(img, read_image(path("back.png"))));
  // Far outside 0..255 clamps: a large negative edge map drives u above 255.
  Image big(5, 4, 1, SampleType::f32);
  for (auto& v : big.samples<float>()) v = -1e5f;
  write_image(big, path("big.npy"));
  ASSERT_EQ(run_cli(fmt::format("reconstruct '{}' '{}' --iterations 3", path("big.npy"), path("big.png"))).code, 0);
  const Image clamped = read_image(path("big.png"));
  for (auto v : clamped.samples<std::uint8_t>()) EXPECT_EQ(v, 255);
}

}  // namespace
}  // namespace clf
