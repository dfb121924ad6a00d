// SPDX-License-Identifier: Apache-2.0
// The fixture of the command-line tests: each test gets a fresh temporary folder, removed after it, and runs the
// clfilters command (the test target defines CLF_CLI_PATH) there.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "clfilters/image_io.hpp"
#include "testing/run_command.hpp"
#include "testing/test_images.hpp"

namespace clf::testing {

// The command, quoted for the shell.
inline std::string cli() {
  return fmt::format("'{}'", CLF_CLI_PATH);
}
// Runs `clfilters ARGS` through the shell.
inline CliResult run_cli(const std::string& args) {
  return run_shell(cli() + " " + args);
}

class CliTest : public ::testing::Test {
 protected:
  using CliResult = testing::CliResult;
  static std::string cli() { return testing::cli(); }
  static CliResult run_cli(const std::string& args) { return testing::run_cli(args); }
  // Each of `command_lines` is a usage error: the command says why and exits with 2.
  static void expect_usage_errors(const std::vector<std::string>& command_lines) {
    for (const std::string& args : command_lines) {
      const CliResult r = run_cli(args);
      EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
      EXPECT_FALSE(r.output.empty()) << args;
    }
  }

  void SetUp() override {
    seed_ = fresh_seed();
    dir_ = std::filesystem::temp_directory_path() / fmt::format("clf-cli-{}-{}", ::getpid(), seed_ % 1000000);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `name` inside the test's folder.
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // The names of the files in the test's folder, sorted.
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  // A random 8-bit image of width x height x channels from the test's seed, written to `name` in its folder.
  Image write_random_image(int width, int height, int channels, const std::string& name = "in.png") const {
    Image image = random_image(width, height, channels, SampleType::u8, seed_);
    write_image(image, path(name));
    return image;
  }
  std::uint64_t seed_ = 0;  // a fresh seed per test, for its inputs
  std::filesystem::path dir_;
};

}  // namespace clf::testing
