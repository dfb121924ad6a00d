// The .cl files embedded at build time (cmake/embed_kernels_script.cmake generates the table).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace clf {

struct EmbeddedKernel {
  std::string_view file;    // "box_blur.cl"
  std::string_view source;  // the file's text
};

const std::vector<EmbeddedKernel>& embedded_kernels();

// The text of an embedded file; throws std::invalid_argument if there is no such file.
std::string_view embedded_kernel_source(std::string_view file);

// 64-bit FNV-1a, used for cache keys.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace clf
