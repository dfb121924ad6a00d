// SPDX-License-Identifier: Apache-2.0
// Whole-file reads and writes, for tests that check what a command or a save left on disk.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace clf::testing {

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

}  // namespace clf::testing
