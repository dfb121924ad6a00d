// The epsilon filter's internals: a call's description, its variant table, and the work-group shapes the
// variants derive from their tunables.
#pragma once

#include <cstddef>

#include "clfilters/epsilon.hpp"
#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"
#include "filters/variant_table.hpp"

namespace clf {

// One call: its parameters and the device images' size and channels (1 or 4).
struct EpsilonCall {
  EpsilonParams params;
  int width = 0;
  int height = 0;
  int channels = 1;
};

struct EpsilonTarget {
  const DeviceImage& in;
  DeviceImage& out;
};

using EpsilonTable = VariantTable<EpsilonCall, EpsilonTarget>;
// Every epsilon variant, in the order the seeds introduce them (epsilon_variants.cpp).
const EpsilonTable& epsilon_table();

// Work-group shape of the local variant for these tunables; each work-item computes 4 outputs, so a
// group covers (4 * width) x height pixels and needs a (4 * width + 2r) x (height + 2r) tile.
struct EpsilonLocalShape {
  int width;
  int height;
};
EpsilonLocalShape epsilon_local_shape(const VariantInfo& info, const TuningConfig& config);

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
