// SPDX-License-Identifier: Apache-2.0
// Many images through one command (IN... -o DIR): every output matches the reference, a bad file is reported in
// one line while the others are written, and what cannot work is refused before anything is written.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "clfilters/box_blur.hpp"
#include "clfilters/image_io.hpp"
#include "clfilters/sobel.hpp"
#include "common/image_compare.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {
namespace fs = std::filesystem;

class Batch : public testing::CliTest {};

TEST_F(Batch, EveryInputIsFilteredAndABadOneIsReportedAlone) {
  // RGB, grey and RGBA, PNG, PGM and .npy, each its own size: one device setup serves them all.
  const Image rgb = write_random_image(31, 17, 3, "rgb.png");
  const Image grey = write_random_image(13, 40, 1, "grey.pgm");
  const Image rgba = write_random_image(9, 7, 4, "rgba.npy");
  testing::write_file(path("broken.png"), "not an image");
  const CliResult r = run_cli(fmt::format("box-blur {} {} {} {} -o {} -d 4 --border reflect101", path("rgb.png"),
                                          path("broken.png"), path("grey.pgm"), path("rgba.npy"), path("out/new")));
  EXPECT_EQ(r.code, 1) << r.output;
  // The broken file's one line, and the summary line.
  EXPECT_EQ(testing::line_count(r.output), 2) << r.output;
  EXPECT_NE(r.output.find(path("broken.png") + ": "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 of 4 images"), std::string::npos) << r.output;
  const BoxBlurParams params{.diameter = 4, .border = {BorderMode::reflect101, 0}};
  for (const auto& [name, input] : {std::pair{"rgb.png", &rgb}, {"grey.pgm", &grey}, {"rgba.npy", &rgba}}) {
    SCOPED_TRACE(name);
    const Image got = read_image(path("out/new/") + name);
    // RGB runs as RGBA with alpha 255 (SPEC), so its reference is the RGBA one without alpha.
    const Image want = from_filter_layout(box_blur_reference(to_filter_layout(*input), params), input->channels);
    EXPECT_EQ(compare_images(want, got), std::nullopt);
  }
  EXPECT_FALSE(fs::exists(path("out/new/broken.png")));
  EXPECT_EQ(std::distance(fs::directory_iterator(path("out/new")), fs::directory_iterator()), 3);
}

TEST_F(Batch, FormatSetsTheOutputsExtension) {
  const Image a = write_random_image(20, 11, 1, "a.png");
  write_random_image(17, 23, 3, "b.jpg");
  SobelParams gradients;
  gradients.output = SobelOutput::gradients;
  const CliResult r = run_cli(
      fmt::format("sobel {} {} -o {} --output gradients --format npy", path("a.png"), path("b.jpg"), path("grad")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(compare_images(sobel_reference(a, gradients), read_image(path("grad/a.npy"))), std::nullopt);
  // b.jpg's pixels are what JPEG decoding gives back, not `b`: the reference filters the file as read.
  EXPECT_EQ(compare_images(sobel_reference(read_image(path("b.jpg")), gradients), read_image(path("grad/b.npy"))),
            std::nullopt);
}

TEST_F(Batch, WhatCannotWorkIsRefusedBeforeAnythingIsWritten) {
  write_random_image(8, 8, 1, "a.png");
  fs::create_directory(path("other"));
  write_random_image(8, 8, 1, "other/a.png");
  write_random_image(8, 8, 1, "y.png");
  testing::write_file(path("clip.y4m"), "YUV4MPEG2 W8 H8 F25:1 C420jpeg\nFRAME\n" + std::string(96, 'x'));
  const std::string a = path("a.png"), y = path("y.png");
  expect_usage_errors({
      fmt::format("box-blur {}", a),                                           // no OUT
      fmt::format("box-blur {} {} {}", a, y, path("z.png")),                   // several inputs, no -o
      fmt::format("box-blur {} {} --format png", a, path("z.png")),            // --format without -o
      fmt::format("box-blur {} {} -o {}", a, y, dir_.string()),                // would overwrite its input
      fmt::format("box-blur {} {} -o {}", a, path("other/a.png"), path("o")),  // two inputs, one output
      fmt::format("box-blur {} - -o {}", a, path("o")),                        // stdin in a batch
      fmt::format("box-blur {} -o {} --format tiff", a, path("o")),            // unknown format
      fmt::format("sobel {} -o {} --output gradients", a, path("o")),          // gradients need .npy
      fmt::format("epsilon {} -o {}", path("clip.y4m"), path("o")),            // video takes IN OUT
  });
  EXPECT_FALSE(fs::exists(path("o")));
}

}  // namespace
}  // namespace clf
