#pragma once

#include "clfilters/runtime.hpp"
#include "clfilters/variant.hpp"

namespace clf {

struct TileShape {
  int width;
  int height;
};

// Work-group (tile) shape of the local_tile variant on this device for these tunables.
TileShape box_local_tile_shape(const DeviceInfo& device, const TuningConfig& config);

}  // namespace clf
