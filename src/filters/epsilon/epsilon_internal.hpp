#pragma once

#include <cstddef>
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

// Tunables of the regblock variant: a rows x cols block of outputs per work-item, a local_x x local_y
// work-group, and the form of the per-tap instructions (epsilon.cl, RB_FORM).
struct EpsilonRegBlockShape {
  int cols;
  int rows;
  int local_x;
  int local_y;
  int form;
};
EpsilonRegBlockShape epsilon_regblock_shape(const TuningConfig& config);
// Bytes of its tile: (local_x * cols + 2r) x (local_y * rows + 2r) 4-byte words, each side rounded up
// to the work-group's (and the width to 4).
std::size_t epsilon_regblock_tile_bytes(const EpsilonRegBlockShape& shape, int radius);

// Output pixels one work-item computes along a row for this variant (1, 4, 8 or 16).
int epsilon_pixels_per_item(std::string_view variant);

}  // namespace clf
