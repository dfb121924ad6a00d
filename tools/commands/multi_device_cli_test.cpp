// SPDX-License-Identifier: Apache-2.0
// --device with a list: the test device split into two sub-devices (DEVICE/2) for one image and for a batch (-o DIR),
// against the CPU reference; a bad list item is one line and exit 2. A device smaller than the image
// (CLFILTERS_DEVICE_MEMORY): the filters go through it in bands.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "clfilters/bilateral.hpp"
#include "clfilters/box_blur.hpp"
#include "clfilters/epsilon.hpp"
#include "clfilters/image_io.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/sobel.hpp"
#include "testing/cli_fixture.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf {
namespace {

namespace fs = std::filesystem;

using Cli = testing::CliTest;

// "I/2" for the device the tests run on (I its index), or "" where it does not split in two.
std::string split_test_device() {
  const DeviceHandle device = select_device();
  try {
    split_device(device, 2);
  } catch (const std::invalid_argument&) {
    return "";
  }
  return fmt::format("{}/2", device.info.index_name());
}

TEST_F(Cli, DeviceListSplitsOneImageAndABatch) {
  const std::string devices = split_test_device();
  if (devices.empty()) GTEST_SKIP() << "the test device does not split into two parts";
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image input = write_random_image(61, 47, 4);
  const CliResult one =
      run_cli(fmt::format("box-blur {} {} -d 5 --device {}", path("in.png"), path("out.png"), devices));
  ASSERT_EQ(one.code, 0) << one.output;
  EXPECT_NE(one.output.find("on 2 devices: "), std::string::npos) << one.output;
  EXPECT_TRUE(testing::images_equal(box_blur_reference(input, {5, {}}), read_image(path("out.png"))));

  std::vector<Image> inputs;
  std::string names;
  for (int i = 0; i < 4; ++i) {
    inputs.push_back(testing::random_image(20 + 7 * i, 31 - 5 * i, i % 2 ? 1 : 4, SampleType::u8, seed_ + 1 + i));
    write_image(inputs.back(), path(fmt::format("in{}.png", i)));
    names += fmt::format(" {}", path(fmt::format("in{}.png", i)));
  }
  const EpsilonParams eps{.radius = 2, .threshold = 25, .border = {}};
  const CliResult batch = run_cli(fmt::format("epsilon{} -o {} -r 2 -t 25 --device {}", names, path("out"), devices));
  ASSERT_EQ(batch.code, 0) << batch.output;
  EXPECT_NE(batch.output.find("4 of 4 images"), std::string::npos) << batch.output;
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(testing::images_equal(epsilon_reference(inputs[std::size_t(i)], eps),
                                      read_image(path(fmt::format("out/in{}.png", i)))))
        << "image " << i;
}

TEST_F(Cli, ABadDeviceListItemIsOneLineAndExitTwo) {
  write_random_image(16, 9, 3);
  for (const auto& [list, says] : {std::pair{"0,no-such-device", "device list item 'no-such-device'"},
                                   {"0,0", "device list item '0': device 0:0"},
                                   {"0,,0", "empty item"},
                                   {"0,99", "device list item '99': no device with index 99"}}) {
    const CliResult r = run_cli(fmt::format("box-blur {} {} --device {}", path("in.png"), path("out.png"), list));
    EXPECT_EQ(r.code, 2) << list << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << list << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    EXPECT_FALSE(fs::exists(path("out.png")));
  }
}

TEST_F(Cli, ADeviceSmallerThanTheImageFiltersItInBands) {
  SCOPED_TRACE(fmt::format("seed={}", seed_));
  const Image input = write_random_image(200, 150, 4);  // 120 KB a device image
  const std::string in = path("in.png");
  const ScopedEnv cap("CLFILTERS_DEVICE_MEMORY", "64K");
  const CliResult box = run_cli(fmt::format("box-blur {} {} -d 7", in, path("box.png")));
  ASSERT_EQ(box.code, 0) << box.output;
  EXPECT_TRUE(testing::images_equal(box_blur_reference(input, {7, {}}), read_image(path("box.png"))));
  const EpsilonParams eps{.radius = 2, .threshold = 25, .border = {}};
  const CliResult epsilon = run_cli(fmt::format("epsilon {} {} -r 2 -t 25", in, path("eps.png")));
  ASSERT_EQ(epsilon.code, 0) << epsilon.output;
  EXPECT_TRUE(testing::images_equal(epsilon_reference(input, eps), read_image(path("eps.png"))));
  // Within SPEC's 1 of the reference: the capped device's choice of variant may differ from an uncapped one's.
  const CliResult bilateral = run_cli(fmt::format("bilateral {} {} --sigma-range 25 --radius 2", in, path("bil.png")));
  ASSERT_EQ(bilateral.code, 0) << bilateral.output;
  const BilateralParams bil{.sigma_spatial = 3, .sigma_range = 25, .radius = 2, .border = {}};
  EXPECT_TRUE(testing::images_equal(bilateral_reference(input, bil), read_image(path("bil.png")), 1.0));
  const CliResult sobel = run_cli(fmt::format("sobel {} {}", in, path("sobel.png")));
  ASSERT_EQ(sobel.code, 0) << sobel.output;
  EXPECT_TRUE(testing::images_equal(sobel_reference(input, {}), read_image(path("sobel.png"))));
}

}  // namespace
}  // namespace clf
