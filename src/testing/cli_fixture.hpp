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
  std::uint64_t seed_ = 0;  // a fresh seed per test, for its inputs
  std::filesystem::path dir_;
};

}  // namespace clf::testing
