// SPDX-License-Identifier: Apache-2.0
// The fixture of the command-line tests: each test gets a fresh temporary folder, removed after it, and runs the
// clfilters command (the test target defines CLF_CLI_PATH) there. Also running any shell command from a test and
// collecting its exit code and output.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "clfilters/image_io.hpp"
#include "testing/test_files.hpp"
#include "testing/test_images.hpp"

namespace clf::testing {

struct CliResult {
  int code;            // the exit status, or -1 if the command did not exit normally
  std::string output;  // stdout and stderr together, unless the command redirects them
};

// Runs `command` through the shell; it may hold pipes and redirections.
inline CliResult run_shell(const std::string& command) {
  // The parentheses keep the command's own redirections; whatever it leaves on stderr joins stdout.
  FILE* pipe = ::popen(("( " + command + " ) 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The command, quoted for the shell.
inline std::string cli() {
  return fmt::format("'{}'", CLF_CLI_PATH);
}
// Runs `clfilters ARGS` through the shell.
inline CliResult run_cli(const std::string& args) {
  return run_shell(cli() + " " + args);
}

class CliTest : public TempDirTest {
 protected:
  CliTest() : TempDirTest("clf-cli") {}
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
};

}  // namespace clf::testing
