// SPDX-License-Identifier: Apache-2.0
// `clfilters bilateral` as a user meets it: usage errors exit 2, every variant writes what the
// reference computes (within 1), grey and RGB files keep their layout, and a real photograph comes
// out smoother with its edges kept.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "clfilters/bilateral.hpp"
#include "clfilters/image_io.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {
namespace fs = std::filesystem;

using BilateralCli = testing::CliTest;

TEST_F(BilateralCli, HelpListsTheOptionsAndVariants) {
  const CliResult r = run_cli("bilateral --help");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* word : {"--sigma-spatial", "--sigma-range", "--radius", "--window", "disk", "--distance", "l1",
                           "--border", "--variant", "--time", "range_table", "pixels4", "local_image"})
    EXPECT_NE(r.output.find(word), std::string::npos) << word << "\n" << r.output;
}

TEST_F(BilateralCli, BadParametersExitWithTwo) {
  const std::string in = path("in.png");
  write_image(testing::random_image(16, 9, 3, SampleType::u8, testing::fresh_seed()), in);
  const std::string out = path("out.png");
  const std::string io = in + " " + out;
  expect_usage_errors({"bilateral " + in, "bilateral " + io + " --sigma-spatial -1",
                       "bilateral " + io + " --sigma-spatial 0", "bilateral " + io + " --sigma-range -5",
                       "bilateral " + io + " --sigma-range 0", "bilateral " + io + " --sigma-range abc",
                       "bilateral " + io + " --sigma-spatial nan", "bilateral " + io + " --radius 17",
                       "bilateral " + io + " --radius -1", "bilateral " + io + " --radius 2.5",
                       "bilateral " + io + " --border wrap", "bilateral " + io + " --border constant=256",
                       "bilateral " + io + " --variant fastest", "bilateral " + in + " " + path("out.tiff")});
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(BilateralCli, EveryVariantWritesTheReferenceWithinOne) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image input = write_random_image(37, 29, 4);
  const BilateralParams params{2, 40, 5, {BorderMode::constant, 17}};
  const Image expected = bilateral_reference(input, params);
  for (const auto& v : bilateral_variants()) {
    const std::string out = path(v.name + ".png");
    const CliResult r =
        run_cli(fmt::format("bilateral {} {} --sigma-spatial 2 --sigma-range 40 --radius 5 --border "
                            "constant=17 --variant {} --time",
                            path("in.png"), out, v.name));
    if (r.code == 2 && v.name == "local_image" && r.output.find("image support") != std::string::npos) continue;
    ASSERT_EQ(r.code, 0) << v.name << "\n" << r.output;
    EXPECT_NE(r.output.find("kernel"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(out), std::string::npos) << r.output;
    EXPECT_TRUE(testing::images_equal(expected, read_image(out), 1.0)) << v.name;
  }
}

// OpenCV's taps (--window disk --distance l1) through the command line, against the reference with the same
// options (and not the square L2 filter, which shows the options reach the kernels); a bad value is one line.
TEST_F(BilateralCli, WindowAndDistanceOptions) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image input = write_random_image(33, 21, 4);
  const BilateralParams square_l2_params{2, 25, 4, {BorderMode::reflect101, 0}};
  BilateralParams params = square_l2_params;
  params.window = BilateralWindow::disk;
  params.distance = BilateralDistance::l1;
  const Image expected = bilateral_reference(input, params);
  const Image square_l2 = bilateral_reference(input, square_l2_params);
  ASSERT_FALSE(testing::images_equal(expected, square_l2, 1.0));
  for (const char* variant : {"naive", "range_table"}) {
    const std::string out = path(fmt::format("{}.png", variant));
    const CliResult r = run_cli(
        fmt::format("bilateral {} {} --sigma-spatial 2 --sigma-range 25 --radius 4 --border reflect101 --window disk "
                    "--distance l1 --variant {}",
                    path("in.png"), out, variant));
    ASSERT_EQ(r.code, 0) << variant << "\n" << r.output;
    EXPECT_TRUE(testing::images_equal(expected, read_image(out), 1.0)) << variant;
  }

  const std::string out = path("bad.png");
  for (const char* bad : {"--window round", "--distance l3", "--window", "--window disk --distance L1"}) {
    const CliResult r = run_cli(fmt::format("bilateral {} {} {}", path("in.png"), out, bad));
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
    EXPECT_FALSE(fs::exists(out)) << bad;
    EXPECT_FALSE(r.output.empty()) << bad;
  }
  const CliResult round = run_cli(fmt::format("bilateral {} {} --window round", path("in.png"), out));
  EXPECT_EQ(round.output, "clfilters: unknown bilateral window 'round' (expected square or disk)\n") << round.output;
}

TEST_F(BilateralCli, GreyPgmAndRgbJpegKeepTheirLayout) {
  const Image grey = testing::random_image(20, 11, 1, SampleType::u8, testing::fresh_seed());
  write_image(grey, path("g.pgm"));
  const CliResult r = run_cli(fmt::format("bilateral {} {}", path("g.pgm"), path("g.npy")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(testing::images_equal(bilateral_reference(grey, BilateralParams{}), read_image(path("g.npy")), 1.0));

  write_image(testing::random_image(20, 11, 3, SampleType::u8, testing::fresh_seed()), path("c.jpg"));
  ASSERT_EQ(run_cli(fmt::format("bilateral {} {} --radius 2", path("c.jpg"), path("c2.jpg"))).code, 0);
  EXPECT_EQ(read_image(path("c2.jpg")).channels, 3);
}

TEST_F(BilateralCli, MissingInputExitsWithOneAndNamesTheFile) {
  const CliResult r = run_cli(fmt::format("bilateral {} {}", path("missing.png"), path("out.png")));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("missing.png"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("out.png")));
}

// Luma of an RGB image and its gradient magnitude (central differences), for the photograph test.
std::vector<double> gradient_magnitude(const Image& rgb) {
  const int w = rgb.width, h = rgb.height;
  const auto s = rgb.samples<std::uint8_t>();
  auto luma = [&](int x, int y) {
    x = std::clamp(x, 0, w - 1);
    y = std::clamp(y, 0, h - 1);
    const std::size_t i = (std::size_t(y) * w + x) * 3;
    return 0.299 * s[i] + 0.587 * s[i + 1] + 0.114 * s[i + 2];
  };
  std::vector<double> g(std::size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      g[std::size_t(y) * w + x] = std::hypot(luma(x + 1, y) - luma(x - 1, y), luma(x, y + 1) - luma(x, y - 1)) / 2;
  return g;
}

// The command smooths a real photograph while keeping its edges. Where the
// input's gradient is weak (texture, noise) the output's falls clearly; where it is strong (edges) it
// stays close. A Gaussian blur of the same spatial sigma (sigma_range huge) loses much more at edges.
TEST_F(BilateralCli, SmoothsARealPhotographAndKeepsItsEdges) {
  const std::string photo = CLF_DATA_DIR "/astronaut.jpg";
  ASSERT_EQ(run_cli(fmt::format("bilateral {} {}", photo, path("bilateral.png"))).code, 0);
  ASSERT_EQ(run_cli(fmt::format("bilateral {} {} --sigma-range 100000", photo, path("gaussian.png"))).code, 0);
  const auto before = gradient_magnitude(read_image(photo));
  const auto after = gradient_magnitude(read_image(path("bilateral.png")));
  const auto blurred = gradient_magnitude(read_image(path("gaussian.png")));
  double weak_before = 0, weak_after = 0, strong_before = 0, strong_after = 0, strong_blurred = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before[i] < 8) {
      weak_before += before[i];
      weak_after += after[i];
    } else if (before[i] > 40) {
      strong_before += before[i];
      strong_after += after[i];
      strong_blurred += blurred[i];
    }
  }
  const double weak_ratio = weak_after / weak_before, strong_ratio = strong_after / strong_before;
  const double blurred_ratio = strong_blurred / strong_before;
  std::cout << fmt::format("[ photograph ] gradient kept: weak {:.3f}, strong {:.3f} (Gaussian blur: {:.3f})\n",
                           weak_ratio, strong_ratio, blurred_ratio);
  EXPECT_LT(weak_ratio, 0.8);
  EXPECT_GT(strong_ratio, 0.6);
  EXPECT_GT(strong_ratio, blurred_ratio + 0.15);
}

}  // namespace
}  // namespace clf
