// SPDX-License-Identifier: Apache-2.0
#include "filters/image_call.hpp"

#include <cstdint>

namespace clf {

void check_image_size(int width, int height) {
  if (std::int64_t(width) * height * 4 >= (std::int64_t(1) << 31))
    throw std::invalid_argument(fmt::format("image {}x{} is too large (at most 2^29 pixels)", width, height));
}

cl_uint constant_bits(const Border& border, int channels) {
  const cl_uint v = border.mode == BorderMode::constant ? cl_uint(border.value) : 0u;
  return channels == 4 ? v | (v << 8) | (v << 16) | (v << 24) : v;
}

}  // namespace clf
