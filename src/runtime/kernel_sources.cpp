#include "runtime/kernel_sources.hpp"

#include <stdexcept>
#include <string>

namespace clf {

std::string_view embedded_kernel_source(std::string_view file) {
  for (const auto& k : embedded_kernels())
    if (k.file == file) return k.source;
  throw std::invalid_argument("no embedded kernel file named " + std::string(file));
}

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace clf
