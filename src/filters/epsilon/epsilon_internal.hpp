#pragma once

#include <string_view>

#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace clf {

// Work-group shape of the local variant for these tunables; each work-item computes 4 outputs, so a
// group covers (4 * width) x height pixels and needs a (4 * width + 2r) x (height + 2r) tile.
struct EpsilonLocalShape {
  int width;
  int height;
};
EpsilonLocalShape epsilon_local_shape(const TuningConfig& config);

// Output pixels one work-item computes along a row for this variant (1, 4, 8 or 16).
int epsilon_pixels_per_item(std::string_view variant);

}  // namespace clf
