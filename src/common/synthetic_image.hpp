// Photograph-like test and benchmark inputs: smooth gradients, hard-edged shapes, fine texture and
// noise, so filters meet the structure of real images (not zeros, not only uniform noise).
#pragma once

#include <cstdint>

#include "clfilters/image.hpp"

namespace clf {

Image synthetic_photo(int width, int height, int channels, std::uint64_t seed);

}  // namespace clf
