// SPDX-License-Identifier: Apache-2.0
// The layout of a program binary in the disk cache: a header that lets a reader tell a whole file from one cut
// short or changed (another process's crash, a full disk), which is then rebuilt instead of handed to the driver.
#pragma once

#include <optional>
#include <vector>

namespace clf {

// "CLFPROG1", the binary's length and its FNV-1a hash (each a little-endian 64-bit word), then the binary.
std::vector<unsigned char> program_cache_file(const std::vector<unsigned char>& binary);
// The binary a cache file holds, or nullopt when the file is not a whole, unchanged cache file.
std::optional<std::vector<unsigned char>> binary_from_program_cache_file(const std::vector<unsigned char>& file);

}  // namespace clf
