// SPDX-License-Identifier: Apache-2.0
// `clfilters sobel` as a user meets it: a real photograph's edges, gradients to .npy, every variant
// through the command line, and the usage errors (exit 2) and bad inputs (exit 1).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "clfilters/image_io.hpp"
#include "clfilters/sobel.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {
namespace fs = std::filesystem;

using SobelCli = testing::CliTest;

const std::string kPhoto = CLF_DATA_DIR "/astronaut.jpg";

TEST_F(SobelCli, PhotographShowsItsEdges) {
  const std::string out = path("edges.png");
  const CliResult r = run_cli(fmt::format("sobel '{}' '{}' --time", kPhoto, out));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("kernel"), std::string::npos) << r.output;
  const Image photo = read_image(kPhoto);
  const Image edges = read_image(out);
  ASSERT_EQ(edges.channels, 1);
  ASSERT_EQ(edges.width, photo.width);
  ASSERT_EQ(edges.height, photo.height);
  EXPECT_TRUE(testing::images_equal(sobel_reference(photo, {}), edges));
  // An edge map, not a blank or saturated one: a minority of pixels are strong edges, most are weak.
  std::size_t strong = 0, weak = 0;
  for (auto v : edges.samples<std::uint8_t>()) {
    strong += v >= 100;
    weak += v < 30;
  }
  const double n = double(edges.pixel_count());
  EXPECT_GT(strong / n, 0.02) << strong;
  EXPECT_LT(strong / n, 0.5) << strong;
  EXPECT_GT(weak / n, 0.3) << weak;
}

TEST_F(SobelCli, GradientsGoToNpyWithEveryVariant) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image input = testing::random_image(37, 21, 3, SampleType::u8, seed);
  write_image(input, path("in.png"));
  const SobelParams params{SobelOutput::gradients, {BorderMode::constant, 40}};
  const Image expected = sobel_reference(input, params);
  for (const auto& v : sobel_variants()) {
    const std::string out = path(v.name + ".npy");
    const CliResult r = run_cli(
        fmt::format("sobel {} {} --output gradients --border constant=40 --variant {}", path("in.png"), out, v.name));
    if (r.code == 2 && v.name == "image") continue;  // no image support on this device
    ASSERT_EQ(r.code, 0) << v.name << "\n" << r.output;
    const Image got = read_image(out);
    EXPECT_EQ(got.type, SampleType::i16);
    EXPECT_EQ(got.channels, 2);
    EXPECT_TRUE(testing::images_equal(expected, got)) << v.name;
  }
}

TEST_F(SobelCli, L1AndMagnitudeOnGreyPgm) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE(fmt::format("seed={}", seed));
  const Image grey = testing::random_image(19, 11, 1, SampleType::u8, seed);
  write_image(grey, path("g.pgm"));
  for (SobelOutput output : {SobelOutput::l1, SobelOutput::magnitude}) {
    const std::string out = path(to_string(output) + ".pgm");
    const CliResult r =
        run_cli(fmt::format("sobel {} {} --output {} --border reflect101", path("g.pgm"), out, to_string(output)));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_TRUE(testing::images_equal(sobel_reference(grey, {output, {BorderMode::reflect101, 0}}), read_image(out)));
  }
}

TEST_F(SobelCli, UsageErrorsExitWithTwoAndWriteNothing) {
  const std::string in = path("in.png");
  write_image(testing::random_image(16, 9, 1, SampleType::u8, testing::fresh_seed()), in);
  expect_usage_errors({"sobel " + in, "sobel " + in + " " + path("g.png") + " --output gradients",
                       "sobel " + in + " " + path("g.pgm") + " --output gradients",
                       "sobel " + in + " " + path("o.png") + " --output l2",
                       "sobel " + in + " " + path("o.png") + " --border wrap",
                       "sobel " + in + " " + path("o.png") + " --variant fast", "sobel " + in + " " + path("o.tiff")});
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);  // only in.png
}

TEST_F(SobelCli, BadInputExitsWithOneAndNamesTheFile) {
  std::ofstream(path("text.png")) << "hello";
  write_image(testing::random_image(4, 4, 1, SampleType::f32, testing::fresh_seed()), path("float.npy"));
  for (const std::string name : {"missing.png", "text.png", "float.npy"}) {
    const CliResult r = run_cli(fmt::format("sobel {} {}", path(name), path("out.png")));
    EXPECT_EQ(r.code, 1) << name << "\n" << r.output;
    EXPECT_NE(r.output.find(name), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(path("out.png")));
}

}  // namespace
}  // namespace clf
