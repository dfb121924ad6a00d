// SPDX-License-Identifier: Apache-2.0
// Whole-file reads and writes, for tests that check what a command or a save left on disk; the fixture of tests that
// work in a temporary folder; environment variables set for one scope.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "testing/test_images.hpp"

namespace clf::testing {

// The message of the `Error` that `f` throws, or "" if it throws none (any other exception goes through).
template <class Error, class F>
std::string thrown_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The file's bytes; empty if it cannot be opened.
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// How many lines a command printed: "one clear line" checks count its newlines.
inline int line_count(const std::string& text) {
  return int(std::count(text.begin(), text.end(), '\n'));
}

// A test with a fresh seed and a fresh temporary folder, "PREFIX-PID-N", removed after it.
class TempDirTest : public ::testing::Test {
 protected:
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    seed_ = fresh_seed();
    dir_ = std::filesystem::temp_directory_path() / fmt::format("{}-{}-{}", prefix_, ::getpid(), seed_ % 1000000);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `name` inside the test's folder.
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::uint64_t seed_ = 0;  // a fresh seed per test, for its inputs
  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace clf::testing

namespace clf {

// An environment variable set for one scope: restores the variable's earlier value (or its absence) when the scope
// ends; a null value unsets it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace clf
