// SPDX-License-Identifier: Apache-2.0
// The epsilon filter's internals: a call's description, its variant table, and the work-group shapes the
// variants derive from their tunables.
#pragma once

#include <cstddef>

#include "clfilters/epsilon.hpp"
#include "filters/image_call.hpp"

namespace clf {

using EpsilonCall = ImageCall<EpsilonParams>;
// The filter's public device calls, as its launcher (epsilon.cpp) and FilterSpec run them.
extern const ImageFilterApi<EpsilonParams> kEpsilonApi;
// Every epsilon variant, in the order the seeds introduce them (epsilon_variants.cpp).
const ImageTable<EpsilonParams>& epsilon_table();

// Work-group shape of the local variant for these tunables; each work-item computes 4 outputs, so a
// group covers (4 * width) x height pixels and needs a (4 * width + 2r) x (height + 2r) tile.
TileShape epsilon_local_shape(const VariantInfo& info, const TuningConfig& config);

// Tunables of the regblock variant: a rows x cols block of outputs per work-item, a local_x x local_y
// work-group, and the form of the per-tap instructions (epsilon.cl, RB_FORM).
struct EpsilonRegBlockShape {
  int cols;
  int rows;
  int local_x;
  int local_y;
  int form;
};
EpsilonRegBlockShape epsilon_regblock_shape(const VariantInfo& info, const TuningConfig& config);
// Bytes of its tile: (local_x * cols + 2r) x (local_y * rows + 2r) 4-byte words, each side rounded up
// to the work-group's (and the width to 4).
std::size_t epsilon_regblock_tile_bytes(const EpsilonRegBlockShape& shape, int radius);

}  // namespace clf
